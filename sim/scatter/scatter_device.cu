/* SPDX-License-Identifier: BSD-3-Clause */
/** @file scatter_device.cu  The scatter workload's CUDA engine: a generator
 * kernel writes a chunk's keys and values into device memory (the same
 * numbers as the host, scatter_inputs.h) and mct_tally_add_device_grouped adds
 * them. Both run on the legacy default stream, in order. */
#include <stdlib.h>

#include "mctally/device/mct_launch.cuh"
#include "scatter_engine.h"

typedef struct {
    uint32_t* keys;
    double* values;
    int64_t chunk; /* the values' stride */
    int sms;
} scatter_device_t;

/** Keys and values of particles [first, first + n): one thread per particle,
 * grid-stride; value c of particle i at values[c * stride + i] (coalesced). */
static __global__ void mct_scatter_generate_kernel(mct_scatter_params_t p, uint64_t first, int64_t n, uint32_t* keys,
                                                   double* values, int64_t stride) {
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x) {
        const uint64_t g = first + (uint64_t)i;
        keys[i] = mct_scatter_key(p.pattern, (uint64_t)p.bins, (uint64_t)p.n, p.seed, g);
        for (int c = 0; c < p.width; ++c) values[c * stride + i] = mct_scatter_value(p.seed, g, (uint32_t)c);
    }
}

static mct_status_t status_of(cudaError_t err) {
    if (err == cudaSuccess) return MCT_STATUS_SUCCESS;
    return err == cudaErrorMemoryAllocation ? MCT_STATUS_OUT_OF_MEMORY : MCT_STATUS_CUDA_ERROR;
}

static void device_destroy(void* ctx) {
    scatter_device_t* d = (scatter_device_t*)ctx;
    if (!d) return;
    cudaFree(d->keys);
    cudaFree(d->values);
    free(d);
}

static mct_status_t device_create(void** ctx, int64_t chunk, int width, int device) {
    scatter_device_t* d = (scatter_device_t*)calloc(1, sizeof *d);
    *ctx = d;
    if (!d) return MCT_STATUS_OUT_OF_MEMORY;
    d->chunk = chunk;
    cudaDeviceProp prop;
    cudaError_t err = cudaSetDevice(device);
    if (!err) err = cudaGetDeviceProperties(&prop, device);
    if (!err) err = cudaMalloc((void**)&d->keys, (size_t)chunk * sizeof(uint32_t));
    if (!err) err = cudaMalloc((void**)&d->values, (size_t)chunk * (size_t)width * sizeof(double));
    if (err) {
        cudaGetLastError();
        return status_of(err);
    }
    d->sms = prop.multiProcessorCount;
    return MCT_STATUS_SUCCESS;
}

static mct_status_t device_run_chunk(void* ctx, const mct_scatter_params_t* p, int64_t first, int64_t n,
                                     mct_tally_t tally) {
    scatter_device_t* d = (scatter_device_t*)ctx;
    mct_scatter_params_t args = *p;
    args.progress = NULL, args.progress_ctx = NULL; /* host pointers stay on the host */
    const int64_t need = (n + 255) / 256, full = (int64_t)d->sms * 8;
    MCT_LAUNCH(mct_scatter_generate_kernel, (unsigned)(need < full ? need : full), 256, 0, 0, args, (uint64_t)first,
               n, d->keys, d->values, d->chunk);
    mct_status_t st = status_of(cudaPeekAtLastError());
    return st ? st : mct_tally_add_device_grouped(tally, d->keys, d->values, n, p->width, d->chunk);
}

extern "C" const mct__scatter_engine_t mct__scatter_engine_cuda = {
    device_create, device_run_chunk, device_destroy,
};
