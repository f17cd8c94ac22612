/* SPDX-License-Identifier: BSD-3-Clause */
/** @file test_dist_api.c  libmctally_mpi (mct_dist.h) under mpirun, on any
 * number of ranks. Every rank adds its share (round robin) of each batch's
 * contributions to its tally and closes the batch with mct_dist_end_batch;
 * beside it, each rank keeps a reference tally of one process that takes all
 * the contributions. Checked:
 * - exact tallies (i32, u64, fixed; mixed methods and backends across ranks):
 *   sums, means and relative errors bitwise equal to the reference;
 * - float tallies (f64, f32 Kahan pairs, sort_reduce; the rounding-loss
 *   shadow): every bin within the rounding bound of a sum of its values, from
 *   the bin's sum of |v| (f64: (m + R) 2^-53; f32: 2 (m + R) 2^-24 for the
 *   ranks' float partials, m the bin's contributions);
 * - the combined overflow checks (i32 past 2^31, u64 and fixed past 2^63);
 * - ranks without histories, all ranks without (INVALID_VALUE everywhere);
 * - a rank that fails (its status, PEER_FAILED and the rank's name on the
 *   others, the batch dropped everywhere, the next batch fine), a negative
 *   count, mct_dist_agree;
 * - shapes that differ (bins, fraction bits, exact against float): refused
 *   by every rank; NCCL asked for on host tallies: NOT_SUPPORTED everywhere;
 * - the determinism the combination delivers.
 * `test_dist_api die` ends the last rank (abort) in the middle of the run, for
 * tests/dist/test_dist_die.sh: the launcher must end every rank. */
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "mctally/mct.h"
#include "mctally/mct_dist.h"
#include "test_assert.h"
#include "test_random.h"

static int rank, size;

enum { BINS = 37, ITEMS = 2000, BATCHES = 3 };

static uint64_t mix(uint64_t x) { return test_splitmix64(&x); }

/* Contribution i of batch b: its bin, and a value that is an integer for
 * integer tallies, a multiple of 2^-10 for fixed (exact at 32 fraction bits,
 * of both signs), any double in (0, 1) for float tallies. */
static void item(int b, int i, mct_dtype_t dtype, mct_method_t method, uint32_t* key, double* value) {
    const uint64_t h = mix((uint64_t)b * 1000003u + (uint64_t)i);
    *key = (uint32_t)(h % BINS);
    if (dtype == MCT_DTYPE_I32 || dtype == MCT_DTYPE_U64)
        *value = (double)((h >> 20) % 100u);
    else if (method == MCT_METHOD_FIXED)
        *value = ldexp((double)(int64_t)((h >> 20) % 200001u) - 100000.0, -10);
    else
        *value = ((double)(h >> 11) + 0.5) * 0x1p-53;
}

static mct_tally_t make(mct_backend_t backend, mct_dtype_t dtype, mct_method_t method, int64_t bins, int frac) {
    mct_tally_desc_t d;
    mct_tally_desc_init(&d);
    d.bins = bins;
    d.dtype = dtype;
    d.method = method;
    d.backend = backend;
    d.fixed_frac_bits = frac;
    mct_tally_t t = NULL;
    ASSERT_STATUS(mct_tally_create(&t, &d), MCT_STATUS_SUCCESS);
    return t;
}

static mct_dist_t wrap(mct_tally_t t) {
    mct_dist_desc_t dd;
    mct_dist_desc_init(&dd);
    mct_dist_t dist = NULL;
    ASSERT_STATUS(mct_dist_create(&dist, t, &dd), MCT_STATUS_SUCCESS);
    return dist;
}

/* One case: BATCHES batches of ITEMS contributions, rank r adding those with
 * i % size == r (rank `idle`, when >= 0, none: its histories are 0), then the
 * comparison with the reference of one process. */
