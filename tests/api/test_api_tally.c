/* SPDX-License-Identifier: BSD-3-Clause */
/** @file test_api_tally.c  The tally handle on the CPU backend: argument checks,
 * batch statistics against a hand computation, replicas, integer sums, the
 * determinism a tally reports for how it was used, and the threaded fold of
 * large tallies against a serial one. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <unistd.h>
#include <stdlib.h>
#include <string.h>

#include "mctally/mct.h"
#include "test_assert.h"

static mct_tally_t make(int64_t bins, mct_dtype_t dtype, mct_method_t method) {
    mct_tally_desc_t d;
    mct_tally_desc_init(&d);
    d.bins = bins, d.dtype = dtype, d.method = method, d.backend = MCT_BACKEND_CPU;
    mct_tally_t t = NULL;
    ASSERT_STATUS(mct_tally_create(&t, &d), MCT_STATUS_SUCCESS);
    return t;
}

static void test_bad_arguments(void) {
    mct_tally_desc_t d;
    mct_tally_t t = (mct_tally_t)1;
    mct_tally_desc_init(&d);
    d.backend = MCT_BACKEND_CPU;
    ASSERT_STATUS(mct_tally_create(NULL, &d), MCT_STATUS_NULL_POINTER);
    ASSERT_STATUS(mct_tally_create(&t, NULL), MCT_STATUS_NULL_POINTER);
    d.bins = 0;
    ASSERT_STATUS(mct_tally_create(&t, &d), MCT_STATUS_INVALID_VALUE);
    ASSERT_TRUE(t == NULL);
    d.bins = (INT64_C(1) << 31) + 1;
    ASSERT_STATUS(mct_tally_create(&t, &d), MCT_STATUS_INVALID_VALUE);
    d.bins = 1;
    d.method = (mct_method_t)99;
    ASSERT_STATUS(mct_tally_create(&t, &d), MCT_STATUS_UNKNOWN_METHOD);
    d.method = MCT_METHOD_SHARED;
    ASSERT_STATUS(mct_tally_create(&t, &d), MCT_STATUS_NOT_SUPPORTED);
    d.method = MCT_METHOD_ATOMIC;
    d.dtype = (mct_dtype_t)7;
    ASSERT_STATUS(mct_tally_create(&t, &d), MCT_STATUS_UNKNOWN_DTYPE);
    /* A tally larger than the machine's memory is refused up front. */
    d.dtype = MCT_DTYPE_F64;
    d.bins = INT64_C(1) << 31;
    /* 2^31 f64 bins need 2^31 * 40 bytes (bins, statistics, staging), over the
     * memory of the machines this runs on; where a machine has that much free,
     * the check is skipped rather than allocating it. */
    long pages = sysconf(_SC_AVPHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    if ((double)pages * (double)page < 40.0 * (double)d.bins) {
        ASSERT_STATUS(mct_tally_create(&t, &d), MCT_STATUS_TOO_LARGE);
        ASSERT_TRUE(t == NULL);
    }
    mct_tally_destroy(NULL);
}

