/* SPDX-License-Identifier: BSD-3-Clause */
/** @file escape_device.cu  The escape problem's GPU engine: source, transport and
 * tally as three kernels, the event flags kept in device memory between them.
 * Built for CUDA by nvcc and for the emulated backend as host C++. */
#include <stdlib.h>

#include "escape_engine.h"
#include "escape_kernels.cuh"

#if MCT_IS_EMULATED
#define MCT__ESCAPE_DEVICE_ENGINE mct__escape_engine_emulated
#else
#define MCT__ESCAPE_DEVICE_ENGINE mct__escape_engine_cuda
#endif

typedef struct {
    mct_escape_photon_t* photons;
    int32_t* events;
    int sms;
} escape_device_t;

static mct_status_t status_of(cudaError_t err) {
    if (err == cudaSuccess) return MCT_STATUS_SUCCESS;
    if (err == cudaErrorMemoryAllocation) return MCT_STATUS_OUT_OF_MEMORY;
    return MCT_IS_EMULATED && err == cudaErrorLaunchFailure ? MCT_STATUS_EMULATION_ERROR : MCT_STATUS_CUDA_ERROR;
}

static void device_destroy(void* ctx) {
    escape_device_t* d = (escape_device_t*)ctx;
    if (!d) return;
    cudaFree(d->photons);
    cudaFree(d->events);
    free(d);
}

static mct_status_t device_create(void** ctx, int64_t chunk, int device) {
    escape_device_t* d = (escape_device_t*)calloc(1, sizeof *d);
    *ctx = d;
    if (!d) return MCT_STATUS_OUT_OF_MEMORY;
    cudaDeviceProp prop;
    cudaError_t err = cudaSetDevice(device);
    if (!err) err = cudaGetDeviceProperties(&prop, device);
    if (!err) err = cudaMalloc((void**)&d->photons, (size_t)chunk * sizeof(mct_escape_photon_t));
    if (!err) err = cudaMalloc((void**)&d->events, (size_t)chunk * sizeof(int32_t));
    if (err) {
        cudaGetLastError();
        return status_of(err);
    }
    d->sms = prop.multiProcessorCount;
    return MCT_STATUS_SUCCESS;
}

static int64_t device_tally_threads(void* ctx, const mct_escape_params_t* p, int64_t n) {
    const escape_device_t* d = (const escape_device_t*)ctx;
    return mct__escape_tally_grid(p->launch, n, p->block_size, d->sms) * p->block_size;
}

/* The source and transport kernels are not what the problem measures; they use
 * a fixed, full-device launch. */
static mct_status_t device_run_chunk(void* ctx, const mct_escape_params_t* p, double p_escape, int64_t first,
                                     int64_t n, mct_tally_t tally) {
    escape_device_t* d = (escape_device_t*)ctx;
    mct_tally_view_t view;
    mct_status_t st = mct_tally_view(tally, &view);
    if (st) return st;
    const unsigned grid = (unsigned)mct__escape_tally_grid(MCT_ESCAPE_LAUNCH_FULL, n, 256, d->sms);
    MCT_LAUNCH(mct_escape_source_kernel, grid, 256, 0, 0, d->photons, n, first);
    MCT_LAUNCH(mct_escape_transport_kernel, grid, 256, 0, 0, d->photons, d->events, n, p->seed, p_escape);
    const int64_t tally_grid = mct__escape_tally_grid(p->launch, n, p->block_size, d->sms);
    mct__escape_tally_launch(d->events, n, view, tally_grid, p->block_size, 0);
    return status_of(cudaPeekAtLastError());
}

extern "C" const mct__escape_engine_t MCT__ESCAPE_DEVICE_ENGINE = {
    device_create, device_tally_threads, device_run_chunk, device_destroy,
};
