/* SPDX-License-Identifier: BSD-3-Clause */
/** @file accuracy_common.h  What the accuracy study (bench_accuracy.cu) and its
 * CPU test (tests/api/test_api_accuracy.c) share, written once for host and
 * device code: the additions' inputs and the double-double arithmetic of the
 * reference sums.
 *
 * Inputs. Addition i of a run adds value(seed, i) into bin key(bins, seed, i):
 * - key: 0 for one hot bin (bins = 1); uniform on [0, bins) otherwise (the
 *   scatter workload's uniform pattern, sim/scatter/scatter_inputs.h);
 * - value: an exponential deposit with mean 0.1 (Liu 2018's test 1 deposits
 *   "fluctuate with a mean value of 0.1 MeV"), -0.1 ln u from the scatter
 *   workload's uniform u in (0, 1], rounded to the nearest float. Rounded to
 *   float so that every method, f32 or f64, adds exactly the same numbers (an
 *   f32 tally then has no rounding on entry, and what is measured is the
 *   accumulation alone); exponential rather than uniform so the values span
 *   many binades, which makes the f64 and fixed-point errors real (on a 2^-24
 *   grid of uniform values both would be exact) and gives fixed point values
 *   below its quantum. Largest value: -0.1 ln 2^-53 = 3.67 < 4.
 *
 * Double-double sums (Joldes, Muller, Popescu, "Tight and rigorous error
 * bounds for basic building blocks of double-word arithmetic", ACM TOMS 2017):
 * a value is the unevaluated sum hi + lo with |lo| <= ulp(hi)/2. With
 * u = 2^-53, adding a double (their Algorithm 4) has a relative error of at
 * most 2u^2, adding two double-doubles (Algorithm 6) at most 3u^2/(1-4u).
 * Only additions are used, so no FMA contraction can change them, and with
 * round-to-nearest binary64 they give the same bits on the host and the GPU. */
#ifndef MCT_BENCH_ACCURACY_COMMON_H
#define MCT_BENCH_ACCURACY_COMMON_H

#include <math.h>
#include <stdint.h>

#include "../../sim/scatter/scatter_inputs.h"
#include "mctally/mct_config.h"

/** Mean and strict upper bound of the values (see the file note). */
#define MCT_ACCURACY_VALUE_MEAN 0.1
#define MCT_ACCURACY_VALUE_MAX 4.0

/** Bin of addition i: 0 for one hot bin, else uniform on [0, bins). */
MCT_INLINE MCT_HD uint32_t mct_accuracy_key(uint32_t bins, uint64_t seed, uint64_t i) {
    return bins == 1 ? 0u : mct_scatter_key(MCT_SCATTER_UNIFORM, bins, 1, seed, i);
}

/** Value of addition i: exponential, mean 0.1, rounded to float, in [0, 4). */
MCT_INLINE MCT_HD double mct_accuracy_value(uint64_t seed, uint64_t i) {
    const double u = mct_scatter_value(seed, i, 0u); /* (0, 1] */
    return (double)(float)(MCT_ACCURACY_VALUE_MEAN * fabs(log(u))); /* fabs: +0 for u = 1, never -0 */
}

/** A double-double hi + lo. */
typedef struct {
    double hi, lo;
} mct_dd_t;

/** s + e = a + b exactly (Knuth's TwoSum, no condition on a and b). */
MCT_INLINE MCT_HD mct_dd_t mct_dd_two_sum(double a, double b) {
    const double s = a + b, bb = s - a;
    const mct_dd_t r = {s, (a - (s - bb)) + (b - bb)};
    return r;
}

/** s + e = a + b exactly, when |a| >= |b| or a is 0 (Dekker's Fast2Sum). */
MCT_INLINE MCT_HD mct_dd_t mct_dd_fast_two_sum(double a, double b) {
    const double s = a + b;
    const mct_dd_t r = {s, b - (s - a)};
    return r;
}

/** x + y for a double y, relative error <= 2u^2 (Algorithm 4 of the paper above). */
MCT_INLINE MCT_HD mct_dd_t mct_dd_add_double(mct_dd_t x, double y) {
    const mct_dd_t s = mct_dd_two_sum(x.hi, y);
    return mct_dd_fast_two_sum(s.hi, x.lo + s.lo);
}

/** x + y, relative error <= 3u^2/(1-4u) (Algorithm 6 of the paper above). */
MCT_INLINE MCT_HD mct_dd_t mct_dd_add(mct_dd_t x, mct_dd_t y) {
    const mct_dd_t s = mct_dd_two_sum(x.hi, y.hi), t = mct_dd_two_sum(x.lo, y.lo);
    const mct_dd_t v = mct_dd_fast_two_sum(s.hi, s.lo + t.hi);
    return mct_dd_fast_two_sum(v.hi, t.lo + v.lo);
}

/** (x - ref) / ref, the difference taken in double-double: only the final
 * division rounds (relative 2^-53 of the result, not of ref). */
MCT_INLINE MCT_HD double mct_dd_rel_diff(mct_dd_t x, mct_dd_t ref) {
    const mct_dd_t neg = {-ref.hi, -ref.lo};
    const mct_dd_t d = mct_dd_add(x, neg);
    return (d.hi + d.lo) / (ref.hi + ref.lo);
}

/** Fraction bits of the study's `fixed` tallies for runs of at most n_max
 * additions: the largest s with n_max * MCT_ACCURACY_VALUE_MAX * 2^s <= 2^62,
 * so no value, warp group sum or bin total can reach the int64 limit 2^63
 * whatever the order of the additions (at n_max = 1e9, s = 30: 2^-30 = 9.3e-10
 * quantum, bins below 2^32). */
MCT_INLINE int mct_accuracy_fixed_frac_bits(int64_t n_max) {
    int log2_n = 0;
    while (log2_n < 62 && (INT64_C(1) << log2_n) < n_max) ++log2_n; /* ceil(log2 n_max) */
    const int s = 62 - 2 - log2_n; /* MCT_ACCURACY_VALUE_MAX = 2^2 */
    return s < 0 ? 0 : s;
}

#endif /* MCT_BENCH_ACCURACY_COMMON_H */
