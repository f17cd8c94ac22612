/* SPDX-License-Identifier: BSD-3-Clause */
/** @file counter_variants.cu  The escape problem's tally kernel (a flag per
 * history, mct_block_counter into one bin) timed alone, for i32 and u64 and
 * the five counter methods, on one item per thread (paper launch) and on a
 * full grid-stride launch, at escape fractions 1, 0.5 and 0.001 (2e7
 * histories, median of 20 launches). Built once per include tree, so that two
 * versions of the device headers are compared in one call (the views are made
 * by hand, with the fields every version has). Not built by CMake:
 *
 *     nvcc -std=c++17 -arch=sm_90 -O3 -I<tree>/include bench/escape/counter_variants.cu -o cv_TAG
 *     ./cv_TAG TAG        # one line per case: TAG p=P LAUNCH TYPE METHOD MS
 */
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
#include <algorithm>
#include <cuda_runtime.h>
#include "mctally/device/mct_tally_device.cuh"

template <typename T, mct_method_t M>
__global__ void tally_kernel(const int32_t* __restrict__ ev, int64_t n, mct_tally_view_t view) {
    __shared__ mct_block_counter_storage<T> storage;
    mct_block_counter<T, M> counter(view, 0, storage);
    const int64_t stride = (int64_t)gridDim.x * blockDim.x;
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        if (ev[i] == 1) counter.add(T(1));
    counter.flush();
}

template <typename T, mct_method_t M>
float run(const int32_t* ev, int64_t n, int64_t grid, T* bins, T* reps, unsigned* flags, int64_t expect) {
    mct_tally_view_t v; memset(&v, 0, sizeof v);
    v.bins = bins; v.replicas = reps; v.nbins = 1; v.nreplicas = M == MCT_METHOD_REPLICATED ? grid * 256 : 0;
    v.method = M; v.flags = flags;
    cudaEvent_t a, b; cudaEventCreate(&a); cudaEventCreate(&b);
    std::vector<float> t;
    for (int r = 0; r < 21; ++r) {
        cudaMemset(bins, 0, sizeof(T));
        cudaEventRecord(a);
        tally_kernel<T, M><<<(unsigned)grid, 256>>>(ev, n, v);
        cudaEventRecord(b); cudaEventSynchronize(b);
        float ms; cudaEventElapsedTime(&ms, a, b); if (r) t.push_back(ms);
    }
    if (M != MCT_METHOD_REPLICATED) { T h; cudaMemcpy(&h, bins, sizeof h, cudaMemcpyDeviceToHost); if ((int64_t)h != expect) { printf("WRONG %lld %lld\n", (long long)h, (long long)expect); exit(1);} }
    std::sort(t.begin(), t.end());
    return t[t.size() / 2];
}

int main(int argc, char** argv) {
    const int64_t n = 20000000;
    const char* tag = argv[1];
    int32_t* ev; cudaMalloc(&ev, n * 4);
    void* bins; cudaMalloc(&bins, 8);
    void* reps; cudaMalloc(&reps, (size_t)n * 8 + 8 * 256 * 1024);
    unsigned* flags; cudaMalloc(&flags, 4); cudaMemset(flags, 0, 4);
    int sms; cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
    for (double p : {1.0, 0.5, 0.001}) {
        std::vector<int32_t> h(n); int64_t cnt = 0; uint64_t s = 88172645463325252ull;
        for (int64_t i = 0; i < n; ++i) { s ^= s << 13; s ^= s >> 7; s ^= s << 17; h[i] = (double)(s >> 11) * 0x1p-53 < p; cnt += h[i]; }
        cudaMemcpy(ev, h.data(), n * 4, cudaMemcpyHostToDevice);
        for (int launch = 0; launch < 2; ++launch) {
            const int64_t grid = launch == 0 ? (n + 255) / 256 : (int64_t)sms * 8;
            const char* L = launch == 0 ? "paper" : "full";
#define ONE(T, M, name) printf("%s p=%g %s %s %s %.4f\n", tag, p, L, #T, name, run<T, M>(ev, n, grid, (T*)bins, (T*)reps, flags, cnt));
            ONE(int32_t, MCT_METHOD_ATOMIC, "atomic") ONE(int32_t, MCT_METHOD_SHARED, "shared")
            ONE(int32_t, MCT_METHOD_WARP_REDUCE, "warp_reduce") ONE(int32_t, MCT_METHOD_BLOCK_REDUCE, "block_reduce")
            ONE(int32_t, MCT_METHOD_REPLICATED, "replicated")
            ONE(uint64_t, MCT_METHOD_ATOMIC, "atomic") ONE(uint64_t, MCT_METHOD_SHARED, "shared")
            ONE(uint64_t, MCT_METHOD_WARP_REDUCE, "warp_reduce") ONE(uint64_t, MCT_METHOD_BLOCK_REDUCE, "block_reduce")
            ONE(uint64_t, MCT_METHOD_REPLICATED, "replicated")
        }
    }
    unsigned hf; cudaMemcpy(&hf, flags, 4, cudaMemcpyDeviceToHost); printf("%s flags %u\n", tag, hf);
    return 0;
}
