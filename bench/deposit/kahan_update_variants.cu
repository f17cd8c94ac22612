// SPDX-License-Identifier: BSD-3-Clause
/** @file kahan_update_variants.cu  The cost of one pair update per lane into
 * 1e5 random bins (the bins stay in L2), converged warps, 2112 blocks of 128
 * threads, 64 updates a thread: a float atomicAdd (RED), an int64 atomicAdd
 * whose old value is used (fixed's), Kahan's step by a CAS loop on the pair
 * (kahan_naive's mct_atomic_add_kahan), kahan's compensated add
 * (mct_atomic_add_compensated), and three forms measured on the way to it: v2
 * folds only when its sum lost a quarter of the addend, v3 reads comp before
 * each add (L2 load in flight with the atomic) and folds when it exceeds 2u of
 * the sum, v4 never folds (the floor of one atomic and one RED). Best of 5
 * launches, twice. Not part of the build:
 *     nvcc -std=c++17 -O3 -arch=sm_90 -Iinclude -Ibuild/include \
 *         bench/deposit/kahan_update_variants.cu -o kahan_update_variants */
#include <cstdio>
#include <cstdint>
#include <cuda_runtime.h>
#include "mctally/device/thread/thread_kahan.cuh"

__device__ __forceinline__ uint64_t mix(uint64_t h) { h ^= h >> 33; h *= 0xFF51AFD7ED558CCDull; h ^= h >> 33; h *= 0xC4CEB9FE1A85EC53ull; h ^= h >> 33; return h; }

// v2: no comp load; fold when this add lost more than a quarter of its addend
__device__ __forceinline__ void add_v2(mct_kahan_pair_t* addr, double v) {
    const float hi = (float)v; const float lo = (float)(v - (double)hi);
    if (hi == 0.0f) return;
    const float old = atomicAdd(&addr->sum, hi);
    const float e = mct_two_sum_err(old, hi, old + hi);
    const float c = -(e + lo);
    if (c != 0.0f) atomicAdd(&addr->comp, c);
    if (fabsf(e) > 0.25f * fabsf(hi)) {
        const float t = atomicExch(&addr->comp, 0.0f);
        if (t != 0.0f) { const float b = atomicAdd(&addr->sum, -t); const float c2 = -mct_two_sum_err(b, -t, b - t); if (c2 != 0.0f) atomicAdd(&addr->comp, c2); }
    }
}
// v3: comp read before the add (L2 load, in flight with the atomic); fold past 2u of the sum
__device__ __forceinline__ void add_v3(mct_kahan_pair_t* addr, double v) {
    const float hi = (float)v; const float lo = (float)(v - (double)hi);
    if (hi == 0.0f) return;
    const float seen = __ldcg(&addr->comp);
    const float old = atomicAdd(&addr->sum, hi);
    const float c = -(mct_two_sum_err(old, hi, old + hi) + lo);
    if (c != 0.0f) atomicAdd(&addr->comp, c);
    if (fabsf(seen) > 0x1p-23f * fabsf(old + hi)) {
        const float t = atomicExch(&addr->comp, 0.0f);
        if (t != 0.0f) { const float b = atomicAdd(&addr->sum, -t); const float c2 = -mct_two_sum_err(b, -t, b - t); if (c2 != 0.0f) atomicAdd(&addr->comp, c2); }
    }
}
// v4: never folds: the floor of one atomic and one RED
__device__ __forceinline__ void add_v4(mct_kahan_pair_t* addr, double v) {
    const float hi = (float)v; const float lo = (float)(v - (double)hi);
    const float old = atomicAdd(&addr->sum, hi);
    const float c = -(mct_two_sum_err(old, hi, old + hi) + lo);
    if (c != 0.0f) atomicAdd(&addr->comp, c);
}

template <int V>
__global__ void k(void* bins, int nbins, int iters, uint64_t seed, unsigned long long* sink) {
    const uint64_t t = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x;
    float acc = 0;
    for (int i = 0; i < iters; ++i) {
        const uint64_t h = mix(seed ^ (t * 0x9E3779B97F4A7C15ull + i));
        const int bin = (int)(h % nbins);
        const double w = 0.5 + (double)(h >> 40) * 0x1p-24;
        if (V == 0) atomicAdd((float*)bins + bin, (float)w);
        else if (V == 1) { long long q = (long long)(w * 0x1p32); unsigned long long o = atomicAdd((unsigned long long*)bins + bin, (unsigned long long)q); if ((long long)o < 0) acc += 1; }
        else if (V == 2) mct_atomic_add_kahan((mct_kahan_pair_t*)bins + bin, w);
        else if (V == 3) mct_atomic_add_compensated((mct_kahan_pair_t*)bins + bin, w);
        else if (V == 4) add_v2((mct_kahan_pair_t*)bins + bin, w);
        else if (V == 5) add_v3((mct_kahan_pair_t*)bins + bin, w);
        else if (V == 6) add_v4((mct_kahan_pair_t*)bins + bin, w);
        else acc += (float)w;
    }
    if (acc == 12345.f) atomicAdd(sink, 1ull);
}

int main() {
    const int nbins = 100000, iters = 64, grid = 132 * 16, block = 128;
    void* bins; cudaMalloc(&bins, nbins * 8); unsigned long long* sink; cudaMalloc(&sink, 8);
    const char* names[] = {"f32 atomicAdd (RED)", "i64 atom with return", "kahan CAS (old)", "compensated (final)", "v2 no load, local fold", "v3 ldcg", "v4 no fold", "walk only"};
    cudaEvent_t a, b; cudaEventCreate(&a); cudaEventCreate(&b);
    for (int rep = 0; rep < 2; ++rep)
    for (int v = 0; v < 8; ++v) {
        float best = 1e9;
        for (int r = 0; r < 5; ++r) {
            cudaMemset(bins, 0, nbins * 8);
            cudaEventRecord(a);
            switch (v) { case 0: k<0><<<grid, block>>>(bins, nbins, iters, r, sink); break; case 1: k<1><<<grid, block>>>(bins, nbins, iters, r, sink); break;
              case 2: k<2><<<grid, block>>>(bins, nbins, iters, r, sink); break; case 3: k<3><<<grid, block>>>(bins, nbins, iters, r, sink); break;
              case 4: k<4><<<grid, block>>>(bins, nbins, iters, r, sink); break; case 5: k<5><<<grid, block>>>(bins, nbins, iters, r, sink); break;
              case 6: k<6><<<grid, block>>>(bins, nbins, iters, r, sink); break; default: k<7><<<grid, block>>>(bins, nbins, iters, r, sink); }
            cudaEventRecord(b); cudaEventSynchronize(b); float ms; cudaEventElapsedTime(&ms, a, b); if (ms < best) best = ms;
        }
        // accuracy check of the pair methods: total vs double
        printf("%-28s %.3f ms  (%.1f Gupd/s)\n", names[v], best, (double)grid * block * iters / best / 1e6);
    }
    printf("%s\n", cudaGetErrorString(cudaGetLastError()));
    return 0;
}
