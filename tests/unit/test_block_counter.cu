/* SPDX-License-Identifier: BSD-3-Clause */
/** @file test_block_counter.cu  Every block-counter method x type against an exact
 * count: random flags of several densities, block sizes 1, 7, 32, 65, 128, 1024,
 * one item per thread and grid-stride launches. Then the integer counters at
 * the edges of their range: sums that reach the type's extremes exactly
 * (no overflow reported, the bin exact) and sums one past them (overflow
 * reported), with each thread's adds inside shared's unchecked budget, past
 * it, and crossing it. Runs on a GPU (nvcc) and on the CPU under the CUDA
 * emulation (test_block_counter_emulated.cpp). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <algorithm>
#include <limits>
#include <vector>

#include "mctally/device/mct_launch.cuh"
#include "mctally/device/mct_tally_device.cuh"
#include "test_assert.h"
#include "test_device.h"

template <typename T, mct_method_t M>
static __global__ void count_kernel(const int32_t* flags, int64_t n, mct_tally_view_t view, int64_t bin) {
    __shared__ mct_block_counter_storage<T> storage;
    mct_block_counter<T, M> counter(view, bin, storage);
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x)
        if (flags[i]) counter.add(T(flags[i]));
    counter.flush();
}

template <typename T, mct_method_t M>
static void check_case(const int32_t* d_flags, int64_t n, int64_t exact, int block, int64_t grid) {
    const int64_t nbins = 3, bin = 1, threads = grid * block;
    T *bins, *replicas = NULL;
    CHECK_CUDA(cudaMalloc((void**)&bins, nbins * sizeof(T)));
    CHECK_CUDA(cudaMemset(bins, 0, nbins * sizeof(T)));
    if (M == MCT_METHOD_REPLICATED) {
        CHECK_CUDA(cudaMalloc((void**)&replicas, threads * nbins * sizeof(T)));
        CHECK_CUDA(cudaMemset(replicas, 0, threads * nbins * sizeof(T)));
    }
    mct_tally_view_t view;
    memset(&view, 0, sizeof view); /* fields this test does not use stay zero */
    view.bins = bins, view.replicas = replicas, view.nbins = nbins;
    view.nreplicas = M == MCT_METHOD_REPLICATED ? threads : 0;
    view.dtype = MCT_DTYPE_F64, view.method = M;
    MCT_LAUNCH((count_kernel<T, M>), (unsigned)grid, block, 0, 0, d_flags, n, view, bin);
    CHECK_CUDA(cudaGetLastError());
    CHECK_CUDA(cudaDeviceSynchronize());
    T host[3];
    double total = 0.0;
    if (M == MCT_METHOD_REPLICATED) {
        T* rep = (T*)malloc(threads * nbins * sizeof(T));
        CHECK_CUDA(cudaMemcpy(rep, replicas, threads * nbins * sizeof(T), cudaMemcpyDeviceToHost));
        for (int64_t r = 0; r < threads; ++r) {
            ASSERT_EQ_F64((double)rep[r * nbins], 0.0);
            ASSERT_EQ_F64((double)rep[r * nbins + 2], 0.0);
            total += (double)rep[r * nbins + bin];
        }
        free(rep);
    }
    CHECK_CUDA(cudaMemcpy(host, bins, sizeof host, cudaMemcpyDeviceToHost));
    /* Neighbouring bins stay untouched; the counted bin is exact (all sums here
     * are small integers, exact in every type). */
    ASSERT_EQ_F64((double)host[0], 0.0);
    ASSERT_EQ_F64((double)host[2], 0.0);
    total += (double)host[bin];
    if (total != (double)exact)
        fprintf(stderr, "method %s, %zu-byte type, block %d, grid %lld, n %lld\n", mct_method_name(M), sizeof(T),
                block, (long long)grid, (long long)n);
    ASSERT_EQ_F64(total, (double)exact);
    cudaFree(bins);
    cudaFree(replicas);
}

template <typename T>
static void check_methods(const int32_t* d_flags, int64_t n, int64_t exact, int block, int64_t grid) {
    check_case<T, MCT_METHOD_ATOMIC>(d_flags, n, exact, block, grid);
    check_case<T, MCT_METHOD_SHARED>(d_flags, n, exact, block, grid);
    check_case<T, MCT_METHOD_WARP_REDUCE>(d_flags, n, exact, block, grid);
    check_case<T, MCT_METHOD_BLOCK_REDUCE>(d_flags, n, exact, block, grid);
    check_case<T, MCT_METHOD_REPLICATED>(d_flags, n, exact, block, grid);
}

