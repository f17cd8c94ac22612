/* SPDX-License-Identifier: BSD-3-Clause */
/** @file test_sim_params.c  The problems' parameter tables (sim_params.h):
 * params_init sets every table default, the defaults pass the problem's
 * check, every value outside a table range makes the problem's check return
 * INVALID_VALUE, the edges pass the table, "not set" zeros pass the check but
 * not the range a problem file is held to, and the ranges read as the CLI
 * prints them. Also the tally's stream getter the device engines launch by. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "escape.h"
#include "mctally/mct.h"
#include "pet.h"
#include "phantom.h"
#include "scatter.h"
#include "sim_common.h"
#include "sim_test_tally.h"
#include "tally_only.h"
#include "test_assert.h"

static mct_status_t check_escape(const void* p, mct_tally_t t) { return mct_escape_check(p, t); }
static mct_status_t check_phantom(const void* p, mct_tally_t t) { return mct_phantom_check(p, t); }
static mct_status_t check_tally_only(const void* p, mct_tally_t t) { return mct_tally_only_check(p, t); }
static mct_status_t check_scatter(const void* p, mct_tally_t t) { return mct_scatter_check(p, t); }
static mct_status_t check_pet(const void* p, mct_tally_t t) { return mct_pet_check(p, t); }

typedef struct {
    const mct_sim_param_table_t* table;
    mct_status_t (*check)(const void* p, mct_tally_t t);
    void* params; /* initialized by the problem's params_init */
    size_t size;
    mct_tally_t tally; /* fits the defaults */
} problem_t;

static mct_tally_t make(mct_dtype_t dtype, int64_t bins) {
    return sim_test_tally(MCT_BACKEND_CPU, MCT_METHOD_ATOMIC, dtype, bins, 0);
}

/* Values just outside p's range (NaN where there are fewer). */
static void outside(const mct_sim_param_t* p, double out[4]) {
    const int whole = p->type != MCT_SIM_PARAM_F64, open = (p->flags & MCT_SIM_PARAM_MIN_OPEN) != 0;
    out[0] = open ? p->min : whole ? p->min - 1.0 : nextafter(p->min, -INFINITY);
    out[1] = isinf(p->max) || p->max >= 0x1p63 ? NAN : whole ? p->max + 1.0 : nextafter(p->max, INFINITY);
    out[2] = whole ? p->min + 0.5 : NAN; /* not whole: only a double field can hold it, and none is whole */
    out[3] = p->type == MCT_SIM_PARAM_F64 ? INFINITY : NAN;
}

static void test_table(const problem_t* pr) {
    const mct_sim_param_table_t* t = pr->table;
    printf("%s: %d parameters\n", t->problem, t->count);
    ASSERT_STATUS(pr->check(pr->params, pr->tally), MCT_STATUS_SUCCESS);
    ASSERT_STATUS(mct_sim_params_check(t, pr->params, NULL), MCT_STATUS_SUCCESS);
    static unsigned char copy[16384]; /* the PET problem's shapes make its params the largest */
    ASSERT_TRUE(pr->size <= sizeof copy);
    for (int i = 0; i < t->count; ++i) {
        const mct_sim_param_t* p = &t->params[i];
        ASSERT_TRUE(mct_sim_param_find(t, p->key) == p);
        ASSERT_EQ_F64(mct_sim_param_get(p, pr->params), p->value);
        ASSERT_TRUE(mct_sim_param_valid(p, p->value));
        /* The edges are in range. */
        memcpy(copy, pr->params, pr->size);
        if (!(p->flags & MCT_SIM_PARAM_MIN_OPEN)) {
            ASSERT_TRUE(mct_sim_param_in_range(p, p->min));
            mct_sim_param_set(p, copy, p->min);
            ASSERT_STATUS(mct_sim_params_check(t, copy, NULL), MCT_STATUS_SUCCESS);
        }
        if (p->max < 0x1p53) {
            ASSERT_TRUE(mct_sim_param_in_range(p, p->max));
            mct_sim_param_set(p, copy, p->max);
            ASSERT_STATUS(mct_sim_params_check(t, copy, NULL), MCT_STATUS_SUCCESS);
        }
        /* "Not set" passes the check, never a problem file's range. */
        if (p->flags & MCT_SIM_PARAM_ZERO_UNSET) {
            ASSERT_TRUE(mct_sim_param_valid(p, 0.0) && !mct_sim_param_in_range(p, 0.0));
        }
        /* Outside: the problem's own check refuses it, naming the parameter. */
        double bad[4];
        outside(p, bad);
        for (int k = 0; k < 4; ++k) {
            if (isnan(bad[k]) || (bad[k] == 0.0 && (p->flags & MCT_SIM_PARAM_ZERO_UNSET))) continue;
            ASSERT_TRUE(!mct_sim_param_valid(p, bad[k]));
            if (p->type == MCT_SIM_PARAM_U64) continue; /* a seed's range is every value its field holds */
            if (p->type != MCT_SIM_PARAM_F64 && bad[k] != floor(bad[k])) continue; /* an int field cannot hold it */
            if (p->type == MCT_SIM_PARAM_INT && !(bad[k] >= -2147483648.0 && bad[k] <= 2147483647.0)) continue;
            memcpy(copy, pr->params, pr->size);
            mct_sim_param_set(p, copy, bad[k]);
            const mct_sim_param_t* which = NULL;
            ASSERT_STATUS(mct_sim_params_check(t, copy, &which), MCT_STATUS_INVALID_VALUE);
            ASSERT_TRUE(which == p);
            ASSERT_STATUS(pr->check(copy, pr->tally), MCT_STATUS_INVALID_VALUE);
        }
    }
}

