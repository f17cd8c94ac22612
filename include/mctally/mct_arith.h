/* SPDX-License-Identifier: BSD-3-Clause */
/** @file mct_arith.h  The arithmetic of a contribution, written once for every
 * backend: the conversion of an f64 input to an integer bin (a value that does
 * not fit is dropped and flagged, never wrapped), the checked integer adds that
 * find an overflow of a bin or of a partial sum, the fixed-point
 * conversion with its overflow and non-finite checks, the wrapping int64 add
 * that detects overflow, Kahan's step and kahan's compensated add. The CPU backend calls
 * these functions from C, the device layer from CUDA C and from the emulation,
 * so the three backends give the same status and the same bits for the same
 * value: a rule changed here changes everywhere.
 *
 * Rounding: to nearest, ties to even (the CPU side assumes the default
 * floating-point environment; the GPU side uses the _rn intrinsics). */
#ifndef MCT_ARITH_H
#define MCT_ARITH_H

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "mctally/mct_config.h"
#include "mctally/mct_tally.h"

/** 2^63 as a double: the first value an int64 cannot hold. */
#define MCT_ARITH_TWO_63 9223372036854775808.0

/** Whether x is neither NaN nor infinite (a comparison that fast-math-free
 * compilers of C, C++ and CUDA all keep; no classification macro needed). */
MCT_INLINE MCT_HD int mct_arith_is_finite(double x) { return fabs(x) <= 1.7976931348623157e308; }

/** x rounded to the nearest int64, ties to even, for |x| < 2^63 (the callers
 * guarantee it; outside that range the result would differ between the host's
 * llrint and the GPU's conversion). */
MCT_INLINE MCT_HD int64_t mct_arith_round_i64(double x) {
#if defined(__CUDA_ARCH__)
    return (int64_t)__double2ll_rn(x);
#else
    return (int64_t)llrint(x);
#endif
}

/** f64 to int64, rounded to nearest, ties to even, saturated to the int64
 * range (NaN gives 0), as the GPU's conversion does: the same bits on every
 * backend for every input. Integer bins do not use it (they drop what does not
 * fit: mct_arith_i32_from_f64, mct_arith_u64_from_f64). */
MCT_INLINE MCT_HD int64_t mct_arith_int_from_f64(double v) {
    if (v != v) return 0;
    if (v >= MCT_ARITH_TWO_63) return INT64_MAX;
    if (v < -MCT_ARITH_TWO_63) return INT64_MIN;
    return mct_arith_round_i64(v);
}

/** An f64 input for an i32 bin: rounded to nearest, ties to even. Returns 0
 * and writes *out; or, with *out untouched (the value is dropped),
 * MCT_TALLY_FLAG_NONFINITE for NaN and +-Inf and MCT_TALLY_FLAG_OVERFLOW for a
 * finite value whose rounding leaves [-2^31, 2^31) (3e9, 2147483647.5). */
MCT_INLINE MCT_HD unsigned mct_arith_i32_from_f64(double v, int32_t* out) {
    if (!mct_arith_is_finite(v)) return MCT_TALLY_FLAG_NONFINITE;
    if (!(fabs(v) < 4294967296.0)) return MCT_TALLY_FLAG_OVERFLOW;
    const int64_t r = mct_arith_round_i64(v);
    if (r < INT32_MIN || r > INT32_MAX) return MCT_TALLY_FLAG_OVERFLOW;
    *out = (int32_t)r;
    return 0;
}

/** An f64 input for a u64 bin: rounded to nearest, ties to even. Returns 0 and
 * writes *out; or, with *out untouched (the value is dropped),
 * MCT_TALLY_FLAG_NONFINITE for NaN and +-Inf and MCT_TALLY_FLAG_OVERFLOW for a
 * finite value whose rounding leaves [0, 2^64): a negative value (-1, -0.75)
 * is out of range, not wrapped; -0.5 and above round to 0 and are kept. */
MCT_INLINE MCT_HD unsigned mct_arith_u64_from_f64(double v, uint64_t* out) {
    if (!mct_arith_is_finite(v)) return MCT_TALLY_FLAG_NONFINITE;
    if (!(v < 18446744073709551616.0)) return MCT_TALLY_FLAG_OVERFLOW;
    if (v >= MCT_ARITH_TWO_63) { /* an integer already (beyond 2^53): the conversion is exact */
        *out = (uint64_t)v;
        return 0;
    }
    if (!(v > -MCT_ARITH_TWO_63)) return MCT_TALLY_FLAG_OVERFLOW;
    const int64_t r = mct_arith_round_i64(v);
    if (r < 0) return MCT_TALLY_FLAG_OVERFLOW;
    *out = (uint64_t)r;
    return 0;
}

/** A 64-bit signed key as the 32-bit key the adds read: itself when it lies in
 * [0, 2^32), else 2^32 - 1, a key past any tally's bins (at most 2^31) and past
 * any group's first bin (key * width), so it is dropped and flagged as out of
 * range on every backend, never wrapped onto a bin. */
