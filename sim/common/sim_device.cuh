/* SPDX-License-Identifier: BSD-3-Clause */
/** @file sim_device.cuh  Internal: what the problems' device engines share.
 * Compiled by nvcc (backend `cuda`) and as host C++ under the CUDA emulation
 * (backend `emulated`, MCT_EMULATED). */
#ifndef MCT_SIM_DEVICE_CUH
#define MCT_SIM_DEVICE_CUH

#include <stdlib.h>

#include "mctally/device/mct_launch.cuh"
#include "mctally/mct_config.h"
#include "sim_engine.h"

/** The library's status for a CUDA error: OUT_OF_MEMORY for a failed
 * allocation; under the emulation, a failed launch (an error the emulation
 * found in the kernel) is EMULATION_ERROR; any other error CUDA_ERROR. */
static inline mct_status_t sim_status_of(cudaError_t err) {
    if (err == cudaSuccess) return MCT_STATUS_SUCCESS;
    if (err == cudaErrorMemoryAllocation) return MCT_STATUS_OUT_OF_MEMORY;
    return MCT_IS_EMULATED && err == cudaErrorLaunchFailure ? MCT_STATUS_EMULATION_ERROR : MCT_STATUS_CUDA_ERROR;
}

/** The status of a set-up step (allocations, copies): a failed step's error
 * is cleared, so that it does not resurface at the next launch. */
static inline mct_status_t sim_setup_status(cudaError_t err) {
    if (err) cudaGetLastError();
    return sim_status_of(err);
}

/** Makes the tally's device current (a negative ordinal, MCT_DEVICE_CURRENT:
 * the current one, left as it is) and reads its multiprocessor count, which
 * the engines size their grids by. */
static inline cudaError_t sim_device_open(int device, int* sms) {
    cudaDeviceProp prop;
    cudaError_t err = device >= 0 ? cudaSetDevice(device) : cudaGetDevice(&device);
    if (!err) err = cudaGetDeviceProperties(&prop, device);
    if (!err) *sms = prop.multiProcessorCount;
    return err;
}

/** The blocks of a persistent grid: `fixed` when the caller fixed it (> 0),
 * else as many blocks of `kernel` as can be resident at once (its own
 * occupancy at this block size and shared memory) on `sms` multiprocessors;
 * one per multiprocessor when the occupancy query fails. */
template <typename K>
static inline int sim_persistent_grid(int fixed, K kernel, int block, size_t smem, int sms) {
    if (fixed > 0) return fixed;
    int per_sm = 0;
    if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, block, smem) != cudaSuccess || per_sm < 1) {
        cudaGetLastError();
        per_sm = 1;
    }
    return per_sm * sms;
}

/** A view with the tally's own type, method, bins and fixed-point bits and
 * nothing else: what picks a problem's kernel instance and its shared memory,
 * so that a persistent grid can be sized before the first view exists (the
 * replicas are reserved before it). */
static inline mct_tally_view_t sim_sizing_view(const mct_tally_desc_t* desc) {
    mct_tally_view_t v = {};
    v.dtype = desc->dtype;
    v.method = desc->method;
    v.nbins = desc->bins;
    v.fixed_frac_bits = desc->fixed_frac_bits;
    return v;
}

/** A grid of at most `grid` blocks of `block` threads for n items, one a
 * thread: no block beyond the ones the items fill. */
static inline int sim_grid_for_items(int grid, int64_t n, int block) {
    const int64_t needed = (n + block - 1) / block;
    return needed < grid ? (int)needed : grid;
}

/** The status of the kernels launched on `stream` once they have finished:
 * a launch error, else the run's. An engine waits here so that a chunk's time
 * is its kernels', not their launch's. */
static inline mct_status_t sim_launched_status(cudaStream_t stream) {
    cudaError_t err = cudaPeekAtLastError();
    if (!err) err = cudaStreamSynchronize(stream);
    return sim_status_of(err);
}

/** The tally's stream, as the engines launch on it. */
static inline cudaStream_t sim_stream(const sim_engine_args_t* a) { return (cudaStream_t)a->stream; }

/** Creates *ctx as a sim_buffers_t (sim_engine.h) with buf[i] of a->chunk x
 * bytes_i bytes of device memory, on the tally's device, with its
 * multiprocessor count and stream. */
static inline mct_status_t sim_device_buffers_create(void** ctx, const sim_engine_args_t* a, size_t bytes0,
                                                     size_t bytes1) {
    sim_buffers_t* b = (sim_buffers_t*)calloc(1, sizeof *b);
    *ctx = b;
    if (!b) return MCT_STATUS_OUT_OF_MEMORY;
    b->problem = a->problem;
    b->chunk = a->chunk;
    b->stream = a->stream;
    cudaError_t err = sim_device_open(a->desc.device, &b->sms);
    if (!err && bytes0) err = cudaMalloc(&b->buf[0], (size_t)a->chunk * bytes0);
    if (!err && bytes1) err = cudaMalloc(&b->buf[1], (size_t)a->chunk * bytes1);
    return sim_setup_status(err);
}

/** Frees a sim_device_buffers_create context; NULL is fine. */
static inline void sim_device_buffers_destroy(void* ctx) {
    sim_buffers_t* b = (sim_buffers_t*)ctx;
    if (!b) return;
    cudaFree(b->buf[0]);
    cudaFree(b->buf[1]);
    free(b);
}

#endif /* MCT_SIM_DEVICE_CUH */
