/* SPDX-License-Identifier: BSD-3-Clause */
/** @file thread_fixed.cuh  Fixed-point tally arithmetic: a value v is stored as
 * the int64 round(v * 2^s) (round to nearest, ties to even, as llrint), and bins
 * are summed with integer atomics, so the result does not depend on the order
 * of the additions: bitwise identical across runs, launch shapes, GPUs and the
 * CPU backend (which must round the same way).
 *
 * Nothing wraps silently: a NaN or Inf value is dropped and reported
 * (MCT_TALLY_FLAG_NONFINITE), a finite value with |v * 2^s| >= 2^63 is dropped
 * and reported (MCT_TALLY_FLAG_OVERFLOW), and an addition whose int64 result
 * overflowed is reported (MCT_TALLY_FLAG_OVERFLOW; the bin then holds the
 * wrapped sum, and the batch is wrong, which end_batch says). The conversion
 * and the overflow test are mct_arith.h's, shared with the CPU backend. */
#ifndef MCT_THREAD_FIXED_CUH
#define MCT_THREAD_FIXED_CUH

#include <stdint.h>

#include "mctally/device/mct_cuda.cuh"
#include "mctally/device/thread/thread_checked.cuh"
#include "mctally/mct_arith.h"
#include "mctally/mct_tally.h"

/** *addr += v with one integer atomic; an int64 overflow of the bin is found
 * from the returned old value and raised in `flags`. */
__device__ __forceinline__ void mct_atomic_add_fixed(int64_t* addr, int64_t v, unsigned int* flags) {
    mct_atomic_add(addr, v, flags);
}

#endif /* MCT_THREAD_FIXED_CUH */
