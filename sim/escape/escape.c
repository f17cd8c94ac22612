/* SPDX-License-Identifier: BSD-3-Clause */
/** @file escape.c  The escape problem's driver: batches, chunks, results. The
 * per-backend work is in the engines (escape_cpu.c, escape_device.cu). */
#include <math.h>
#include <stddef.h>
#include <stdint.h>

#include "escape.h"
#include "escape_engine.h"
#include "sim_common.h"

/* The launch's default, the paper's, is 0. */
void mct_escape_params_init(mct_escape_params_t* p) {
    if (p) mct_sim_params_defaults(&mct_escape_param_table, p, sizeof *p);
}

#define ESCAPE_PARAM(key, type, field) key, MCT_SIM_PARAM_##type, offsetof(mct_escape_params_t, field)

static const mct_sim_param_t escape_params[] = {
    {ESCAPE_PARAM("thickness_m", F64, thickness_m), 0.0, INFINITY, MCT_SIM_PARAM_FILE, 100.0, "m"},
    {ESCAPE_PARAM("sigma_per_m", F64, sigma_per_m), 0.0, INFINITY, MCT_SIM_PARAM_FILE | MCT_SIM_PARAM_MIN_OPEN,
     MCT_ESCAPE_SIGMA_HELIUM, "per m"},
    {ESCAPE_PARAM("histories", I64, histories), 1.0, INFINITY, 0, 1e6, NULL},
    {ESCAPE_PARAM("batches", I64, batches), 1.0, INFINITY, 0, 10.0, NULL},
    {ESCAPE_PARAM("seed", U64, seed), 0.0, 0x1p64, 0, 1.0, NULL},
    {ESCAPE_PARAM("block_size", INT, block_size), 1.0, 1024.0, MCT_SIM_PARAM_FILE, 128.0, "threads per block"},
    {ESCAPE_PARAM("chunk", I64, chunk), 1.0, INFINITY, MCT_SIM_PARAM_ZERO_UNSET, 0.0, "histories in flight"},
};

MCT_SIM_PARAM_TABLE(mct_escape_param_table, "escape", escape_params);

mct_status_t mct_escape_check(const mct_escape_params_t* p, mct_tally_t tally) {
    if (!p || !tally) return MCT_STATUS_NULL_POINTER;
    if (mct_sim_params_check(&mct_escape_param_table, p, NULL) || p->histories < p->batches ||
        (p->launch != MCT_ESCAPE_LAUNCH_PAPER && p->launch != MCT_ESCAPE_LAUNCH_FULL))
        return MCT_STATUS_INVALID_VALUE;
    mct_tally_desc_t d;
    mct_status_t st = mct_tally_get_desc(tally, &d);
    if (st) return st;
    if (d.bins != 1) return MCT_STATUS_INVALID_VALUE;
    /* The escape tally kernel implements Bossler's five methods. */
    if (d.method > MCT_METHOD_REPLICATED) return MCT_STATUS_NOT_SUPPORTED;
    /* One batch's count must fit the bin: i32 would wrap past 2^31 - 1. */
    const int64_t largest_batch = p->histories / p->batches + (p->histories % p->batches != 0);
    if (d.dtype == MCT_DTYPE_I32 && largest_batch > INT32_MAX) return MCT_STATUS_OVERFLOW;
    return MCT_STATUS_SUCCESS;
}

/* Histories per engine call: each keeps a photon and an event flag (28 bytes). */
static const sim_engine_set_t escape_engines = {
    &sim_escape_engine_cpu, INT64_C(1) << 20, &sim_escape_engine_emulated, INT64_C(1) << 16,
    SIM_CUDA_ENGINE(&sim_escape_engine_cuda, INT64_C(1) << 24)};

/* The escape problem accumulates nothing besides its tally: its saved state
 * is the batches it covers. */
typedef struct {
    const mct_sim_checkpoint_t* cp;
    int64_t batches;
} escape_checkpoint_t;

static mct_status_t escape_checkpoint(void* ctx, int64_t done) {
    const escape_checkpoint_t* c = ctx;
    if (!sim_checkpoint_due(c->cp, done, c->batches)) return MCT_STATUS_SUCCESS;
    return c->cp->save(c->cp->ctx, done, &done, sizeof done);
}

mct_status_t mct_escape_run(const mct_escape_params_t* p, mct_tally_t tally, mct_escape_result_t* out) {
    mct_tally_desc_t d;
    mct_status_t st = sim_run_start(out, mct_escape_check(p, tally), tally, &d);
    if (st) return st;
    const double t0 = sim_now_seconds();
    const sim_escape_problem_t problem = {p, exp(-p->sigma_per_m * p->thickness_m)};
    /* Replicated: one replica per tally thread, as published; where they do
     * not fit, chunks shrink (more launches per batch) down to one block. */
    sim_run_t run = {.engines = &escape_engines, .problem = &problem, .tally = tally, .histories = p->histories,
                     .batches = p->batches, .chunk = p->chunk, .values_per_history = 1,
                     .replicas = SIM_REPLICAS_SHRINK_CHUNK, .min_chunk = p->block_size, .progress = p->progress,
                     .progress_ctx = p->progress_ctx, .ranks = p->ranks};
    escape_checkpoint_t cp = {p->checkpoint, p->batches};
    if ((st = sim_resume_start(p->checkpoint, tally, p->histories, p->batches, &run.first_batch))) return st;
    if (p->checkpoint && p->checkpoint->save) run.checkpoint = escape_checkpoint, run.checkpoint_ctx = &cp;
    if ((st = sim_run(&run))) return st;

    double mean = 0.0, rel = 0.0;
    mct_tally_results(tally, &mean, &rel);
    mct_tally_sums(tally, &out->escapes);
    out->fraction = mean;
    out->std_error = rel * mean;
    out->analytic = problem.p_escape;
    out->seconds = sim_now_seconds() - t0;
    return MCT_STATUS_SUCCESS;
}