static void test_tables(void) {
    mct_escape_params_t e;
    mct_phantom_params_t ph;
    mct_tally_only_params_t to;
    mct_scatter_params_t sc;
    mct_pet_params_t pe;
    mct_escape_params_init(&e);
    mct_pet_params_init(&pe);
    mct_phantom_params_init(&ph);
    mct_tally_only_params_init(&to);
    mct_scatter_params_init(&sc);
    /* The defaults the headers promise, with the fields the tables leave out. */
    ASSERT_EQ_F64(e.thickness_m, 100.0);
    ASSERT_EQ_F64(e.sigma_per_m, MCT_ESCAPE_SIGMA_HELIUM);
    ASSERT_TRUE(e.launch == MCT_ESCAPE_LAUNCH_PAPER && e.seed == 1 && e.block_size == 128);
    ASSERT_TRUE(ph.voxels == 100 && ph.particle == MCT_PHANTOM_ELECTRON && ph.transport == MCT_PHANTOM_TRANSPORT_AUTO &&
                ph.mcs == MCT_PHANTOM_MCS_TRANSPORT && ph.histories == 100000 && ph.discard == 0);
    ASSERT_TRUE(to.bins == 8 && to.collisions == 10 && to.launch == MCT_TALLY_ONLY_LAUNCH_PAPER && to.seed == 1);
    ASSERT_TRUE(sc.bins == 1000 && sc.width == 1 && sc.pattern == MCT_SCATTER_UNIFORM &&
                sc.check == MCT_SCATTER_CHECK_AUTO && sc.seed == 1);
    ASSERT_TRUE(pe.crystals == 400 && pe.rings == 64 && pe.source == MCT_PET_SOURCE_VOXEL &&
                pe.index == MCT_PET_INDEX_COMPRESSED && pe.doi == 0 && pe.nshapes == 0 && pe.discard == 0);
    pe.index = MCT_PET_INDEX_TOTAL; /* not a table field: one bin, so that the check's tally is small */
    const problem_t problems[] = {
        {&mct_escape_param_table, check_escape, &e, sizeof e, make(MCT_DTYPE_U64, 1)},
        {&mct_phantom_param_table, check_phantom, &ph, sizeof ph, make(MCT_DTYPE_F64, 100 * 100 * 100)},
        {&mct_tally_only_param_table, check_tally_only, &to, sizeof to, make(MCT_DTYPE_F64, 8)},
        {&mct_scatter_param_table, check_scatter, &sc, sizeof sc, make(MCT_DTYPE_F64, 1000)},
        {&mct_pet_param_table, check_pet, &pe, sizeof pe, make(MCT_DTYPE_I32, 1)},
    };
    for (size_t i = 0; i < sizeof problems / sizeof *problems; ++i) {
        test_table(&problems[i]);
        mct_tally_destroy(problems[i].tally);
    }
    ASSERT_TRUE(mct_sim_param_find(&mct_phantom_param_table, "colour") == NULL);
}

