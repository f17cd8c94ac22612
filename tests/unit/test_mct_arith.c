/* SPDX-License-Identifier: BSD-3-Clause */
/** @file test_mct_arith.c  mct_arith.h's float pair updates, one thread alone:
 * TwoSum's error is exact, kahan's compensated add keeps its second-order bound
 * where plain f32 stops growing and where signs cancel, folds keep comp within
 * a few ulps of the sum, a double addend's low part is kept, NaN and Inf reach
 * the pair's value as Kahan's step lets them, Kahan's step (kahan_naive) is
 * unchanged, and the rounding-loss sampling rule takes its share of adds
 * whatever varies between them (salt, bin, value) and whatever their values.
 * The atomics that split the same add on the GPU run in the
 * emulated and CUDA tests (test_mct_add_exact, test_api_accuracy). */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>

#include "mctally/mct_arith.h"
#include "test_assert.h"

#define U32 0x1p-24

static uint64_t rng = 0x9E3779B97F4A7C15ull;
static uint64_t next_u64(void) {
    rng = rng * 6364136223846793005ull + 1442695040888963407ull;
    return rng;
}
/** A float in [-2^e, 2^e) with a random significand, e in [-20, 20). */
static float random_float(void) {
    const uint64_t r = next_u64();
    const double m = (double)(r >> 40) / 16777216.0; /* [0, 1) on 24 bits */
    const int e = (int)((r >> 8) % 40) - 20;
    return (float)ldexp((r & 1) ? -m : m, e);
}
static double value_of(mct_kahan_pair_t p) { return (double)p.sum - (double)p.comp; }

/* a + b = s + err exactly: both sides in double, which holds the sum of two
 * floats whose exponents differ by less than 29 (those drawn here). */
static void test_two_sum_exact(void) {
    for (int i = 0; i < 1000000; ++i) {
        const float a = random_float(), b = random_float(), s = a + b;
        const float err = mct_two_sum_err(a, b, s);
        ASSERT_EQ_F64((double)a + (double)b, (double)s + (double)err);
    }
    ASSERT_TRUE(isnan(mct_two_sum_err(INFINITY, 1.0f, INFINITY)));
    ASSERT_TRUE(isnan(mct_two_sum_err(NAN, 1.0f, NAN)));
}

/* Values in [1/2, 1) on the 2^-10 grid into one pair: the exact total is a
 * double. Plain f32 stops at 2^24 (every addend below half an ulp); the
 * compensated pair goes on through its folds and stays within a second-order
 * bound (10 n u^2 sum|x|, mct_arith.h), and its folds keep comp a few ulps of
 * the sum. */
static void test_stagnation(int64_t n) {
    mct_kahan_pair_t p = {0.0f, 0.0f}, k = {0.0f, 0.0f};
    float plain = 0.0f;
    double exact = 0.0, worst_comp = 0.0;
    for (int64_t i = 0; i < n; ++i) {
        const double v = 0.5 + (double)(next_u64() >> 55) / 1024.0;
        p = mct_compensated_add_value(p, v);
        k = mct_kahan_add_value(k, v);
        plain += (float)v;
        exact += v;
        if (p.sum != 0.0f) worst_comp = fmax(worst_comp, fabs((double)p.comp / (double)p.sum));
    }
    const double err = fabs(value_of(p) - exact) / exact, kerr = fabs(value_of(k) - exact) / exact;
    printf("n = %lld, total %.0f: plain f32 %+.3e, kahan_naive %.3e, kahan %.3e, largest |comp/sum| %.3g u\n",
           (long long)n, exact, (double)plain / exact - 1.0, kerr, err, worst_comp / U32);
    if (exact > 1.1 * 0x1p24) ASSERT_LE_F64((double)plain, 0x1p24); /* the input does stagnate plain f32 */
    ASSERT_LE_F64(err, 10.0 * (double)n * U32 * U32);
    ASSERT_LE_F64(kerr, 2.0 * U32 + 4.0 * (double)n * U32 * U32);
    ASSERT_LE_F64(worst_comp, 64.0 * U32); /* a few ulps of the sum (one ulp is u to 2u of it) */
}

/* One large value, then many small ones that plain f32 drops whole: integers
 * throughout, so the pair's value must be exact. */
static void test_small_after_large(void) {
    mct_kahan_pair_t p = {0.0f, 0.0f};
    p = mct_compensated_add_value(p, 0x1p30);
    for (int i = 0; i < 1000000; ++i) p = mct_compensated_add_value(p, 1.0);
    ASSERT_EQ_F64(value_of(p), 0x1p30 + 1e6);
}

/* Random floats of either sign over 40 binades (much cancels), against a
 * long double sum (64-bit significand: its own error is far below the bound). */
static void test_cancellation(void) {
    const int64_t n = 2000000;
    mct_kahan_pair_t p = {0.0f, 0.0f}, k = {0.0f, 0.0f};
    long double exact = 0.0L, abs_sum = 0.0L;
    float plain = 0.0f;
    for (int64_t i = 0; i < n; ++i) {
        const float x = random_float();
        p = mct_compensated_add_value(p, x);
        k = mct_kahan_add_value(k, x);
        plain += x;
        exact += x;
        abs_sum += fabsl((long double)x);
    }
    const double err = (double)fabsl((long double)value_of(p) - exact);
    const double kerr = (double)fabsl((long double)value_of(k) - exact);
    const double bound = 10.0 * (double)n * U32 * U32 * (double)abs_sum;
    printf("cancellation, n = %lld, sum %.6Lg of sum|x| %.6Lg: plain f32 |error| %.3e, kahan_naive %.3e, kahan %.3e "
           "(bound %.3e)\n", (long long)n, exact, abs_sum, (double)fabsl((long double)plain - exact), kerr, err, bound);
    ASSERT_LE_F64(err, bound);
}

