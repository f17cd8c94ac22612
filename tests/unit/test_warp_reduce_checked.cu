/* SPDX-License-Identifier: BSD-3-Clause */
/** @file test_warp_reduce_checked.cu  The checked integer reductions of the
 * reducing methods (mct_checked_plus_local through mct_warp_reduce_sum and
 * mct_block_reduce_sum): a warp whose values are all below 2^(digits - 6) adds
 * them without tests, any other warp tests every step. For i32, u64 and i64,
 * full and partial warps and blocks of up to 1024 threads, each case checks
 * the sums against the exact (128-bit) sum and the overflow report against
 * whether the exact sum leaves the type: values at the fast path's
 * limit and one past it, the exact extremes (32 x -2^26 = INT32_MIN), warps in
 * range whose block is not, and random values of both signs. Runs on a GPU
 * (nvcc) and on the CPU under the CUDA emulation. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <limits>
#include <vector>

#include "mctally/device/mct_launch.cuh"
#include "mctally/device/mct_tally_device.cuh"
#include "test_assert.h"
#include "test_device.h"

typedef __int128 wide_t;

/* Each warp's and the block's sum of v[0, blockDim), and whether any thread
 * of the warp or block saw an overflow (each thread raises its own). */
template <typename T>
static __global__ void reduce_kernel(const T* v, T* warp_sum, int* warp_over, T* block_sum, int* block_over) {
    __shared__ mct_block_reduce_storage<T> storage;
    const int t = threadIdx.x;
    const T x = v[t];
    int o = 0, ob = 0;
    const T w = mct_warp_reduce_sum(x, mct_warp_width_in_block(), mct_checked_plus_local{&o});
    if ((t & 31) == 0) warp_sum[t >> 5] = w;
    if (o) atomicOr(&warp_over[t >> 5], 1);
    const T b = mct_block_reduce_sum(x, storage, mct_checked_plus_local{&ob});
    if (t == 0) *block_sum = b;
    if (ob) atomicOr(block_over, 1);
}

template <typename T>
static bool in_range(wide_t s) {
    return s >= (wide_t)std::numeric_limits<T>::min() && s <= (wide_t)std::numeric_limits<T>::max();
}

/* The reductions of `v` (one block of v.size() threads) against the exact
 * sums. Every case's values have one sign, or magnitudes too small for any
 * partial sum to leave the type, so a partial sum leaves it exactly when the
 * whole sum does: then the overflow must be reported, else not, and the sum
 * must be exact. */
template <typename T>
static void check(const std::vector<T>& v, const char* what) {
    const int n = (int)v.size(), nw = (n + 31) / 32;
    T *dv, *dws, *dbs;
    int *dwo, *dbo;
    CHECK_CUDA(cudaMalloc((void**)&dv, n * sizeof(T)));
    CHECK_CUDA(cudaMalloc((void**)&dws, nw * sizeof(T)));
    CHECK_CUDA(cudaMalloc((void**)&dbs, sizeof(T)));
    CHECK_CUDA(cudaMalloc((void**)&dwo, nw * sizeof(int)));
    CHECK_CUDA(cudaMalloc((void**)&dbo, sizeof(int)));
    CHECK_CUDA(cudaMemcpy(dv, v.data(), n * sizeof(T), cudaMemcpyHostToDevice));
    CHECK_CUDA(cudaMemset(dwo, 0, nw * sizeof(int)));
    CHECK_CUDA(cudaMemset(dbo, 0, sizeof(int)));
    MCT_LAUNCH((reduce_kernel<T>), 1u, n, 0, 0, dv, dws, dwo, dbs, dbo);
    CHECK_CUDA(cudaGetLastError());
    CHECK_CUDA(cudaDeviceSynchronize());
    std::vector<T> ws(nw);
    std::vector<int> wo(nw);
    T bs;
    int bo;
    CHECK_CUDA(cudaMemcpy(ws.data(), dws, nw * sizeof(T), cudaMemcpyDeviceToHost));
    CHECK_CUDA(cudaMemcpy(wo.data(), dwo, nw * sizeof(int), cudaMemcpyDeviceToHost));
    CHECK_CUDA(cudaMemcpy(&bs, dbs, sizeof(T), cudaMemcpyDeviceToHost));
    CHECK_CUDA(cudaMemcpy(&bo, dbo, sizeof(int), cudaMemcpyDeviceToHost));
    wide_t block_exact = 0;
    for (int w = 0; w < nw; ++w) {
        wide_t exact = 0;
        for (int i = 32 * w; i < n && i < 32 * w + 32; ++i) exact += (wide_t)v[i];
        block_exact += exact;
        const bool must = !in_range<T>(exact);
        if (must && !wo[w]) TEST_FAIL("%s: %zu-byte type, %d threads: warp %d overflow not reported", what, sizeof(T), n, w);
        if (!must && wo[w]) TEST_FAIL("%s: %zu-byte type, %d threads: warp %d reported an overflow", what, sizeof(T), n, w);
        if (!wo[w]) {
            ASSERT_TRUE(in_range<T>(exact));
            if ((wide_t)ws[w] != exact)
                TEST_FAIL("%s: %zu-byte type, %d threads: warp %d sum %.17g, exact %.17g", what, sizeof(T), n, w,
                          (double)ws[w], (double)exact);
        }
    }
    const bool must = !in_range<T>(block_exact);
    if (must && !bo) TEST_FAIL("%s: %zu-byte type, %d threads: block overflow not reported", what, sizeof(T), n);
    if (!must && bo) TEST_FAIL("%s: %zu-byte type, %d threads: block reported an overflow", what, sizeof(T), n);
    if (!bo) {
        ASSERT_TRUE(in_range<T>(block_exact));
        if ((wide_t)bs != block_exact)
            TEST_FAIL("%s: %zu-byte type, %d threads: block sum %.17g, exact %.17g", what, sizeof(T), n, (double)bs,
                      (double)block_exact);
    }
    cudaFree(dv), cudaFree(dws), cudaFree(dbs), cudaFree(dwo), cudaFree(dbo);
}

