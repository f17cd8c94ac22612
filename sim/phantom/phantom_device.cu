/* SPDX-License-Identifier: BSD-3-Clause */
/** @file phantom_device.cu  The phantom's GPU engine: the tables copied to the
 * device once, then one persistent launch per chunk (a whole batch on a GPU).
 * Built for CUDA by nvcc and for the emulated backend as host C++. */
#include <stdlib.h>
#include <string.h>

#include "phantom_engine.h"
#include "phantom_kernels.cuh"

#if MCT_IS_EMULATED
#define MCT__PHANTOM_DEVICE_ENGINE mct__phantom_engine_emulated
#else
#define MCT__PHANTOM_DEVICE_ENGINE mct__phantom_engine_cuda
#endif

typedef struct {
    mct_phantom_transport_t transport;
    mct_ph_tables_t_f64 tb64;
    mct_ph_tables_t_f32 tb32;
    mct_ph_geom_t_f64 g64;
    mct_ph_geom_t_f32 g32;
    double* d64;
    float* d32;
    mct__phantom_device_counters_t* counters;
    int block, grid_blocks, sms, discard;
} phantom_device_t;

static mct_status_t status_of(cudaError_t err) {
    if (err == cudaSuccess) return MCT_STATUS_SUCCESS;
    if (err == cudaErrorMemoryAllocation) return MCT_STATUS_OUT_OF_MEMORY;
    return MCT_IS_EMULATED && err == cudaErrorLaunchFailure ? MCT_STATUS_EMULATION_ERROR : MCT_STATUS_CUDA_ERROR;
}

static void device_destroy(void* ctx) {
    phantom_device_t* d = (phantom_device_t*)ctx;
    if (!d) return;
    cudaFree(d->d64);
    cudaFree(d->d32);
    cudaFree(d->counters);
    free(d);
}

static mct_status_t device_create(void** ctx, const mct_phantom_params_t* p, const mct__phantom_tables_t* t,
                                  mct_phantom_transport_t transport, int64_t chunk, int device) {
    (void)chunk;
    phantom_device_t* d = (phantom_device_t*)calloc(1, sizeof *d);
    *ctx = d;
    if (!d) return MCT_STATUS_OUT_OF_MEMORY;
    d->transport = transport;
    d->block = p->block_size;
    d->grid_blocks = p->grid_blocks;
    d->discard = p->discard;
    const size_t count = (size_t)MCT_PH_T_COUNT * t->n;
    cudaDeviceProp prop;
    cudaError_t err = cudaSetDevice(device);
    if (!err) err = cudaGetDeviceProperties(&prop, device);
    if (!err) err = cudaMalloc((void**)&d->d64, count * sizeof(double));
    if (!err) err = cudaMalloc((void**)&d->d32, count * sizeof(float));
    if (!err) err = cudaMalloc((void**)&d->counters, sizeof *d->counters);
    if (!err) err = cudaMemcpy(d->d64, t->f64, count * sizeof(double), cudaMemcpyHostToDevice);
    if (!err) err = cudaMemcpy(d->d32, t->f32, count * sizeof(float), cudaMemcpyHostToDevice);
    if (!err) err = cudaMemset(d->counters, 0, sizeof *d->counters);
    if (err) {
        cudaGetLastError();
        return status_of(err);
    }
    d->sms = prop.multiProcessorCount;
    d->tb64 = mct__phantom_tables_view_f64(t, d->d64);
    d->tb32 = mct__phantom_tables_view_f32(t, d->d32);
    d->g64 = mct__phantom_geom_f64(p);
    d->g32 = mct__phantom_geom_f32(p);
    return MCT_STATUS_SUCCESS;
}

/* The persistent grid: as many blocks as can be resident at once (from the
 * occupancy of this very kernel), unless the caller fixed it. */
template <typename R, typename T>
static int persistent_grid(const phantom_device_t* d, const mct_tally_view_t& view) {
    if (d->grid_blocks > 0) return d->grid_blocks;
    int per_sm = 0;
    if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, mct__phantom_kernel_for<R, T>(view), d->block,
                                                      mct__phantom_smem<T>(view, d->block)) != cudaSuccess ||
        per_sm < 1) {
        cudaGetLastError();
        per_sm = 1;
    }
    return per_sm * d->sms;
}

static int grid_for(const phantom_device_t* d, const mct_tally_view_t& view) {
    const int f32 = d->transport == MCT_PHANTOM_TRANSPORT_F32;
    if (view.dtype == MCT_DTYPE_F32)
        return f32 ? persistent_grid<float, float>(d, view) : persistent_grid<double, float>(d, view);
    return f32 ? persistent_grid<float, double>(d, view) : persistent_grid<double, double>(d, view);
}

static int64_t device_tally_threads(void* ctx) {
    const phantom_device_t* d = (const phantom_device_t*)ctx;
    /* Replicas are reserved before the first view; the grid only depends on
     * the kernel's registers and the block size here (no shared bins). */
    mct_tally_view_t v = {};
    v.dtype = MCT_DTYPE_F64;
    v.method = MCT_METHOD_REPLICATED;
    return (int64_t)grid_for(d, v) * d->block;
}

static mct_status_t device_run_chunk(void* ctx, uint64_t first, int64_t n, mct_tally_t tally) {
    phantom_device_t* d = (phantom_device_t*)ctx;
    mct_tally_view_t view;
    mct_status_t st = mct_tally_view(tally, &view);
    if (st) return st;
    int grid = grid_for(d, view);
    const int64_t needed = (n + d->block - 1) / d->block;
    if (needed < grid) grid = (int)needed;
    if (d->transport == MCT_PHANTOM_TRANSPORT_F32)
        mct__phantom_launch<float>(d->tb32, d->g32, first, n, view, d->discard, d->counters, grid, d->block, 0);
    else
        mct__phantom_launch<double>(d->tb64, d->g64, first, n, view, d->discard, d->counters, grid, d->block, 0);
    /* Wait here, so the driver's transport time is the kernel's, not the launch's. */
    cudaError_t err = cudaPeekAtLastError();
    if (!err) err = cudaStreamSynchronize(0);
    return status_of(err);
}

static mct_status_t device_counters(void* ctx, mct_phantom_counters_t* out) {
    const phantom_device_t* d = (const phantom_device_t*)ctx;
    mct__phantom_device_counters_t c;
    cudaError_t err = cudaMemcpy(&c, d->counters, sizeof c, cudaMemcpyDeviceToHost);
    if (err) return status_of(err);
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

extern "C" const mct__phantom_engine_t MCT__PHANTOM_DEVICE_ENGINE = {
    device_create, device_tally_threads, device_run_chunk, device_counters, device_destroy,
};
