/* SPDX-License-Identifier: BSD-3-Clause */
/** @file scatter.c  The scatter workload's driver: checks, batches and chunks,
 * the statistics of the total, and the bin-by-bin comparison with a host
 * reference summed in long double. */
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "scatter.h"
#include "scatter_engine.h"
#include "sim_common.h"

/* Particles per pass of the host reference. */
/* The defaults of the pattern (uniform) and the check (auto) are 0. */
void mct_scatter_params_init(mct_scatter_params_t* p) {
    if (p) mct_sim_params_defaults(&mct_scatter_param_table, p, sizeof *p);
}

#define SCATTER_REFERENCE_CHUNK (INT64_C(1) << 20)

static const char* const pattern_names[MCT_SCATTER_PATTERN_COUNT] = {"uniform", "sorted", "hot"};

const char* mct_scatter_pattern_name(mct_scatter_pattern_t pattern) {
    return (unsigned)pattern < MCT_SCATTER_PATTERN_COUNT ? pattern_names[pattern] : "invalid";
}

mct_status_t mct_scatter_pattern_from_name(const char* name, mct_scatter_pattern_t* out) {
    if (!name || !out) return MCT_STATUS_NULL_POINTER;
    for (int i = 0; i < MCT_SCATTER_PATTERN_COUNT; ++i)
        if (!strcmp(name, pattern_names[i])) {
            *out = (mct_scatter_pattern_t)i;
            return MCT_STATUS_SUCCESS;
        }
    return MCT_STATUS_INVALID_VALUE;
}

#define SCATTER_PARAM(key, type, field) key, MCT_SIM_PARAM_##type, offsetof(mct_scatter_params_t, field)

static const mct_sim_param_t scatter_params[] = {
    {SCATTER_PARAM("n", I64, n), 1.0, INFINITY, 0, 1e6, "particles"},
    {SCATTER_PARAM("bins", I64, bins), 1.0, 0x1p31, MCT_SIM_PARAM_FILE, 1000.0, "cells"},
    {SCATTER_PARAM("width", INT, width), 1.0, MCT_SCATTER_MAX_WIDTH, MCT_SIM_PARAM_FILE, 1.0, "components per particle"},
    {SCATTER_PARAM("batches", I64, batches), 1.0, INFINITY, 0, 10.0, NULL},
    {SCATTER_PARAM("seed", U64, seed), 0.0, 0x1p64, 0, 1.0, NULL},
    {SCATTER_PARAM("chunk", I64, chunk), 1.0, INFINITY, MCT_SIM_PARAM_FILE | MCT_SIM_PARAM_ZERO_UNSET, 0.0,
     "particles per add"},
};

MCT_SIM_PARAM_TABLE(mct_scatter_param_table, "scatter", scatter_params);

static int params_valid(const mct_scatter_params_t* p) {
    if (mct_sim_params_check(&mct_scatter_param_table, p, NULL) || p->n < p->batches ||
        (unsigned)p->pattern >= MCT_SCATTER_PATTERN_COUNT || (unsigned)p->check > MCT_SCATTER_CHECK_NEVER)
        return 0;
    if (p->bins > (INT64_C(1) << 31) / p->width) return 0;
    /* The sorted keys are floor(i B / n) in 64-bit integers. */
    return p->pattern != MCT_SCATTER_SORTED || (uint64_t)p->n <= UINT64_MAX / (uint64_t)p->bins;
}

mct_status_t mct_scatter_check(const mct_scatter_params_t* p, mct_tally_t tally) {
    if (!p || !tally) return MCT_STATUS_NULL_POINTER;
    if (!params_valid(p)) return MCT_STATUS_INVALID_VALUE;
    mct_tally_desc_t d;
    const mct_status_t st = sim_check_float_tally(tally, p->bins * p->width, &d);
    if (st) return st;
    if (d.method == MCT_METHOD_SORT_REDUCE && d.pair_capacity < p->width) return MCT_STATUS_INVALID_VALUE;
    return MCT_STATUS_SUCCESS;
}

