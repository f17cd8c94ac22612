/* SPDX-License-Identifier: BSD-3-Clause */
/** @file test_api_accuracy.c  The effect `mctally bench accuracy` measures on
 * a GPU (bench/accuracy), shown on the CPU backend at sizes CI can afford,
 * through the public API (mct_tally_add_device with host arrays): an f32
 * atomic tally stops counting once its bin is large, while kahan, fixed and
 * f64 stay within the bounds their arithmetic gives.
 *
 * Two inputs:
 * - stagnation: one hot bin, n = 3 * 2^23 values on the 2^-24 grid in
 *   [1/2, 1), so the exact total (about 1.9e7) passes 2^24, where the f32 sum
 *   provably stops; every partial sum is exact in f64 and in fixed point;
 * - the study's own inputs (accuracy_common.h: exponential, mean 0.1, rounded
 *   to float) for n = 1e5, 1e6, 1e7 into one hot bin and into 8 bins.
 * The reference is the double-double sum of the values in index order: its
 * relative error is at most 2u^2 n (u = 2^-53; below 3e-25 here), far below
 * every bound tested. Every value is >= 0, so sum |x| is the bin's total T. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../bench/accuracy/accuracy_common.h"
#include "mctally/mct.h"
#include "test_assert.h"

#define U32 0x1p-24
#define U64 0x1p-53
#define CHUNK (INT64_C(1) << 20)
#define MAX_BINS 8
#define SEED 2018u

typedef enum { F32_ATOMIC, KAHAN, FIXED, F64_ATOMIC, METHODS } method_index_t;

static const struct {
    mct_method_t method;
    mct_dtype_t dtype;
    const char* label;
} kMethods[METHODS] = {
    {MCT_METHOD_ATOMIC, MCT_DTYPE_F32, "f32 atomic"},
    {MCT_METHOD_KAHAN, MCT_DTYPE_F32, "f32 kahan"},
    {MCT_METHOD_FIXED, MCT_DTYPE_F64, "f64 fixed"},
    {MCT_METHOD_ATOMIC, MCT_DTYPE_F64, "f64 atomic"},
};

/* Per bin: the double-double sum, the exact sum of the fixed-point images
 * (llrint(v 2^s), as both backends round), and the number of additions. */
typedef struct {
    mct_dd_t sum[MAX_BINS];
    int64_t quantized[MAX_BINS];
    int64_t count[MAX_BINS];
} reference_t;

/* Writes additions first .. first + len - 1 of an input. */
typedef void (*fill_fn)(int64_t first, int64_t len, uint32_t bins, uint32_t* keys, double* values);

static void fill_study(int64_t first, int64_t len, uint32_t bins, uint32_t* keys, double* values) {
#pragma omp parallel for schedule(static)
    for (int64_t j = 0; j < len; ++j) {
        keys[j] = mct_accuracy_key(bins, SEED, (uint64_t)(first + j));
        values[j] = mct_accuracy_value(SEED, (uint64_t)(first + j));
    }
}

/* (2^23 + m) 2^-24 with m uniform on [0, 2^23): the 2^-24 grid in [1/2, 1). */
static void fill_half_to_one(int64_t first, int64_t len, uint32_t bins, uint32_t* keys, double* values) {
    (void)bins;
#pragma omp parallel for schedule(static)
    for (int64_t j = 0; j < len; ++j) {
        const uint32_t m = (uint32_t)(mct_scatter_value(SEED, (uint64_t)(first + j), 0u) * 0x1p23) & 0x7FFFFFu;
        keys[j] = 0u;
        values[j] = ldexp((double)((1u << 23) + m), -24);
    }
}

/* Adds n additions of `fill` into one tally of each method (fixed with
 * fixed_bits fraction bits) on the cpu backend, chunk by chunk, and closes
 * the batch: sums[m][b] are the bins as mct_tally_sums reads them. */
