/* SPDX-License-Identifier: BSD-3-Clause */
/** @file tally_only_device.cu  The tally-only problem's GPU engine: one kernel
 * launch per chunk, nothing kept per particle. Built for CUDA by nvcc and for
 * the emulated backend as host C++. */
#include <stdlib.h>

#include "tally_only_engine.h"
#include "tally_only_kernels.cuh"

#if MCT_IS_EMULATED
#define MCT__TALLY_ONLY_DEVICE_ENGINE mct__tally_only_engine_emulated
#else
#define MCT__TALLY_ONLY_DEVICE_ENGINE mct__tally_only_engine_cuda
#endif

typedef struct {
    int sms;
    int64_t chunk;
} tally_only_device_t;

static mct_status_t status_of(cudaError_t err) {
    if (err == cudaSuccess) return MCT_STATUS_SUCCESS;
    if (err == cudaErrorMemoryAllocation) return MCT_STATUS_OUT_OF_MEMORY;
    return MCT_IS_EMULATED && err == cudaErrorLaunchFailure ? MCT_STATUS_EMULATION_ERROR : MCT_STATUS_CUDA_ERROR;
}

static void device_destroy(void* ctx) { free(ctx); }

static mct_status_t device_create(void** ctx, const mct_tally_only_params_t* p, int64_t chunk, int device) {
    (void)p;
    tally_only_device_t* d = (tally_only_device_t*)calloc(1, sizeof *d);
    *ctx = d;
    if (!d) return MCT_STATUS_OUT_OF_MEMORY;
    cudaDeviceProp prop;
    cudaError_t err = cudaSetDevice(device);
    if (!err) err = cudaGetDeviceProperties(&prop, device);
    if (err) {
        cudaGetLastError();
        return status_of(err);
    }
    d->sms = prop.multiProcessorCount;
    d->chunk = chunk;
    return MCT_STATUS_SUCCESS;
}

static int64_t device_tally_threads(void* ctx, const mct_tally_only_params_t* p) {
    const tally_only_device_t* d = (const tally_only_device_t*)ctx;
    return mct__tally_only_grid(p->launch, d->chunk, d->sms) * mct__tally_only_block(p->launch);
}

static mct_status_t device_run_chunk(void* ctx, const mct_tally_only_params_t* p, int64_t first, int64_t n,
                                     mct_tally_t tally) {
    const tally_only_device_t* d = (const tally_only_device_t*)ctx;
    mct_tally_view_t view;
    mct_status_t st = mct_tally_view(tally, &view);
    if (st) return st;
    const mct__tally_only_args_t a = {p->seed, (uint64_t)first, n, p->collisions, (uint32_t)p->bins,
                                      (float)p->mean_energy};
    mct__tally_only_launch(view, a, mct__tally_only_grid(p->launch, n, d->sms), mct__tally_only_block(p->launch), 0);
    return status_of(cudaPeekAtLastError());
}

extern "C" const mct__tally_only_engine_t MCT__TALLY_ONLY_DEVICE_ENGINE = {
    device_create, device_tally_threads, device_run_chunk, device_destroy,
};