/* Thread t adds vals[t * per + j], j < per. */
template <typename T, mct_method_t M>
static __global__ void sum_kernel(const T* vals, int per, mct_tally_view_t view) {
    __shared__ mct_block_counter_storage<T> storage;
    mct_block_counter<T, M> counter(view, 0, storage);
    const int64_t t = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    for (int j = 0; j < per; ++j) counter.add(vals[t * per + j]);
    counter.flush();
}

typedef __int128 wide_t;

/* One block of `block` threads adding `vals` (per values each) into a bin
 * that starts at `start`: the overflow flag must be raised exactly when the
 * sum leaves T's range (every case's values have one sign, so no partial sum
 * leaves it unless the whole does), and the bin must be exact when it is not. */
template <typename T, mct_method_t M>
static void check_edge(const std::vector<T>& vals, int block, int per, T start, const char* what) {
    T* dv;
    T* bins;
    unsigned* flags;
    CHECK_CUDA(cudaMalloc((void**)&dv, vals.size() * sizeof(T)));
    CHECK_CUDA(cudaMalloc((void**)&bins, sizeof(T)));
    CHECK_CUDA(cudaMalloc((void**)&flags, sizeof(unsigned)));
    CHECK_CUDA(cudaMemcpy(dv, vals.data(), vals.size() * sizeof(T), cudaMemcpyHostToDevice));
    CHECK_CUDA(cudaMemcpy(bins, &start, sizeof(T), cudaMemcpyHostToDevice));
    CHECK_CUDA(cudaMemset(flags, 0, sizeof(unsigned)));
    mct_tally_view_t view;
    memset(&view, 0, sizeof view);
    view.bins = bins, view.nbins = 1, view.method = M, view.flags = flags;
    MCT_LAUNCH((sum_kernel<T, M>), 1u, block, 0, 0, dv, per, view);
    CHECK_CUDA(cudaGetLastError());
    CHECK_CUDA(cudaDeviceSynchronize());
    T got;
    unsigned f;
    CHECK_CUDA(cudaMemcpy(&got, bins, sizeof(T), cudaMemcpyDeviceToHost));
    CHECK_CUDA(cudaMemcpy(&f, flags, sizeof(unsigned), cudaMemcpyDeviceToHost));
    wide_t exact = (wide_t)start;
    for (T v : vals) exact += (wide_t)v;
    const bool out = exact < (wide_t)std::numeric_limits<T>::min() || exact > (wide_t)std::numeric_limits<T>::max();
    const bool raised = (f & MCT_TALLY_FLAG_OVERFLOW) != 0;
    if (raised != out || (!out && (wide_t)got != exact))
        TEST_FAIL("%s, method %s, %zu-byte type, block %d x %d adds: sum %s range, overflow %s, bin %.17g, exact %.17g",
                  what, mct_method_name(M), sizeof(T), block, per, out ? "out of" : "in", raised ? "raised" : "not raised",
                  (double)got, (double)exact);
    cudaFree(dv), cudaFree(bins), cudaFree(flags);
}

template <typename T>
static void check_edge_methods(const std::vector<T>& vals, int block, int per, T start, const char* what) {
    check_edge<T, MCT_METHOD_ATOMIC>(vals, block, per, start, what);
    check_edge<T, MCT_METHOD_SHARED>(vals, block, per, start, what);
    check_edge<T, MCT_METHOD_WARP_REDUCE>(vals, block, per, start, what);
    check_edge<T, MCT_METHOD_BLOCK_REDUCE>(vals, block, per, start, what);
}

/* shared's budget per thread is T's largest value over 1024 (the most
 * threads a block can have), whatever the block's size, and at most 2^32 - 1. */
