/* SPDX-License-Identifier: BSD-3-Clause */
/** @file test_rounding_loss.c  The rounding-loss estimate (mct_rounding.h)
 * against exact references on the cpu and emulated backends:
 * - a hot f32 atomic bin that loses several percent is flagged, and its
 *   estimate agrees with the loss measured against a long-double sum of the
 *   same addends within the estimate's own uncertainty; the same adds into an
 *   f64 tally and a kahan tally are not flagged;
 * - every float method the backend serves (whole-array adds, single and
 *   grouped) fills the shadow with every sampled add: each bin is estimated and
 *   the tally-wide estimate agrees with the exact loss;
 * - bad input gives clear statuses;
 * - the predictive model against exact sequential sums of simulated addends.
 * Tolerances: the estimate's own standard uncertainty times a z of 5 (a
 * correct estimate fails with probability below 1e-6 per check). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "mctally/mct.h"
#include "test_assert.h"

#define Z_TEST 5.0

/* xorshift64*: the addends of the tests (any stream of varied bits will do). */
static uint64_t rng_state;
static double uniform01(void) {
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return ((double)((rng_state * 0x2545F4914F6CDD1Dull) >> 11) + 0.5) * 0x1.0p-53;
}
static double exponential(void) { return -log(uniform01()); }

static mct_tally_t make_tally(mct_backend_t b, mct_method_t m, mct_dtype_t d, int64_t bins) {
    mct_tally_desc_t desc;
    mct_tally_desc_init(&desc);
    desc.bins = bins;
    desc.method = m;
    desc.dtype = d;
    desc.backend = b;
    mct_tally_t t = NULL;
    ASSERT_EQ_I64(mct_tally_create(&t, &desc), MCT_STATUS_SUCCESS);
    return t;
}

static void check_bad_input(void) {
    mct_rounding_loss_t info;
    ASSERT_EQ_I64(mct_tally_rounding_loss(NULL, &info), MCT_STATUS_NULL_POINTER);
    ASSERT_EQ_I64(mct_tally_enable_rounding_loss(NULL, 6), MCT_STATUS_NULL_POINTER);
    mct_tally_t t = make_tally(MCT_BACKEND_CPU, MCT_METHOD_ATOMIC, MCT_DTYPE_F32, 4);
    ASSERT_EQ_I64(mct_tally_rounding_loss(t, NULL), MCT_STATUS_NULL_POINTER);
    ASSERT_EQ_I64(mct_tally_rounding_loss(t, &info), MCT_STATUS_INVALID_STATE); /* not enabled */
    ASSERT_EQ_I64(mct_tally_enable_rounding_loss(t, 25), MCT_STATUS_INVALID_VALUE);
    ASSERT_EQ_I64(mct_tally_enable_rounding_loss(t, -2), MCT_STATUS_INVALID_VALUE);
    ASSERT_EQ_I64(mct_tally_enable_rounding_loss(t, 6), MCT_STATUS_SUCCESS);
    ASSERT_EQ_I64(mct_tally_rounding_loss(t, &info), MCT_STATUS_INVALID_STATE); /* no batch closed */
    ASSERT_EQ_I64(mct_tally_end_batch(t, 1), MCT_STATUS_SUCCESS);
    ASSERT_EQ_I64(mct_tally_rounding_loss(t, &info), MCT_STATUS_SUCCESS);
    ASSERT_EQ_I64(info.bins_estimated, 0); /* nothing added: no bin has samples */
    ASSERT_EQ_I64(info.worst_bin, -1);
    ASSERT_EQ_I64(info.significant, 0);
    ASSERT_EQ_I64(mct_rounding_loss_exceeds(&info, 0.0), 0);
    ASSERT_EQ_I64(mct_rounding_loss_exceeds(NULL, 0.0), 0);
    ASSERT_EQ_I64(mct_tally_enable_rounding_loss(t, -1), MCT_STATUS_SUCCESS); /* off again */
    ASSERT_EQ_I64(mct_tally_rounding_loss(t, &info), MCT_STATUS_INVALID_STATE);
    mct_tally_destroy(t);
    t = make_tally(MCT_BACKEND_CPU, MCT_METHOD_ATOMIC, MCT_DTYPE_U64, 4);
    ASSERT_EQ_I64(mct_tally_enable_rounding_loss(t, 6), MCT_STATUS_NOT_SUPPORTED);
    ASSERT_EQ_I64(mct_tally_rounding_loss(t, &info), MCT_STATUS_NOT_SUPPORTED);
    mct_tally_destroy(t);
    t = make_tally(MCT_BACKEND_CPU, MCT_METHOD_FIXED, MCT_DTYPE_F64, 4);
    ASSERT_EQ_I64(mct_tally_enable_rounding_loss(t, 6), MCT_STATUS_NOT_SUPPORTED);
    mct_tally_destroy(t);

    double r = 0.0;
    ASSERT_EQ_I64(mct_rounding_loss_predict(MCT_METHOD_ATOMIC, MCT_DTYPE_F32, 100, 1.0, NULL), MCT_STATUS_NULL_POINTER);
    ASSERT_EQ_I64(mct_rounding_loss_predict(MCT_METHOD_ATOMIC, MCT_DTYPE_F32, 0.5, 1.0, &r), MCT_STATUS_INVALID_VALUE);
    ASSERT_EQ_I64(mct_rounding_loss_predict(MCT_METHOD_ATOMIC, MCT_DTYPE_F32, 100, -1.0, &r), MCT_STATUS_INVALID_VALUE);
    ASSERT_EQ_I64(mct_rounding_loss_predict(MCT_METHOD_ATOMIC, MCT_DTYPE_F32, NAN, 1.0, &r), MCT_STATUS_INVALID_VALUE);
    ASSERT_EQ_I64(mct_rounding_loss_predict(MCT_METHOD_KAHAN, MCT_DTYPE_F64, 100, 1.0, &r), MCT_STATUS_NOT_SUPPORTED);
    ASSERT_EQ_I64(mct_rounding_loss_predict(MCT_METHOD_COUNT, MCT_DTYPE_F32, 100, 1.0, &r), MCT_STATUS_UNKNOWN_METHOD);
    ASSERT_EQ_I64(mct_rounding_loss_predict(MCT_METHOD_ATOMIC, MCT_DTYPE_COUNT, 100, 1.0, &r), MCT_STATUS_UNKNOWN_DTYPE);
    puts("ok: bad input");
}

