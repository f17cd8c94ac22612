/* SPDX-License-Identifier: BSD-3-Clause */
/** @file phantom_device.cu  The phantom's GPU engine: the tables copied to the
 * device once, then one persistent launch per chunk (a whole batch on a GPU),
 * all on the tally's stream. Built for CUDA by nvcc and for the emulated
 * backend as host C++. */
#include <stdlib.h>
#include <string.h>

#include "phantom_engine.h"
#include "phantom_kernels.cuh"
#include "sim_device.cuh"

#if MCT_IS_EMULATED && MCT_PH_BITWISE
#define SIM_PHANTOM_DEVICE_ENGINE sim_phantom_engine_emulated_bitwise
#elif MCT_IS_EMULATED
#define SIM_PHANTOM_DEVICE_ENGINE sim_phantom_engine_emulated
#elif MCT_PH_BITWISE
#define SIM_PHANTOM_DEVICE_ENGINE sim_phantom_engine_cuda_bitwise
#else
#define SIM_PHANTOM_DEVICE_ENGINE sim_phantom_engine_cuda
#endif

typedef struct {
    sim_phantom_views_t v;
    double* d64;
    float* d32;
    /* The geometry's copies: per-material table views, voxels, Fano table. */
    mct_ph_tables_t_f64* mtb64;
    mct_ph_tables_t_f32* mtb32;
    uint8_t* mat;
    float* rho;
    double* cdf;
    sim_phantom_device_counters_t* counters;
    mct_tally_desc_t desc; /* the tally's: its type sizes the grid before the first view */
    cudaStream_t stream;
    int block, grid_blocks, sms, discard;
    mct_sim_deposit_t deposit; /* direct, buffered or per method (sim_deposit.h) */
} phantom_device_t;

static void device_destroy(void* ctx) {
    phantom_device_t* d = (phantom_device_t*)ctx;
    if (!d) return;
    cudaFree(d->d64);
    cudaFree(d->d32);
    cudaFree(d->mtb64);
    cudaFree(d->mtb32);
    cudaFree(d->mat);
    cudaFree(d->rho);
    cudaFree(d->cdf);
    cudaFree(d->counters);
    free(d);
}

static mct_status_t device_create(void** ctx, const sim_engine_args_t* a) {
    const sim_phantom_problem_t* problem = (const sim_phantom_problem_t*)a->problem;
    const mct_phantom_params_t* p = problem->p;
    phantom_device_t* d = (phantom_device_t*)calloc(1, sizeof *d);
    *ctx = d;
    if (!d) return MCT_STATUS_OUT_OF_MEMORY;
    d->desc = a->desc;
    d->stream = sim_stream(a);
    d->block = p->block_size;
    d->grid_blocks = p->grid_blocks;
    d->discard = p->discard;
    d->deposit = p->deposit;
    if (d->discard && !MCT_BENCHMARK_HOOKS) return MCT_STATUS_NOT_SUPPORTED; /* built without the discarding launch */
    const size_t reals = sim_phantom_table_reals(problem);
    const size_t count = reals * (size_t)problem->materials;
    cudaError_t err = sim_device_open(a->desc.device, &d->sms);
    if (!err) err = cudaMalloc((void**)&d->d64, count * sizeof(double));
    if (!err) err = cudaMalloc((void**)&d->d32, count * sizeof(float));
    if (!err) err = cudaMalloc((void**)&d->counters, sizeof *d->counters);
    for (int m = 0; !err && m < problem->materials; ++m) {
        const sim_phantom_tables_t* t = &problem->tables[m];
        err = cudaMemcpyAsync(d->d64 + m * reals, t->f64, reals * sizeof(double), cudaMemcpyHostToDevice, d->stream);
        if (!err)
            err = cudaMemcpyAsync(d->d32 + m * reals, t->f32, reals * sizeof(float), cudaMemcpyHostToDevice, d->stream);
    }
    if (!err) err = cudaMemsetAsync(d->counters, 0, sizeof *d->counters, d->stream);
    if (!err) err = cudaStreamSynchronize(d->stream); /* a failed copy fails here, not at the first launch */
    if (err) return sim_setup_status(err);
    d->v = sim_phantom_views(problem, d->d64, d->d32);
    const mct_phantom_geometry_t* g = problem->geometry;
    if (g) { /* the voxels and the views of every material's tables, on the device */
        const size_t voxels = (size_t)g->nx * (size_t)g->ny * (size_t)g->nz, mats = (size_t)problem->materials;
        err = cudaMalloc((void**)&d->mtb64, mats * sizeof *d->mtb64);
        if (!err) err = cudaMalloc((void**)&d->mtb32, mats * sizeof *d->mtb32);
        if (!err) err = cudaMalloc((void**)&d->mat, voxels);
        if (!err) err = cudaMalloc((void**)&d->rho, voxels * sizeof(float));
        if (!err && problem->cdf) err = cudaMalloc((void**)&d->cdf, voxels * sizeof(double));
        if (!err) err = cudaMemcpyAsync(d->mtb64, d->v.mtb64, mats * sizeof *d->mtb64, cudaMemcpyHostToDevice, d->stream);
        if (!err) err = cudaMemcpyAsync(d->mtb32, d->v.mtb32, mats * sizeof *d->mtb32, cudaMemcpyHostToDevice, d->stream);
        if (!err) err = cudaMemcpyAsync(d->mat, g->mat, voxels, cudaMemcpyHostToDevice, d->stream);
        if (!err) err = cudaMemcpyAsync(d->rho, g->density, voxels * sizeof(float), cudaMemcpyHostToDevice, d->stream);
        if (!err && problem->cdf)
            err = cudaMemcpyAsync(d->cdf, problem->cdf, voxels * sizeof(double), cudaMemcpyHostToDevice, d->stream);
        if (!err) err = cudaStreamSynchronize(d->stream);
        if (err) return sim_setup_status(err);
    }
    sim_phantom_views_place(&d->v, problem, d->mtb64, d->mtb32, d->mat, d->rho, d->cdf);
    return MCT_STATUS_SUCCESS;
}