template <typename T>
static void check_edges(void) {
    const T top = std::numeric_limits<T>::max();
    const bool is_signed = std::numeric_limits<T>::is_signed;
    const T budget = (T)std::min<uint64_t>((uint64_t)(top >> 10), UINT32_MAX);
    for (int block : {1, 4, 32, 96, 1024}) {
        const int n = block;
        /* Each thread's one add at its budget: in range from 0; from a bin
         * started at the top less their sum, exactly the top; one more, out
         * of range. */
        std::vector<T> at(n, budget);
        const T rest = (T)(top - (T)(budget * (T)block));
        check_edge_methods<T>(at, block, 1, T(0), "budget each");
        check_edge_methods<T>(at, block, 1, rest, "budget each, to the top");
        check_edge_methods<T>(at, block, 1, (T)(rest + 1), "budget each, one past the top");
        /* Past the budget from the first add: the checked word. */
        if (block > 1) {
            std::vector<T> over(n, T(0));
            over[0] = (T)(budget + 1);
            check_edge_methods<T>(over, block, 1, T(0), "one add past the budget");
            check_edge_methods<T>(over, block, 1, (T)(top - budget), "past the budget, to the top");
            check_edge_methods<T>(over, block, 1, (T)(top - budget + 1), "past the budget, one past the top");
            /* Every thread one past its budget: all adds go to the checked word
             * (i32 with 1024 threads: their sum leaves the range, and only that
             * word sees it). */
            check_edge_methods<T>(std::vector<T>(n, (T)(budget + 1)), block, 1, T(0), "every thread past the budget");
        }
        /* Crossing it: three adds of half the budget each (the third goes to
         * the checked word), from a bin that the sum takes to the top and one past. */
        const T half = (T)(budget / 2 + 1);
        std::vector<T> cross(3 * n, half);
        const wide_t total = (wide_t)half * 3 * n;
        if (total <= (wide_t)top) {
            check_edge_methods<T>(cross, block, 3, (T)(top - (T)total), "crossing the budget, to the top");
            check_edge_methods<T>(cross, block, 3, (T)(top - (T)total + 1), "crossing the budget, one past the top");
        }
        if (is_signed) {
            /* Down to the type's minimum exactly, and one past it. */
            const T low = std::numeric_limits<T>::min();
            std::vector<T> neg(n, (T)(T(0) - budget));
            const T to_min = (T)(low + (T)(budget * (T)block));
            check_edge_methods<T>(neg, block, 1, to_min, "negative budgets, to the minimum");
            check_edge_methods<T>(neg, block, 1, (T)(to_min - 1), "negative budgets, one past the minimum");
            std::vector<T> big(n, T(0));
            big[n - 1] = low;
            check_edge_methods<T>(big, block, 1, T(0), "the minimum in one add");
            check_edge_methods<T>(big, block, 1, T(-1), "the minimum in one add, one past");
        }
    }
}

int main(void) {
    if (!test_have_device()) return 77;
    check_edges<int32_t>();
    check_edges<uint64_t>();
    const int blocks[] = {1, 7, 32, 65, 128, 1024};
    /* MCT_TEST_QUICK (set under compute-sanitizer) keeps one size and density. */
    const int quick = getenv("MCT_TEST_QUICK") != NULL;
    const double densities[] = {0.5, 0.0, 0.03, 1.0};
    const int64_t sizes[] = {4099, 1, 33, 1000};
    srand(12345);
    for (int64_t n : sizes) {
        if (quick && n != sizes[0]) break;
        for (double density : densities) {
            if (quick && density != densities[0]) break;
            int32_t* flags = (int32_t*)malloc(n * sizeof(int32_t));
            int64_t exact = 0;
            for (int64_t i = 0; i < n; ++i) {
                /* Weights 1..3 so a method that counts calls instead of adding fails. */
                flags[i] = ((double)rand() / RAND_MAX < density) ? 1 + rand() % 3 : 0;
                exact += flags[i];
            }
            int32_t* d_flags;
            CHECK_CUDA(cudaMalloc((void**)&d_flags, n * sizeof(int32_t)));
            CHECK_CUDA(cudaMemcpy(d_flags, flags, n * sizeof(int32_t), cudaMemcpyHostToDevice));
            for (int block : blocks) {
                const int64_t one_per_thread = (n + block - 1) / block;
                const int64_t strided = one_per_thread > 3 ? 3 : one_per_thread;
                for (int64_t grid : {one_per_thread, strided}) {
                    check_methods<int32_t>(d_flags, n, exact, block, grid);
                    check_methods<uint64_t>(d_flags, n, exact, block, grid);
                    check_methods<float>(d_flags, n, exact, block, grid);
                    check_methods<double>(d_flags, n, exact, block, grid);
                }
            }
            cudaFree(d_flags);
            free(flags);
        }
    }
    printf("block counter: all methods exact\n");
    return 0;
}