static void run_methods(int64_t n, uint32_t bins, int fixed_bits, fill_fn fill, double sums[METHODS][MAX_BINS],
                        reference_t* ref) {
    mct_tally_t t[METHODS];
    for (int m = 0; m < METHODS; ++m) {
        mct_tally_desc_t d;
        mct_tally_desc_init(&d);
        d.backend = MCT_BACKEND_CPU, d.method = kMethods[m].method, d.dtype = kMethods[m].dtype, d.bins = bins;
        d.fixed_frac_bits = fixed_bits;
        ASSERT_STATUS(mct_tally_create(&t[m], &d), MCT_STATUS_SUCCESS);
    }
    uint32_t* keys = malloc((size_t)CHUNK * sizeof *keys);
    double* values = malloc((size_t)CHUNK * sizeof *values);
    ASSERT_TRUE(keys && values);
    memset(ref, 0, sizeof *ref);
    for (int64_t first = 0; first < n; first += CHUNK) {
        const int64_t len = n - first < CHUNK ? n - first : CHUNK;
        fill(first, len, bins, keys, values);
        for (int m = 0; m < METHODS; ++m) ASSERT_STATUS(mct_tally_add_device(t[m], keys, values, len), MCT_STATUS_SUCCESS);
        for (int64_t j = 0; j < len; ++j) {
            ref->sum[keys[j]] = mct_dd_add_double(ref->sum[keys[j]], values[j]);
            ref->quantized[keys[j]] += llrint(ldexp(values[j], fixed_bits));
            ref->count[keys[j]] += 1;
        }
    }
    for (int m = 0; m < METHODS; ++m) {
        ASSERT_STATUS(mct_tally_end_batch(t[m], 1), MCT_STATUS_SUCCESS);
        ASSERT_STATUS(mct_tally_sums(t[m], sums[m]), MCT_STATUS_SUCCESS);
        mct_tally_destroy(t[m]);
    }
    free(keys);
    free(values);
}

static double rel_err(double x, mct_dd_t ref) {
    const mct_dd_t v = {x, 0.0};
    return mct_dd_rel_diff(v, ref);
}

/* One hot bin, values in [1/2, 1) on the 2^-24 grid, exact total T > 2^24.
 * f32: the bin s only ever becomes fl(s + v), rounded to nearest, in whatever
 * order the threads' CAS loops commit. While s < 2^24, s + v < 2^24 + 1, which
 * rounds to at most 2^24 (the floats in [2^24, 2^25) are the even integers,
 * and 2^24 + x with x < 1 is nearer 2^24 than 2^24 + 2). At s = 2^24, v < 1 is
 * less than half an ulp (2), so s + v rounds back to s. Hence s <= 2^24 in any
 * order: a relative error of at most 2^24/T - 1 (below -10 % for this T).
 * f64 and fixed: every partial sum is a multiple of 2^-24 below 2^25, i.e. an
 * integer below 2^49 units, exact in a double and (s >= 24) in int64: both are
 * exactly T. kahan: Kahan's bound (2u + O(n u^2)) T with u = 2^-24, the O()
 * constant taken as 4, plus u for reading the pair as sum - comp: within
 * (3u + 4 n u^2) T, about 3.5e-7 T here. */
