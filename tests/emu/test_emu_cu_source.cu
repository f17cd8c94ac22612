/* SPDX-License-Identifier: BSD-3-Clause */
/** @file test_emu_cu_source.cu  One .cu file that nvcc compiles for the GPU and g++
 * compiles under the emulation (-DMCT_EMULATED, as C++): the portable launch and
 * shared-memory macros, a template kernel with two template arguments, and a block
 * reduction, checked against an exact host sum. */
#include <stdio.h>

#include "mctally/device/mct_launch.cuh"
#include "../test_assert.h"

template <class T, int ITEMS>
__global__ void sum_kernel(const T* in, T* out, int n) {
    MCT_EXTERN_SHARED(T, warp_sums);
    int t = (int)threadIdx.x, lane = t % 32, w = t / 32;
    T v = 0;
    for (int k = 0; k < ITEMS; ++k) {
        int i = (blockIdx.x * blockDim.x + t) * ITEMS + k;
        if (i < n) v += in[i];
    }
    for (int off = 16; off > 0; off /= 2) v += __shfl_down_sync(0xffffffffu, v, off);
    if (lane == 0) warp_sums[w] = v;
    __syncthreads();
    if (w == 0) {
        v = lane < (int)(blockDim.x / 32) ? warp_sums[lane] : 0;
        for (int off = 16; off > 0; off /= 2) v += __shfl_down_sync(0xffffffffu, v, off);
        if (lane == 0) atomicAdd(out, v);
    }
}

int main(void) {
    const int n = 100000, threads = 256, items = 4;
    const int blocks = (n + threads * items - 1) / (threads * items);
    unsigned long long *din, *dout, h_out = 0, want = 0;
    unsigned long long* h = (unsigned long long*)malloc(sizeof(*h) * n);
    for (int i = 0; i < n; ++i) {
        h[i] = (unsigned long long)(i % 977) * 1000003ull;
        want += h[i];
    }
    ASSERT_STATUS(cudaMalloc(&din, sizeof(*h) * n), cudaSuccess);
    ASSERT_STATUS(cudaMalloc(&dout, sizeof(*dout)), cudaSuccess);
    ASSERT_STATUS(cudaMemcpy(din, h, sizeof(*h) * n, cudaMemcpyHostToDevice), cudaSuccess);
    ASSERT_STATUS(cudaMemset(dout, 0, sizeof(*dout)), cudaSuccess);
    MCT_LAUNCH((sum_kernel<unsigned long long, items>), blocks, threads,
               threads / 32 * sizeof(unsigned long long), 0, din, dout, n);
    ASSERT_STATUS(cudaGetLastError(), cudaSuccess);
    ASSERT_STATUS(cudaDeviceSynchronize(), cudaSuccess);
    ASSERT_STATUS(cudaMemcpy(&h_out, dout, sizeof h_out, cudaMemcpyDeviceToHost), cudaSuccess);
    ASSERT_EQ_U64(h_out, want);
    cudaFree(din);
    cudaFree(dout);
    free(h);
    printf("test_emu_cu_source: ok\n");
    return 0;
}
