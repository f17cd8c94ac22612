/* SPDX-License-Identifier: BSD-3-Clause */
/** @file thread_cas.cuh  Float and double add by an atomicCAS loop (Liu's "CAS",
 * NVIDIA's programming guide, the book's Appendix B).
 *
 * The loop compares the word it read with the word the CAS returned as
 * INTEGERS. Comparing them as floats would spin for ever once the bin holds a
 * NaN (NaN != NaN); comparing bits makes the CAS succeed as soon as nobody else
 * wrote in between, whatever the bits mean. */
#ifndef MCT_THREAD_CAS_CUH
#define MCT_THREAD_CAS_CUH

#include <stdint.h>

#include "mctally/device/mct_cuda.cuh"

/** Applies `next = f(old)` to the 64-bit word at `addr` atomically; returns the
 * word it replaced. f gets and returns raw bits. */
template <typename F>
__device__ __forceinline__ unsigned long long mct_atomic_update_u64(unsigned long long* addr, F f) {
    unsigned long long old = *(volatile unsigned long long*)addr, assumed;
    do {
        assumed = old;
        old = atomicCAS(addr, assumed, f(assumed));
    } while (old != assumed); /* integer compare: a NaN in the bin cannot hang it */
    return old;
}

/** The 32-bit form of mct_atomic_update_u64. */
template <typename F>
__device__ __forceinline__ unsigned mct_atomic_update_u32(unsigned* addr, F f) {
    unsigned old = *(volatile unsigned*)addr, assumed;
    do {
        assumed = old;
        old = atomicCAS(addr, assumed, f(assumed));
    } while (old != assumed);
    return old;
}

/** *addr += v by a 64-bit CAS loop; returns the old value. */
__device__ __forceinline__ double mct_atomic_add_cas(double* addr, double v) {
    const unsigned long long old = mct_atomic_update_u64((unsigned long long*)addr, [v](unsigned long long bits) {
        return (unsigned long long)__double_as_longlong(__longlong_as_double((long long)bits) + v);
    });
    return __longlong_as_double((long long)old);
}

/** *addr += v by a 32-bit CAS loop; returns the old value. */
__device__ __forceinline__ float mct_atomic_add_cas(float* addr, float v) {
    const unsigned old = mct_atomic_update_u32((unsigned*)addr, [v](unsigned bits) {
        return __float_as_uint(__uint_as_float(bits) + v);
    });
    return __uint_as_float(old);
}

#endif /* MCT_THREAD_CAS_CUH */
