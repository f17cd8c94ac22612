/* SPDX-License-Identifier: BSD-3-Clause */
/** @file test_thread_run.cu  A thread's runs of adds into one bin (mct_thread_run):
 * each thread adds its own sequence of (bin, value) pairs, runs of one bin of random
 * lengths, in range or not (-1 among them), of different lengths per thread (so lanes
 * diverge); the tally must receive exactly one add per maximal run with the run's sum,
 * every bin's total must equal the sum of its values (exact: small integers in double,
 * wrapping int32), a NaN must reach its bin, and a second flush must add nothing; with
 * 64-bit and with 32-bit bins (the run's Bin type). Also
 * which methods accept runs (mct_method_accepts_runs). Runs on a GPU and under the
 * CUDA emulation (test_thread_run_emulated.cpp). */
#include <math.h>
#include <stdio.h>

#include <type_traits>
#include <vector>

#include "mctally/device/mct_launch.cuh"
#include "mctally/device/thread/thread_atomic.cuh"
#include "mctally/device/thread/thread_run.cuh"
#include "mctally/mct_types.h"
#include "scan_test_common.h"

#define NBINS 40
#define NTHREADS 200

/** Thread t adds pairs [offsets[t], offsets[t + 1]) through a run; each run that
 * ends is counted, and added to its bin or counted as outside. The run keeps its bin
 * as a Bin. */
template <typename T, bool NONNEG, typename Bin>
static __global__ void run_kernel(const int64_t* bins, const T* values, const int64_t* offsets, int nthreads, T* sums,
                                  unsigned long long* emitted, unsigned long long* outside) {
    const int t = (int)(blockIdx.x * blockDim.x + threadIdx.x);
    if (t >= nthreads) return;
    mct_thread_run<T, NONNEG, Bin> run;
    auto out = [&](Bin b, T s) {
        atomicAdd(emitted, 1ull);
        if (b >= 0 && b < NBINS)
            mct_atomic_add(sums + b, s);
        else
            atomicAdd(outside, 1ull);
    };
    for (int64_t i = offsets[t]; i < offsets[t + 1]; ++i) run.add((Bin)bins[i], values[i], out);
    run.flush(out);
    run.flush(out); /* nothing left: adds nothing */
}

template <typename T>
struct run_case {
    std::vector<int64_t> bins, offsets;
    std::vector<T> values;
};

/** Random sequences: runs of 1..16 values; a run's bin is out of range 1 time in 8
 * (-1 or NBINS + 3; NBINS + 3 alone for nonneg), and may repeat the previous run's
 * bin (then both are one run). */
template <typename T>
static run_case<T> make_case(uint64_t seed, bool nonneg) {
    run_case<T> c;
    uint64_t s = seed;
    c.offsets.push_back(0);
    for (int t = 0; t < NTHREADS; ++t) {
        const int n = (int)(test_splitmix64(&s) % 120); /* 0..119 values: some threads have none */
        int64_t bin = 0;
        for (int k = 0; k < n;) {
            const uint64_t r = test_splitmix64(&s);
            bin = r % 8 == 0 ? (r % 16 == 0 && !nonneg ? -1 : NBINS + 3) : (int64_t)((r >> 8) % NBINS);
            const int len = 1 + (int)((r >> 20) % 16);
            for (int j = 0; j < len && k < n; ++j, ++k) {
                c.bins.push_back(bin);
                c.values.push_back(test_value<T>(&s, true));
            }
        }
        c.offsets.push_back((int64_t)c.bins.size());
    }
    return c;
}

/** Runs a case on the device; returns sums, and the counts of adds and of outside adds. */
template <typename T, bool NONNEG = false, typename Bin = int64_t>
static void run_device(const run_case<T>& c, std::vector<T>& sums, unsigned long long* emitted,
                       unsigned long long* outside) {
    const size_t n = c.bins.size() ? c.bins.size() : 1;
    int64_t *d_bins, *d_off;
    T *d_values, *d_sums;
    unsigned long long* d_counts;
    CHECK_CUDA(cudaMalloc((void**)&d_bins, n * sizeof(int64_t)));
    CHECK_CUDA(cudaMalloc((void**)&d_values, n * sizeof(T)));
    CHECK_CUDA(cudaMalloc((void**)&d_off, c.offsets.size() * sizeof(int64_t)));
    CHECK_CUDA(cudaMalloc((void**)&d_sums, NBINS * sizeof(T)));
    CHECK_CUDA(cudaMalloc((void**)&d_counts, 2 * sizeof(unsigned long long)));
    CHECK_CUDA(cudaMemcpy(d_bins, c.bins.data(), c.bins.size() * sizeof(int64_t), cudaMemcpyHostToDevice));
    CHECK_CUDA(cudaMemcpy(d_values, c.values.data(), c.values.size() * sizeof(T), cudaMemcpyHostToDevice));
    CHECK_CUDA(cudaMemcpy(d_off, c.offsets.data(), c.offsets.size() * sizeof(int64_t), cudaMemcpyHostToDevice));
    CHECK_CUDA(cudaMemset(d_sums, 0, NBINS * sizeof(T)));
    CHECK_CUDA(cudaMemset(d_counts, 0, 2 * sizeof(unsigned long long)));
    const int nthreads = (int)c.offsets.size() - 1;
    MCT_LAUNCH((run_kernel<T, NONNEG, Bin>), (nthreads + 63) / 64, 64, 0, 0, d_bins, d_values, d_off, nthreads, d_sums,
               d_counts, d_counts + 1);
    CHECK_CUDA(cudaGetLastError());
    CHECK_CUDA(cudaDeviceSynchronize());
    sums.assign(NBINS, T(0));
    unsigned long long counts[2];
    CHECK_CUDA(cudaMemcpy(sums.data(), d_sums, NBINS * sizeof(T), cudaMemcpyDeviceToHost));
    CHECK_CUDA(cudaMemcpy(counts, d_counts, sizeof counts, cudaMemcpyDeviceToHost));
    *emitted = counts[0];
    *outside = counts[1];
    cudaFree(d_bins), cudaFree(d_values), cudaFree(d_off), cudaFree(d_sums), cudaFree(d_counts);
}