#define CHUNK (1 << 20)

/* Adds n exponential addends into bin 0 of the tally (in chunks through
 * mct_tally_add) and returns their exact sum, as the tally's type holds them. */
static long double add_hot_bin(mct_tally_t t, mct_dtype_t dtype, int64_t n, uint32_t* keys, double* values) {
    long double exact = 0.0L;
    for (int64_t done = 0; done < n; done += CHUNK) {
        const int64_t m = n - done < CHUNK ? n - done : CHUNK;
        for (int64_t i = 0; i < m; ++i) {
            keys[i] = 0u;
            values[i] = exponential();
            if (dtype == MCT_DTYPE_F32) values[i] = (double)(float)values[i];
            exact += values[i];
        }
        ASSERT_EQ_I64(mct_tally_add(t, keys, values, m), MCT_STATUS_SUCCESS);
    }
    return exact;
}

/* One hot bin of 2^25 adds: f32 atomic loses several percent (the sum passes
 * 2^24 times its addends), f64 and kahan keep everything. */
static void check_hot_bin(mct_backend_t backend, mct_method_t m, mct_dtype_t d, int expect_flag) {
    const int64_t n = INT64_C(1) << 25;
    uint32_t* keys = malloc(CHUNK * sizeof *keys);
    double* values = malloc(CHUNK * sizeof *values);
    ASSERT_TRUE(keys && values);
    rng_state = 0x9E3779B97F4A7C15ull;
    mct_tally_t t = make_tally(backend, m, d, 1);
    ASSERT_EQ_I64(mct_tally_enable_rounding_loss(t, MCT_ROUNDING_LOSS_DEFAULT_LOG2), MCT_STATUS_SUCCESS);
    const long double exact = add_hot_bin(t, d, n, keys, values);
    ASSERT_EQ_I64(mct_tally_end_batch(t, n), MCT_STATUS_SUCCESS);
    double sum = 0.0;
    ASSERT_EQ_I64(mct_tally_sums(t, &sum), MCT_STATUS_SUCCESS);
    const double actual = (double)((exact - (long double)sum) / exact);
    mct_rounding_loss_t info;
    ASSERT_EQ_I64(mct_tally_rounding_loss(t, &info), MCT_STATUS_SUCCESS);
    printf("%s %s %s: actual loss %.4g, estimate %.4g +- %.2g (z %.2f, %.0f samples), flagged %d\n",
           mct_backend_name(backend), mct_method_name(m), mct_dtype_name(d), actual, info.worst_loss,
           info.worst_loss_err, info.z, info.worst_samples, mct_rounding_loss_exceeds(&info, 0.01));
    ASSERT_EQ_I64(info.worst_bin, 0);
    ASSERT_EQ_I64(info.bins_estimated, 1);
    ASSERT_LE_F64(fabs(info.worst_loss - actual), Z_TEST * info.worst_loss_err);
    ASSERT_LE_F64(fabs(info.total_loss - actual), Z_TEST * info.total_loss_err);
    ASSERT_EQ_I64(mct_rounding_loss_exceeds(&info, 0.01), expect_flag);
    if (expect_flag) ASSERT_TRUE(actual >= 0.01); /* the case is one that loses >= 1 % */
    mct_tally_destroy(t);
    free(keys), free(values);
}

