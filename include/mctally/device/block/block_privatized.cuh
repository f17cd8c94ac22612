/* SPDX-License-Identifier: BSD-3-Clause */
/** @file block_privatized.cuh  A block-private copy of n bins in shared memory:
 * zeroed by the whole block at the start, flushed with one global atomic per
 * non-zero bin at the end (Bossler's "shared", CUB's privatized histogram).
 * Shared by mct_block_counter (one bin) and mct_block_tally (B bins). */
#ifndef MCT_BLOCK_PRIVATIZED_CUH
#define MCT_BLOCK_PRIVATIZED_CUH

#include <stdint.h>

#include "mctally/device/mct_cuda.cuh"
#include "mctally/device/thread/thread_checked.cuh"

/* The strided loops below are not unrolled: an unrolled loop starts with its
 * trip count, a 64-bit division by the block's size, which costs more than the
 * whole loop where a block has fewer bins than threads. */

/** Zeroes s[0, n); every thread of the block calls it, converged. The trailing
 * barrier orders the zeroing before anyone's first add. */
template <typename T>
__device__ __forceinline__ void mct_block_privatized_zero(T* s, int64_t n) {
MCT_NO_UNROLL
    for (int64_t k = mct_thread_rank(); k < n; k += mct_block_threads()) s[k] = T(0);
    __syncthreads();
}

/** Adds the non-zero bins of s[0, n) into global[0, n) (integer adds checked,
 * overflow raised in `flags`); every thread of the block calls it, converged. The leading barrier waits for everyone's adds;
 * the bins are shared out among the threads, so each bin costs one atomic per
 * block at most. */
template <typename T>
__device__ __forceinline__ void mct_block_privatized_flush(const T* s, T* global, int64_t n, unsigned int* flags) {
    __syncthreads();
MCT_NO_UNROLL
    for (int64_t k = mct_thread_rank(); k < n; k += mct_block_threads()) {
        const T v = s[k];
        if (v != T(0)) mct_atomic_add(global + k, v, flags);
    }
}

#endif /* MCT_BLOCK_PRIVATIZED_CUH */
