/* SPDX-License-Identifier: BSD-3-Clause */
/** @file escape.c  The escape problem's driver: batches, chunks, results. The
 * per-backend work is in the engines (escape_cpu.c, escape_device.cu). */
#include <math.h>
#include <stdint.h>

#include "escape.h"
#include "escape_engine.h"
#include "sim_batches.h"
#include "sim_common.h"

#define ESCAPE_CHUNK_CPU (INT64_C(1) << 20)
#define ESCAPE_CHUNK_EMULATED (INT64_C(1) << 16)
#define ESCAPE_CHUNK_CUDA (INT64_C(1) << 24)

void mct_escape_params_init(mct_escape_params_t* p) {
    if (!p) return;
    *p = (mct_escape_params_t){0};
    p->thickness_m = 100.0;
    p->sigma_per_m = MCT_ESCAPE_SIGMA_HELIUM;
    p->histories = 1000000;
    p->batches = 10;
    p->seed = 1;
    p->block_size = 128;
    p->launch = MCT_ESCAPE_LAUNCH_PAPER;
}

static int64_t largest_batch(const mct_escape_params_t* p) {
    return p->histories / p->batches + (p->histories % p->batches != 0);
}

mct_status_t mct_escape_check(const mct_escape_params_t* p, mct_tally_t tally) {
    if (!p || !tally) return MCT_STATUS_NULL_POINTER;
    if (!(p->thickness_m >= 0.0) || !isfinite(p->thickness_m) || !(p->sigma_per_m > 0.0) ||
        !isfinite(p->sigma_per_m) || p->batches < 1 || p->histories < p->batches || p->block_size < 1 ||
        p->block_size > 1024 || p->chunk < 0 ||
        (p->launch != MCT_ESCAPE_LAUNCH_PAPER && p->launch != MCT_ESCAPE_LAUNCH_FULL))
        return MCT_STATUS_INVALID_VALUE;
    mct_tally_desc_t d;
    mct_status_t st = mct_tally_get_desc(tally, &d);
    if (st) return st;
    if (d.bins != 1) return MCT_STATUS_INVALID_VALUE;
    /* The escape tally kernel implements Bossler's five methods. */
    if (d.method > MCT_METHOD_REPLICATED) return MCT_STATUS_NOT_SUPPORTED;
    /* One batch's count must fit the bin: i32 would wrap past 2^31 - 1. */
    if (d.dtype == MCT_DTYPE_I32 && largest_batch(p) > INT32_MAX) return MCT_STATUS_OVERFLOW;
    return MCT_STATUS_SUCCESS;
}

static const mct__escape_engine_t* engine_for(mct_backend_t backend, int64_t* chunk) {
    switch (backend) {
    case MCT_BACKEND_CPU: *chunk = ESCAPE_CHUNK_CPU; return &mct__escape_engine_cpu;
    case MCT_BACKEND_EMULATED: *chunk = ESCAPE_CHUNK_EMULATED; return &mct__escape_engine_emulated;
#if MCT_HAVE_CUDA
    case MCT_BACKEND_CUDA: *chunk = ESCAPE_CHUNK_CUDA; return &mct__escape_engine_cuda;
#endif
    default: return NULL;
    }
}

/* Replicated tallies need one replica per tally thread of a chunk; where they
 * do not fit, chunks shrink (more launches per batch) until they do. */
static mct_status_t reserve_replicas(const mct__escape_engine_t* e, void* ctx, const mct_escape_params_t* p,
                                     mct_tally_t tally, int64_t* chunk) {
    for (;;) {
        mct_status_t st = mct_tally_reserve_replicas(tally, e->tally_threads(ctx, p, *chunk));
        if (st != MCT_STATUS_TOO_LARGE || *chunk <= p->block_size) return st;
        *chunk /= 2;
    }
}

/* One chunk through the engine, in the shape the shared batch loop calls. */
typedef struct {
    const mct__escape_engine_t* e;
    void* ctx;
    const mct_escape_params_t* p;
    double p_escape;
    mct_tally_t tally;
} escape_run_t;

static mct_status_t escape_chunk(void* run, int64_t first, int64_t n) {
    const escape_run_t* r = run;
    return r->e->run_chunk(r->ctx, r->p, r->p_escape, first, n, r->tally);
}

static mct_status_t run_batches(const mct__escape_engine_t* e, void* ctx, const mct_escape_params_t* p,
                                double p_escape, int64_t chunk, mct_tally_t tally) {
    escape_run_t r = {e, ctx, p, p_escape, tally};
    const mct__sim_batches_t run = {escape_chunk, NULL, &r, 0, p->progress, p->progress_ctx};
    return mct__sim_run_batches(&run, tally, p->histories, p->batches, chunk);
}

mct_status_t mct_escape_run(const mct_escape_params_t* p, mct_tally_t tally, mct_escape_result_t* out) {
    if (!out) return MCT_STATUS_NULL_POINTER;
    mct_status_t st = mct_escape_check(p, tally);
    if (st) return st;
    mct_tally_desc_t d;
    mct_tally_get_desc(tally, &d);
    int64_t chunk = 0;
    const mct__escape_engine_t* e = engine_for(d.backend, &chunk);
    if (!e) return MCT_STATUS_BACKEND_UNAVAILABLE;
    if (p->chunk > 0) chunk = p->chunk;
    if (chunk > largest_batch(p)) chunk = largest_batch(p);

    const double t0 = mct__sim_now_seconds();
    void* ctx = NULL;
    st = e->create(&ctx, chunk, d.device);
    if (!st && d.method == MCT_METHOD_REPLICATED) st = reserve_replicas(e, ctx, p, tally, &chunk);
    const double p_escape = exp(-p->sigma_per_m * p->thickness_m);
    if (!st) st = run_batches(e, ctx, p, p_escape, chunk, tally);
    e->destroy(ctx);
    if (st) return st;

    double mean = 0.0, rel = 0.0;
    mct_tally_results(tally, &mean, &rel);
    mct_tally_sums(tally, &out->escapes);
    out->fraction = mean;
    out->std_error = rel * mean;
    out->analytic = p_escape;
    out->seconds = mct__sim_now_seconds() - t0;
    return MCT_STATUS_SUCCESS;
}
