/* SPDX-License-Identifier: BSD-3-Clause */
/** @file test_api_edge_values.c  The same edge values through every method,
 * type and backend here (cpu, emulated, and cuda where a GPU answers): each
 * value alone in bin 0 of its own tally, beside an ordinary value in bin 1.
 * Every backend must end the batch with the same status, raise the same flags
 * and hold the same bits in both bins (a NaN counts as equal to a NaN: IEEE
 * leaves its payload to the hardware). The defined outcomes are checked too:
 * fixed drops NaN and Inf as NONFINITE and a finite value past 2^63 units as
 * OVERFLOW, and integer bins take the rounded value (ties to even) when it
 * fits their type, and otherwise drop it: NaN and Inf as NONFINITE, a finite
 * value out of range (3e9 into i32, -1 into u64) as OVERFLOW. A second pass
 * adds many values into one bin, so that the integer sums go through each
 * method's partial sums (warp and block aggregation, shared copies, replicas
 * and their reduction): a total past the type's range must be OVERFLOW on
 * every backend and method, one just inside it exact. */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mctally/mct.h"
#include "test_assert.h"

#define FRAC_BITS 32

typedef struct {
    mct_status_t status;
    unsigned flags;
    double sums[2];    /* float and fixed tallies */
    int64_t isums[2];  /* integer tallies */
} outcome_t;

static int run_one(mct_backend_t b, mct_method_t m, mct_dtype_t d, double v, outcome_t* out) {
    mct_tally_desc_t desc;
    mct_tally_desc_init(&desc);
    desc.backend = b, desc.method = m, desc.dtype = d, desc.bins = 2;
    desc.fixed_frac_bits = FRAC_BITS;
    desc.pair_capacity = 16;
    mct_tally_t t = NULL;
    if (mct_tally_create(&t, &desc) != MCT_STATUS_SUCCESS) return 0;
    const uint32_t keys[2] = {0u, 1u};
    const double values[2] = {v, 1.25};
    ASSERT_STATUS(mct_tally_add(t, keys, values, 2), MCT_STATUS_SUCCESS);
    memset(out, 0, sizeof *out);
    out->status = mct_tally_end_batch(t, 1);
    ASSERT_STATUS(mct_tally_flags(t, &out->flags), MCT_STATUS_SUCCESS);
    if (d == MCT_DTYPE_I32 || d == MCT_DTYPE_U64)
        ASSERT_STATUS(mct_tally_sums_i64(t, out->isums), MCT_STATUS_SUCCESS);
    else
        ASSERT_STATUS(mct_tally_sums(t, out->sums), MCT_STATUS_SUCCESS);
    mct_tally_destroy(t);
    return 1;
}

static int same_double(double a, double b) {
    if (a != a || b != b) return a != a && b != b;
    return memcmp(&a, &b, sizeof a) == 0;
}

/* The case under test, printed when an assertion ends the test. */
static char current[160];
static int finished;
static void print_current(void) {
    if (!finished) fprintf(stderr, "while testing %s\n", current);
}
static void describe(mct_backend_t b, mct_method_t m, mct_dtype_t d, double v) {
    snprintf(current, sizeof current, "%s %s %s, value %a", mct_backend_name(b), mct_method_name(m), mct_dtype_name(d), v);
}

/* What an integer tally of type d reports for v alone in a bin, and the exact
 * sum it keeps: rounded to nearest (ties to even) when that fits the type (and,
 * for the host's int64 sums, int64); else dropped, with NONFINITE for NaN and
 * Inf and OVERFLOW for a finite value. */
static mct_status_t int_expected(mct_dtype_t d, double v, int64_t* kept) {
    *kept = 0;
    if (!isfinite(v)) return MCT_STATUS_NONFINITE_VALUE;
    const double r = nearbyint(v);
    if (d == MCT_DTYPE_I32 && (r < -0x1p31 || r >= 0x1p31)) return MCT_STATUS_OVERFLOW;
    if (d == MCT_DTYPE_U64 && (r < 0.0 || r >= 0x1p64)) return MCT_STATUS_OVERFLOW;
    if (r >= 0x1p63) return MCT_STATUS_OVERFLOW; /* fits u64, not the int64 running sum */
    *kept = (int64_t)r;
    return MCT_STATUS_SUCCESS;
}