static void check_case(const char* name, mct_backend_t backend, mct_dtype_t dtype, mct_method_t method, int loss,
                       int idle) {
    mct_tally_t t = make(backend, dtype, method, BINS, 32);
    mct_tally_t ref = make(MCT_BACKEND_CPU, dtype, method == MCT_METHOD_REPLICATED ? MCT_METHOD_ATOMIC : method, BINS, 32);
    if (loss) {
        ASSERT_STATUS(mct_tally_enable_rounding_loss(t, 2), MCT_STATUS_SUCCESS);
        ASSERT_STATUS(mct_tally_enable_rounding_loss(ref, 2), MCT_STATUS_SUCCESS);
    }
    mct_dist_t dist = wrap(t);
    uint32_t keys[ITEMS];
    double values[ITEMS], abs_sum[BINS] = {0};
    int64_t count[BINS] = {0};
    for (int b = 0; b < BATCHES; ++b) {
        int64_t n = 0;
        for (int i = 0; i < ITEMS; ++i) {
            uint32_t k;
            double v;
            item(b, i, dtype, method, &k, &v);
            ASSERT_STATUS(mct_tally_add(ref, &k, &v, 1), MCT_STATUS_SUCCESS);
            abs_sum[k] += fabs(v), count[k] += 1;
            const int owner = idle >= 0 ? (i % size == idle ? (idle + 1) % size : i % size) : i % size;
            if (owner == rank) keys[n] = k, values[n++] = v;
        }
        ASSERT_STATUS(mct_tally_add(t, keys, values, n), MCT_STATUS_SUCCESS);
        ASSERT_STATUS(mct_tally_end_batch(ref, ITEMS), MCT_STATUS_SUCCESS);
        ASSERT_STATUS(mct_dist_end_batch(dist, n, MCT_STATUS_SUCCESS), MCT_STATUS_SUCCESS);
    }
    int64_t batches = 0, histories = 0;
    ASSERT_STATUS(mct_tally_counts(t, &batches, &histories), MCT_STATUS_SUCCESS);
    ASSERT_EQ_I64(batches, BATCHES);
    ASSERT_EQ_I64(histories, (int64_t)BATCHES * ITEMS);
    double mean[BINS], rel[BINS], rmean[BINS], rrel[BINS], sums[BINS], rsums[BINS];
    ASSERT_STATUS(mct_tally_results(t, mean, rel), MCT_STATUS_SUCCESS);
    ASSERT_STATUS(mct_tally_results(ref, rmean, rrel), MCT_STATUS_SUCCESS);
    ASSERT_STATUS(mct_tally_sums(t, sums), MCT_STATUS_SUCCESS);
    ASSERT_STATUS(mct_tally_sums(ref, rsums), MCT_STATUS_SUCCESS);
    const int exact = dtype == MCT_DTYPE_I32 || dtype == MCT_DTYPE_U64 || method == MCT_METHOD_FIXED;
    if (exact) {
        if (memcmp(sums, rsums, sizeof sums) || memcmp(mean, rmean, sizeof mean) || memcmp(rel, rrel, sizeof rel))
            TEST_FAIL("%s: the combined exact tally differs from one process's (bin 0: %.17g vs %.17g)", name, sums[0],
                      rsums[0]);
    } else {
        /* Both the combined tally and the reference err from the exact sum S
         * of a bin's m values by at most: f64, (m + R + B) u S (any summation
         * order, then the ranks and the batches); f32, (m + R + B) u32 S
         * (float partials, summed in double); Kahan pairs, (3 u32 + 8 m
         * u32^2) S per rank's pair and batch. The difference of the two is
         * within twice that. */
        for (int k = 0; k < BINS; ++k) {
            const double m = (double)count[k], parts = (double)size + BATCHES, u32 = 0x1p-24;
            double bound = (m + parts) * 0x1p-53;
            if (method == MCT_METHOD_KAHAN)
                bound = parts * (3.0 * u32 + 8.0 * m * u32 * u32) + (m + parts) * 0x1p-53;
            else if (dtype == MCT_DTYPE_F32)
                bound = (m + parts) * u32;
            ASSERT_NEAR_F64(sums[k], rsums[k], 2.0 * bound * abs_sum[k]);
        }
    }
    mct_determinism_t det;
    ASSERT_STATUS(mct_dist_determinism(dist, &det), MCT_STATUS_SUCCESS);
    if (method == MCT_METHOD_FIXED) ASSERT_STATUS(det, MCT_BITWISE);
    if (!exact && size > 1) ASSERT_STATUS(det, MCT_NOT_GUARANTEED);
    if (method == MCT_METHOD_SORT_REDUCE && size == 1) ASSERT_STATUS(det, MCT_RUN_TO_RUN);
    if (loss) {
        /* The shadows of all ranks are summed: the estimate covers every
         * contribution, within its sampling error of no loss (f64). */
        mct_rounding_loss_t info;
        ASSERT_STATUS(mct_tally_rounding_loss(t, &info), MCT_STATUS_SUCCESS);
        ASSERT_EQ_I64(info.batches, BATCHES);
        ASSERT_TRUE(fabs(info.total_loss) <= 5.0 * info.total_loss_err + 1e-12);
    }
    mct_dist_info_t di;
    ASSERT_STATUS(mct_dist_info(dist, &di), MCT_STATUS_SUCCESS);
    ASSERT_EQ_I64(di.batches, BATCHES);
    ASSERT_STATUS(di.transport, MCT_DIST_HOST);
    mct_dist_destroy(dist);
    mct_tally_destroy(t);
    mct_tally_destroy(ref);
}