/* Where the CLI and the library disagreed, the table took the stricter bound:
 * a phantom of at most 1e4 cm, thresholds of at most 1e9 MeV. */
static void test_stricter(void) {
    mct_phantom_params_t p;
    mct_phantom_params_init(&p);
    p.voxels = 10;
    mct_tally_t t = make(MCT_DTYPE_F64, 1000);
    ASSERT_STATUS(mct_phantom_check(&p, t), MCT_STATUS_SUCCESS);
    p.size_cm = 2e4;
    ASSERT_STATUS(mct_phantom_check(&p, t), MCT_STATUS_INVALID_VALUE);
    p.size_cm = 40.0;
    const double thresholds[] = {2e9, INFINITY};
    for (int i = 0; i < 2; ++i) {
        p.delta_threshold_MeV = thresholds[i];
        ASSERT_STATUS(mct_phantom_check(&p, t), MCT_STATUS_INVALID_VALUE);
        p.delta_threshold_MeV = 0.0;
        p.brems_threshold_MeV = thresholds[i];
        ASSERT_STATUS(mct_phantom_check(&p, t), MCT_STATUS_INVALID_VALUE);
        p.brems_threshold_MeV = 0.0;
    }
    ASSERT_STATUS(mct_phantom_check(&p, t), MCT_STATUS_SUCCESS);
    mct_tally_destroy(t);
}

static void expect_range(const mct_sim_param_table_t* t, const char* key, const char* words) {
    char buf[160];
    const mct_sim_param_t* p = mct_sim_param_find(t, key);
    ASSERT_TRUE(p != NULL);
    ASSERT_STR_EQ(mct_sim_param_describe(p, buf, sizeof buf), words);
}

static void test_describe(void) {
    expect_range(&mct_phantom_param_table, "voxels", "a whole number 1 .. 1290 (voxels per edge)");
    expect_range(&mct_phantom_param_table, "size_cm", "a number in [0.001, 10000] (cm)");
    expect_range(&mct_phantom_param_table, "step_fraction",
                 "a number in [0.001, 0.5] (largest fractional energy loss per step)");
    expect_range(&mct_phantom_param_table, "max_step_g_cm2", "a number in [0.001, 10000] (longest electron step, g/cm2)");
    expect_range(&mct_phantom_param_table, "delta_threshold_MeV", "a number in [0.0125, 1e9] (MeV)");
    expect_range(&mct_tally_only_param_table, "bins", "a whole number 1 .. 2^31");
    expect_range(&mct_tally_only_param_table, "collisions", "a whole number 1 .. 1000000");
    expect_range(&mct_tally_only_param_table, "mean_energy_MeV", "a number in (0, 1e30] (MeV)");
    expect_range(&mct_escape_param_table, "thickness_m", "a number >= 0 (m)");
    expect_range(&mct_escape_param_table, "sigma_per_m", "a number > 0 (per m)");
    expect_range(&mct_scatter_param_table, "chunk", "a whole number >= 1 (particles per add)");
    char small[12];
    mct_sim_param_describe(mct_sim_param_find(&mct_phantom_param_table, "voxels"), small, sizeof small);
    ASSERT_EQ_I64((int64_t)strlen(small), (int64_t)sizeof small - 1);
}

static void test_stream(void) {
    mct_tally_t t = make(MCT_DTYPE_F64, 4);
    void* s = &s;
    ASSERT_STATUS(mct_tally_get_stream(t, &s), MCT_STATUS_SUCCESS);
    ASSERT_TRUE(s == NULL);
    int marker = 0;
    ASSERT_STATUS(mct_tally_set_stream(t, &marker), MCT_STATUS_SUCCESS);
    ASSERT_STATUS(mct_tally_get_stream(t, &s), MCT_STATUS_SUCCESS);
    ASSERT_TRUE(s == &marker);
    ASSERT_STATUS(mct_tally_get_stream(t, NULL), MCT_STATUS_NULL_POINTER);
    ASSERT_STATUS(mct_tally_get_stream(NULL, &s), MCT_STATUS_NULL_POINTER);
    mct_tally_destroy(t);
}