/* Every float method the backend serves: 8 bins, 2^17 adds each with a 1/4
 * sample, single and grouped adds. Every bin is estimated, and the tally-wide
 * estimate agrees with the loss against a long-double sum. */
static void check_every_method(mct_backend_t backend) {
    const int64_t bins = 8, n = INT64_C(1) << 17;
    uint32_t* keys = malloc((size_t)n * sizeof *keys);
    double* values = malloc((size_t)n * sizeof *values);
    ASSERT_TRUE(keys && values);
    for (int m = 0; m < MCT_METHOD_COUNT; ++m) {
        for (int d = MCT_DTYPE_F32; d <= MCT_DTYPE_F64; ++d) {
            if (m == MCT_METHOD_FIXED || mct_method_supports(m, d, backend)) continue;
            for (int width = 1; width <= 2; width *= 2) {
                rng_state = 12345u + (uint64_t)m;
                mct_tally_t t = make_tally(backend, (mct_method_t)m, (mct_dtype_t)d, bins);
                ASSERT_EQ_I64(mct_tally_enable_rounding_loss(t, 2), MCT_STATUS_SUCCESS);
                long double exact = 0.0L;
                const int64_t groups = n / width;
                for (int64_t i = 0; i < groups; ++i) keys[i] = (uint32_t)(uniform01() * (double)(bins / width));
                for (int64_t i = 0; i < n; ++i) {
                    values[i] = exponential();
                    if (d == MCT_DTYPE_F32) values[i] = (double)(float)values[i];
                    exact += values[i];
                }
                ASSERT_EQ_I64(mct_tally_add_device_grouped(t, keys, values, groups, width, groups), MCT_STATUS_SUCCESS);
                ASSERT_EQ_I64(mct_tally_end_batch(t, n), MCT_STATUS_SUCCESS);
                double sums[8], total = 0.0;
                ASSERT_EQ_I64(mct_tally_sums(t, sums), MCT_STATUS_SUCCESS);
                for (int k = 0; k < bins; ++k) total += sums[k];
                const double actual = (double)((exact - (long double)total) / exact);
                mct_rounding_loss_t info;
                ASSERT_EQ_I64(mct_tally_rounding_loss(t, &info), MCT_STATUS_SUCCESS);
                if (info.bins_estimated != bins || fabs(info.total_loss - actual) > Z_TEST * info.total_loss_err ||
                    mct_rounding_loss_exceeds(&info, 0.01))
                    TEST_FAIL("%s %s %s width %d: %lld bins estimated, loss %.3g +- %.2g vs actual %.3g",
                              mct_backend_name(backend), mct_method_name(m), mct_dtype_name(d), width,
                              (long long)info.bins_estimated, info.total_loss, info.total_loss_err, actual);
                mct_tally_destroy(t);
            }
        }
    }
    free(keys), free(values);
    printf("ok: every float method on %s\n", mct_backend_name(backend));
}