/* Each rank adds `v` to bin 0 of a 1-bin tally: OVERFLOW on every rank once
 * the combined bin passes the type's range; i32's exact total is folded. */
static void check_overflow(mct_dtype_t dtype, mct_method_t method, int frac, double v, int fits) {
    mct_tally_t t = make(MCT_BACKEND_CPU, dtype, method, 1, frac);
    mct_dist_t dist = wrap(t);
    const uint32_t key = 0;
    ASSERT_STATUS(mct_tally_add(t, &key, &v, 1), MCT_STATUS_SUCCESS);
    ASSERT_STATUS(mct_dist_end_batch(dist, 1, MCT_STATUS_SUCCESS), fits ? MCT_STATUS_SUCCESS : MCT_STATUS_OVERFLOW);
    if (dtype == MCT_DTYPE_I32) {
        int64_t sum = 0;
        ASSERT_STATUS(mct_tally_sums_i64(t, &sum), MCT_STATUS_SUCCESS);
        ASSERT_EQ_I64(sum, (int64_t)size * (int64_t)v);
    }
    mct_dist_destroy(dist);
    mct_tally_destroy(t);
}

static void check_failures(void) {
    mct_tally_t t = make(MCT_BACKEND_CPU, MCT_DTYPE_U64, MCT_METHOD_ATOMIC, 4, 32);
    mct_dist_t dist = wrap(t);
    const uint32_t key = (uint32_t)rank % 4u;
    const double one = 1.0;
    /* Batch 1 closes; in the next, the last rank fails. */
    ASSERT_STATUS(mct_tally_add(t, &key, &one, 1), MCT_STATUS_SUCCESS);
    ASSERT_STATUS(mct_dist_end_batch(dist, 1, MCT_STATUS_SUCCESS), MCT_STATUS_SUCCESS);
    ASSERT_STATUS(mct_tally_add(t, &key, &one, 1), MCT_STATUS_SUCCESS);
    const int last = rank == size - 1;
    ASSERT_STATUS(mct_dist_end_batch(dist, 1, last ? MCT_STATUS_CUDA_ERROR : MCT_STATUS_SUCCESS),
                  last ? MCT_STATUS_CUDA_ERROR : MCT_STATUS_PEER_FAILED);
    int failed = -2;
    mct_status_t why = MCT_STATUS_SUCCESS;
    ASSERT_STATUS(mct_dist_failure(dist, &failed, &why), MCT_STATUS_SUCCESS);
    ASSERT_EQ_I64(failed, size - 1);
    ASSERT_STATUS(why, MCT_STATUS_CUDA_ERROR);
    /* The failed batch is dropped on every rank; the next one is whole. */
    int64_t batches = 0, histories = 0, sums[4];
    ASSERT_STATUS(mct_tally_counts(t, &batches, &histories), MCT_STATUS_SUCCESS);
    ASSERT_EQ_I64(batches, 1);
    ASSERT_EQ_I64(histories, size);
    ASSERT_STATUS(mct_tally_add(t, &key, &one, 1), MCT_STATUS_SUCCESS);
    ASSERT_STATUS(mct_dist_end_batch(dist, 1, MCT_STATUS_SUCCESS), MCT_STATUS_SUCCESS);
    ASSERT_STATUS(mct_tally_sums_i64(t, sums), MCT_STATUS_SUCCESS);
    int64_t total = 0;
    for (int k = 0; k < 4; ++k) total += sums[k];
    ASSERT_EQ_I64(total, 2 * size);
    /* A negative count is its rank's failure, heard by all. */
    ASSERT_STATUS(mct_dist_end_batch(dist, rank == 0 ? -1 : 1, MCT_STATUS_SUCCESS),
                  rank == 0 ? MCT_STATUS_INVALID_VALUE : MCT_STATUS_PEER_FAILED);
    /* No history anywhere: INVALID_VALUE everywhere, nothing folded. */
    ASSERT_STATUS(mct_dist_end_batch(dist, 0, MCT_STATUS_SUCCESS), MCT_STATUS_INVALID_VALUE);
    ASSERT_STATUS(mct_tally_counts(t, &batches, NULL), MCT_STATUS_SUCCESS);
    ASSERT_EQ_I64(batches, 2);
    mct_dist_destroy(dist);
    mct_tally_destroy(t);

    /* The agreement on its own. */
    int fr = -2;
    mct_status_t fs;
    ASSERT_STATUS(mct_dist_agree(MPI_COMM_WORLD, MCT_STATUS_SUCCESS, &fr, &fs), MCT_STATUS_SUCCESS);
    ASSERT_EQ_I64(fr, -1);
    ASSERT_STATUS(mct_dist_agree(MPI_COMM_WORLD, rank == 0 ? MCT_STATUS_IO_ERROR : MCT_STATUS_SUCCESS, &fr, &fs),
                  rank == 0 ? MCT_STATUS_IO_ERROR : MCT_STATUS_PEER_FAILED);
    ASSERT_EQ_I64(fr, 0);
    ASSERT_STATUS(fs, MCT_STATUS_IO_ERROR);
}

