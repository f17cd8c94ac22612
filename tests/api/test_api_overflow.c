/* SPDX-License-Identifier: BSD-3-Clause */
/** @file test_api_overflow.c  The host side's counters and sizes never wrap:
 * the history and batch counts (mct_tally_end_batch refuses a batch that would
 * take them past INT64_MAX, folding nothing), the exact int64 running sums of
 * integer tallies (a u64 batch value or a sum past INT64_MAX is OVERFLOW and
 * left out), replicated's reduction of i32 replicas, and the scan's size
 * queries for n past the address space (TOO_LARGE, not a wrapped size). */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "mctally/mct.h"
#include "test_assert.h"

static mct_tally_t make(mct_backend_t b, mct_method_t m, mct_dtype_t d) {
    mct_tally_desc_t desc;
    mct_tally_desc_init(&desc);
    desc.backend = b, desc.method = m, desc.dtype = d, desc.bins = 2;
    mct_tally_t t = NULL;
    ASSERT_STATUS(mct_tally_create(&t, &desc), MCT_STATUS_SUCCESS);
    return t;
}

/* INT64_MAX histories in one batch is fine; one more history is not, and the
 * refused batch is neither counted nor lost: it closes with a later call. */
static void test_history_counter(void) {
    mct_tally_t t = make(MCT_BACKEND_CPU, MCT_METHOD_ATOMIC, MCT_DTYPE_F64);
    const uint32_t keys[1] = {0u};
    const double values[1] = {2.0};
    ASSERT_STATUS(mct_tally_add(t, keys, values, 1), MCT_STATUS_SUCCESS);
    ASSERT_STATUS(mct_tally_end_batch(t, INT64_MAX), MCT_STATUS_SUCCESS);
    ASSERT_STATUS(mct_tally_add(t, keys, values, 1), MCT_STATUS_SUCCESS);
    ASSERT_STATUS(mct_tally_end_batch(t, 1), MCT_STATUS_OVERFLOW);
    int64_t batches = 0, histories = 0;
    ASSERT_STATUS(mct_tally_counts(t, &batches, &histories), MCT_STATUS_SUCCESS);
    ASSERT_EQ_I64(batches, 1);
    ASSERT_EQ_I64(histories, INT64_MAX);
    double sums[2];
    ASSERT_STATUS(mct_tally_sums(t, sums), MCT_STATUS_SUCCESS);
    ASSERT_TRUE(sums[0] == 2.0); /* the refused batch is not folded */
    ASSERT_STATUS(mct_tally_end_batch(t, 0), MCT_STATUS_INVALID_VALUE);
    mct_tally_destroy(t);
}

/* u64 bins reach the int64 running sums exactly or not at all. */
static void test_u64_running_sum(mct_backend_t b) {
    mct_tally_t t = make(b, MCT_METHOD_ATOMIC, MCT_DTYPE_U64);
    const uint32_t keys[2] = {0u, 1u};
    const double values[2] = {0x1p62, 1.0};
    int64_t sums[2];
    ASSERT_STATUS(mct_tally_add(t, keys, values, 2), MCT_STATUS_SUCCESS);
    ASSERT_STATUS(mct_tally_end_batch(t, 1), MCT_STATUS_SUCCESS);
    ASSERT_STATUS(mct_tally_add(t, keys, values, 2), MCT_STATUS_SUCCESS);
    ASSERT_STATUS(mct_tally_end_batch(t, 1), MCT_STATUS_OVERFLOW); /* 2^62 + 2^62 = 2^63 > INT64_MAX */
    ASSERT_STATUS(mct_tally_sums_i64(t, sums), MCT_STATUS_SUCCESS);
    ASSERT_EQ_I64(sums[0], INT64_C(1) << 62); /* the overflowing batch is left out of bin 0 */
    ASSERT_EQ_I64(sums[1], 2);                /* and kept in bin 1 */
    /* One batch whose u64 bin is past INT64_MAX (it fits the bin, not the sum). */
    const double big[2] = {0x1.8p63, 1.0};
    ASSERT_STATUS(mct_tally_add(t, keys, big, 2), MCT_STATUS_SUCCESS);
    ASSERT_STATUS(mct_tally_end_batch(t, 1), MCT_STATUS_OVERFLOW);
    ASSERT_STATUS(mct_tally_sums_i64(t, sums), MCT_STATUS_SUCCESS);
    ASSERT_EQ_I64(sums[0], INT64_C(1) << 62);
    ASSERT_EQ_I64(sums[1], 3);
    unsigned flags = 0;
    ASSERT_STATUS(mct_tally_flags(t, &flags), MCT_STATUS_SUCCESS);
    ASSERT_TRUE((flags & MCT_TALLY_FLAG_OVERFLOW) != 0);
    mct_tally_destroy(t);
}