/* The emulated block_reduce f64 tally of 8 bins with grouped adds of width 2
 * (no rounding to speak of: its loss is 0 to within 1e-15), over `trials`
 * independent data sets of 2^14 adds: returns the estimate of the last one in
 * `last`, the z scores total_loss / total_loss_err in z[], and how many were
 * flagged (mct_rounding_loss_exceeds at 1 %). */
static int emulated_block_reduce_trials(int trials, uint64_t seed, double* z, mct_rounding_loss_t* last) {
    const int64_t bins = 8, n = INT64_C(1) << 14, width = 2, groups = n / width;
    uint32_t keys[(1 << 14) / 2];
    double values[1 << 14];
    int flagged = 0;
    for (int r = 0; r < trials; ++r) {
        rng_state = seed + 0x9E3779B97F4A7C15ull * (uint64_t)(r + 1);
        mct_tally_t t = make_tally(MCT_BACKEND_EMULATED, MCT_METHOD_BLOCK_REDUCE, MCT_DTYPE_F64, bins);
        ASSERT_EQ_I64(mct_tally_enable_rounding_loss(t, 2), MCT_STATUS_SUCCESS);
        for (int64_t i = 0; i < groups; ++i) keys[i] = (uint32_t)(uniform01() * (double)(bins / width));
        for (int64_t i = 0; i < n; ++i) values[i] = exponential();
        ASSERT_EQ_I64(mct_tally_add_device_grouped(t, keys, values, groups, (int)width, groups), MCT_STATUS_SUCCESS);
        ASSERT_EQ_I64(mct_tally_end_batch(t, n), MCT_STATUS_SUCCESS);
        ASSERT_EQ_I64(mct_tally_rounding_loss(t, last), MCT_STATUS_SUCCESS);
        ASSERT_EQ_I64(last->bins_estimated, bins);
        z[r] = last->total_loss / last->total_loss_err;
        flagged += mct_rounding_loss_exceeds(last, 0.01);
        mct_tally_destroy(t);
    }
    return flagged;
}

/* The emulated backend's sampling is reproducible: the same adds give the same
 * sampled subset, so a query that passes passes on every run, whatever the
 * host's load (were each run a fresh draw, every one of the ~40 queries of
 * check_every_method on this backend would fail at the estimate's false-alarm
 * rate, and the test in a few runs in a hundred). Two runs of one data set
 * must agree to the shadow's own f64 rounding (its atomics' order may vary),
 * far below the estimate's uncertainty, which a fresh draw moves by about one.
 * Across data sets the draws must still behave as the estimate assumes: the
 * z scores of a tally that loses nothing have mean 0 and standard deviation 1
 * (checked at 5 standard errors: mean +- 5 / sqrt(T), sd within 5 sqrt(1 / (2 T))
 * of 1), and the flagged ones, at most 1e-3 of them by design, are at most 4 of
 * T = 200 (Poisson of mean 0.2: more fails with probability 6e-6). */
static void check_emulated_sampling(void) {
    enum { T = 200 };
    static double z[T];
    double z1;
    mct_rounding_loss_t a, b;
    emulated_block_reduce_trials(1, 42u, &z1, &a);
    emulated_block_reduce_trials(1, 42u, &z1, &b);
    if (!(fabs(a.total_loss - b.total_loss) <= 1e-9 * a.total_loss_err) || a.worst_bin != b.worst_bin ||
        !(fabs(a.worst_samples - b.worst_samples) <= 1e-9 * a.worst_samples))
        TEST_FAIL("emulated block_reduce f64 width 2 differs between two runs of the same adds: loss %.6g vs %.6g "
                  "(+- %.2g), worst bin %lld vs %lld",
                  a.total_loss, b.total_loss, a.total_loss_err, (long long)a.worst_bin, (long long)b.worst_bin);
    const int flagged = emulated_block_reduce_trials(T, 7u, z, &a);
    double mean = 0.0, m2 = 0.0;
    for (int r = 0; r < T; ++r) mean += z[r] / T;
    for (int r = 0; r < T; ++r) m2 += (z[r] - mean) * (z[r] - mean);
    const double sd = sqrt(m2 / (T - 1));
    printf("emulated block_reduce f64 width 2, %d data sets: z mean %.3f, sd %.3f, flagged %d\n", T, mean, sd, flagged);
    ASSERT_LE_F64(fabs(mean), 5.0 / sqrt((double)T));
    ASSERT_LE_F64(fabs(sd - 1.0), 5.0 * sqrt(1.0 / (2.0 * T)));
    ASSERT_TRUE(flagged <= 4);
    puts("ok: emulated sampling reproducible, z scores standard normal");
}