/* Shapes that differ between ranks are refused by all of them. */
static void check_shapes(void) {
    const int odd = size > 1 && rank == size - 1;
    struct {
        mct_dtype_t dtype;
        mct_method_t method;
        int64_t bins;
        int frac;
    } cases[3][2] = {
        {{MCT_DTYPE_F64, MCT_METHOD_ATOMIC, 10, 32}, {MCT_DTYPE_F64, MCT_METHOD_ATOMIC, 11, 32}},
        {{MCT_DTYPE_F64, MCT_METHOD_FIXED, 10, 32}, {MCT_DTYPE_F64, MCT_METHOD_FIXED, 10, 30}},
        {{MCT_DTYPE_F64, MCT_METHOD_ATOMIC, 10, 32}, {MCT_DTYPE_F64, MCT_METHOD_FIXED, 10, 32}},
    };
    for (int c = 0; c < 3; ++c) {
        mct_tally_t t = make(MCT_BACKEND_CPU, cases[c][odd].dtype, cases[c][odd].method, cases[c][odd].bins,
                             cases[c][odd].frac);
        mct_dist_desc_t dd;
        mct_dist_desc_init(&dd);
        mct_dist_t dist = NULL;
        ASSERT_STATUS(mct_dist_create(&dist, t, &dd), size > 1 ? MCT_STATUS_SHAPE_MISMATCH : MCT_STATUS_SUCCESS);
        ASSERT_TRUE((dist == NULL) == (size > 1));
        mct_dist_destroy(dist);
        mct_tally_destroy(t);
    }
    /* Methods of one family may differ (atomic and replicated: doubles). */
    mct_tally_t t = make(MCT_BACKEND_CPU, MCT_DTYPE_F64, odd ? MCT_METHOD_REPLICATED : MCT_METHOD_ATOMIC, 10, 32);
    mct_dist_t dist = wrap(t);
    mct_dist_destroy(dist);
    /* NCCL cannot serve host tallies, on any rank. */
    mct_dist_desc_t dd;
    mct_dist_desc_init(&dd);
    dd.transport = MCT_DIST_NCCL;
    ASSERT_STATUS(mct_dist_create(&dist, t, &dd), MCT_STATUS_NOT_SUPPORTED);
    /* A rank without a tally is heard of. */
    dd.transport = MCT_DIST_AUTO;
    ASSERT_STATUS(mct_dist_create(&dist, rank == 0 ? NULL : t, &dd),
                  rank == 0 ? MCT_STATUS_NULL_POINTER : MCT_STATUS_PEER_FAILED);
    mct_tally_destroy(t);
}