/* First-order bounds on |bin - exact| for a bin of `count` values (all
 * positive, so sum_abs is the exact sum S), with u = 2^-53 (double) and
 * u32 = 2^-24 (float):
 * - any summation tree of m terms in double errs by at most (m - 1) u S, and
 *   the batches' fold into the running sums adds `batches` more roundings:
 *   (m + batches) u S (x 1.01 for the second-order terms while m u < 0.01);
 * - f32: each value rounded to float (u32 S), then a float tree
 *   ((m - 1) u32 S), then the fold in double: (m + 1) u32 S + (batches + 2) u S;
 * - kahan: Kahan's bound (2 u32 + O(m u32^2)) S over at most 2m float addends
 *   (a double group sum goes in as hi + lo), plus u32 S for rounding the values
 *   to float: (3 u32 + 8 m u32^2) S, and the fold;
 * - fixed: each value is rounded to a multiple of 2^-s (half a step at most),
 *   the int64 sum is exact, each batch's conversion to double and the fold
 *   round: m 2^-(s+1) + (2 batches + 1) u S (+ u32 S when f32 rounds the values);
 * and the reference itself, a long double (64-bit significand) sum, errs by
 * at most m 2^-64 S. */
double mct_scatter_bin_bound(const mct_tally_desc_t* d, int64_t count, double sum_abs, int64_t batches) {
    const double u = 0x1p-53, u32 = 0x1p-24, m = (double)count, b = (double)batches, s = sum_abs;
    double bound;
    if (d->method == MCT_METHOD_FIXED)
        bound = m * ldexp(0.5, -d->fixed_frac_bits) + (2.0 * b + 1.0) * u * s + (d->dtype == MCT_DTYPE_F32 ? u32 * s : 0.0);
    else if (d->method == MCT_METHOD_KAHAN || d->method == MCT_METHOD_KAHAN_NAIVE)
        bound = (3.0 * u32 + 8.0 * m * u32 * u32) * s + (b + 2.0) * u * s;
    else if (d->dtype == MCT_DTYPE_F32)
        bound = (m + 1.0) * u32 * s + (b + 2.0) * u * s;
    else
        bound = 1.01 * (m + b) * u * s;
    return bound + m * 0x1p-64 * s;
}

/* The host engine serves both backends whose memory is the host's. Values
 * per engine call (chunk x width doubles): 64 MiB on the host, 1 GiB on a
 * GPU; under the emulation the add kernels are slow, so smaller calls keep
 * the progress moving. */
static const sim_engine_set_t scatter_engines = {
    &sim_scatter_engine_host, INT64_C(1) << 23, &sim_scatter_engine_host, INT64_C(1) << 18,
    SIM_CUDA_ENGINE(&sim_scatter_engine_cuda, INT64_C(1) << 27)};

/* The exact-as-possible sums of every bin and the number of values in each
 * cell, from the same inputs, serially in long double. */
static mct_status_t reference_sums(const mct_scatter_params_t* p, long double* ref, int64_t* count) {
    const int64_t chunk = p->n < SCATTER_REFERENCE_CHUNK ? p->n : SCATTER_REFERENCE_CHUNK;
    uint32_t* keys = malloc((size_t)chunk * sizeof *keys);
    double* values = malloc((size_t)chunk * (size_t)p->width * sizeof *values);
    if (!keys || !values) {
        free(keys), free(values);
        return MCT_STATUS_OUT_OF_MEMORY;
    }
    for (int64_t first = 0; first < p->n; first += chunk) {
        const int64_t n = p->n - first < chunk ? p->n - first : chunk;
        sim_scatter_generate_host(p, first, n, keys, values, chunk);
        for (int64_t i = 0; i < n; ++i) {
            count[keys[i]] += 1;
            long double* bin = ref + (int64_t)keys[i] * p->width;
            for (int c = 0; c < p->width; ++c) bin[c] += values[c * chunk + i];
        }
    }
    free(keys), free(values);
    return MCT_STATUS_SUCCESS;
}

