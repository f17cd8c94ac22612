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
 * the accuracy the compensation is there to keep. So the double is split into
 * hi = (float)v and lo = (float)(v - hi), and both go through a Kahan step in the
 * same CAS (lo == 0 exactly for a single float contribution, and its step is
 * then skipped). The bound is then Kahan's for the float addends (2u Σ|x| +
 * O(n u²) Σ|x| with u = 2^-24), as if each group had been one float addend.
 *
 * The CAS loop compares bits (see thread_cas.cuh), so a NaN in the pair cannot
 * hang it. Order of the atomics still varies: more accurate, not deterministic. */
#ifndef MCT_THREAD_KAHAN_CUH
#define MCT_THREAD_KAHAN_CUH

#include <stdint.h>
#include <string.h>

#include "mctally/device/thread/thread_cas.cuh"
#include "mctally/mct_tally.h"

static_assert(sizeof(mct_kahan_pair_t) == 8, "a Kahan pair must fit one 64-bit CAS");

/** Packs and unpacks a pair to the 64-bit word the CAS works on (memcpy is the
 * well-defined pun in both CUDA and C++; it compiles to register moves). */
__device__ __forceinline__ unsigned long long mct_kahan_pack(mct_kahan_pair_t p) {
    unsigned long long w;
    memcpy(&w, &p, sizeof w);
    return w;
}
__device__ __forceinline__ mct_kahan_pair_t mct_kahan_unpack(unsigned long long w) {
    mct_kahan_pair_t p;
    memcpy(&p, &w, sizeof p);
    return p;
}

/** One Kahan step of a float addend, in registers. */
__device__ __forceinline__ void mct_kahan_step(mct_kahan_pair_t& p, float x) {
    const float y = x - p.comp;
    const float t = p.sum + y;
    p.comp = (t - p.sum) - y;
    p.sum = t;
}

/** The pair after adding v (split into two float addends, see the file note). */
__device__ __forceinline__ mct_kahan_pair_t mct_kahan_add_value(mct_kahan_pair_t p, double v) {
    const float hi = (float)v;
    const float lo = (float)(v - (double)hi);
    mct_kahan_step(p, hi);
    if (lo != 0.0f) mct_kahan_step(p, lo);
    return p;
}

/** Atomically adds v into the pair at `addr`; returns the old pair. */
__device__ __forceinline__ mct_kahan_pair_t mct_atomic_add_kahan(mct_kahan_pair_t* addr, double v) {
    const unsigned long long old = mct_atomic_update_u64((unsigned long long*)addr, [v](unsigned long long bits) {
        return mct_kahan_pack(mct_kahan_add_value(mct_kahan_unpack(bits), v));
    });
    return mct_kahan_unpack(old);
}

#endif /* MCT_THREAD_KAHAN_CUH */
