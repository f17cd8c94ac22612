/* SPDX-License-Identifier: BSD-3-Clause */
/** @file thread_kahan.cuh  Kahan-compensated add into an (f32 sum, f32 comp)
 * pair held in one 64-bit word, updated by a CAS loop (Liu's "KAS").
 *
 * The pair is mct_kahan_pair_t: sum in the low 4 bytes, comp (the NEGATED
 * low-order part lost so far) in the high 4 bytes; its value is sum - comp.
 * One step for an addend y0 is Kahan's:
 *     y = y0 - comp;  t = sum + y;  comp = (t - sum) - y;  sum = t;
 *
 * The addend arrives as a double: a warp-aggregated group sum is formed in
 * double, and rounding it to one float before the Kahan step would throw away
 * the accuracy the compensation is there to keep. The step and the split of the
 * double into two float addends, taken in the same CAS, are mct_arith.h's
 * (mct_kahan_add_value), shared with the CPU backend.
 *
 * The CAS loop compares bits (see thread_cas.cuh), so a NaN in the pair cannot
 * hang it. Order of the atomics still varies: more accurate, not deterministic. */
#ifndef MCT_THREAD_KAHAN_CUH
#define MCT_THREAD_KAHAN_CUH

#include <stdint.h>

#include "mctally/device/thread/thread_cas.cuh"
#include "mctally/mct_arith.h"
#include "mctally/mct_tally.h"

static_assert(sizeof(mct_kahan_pair_t) == 8, "a Kahan pair must fit one 64-bit CAS");

/** Atomically adds v into the pair at `addr`; returns the old pair. */
__device__ __forceinline__ mct_kahan_pair_t mct_atomic_add_kahan(mct_kahan_pair_t* addr, double v) {
    const unsigned long long old = mct_atomic_update_u64((unsigned long long*)addr, [v](unsigned long long bits) {
        return (unsigned long long)mct_kahan_pack(mct_kahan_add_value(mct_kahan_unpack(bits), v));
    });
    return mct_kahan_unpack(old);
}

#endif /* MCT_THREAD_KAHAN_CUH */
