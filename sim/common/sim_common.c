/* SPDX-License-Identifier: BSD-3-Clause */
/** @file sim_common.c  Small pieces every problem driver needs (sim_common.h). */
#define _POSIX_C_SOURCE 200809L
#include "sim_common.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <time.h>

#ifdef _OPENMP
#include <omp.h>
#endif

mct_status_t sim_run_start(const void* out, mct_status_t checked, mct_tally_t tally, mct_tally_desc_t* d) {
    if (!out) return MCT_STATUS_NULL_POINTER;
    return checked ? checked : mct_tally_get_desc(tally, d);
}

double sim_batch_error(const double* x, int64_t stride, const int64_t* size, int64_t batches, double total, double n) {
    if (batches < 2) return NAN;
    const double mean = total / n;
    double ss = 0.0;
    for (int64_t b = 0; b < batches; ++b) {
        const double h = (double)size[b], d = x[b * stride] / h - mean;
        ss += h * d * d;
    }
    return sqrt(ss / ((double)(batches - 1) * n));
}

mct_status_t sim_fail(char* err, size_t errlen, mct_status_t st, const char* fmt, ...) {
    if (err && errlen) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, errlen, fmt, ap);
        va_end(ap);
    }
    return st;
}

double sim_now_seconds(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

mct_status_t sim_check_float_tally(mct_tally_t tally, int64_t bins, mct_tally_desc_t* d) {
    mct_status_t st = mct_tally_get_desc(tally, d);
    if (st) return st;
    if (d->bins != bins) return MCT_STATUS_INVALID_VALUE;
    if (d->dtype != MCT_DTYPE_F32 && d->dtype != MCT_DTYPE_F64) return MCT_STATUS_NOT_SUPPORTED;
    if (d->method == MCT_METHOD_SHARED && (size_t)d->bins * mct_dtype_size(d->dtype) > MCT_BLOCK_TALLY_SMEM_LIMIT)
        return MCT_STATUS_NOT_SUPPORTED;
    return MCT_STATUS_SUCCESS;
}

mct_status_t sim_replica_limit(mct_tally_t tally, int64_t* limit) {
    mct_tally_desc_t d;
    mct_status_t st = mct_tally_get_desc(tally, &d);
    if (st) return st;
    const int host = d.backend == MCT_BACKEND_CPU || d.backend == MCT_BACKEND_EMULATED;
    if ((st = mct_tally_max_replicas(tally, host ? SIM_HOST_REPLICA_FRACTION : 0.5, limit))) return st;
    if (host) {
        const int64_t cap = (int64_t)(SIM_HOST_REPLICA_BYTES / ((size_t)d.bins * mct_dtype_size(d.dtype)));
        if (*limit > cap) *limit = cap;
    }
    return MCT_STATUS_SUCCESS;
}

mct_status_t sim_reserve_replicas(mct_tally_t tally, int64_t threads) {
    /* The tally learns how many threads add, so that its determinism says
     * whether the replicas it could hold were private. */
    mct_status_t st = mct_tally_set_writers(tally, threads);
    int64_t fit = 0;
    if (!st) st = sim_replica_limit(tally, &fit);
    if (st) return st;
    if (fit < 1) return MCT_STATUS_TOO_LARGE;
    st = mct_tally_reserve_replicas(tally, threads < fit ? threads : fit);
    /* The limit counts free memory that another process may take meanwhile. */
    if (st == MCT_STATUS_TOO_LARGE && fit > 1) st = mct_tally_reserve_replicas(tally, fit / 2);
    return st;
}

int sim_cpu_threads(void) {
#ifdef _OPENMP
    return omp_get_max_threads();
#else
    return 1;
#endif
}

int sim_cpu_thread_id(void) {
#ifdef _OPENMP
    return omp_get_thread_num();
#else
    return 0;
#endif
}