/* The last rank dies before its second batch ends; the others wait in it
 * until the launcher ends them. */
static int die(void) {
    mct_tally_t t = make(MCT_BACKEND_CPU, MCT_DTYPE_F64, MCT_METHOD_ATOMIC, 8, 32);
    mct_dist_t dist = wrap(t);
    ASSERT_STATUS(mct_dist_end_batch(dist, 1, MCT_STATUS_SUCCESS), MCT_STATUS_SUCCESS);
    if (rank == size - 1) abort();
    mct_dist_end_batch(dist, 1, MCT_STATUS_SUCCESS);
    fprintf(stderr, "rank %d: the second batch returned although a rank died\n", rank);
    return 1;
}

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc > 1 && !strcmp(argv[1], "die")) return die();

    check_case("i32 atomic", MCT_BACKEND_CPU, MCT_DTYPE_I32, MCT_METHOD_ATOMIC, 0, -1);
    /* Odd ranks replicated: the methods of one family mix. */
    check_case("u64 atomic/replicated", MCT_BACKEND_CPU, MCT_DTYPE_U64,
               rank % 2 ? MCT_METHOD_REPLICATED : MCT_METHOD_ATOMIC, 0, -1);
    /* Rank 1 on the emulated backend: backends mix too. */
    check_case("fixed cpu/emulated", rank == 1 ? MCT_BACKEND_EMULATED : MCT_BACKEND_CPU, MCT_DTYPE_F64,
               MCT_METHOD_FIXED, 0, -1);
    check_case("fixed, rank 0 idle", MCT_BACKEND_CPU, MCT_DTYPE_F64, MCT_METHOD_FIXED, 0, size > 1 ? 0 : -1);
    check_case("f64 atomic + loss", MCT_BACKEND_CPU, MCT_DTYPE_F64, MCT_METHOD_ATOMIC, 1, -1);
    check_case("f32 kahan", MCT_BACKEND_CPU, MCT_DTYPE_F32, MCT_METHOD_KAHAN, 0, -1);
    check_case("f32 atomic", MCT_BACKEND_CPU, MCT_DTYPE_F32, MCT_METHOD_ATOMIC, 0, -1);
    check_case("f64 sort_reduce", MCT_BACKEND_CPU, MCT_DTYPE_F64, MCT_METHOD_SORT_REDUCE, 0, -1);

    /* 2^30 per rank: i32 holds one or two ranks' (2^31 - 1 does not hold 2). */
    check_overflow(MCT_DTYPE_I32, MCT_METHOD_ATOMIC, 32, 0x1p30, size == 1);
    check_overflow(MCT_DTYPE_U64, MCT_METHOD_ATOMIC, 32, 0x1p62, size == 1);
    /* 3 x 2^61 per rank: a wrapping sum of two would be negative, not the mark. */
    check_overflow(MCT_DTYPE_F64, MCT_METHOD_FIXED, 0, 0x1.8p62, size == 1);
    /* -2^61 per rank: four ranks reach -2^63, the value reserved as the mark. */
    check_overflow(MCT_DTYPE_F64, MCT_METHOD_FIXED, 0, -0x1p61, size <= 3);

    check_failures();
    check_shapes();
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) printf("test_dist_api: %d ranks passed\n", size);
    MPI_Finalize();
    return 0;
}
