/* SPDX-License-Identifier: BSD-3-Clause */
/** @file test_block_counter.cu  Every block-counter method x type against an exact
 * count: random flags of several densities, block sizes 1, 7, 32, 65, 128, 1024,
 * one item per thread and grid-stride launches. Runs on a GPU (nvcc) and on the
 * CPU under the CUDA emulation (test_block_counter_emulated.cpp). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

int main(void) {
    if (!test_have_device()) return 77;
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