static void test_batch_statistics(void) {
    mct_tally_t t = make(2, MCT_DTYPE_F64, MCT_METHOD_ATOMIC);
    double mean[2], rel[2];
    ASSERT_STATUS(mct_tally_results(t, mean, rel), MCT_STATUS_INVALID_STATE);
    /* No batch yet: no sums either (not sums of zero). */
    double early[2] = {-1.0, -1.0};
    ASSERT_STATUS(mct_tally_sums(t, early), MCT_STATUS_INVALID_STATE);
    ASSERT_EQ_F64(early[0], -1.0);
    ASSERT_STATUS(mct_tally_end_batch(t, 0), MCT_STATUS_INVALID_VALUE);
    /* Batch sums of bin 0 over 100 histories each: 10, 12, 14, 16 -> batch
     * means 0.10 .. 0.16, mean 0.13, SE = sqrt(sum (x - 0.13)^2 / (4 * 3)). */
    const double sums[4] = {10, 12, 14, 16};
    for (int b = 0; b < 4; ++b) {
        mct_tally_view_t v;
        ASSERT_STATUS(mct_tally_view(t, &v), MCT_STATUS_SUCCESS);
        ((double*)v.bins)[0] = sums[b];
        ASSERT_STATUS(mct_tally_end_batch(t, 100), MCT_STATUS_SUCCESS);
        ASSERT_EQ_F64(((double*)v.bins)[0], 0.0); /* zeroed for the next batch */
    }
    ASSERT_STATUS(mct_tally_results(t, mean, rel), MCT_STATUS_SUCCESS);
    const double se = sqrt((0.03 * 0.03 + 0.01 * 0.01 + 0.01 * 0.01 + 0.03 * 0.03) / 12.0);
    ASSERT_NEAR_F64(mean[0], 0.13, 1e-15);
    ASSERT_NEAR_F64(rel[0], se / 0.13, 1e-12);
    ASSERT_EQ_F64(mean[1], 0.0);
    ASSERT_EQ_F64(rel[1], 0.0);
    double total[2];
    ASSERT_STATUS(mct_tally_sums(t, total), MCT_STATUS_SUCCESS);
    ASSERT_EQ_F64(total[0], 52.0);
    int64_t exact[2];
    ASSERT_STATUS(mct_tally_sums_i64(t, exact), MCT_STATUS_NOT_SUPPORTED);
    int64_t batches, histories;
    mct_tally_counts(t, &batches, &histories);
    ASSERT_EQ_I64(batches, 4);
    ASSERT_EQ_I64(histories, 400);
    mct_tally_destroy(t);
}

static void test_single_batch_has_no_error(void) {
    mct_tally_t t = make(1, MCT_DTYPE_I32, MCT_METHOD_ATOMIC);
    mct_tally_view_t v;
    mct_tally_view(t, &v);
    ((int32_t*)v.bins)[0] = 7;
    ASSERT_STATUS(mct_tally_end_batch(t, 10), MCT_STATUS_SUCCESS);
    double mean, rel;
    mct_tally_results(t, &mean, &rel);
    ASSERT_EQ_F64(mean, 0.7);
    ASSERT_TRUE(isnan(rel));
    int64_t exact;
    ASSERT_STATUS(mct_tally_sums_i64(t, &exact), MCT_STATUS_SUCCESS);
    ASSERT_EQ_I64(exact, 7);
    mct_tally_destroy(t);
}

static void test_replicas(void) {
    mct_tally_t atomic = make(1, MCT_DTYPE_U64, MCT_METHOD_ATOMIC);
    ASSERT_STATUS(mct_tally_reserve_replicas(atomic, 4), MCT_STATUS_INVALID_STATE);
    mct_tally_destroy(atomic);

    mct_tally_t t = make(3, MCT_DTYPE_U64, MCT_METHOD_REPLICATED);
    ASSERT_STATUS(mct_tally_reserve_replicas(t, 0), MCT_STATUS_INVALID_VALUE);
    ASSERT_STATUS(mct_tally_reserve_replicas(t, INT64_C(1) << 62), MCT_STATUS_TOO_LARGE);
    ASSERT_STATUS(mct_tally_reserve_replicas(t, 5), MCT_STATUS_SUCCESS);
    mct_tally_view_t v;
    mct_tally_view(t, &v);
    ASSERT_EQ_I64(v.nreplicas, 5);
    uint64_t* rep = v.replicas;
    for (int r = 0; r < 5; ++r)
        for (int k = 0; k < 3; ++k) rep[r * 3 + k] = (uint64_t)(r + 10 * k);
    ((uint64_t*)v.bins)[2] = 1000;
    ASSERT_STATUS(mct_tally_end_batch(t, 1), MCT_STATUS_SUCCESS);
    int64_t sums[3];
    mct_tally_sums_i64(t, sums);
    ASSERT_EQ_I64(sums[0], 0 + 1 + 2 + 3 + 4);
    ASSERT_EQ_I64(sums[1], (0 + 1 + 2 + 3 + 4) + 10 * 5);
    ASSERT_EQ_I64(sums[2], 1000 + (0 + 1 + 2 + 3 + 4) + 20 * 5);
    for (int i = 0; i < 15; ++i) ASSERT_EQ_U64(rep[i], 0); /* replicas zeroed */
    mct_tally_destroy(t);
}

