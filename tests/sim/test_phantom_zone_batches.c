/* SPDX-License-Identifier: BSD-3-Clause */
/** @file test_phantom_zone_batches.c  The zones' energies batch by batch
 * (mct_phantom_params_t.zones, mct_phantom_result_t.zone_batch_mev) and the
 * lateral comparison's batch errors from them: the zone map's weights and
 * sums exactly on constructed fields, a run's zone batches against its depth
 * slabs and its tally, the batch errors (absolute and integral) against
 * closed forms on constructed batches, and a checkpointed run resumed. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mctally/mct.h"
#include "phantom.h"
#include "phantom_test.h"
#include "sim_test_tally.h"
#include "test_assert.h"

static const double pi = 3.14159265358979323846;

/* A 4 x 4 x 4 cube of 1 cm voxels with energies e_v = v + 1 (integers): sums
 * whose weights are 1 or 1/2 are exact in double. */
static void test_map_exact(void) {
    const mct_phantom_params_t p = phantom_test_cube(4, 4.0);
    double e[64];
    for (int v = 0; v < 64; ++v) e[v] = v + 1;
    const double zones[] = {
        0.5, 2.0, 0.0, 3.0,            /* every column (corners at 2 sqrt 2 < 3): half of layer 0, all of layer 1 */
        1.0, 2.0, 0.0, 0.5,            /* a disc of 0.5 cm about the axis, on the corner of 4 voxels, in layer 1 */
        3.0, 4.0, 0.0, sqrt(2.0),      /* the 4 central columns' disc, and the rest of the plane, in layer 3 */
        3.0, 4.0, sqrt(2.0), 3.0,
    };
    mct_phantom_zone_map_t m;
    ASSERT_STATUS(mct_phantom_zone_map(&p, zones, 4, &m), MCT_STATUS_SUCCESS);
    double out[4];
    mct_phantom_zone_sums(&m, e, out);
    double want = 0.0, layer3 = 0.0;
    for (int v = 0; v < 16; ++v) want += 0.5 * e[v] + e[16 + v], layer3 += e[48 + v];
    ASSERT_EQ_F64(out[0], want);
    ASSERT_EQ_I64(m.start[1] - m.start[0], 32);
    for (int64_t i = m.start[0]; i < m.start[1]; ++i) ASSERT_TRUE(m.weight[i] == (m.voxel[i] < 16 ? 0.5 : 1.0));
    /* The central voxels of layer 1 (x, y in 1..2) each hold a quarter of the disc. */
    const double quarter = pi * 0.25 / 4.0;
    ASSERT_EQ_I64(m.start[2] - m.start[1], 4);
    const double centre = e[16 + 5] + e[16 + 6] + e[16 + 9] + e[16 + 10];
    ASSERT_NEAR_F64(out[1], quarter * centre, 1e-15 * out[1]);
    /* A disc and the annulus beyond it share the plane out: their weights add to 1 in every voxel. */
    ASSERT_NEAR_F64(out[2] + out[3], layer3, 1e-14 * layer3);
    /* The zone energy of mct_phantom_zone_energy is the map's sum. */
    double mass, energy, err;
    ASSERT_STATUS(mct_phantom_zone_energy(&p, e, NULL, zones + 4, &mass, &energy, &err), MCT_STATUS_SUCCESS);
    ASSERT_EQ_F64(energy, out[1]);
    ASSERT_NEAR_F64(mass, pi * 0.25, 1e-15);
    mct_phantom_zone_map_free(&m);
    /* Bad zones. */
    const double bad[] = {1.0, 1.0, 0.0, 1.0};
    ASSERT_STATUS(mct_phantom_zone_map(&p, bad, 1, &m), MCT_STATUS_INVALID_VALUE);
    ASSERT_STATUS(mct_phantom_zone_map(&p, zones, -1, &m), MCT_STATUS_INVALID_VALUE);
    ASSERT_STATUS(mct_phantom_zone_map(&p, NULL, 1, &m), MCT_STATUS_NULL_POINTER);
    printf("zone map: exact sums on a constructed field\n");
}

/* A small run: the 20 MeV beam into a 2 cm cube of 8^3 voxels in 5 batches. */
static mct_phantom_params_t small_run(const double* zones, int nzones) {
    mct_phantom_params_t p = phantom_test_cube(8, 2.0);
    p.histories = 300;
    p.batches = 5;
    p.seed = 7;
    p.zones = zones;
    p.nzones = nzones;
    return p;
}

/* Zones of the small run: layer 3 whole (every column), a disc on the axis in layers 2-5 across
 * voxel boundaries, an annulus over half a layer. */
static const double run_zones[] = {0.75, 1.0, 0.0, 2.0, 0.5, 1.5, 0.0, 0.3, 0.6, 0.7, 0.3, 0.8};
#define RUN_ZONES 3