/* A tally that loses nothing (f64 atomic on the cpu backend, sums exact to
 * 1e-13) of 1024 bins of about 1024 adds each, a 1/4 sample: each bin is
 * resolved to about 8 %, where a significance test that is not on the
 * estimated sum itself (loss against its error linearized at the estimate
 * tests S^ - B at z |B / S^|, some 3 standard deviations for the Bonferroni z
 * of 4.3) reports such tallies as losing many times too often. The false alarms must stay at the designed 1e-3 per tally: of T = 100 data
 * sets at most 2 are flagged (Poisson of mean 0.1: more fails with probability
 * 2e-4). */
static void check_false_alarms(void) {
    enum { T = 100 };
    const int64_t bins = 1024, n = bins * 1024;
    uint32_t* keys = malloc((size_t)n * sizeof *keys);
    double* values = malloc((size_t)n * sizeof *values);
    ASSERT_TRUE(keys && values);
    int flagged = 0;
    double zmax = 0.0;
    for (int r = 0; r < T; ++r) {
        rng_state = 0xD1B54A32D192ED03ull * (uint64_t)(r + 1);
        mct_tally_t t = make_tally(MCT_BACKEND_CPU, MCT_METHOD_ATOMIC, MCT_DTYPE_F64, bins);
        ASSERT_EQ_I64(mct_tally_enable_rounding_loss(t, 2), MCT_STATUS_SUCCESS);
        for (int64_t i = 0; i < n; ++i) {
            keys[i] = (uint32_t)(uniform01() * (double)bins);
            values[i] = exponential();
        }
        ASSERT_EQ_I64(mct_tally_add(t, keys, values, n), MCT_STATUS_SUCCESS);
        ASSERT_EQ_I64(mct_tally_end_batch(t, n), MCT_STATUS_SUCCESS);
        mct_rounding_loss_t info;
        ASSERT_EQ_I64(mct_tally_rounding_loss(t, &info), MCT_STATUS_SUCCESS);
        ASSERT_EQ_I64(info.bins_estimated, bins);
        flagged += info.significant;
        if (info.worst_loss / info.worst_loss_err > zmax) zmax = info.worst_loss / info.worst_loss_err;
        mct_tally_destroy(t);
    }
    free(keys), free(values);
    printf("cpu atomic f64, %d lossless tallies of %lld bins: %d reported as losing (largest loss / err %.2f)\n", T,
           (long long)bins, flagged, zmax);
    ASSERT_TRUE(flagged <= 2);
    puts("ok: false alarms");
}

/* The model against sequential sums in the tally's precision of R runs of n
 * simulated addends: the mean exact loss, with the standard error of that mean
 * and a model allowance of 1 % of the loss (the mean-field model leaves out the
 * running sum's fluctuations), must contain the prediction. */
static void check_predict(int64_t n, double cv, int runs) {
    const int shape = cv == 1.0 ? 1 : 4; /* cv 1: exponential; cv 1/2: gamma(4), a sum of 4 exponentials */
    double mean = 0.0, m2 = 0.0;
    rng_state = 777u;
    for (int r = 0; r < runs; ++r) {
        float s = 0.0f;
        long double exact = 0.0L;
        for (int64_t i = 0; i < n; ++i) {
            double v = 0.0;
            for (int j = 0; j < shape; ++j) v += exponential();
            const float x = (float)(v / shape);
            s += x;
            exact += x;
        }
        const double loss = (double)((exact - (long double)s) / exact), delta = loss - mean;
        mean += delta / (r + 1);
        m2 += delta * (loss - mean);
    }
    const double se = sqrt(m2 / (runs - 1) / runs);
    double predicted = 0.0;
    ASSERT_EQ_I64(mct_rounding_loss_predict(MCT_METHOD_ATOMIC, MCT_DTYPE_F32, (double)n, cv, &predicted),
                  MCT_STATUS_SUCCESS);
    printf("predict f32 atomic, n %lld, cv %.2f: model %.4g, simulated %.4g +- %.2g\n", (long long)n, cv, predicted,
           mean, se);
    ASSERT_LE_F64(fabs(predicted - mean), Z_TEST * se + 0.01 * mean);
}