/** a + b on the host, wrapping for signed integers (mct_plus is device code). */
template <typename T>
static T host_plus(T a, T b) {
    if constexpr (std::is_integral<T>::value) return (T)((uint64_t)a + (uint64_t)b);
    return a + b;
}

/** The reference: each thread's maximal runs of one bin, summed in order. */
template <typename T, bool NONNEG = false, typename Bin = int64_t>
static void check_case(uint64_t seed) {
    const run_case<T> c = make_case<T>(seed, NONNEG);
    std::vector<T> want(NBINS, T(0));
    unsigned long long runs = 0, runs_outside = 0;
    for (size_t t = 0; t + 1 < c.offsets.size(); ++t)
        for (int64_t i = c.offsets[t]; i < c.offsets[t + 1]; ++i) {
            const int64_t b = c.bins[i];
            if (i == c.offsets[t] || c.bins[i - 1] != b) {
                ++runs;
                runs_outside += b < 0 || b >= NBINS;
            }
            if (b >= 0 && b < NBINS) want[b] = host_plus(want[b], c.values[i]);
        }
    std::vector<T> got;
    unsigned long long emitted, outside;
    run_device<T, NONNEG, Bin>(c, got, &emitted, &outside);
    printf("seed %llu (%zu-byte values, %zu-byte bins%s): %zu values, %llu runs, %llu outside\n",
           (unsigned long long)seed, sizeof(T), sizeof(Bin), NONNEG ? ", nonnegative" : "", c.bins.size(), runs,
           runs_outside);
    ASSERT_EQ_U64(emitted, runs);
    ASSERT_EQ_U64(outside, runs_outside);
    for (int b = 0; b < NBINS; ++b) ASSERT_TRUE(test_same_bits(got[b], want[b]));
}

/** A NaN in a run makes the run's sum, and so its bin, NaN; the next bin is clean. */
static void check_nan(void) {
    run_case<double> c;
    c.bins = {3, 3, 3, 4};
    c.values = {1.0, NAN, 2.0, 5.0};
    c.offsets = {0, 4};
    std::vector<double> got;
    unsigned long long emitted, outside;
    run_device(c, got, &emitted, &outside);
    ASSERT_EQ_U64(emitted, 2);
    ASSERT_EQ_U64(outside, 0);
    ASSERT_TRUE(isnan(got[3]));
    ASSERT_EQ_F64(got[4], 5.0);
}

/* The nonnegative form has no flag: an int bin and a double sum are 16 bytes. */
static_assert(sizeof(mct_thread_run<double, true, int32_t>) == 16, "a flagless run is its bin and its sum");

int main(void) {
    if (!test_have_device()) return 77;
    for (uint64_t seed = 1; seed <= 3; ++seed) {
        check_case<double>(seed);
        check_case<int32_t>(seed + 100);
        check_case<double, true>(seed + 200);
        check_case<int32_t, true>(seed + 300);
        check_case<double, false, int32_t>(seed + 400);
        check_case<double, true, int32_t>(seed + 500); /* the phantom's runs */
    }
    check_nan();
    /* Runs keep the promise of methods that add in no fixed order or in the
     * thread's own order; not of bitwise ones, integer tallies or Kahan's. */
    ASSERT_TRUE(mct_method_accepts_runs(MCT_METHOD_ATOMIC, MCT_DTYPE_F64));
    ASSERT_TRUE(mct_method_accepts_runs(MCT_METHOD_BLOCK_REDUCE, MCT_DTYPE_F32));
    ASSERT_TRUE(mct_method_accepts_runs(MCT_METHOD_REPLICATED, MCT_DTYPE_F64));
    ASSERT_TRUE(!mct_method_accepts_runs(MCT_METHOD_FIXED, MCT_DTYPE_F64));
    ASSERT_TRUE(!mct_method_accepts_runs(MCT_METHOD_ATOMIC, MCT_DTYPE_I32));
    ASSERT_TRUE(!mct_method_accepts_runs(MCT_METHOD_KAHAN, MCT_DTYPE_F32));
    ASSERT_TRUE(!mct_method_accepts_runs(MCT_METHOD_KAHAN_NAIVE, MCT_DTYPE_F32));
    ASSERT_TRUE(!mct_method_accepts_runs(MCT_METHOD_COUNT, MCT_DTYPE_F64));
    ASSERT_TRUE(!mct_method_accepts_runs(MCT_METHOD_ATOMIC, MCT_DTYPE_COUNT));
    printf("test_thread_run: ok\n");
    return 0;
}
