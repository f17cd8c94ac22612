/* SPDX-License-Identifier: BSD-3-Clause */
/** @file escape.c  The escape problem's driver: batches, chunks, results. The
 * per-backend work is in the engines (escape_cpu.c, escape_device.cu). */
#include <math.h>
#include <stdint.h>

#include "escape.h"
#include "escape_engine.h"
#include "sim_common.h"

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
    if (d.dtype == MCT_DTYPE_I32 && p->histories / p->batches + (p->histories % p->batches != 0) > INT32_MAX) return MCT_STATUS_OVERFLOW;
    return MCT_STATUS_SUCCESS;
}

/* Histories per engine call: each keeps a photon and an event flag (28 bytes). */
static const sim_engine_set_t escape_engines = {
    &mct__escape_engine_cpu, INT64_C(1) << 20, &mct__escape_engine_emulated, INT64_C(1) << 16,
    SIM_CUDA_ENGINE(&mct__escape_engine_cuda, INT64_C(1) << 24)};

mct_status_t mct_escape_run(const mct_escape_params_t* p, mct_tally_t tally, mct_escape_result_t* out) {
    if (!out) return MCT_STATUS_NULL_POINTER;
    mct_status_t st = mct_escape_check(p, tally);
    if (st) return st;
    const double t0 = mct__sim_now_seconds();
    const sim_escape_problem_t problem = {p, exp(-p->sigma_per_m * p->thickness_m)};
    /* Replicated: one replica per tally thread, as published; where they do
     * not fit, chunks shrink (more launches per batch) down to one block. */
    sim_run_t run = {.engines = &escape_engines, .problem = &problem, .tally = tally, .histories = p->histories,
                     .batches = p->batches, .chunk = p->chunk, .values_per_history = 1,
                     .replicas = SIM_REPLICAS_SHRINK_CHUNK, .min_chunk = p->block_size, .progress = p->progress,
                     .progress_ctx = p->progress_ctx};
    if ((st = sim_run(&run))) return st;

    double mean = 0.0, rel = 0.0;
    mct_tally_results(tally, &mean, &rel);
    mct_tally_sums(tally, &out->escapes);
    out->fraction = mean;
    out->std_error = rel * mean;
    out->analytic = problem.p_escape;
    out->seconds = mct__sim_now_seconds() - t0;
    return MCT_STATUS_SUCCESS;
}