static void check_predict_others(void) {
    double r = 1.0;
    ASSERT_EQ_I64(mct_rounding_loss_predict(MCT_METHOD_ATOMIC, MCT_DTYPE_F64, 1e9, 1.0, &r), MCT_STATUS_SUCCESS);
    ASSERT_LT_F64(r, 1e-6);
    ASSERT_EQ_I64(mct_rounding_loss_predict(MCT_METHOD_KAHAN, MCT_DTYPE_F32, 1e9, 1.0, &r), MCT_STATUS_SUCCESS);
    ASSERT_LE_F64(r, 0x1.0p-23);
    ASSERT_EQ_I64(mct_rounding_loss_predict(MCT_METHOD_FIXED, MCT_DTYPE_F64, 1e9, 1.0, &r), MCT_STATUS_SUCCESS);
    ASSERT_EQ_F64(r, 0.0);
    ASSERT_EQ_I64(mct_rounding_loss_predict(MCT_METHOD_ATOMIC, MCT_DTYPE_U64, 1e9, 1.0, &r), MCT_STATUS_SUCCESS);
    ASSERT_EQ_F64(r, 0.0);
    /* Equal addends: an f32 sum of ones stops at 2^24 exactly. */
    ASSERT_EQ_I64(mct_rounding_loss_predict(MCT_METHOD_ATOMIC, MCT_DTYPE_F32, 0x1.0p25, 0.0, &r), MCT_STATUS_SUCCESS);
    ASSERT_EQ_F64(r, 0.5);
    ASSERT_EQ_I64(mct_rounding_loss_predict(MCT_METHOD_ATOMIC, MCT_DTYPE_F32, 0x1.0p24, 0.0, &r), MCT_STATUS_SUCCESS);
    ASSERT_EQ_F64(r, 0.0);
    /* More adds never lose less. */
    double prev = 0.0;
    for (double n = 1; n < 1e10; n *= 3) {
        ASSERT_EQ_I64(mct_rounding_loss_predict(MCT_METHOD_ATOMIC, MCT_DTYPE_F32, n, 1.0, &r), MCT_STATUS_SUCCESS);
        ASSERT_TRUE(r >= prev - 1e-12 && r < 1.0);
        prev = r;
    }
    puts("ok: predict, other methods and types");
}

/* The emulation's OS threads for this thread's launches (mctally/emu/mct_emu.h, a
 * C++ header): the emulated device's SM count, which sizes the add kernels'
 * grids and so which thread adds which value. */
int mct_emu_set_threads(int n);

int main(int argc, char** argv) {
    const int quick = argc > 1 && !strcmp(argv[1], "--quick");
    /* The emulated sampling is reproducible for a given launch shape; one
     * emulated device on every machine makes the sampled subsets, and so each
     * statistical check's draw, the same everywhere. */
    mct_emu_set_threads(4);
    check_bad_input();
    check_predict_others();
    check_emulated_sampling();
    check_false_alarms();
    check_predict(INT64_C(1) << 24, 1.0, 8);
    check_predict(INT64_C(1) << 25, 1.0, 4);
    check_predict(INT64_C(1) << 25, 0.5, 4);
    const mct_backend_t backends[] = {MCT_BACKEND_CPU, MCT_BACKEND_EMULATED};
    for (int b = 0; b < 2; ++b) {
        check_every_method(backends[b]);
        if (quick) continue;
        check_hot_bin(backends[b], MCT_METHOD_ATOMIC, MCT_DTYPE_F32, 1);
        check_hot_bin(backends[b], MCT_METHOD_ATOMIC, MCT_DTYPE_F64, 0);
        check_hot_bin(backends[b], MCT_METHOD_KAHAN, MCT_DTYPE_F32, 0);
    }
    puts("all ok");
    return 0;
}