/* Compares every bin with the reference, within mct_scatter_bin_bound. */
static mct_status_t check_bins(const mct_scatter_params_t* p, const mct_tally_desc_t* d, const double* sums,
                               mct_scatter_result_t* out) {
    const int64_t nbins = p->bins * p->width;
    long double* ref = calloc((size_t)nbins, sizeof *ref);
    int64_t* count = calloc((size_t)p->bins, sizeof *count);
    mct_status_t st = ref && count ? reference_sums(p, ref, count) : MCT_STATUS_OUT_OF_MEMORY;
    out->checked = st == MCT_STATUS_SUCCESS;
    for (int64_t k = 0; k < nbins && !st; ++k) {
        const double exact = (double)ref[k];
        const double dev = fabs((double)((long double)sums[k] - ref[k]));
        const double bound = mct_scatter_bin_bound(d, count[k / p->width], exact, p->batches);
        const double over = bound > 0.0 ? dev / bound : (dev == 0.0 ? 0.0 : INFINITY);
        if (exact > 0.0 && dev / exact > out->max_rel_dev) out->max_rel_dev = dev / exact;
        if (over > out->max_dev_over_bound || k == 0) {
            out->max_dev_over_bound = over;
            out->worst_bin = k;
        }
    }
    out->check_passed = !out->checked || out->max_dev_over_bound <= 1.0;
    free(ref), free(count);
    return st;
}

static void fill_totals(const mct_scatter_params_t* p, const double* sums, double seconds, mct_scatter_result_t* out) {
    const double values = (double)p->n * (double)p->width;
    double total = 0.0;
    for (int64_t k = 0; k < p->bins * p->width; ++k) total += sums[k];
    out->total = total;
    out->expected = 0.5 * values;
    out->std_error = sqrt(values / 12.0);
    out->z_score = (total - out->expected) / out->std_error;
    out->updates = p->n * p->width;
    out->seconds = seconds;
    out->updates_per_second = values / seconds;
    out->check_passed = 1;
}

mct_status_t mct_scatter_run(const mct_scatter_params_t* p, mct_tally_t tally, mct_scatter_result_t* out) {
    mct_tally_desc_t d;
    mct_status_t st = sim_run_start(out, mct_scatter_check(p, tally), tally, &d);
    if (st) return st;
    double* sums = malloc((size_t)(p->bins * p->width) * sizeof *sums);
    if ((st = sim_ranks_agree(p->ranks, sums ? MCT_STATUS_SUCCESS : MCT_STATUS_OUT_OF_MEMORY))) {
        free(sums);
        return st;
    }

    *out = (mct_scatter_result_t){0};
    const double t0 = sim_now_seconds();
    sim_run_t run = {.engines = &scatter_engines, .problem = p, .tally = tally, .histories = p->n,
                     .batches = p->batches, .chunk = p->chunk, .values_per_history = p->width,
                     .progress = p->progress, .progress_ctx = p->progress_ctx, .ranks = p->ranks};
    st = sim_run(&run);
    if (!st) st = mct_tally_sums(tally, sums);
    if (!st) fill_totals(p, sums, sim_now_seconds() - t0, out);
    /* Every rank holds the same sums; the serial reference is made once, by
     * the rank that reports. */
    const int check = sim_ranks_root(p->ranks) &&
                      (p->check == MCT_SCATTER_CHECK_ALWAYS ||
                       (p->check == MCT_SCATTER_CHECK_AUTO && p->n <= MCT_SCATTER_CHECK_AUTO_MAX));
    if (!st && check) st = check_bins(p, &d, sums, out);
    free(sums);
    return st;
}