MCT_INLINE MCT_HD uint32_t mct_arith_key_from_i64(int64_t key) {
    return (uint64_t)key <= UINT32_MAX ? (uint32_t)key : UINT32_MAX;
}

/** a + b for the integer bin types, wrapping (no undefined behaviour), with
 * *overflow set when the exact sum leaves the type's range: for i32 when a and
 * b have one sign and the result the other, for u64 when the add carries. The
 * same test on (old, v) finds the overflow of an atomic add from the old value
 * it returns, with no further memory traffic. */
MCT_INLINE MCT_HD int32_t mct_arith_add_i32(int32_t a, int32_t b, int* overflow) {
    const int32_t r = (int32_t)((uint32_t)a + (uint32_t)b);
    *overflow = ((a ^ r) & (b ^ r)) < 0;
    return r;
}
MCT_INLINE MCT_HD uint64_t mct_arith_add_u64(uint64_t a, uint64_t b, int* overflow) {
    const uint64_t r = a + b;
    *overflow = r < a;
    return r;
}

/** Converts v to fixed point with scale 2^s (a power of two, so v * scale is
 * exact unless it leaves the double range). Returns 0 and writes *out; or, with
 * *out untouched, MCT_TALLY_FLAG_NONFINITE when v is NaN or infinite, and
 * MCT_TALLY_FLAG_OVERFLOW when v is finite but |v * scale| >= 2^63 (including a
 * product that leaves the double range). A subnormal or tiny v rounds to 0. */
MCT_INLINE MCT_HD unsigned mct_fixed_from_double(double v, double scale, int64_t* out) {
    if (!mct_arith_is_finite(v)) return MCT_TALLY_FLAG_NONFINITE;
    const double x = v * scale;
    if (!(fabs(x) < MCT_ARITH_TWO_63)) return MCT_TALLY_FLAG_OVERFLOW;
    *out = mct_arith_round_i64(x);
    return 0;
}

/** a + b in two's complement (no undefined behaviour), and in *overflow whether
 * the signed sum overflowed: a and b of one sign and the result of the other. */
MCT_INLINE MCT_HD int64_t mct_fixed_add_wrapping(int64_t a, int64_t b, int* overflow) {
    const int64_t r = (int64_t)((uint64_t)a + (uint64_t)b);
    *overflow = ((a ^ r) & (b ^ r)) < 0;
    return r;
}

/** Packs and unpacks a Kahan pair to the 64-bit word a CAS works on (memcpy is
 * the well-defined pun in C, C++ and CUDA; it compiles to register moves). */
MCT_INLINE MCT_HD uint64_t mct_kahan_pack(mct_kahan_pair_t p) {
    uint64_t w;
    memcpy(&w, &p, sizeof w);
    return w;
}
MCT_INLINE MCT_HD mct_kahan_pair_t mct_kahan_unpack(uint64_t w) {
    mct_kahan_pair_t p;
    memcpy(&p, &w, sizeof p);
    return p;
}

/** One Kahan step of a float addend x into the pair (comp holds the negated
 * low-order part lost so far; the pair's value is sum - comp). */
MCT_INLINE MCT_HD void mct_kahan_step(mct_kahan_pair_t* p, float x) {
    const float y = x - p->comp;
    const float t = p->sum + y;
    p->comp = (t - p->sum) - y;
    p->sum = t;
}

/** A double addend as two floats: returns hi = (float)v and sets *lo =
 * (float)(v - hi), which is 0 for a float addend (and whenever hi is 0). */
MCT_INLINE MCT_HD float mct_kahan_split(double v, float* lo) {
    const float hi = (float)v;
    *lo = (float)(v - (double)hi);
    return hi;
}

/** The pair after adding v by Kahan's steps (kahan_naive, Liu's KAS: the whole
 * pair swapped by one CAS). A double addend (a warp's group sum) is split into
 * hi = (float)v and lo = (float)(v - hi), each taken by a Kahan step, so the low
 * bits a group sum kept are not thrown away; lo is exactly 0 for a float addend
 * and its step is then skipped. The error bound is Kahan's for the float
 * addends: 2u sum|x| + O(n u^2) sum|x|, u = 2^-24. */
MCT_INLINE MCT_HD mct_kahan_pair_t mct_kahan_add_value(mct_kahan_pair_t p, double v) {
    float lo;
    const float hi = mct_kahan_split(v, &lo);
    mct_kahan_step(&p, hi);
    if (lo != 0.0f) mct_kahan_step(&p, lo);
    return p;
}

