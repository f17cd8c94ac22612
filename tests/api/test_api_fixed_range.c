/* SPDX-License-Identifier: BSD-3-Clause */
/** @file test_api_fixed_range.c  fixed at any magnitude: fraction bits from
 * MCT_FIXED_FRAC_BITS_MIN to _MAX, so values far below 1 (1e-17, as energies
 * in joules are) and sums far past 2^62 keep ~61 bits instead of rounding to a
 * few units or overflowing. On every backend here (cpu, emulated, and cuda
 * where a GPU answers):
 * - values k 2^-80 (|k| < 2^20) at 100 fraction bits, k 2^-1000 at the most
 *   bits, k 2^70 at -40 and k 2^962 at -960 sum exactly (each value is a whole
 *   number of units, and the sums stay below 2^62 units), and every backend
 *   holds the same bits;
 * - a declared fixed_bound gives 62 - e bits for bound = m 2^e (0.5 <= m < 1),
 *   clamped to the range: 1e-18 -> 121, 2^62 -> -1, DBL_MAX -> (-962) the least, the
 *   smallest subnormal -> MCT_FIXED_FRAC_BITS_MAX; a sum at the bound is exact;
 * - bits just outside the range, and a bound that is negative, infinite or
 *   NaN, are refused with INVALID_VALUE and create nothing. */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mctally/mct.h"
#include "test_assert.h"

#define N 4096
#define BINS 16

static mct_tally_t make(mct_backend_t b, int bits, double bound) {
    mct_tally_desc_t d;
    mct_tally_desc_init(&d);
    d.backend = b, d.method = MCT_METHOD_FIXED, d.bins = BINS;
    d.fixed_frac_bits = bits;
    d.fixed_bound = bound;
    mct_tally_t t = NULL;
    return mct_tally_create(&t, &d) == MCT_STATUS_SUCCESS ? t : NULL;
}

/* N values k 2^unit_exp into BINS bins; sums[] as the tally read them back. */
static int run(mct_backend_t b, int bits, int unit_exp, double* sums, double* want) {
    mct_tally_t t = make(b, bits, 0.0);
    if (!t) return 0;
    static uint32_t keys[N];
    static double values[N];
    uint64_t s = 0x2545F4914F6CDD1Dull;
    int64_t units[BINS] = {0};
    for (int i = 0; i < N; ++i) {
        s ^= s << 13, s ^= s >> 7, s ^= s << 17;
        keys[i] = (uint32_t)(s % BINS);
        const int64_t k = (int64_t)(s >> 44) - (INT64_C(1) << 19); /* |k| < 2^20, either sign */
        values[i] = ldexp((double)k, unit_exp);
        units[keys[i]] += k;
    }
    ASSERT_STATUS(mct_tally_add(t, keys, values, N), MCT_STATUS_SUCCESS);
    ASSERT_STATUS(mct_tally_end_batch(t, 1), MCT_STATUS_SUCCESS);
    ASSERT_STATUS(mct_tally_sums(t, sums), MCT_STATUS_SUCCESS);
    mct_tally_destroy(t);
    for (int k = 0; k < BINS; ++k) want[k] = ldexp((double)units[k], unit_exp); /* |units| < 2^32: exact */
    return 1;
}

int main(void) {
    const mct_backend_t backends[] = {MCT_BACKEND_CPU, MCT_BACKEND_EMULATED, MCT_BACKEND_CUDA};
    const struct {
        int bits, unit_exp;
    } cases[] = {{100, -80}, {MCT_FIXED_FRAC_BITS_MAX, -1000}, {-40, 70}, {-960, 962}};
    int ran = 0;
    for (size_t c = 0; c < sizeof cases / sizeof *cases; ++c) {
        double first[BINS];
        int have_first = 0;
        for (size_t b = 0; b < 3; ++b) {
            double sums[BINS], want[BINS];
            if (!run(backends[b], cases[c].bits, cases[c].unit_exp, sums, want)) {
                ASSERT_TRUE(backends[b] == MCT_BACKEND_CUDA); /* no GPU here */
                continue;
            }
            ++ran;
            for (int k = 0; k < BINS; ++k) ASSERT_EQ_F64(sums[k], want[k]);
            if (have_first) ASSERT_TRUE(memcmp(first, sums, sizeof sums) == 0);
            memcpy(first, sums, sizeof sums), have_first = 1;
        }
    }

    /* Bits from a declared bound, and a sum at the bound exact. */
    const struct {
        double bound;
        int bits;
    } bounds[] = {{1e-18, 121}, {0x1p62, -1}, {DBL_MAX, MCT_FIXED_FRAC_BITS_MIN}, {4.9406564584124654e-324, MCT_FIXED_FRAC_BITS_MAX},
                  {1.0, 61}, {0.75, 62}};
    for (size_t i = 0; i < sizeof bounds / sizeof *bounds; ++i) {
        mct_tally_t t = make(MCT_BACKEND_CPU, 32, bounds[i].bound);
        ASSERT_TRUE(t != NULL);
        mct_tally_desc_t got;
        ASSERT_STATUS(mct_tally_get_desc(t, &got), MCT_STATUS_SUCCESS);
        ASSERT_EQ_I64(got.fixed_frac_bits, bounds[i].bits);
        if (bounds[i].bound < DBL_MAX && bounds[i].bound > DBL_MIN) {
            const uint32_t keys[2] = {3u, 3u};
            const double values[2] = {bounds[i].bound / 2, bounds[i].bound / 2};
            ASSERT_STATUS(mct_tally_add(t, keys, values, 2), MCT_STATUS_SUCCESS);
            ASSERT_STATUS(mct_tally_end_batch(t, 1), MCT_STATUS_SUCCESS);
            double sums[BINS];
            ASSERT_STATUS(mct_tally_sums(t, sums), MCT_STATUS_SUCCESS);
            ASSERT_EQ_F64(sums[3], bounds[i].bound);
        }
        mct_tally_destroy(t);
    }

    /* Out of range: refused, nothing made. */
    for (int bits = MCT_FIXED_FRAC_BITS_MIN - 1; bits <= MCT_FIXED_FRAC_BITS_MAX + 1;
         bits += MCT_FIXED_FRAC_BITS_MAX - MCT_FIXED_FRAC_BITS_MIN + 2) {
        mct_tally_desc_t d;
        mct_tally_desc_init(&d);
        d.backend = MCT_BACKEND_CPU, d.method = MCT_METHOD_FIXED, d.bins = BINS, d.fixed_frac_bits = bits;
        mct_tally_t t = NULL;
        ASSERT_STATUS(mct_tally_create(&t, &d), MCT_STATUS_INVALID_VALUE);
        ASSERT_TRUE(t == NULL);
    }
    const double bad[] = {-1.0, INFINITY, NAN};
    for (size_t i = 0; i < 3; ++i) ASSERT_TRUE(make(MCT_BACKEND_CPU, 32, bad[i]) == NULL);
    printf("fixed at any magnitude: %d backend runs exact and equal, bounds resolved, out-of-range refused\n", ran);
    return 0;
}
