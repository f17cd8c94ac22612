/* SPDX-License-Identifier: BSD-3-Clause */
/** @file test_api_state.c  mct_tally_save_state / mct_tally_load_state: a
 * tally saved after some batches and loaded into a fresh one continues to the
 * same bits as the uninterrupted tally (u64, fixed, f64 with the rounding-loss
 * estimate); bad buffers and other shapes are refused and leave the tally as
 * it was. */
#include <stdlib.h>
#include <string.h>

#include "mctally/mct.h"
#include "test_assert.h"

static mct_tally_t make(int64_t bins, mct_dtype_t dtype, mct_method_t method, int loss) {
    mct_tally_desc_t d;
    mct_tally_desc_init(&d);
    d.bins = bins, d.dtype = dtype, d.method = method, d.backend = MCT_BACKEND_CPU;
    mct_tally_t t = NULL;
    ASSERT_STATUS(mct_tally_create(&t, &d), MCT_STATUS_SUCCESS);
    if (loss) ASSERT_STATUS(mct_tally_enable_rounding_loss(t, 0), MCT_STATUS_SUCCESS);
    return t;
}

/* Batch b of a deterministic stream: 64 adds into 5 bins. */
static void add_batch(mct_tally_t t, int b) {
    uint32_t keys[64];
    double values[64];
    for (int i = 0; i < 64; ++i) {
        keys[i] = (uint32_t)((i * 7 + b * 3) % 5);
        values[i] = (double)((i * 13 + b * 29) % 17) + 0.25 * (i % 3);
    }
    ASSERT_STATUS(mct_tally_add(t, keys, values, 64), MCT_STATUS_SUCCESS);
    ASSERT_STATUS(mct_tally_end_batch(t, 10 + b), MCT_STATUS_SUCCESS);
}

static void *save(mct_tally_t t, size_t* bytes) {
    ASSERT_STATUS(mct_tally_save_state(t, NULL, bytes), MCT_STATUS_SUCCESS);
    void* buf = malloc(*bytes);
    size_t room = *bytes - 1;
    ASSERT_STATUS(mct_tally_save_state(t, buf, &room), MCT_STATUS_TOO_LARGE);
    ASSERT_EQ_U64(room, *bytes);
    ASSERT_STATUS(mct_tally_save_state(t, buf, &room), MCT_STATUS_SUCCESS);
    return buf;
}

static void round_trip(mct_dtype_t dtype, mct_method_t method, int loss) {
    mct_tally_t whole = make(5, dtype, method, loss), first = make(5, dtype, method, loss);
    for (int b = 0; b < 3; ++b) add_batch(whole, b), add_batch(first, b);
    size_t bytes = 0;
    void* buf = save(first, &bytes);
    mct_tally_destroy(first);
    mct_tally_t resumed = make(5, dtype, method, loss);
    ASSERT_STATUS(mct_tally_load_state(resumed, buf, bytes), MCT_STATUS_SUCCESS);
    for (int b = 3; b < 7; ++b) add_batch(whole, b), add_batch(resumed, b);
    double m1[5], r1[5], m2[5], r2[5], s1[5], s2[5];
    ASSERT_STATUS(mct_tally_results(whole, m1, r1), MCT_STATUS_SUCCESS);
    ASSERT_STATUS(mct_tally_results(resumed, m2, r2), MCT_STATUS_SUCCESS);
    mct_tally_sums(whole, s1);
    mct_tally_sums(resumed, s2);
    ASSERT_TRUE(memcmp(m1, m2, sizeof m1) == 0 && memcmp(r1, r2, sizeof r1) == 0 && memcmp(s1, s2, sizeof s1) == 0);
    int64_t b1, h1, b2, h2;
    mct_tally_counts(whole, &b1, &h1);
    mct_tally_counts(resumed, &b2, &h2);
    ASSERT_EQ_I64(b1, b2);
    ASSERT_EQ_I64(h1, h2);
    if (loss) {
        mct_rounding_loss_t l1, l2;
        ASSERT_STATUS(mct_tally_rounding_loss(whole, &l1), MCT_STATUS_SUCCESS);
        ASSERT_STATUS(mct_tally_rounding_loss(resumed, &l2), MCT_STATUS_SUCCESS);
        ASSERT_EQ_F64(l1.total_loss, l2.total_loss);
        ASSERT_EQ_F64(l1.sample_fraction, l2.sample_fraction);
    }
    free(buf);
    mct_tally_destroy(whole);
    mct_tally_destroy(resumed);
}

