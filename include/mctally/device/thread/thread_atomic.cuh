/* SPDX-License-Identifier: BSD-3-Clause */
/** @file thread_atomic.cuh  One atomic add for each value type a tally can hold.
 * These are the native instructions (f64 atomicAdd is "HB" in Liu 2018). */
#ifndef MCT_THREAD_ATOMIC_CUH
#define MCT_THREAD_ATOMIC_CUH

#include <stdint.h>

#include "mctally/device/mct_cuda.cuh"

__device__ __forceinline__ void mct_atomic_add(int32_t* addr, int32_t v) { atomicAdd((int*)addr, (int)v); }
__device__ __forceinline__ void mct_atomic_add(uint64_t* addr, uint64_t v) {
    atomicAdd((unsigned long long*)addr, (unsigned long long)v);
}
__device__ __forceinline__ void mct_atomic_add(float* addr, float v) { atomicAdd(addr, v); }
__device__ __forceinline__ void mct_atomic_add(double* addr, double v) { atomicAdd(addr, v); }

#endif /* MCT_THREAD_ATOMIC_CUH */