/* A double addend keeps its low part: n copies of 1 + 2^-40, far below f32's
 * resolution, sum to within 2^-48 relative of the exact total. */
static void test_double_addend(void) {
    mct_kahan_pair_t p = {0.0f, 0.0f};
    const double v = 1.0 + 0x1p-40;
    const int n = 100000;
    for (int i = 0; i < n; ++i) p = mct_compensated_add_value(p, v);
    ASSERT_LE_F64(fabs(value_of(p) - n * v) / (n * v), 0x1p-44);
    ASSERT_TRUE(value_of(p) != (double)n); /* the 2^-40 parts are there */
}

/* Zero leaves the pair alone (a -0 too: 0 + -0 is +0); NaN and Inf give a NaN
 * value, as Kahan's step does (comp = inf - inf); a finite sum past FLT_MAX too. */
static void test_special_values(void) {
    mct_kahan_pair_t p = {0.0f, 0.0f};
    p = mct_compensated_add_value(p, -0.0);
    ASSERT_EQ_U64(mct_kahan_pack(p), 0u); /* both words +0 */
    p = mct_compensated_add_value(p, 1e-50); /* below every float: rounds to 0, nothing changes */
    ASSERT_EQ_F64(value_of(p), 0.0);
    const double specials[] = {NAN, INFINITY, -INFINITY};
    for (int i = 0; i < 3; ++i) {
        mct_kahan_pair_t q = {1.0f, 0.0f}, k = {1.0f, 0.0f};
        q = mct_compensated_add_value(q, specials[i]);
        k = mct_kahan_add_value(k, specials[i]);
        ASSERT_TRUE(isnan(value_of(q)));
        ASSERT_TRUE(isnan(value_of(k)));
        q = mct_compensated_add_value(q, 2.0); /* and it stays */
        ASSERT_TRUE(isnan(value_of(q)));
    }
    mct_kahan_pair_t big = {FLT_MAX, 0.0f};
    big = mct_compensated_add_value(big, (double)FLT_MAX);
    ASSERT_TRUE(isnan(value_of(big)));
}

/* mct_loss_sampled: with mask 2^k - 1 it takes a fraction 2^-k of the adds
 * (binomial, 5 sigma) in every family a caller makes, one where only the salt
 * varies (one value added again and again), one where only the bin varies,
 * values on a coarse grid (low bits zero), random values; the values it takes
 * are not larger or smaller than the others (their mean, 5 sigma); mask 0
 * takes every add, the widest mask (24 bits) almost none. */
static void test_loss_sampling(void) {
    const int64_t n = INT64_C(1) << 20;
    const uint32_t mask = 63u;
    const double p = 1.0 / 64.0, sd = sqrt((double)n * p * (1.0 - p));
    int64_t salt_only = 0, bin_only = 0, grid = 0, random = 0, every = 0, widest = 0;
    double sum_all = 0.0, sum_taken = 0.0;
    for (int64_t i = 0; i < n; ++i) {
        salt_only += mct_loss_sampled(17, 1.0, (uint64_t)i, mask);
        bin_only += mct_loss_sampled(i, 0.25, 5u, mask);
        grid += mct_loss_sampled(i % 1000, (double)((next_u64() >> 48) + 1) * 0x1p-16, (uint64_t)i ^ (3ull << 40), mask);
        const double v = (double)(next_u64() >> 11) * 0x1p-53;
        const int taken = mct_loss_sampled(i % 77, v, (uint64_t)i, mask);
        random += taken;
        sum_all += v;
        if (taken) sum_taken += v;
        every += mct_loss_sampled(i, v, (uint64_t)i, 0u);
        widest += mct_loss_sampled(i, v, (uint64_t)i, (1u << 24) - 1u);
    }
    const int64_t fam[4] = {salt_only, bin_only, grid, random};
    for (int f = 0; f < 4; ++f) ASSERT_NEAR_F64((double)fam[f], (double)n * p, 5.0 * sd);
    ASSERT_NEAR_F64(sum_taken / (double)random, sum_all / (double)n, 5.0 * sqrt(1.0 / 12.0 / (double)random));
    ASSERT_EQ_I64(every, n);
    ASSERT_TRUE(widest <= 4);
    printf("loss sampling 2^-6: %lld, %lld, %lld, %lld of %lld (expected %.0f +- %.0f)\n", (long long)salt_only,
           (long long)bin_only, (long long)grid, (long long)random, (long long)n, (double)n * p, sd);
}

int main(void) {
    test_two_sum_exact();
    test_stagnation(3 * (INT64_C(1) << 23));
    test_stagnation(1000);
    test_small_after_large();
    test_cancellation();
    test_double_addend();
    test_special_values();
    test_loss_sampling();
    printf("mct_arith pair updates, loss sampling: pass\n");
    return 0;
}