/* The phantom's bounds that keep a run finite and its dose a number: a step
 * fraction whose energy loss the transport resolves, a cube whose voxels have
 * a volume. */
static void test_physical_bounds(void) {
    mct_phantom_params_t p;
    mct_phantom_params_init(&p);
    p.voxels = 10;
    mct_tally_t t = make(MCT_DTYPE_F64, 1000);
    const double bad_steps[] = {1e-15, 1e-12, 1e-9, 1e-6, 9.99e-4, 0.0, -0.1, 0.6, NAN};
    for (size_t i = 0; i < sizeof bad_steps / sizeof *bad_steps; ++i) {
        p.step_fraction = bad_steps[i];
        ASSERT_STATUS(mct_phantom_check(&p, t), MCT_STATUS_INVALID_VALUE);
    }
    p.step_fraction = 1e-3;
    ASSERT_STATUS(mct_phantom_check(&p, t), MCT_STATUS_SUCCESS);
    p.step_fraction = 0.04;
    const double bad_sizes[] = {1e-300, 5e-324, 9.99e-4, 0.0};
    for (size_t i = 0; i < sizeof bad_sizes / sizeof *bad_sizes; ++i) {
        p.size_cm = bad_sizes[i];
        ASSERT_STATUS(mct_phantom_check(&p, t), MCT_STATUS_INVALID_VALUE);
    }
    /* The smallest cube at the finest grid: the voxel mass and so the dose of
     * one MeV are finite and non-zero. */
    p.size_cm = 1e-3;
    p.voxels = 1290;
    double dose = 1.0;
    mct_phantom_dose_gy(&p, &dose, &dose, 1);
    ASSERT_TRUE(isfinite(dose) && dose > 0.0);
    mct_tally_destroy(t);
}

/* Replicas on a host backend stay within SIM_HOST_REPLICA_BYTES however many
 * threads add: 65536 emulated threads on 8000 f64 bins would ask for 4 GB.
 * The threads then share the replicas, and the tally says so. */
static void test_host_replica_cap(void) {
    mct_tally_t t = sim_test_tally(MCT_BACKEND_EMULATED, MCT_METHOD_REPLICATED, MCT_DTYPE_F64, 8000, 0);
    int64_t limit = 0, replicas = 0, writers = 0;
    ASSERT_STATUS(sim_replica_limit(t, &limit), MCT_STATUS_SUCCESS);
    const int64_t cap = (int64_t)(SIM_HOST_REPLICA_BYTES / (8000 * sizeof(double)));
    ASSERT_TRUE(limit >= 1 && limit <= cap);
    ASSERT_STATUS(sim_reserve_replicas(t, 65536), MCT_STATUS_SUCCESS);
    ASSERT_STATUS(mct_tally_replicas(t, &replicas, &writers), MCT_STATUS_SUCCESS);
    ASSERT_TRUE(replicas >= 1 && replicas <= cap);
    ASSERT_EQ_I64(writers, 65536);
    mct_determinism_t det = MCT_BITWISE;
    ASSERT_STATUS(mct_tally_determinism(t, &det), MCT_STATUS_SUCCESS);
    ASSERT_TRUE(det == MCT_NOT_GUARANTEED);
    mct_tally_destroy(t);
    /* Few threads still get one private replica each. */
    t = sim_test_tally(MCT_BACKEND_EMULATED, MCT_METHOD_REPLICATED, MCT_DTYPE_F64, 8000, 0);
    ASSERT_STATUS(sim_reserve_replicas(t, 4), MCT_STATUS_SUCCESS);
    ASSERT_STATUS(mct_tally_replicas(t, &replicas, &writers), MCT_STATUS_SUCCESS);
    ASSERT_EQ_I64(replicas, 4);
    mct_tally_destroy(t);
}

int main(void) {
    test_physical_bounds();
    test_host_replica_cap();
    test_tables();
    test_stricter();
    test_describe();
    test_stream();
    puts("test_sim_params: ok");
    return 0;
}
