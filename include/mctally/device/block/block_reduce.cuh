/* SPDX-License-Identifier: BSD-3-Clause */
/** @file block_reduce.cuh  Block-wide sum: shuffle-reduce each warp, then the
 * first warp reduces the warp sums kept in shared memory. Any block size from 1
 * to 1024, including a partial last warp. */
#ifndef MCT_BLOCK_REDUCE_CUH
#define MCT_BLOCK_REDUCE_CUH

#include "mctally/device/warp/warp_reduce.cuh"

/** Shared storage of mct_block_reduce_sum; the caller declares it __shared__
 * (block-level primitives never allocate). */
template <typename T>
struct mct_block_reduce_storage {
    T warp_sums[32];
};

/** Sum of `v` over every thread of the block (combined by `op`, default +), returned in thread 0. Every thread
 * of the block must call it (it holds two __syncthreads); the storage may be
 * reused as soon as it returns. */
template <typename T, typename Op = mct__plain_plus>
__device__ __forceinline__ T mct_block_reduce_sum(T v, mct_block_reduce_storage<T>& storage, Op op = Op()) {
    const int rank = mct_thread_rank(), lane = rank & 31, warp = rank >> 5;
    const int nthreads = mct_block_threads(), nwarps = (nthreads + 31) >> 5;
    v = mct_warp_reduce_sum(v, mct_warp_width_in_block(), op);
    if (lane == 0) storage.warp_sums[warp] = v;
    __syncthreads();
    if (warp == 0) {
        v = lane < nwarps ? storage.warp_sums[lane] : T(0);
        v = mct_warp_reduce_sum(v, nthreads < 32 ? nthreads : 32, op);
    }
    __syncthreads();
    return v;
}

#endif /* MCT_BLOCK_REDUCE_CUH */
