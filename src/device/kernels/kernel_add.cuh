/* SPDX-License-Identifier: BSD-3-Clause */
/** @file kernel_add.cuh  Thin kernels behind mct_tally_add: whole arrays of
 * (key, f64 value) added into a tally with its method, and the kernels of the
 * sort_reduce post-pass. */
#ifndef MCT_KERNEL_ADD_CUH
#define MCT_KERNEL_ADD_CUH

#include <math.h>
#include <stdint.h>

#include "mctally/device/block/block_tally.cuh"

#define MCT_ADD_THREADS 256

/** An f64 input value in the tally's type: floats round to nearest; integers
 * round to the nearest integer, ties to even (llrint on the host, which the CPU
 * backend must match), then wrap to the type's width. */
template <typename T>
__device__ __forceinline__ T mct__from_f64(double v) {
    if constexpr (std::is_floating_point<T>::value) {
        return (T)v;
    } else {
#if MCT_IS_NVCC
        return (T)(uint64_t)__double2ll_rn(v);
#else
        return (T)(uint64_t)llrint(v);
#endif
    }
}

/** Grid-stride loop: bin keys[i] += values[i] for i < n, each value first
 * converted to the tally's dtype (so every method, fixed and sort_reduce
 * included, adds what the tally's type can hold),
 * through mct_block_tally<T, M> (`shared` privatizes, every other method is
 * mct_add). Dynamic shared memory: mct_block_tally_smem_bytes<T, M>(nbins). */
template <typename T, mct_method_t M>
static __global__ void mct_kernel_add_arrays(mct_tally_view_t view, const uint32_t* keys, const double* values,
                                             int64_t n) {
    mct_block_tally<T, M> tally(view);
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x)
        tally.add((int64_t)keys[i], mct__from_f64<T>(values[i]));
    tally.flush();
}

#if !MCT_IS_EMULATED /* the sort_reduce pass needs CUB: CUDA build only */

/** sort_reduce, step 1: the appended pairs as separate key (bin) and value-bit
 * arrays, the form radix sorts take. */
static __global__ void mct_kernel_sort_unpack(const mct_sort_pair_t* pairs, int64_t n, uint32_t* bins,
                                              unsigned long long* value_bits) {
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x) {
        bins[i] = pairs[i].bin;
        value_bits[i] = (unsigned long long)__double_as_longlong(pairs[i].value);
    }
}

/** sort_reduce, last step: each run's total into its bin. Every bin appears in
 * one run at most, so a plain read-modify-write is race free. */
template <typename T>
static __global__ void mct_kernel_sort_scatter(T* bins, const uint32_t* run_bins, const double* run_sums,
                                               const int* num_runs) {
    for (int64_t r = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; r < *num_runs; r += (int64_t)gridDim.x * blockDim.x)
        bins[run_bins[r]] += mct__from_f64<T>(run_sums[r]);
}

#endif /* !MCT_IS_EMULATED */

#endif /* MCT_KERNEL_ADD_CUH */
