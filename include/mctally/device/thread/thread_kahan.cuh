/* SPDX-License-Identifier: BSD-3-Clause */
/** @file thread_kahan.cuh  The two updates of an (f32 sum, f32 comp) pair held
 * in one 64-bit word (mct_kahan_pair_t: sum in the low 4 bytes, comp, the
 * NEGATED low-order part lost so far, in the high 4; its value is sum - comp).
 *
 * - mct_atomic_add_kahan (kahan_naive, Liu's "KAS"): Kahan's step for the
 *   addend y0, y = y0 - comp; t = sum + y; comp = (t - sum) - y; sum = t, on the
 *   whole pair by a CAS loop: a load and a CAS, each a round trip to the bin,
 *   and one more pair of them for every update another lane made in between.
 * - mct_atomic_add_compensated (kahan): mct_arith.h's compensated add, split
 *   over the two words: one float atomic add into the sum that returns the old
 *   sum, the add's exact error into comp by an atomic add nobody waits for,
 *   and, when the add calls for a fold, comp taken whole by an exchange and
 *   added into the sum the same way. One round trip per update whatever other
 *   lanes do, where the CAS loop pays two or more; a second-order error
 *   (mct_arith.h). In shared memory float atomic adds are short CAS loops
 *   of their own; two of them hold the word for less time than one CAS loop
 *   on the pair whose body would be the whole compensated add.
 *
 * The addend arrives as a double: a warp-aggregated group sum is formed in
 * double, and rounding it to one float first would throw away the accuracy the
 * compensation is there to keep; both updates split it into two floats (hi,
 * lo), as mct_arith.h does for the CPU backend.
 *
 * Neither can hang on a NaN (the CAS loop compares bits; the compensated add
 * has no loop). The order of the atomics varies: more accurate, not
 * deterministic. */
#ifndef MCT_THREAD_KAHAN_CUH
#define MCT_THREAD_KAHAN_CUH

#include <stdint.h>

#include "mctally/device/thread/thread_cas.cuh"
#include "mctally/mct_arith.h"
#include "mctally/mct_tally.h"

static_assert(sizeof(mct_kahan_pair_t) == 8, "a Kahan pair must fit one 64-bit CAS");

/** Atomically adds v into the pair at `addr` by Kahan's step; returns the old pair. */
__device__ __forceinline__ mct_kahan_pair_t mct_atomic_add_kahan(mct_kahan_pair_t* addr, double v) {
    const unsigned long long old = mct_atomic_update_u64((unsigned long long*)addr, [v](unsigned long long bits) {
        return (unsigned long long)mct_kahan_pack(mct_kahan_add_value(mct_kahan_unpack(bits), v));
    });
    return mct_kahan_unpack(old);
}

/** Adds v into the pair at `addr` by kahan's compensated add (mct_arith.h's
 * mct_compensated_add_value, its steps on the two words by separate atomics):
 * one atomic whose answer the thread waits for, the error's add without a
 * wait, and on a fold an exchange and one more such pair. */
__device__ __forceinline__ void mct_atomic_add_compensated(mct_kahan_pair_t* addr, double v) {
    float lo;
    const float hi = mct_kahan_split(v, &lo);
    if (hi == 0.0f) return; /* then lo is 0 too */
    int fold;
    const float c = mct_kahan_comp_part(atomicAdd(&addr->sum, hi), hi, lo, &fold);
    if (c != 0.0f) atomicAdd(&addr->comp, c); /* NaN too: it must reach the pair */
    if (fold) {
        const float t = atomicExch(&addr->comp, 0.0f);
        if (t != 0.0f) {
            const float c2 = mct_kahan_fold_part(atomicAdd(&addr->sum, -t), t);
            if (c2 != 0.0f) atomicAdd(&addr->comp, c2);
        }
    }
}

#endif /* MCT_THREAD_KAHAN_CUH */
