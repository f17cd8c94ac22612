/* SPDX-License-Identifier: BSD-3-Clause */
/** @file phantom.c  The phantom problem's driver: checks, tables, batches and
 * chunks, and the result. The transport is in the engines (phantom_cpu.c,
 * phantom_device.cu). */
#include <math.h>
#include <stdlib.h>

#include "phantom.h"
#include "phantom_engine.h"
#include "sim_batches.h"
#include "sim_common.h"

/* Histories per engine call. CPU chunks bound the deposit buffers (about
 * 10 kB per 20 MeV history); a GPU batch is one persistent launch. */
#define PHANTOM_CHUNK_CPU (INT64_C(1) << 12)
#define PHANTOM_CHUNK_EMULATED (INT64_C(1) << 11)
#define PHANTOM_CHUNK_CUDA (INT64_C(1) << 26)

void mct_phantom_params_init(mct_phantom_params_t* p) {
    if (!p) return;
    *p = (mct_phantom_params_t){0};
    p->size_cm = 40.0;
    p->voxels = 100;
    p->energy_MeV = 20.0;
    p->particle = MCT_PHANTOM_ELECTRON;
    p->electron_cutoff_MeV = 0.2;
    p->photon_cutoff_MeV = 0.01;
    p->step_fraction = 0.04;
    p->transport = MCT_PHANTOM_TRANSPORT_AUTO;
    p->histories = 100000;
    p->batches = 10;
    p->seed = 1;
    p->block_size = 128;
}

mct_phantom_transport_t mct_phantom_transport_for(const mct_phantom_params_t* p, mct_method_t method,
                                                  mct_dtype_t dtype) {
    if (p->transport != MCT_PHANTOM_TRANSPORT_AUTO) return p->transport;
    const int f32 = dtype == MCT_DTYPE_F32 || method == MCT_METHOD_KAHAN || method == MCT_METHOD_KAHAN_NAIVE;
    return f32 ? MCT_PHANTOM_TRANSPORT_F32 : MCT_PHANTOM_TRANSPORT_F64;
}

static int params_valid(const mct_phantom_params_t* p) {
    const double ecut = p->electron_cutoff_MeV;
    return isfinite(p->size_cm) && p->size_cm > 0.0 && p->voxels >= 1 && p->voxels <= 1290 &&
           isfinite(p->energy_MeV) && p->energy_MeV <= 1000.0 && ecut >= 0.0125 && p->energy_MeV > ecut &&
           p->photon_cutoff_MeV >= 0.001 && p->energy_MeV > p->photon_cutoff_MeV &&
           (p->delta_threshold_MeV == 0.0 || p->delta_threshold_MeV >= 0.0125) &&
           (p->brems_threshold_MeV == 0.0 || p->brems_threshold_MeV >= 0.001) && p->delta_threshold_MeV >= 0.0 &&
           p->brems_threshold_MeV >= 0.0 && p->step_fraction > 0.0 && p->step_fraction <= 0.5 &&
           (p->particle == MCT_PHANTOM_ELECTRON || p->particle == MCT_PHANTOM_PHOTON) &&
           (p->mcs == MCT_PHANTOM_MCS_TRANSPORT || p->mcs == MCT_PHANTOM_MCS_HIGHLAND) &&
           (unsigned)p->transport <= (unsigned)MCT_PHANTOM_TRANSPORT_F32 && p->batches >= 1 &&
           p->histories >= p->batches && p->block_size >= 32 && p->block_size <= 1024 && p->grid_blocks >= 0;
}

mct_status_t mct_phantom_check(const mct_phantom_params_t* p, mct_tally_t tally) {
    if (!p || !tally) return MCT_STATUS_NULL_POINTER;
    if (!params_valid(p)) return MCT_STATUS_INVALID_VALUE;
    mct_tally_desc_t d;
    const int64_t n = p->voxels;
    return mct__sim_check_float_tally(tally, n * n * n, &d);
}

static const mct__phantom_engine_t* engine_for(mct_backend_t backend, int64_t* chunk) {
    switch (backend) {
    case MCT_BACKEND_CPU: *chunk = PHANTOM_CHUNK_CPU; return &mct__phantom_engine_cpu;
    case MCT_BACKEND_EMULATED: *chunk = PHANTOM_CHUNK_EMULATED; return &mct__phantom_engine_emulated;
#if MCT_HAVE_CUDA
    case MCT_BACKEND_CUDA: *chunk = PHANTOM_CHUNK_CUDA; return &mct__phantom_engine_cuda;
#endif
    default: return NULL;
    }
}


/* After each batch, the tally's running sums give the batch's energy per
 * depth slab (their difference from the previous batch's). */
typedef struct {
    double* sums;    /* running sums of the bins */
    double* before;  /* running slab sums up to the previous batch */
} slab_state_t;

static mct_status_t record_slabs(mct_tally_t tally, const mct_phantom_params_t* p, slab_state_t* s,
                                 mct_phantom_result_t* r, int64_t b) {
    const int64_t n = p->voxels, plane = n * n;
    mct_status_t st = mct_tally_sums(tally, s->sums);
    if (st) return st;
    for (int64_t z = 0; z < n; ++z) {
        double slab = 0.0;
        for (int64_t k = 0; k < plane; ++k) slab += s->sums[z * plane + k];
        r->slab_batch_mev[b * n + z] = slab - s->before[z];
        s->before[z] = slab;
    }
    return MCT_STATUS_SUCCESS;
}