/* replicated i32: each replica holds less than 2^31, their sum does not; the
 * reduction (on the CPU: one replica per OpenMP thread, or one when there is
 * one thread; under the emulation: shared replicas) must say so. */
static void test_replicated_i32(mct_backend_t b) {
    mct_tally_t t = make(b, MCT_METHOD_REPLICATED, MCT_DTYPE_I32);
    ASSERT_STATUS(mct_tally_reserve_replicas(t, 4), MCT_STATUS_SUCCESS);
    enum { N = 64 };
    uint32_t keys[N];
    double values[N];
    for (int i = 0; i < N; ++i) keys[i] = 0u, values[i] = 1e8; /* 6.4e9 in all */
    ASSERT_STATUS(mct_tally_add(t, keys, values, N), MCT_STATUS_SUCCESS);
    ASSERT_STATUS(mct_tally_end_batch(t, 1), MCT_STATUS_OVERFLOW);
    for (int i = 0; i < N; ++i) values[i] = 3e7; /* 1.92e9: fits */
    ASSERT_STATUS(mct_tally_add(t, keys, values, N), MCT_STATUS_SUCCESS);
    ASSERT_STATUS(mct_tally_end_batch(t, 1), MCT_STATUS_SUCCESS);
    mct_tally_destroy(t);
}

/* Size queries for n past the address space are refused, not wrapped. */
static void test_scan_sizes(mct_backend_t b) {
    for (int type = 0; type < MCT_SCAN_TYPE_COUNT; ++type) {
        size_t bytes = 0;
        ASSERT_STATUS(mct_scan_inclusive(b, NULL, &bytes, NULL, NULL, INT64_MAX, (mct_scan_type_t)type, MCT_SCAN_SUM,
                                         MCT_SCAN_DECOUPLED_LOOKBACK, NULL),
                      MCT_STATUS_TOO_LARGE);
        ASSERT_STATUS(mct_scan_exclusive(b, NULL, &bytes, NULL, NULL, NULL, INT64_MAX / 2, (mct_scan_type_t)type,
                                         MCT_SCAN_SUM, MCT_SCAN_CHAINED, NULL),
                      MCT_STATUS_TOO_LARGE);
        /* A large n that exists: a size query answers with less than the input's own bytes. */
        const int64_t n = INT64_C(1) << 40;
        ASSERT_STATUS(mct_scan_inclusive(b, NULL, &bytes, NULL, NULL, n, (mct_scan_type_t)type, MCT_SCAN_SUM,
                                         MCT_SCAN_DECOUPLED_LOOKBACK, NULL),
                      MCT_STATUS_SUCCESS);
        ASSERT_TRUE(bytes > 0 && bytes < (size_t)n * mct_scan_type_size((mct_scan_type_t)type));
    }
}

int main(void) {
    const mct_backend_t backends[] = {MCT_BACKEND_CPU, MCT_BACKEND_EMULATED};
    test_history_counter();
    for (size_t b = 0; b < sizeof backends / sizeof *backends; ++b) {
        test_u64_running_sum(backends[b]);
        test_replicated_i32(backends[b]);
        test_scan_sizes(backends[b]);
    }
    printf("host-side overflow checks passed\n");
    return 0;
}