/* The persistent grid of this very kernel (sim_persistent_grid). */
template <typename R, typename T>
static int persistent_grid(const phantom_device_t* d, const mct_tally_view_t& view) {
    const int buf = sim_phantom_buffers<T>(d->deposit, view);
    return sim_persistent_grid(d->grid_blocks, sim_phantom_kernel_for<R, T>(view, buf, d->v.g64.het), d->block,
                               sim_phantom_smem<T>(view, d->block, buf), d->sms);
}

static int grid_for(const phantom_device_t* d, const mct_tally_view_t& view) {
    const int f32 = d->v.transport == MCT_PHANTOM_TRANSPORT_F32;
    if (view.dtype == MCT_DTYPE_F32)
        return f32 ? persistent_grid<float, float>(d, view) : persistent_grid<double, float>(d, view);
    return f32 ? persistent_grid<float, double>(d, view) : persistent_grid<double, double>(d, view);
}

static int64_t device_tally_threads(void* ctx, int64_t chunk) {
    (void)chunk; /* a persistent grid, whatever the chunk */
    const phantom_device_t* d = (const phantom_device_t*)ctx;
    return (int64_t)grid_for(d, sim_sizing_view(&d->desc)) * d->block;
}

static mct_status_t device_run_chunk(void* ctx, int64_t first, int64_t n, mct_tally_t tally) {
    phantom_device_t* d = (phantom_device_t*)ctx;
    mct_tally_view_t view;
    mct_status_t st = mct_tally_view(tally, &view);
    if (st) return st;
    const int grid = sim_grid_for_items(grid_for(d, view), n, d->block);
    if (d->v.transport == MCT_PHANTOM_TRANSPORT_F32)
        sim_phantom_launch<float>(d->v.tb32, d->v.g32, (uint64_t)first, n, view, d->discard, d->counters, grid,
                                   d->block, d->stream, d->deposit);
    else
        sim_phantom_launch<double>(d->v.tb64, d->v.g64, (uint64_t)first, n, view, d->discard, d->counters, grid,
                                    d->block, d->stream, d->deposit);
    return sim_launched_status(d->stream);
}

static mct_status_t device_counters(void* ctx, void* totals) {
    const phantom_device_t* d = (const phantom_device_t*)ctx;
    mct_phantom_counters_t* out = (mct_phantom_counters_t*)totals;
    sim_phantom_device_counters_t c;
    cudaError_t err = cudaMemcpyAsync(&c, d->counters, sizeof c, cudaMemcpyDeviceToHost, d->stream);
    if (!err) err = cudaStreamSynchronize(d->stream);
    if (err) return sim_status_of(err);
    out->escaped = c.escaped;
    out->scored = c.scored;
    out->uncollided = c.uncollided;
    out->path_sum = c.path_sum;
    memcpy(&out->path_max, &c.path_max_bits, sizeof out->path_max);
    out->adds = c.adds;
    out->max_stack = c.max_stack;
    out->overflow = c.overflow;
    return MCT_STATUS_SUCCESS;
}

static mct_status_t device_restore(void* ctx, const void* totals) {
    const phantom_device_t* d = (const phantom_device_t*)ctx;
    const mct_phantom_counters_t* in = (const mct_phantom_counters_t*)totals;
    sim_phantom_device_counters_t c;
    memset(&c, 0, sizeof c);
    c.escaped = in->escaped;
    c.scored = in->scored;
    c.uncollided = in->uncollided;
    c.path_sum = in->path_sum;
    memcpy(&c.path_max_bits, &in->path_max, sizeof c.path_max_bits);
    c.adds = in->adds;
    c.max_stack = in->max_stack;
    c.overflow = in->overflow;
    cudaError_t err = cudaMemcpyAsync(d->counters, &c, sizeof c, cudaMemcpyHostToDevice, d->stream);
    if (!err) err = cudaStreamSynchronize(d->stream);
    return sim_status_of(err);
}

extern "C" const sim_engine_t SIM_PHANTOM_DEVICE_ENGINE = {
    device_create, device_tally_threads, device_run_chunk, device_counters, device_destroy, device_restore,
};
