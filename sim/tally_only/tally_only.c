/* SPDX-License-Identifier: BSD-3-Clause */
/** @file tally_only.c  The tally-only problem's driver: checks, batches and
 * chunks, and the statistics of the result. The deposits are made by the
 * engines (tally_only_cpu.c, tally_only_device.cu). */
#include <math.h>
#include <stdlib.h>

#include "tally_only.h"
#include "tally_only_engine.h"
#include "sim_common.h"

void mct_tally_only_params_init(mct_tally_only_params_t* p) {
    if (!p) return;
    *p = (mct_tally_only_params_t){0};
    p->particles = 1000000;
    p->collisions = 10;
    p->bins = 8;
    p->mean_energy = 0.1;
    p->seed = 1;
    p->batches = 10;
    p->launch = MCT_TALLY_ONLY_LAUNCH_PAPER;
}

static int params_valid(const mct_tally_only_params_t* p) {
    return p->batches >= 1 && p->particles >= p->batches && p->collisions >= 1 && p->collisions <= 1000000 &&
           p->bins >= 1 && p->bins <= (INT64_C(1) << 31) && isfinite(p->mean_energy) && p->mean_energy > 0.0 &&
           p->mean_energy <= 1e30 && p->chunk >= 0 &&
           (p->launch == MCT_TALLY_ONLY_LAUNCH_PAPER || p->launch == MCT_TALLY_ONLY_LAUNCH_FULL);
}

mct_status_t mct_tally_only_check(const mct_tally_only_params_t* p, mct_tally_t tally) {
    if (!p || !tally) return MCT_STATUS_NULL_POINTER;
    if (!params_valid(p)) return MCT_STATUS_INVALID_VALUE;
    mct_tally_desc_t d;
    const mct_status_t st = mct__sim_check_float_tally(tally, p->bins, &d);
    if (st) return st;
    if (d.method == MCT_METHOD_SORT_REDUCE && d.pair_capacity < p->collisions) return MCT_STATUS_INVALID_VALUE;
    return MCT_STATUS_SUCCESS;
}

/* Deposits per engine call. The CPU engine keeps a chunk's deposits in host
 * arrays (12 bytes each); the GPU engines keep nothing per particle, so a
 * batch is one launch there (the emulated one, smaller launches for progress). */
static const sim_engine_set_t tally_only_engines = {
    &mct__tally_only_engine_cpu, INT64_C(1) << 20, &mct__tally_only_engine_emulated, INT64_C(1) << 18,
    SIM_CUDA_ENGINE(&mct__tally_only_engine_cuda, INT64_C(1) << 50)};

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

/* Standard error of the total from the spread of the batch totals per
 * particle (weighted by batch size, as the tally's own statistics). */
static double batch_std_error(const double* t, const int64_t* n, int64_t batches, double total, double particles) {
    if (batches < 2) return NAN;
    const double mean = total / particles;
    double ss = 0.0;
    for (int64_t b = 0; b < batches; ++b) {
        const double d = t[b] / (double)n[b] - mean;
        ss += (double)n[b] * d * d;
    }
    return particles * sqrt(ss / ((double)(batches - 1) * particles));
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
    if (!out) return MCT_STATUS_NULL_POINTER;
    mct_status_t st = mct_tally_only_check(p, tally);
    if (st) return st;
    const double t0 = mct__sim_now_seconds();
    batch_totals_t bt = {tally, p->bins, malloc((size_t)p->bins * sizeof(double)),
                         malloc((size_t)p->batches * sizeof(double)), 0.0, malloc((size_t)p->batches * sizeof(int64_t))};
    st = bt.sums && bt.batch_total && bt.batch_size ? MCT_STATUS_SUCCESS : MCT_STATUS_OUT_OF_MEMORY;
    /* The engine's default chunk counts deposits; a chunk counts particles. */
    sim_run_t run = {.engines = &tally_only_engines, .problem = p, .tally = tally, .histories = p->particles,
                     .batches = p->batches, .chunk = p->chunk, .values_per_history = p->collisions,
                     .replicas = SIM_REPLICAS_SHARE, .batch_done = record_batch, .batch_ctx = &bt,
                     .progress = p->progress, .progress_ctx = p->progress_ctx};
    if (!st) st = sim_run(&run);
    double total = 0.0;
    if (!st) st = running_total(tally, bt.sums, p->bins, &total);
    if (!st)
        fill_result(p, bt.sums, total,
                    batch_std_error(bt.batch_total, bt.batch_size, p->batches, total, (double)p->particles),
                    mct__sim_now_seconds() - t0, out);
    free(bt.sums);
    free(bt.batch_total);
    free(bt.batch_size);
    return st;
}