static void test_run_batches(void) {
    const mct_phantom_params_t p = small_run(run_zones, RUN_ZONES);
    mct_tally_t t = sim_test_tally(MCT_BACKEND_CPU, MCT_METHOD_ATOMIC, MCT_DTYPE_F64, mct_phantom_voxel_count(&p), 0);
    mct_phantom_result_t r;
    ASSERT_STATUS(mct_phantom_run(&p, t, &r), MCT_STATUS_SUCCESS);
    ASSERT_TRUE(r.zones == RUN_ZONES && r.zone_batch_mev != NULL && r.batches == 5);
    /* The whole layer is the depth slab's energy, batch by batch, exactly (the same voxels in the same order). */
    for (int64_t b = 0; b < r.batches; ++b) ASSERT_EQ_F64(r.zone_batch_mev[b * RUN_ZONES + 0], r.slab_batch_mev[b * 8 + 3]);
    /* The last batch's zones are the map's sums of the tally's last batch, exactly. */
    const int64_t bins = mct_phantom_voxel_count(&p);
    double* last = malloc((size_t)bins * sizeof *last);
    double* sums = malloc((size_t)bins * sizeof *sums);
    ASSERT_STATUS(mct_tally_copy_sums(t, MCT_SUMS_LAST_BATCH, MCT_DTYPE_F64, last, 0), MCT_STATUS_SUCCESS);
    ASSERT_STATUS(mct_tally_sums(t, sums), MCT_STATUS_SUCCESS);
    mct_phantom_zone_map_t m;
    ASSERT_STATUS(mct_phantom_zone_map(&p, run_zones, RUN_ZONES, &m), MCT_STATUS_SUCCESS);
    double z_last[RUN_ZONES], z_all[RUN_ZONES];
    mct_phantom_zone_sums(&m, last, z_last);
    mct_phantom_zone_sums(&m, sums, z_all);
    for (int j = 0; j < RUN_ZONES; ++j) {
        ASSERT_EQ_F64(r.zone_batch_mev[(r.batches - 1) * RUN_ZONES + j], z_last[j]);
        /* Batches, not running sums: they add up to the whole run's. */
        double total = 0.0;
        for (int64_t b = 0; b < r.batches; ++b) total += r.zone_batch_mev[b * RUN_ZONES + j];
        ASSERT_TRUE(z_all[j] > 0.0);
        ASSERT_NEAR_F64(total, z_all[j], 1e-12 * z_all[j]);
    }
    mct_phantom_zone_map_free(&m);
    free(last), free(sums);
    mct_phantom_result_free(&r);
    ASSERT_TRUE(r.zone_batch_mev == NULL);
    /* Zones that are not zones. */
    const double bad[] = {0.5, 0.4, 0.0, 1.0};
    const mct_phantom_params_t q = small_run(bad, 1);
    ASSERT_STATUS(mct_phantom_check(&q, t), MCT_STATUS_INVALID_VALUE);
    const mct_phantom_params_t none = small_run(NULL, 2);
    ASSERT_STATUS(mct_phantom_check(&none, t), MCT_STATUS_INVALID_VALUE);
    mct_tally_destroy(t);
    printf("run: zone batches = depth slabs and tally sums\n");
}

/* A checkpoint kept in memory. */
typedef struct {
    unsigned char* state;
    size_t bytes;
    int64_t done;
    void* tally_state;
    size_t tally_bytes;
    mct_tally_t tally;
} saved_t;

static mct_status_t save_at(void* ctx, int64_t done, const void* state, size_t bytes) {
    saved_t* s = ctx;
    if (done != 2) return MCT_STATUS_SUCCESS;
    s->state = malloc(bytes);
    memcpy(s->state, state, bytes);
    s->bytes = bytes, s->done = done;
    ASSERT_STATUS(mct_tally_save_state(s->tally, NULL, &s->tally_bytes), MCT_STATUS_SUCCESS);
    s->tally_state = malloc(s->tally_bytes);
    return mct_tally_save_state(s->tally, s->tally_state, &s->tally_bytes);
}

/* Saved after batch 2 of 5 and resumed: the zone batches of an uninterrupted run, bit for bit (a fixed-point
 * tally: its sums do not depend on the order of the adds); a state of other zones is refused. */
