/* SPDX-License-Identifier: BSD-3-Clause */
/** @file tally_only.c  The tally-only problem's driver: checks, batches and
 * chunks, and the statistics of the result. The deposits are made by the
 * engines (tally_only_cpu.c, tally_only_device.cu). */
#include <math.h>
#include <stddef.h>
#include <stdlib.h>

#include "tally_only.h"
#include "tally_only_engine.h"
#include "sim_common.h"

/* The launch's default, Liu's, is 0. */
void mct_tally_only_params_init(mct_tally_only_params_t* p) {
    if (p) mct_sim_params_defaults(&mct_tally_only_param_table, p, sizeof *p);
}

#define TALLY_ONLY_PARAM(key, type, field) key, MCT_SIM_PARAM_##type, offsetof(mct_tally_only_params_t, field)

static const mct_sim_param_t tally_only_params[] = {
    {TALLY_ONLY_PARAM("particles", I64, particles), 1.0, INFINITY, 0, 1e6, NULL},
    {TALLY_ONLY_PARAM("bins", I64, bins), 1.0, 0x1p31, MCT_SIM_PARAM_FILE, 8.0, NULL},
    {TALLY_ONLY_PARAM("collisions", INT, collisions), 1.0, 1e6, MCT_SIM_PARAM_FILE, 10.0, NULL},
    /* The kernels use the mean as a float: 1e30 keeps it finite. */
    {TALLY_ONLY_PARAM("mean_energy_MeV", F64, mean_energy), 0.0, 1e30, MCT_SIM_PARAM_FILE | MCT_SIM_PARAM_MIN_OPEN,
     0.1, "MeV"},
    {TALLY_ONLY_PARAM("batches", I64, batches), 1.0, INFINITY, 0, 10.0, NULL},
    {TALLY_ONLY_PARAM("seed", U64, seed), 0.0, 0x1p64, 0, 1.0, NULL},
    {TALLY_ONLY_PARAM("chunk", I64, chunk), 1.0, INFINITY, MCT_SIM_PARAM_ZERO_UNSET, 0.0, "particles per engine call"},
};

MCT_SIM_PARAM_TABLE(mct_tally_only_param_table, "tally_only", tally_only_params);

static int params_valid(const mct_tally_only_params_t* p) {
    return !mct_sim_params_check(&mct_tally_only_param_table, p, NULL) && p->particles >= p->batches &&
           (p->launch == MCT_TALLY_ONLY_LAUNCH_PAPER || p->launch == MCT_TALLY_ONLY_LAUNCH_FULL);
}

mct_status_t mct_tally_only_check(const mct_tally_only_params_t* p, mct_tally_t tally) {
    if (!p || !tally) return MCT_STATUS_NULL_POINTER;
    if (!params_valid(p)) return MCT_STATUS_INVALID_VALUE;
    mct_tally_desc_t d;
    const mct_status_t st = sim_check_float_tally(tally, p->bins, &d);
    if (st) return st;
    if (d.method == MCT_METHOD_SORT_REDUCE && d.pair_capacity < p->collisions) return MCT_STATUS_INVALID_VALUE;
    return MCT_STATUS_SUCCESS;
}

/* Deposits per engine call. The CPU engine keeps a chunk's deposits in host
 * arrays (12 bytes each); the GPU engines keep nothing per particle, so a
 * batch is one launch there (the emulated one, smaller launches for progress). */
static const sim_engine_set_t tally_only_engines = {
    &sim_tally_only_engine_cpu, INT64_C(1) << 20, &sim_tally_only_engine_emulated, INT64_C(1) << 18,
    SIM_CUDA_ENGINE(&sim_tally_only_engine_cuda, INT64_C(1) << 50)};

/* The tally's running total over all bins. */
static mct_status_t running_total(mct_tally_t tally, double* sums, int64_t bins, double* total) {
    mct_status_t st = mct_tally_sums(tally, sums);
    if (st) return st;
    double t = 0.0;
    for (int64_t k = 0; k < bins; ++k) t += sums[k];
    *total = t;
    return MCT_STATUS_SUCCESS;
}

/* After each batch, its total (the difference of running totals) and its
 * size, for the batch statistics. */
typedef struct {
    mct_tally_t tally;
    int64_t bins;
    double *sums, *batch_total, before;
    int64_t* batch_size;
} batch_totals_t;

