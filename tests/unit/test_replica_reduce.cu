/* SPDX-License-Identifier: BSD-3-Clause */
/** @file test_replica_reduce.cu  The reduction of a replicated tally's replicas
 * into its bins at mct_tally_end_batch, on the build's device backend (cuda, or
 * emulated under the emulation), through both of its paths: one thread per bin
 * walking the replicas (many bins, or fewer than 8192 replicas), and per-block
 * partial sums then a block per bin (few bins, many replicas). Replicas are
 * written straight into the tally's replica memory and the batch's sums read
 * back with mct_tally_copy_sums: i32 and u64 exact against 64- or 128-bit
 * sums, f64 on halves (exact in any order); i32 and u64 totals at the largest
 * sum the tally holds (SUCCESS) and at the first one past the type's range
 * (OVERFLOW), where every partial sum fits and only the last stage leaves it. */
#include <string.h>

#include <limits>
#include <vector>

#include "mctally/device/mct_launch.cuh"
#include "mctally/mct.h"
#include "test_device.h"

#if MCT_IS_EMULATED
static const mct_backend_t device_backend = MCT_BACKEND_EMULATED;
#else
static const mct_backend_t device_backend = MCT_BACKEND_CUDA;
#endif

__extension__ typedef unsigned __int128 u128;

static mct_tally_t make(mct_dtype_t dtype, int64_t bins, int64_t replicas) {
    mct_tally_desc_t d;
    mct_tally_desc_init(&d);
    d.bins = bins, d.dtype = dtype, d.method = MCT_METHOD_REPLICATED, d.backend = device_backend;
    mct_tally_t t = NULL;
    ASSERT_STATUS(mct_tally_create(&t, &d), MCT_STATUS_SUCCESS);
    ASSERT_STATUS(mct_tally_reserve_replicas(t, replicas), MCT_STATUS_SUCCESS);
    return t;
}

/* Writes replica r, bin k = vals[r * bins + k] into the tally and closes a batch. */
template <typename T>
static mct_status_t reduce(mct_tally_t t, const std::vector<T>& vals) {
    mct_tally_view_t v;
    ASSERT_STATUS(mct_tally_view(t, &v), MCT_STATUS_SUCCESS);
    ASSERT_TRUE((size_t)(v.nreplicas * v.nbins) >= vals.size());
    CHECK_CUDA(cudaMemcpy(v.replicas, vals.data(), vals.size() * sizeof(T), cudaMemcpyHostToDevice));
    return mct_tally_end_batch(t, 1);
}

static uint64_t next(uint64_t* s) {
    *s ^= *s << 13, *s ^= *s >> 7, *s ^= *s << 17;
    return *s;
}