static void test_resume(void) {
    const mct_phantom_params_t p = small_run(run_zones, RUN_ZONES);
    const int64_t bins = mct_phantom_voxel_count(&p);
    mct_tally_t t = sim_test_tally(MCT_BACKEND_CPU, MCT_METHOD_FIXED, MCT_DTYPE_F64, bins, 0);
    saved_t s = {0};
    s.tally = t;
    const mct_sim_checkpoint_t save = {NULL, 0, 1, save_at, &s};
    mct_phantom_params_t ps = p;
    ps.checkpoint = &save;
    mct_phantom_result_t full;
    ASSERT_STATUS(mct_phantom_run(&ps, t, &full), MCT_STATUS_SUCCESS);
    mct_tally_destroy(t);
    ASSERT_TRUE(s.state != NULL && s.done == 2);

    mct_tally_t u = sim_test_tally(MCT_BACKEND_CPU, MCT_METHOD_FIXED, MCT_DTYPE_F64, bins, 0);
    ASSERT_STATUS(mct_tally_load_state(u, s.tally_state, s.tally_bytes), MCT_STATUS_SUCCESS);
    const mct_sim_checkpoint_t resume = {s.state, s.bytes, 0, NULL, NULL};
    mct_phantom_params_t pr = p;
    pr.checkpoint = &resume;
    mct_phantom_result_t res;
    ASSERT_STATUS(mct_phantom_run(&pr, u, &res), MCT_STATUS_SUCCESS);
    ASSERT_TRUE(!memcmp(full.zone_batch_mev, res.zone_batch_mev, (size_t)(5 * RUN_ZONES) * sizeof(double)));
    ASSERT_TRUE(!memcmp(full.slab_batch_mev, res.slab_batch_mev, (size_t)(5 * 8) * sizeof(double)));
    ASSERT_TRUE(!memcmp(full.batch_histories, res.batch_histories, 5 * sizeof(int64_t)));
    mct_phantom_result_free(&res);
    mct_tally_destroy(u);

    /* The same state with one zone moved, or fewer zones: refused. */
    double moved[sizeof run_zones / sizeof *run_zones];
    memcpy(moved, run_zones, sizeof moved);
    moved[11] = 0.9;
    const double* others[] = {moved, run_zones};
    const int counts[] = {RUN_ZONES, RUN_ZONES - 1};
    for (int i = 0; i < 2; ++i) {
        mct_tally_t w = sim_test_tally(MCT_BACKEND_CPU, MCT_METHOD_FIXED, MCT_DTYPE_F64, bins, 0);
        ASSERT_STATUS(mct_tally_load_state(w, s.tally_state, s.tally_bytes), MCT_STATUS_SUCCESS);
        mct_phantom_params_t po = small_run(others[i], counts[i]);
        po.checkpoint = &resume;
        ASSERT_STATUS(mct_phantom_run(&po, w, &res), MCT_STATUS_INVALID_VALUE);
        mct_tally_destroy(w);
    }
    mct_phantom_result_free(&full);
    free(s.state), free(s.tally_state);
    printf("resume: zone batches as uninterrupted; other zones refused\n");
}

/* The comparison's errors from constructed batches, against closed forms. A
 * flat run (1e-3 MeV per 1 mm voxel) and a flat reference of one slab of 20
 * annuli; 4 batches of 10 histories. */
