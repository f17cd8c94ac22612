/* SPDX-License-Identifier: BSD-3-Clause */
/** @file test_api_add.c  mct_tally_add with every method on every backend here
 * (cpu, emulated, and cuda where a GPU answers), for every type the method
 * serves, on random keys, one hot key, sorted runs and all-distinct keys,
 * against a reference: integers exact; floats within a bound derived from the
 * method's arithmetic; fixed bitwise equal to the exact integer sum and across
 * backends. Also NaN, out-of-range keys and fixed overflow, and int64 keys:
 * in host memory on every backend (mct_tally_add_keys), and in the backend's
 * memory on the host-memory backends (mct_tally_add_device_keys). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mctally/mct.h"
#include "test_assert.h"

#define N 20000
#define U64 0x1p-53
#define U32 0x1p-24

typedef enum { KEYS_RANDOM, KEYS_HOT, KEYS_SORTED_RUNS, KEYS_DISTINCT, KEYS_PATTERNS } key_pattern_t;

static uint64_t rng_state = 0x9E3779B97F4A7C15ull;
static uint64_t next_u64(void) { /* splitmix64: test data only */
    uint64_t z = (rng_state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static void make_data(key_pattern_t pattern, int64_t bins, int integers, uint32_t* keys, double* values) {
    for (int64_t i = 0; i < N; ++i) {
        switch (pattern) {
        case KEYS_RANDOM: keys[i] = (uint32_t)(next_u64() % (uint64_t)bins); break;
        case KEYS_HOT: keys[i] = (uint32_t)(bins / 2); break;
        case KEYS_SORTED_RUNS: keys[i] = (uint32_t)((i / 37) % bins); break;
        default: keys[i] = (uint32_t)(i % bins); break;
        }
        /* Integers for integer tallies; floats of mixed magnitude otherwise. */
        values[i] = integers ? (double)(next_u64() % 7) : ldexp((double)(next_u64() >> 11), -53) * (1 + (int)(next_u64() % 1000));
    }
}

static mct_tally_t make(mct_backend_t b, mct_method_t m, mct_dtype_t d, int64_t bins) {
    mct_tally_desc_t desc;
    mct_tally_desc_init(&desc);
    desc.backend = b, desc.method = m, desc.dtype = d, desc.bins = bins;
    desc.fixed_frac_bits = 40;
    desc.pair_capacity = N;
    mct_tally_t t = NULL;
    return mct_tally_create(&t, &desc) == MCT_STATUS_SUCCESS ? t : NULL;
}

/* Error bound of one bin: k additions into a bin of type d with the method,
 * for |values| summing to `mag`. Each float value is rounded once on entry
 * (f32), then every addition adds at most u * (partial sum) <= u * mag. */
static double bound(mct_method_t m, mct_dtype_t d, int64_t k, double mag) {
    if (m == MCT_METHOD_FIXED) return 0.0; /* compared with the exact integer sum */
    if (m == MCT_METHOD_KAHAN) return (3.0 * U32 + (double)k * U32 * U32) * mag;
    /* f32: each value rounded on entry, the bin's double run total rounded once more. */
    if (m == MCT_METHOD_SORT_REDUCE) return ((double)k * U64 + (d == MCT_DTYPE_F32 ? 2.0 * U32 : 0.0)) * mag;
    const double u = d == MCT_DTYPE_F32 ? U32 : U64;
    return (double)k * u * mag;
}

static void reference(const uint32_t* keys, const double* values, int64_t bins, mct_method_t m, mct_dtype_t d, double* sum,
                      double* mag, int64_t* count) {
    memset(sum, 0, (size_t)bins * sizeof *sum);
    memset(mag, 0, (size_t)bins * sizeof *mag);
    memset(count, 0, (size_t)bins * sizeof *count);
    long double* acc = calloc((size_t)bins, sizeof *acc);
    int64_t* fixed = calloc((size_t)bins, sizeof *fixed);
    for (int64_t i = 0; i < N; ++i) {
        acc[keys[i]] += values[i];
        /* fixed takes contributions in the tally's type: f32 values are rounded first. */
        fixed[keys[i]] += llrint(ldexp(d == MCT_DTYPE_F32 ? (double)(float)values[i] : values[i], 40));
        mag[keys[i]] += fabs(values[i]);
        count[keys[i]] += 1;
    }
    for (int64_t k = 0; k < bins; ++k) sum[k] = m == MCT_METHOD_FIXED ? ldexp((double)fixed[k], -40) : (double)acc[k];
    free(acc);
    free(fixed);
}

/* Runs one case; returns the bins (caller frees) or NULL when unsupported here. */
static double* run_case(mct_backend_t b, mct_method_t m, mct_dtype_t d, int64_t bins, const uint32_t* keys,
                        const double* values) {
    mct_tally_t t = make(b, m, d, bins);
    if (!t) return NULL;
    double* out = malloc((size_t)bins * sizeof *out);
    mct_status_t st = mct_tally_add(t, keys, values, N);
    if (st == MCT_STATUS_TOO_LARGE && m == MCT_METHOD_SHARED) { /* more bins than shared memory holds */
        mct_tally_destroy(t);
        free(out);
        return NULL;
    }
    ASSERT_STATUS(st, MCT_STATUS_SUCCESS);
    ASSERT_STATUS(mct_tally_end_batch(t, 1), MCT_STATUS_SUCCESS);
    ASSERT_STATUS(mct_tally_sums(t, out), MCT_STATUS_SUCCESS);
    mct_tally_destroy(t);
    return out;
}

static void test_methods(void) {
    static uint32_t keys[N];
    static double values[N];
    const int64_t bin_counts[] = {1, 8, 1000};
    const mct_backend_t backends[] = {MCT_BACKEND_CPU, MCT_BACKEND_EMULATED, MCT_BACKEND_CUDA};
    int cases = 0;
    for (size_t bc = 0; bc < 3; ++bc) {
        const int64_t bins = bin_counts[bc];
        double *sum = malloc(bins * sizeof(double)), *mag = malloc(bins * sizeof(double));
        int64_t* count = malloc(bins * sizeof(int64_t));
        for (int pattern = 0; pattern < KEYS_PATTERNS; ++pattern)
            for (int d = 0; d < MCT_DTYPE_COUNT; ++d) {
                const int integers = d == MCT_DTYPE_I32 || d == MCT_DTYPE_U64;
                make_data((key_pattern_t)pattern, bins, integers, keys, values);
                for (int m = 0; m < MCT_METHOD_COUNT; ++m) {
                    reference(keys, values, bins, (mct_method_t)m, (mct_dtype_t)d, sum, mag, count);
                    double* fixed_first = NULL;
                    for (size_t b = 0; b < 3; ++b) {
                        if (mct_method_supports((mct_method_t)m, (mct_dtype_t)d, backends[b])) continue;
                        double* got = run_case(backends[b], (mct_method_t)m, (mct_dtype_t)d, bins, keys, values);
                        if (!got) continue;
                        ++cases;
                        for (int64_t k = 0; k < bins; ++k) {
                            const double tol = integers ? 0.0 : bound((mct_method_t)m, (mct_dtype_t)d, count[k], mag[k]);
                            if (!(fabs(got[k] - sum[k]) <= tol))
                                fprintf(stderr, "%s %s %s bins %lld pattern %d bin %lld\n", mct_backend_name(backends[b]),
                                        mct_method_name((mct_method_t)m), mct_dtype_name((mct_dtype_t)d),
                                        (long long)bins, pattern, (long long)k);
                            ASSERT_NEAR_F64(got[k], sum[k], tol);
                        }
                        /* fixed: the same bits on every backend. */
                        if (m == MCT_METHOD_FIXED && fixed_first)
                            ASSERT_TRUE(memcmp(fixed_first, got, (size_t)bins * sizeof(double)) == 0);
                        if (m == MCT_METHOD_FIXED && !fixed_first)
                            fixed_first = got;
                        else
                            free(got);
                    }
                    free(fixed_first);
                }
            }
        free(sum), free(mag), free(count);
    }
    printf("%d method/type/backend/pattern cases checked\n", cases);
    ASSERT_TRUE(cases > 100);
}

static void test_bad_data(mct_backend_t b) {
    uint32_t keys[4] = {0, 1, 7, 2};
    double values[4] = {1.0, 2.0, 3.0, 4.0};
    /* A key past the bins is dropped and reported. */
    mct_tally_t t = make(b, MCT_METHOD_ATOMIC, MCT_DTYPE_F64, 4);
    ASSERT_TRUE(t != NULL);
    ASSERT_STATUS(mct_tally_add(t, keys, values, 4), MCT_STATUS_SUCCESS);
    ASSERT_STATUS(mct_tally_end_batch(t, 1), MCT_STATUS_BIN_OUT_OF_RANGE);
    double sums[4];
    mct_tally_sums(t, sums);
    ASSERT_EQ_F64(sums[0] + sums[1] + sums[2] + sums[3], 7.0);
    ASSERT_STATUS(mct_tally_add(t, NULL, values, 4), MCT_STATUS_NULL_POINTER);
    ASSERT_STATUS(mct_tally_add(t, keys, values, -1), MCT_STATUS_INVALID_VALUE);
    mct_tally_destroy(t);
    /* NaN: float methods carry it into the bin; fixed drops and reports it. */
    keys[2] = 3;
    values[1] = NAN;
    t = make(b, MCT_METHOD_ATOMIC, MCT_DTYPE_F64, 4);
    mct_tally_add(t, keys, values, 4);
    ASSERT_STATUS(mct_tally_end_batch(t, 1), MCT_STATUS_NONFINITE_VALUE);
    mct_tally_destroy(t);
    t = make(b, MCT_METHOD_FIXED, MCT_DTYPE_F64, 4);
    mct_tally_add(t, keys, values, 4);
    ASSERT_STATUS(mct_tally_end_batch(t, 1), MCT_STATUS_NONFINITE_VALUE);
    mct_tally_sums(t, sums);
    ASSERT_EQ_F64(sums[1], 0.0);
    ASSERT_EQ_F64(sums[0] + sums[2] + sums[3], 8.0);
    mct_tally_destroy(t);
    /* fixed overflow: 2^40 fraction bits leave 2^23 of range; 2^22 * 3 overflows. */
    values[1] = 0x1p22;
    values[0] = 0x1p22;
    values[2] = 0x1p22;
    keys[0] = keys[1] = keys[2] = 1;
    t = make(b, MCT_METHOD_FIXED, MCT_DTYPE_F64, 4);
    mct_tally_add(t, keys, values, 3);
    ASSERT_STATUS(mct_tally_end_batch(t, 1), MCT_STATUS_OVERFLOW);
    mct_tally_destroy(t);
}

/* The arrays-in-backend-memory entry points (host pointers on cpu and
 * emulated): grouped adds equal the same adds spelled out one by one, a group
 * reaching past the bins is dropped whole, and flush() brings sort_reduce's
 * pairs into the bins before the batch closes. */
static void test_add_device(mct_backend_t b, mct_method_t m) {
    enum { GROUPS = 500, WIDTH = 3, CELLS = 40 };
    static uint32_t keys[GROUPS], flat_keys[GROUPS * WIDTH];
    static double values[GROUPS * WIDTH];
    for (int i = 0; i < GROUPS; ++i) keys[i] = (uint32_t)(next_u64() % CELLS);
    for (int j = 0; j < GROUPS * WIDTH; ++j) values[j] = (double)(next_u64() % 1000) / 8.0; /* exact sums */
    for (int c = 0; c < WIDTH; ++c)
        for (int i = 0; i < GROUPS; ++i) flat_keys[c * GROUPS + i] = keys[i] * WIDTH + (uint32_t)c;
    mct_tally_t grouped = make(b, m, MCT_DTYPE_F64, CELLS * WIDTH), flat = make(b, m, MCT_DTYPE_F64, CELLS * WIDTH);
    ASSERT_TRUE(grouped && flat);
    ASSERT_STATUS(mct_tally_add_device_grouped(grouped, keys, values, GROUPS, WIDTH, GROUPS), MCT_STATUS_SUCCESS);
    ASSERT_STATUS(mct_tally_add_device(flat, flat_keys, values, GROUPS * WIDTH), MCT_STATUS_SUCCESS);
    ASSERT_STATUS(mct_tally_flush(grouped), MCT_STATUS_SUCCESS);
    ASSERT_STATUS(mct_tally_end_batch(grouped, 1), MCT_STATUS_SUCCESS);
    ASSERT_STATUS(mct_tally_end_batch(flat, 1), MCT_STATUS_SUCCESS);
    static double a[CELLS * WIDTH], f[CELLS * WIDTH];
    mct_tally_sums(grouped, a), mct_tally_sums(flat, f);
    for (int k = 0; k < CELLS * WIDTH; ++k) ASSERT_EQ_F64(a[k], f[k]); /* multiples of 1/8: exact */
    /* Bad shapes, and a group whose last bin is past the end. */
    ASSERT_STATUS(mct_tally_add_device_grouped(grouped, keys, values, GROUPS, 0, GROUPS), MCT_STATUS_INVALID_VALUE);
    ASSERT_STATUS(mct_tally_add_device_grouped(grouped, keys, values, GROUPS, 2, GROUPS - 1), MCT_STATUS_INVALID_VALUE);
    ASSERT_STATUS(mct_tally_add_device(grouped, NULL, values, 1), MCT_STATUS_NULL_POINTER);
    const uint32_t edge[2] = {CELLS - 1, CELLS}; /* the second group is bins 120..122 of 120 */
    ASSERT_STATUS(mct_tally_add_device_grouped(grouped, edge, values, 2, WIDTH, 2), MCT_STATUS_SUCCESS);
    ASSERT_STATUS(mct_tally_end_batch(grouped, 1), MCT_STATUS_BIN_OUT_OF_RANGE);
    mct_tally_sums(grouped, a);
    double total = 0.0, expect = 0.0;
    for (int k = 0; k < CELLS * WIDTH; ++k) total += a[k] - f[k];
    for (int c = 0; c < WIDTH; ++c) expect += values[c * 2];
    ASSERT_EQ_F64(total, expect); /* only the first group's three values arrived */
    mct_tally_destroy(grouped);
    mct_tally_destroy(flat);
}

/* int64 keys: the same sums as the 32-bit keys of the keys that lie in the
 * bins; every other key (negative, at the end, 2^32 + k and -2^32 + k that a
 * truncation would put on bin k, the extremes, 2^62 whose key * width
 * overflows) is dropped whole and reported. host: through mct_tally_add_keys
 * (width 1, any backend), else mct_tally_add_device_keys (host-memory
 * backends). */
static void test_keys64(mct_backend_t b, mct_method_t m, int width, int host) {
    enum { GROUPS = 700, CELLS = 50 };
    static uint32_t keys32[GROUPS];
    static int64_t keys64[GROUPS];
    static double values[GROUPS * 4];
    const int64_t bad[] = {-1, CELLS, (INT64_C(1) << 32) + 7, -(INT64_C(1) << 32) + 7, INT64_MAX, INT64_MIN,
                           INT64_C(1) << 62};
    int nbad = 0;
    for (int i = 0; i < GROUPS; ++i) {
        keys32[i] = (uint32_t)(next_u64() % CELLS);
        keys64[i] = keys32[i];
        if (i % 9 == 4) keys64[i] = bad[nbad++ % 7], keys32[i] = UINT32_MAX; /* dropped by both */
    }
    for (int j = 0; j < GROUPS * width; ++j) values[j] = (double)(next_u64() % 1000) / 8.0; /* exact sums */
    mct_tally_t t64 = make(b, m, MCT_DTYPE_F64, CELLS * width), t32 = make(b, m, MCT_DTYPE_F64, CELLS * width);
    if (!t64 || !t32) { /* no such backend here (cuda without a GPU) */
        mct_tally_destroy(t64), mct_tally_destroy(t32);
        return;
    }
    if (host) {
        ASSERT_STATUS(mct_tally_add_keys(t64, keys64, MCT_KEY_I64, values, GROUPS), MCT_STATUS_SUCCESS);
        ASSERT_STATUS(mct_tally_add(t32, keys32, values, GROUPS), MCT_STATUS_SUCCESS);
        ASSERT_STATUS(mct_tally_add_keys(t64, keys64, (mct_key_type_t)7, values, GROUPS), MCT_STATUS_INVALID_VALUE);
    } else {
        ASSERT_STATUS(mct_tally_add_device_keys(t64, keys64, MCT_KEY_I64, values, GROUPS, width, GROUPS),
                      MCT_STATUS_SUCCESS);
        ASSERT_STATUS(mct_tally_add_device_keys(t32, keys32, MCT_KEY_U32, values, GROUPS, width, GROUPS),
                      MCT_STATUS_SUCCESS);
        ASSERT_STATUS(mct_tally_add_device_keys(t64, keys64, (mct_key_type_t)7, values, GROUPS, width, GROUPS),
                      MCT_STATUS_INVALID_VALUE);
    }
    ASSERT_STATUS(mct_tally_end_batch(t64, 1), MCT_STATUS_BIN_OUT_OF_RANGE);
    ASSERT_STATUS(mct_tally_end_batch(t32, 1), MCT_STATUS_BIN_OUT_OF_RANGE);
    static double a[CELLS * 4], c[CELLS * 4];
    mct_tally_sums(t64, a), mct_tally_sums(t32, c);
    double total = 0.0;
    for (int k = 0; k < CELLS * width; ++k) {
        ASSERT_EQ_F64(a[k], c[k]);
        total += a[k];
    }
    double expect = 0.0;
    for (int i = 0; i < GROUPS; ++i)
        for (int w = 0; w < width; ++w) expect += i % 9 == 4 ? 0.0 : values[w * GROUPS + i];
    ASSERT_EQ_F64(total, expect); /* multiples of 1/8: exact */
    mct_tally_destroy(t64);
    mct_tally_destroy(t32);
}

int main(void) {
    for (int w = 1; w <= 4; w += 3) {
        test_keys64(MCT_BACKEND_CPU, MCT_METHOD_ATOMIC, w, 0);
        test_keys64(MCT_BACKEND_CPU, MCT_METHOD_FIXED, w, 0);
        test_keys64(MCT_BACKEND_EMULATED, MCT_METHOD_BLOCK_REDUCE, w, 0);
        test_keys64(MCT_BACKEND_EMULATED, MCT_METHOD_FIXED, w, 0);
        test_keys64(MCT_BACKEND_EMULATED, MCT_METHOD_WAG, w, 0);
    }
    const mct_backend_t every[] = {MCT_BACKEND_CPU, MCT_BACKEND_EMULATED, MCT_BACKEND_CUDA};
    for (int b = 0; b < 3; ++b) {
        test_keys64(every[b], MCT_METHOD_ATOMIC, 1, 1);
        test_keys64(every[b], MCT_METHOD_FIXED, 1, 1);
    }
    test_add_device(MCT_BACKEND_CPU, MCT_METHOD_ATOMIC);
    test_add_device(MCT_BACKEND_CPU, MCT_METHOD_SORT_REDUCE);
    test_add_device(MCT_BACKEND_EMULATED, MCT_METHOD_BLOCK_REDUCE);
    test_add_device(MCT_BACKEND_EMULATED, MCT_METHOD_WARP_REDUCE);
    test_bad_data(MCT_BACKEND_CPU);
    test_bad_data(MCT_BACKEND_EMULATED);
    test_methods();
    return 0;
}