static mct_status_t record_batch(void* ctx, int64_t b, int64_t histories) {
    batch_totals_t* r = ctx;
    double after = 0.0;
    mct_status_t st = running_total(r->tally, r->sums, r->bins, &after);
    if (st) return st;
    r->batch_total[b] = after - r->before;
    r->batch_size[b] = histories;
    r->before = after;
    return MCT_STATUS_SUCCESS;
}

/* Probability that a collision scores in bin k: the number of 32-bit words w
 * with floor(w B / 2^32) = k, over 2^32 (mct_tally_only_bin). */
static double bin_probability(int64_t k, int64_t bins) {
    const uint64_t b = (uint64_t)bins, lo = ((uint64_t)k << 32), hi = ((uint64_t)(k + 1) << 32);
    const uint64_t first = lo / b + (lo % b != 0), end = hi / b + (hi % b != 0);
    return (double)(end - first) * 0x1p-32;
}

/* Largest |z| of a bin: its total is a sum of D deposits X = E 1[bin = k],
 * with E[X] = p m and E[X^2] = 2 p m^2 (exponential: E[E^2] = 2 m^2). */
static double max_bin_z(const double* sums, int64_t bins, double deposits, double m) {
    double worst = 0.0;
    for (int64_t k = 0; k < bins; ++k) {
        const double pk = bin_probability(k, bins);
        const double var = deposits * (2.0 * pk * m * m - pk * pk * m * m);
        const double z = var > 0.0 ? fabs(sums[k] - deposits * pk * m) / sqrt(var) : (sums[k] == 0.0 ? 0.0 : INFINITY);
        if (z > worst) worst = z;
    }
    return worst;
}

static void fill_result(const mct_tally_only_params_t* p, const double* sums, double total, double batch_se,
                        double seconds, mct_tally_only_result_t* out) {
    const double deposits = (double)p->particles * (double)p->collisions;
    const double m = (double)(float)p->mean_energy; /* the kernels' float mean */
    out->total = total;
    out->expected = deposits * m;
    out->std_error = m * sqrt(deposits);
    out->z_score = (total - out->expected) / out->std_error;
    out->batch_std_error = batch_se;
    out->max_bin_z = max_bin_z(sums, p->bins, deposits, m);
    out->updates = p->particles * (int64_t)p->collisions;
    out->seconds = seconds;
    out->updates_per_second = deposits / seconds;
}

mct_status_t mct_tally_only_run(const mct_tally_only_params_t* p, mct_tally_t tally, mct_tally_only_result_t* out) {
    mct_tally_desc_t d;
    mct_status_t st = sim_run_start(out, mct_tally_only_check(p, tally), tally, &d);
    if (st) return st;
    const double t0 = sim_now_seconds();
    batch_totals_t bt = {tally, p->bins, malloc((size_t)p->bins * sizeof(double)),
                         malloc((size_t)p->batches * sizeof(double)), 0.0, malloc((size_t)p->batches * sizeof(int64_t))};
    st = bt.sums && bt.batch_total && bt.batch_size ? MCT_STATUS_SUCCESS : MCT_STATUS_OUT_OF_MEMORY;
    st = sim_ranks_agree(p->ranks, st);
    /* The engine's default chunk counts deposits; a chunk counts particles. */
    sim_run_t run = {.engines = &tally_only_engines, .problem = p, .tally = tally, .histories = p->particles,
                     .batches = p->batches, .chunk = p->chunk, .values_per_history = p->collisions,
                     .replicas = SIM_REPLICAS_SHARE, .batch_done = record_batch, .batch_ctx = &bt,
                     .progress = p->progress, .progress_ctx = p->progress_ctx, .ranks = p->ranks};
    if (!st) st = sim_run(&run);
    double total = 0.0;
    if (!st) st = running_total(tally, bt.sums, p->bins, &total);
    if (!st) {
        /* The total's standard error: particles times that of the mean per particle. */
        const double particles = (double)p->particles;
        const double se = particles * sim_batch_error(bt.batch_total, 1, bt.batch_size, p->batches, total, particles);
        fill_result(p, bt.sums, total, se, sim_now_seconds() - t0, out);
    }
    free(bt.sums);
    free(bt.batch_total);
    free(bt.batch_size);
    return st;
}