static void test_hot_bin_stagnation(void) {
    const int64_t n = 3 * (INT64_C(1) << 23);
    const int fixed_bits = mct_accuracy_fixed_frac_bits(n);
    double sums[METHODS][MAX_BINS];
    reference_t ref;
    run_methods(n, 1, fixed_bits, fill_half_to_one, sums, &ref);
    const double T = ref.sum[0].hi;
    ASSERT_EQ_F64(ref.sum[0].lo, 0.0); /* the exact total is itself a double */
    ASSERT_TRUE(T > 1.1 * 0x1p24);     /* this input does pass the ceiling */
    ASSERT_LE_F64(sums[F32_ATOMIC][0], 0x1p24);
    ASSERT_LE_F64(rel_err(sums[F32_ATOMIC][0], ref.sum[0]), 0x1p24 / T - 1.0);
    ASSERT_EQ_F64(sums[F64_ATOMIC][0], T);
    ASSERT_EQ_F64(sums[FIXED][0], T);
    ASSERT_LE_F64(fabs(rel_err(sums[KAHAN][0], ref.sum[0])), 3.0 * U32 + 4.0 * (double)n * U32 * U32);
    printf("stagnation, n = %lld, T = %.0f: f32 atomic %.0f (%+.3e), kahan %+.3e, fixed and f64 exact\n",
           (long long)n, T, sums[F32_ATOMIC][0], rel_err(sums[F32_ATOMIC][0], ref.sum[0]),
           rel_err(sums[KAHAN][0], ref.sum[0]));
}

/* The study's inputs: per bin b with n_b additions and total T_b,
 * - fixed is exactly the sum of the quantized values (integer additions are
 *   exact and associative; the tally reads the bin as (double)int64 / 2^s, as
 *   done here), and that sum is within n_b 2^-(s+1) of T_b (one rounding of at
 *   most half a quantum per value);
 * - f64 atomic: recursive summation in any order, n_b - 1 additions each
 *   rounding by at most u T_b (u = 2^-53, partial sums <= T_b): (n_b - 1) u T_b;
 * - kahan: (3u + 4 n_b u^2) T_b with u = 2^-24 (see test_hot_bin_stagnation);
 * - f32 atomic: the same recursive-summation bound as f64 with u = 2^-24, true
 *   but wide: what the f32 tally loses is printed, as the study reports it. */
static void check_study_case(int64_t n, uint32_t bins, int fixed_bits) {
    double sums[METHODS][MAX_BINS];
    reference_t ref;
    run_methods(n, bins, fixed_bits, fill_study, sums, &ref);
    double worst[METHODS] = {0};
    for (uint32_t b = 0; b < bins; ++b) {
        const double nb = (double)ref.count[b], T = ref.sum[b].hi + ref.sum[b].lo;
        ASSERT_TRUE(nb > 0);
        ASSERT_EQ_F64(sums[FIXED][b], (double)ref.quantized[b] / ldexp(1.0, fixed_bits));
        ASSERT_LE_F64(fabs(rel_err(sums[FIXED][b], ref.sum[b])), nb * ldexp(1.0, -fixed_bits - 1) / T + U64);
        ASSERT_LE_F64(fabs(rel_err(sums[F64_ATOMIC][b], ref.sum[b])), (nb - 1) * U64);
        ASSERT_LE_F64(fabs(rel_err(sums[KAHAN][b], ref.sum[b])), 3.0 * U32 + 4.0 * nb * U32 * U32);
        ASSERT_LE_F64(fabs(rel_err(sums[F32_ATOMIC][b], ref.sum[b])), (nb - 1) * U32);
        for (int m = 0; m < METHODS; ++m) worst[m] = fmax(worst[m], fabs(rel_err(sums[m][b], ref.sum[b])));
    }
    printf("n = %.0e, %u bin%s, largest |relative error| of a bin:", (double)n, bins, bins > 1 ? "s" : "");
    for (int m = 0; m < METHODS; ++m) printf("  %s %.2e", kMethods[m].label, worst[m]);
    printf("\n");
}

static void test_study_inputs(void) {
    const int64_t n_max = 10000000;
    const int fixed_bits = mct_accuracy_fixed_frac_bits(n_max);
    for (int64_t n = 100000; n <= n_max; n *= 10) {
        check_study_case(n, 1, fixed_bits);
        check_study_case(n, MAX_BINS, fixed_bits);
    }
}

int main(void) {
    test_hot_bin_stagnation();
    test_study_inputs();
    printf("test_api_accuracy: all passed\n");
    return 0;
}