/* Random values, exact sums compared bin by bin. */
static void check_random(int64_t bins, int64_t replicas) {
    uint64_t s = 0x9E3779B97F4A7C15ull + (uint64_t)(bins * 7919 + replicas);
    const size_t n = (size_t)(bins * replicas);
    {
        std::vector<int32_t> vals(n);
        std::vector<int64_t> exact((size_t)bins, 0);
        for (size_t i = 0; i < n; ++i) vals[i] = (int32_t)(next(&s) % 20001) - 10000, exact[i % bins] += vals[i];
        mct_tally_t t = make(MCT_DTYPE_I32, bins, replicas);
        ASSERT_STATUS(reduce(t, vals), MCT_STATUS_SUCCESS);
        std::vector<int32_t> got((size_t)bins);
        ASSERT_STATUS(mct_tally_copy_sums(t, MCT_SUMS_LAST_BATCH, MCT_DTYPE_I32, got.data(), 0), MCT_STATUS_SUCCESS);
        for (int64_t k = 0; k < bins; ++k) ASSERT_EQ_I64(got[k], exact[k]);
        mct_tally_destroy(t);
    }
    {
        std::vector<uint64_t> vals(n);
        std::vector<u128> exact((size_t)bins, 0);
        for (size_t i = 0; i < n; ++i) vals[i] = next(&s) >> 24, exact[i % bins] += vals[i];
        mct_tally_t t = make(MCT_DTYPE_U64, bins, replicas);
        ASSERT_STATUS(reduce(t, vals), MCT_STATUS_SUCCESS);
        std::vector<uint64_t> got((size_t)bins);
        ASSERT_STATUS(mct_tally_copy_sums(t, MCT_SUMS_LAST_BATCH, MCT_DTYPE_U64, got.data(), 0), MCT_STATUS_SUCCESS);
        for (int64_t k = 0; k < bins; ++k) ASSERT_EQ_U64(got[k], (uint64_t)exact[k]);
        mct_tally_destroy(t);
    }
    {
        std::vector<double> vals(n);
        std::vector<double> exact((size_t)bins, 0.0);
        for (size_t i = 0; i < n; ++i) vals[i] = 0.5 * (double)((int64_t)(next(&s) % 2001) - 1000), exact[i % bins] += vals[i];
        mct_tally_t t = make(MCT_DTYPE_F64, bins, replicas);
        ASSERT_STATUS(reduce(t, vals), MCT_STATUS_SUCCESS);
        std::vector<double> got((size_t)bins);
        ASSERT_STATUS(mct_tally_copy_sums(t, MCT_SUMS_LAST_BATCH, MCT_DTYPE_F64, got.data(), 0), MCT_STATUS_SUCCESS);
        for (int64_t k = 0; k < bins; ++k) ASSERT_EQ_F64(got[k], exact[k]);
        mct_tally_destroy(t);
    }
}

/* Replica values for one bin that sum to exactly `total`, each within a
 * replica's share of it (so every partial sum of 8192 of them is far from T's
 * range). */
template <typename T>
static std::vector<T> summing_to(u128 total, int64_t replicas) {
    std::vector<T> vals((size_t)replicas, (T)(total / (u128)replicas));
    vals.back() = (T)(vals.back() + (T)(total % (u128)replicas));
    return vals;
}

/* One bin: replicas summing to the largest sum the tally holds (i32: INT32_MAX;
 * u64: INT64_MAX, the host's exact sums being int64), then to the first sum
 * past T's range, which wraps to a value the host would take (i32: INT32_MIN;
 * u64: 0), so only the device's test can report it. */
template <typename T>
static void check_edge(mct_dtype_t dtype, int64_t replicas, u128 top, u128 past) {
    mct_tally_t t = make(dtype, 1, replicas);
    ASSERT_STATUS(reduce(t, summing_to<T>(top, replicas)), MCT_STATUS_SUCCESS);
    T got = 0;
    ASSERT_STATUS(mct_tally_copy_sums(t, MCT_SUMS_LAST_BATCH, dtype, &got, 0), MCT_STATUS_SUCCESS);
    ASSERT_TRUE((u128)got == top);
    ASSERT_STATUS(reduce(t, summing_to<T>(past, replicas)), MCT_STATUS_OVERFLOW);
    unsigned flags = 0;
    ASSERT_STATUS(mct_tally_flags(t, &flags), MCT_STATUS_SUCCESS);
    ASSERT_TRUE((flags & MCT_TALLY_FLAG_OVERFLOW) != 0);
    mct_tally_destroy(t);
}

int main(void) {
    if (!test_have_device()) return 77;
    /* One thread per bin: few replicas, or many bins. */
    check_random(1, 5);
    check_random(7, 8191);
    check_random(4096, 9);
    /* Partial sums, then a block per bin: 8192 replicas or more and fewer than 4096 bins. */
    check_random(1, 8192);
    check_random(3, 20000);
    check_random(1, 100003);
    check_random(37, 40000);
    for (int64_t r : {5, 20000}) {
        check_edge<int32_t>(MCT_DTYPE_I32, r, (u128)INT32_MAX, (u128)INT32_MAX + 1);
        check_edge<uint64_t>(MCT_DTYPE_U64, r, (u128)INT64_MAX, (u128)1 << 64);
    }
    printf("replica reductions exact on both paths\n");
    return 0;
}
