/* SPDX-License-Identifier: BSD-3-Clause */
/** @file thread_fixed.cuh  Fixed-point tally arithmetic: a value v is stored as
 * the int64 round(v * 2^s) (round to nearest, ties to even, as llrint), and bins
 * are summed with integer atomics, so the result does not depend on the order
 * of the additions: bitwise identical across runs, launch shapes, GPUs and the
 * CPU backend (which must round the same way).
 *
 * Nothing wraps silently: a NaN or Inf value is dropped and reported
 * (MCT_TALLY_FLAG_NONFINITE), a value with |v * 2^s| >= 2^63 is dropped and
 * reported (MCT_TALLY_FLAG_OVERFLOW), and an addition whose int64 result
 * overflowed is reported (MCT_TALLY_FLAG_OVERFLOW; the bin then holds the
 * wrapped sum, and the batch is wrong, which end_batch says). */
#ifndef MCT_THREAD_FIXED_CUH
#define MCT_THREAD_FIXED_CUH

#include <math.h>
#include <stdint.h>

#include "mctally/device/mct_cuda.cuh"
#include "mctally/mct_tally.h"

/** Sets `bits` in a tally's flag word (rare events only: one atomicOr each). */
__device__ __forceinline__ void mct_tally_raise(unsigned int* flags, unsigned bits) {
    if (flags) atomicOr(flags, bits);
}

/** Converts v to fixed point with scale 2^s (a power of two, so v * scale is
 * exact unless it leaves the double range). Returns 0 and writes *out, or the
 * MCT_TALLY_FLAG_* bit that explains why the value cannot be stored. */
__device__ __forceinline__ unsigned mct_fixed_from_double(double v, double scale, int64_t* out) {
    const double x = v * scale;
    if (isnan(x) || isinf(v)) return MCT_TALLY_FLAG_NONFINITE;
    if (fabs(x) >= 9223372036854775808.0) return MCT_TALLY_FLAG_OVERFLOW; /* 2^63 */
#if MCT_IS_NVCC
    *out = (int64_t)__double2ll_rn(x);
#else
    *out = (int64_t)llrint(x); /* the host's default rounding mode: to nearest, ties to even */
#endif
    return 0;
}

/** a + b in two's complement (no undefined behaviour), and whether the signed
 * sum overflowed: a and b of one sign and the result of the other. */
__device__ __forceinline__ int64_t mct_fixed_add_wrapping(int64_t a, int64_t b, bool* overflow) {
    const int64_t r = (int64_t)((uint64_t)a + (uint64_t)b);
    *overflow = ((a ^ r) & (b ^ r)) < 0;
    return r;
}

/** *addr += v with one integer atomic; an int64 overflow of the bin is found
 * from the returned old value and raised in `flags`. */
__device__ __forceinline__ void mct_atomic_add_fixed(int64_t* addr, int64_t v, unsigned int* flags) {
    const int64_t old = (int64_t)atomicAdd((unsigned long long*)addr, (unsigned long long)v);
    bool overflow;
    (void)mct_fixed_add_wrapping(old, v, &overflow);
    if (overflow) mct_tally_raise(flags, MCT_TALLY_FLAG_OVERFLOW);
}

#endif /* MCT_THREAD_FIXED_CUH */