/* What fixed must report for v (in the tally's type): NONFINITE, OVERFLOW or success. */
static mct_status_t fixed_expected_status(double v) {
    if (!isfinite(v)) return MCT_STATUS_NONFINITE_VALUE;
    if (!(fabs(ldexp(v, FRAC_BITS)) < 0x1p63)) return MCT_STATUS_OVERFLOW;
    return MCT_STATUS_SUCCESS;
}

static void check_defined(mct_method_t m, mct_dtype_t d, double v, const outcome_t* o) {
    const double entry = d == MCT_DTYPE_F32 ? (double)(float)v : v; /* an f32 tally takes f32 values */
    if (d == MCT_DTYPE_I32 || d == MCT_DTYPE_U64) {
        int64_t kept = 0;
        ASSERT_STATUS(o->status, int_expected(d, v, &kept));
        ASSERT_EQ_I64(o->isums[0], kept);
        ASSERT_EQ_I64(o->isums[1], 1); /* 1.25 rounds to 1 */
    } else if (m == MCT_METHOD_FIXED) {
        const mct_status_t want = fixed_expected_status(entry);
        ASSERT_STATUS(o->status, want);
        const double kept = want == MCT_STATUS_SUCCESS ? 0.0 + ldexp(nearbyint(ldexp(entry, FRAC_BITS)), -FRAC_BITS) : 0.0;
        ASSERT_TRUE(same_double(o->sums[0], kept));
        ASSERT_TRUE(same_double(o->sums[1], 1.25));
    } else {
        /* Float methods add IEEE arithmetic's answer: one value alone in its bin is 0 + the value (so -0 is
         * +0); the Kahan pair's sum - comp turns an infinity into NaN, since comp = inf - inf. */
        const int kahan = m == MCT_METHOD_KAHAN || m == MCT_METHOD_KAHAN_NAIVE;
        const double want = kahan && isinf(entry) ? NAN : 0.0 + entry;
        ASSERT_TRUE(same_double(o->sums[0], want));
        ASSERT_TRUE(same_double(o->sums[1], 1.25));
        ASSERT_STATUS(o->status, isfinite(entry) ? MCT_STATUS_SUCCESS : MCT_STATUS_NONFINITE_VALUE);
    }
}

/* N copies of v into bin 0 of an integer tally: the status and exact sum
 * must be the same on every backend and method that serves the type. */
#define SUM_N 4096
static int run_sums(const mct_backend_t* backends, size_t nbackends) {
    static uint32_t keys[SUM_N];
    static double values[SUM_N];
    struct {
        mct_dtype_t d;
        double v;
        int n;
        mct_status_t want;
        int64_t sum;
    } const cases[] = {
        {MCT_DTYPE_I32, 1e6, 2147, MCT_STATUS_SUCCESS, INT64_C(2147000000)},   /* inside 2^31 */
        {MCT_DTYPE_I32, 1e6, 2148, MCT_STATUS_OVERFLOW, 0},                      /* 2.148e9 > 2^31 - 1 */
        {MCT_DTYPE_I32, -1e6, 2147, MCT_STATUS_SUCCESS, INT64_C(-2147000000)}, /* inside -2^31 */
        {MCT_DTYPE_I32, -1e6, 2148, MCT_STATUS_OVERFLOW, 0},                     /* -2.148e9 < -2^31 */
        {MCT_DTYPE_U64, 0x1p50, 4096, MCT_STATUS_SUCCESS, INT64_C(1) << 62},    /* 2^62 */
        {MCT_DTYPE_U64, 0x1p52, 4096, MCT_STATUS_OVERFLOW, 0},                   /* 2^64: the u64 add carries */
        {MCT_DTYPE_U64, 0x1p51, 4096, MCT_STATUS_OVERFLOW, 0},                   /* 2^63: fits u64, not the int64 sum */
    };
    int ran = 0;
    for (size_t c = 0; c < sizeof cases / sizeof *cases; ++c) {
        const mct_status_t want = cases[c].want;
        const int64_t want_sum = cases[c].sum;
        for (int i = 0; i < cases[c].n; ++i) keys[i] = 0u, values[i] = cases[c].v;
        for (int m = 0; m < MCT_METHOD_COUNT; ++m)
            for (size_t b = 0; b < nbackends; ++b) {
                if (mct_method_supports((mct_method_t)m, cases[c].d, backends[b])) continue;
                mct_tally_desc_t desc;
                mct_tally_desc_init(&desc);
                desc.backend = backends[b], desc.method = (mct_method_t)m, desc.dtype = cases[c].d, desc.bins = 2;
                mct_tally_t t = NULL;
                if (mct_tally_create(&t, &desc) != MCT_STATUS_SUCCESS) continue;
                describe(backends[b], (mct_method_t)m, cases[c].d, cases[c].v);
                ASSERT_STATUS(mct_tally_add(t, keys, values, cases[c].n), MCT_STATUS_SUCCESS);
                ASSERT_STATUS(mct_tally_end_batch(t, 1), want);
                int64_t sums[2] = {0, 0};
                ASSERT_STATUS(mct_tally_sums_i64(t, sums), MCT_STATUS_SUCCESS);
                if (want == MCT_STATUS_SUCCESS) ASSERT_EQ_I64(sums[0], want_sum);
                if (cases[c].d == MCT_DTYPE_U64 && want != MCT_STATUS_SUCCESS) ASSERT_EQ_I64(sums[0], 0);
                unsigned flags = 0;
                ASSERT_STATUS(mct_tally_flags(t, &flags), MCT_STATUS_SUCCESS);
                ASSERT_EQ_I64((int64_t)(flags & MCT_TALLY_FLAG_OVERFLOW), want == MCT_STATUS_SUCCESS ? 0 : 1);
                mct_tally_destroy(t);
                ++ran;
            }
    }
    return ran;
}