/* kahan's compensated add, built so that atomics can split it: the sum takes
 * hi by one float atomic add that returns the old sum, and from that old sum
 * the adding thread finds the rounding error of its own add exactly (Knuth's
 * TwoSum), which goes into comp by an add whose result nobody waits for. The
 * pair's value sum - comp, read in double, is then exact but for comp's own
 * roundings. Kahan's step feeds comp back into every addend, which needs the
 * pair read and swapped whole (a load and a CAS loop); here comp is folded
 * into the sum instead (taken whole by an exchange, then added as one more
 * compensated add) by an add that finds a reason to in what it already has:
 * its sum kept less than three quarters of its addend (a sum that stops
 * growing, whose comp grows by every addend), or, one add in
 * 2^MCT_KAHAN_FOLD_BITS among those that left an error, a hash of the old
 * sum says so (comp, a random walk of errors of half an ulp, is then folded
 * after that many such adds on average). comp so stays a few ulps of the
 * sum, and the error second order, of order 10 n u^2 sum|x| for n adds
 * (u = 2^-24), where Kahan's steps give 2u sum|x| + O(n u^2) sum|x|. Reading
 * comp before each add would bound it strictly, at the price of a second
 * round trip to the bin. */

/** One add in 2^MCT_KAHAN_FOLD_BITS that leaves an error folds comp. */
#define MCT_KAHAN_FOLD_BITS 4

/** The rounding error of s = fl(a + b), exactly: a + b = s + err (Knuth's
 * TwoSum; finite a, b, s, round to nearest). NaN when one of them is not finite. */
MCT_INLINE MCT_HD float mct_two_sum_err(float a, float b, float s) {
    const float bb = s - a;
    return (a - (s - bb)) + (b - bb);
}

/** Whether the add that took hi into a sum that was `old`, with rounding error
 * err, folds comp into the sum (see above). */
MCT_INLINE MCT_HD int mct_kahan_fold_due(float old, float hi, float err) {
    if (err == 0.0f) return 0;
    if (fabsf(err) > 0.25f * fabsf(hi)) return 1;
    uint32_t bits;
    memcpy(&bits, &old, sizeof bits);
    return (uint32_t)(bits * 0x9E3779B1u) >> (32 - MCT_KAHAN_FOLD_BITS) == 0u;
}

/** What comp takes from the add of hi into a sum that was `old` (lo: the rest
 * of the addend): the add's rounding error and lo, negated; *fold says whether
 * the add then folds comp into the sum. */
MCT_INLINE MCT_HD float mct_kahan_comp_part(float old, float hi, float lo, int* fold) {
    const float err = mct_two_sum_err(old, hi, old + hi);
    *fold = mct_kahan_fold_due(old, hi, err);
    return -(err + lo);
}

/** What comp takes when a fold adds -t (comp, taken whole) into a sum that
 * was `before`: that add's rounding error, negated. */
MCT_INLINE MCT_HD float mct_kahan_fold_part(float before, float t) { return -mct_two_sum_err(before, -t, before - t); }

/** The pair after adding v by kahan's compensated add, as one thread does it
 * alone: the sum takes hi, comp takes the error and lo, then comp is folded
 * into the sum when the add says so. The device does the same steps on the two
 * words by separate atomics (thread_kahan.cuh); the CPU backend swaps the whole
 * pair by CAS. */
MCT_INLINE MCT_HD mct_kahan_pair_t mct_compensated_add_value(mct_kahan_pair_t p, double v) {
    float lo;
    const float hi = mct_kahan_split(v, &lo);
    if (hi == 0.0f) return p; /* then lo is 0 too */
    int fold;
    const float c = mct_kahan_comp_part(p.sum, hi, lo, &fold);
    p.sum += hi;
    p.comp += c;
    if (fold) {
        const float t = p.comp;
        p.comp = mct_kahan_fold_part(p.sum, t);
        p.sum -= t;
    }
    return p;
}

/** Rounding-loss sampling (mctally/mct_rounding.h): whether the contribution
 * `value` to `bin`, made by caller `salt` (on the device the adding thread, the view's salt
 * and the clock; in the CPU backend the element's index and the view's salt), is in the sampled subset:
 * a 64-bit mix (MurmurHash3's finalizer) of the value's bits, the bin and the
 * salt, whose top 24 bits are tested against `mask` (2^k - 1 samples a
 * fraction 2^-k; 0 samples every add). The choice depends on nothing the
 * rounding does, so the sampled adds are a uniform random subset; repeated
 * identical values differ in their salt (index, view, clock). */
MCT_INLINE MCT_HD int mct_loss_sampled(int64_t bin, double value, uint64_t salt, uint32_t mask) {
    uint64_t h;
    memcpy(&h, &value, sizeof h);
    h ^= (uint64_t)bin * 0x9E3779B97F4A7C15ull + salt * 0xC2B2AE3D27D4EB4Full;
    h ^= h >> 33;
    h *= 0xFF51AFD7ED558CCDull;
    h ^= h >> 33;
    h *= 0xC4CEB9FE1A85EC53ull;
    h ^= h >> 33;
    return ((uint32_t)(h >> 40) & mask) == 0u;
}

/** Where a sampled contribution goes in the rounding-loss shadow (f64, two
 * words per bin, in the backend's memory): shadow[2 bin] += v and
 * shadow[2 bin + 1] += v * v, the sampled sum and sum of squares the host's
 * estimate (src/common/rounding_loss.c) is built on. */
#define MCT_LOSS_SHADOW_WORDS 2

#endif /* MCT_ARITH_H */
