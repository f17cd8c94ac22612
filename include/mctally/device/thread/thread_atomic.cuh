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

/* The same into global memory (a tally's bins, its replicas): the native
 * reduction of the global space, which a warp issues and leaves. Through a
 * pointer whose space the compiler cannot see (the bins of a view reached
 * through memory, as in a called function), atomicAdd becomes a generic
 * atomic whose outcome (global or shared) the warp waits for before going on:
 * in the water phantom's transport that wait cost more than the add. Relaxed,
 * device scope, as atomicAdd. On the host (the emulation) it is atomicAdd. */
#if defined(__CUDA_ARCH__)
#define MCT__RED_GLOBAL(T, PTX, REG)                                                                        \
    __device__ __forceinline__ void mct_atomic_add_global(T* addr, T v) {                                 \
        asm volatile("red.global.add." PTX " [%0], %1;" ::"l"(__cvta_generic_to_global(addr)), REG(v) : "memory"); \
    }
#else
#define MCT__RED_GLOBAL(T, PTX, REG) \
    __device__ __forceinline__ void mct_atomic_add_global(T* addr, T v) { mct_atomic_add(addr, v); }
#endif
MCT__RED_GLOBAL(int32_t, "s32", "r")
MCT__RED_GLOBAL(uint64_t, "u64", "l")
MCT__RED_GLOBAL(float, "f32", "f")
MCT__RED_GLOBAL(double, "f64", "d")
#undef MCT__RED_GLOBAL

#endif /* MCT_THREAD_ATOMIC_CUH */