/* One chunk through the engine (its time added to the kernel time), and
 * after each batch the depth slabs' batch sums. */
typedef struct {
    const mct__phantom_engine_t* e;
    void* ctx;
    const mct_phantom_params_t* p;
    mct_tally_t tally;
    mct_phantom_result_t* r;
    slab_state_t* s;
} phantom_run_t;

static mct_status_t phantom_chunk(void* run, int64_t first, int64_t n) {
    const phantom_run_t* pr = run;
    const double t0 = mct__sim_now_seconds();
    const mct_status_t st = pr->e->run_chunk(pr->ctx, (uint64_t)first, n, pr->tally);
    pr->r->kernel_seconds += mct__sim_now_seconds() - t0;
    return st;
}

static mct_status_t phantom_batch_done(void* run, int64_t b, int64_t histories) {
    const phantom_run_t* pr = run;
    pr->r->batch_histories[b] = histories;
    return record_slabs(pr->tally, pr->p, pr->s, pr->r, b);
}

static mct_status_t run_batches(const mct__phantom_engine_t* e, void* ctx, const mct_phantom_params_t* p,
                                int64_t chunk, mct_tally_t tally, mct_phantom_result_t* r) {
    const int64_t n = p->voxels;
    slab_state_t s = {malloc((size_t)(n * n * n) * sizeof(double)), calloc((size_t)n, sizeof(double))};
    mct_status_t st = s.sums && s.before ? MCT_STATUS_SUCCESS : MCT_STATUS_OUT_OF_MEMORY;
    phantom_run_t pr = {e, ctx, p, tally, r, &s};
    const mct__sim_batches_t run = {phantom_chunk, phantom_batch_done, &pr, 0, p->progress, p->progress_ctx};
    if (!st) st = mct__sim_run_batches(&run, tally, p->histories, p->batches, chunk);
    free(s.sums);
    free(s.before);
    return st;
}

void mct_phantom_result_free(mct_phantom_result_t* r) {
    if (!r) return;
    free(r->slab_batch_mev);
    free(r->batch_histories);
    r->slab_batch_mev = NULL;
    r->batch_histories = NULL;
}

static double tally_total(mct_tally_t tally, int64_t bins) {
    double* sums = malloc((size_t)bins * sizeof *sums);
    double total = NAN;
    if (sums && mct_tally_sums(tally, sums) == MCT_STATUS_SUCCESS) {
        total = 0.0;
        for (int64_t k = 0; k < bins; ++k) total += sums[k];
    }
    free(sums);
    return total;
}

mct_status_t mct_phantom_run(const mct_phantom_params_t* p, mct_tally_t tally, mct_phantom_result_t* out) {
    if (!out) return MCT_STATUS_NULL_POINTER;
    mct_status_t st = mct_phantom_check(p, tally);
    if (st) return st;
    mct_tally_desc_t d;
    mct_tally_get_desc(tally, &d);
    int64_t chunk = 0;
    const mct__phantom_engine_t* e = engine_for(d.backend, &chunk);
    if (!e) return MCT_STATUS_BACKEND_UNAVAILABLE;
    const int64_t largest = p->histories / p->batches + (p->histories % p->batches != 0);
    if (chunk > largest) chunk = largest;

    const double t0 = mct__sim_now_seconds();
    *out = (mct_phantom_result_t){0};
    out->batches = p->batches;
    out->slabs = p->voxels;
    out->slab_batch_mev = calloc((size_t)(p->batches * p->voxels), sizeof(double));
    out->batch_histories = calloc((size_t)p->batches, sizeof(int64_t));
    mct__phantom_tables_t tables = {0};
    if (!out->slab_batch_mev || !out->batch_histories) st = MCT_STATUS_OUT_OF_MEMORY;
    if (!st) st = mct__phantom_tables_build(p, &tables);
    const mct_phantom_transport_t transport = mct_phantom_transport_for(p, d.method, d.dtype);
    void* ctx = NULL;
    if (!st) st = e->create(&ctx, p, &tables, transport, chunk, d.device);
    if (!st && d.method == MCT_METHOD_REPLICATED) st = mct__sim_reserve_replicas(tally, e->tally_threads(ctx));
    if (!st) st = run_batches(e, ctx, p, chunk, tally, out);
    mct_phantom_counters_t c = {0};
    if (!st) st = e->counters(ctx, &c);
    if (ctx) e->destroy(ctx);
    mct__phantom_tables_free(&tables);
    if (st) {
        mct_phantom_result_free(out);
        return st;
    }
    out->incident_MeV = (double)p->histories * p->energy_MeV;
    out->deposited_MeV = tally_total(tally, d.bins);
    out->escaped_MeV = c.escaped;
    out->scored_MeV = c.scored;
    out->uncollided = c.uncollided;
    out->primary_path_mean_cm = p->particle == MCT_PHANTOM_ELECTRON ? c.path_sum / (double)p->histories : 0.0;
    out->primary_path_max_cm = c.path_max;
    out->adds = (double)c.adds;
    out->max_stack = (int)c.max_stack;
    out->transport = transport;
    out->seconds = mct__sim_now_seconds() - t0;
    /* A full stack kept the energy but changed the physics: not a valid run. */
    return c.overflow ? MCT_STATUS_OVERFLOW : MCT_STATUS_SUCCESS;
}