static void test_batch_errors(void) {
    const int n = 40;
    mct_phantom_params_t p = phantom_test_cube(n, 4.0);
    double* e = malloc((size_t)n * n * n * sizeof *e);
    double* rel = malloc((size_t)n * n * n * sizeof *rel);
    for (int i = 0; i < n * n * n; ++i) e[i] = 1e-3, rel[i] = 0.01;
    double rows[20 * MCT_PHANTOM_LATERAL_COLUMNS];
    for (int a = 0; a < 20; ++a) {
        double* r = rows + MCT_PHANTOM_LATERAL_COLUMNS * a;
        r[0] = 1.0, r[1] = 1.1, r[2] = 0.1 * a, r[3] = 0.1 * (a + 1), r[4] = 1.0, r[5] = 0.0;
    }
    char err[512];
    double* zones;
    int nz;
    ASSERT_STATUS(mct_phantom_lateral_zones(&p, "flat", rows, 20, NULL, 0, &zones, &nz, err, sizeof err),
                  MCT_STATUS_SUCCESS);
    ASSERT_EQ_I64(nz, 20);
    p.zones = zones, p.nzones = nz;
    /* Each zone's energy per history, from the run's field. */
    double energy[20], mass[20], total = 0.0;
    for (int j = 0; j < nz; ++j) {
        double se;
        ASSERT_STATUS(mct_phantom_zone_energy(&p, e, rel, zones + 4 * j, &mass[j], &energy[j], &se), MCT_STATUS_SUCCESS);
        total += energy[j];
    }
    /* Batches: zone 0 only fluctuates, by delta_b; every other zone is the same in every batch. */
    const double delta[4] = {0.1, -0.1, 0.2, -0.2}; /* sum of squares 0.1 */
    int64_t hist[4] = {10, 10, 10, 10};
    double batch[4 * 20];
    for (int b = 0; b < 4; ++b)
        for (int j = 0; j < nz; ++j) batch[b * nz + j] = 10.0 * energy[j] * (j == 0 ? 1.0 + delta[b] : 1.0);
    mct_phantom_result_t r = {0};
    r.zone_batch_mev = batch, r.batch_histories = hist, r.batches = 4, r.zones = nz;
    /* The batch method: se^2 = sum_b h_b (x_b / h_b - mean)^2 / ((B - 1) N) = E^2 0.1 10 / (3 40), so the
     * relative error of zone 0 is 1 / sqrt(120), of the others 0. */
    const double k120 = 1.0 / sqrt(120.0);
    mct_phantom_lateral_t c;
    ASSERT_STATUS(mct_phantom_lateral_compare(&p, &r, e, rel, "flat", rows, 20, NULL, 0, 1e-3 / 1e-3, 3.0, &c, err,
                                              sizeof err),
                  MCT_STATUS_SUCCESS);
    ASSERT_TRUE(c.batch_errors && c.batches == 4 && c.absolute);
    ASSERT_NEAR_F64(c.zone[0].run_err, c.zone[0].run * k120, 1e-12 * c.zone[0].run);
    for (int j = 1; j < nz; ++j) ASSERT_LE_F64(c.zone[j].run_err, 1e-12 * c.zone[j].run);
    /* The independent voxels' error: every voxel 1 %, so sqrt(sum f^2) / sum f of 1 %, below 1 %. */
    ASSERT_TRUE(c.zone[5].run_err_independent > 0.0 && c.zone[5].run_err_independent < 0.01 * c.zone[5].run);
    /* The ratio's error: the total fluctuates by zone 0's alone. */
    ASSERT_NEAR_F64(c.ratio_err, c.ratio * energy[0] / total * k120, 1e-12 * c.ratio);
    mct_phantom_lateral_free(&c);
    /* Integral: zone j's share R_j = E_j / T of the total. Zone 0's share fluctuates as
     * (1 - R_0) delta_b to first order, the others' as -R_0 delta_b: relative errors (1 - R_0) / sqrt(120)
     * and R_0 / sqrt(120). */
    ASSERT_STATUS(mct_phantom_lateral_compare(&p, &r, e, rel, "flat", rows, 20, NULL, 0, 0.0, 3.0, &c, err, sizeof err),
                  MCT_STATUS_SUCCESS);
    const double r0 = energy[0] / total;
    ASSERT_TRUE(!c.absolute && c.batch_errors);
    ASSERT_NEAR_F64(c.zone[0].run_err, c.zone[0].run * (1.0 - r0) * k120, 1e-12 * c.zone[0].run);
    for (int j = 1; j < nz; ++j) ASSERT_NEAR_F64(c.zone[j].run_err, c.zone[j].run * r0 * k120, 1e-12 * c.zone[j].run);
    mct_phantom_lateral_free(&c);
    /* Every zone fluctuating together: the integral normalisation cancels it, no error is left. */
    for (int b = 0; b < 4; ++b)
        for (int j = 0; j < nz; ++j) batch[b * nz + j] = 10.0 * energy[j] * (1.0 + delta[b]);
    ASSERT_STATUS(mct_phantom_lateral_compare(&p, &r, e, rel, "flat", rows, 20, NULL, 0, 0.0, 3.0, &c, err, sizeof err),
                  MCT_STATUS_SUCCESS);
    for (int j = 0; j < nz; ++j) ASSERT_LE_F64(c.zone[j].run_err, 1e-12 * c.zone[j].run);
    mct_phantom_lateral_free(&c);
    /* A run of other zones, or of one batch: refused with a line. */
    r.zones = nz - 1;
    ASSERT_STATUS(mct_phantom_lateral_compare(&p, &r, e, rel, "flat", rows, 20, NULL, 0, 1.0, 3.0, &c, err, sizeof err),
                  MCT_STATUS_INVALID_VALUE);
    printf("refused: %s\n", err);
    ASSERT_TRUE(strstr(err, "did not record the 20 compared zones") != NULL && c.zone == NULL);
    r.zones = nz, r.batches = 1;
    ASSERT_STATUS(mct_phantom_lateral_compare(&p, &r, e, rel, "flat", rows, 20, NULL, 0, 1.0, 3.0, &c, err, sizeof err),
                  MCT_STATUS_INVALID_VALUE);
    r.batches = 4;
    zones[4 * 3 + 3] += 0.01;
    ASSERT_STATUS(mct_phantom_lateral_compare(&p, &r, e, rel, "flat", rows, 20, NULL, 0, 1.0, 3.0, &c, err, sizeof err),
                  MCT_STATUS_INVALID_VALUE);
    free(zones), free(e), free(rel);
    printf("batch errors: closed forms, absolute and integral\n");
}

int main(void) {
    test_map_exact();
    test_run_batches();
    test_resume();
    test_batch_errors();
    printf("test_phantom_zone_batches: OK\n");
    return 0;
}