int main(void) {
    const double limit = 0x1p63 / 0x1p32; /* fixed's first value past the int64 range, at FRAC_BITS */
    const double values[] = {
        1e300,           -1e300,           DBL_MIN / 4.0,   -DBL_MIN / 4.0, 4.9406564584124654e-324,
        NAN,             -NAN,             INFINITY,        -INFINITY,      limit,
        nextafter(limit, 0.0),            -limit,          nextafter(-limit, 0.0),  -nextafter(limit, INFINITY),
        2147483647.5,    2147483648.0,     -2147483648.5,   0x1p63,         nextafter(0x1p63, 0.0),
        0x1p64,          3.5e38,           (double)FLT_MAX, 1e-46,          2.5,
        -0.0,            3e9,              -1.0,            -0.5,           -0.75,
        -2147483649.0,   2147483647.0,     0x1.8p63,        nextafter(0x1p64, 0.0),
    };
    const size_t nvalues = sizeof values / sizeof *values;
    const mct_backend_t backends[] = {MCT_BACKEND_CPU, MCT_BACKEND_EMULATED, MCT_BACKEND_CUDA};
    int cases = 0, compared = 0;
    atexit(print_current);
    for (int m = 0; m < MCT_METHOD_COUNT; ++m)
        for (int d = 0; d < MCT_DTYPE_COUNT; ++d)
            for (size_t i = 0; i < nvalues; ++i) {
                outcome_t first;
                int have_first = 0;
                for (size_t b = 0; b < sizeof backends / sizeof *backends; ++b) {
                    if (mct_method_supports((mct_method_t)m, (mct_dtype_t)d, backends[b])) continue;
                    outcome_t o;
                    if (!run_one(backends[b], (mct_method_t)m, (mct_dtype_t)d, values[i], &o)) continue;
                    ++cases;
                    describe(backends[b], (mct_method_t)m, (mct_dtype_t)d, values[i]);
                    check_defined((mct_method_t)m, (mct_dtype_t)d, values[i], &o);
                    if (!have_first) {
                        first = o;
                        have_first = 1;
                        continue;
                    }
                    ++compared;
                    ASSERT_STATUS(o.status, first.status);
                    ASSERT_EQ_I64((int64_t)o.flags, (int64_t)first.flags);
                    for (int k = 0; k < 2; ++k) {
                        ASSERT_TRUE(same_double(o.sums[k], first.sums[k]));
                        ASSERT_EQ_I64(o.isums[k], first.isums[k]);
                    }
                }
            }
    printf("%d edge-value cases, %d compared across backends\n", cases, compared);
    ASSERT_TRUE(cases > 500 && compared > 200);
    const int sum_cases = run_sums(backends, sizeof backends / sizeof *backends);
    printf("%d integer sum cases\n", sum_cases);
    ASSERT_TRUE(sum_cases >= 2 * 2 * 4);
    finished = 1;
    return 0;
}