static mct_determinism_t determinism_of(mct_tally_t t) {
    mct_determinism_t det = (mct_determinism_t)-1;
    ASSERT_STATUS(mct_tally_determinism(t, &det), MCT_STATUS_SUCCESS);
    return det;
}

/* replicated promises run_to_run only while each replica has one writer. */
static void test_determinism(void) {
    mct_tally_t t = make(4, MCT_DTYPE_F64, MCT_METHOD_REPLICATED);
    mct_determinism_t det;
    ASSERT_STATUS(mct_tally_determinism(NULL, &det), MCT_STATUS_NULL_POINTER);
    ASSERT_STATUS(mct_tally_determinism(t, NULL), MCT_STATUS_NULL_POINTER);
    ASSERT_STATUS(mct_tally_set_writers(t, 0), MCT_STATUS_INVALID_VALUE);
    ASSERT_STATUS(mct_tally_set_writers(NULL, 1), MCT_STATUS_NULL_POINTER);
    ASSERT_EQ_I64(determinism_of(t), MCT_NOT_GUARANTEED); /* no replicas: adds would be atomic */
    ASSERT_STATUS(mct_tally_reserve_replicas(t, 8), MCT_STATUS_SUCCESS);
    ASSERT_EQ_I64(determinism_of(t), MCT_RUN_TO_RUN); /* 8 replicas reserved for 8 writers */
    ASSERT_STATUS(mct_tally_set_writers(t, 8), MCT_STATUS_SUCCESS);
    ASSERT_EQ_I64(determinism_of(t), MCT_RUN_TO_RUN);
    ASSERT_STATUS(mct_tally_set_writers(t, 9), MCT_STATUS_SUCCESS);
    ASSERT_EQ_I64(determinism_of(t), MCT_NOT_GUARANTEED); /* a replica has two writers */
    int64_t replicas = 0, writers = 0;
    ASSERT_STATUS(mct_tally_replicas(t, &replicas, &writers), MCT_STATUS_SUCCESS);
    ASSERT_EQ_I64(replicas, 8);
    ASSERT_EQ_I64(writers, 9);
    ASSERT_STATUS(mct_tally_set_writers(t, 2), MCT_STATUS_SUCCESS); /* the run already had 9 */
    ASSERT_EQ_I64(determinism_of(t), MCT_NOT_GUARANTEED);
    mct_tally_destroy(t);

    /* Integer replicas stay exact however they are shared. */
    t = make(4, MCT_DTYPE_U64, MCT_METHOD_REPLICATED);
    ASSERT_STATUS(mct_tally_set_writers(t, 100), MCT_STATUS_SUCCESS);
    ASSERT_EQ_I64(determinism_of(t), MCT_BITWISE);
    mct_tally_destroy(t);

    /* The library's own adds record their threads: on the CPU one replica per
     * OpenMP thread, so the replicas stay private. */
    t = make(4, MCT_DTYPE_F64, MCT_METHOD_REPLICATED);
    const uint32_t keys[3] = {0, 1, 3};
    const double values[3] = {1.0, 2.0, 3.0};
    ASSERT_STATUS(mct_tally_add(t, keys, values, 3), MCT_STATUS_SUCCESS);
    ASSERT_STATUS(mct_tally_replicas(t, &replicas, &writers), MCT_STATUS_SUCCESS);
    ASSERT_TRUE(writers >= 1 && replicas >= writers);
    ASSERT_EQ_I64(determinism_of(t), MCT_RUN_TO_RUN);
    mct_tally_destroy(t);

    t = make(4, MCT_DTYPE_F64, MCT_METHOD_FIXED);
    ASSERT_EQ_I64(determinism_of(t), MCT_BITWISE);
    mct_tally_destroy(t);
    t = make(4, MCT_DTYPE_F64, MCT_METHOD_ATOMIC);
    ASSERT_EQ_I64(determinism_of(t), MCT_NOT_GUARANTEED);
    mct_tally_destroy(t);
}

