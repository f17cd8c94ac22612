/* SPDX-License-Identifier: BSD-3-Clause */
/** @file mct_cuda.cuh  The CUDA language and runtime for device source: the real
 * one under nvcc, the host emulation (mctally/emu/mct_emu.h) under MCT_EMULATED. */
#ifndef MCT_CUDA_CUH
#define MCT_CUDA_CUH

#if defined(__CUDACC__)
#include <cuda_runtime.h>
#elif defined(MCT_EMULATED)
#include "mctally/emu/mct_emu.h"
#else
#error "mctally device headers need nvcc, or a C++ compiler with MCT_EMULATED defined"
#endif

#include "mctally/mct_config.h"
#include "mctally/mct_status.h"

/** Rank of the calling thread in its block (x fastest), and its lane. */
__device__ __forceinline__ int mct_thread_rank(void) {
    return (int)(threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z));
}
__device__ __forceinline__ int mct_block_threads(void) { return (int)(blockDim.x * blockDim.y * blockDim.z); }
__device__ __forceinline__ int mct_lane(void) { return mct_thread_rank() & 31; }

/** Tells the compiler that p points to global memory, so that an access or
 * atomic through it is a global one, not a generic one that also checks for
 * the shared window (and carries that path's code). A tally's bins are
 * always a device allocation (cudaMalloc). Nothing on the emulation. */
#if defined(__CUDA_ARCH__)
#define MCT_ASSUME_GLOBAL(p) __builtin_assume(__isGlobal(p))
#else
#define MCT_ASSUME_GLOBAL(p) ((void)(p))
#endif

/** The status for a CUDA runtime result: SUCCESS for cudaSuccess, OUT_OF_MEMORY for a
 * failed allocation, under the emulation (MCT_EMULATED) EMULATION_ERROR for a launch
 * the emulation found invalid (mct_emu_last_error_message() says why), else
 * CUDA_ERROR. Host code that launches device-layer kernels returns these. */
static inline mct_status_t mct_cuda_status(cudaError_t err) {
    if (err == cudaSuccess) return MCT_STATUS_SUCCESS;
    if (err == cudaErrorMemoryAllocation) return MCT_STATUS_OUT_OF_MEMORY;
#if MCT_IS_EMULATED
    if (err == cudaErrorLaunchFailure) return MCT_STATUS_EMULATION_ERROR;
#endif
    return MCT_STATUS_CUDA_ERROR;
}

#endif /* MCT_CUDA_CUH */