template <typename T>
static void check_type(void) {
    /* The fast path's bound: values in [-limit, limit) sum to T's range in any 32. */
    const T limit = (T)((T)1 << (std::numeric_limits<T>::digits - 5));
    const bool is_signed = std::numeric_limits<T>::is_signed;
    const int sizes[] = {1, 20, 32, 33, 64, 1000, 1024};
    for (int n : sizes) {
        /* The largest values of the fast path: a warp's sum in range (2^d - 32),
         * a block's not. */
        check<T>(std::vector<T>(n, (T)(limit - 1)), "limit - 1");
        /* The smallest: 32 of them are the type's minimum exactly. */
        if (is_signed) check<T>(std::vector<T>(n, (T)(T(0) - limit)), "-limit");
        /* Just outside: the tested path, a full warp's sum out of range. */
        check<T>(std::vector<T>(n, limit), "limit");
        if (is_signed) {
            std::vector<T> v(n, (T)(T(0) - limit));
            v[n / 2] = (T)(v[n / 2] - 1);
            check<T>(v, "-limit - 1 in one lane");
        }
    }
    /* Warps in range, block not: 1024 threads of limit / 4 each -> warp sums
     * 2^(d-2), the block 2^(d+3). */
    check<T>(std::vector<T>(1024, (T)(limit / 4)), "warps in range, block not");
    /* Random values of both signs (u64: of [0, 4096 limit / 2^20)), and in every
     * other warp one lane past the bound, so that both paths run: the sum of
     * all magnitudes stays in range (16 x 2^(d-4) at most), so no partial sum
     * leaves it, and every sum must be exact and never reported. */
    srand(7);
    for (int n : sizes) {
        std::vector<T> v(n);
        for (int i = 0; i < n; ++i) {
            const int64_t r = (int64_t)rand() - RAND_MAX / 2;
            const T small = (T)(limit >> 20);
            v[i] = is_signed ? (T)((T)(r % 4096) * small) : (T)((T)((r < 0 ? -r : r) % 4096) * small);
            if ((i / 32) % 2 && i % 32 == 7) v[i] = (T)(limit + (T)(r < 0 ? -r : r) % 1000);
            if (is_signed && (i / 32) % 4 == 3 && i % 32 == 7) v[i] = (T)(T(0) - v[i]);
        }
        check<T>(v, "random");
    }
}

int main(void) {
    if (!test_have_device()) return 77;
    check_type<int32_t>();
    check_type<uint64_t>();
    check_type<int64_t>();
    printf("test_warp_reduce_checked: i32, u64, i64 pass\n");
    return 0;
}