static void test_nonfinite(void) {
    mct_tally_t t = make(1, MCT_DTYPE_F32, MCT_METHOD_ATOMIC);
    mct_tally_view_t v;
    mct_tally_view(t, &v);
    ((float*)v.bins)[0] = NAN;
    ASSERT_STATUS(mct_tally_end_batch(t, 1), MCT_STATUS_NONFINITE_VALUE);
    double mean;
    mct_tally_results(t, &mean, NULL);
    ASSERT_TRUE(isnan(mean));
    mct_tally_destroy(t);
}

/* Tallies of 2^16 bins and more are converted and folded by OpenMP threads:
 * every bin must still come out as a serial fold gives it, bit for bit, for
 * each storage (f64, f32 widened in place, i32 widened in place, u64, kahan
 * pairs, fixed point). The reference below is the fold's own arithmetic. */
static void test_parallel_fold(void) {
    const int64_t bins = 3 * (INT64_C(1) << 16) + 5, hist = 7;
    const struct {
        mct_dtype_t dtype;
        mct_method_t method;
    } cases[] = {{MCT_DTYPE_F64, MCT_METHOD_ATOMIC}, {MCT_DTYPE_F32, MCT_METHOD_ATOMIC},
                 {MCT_DTYPE_I32, MCT_METHOD_ATOMIC}, {MCT_DTYPE_U64, MCT_METHOD_ATOMIC},
                 {MCT_DTYPE_F32, MCT_METHOD_KAHAN},  {MCT_DTYPE_F64, MCT_METHOD_FIXED}};
    uint32_t* keys = malloc((size_t)bins * sizeof *keys);
    double *values = malloc((size_t)bins * sizeof *values), *mean = calloc((size_t)bins, sizeof *mean),
           *m2 = calloc((size_t)bins, sizeof *m2), *got = malloc((size_t)bins * sizeof *got),
           *rel = malloc((size_t)bins * sizeof *rel);
    ASSERT_TRUE(keys && values && mean && m2 && got && rel);
    for (size_t c = 0; c < sizeof cases / sizeof *cases; ++c) {
        mct_tally_t t = make(bins, cases[c].dtype, cases[c].method);
        memset(mean, 0, (size_t)bins * sizeof *mean);
        memset(m2, 0, (size_t)bins * sizeof *m2);
        for (int b = 0; b < 3; ++b) {
            /* Values exact in every type: whole numbers for integers, quarters below 2^10 else. */
            const int whole = cases[c].dtype == MCT_DTYPE_I32 || cases[c].dtype == MCT_DTYPE_U64;
            for (int64_t k = 0; k < bins; ++k) {
                keys[k] = (uint32_t)k;
                values[k] = whole ? (double)(k % 1000 + b) : 0.25 * (double)(k % 977) + b;
            }
            ASSERT_STATUS(mct_tally_add(t, keys, values, bins), MCT_STATUS_SUCCESS);
            ASSERT_STATUS(mct_tally_end_batch(t, hist), MCT_STATUS_SUCCESS);
            const double w = (double)hist, wsum = (double)(hist * (b + 1));
            for (int64_t k = 0; k < bins; ++k) {
                const double x = values[k] / w, delta = x - mean[k];
                mean[k] += delta * (w / wsum);
                m2[k] += w * delta * (x - mean[k]);
            }
        }
        ASSERT_STATUS(mct_tally_results(t, got, rel), MCT_STATUS_SUCCESS);
        for (int64_t k = 0; k < bins; ++k) {
            ASSERT_EQ_F64(got[k], mean[k]);
            const double se = sqrt(m2[k] / (double)(3 * hist) / 2.0);
            ASSERT_EQ_F64(rel[k], (se == 0.0 && mean[k] == 0.0) ? 0.0 : se / fabs(mean[k]));
        }
        mct_tally_destroy(t);
    }
    free(keys), free(values), free(mean), free(m2), free(got), free(rel);
}

int main(void) {
    test_bad_arguments();
    test_batch_statistics();
    test_single_batch_has_no_error();
    test_replicas();
    test_determinism();
    test_nonfinite();
    test_parallel_fold();
    return 0;
}