static void bad_input(void) {
    mct_tally_t t = make(5, MCT_DTYPE_U64, MCT_METHOD_ATOMIC, 0);
    for (int b = 0; b < 2; ++b) add_batch(t, b);
    size_t bytes = 0;
    unsigned char* buf = save(t, &bytes);
    ASSERT_STATUS(mct_tally_save_state(NULL, buf, &bytes), MCT_STATUS_NULL_POINTER);
    ASSERT_STATUS(mct_tally_save_state(t, buf, NULL), MCT_STATUS_NULL_POINTER);
    mct_tally_t fresh = make(5, MCT_DTYPE_U64, MCT_METHOD_ATOMIC, 0);
    ASSERT_STATUS(mct_tally_load_state(fresh, NULL, bytes), MCT_STATUS_NULL_POINTER);
    ASSERT_STATUS(mct_tally_load_state(NULL, buf, bytes), MCT_STATUS_NULL_POINTER);
    /* Truncated, extended, any flipped byte, another shape: refused. */
    ASSERT_STATUS(mct_tally_load_state(fresh, buf, bytes - 1), MCT_STATUS_INVALID_VALUE);
    ASSERT_STATUS(mct_tally_load_state(fresh, buf, 3), MCT_STATUS_INVALID_VALUE);
    unsigned char* longer = calloc(bytes + 8, 1);
    memcpy(longer, buf, bytes);
    ASSERT_STATUS(mct_tally_load_state(fresh, longer, bytes + 8), MCT_STATUS_INVALID_VALUE);
    free(longer);
    for (size_t i = 0; i < bytes; i += 7) {
        buf[i] ^= 0x10;
        ASSERT_STATUS(mct_tally_load_state(fresh, buf, bytes), MCT_STATUS_INVALID_VALUE);
        buf[i] ^= 0x10;
    }
    int64_t batches = -1;
    mct_tally_counts(fresh, &batches, NULL);
    ASSERT_EQ_I64(batches, 0);
    mct_tally_t other_bins = make(6, MCT_DTYPE_U64, MCT_METHOD_ATOMIC, 0), other_type = make(5, MCT_DTYPE_I32, MCT_METHOD_ATOMIC, 0),
                other_method = make(5, MCT_DTYPE_U64, MCT_METHOD_REPLICATED, 0), with_loss = make(5, MCT_DTYPE_F64, MCT_METHOD_ATOMIC, 1);
    ASSERT_STATUS(mct_tally_load_state(other_bins, buf, bytes), MCT_STATUS_INVALID_VALUE);
    ASSERT_STATUS(mct_tally_load_state(other_type, buf, bytes), MCT_STATUS_INVALID_VALUE);
    ASSERT_STATUS(mct_tally_load_state(other_method, buf, bytes), MCT_STATUS_INVALID_VALUE);
    ASSERT_STATUS(mct_tally_load_state(with_loss, buf, bytes), MCT_STATUS_INVALID_VALUE);
    ASSERT_STATUS(mct_tally_load_state(fresh, buf, bytes), MCT_STATUS_SUCCESS);
    mct_tally_counts(fresh, &batches, NULL);
    ASSERT_EQ_I64(batches, 2);
    free(buf);
    mct_tally_destroy(t), mct_tally_destroy(fresh), mct_tally_destroy(other_bins), mct_tally_destroy(other_type);
    mct_tally_destroy(other_method), mct_tally_destroy(with_loss);
}

int main(void) {
    round_trip(MCT_DTYPE_U64, MCT_METHOD_ATOMIC, 0);
    round_trip(MCT_DTYPE_I32, MCT_METHOD_ATOMIC, 0);
    round_trip(MCT_DTYPE_F64, MCT_METHOD_FIXED, 0);
    round_trip(MCT_DTYPE_F64, MCT_METHOD_ATOMIC, 1);
    bad_input();
    return 0;
}
