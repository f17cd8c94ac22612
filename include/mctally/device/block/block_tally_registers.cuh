/* SPDX-License-Identifier: BSD-3-Clause */
/** @file block_tally_registers.cuh  Register sums: each thread keeps its own
 * sum of each of N bins (N <= MCT_BLOCK_TALLY_REGISTER_BINS), so an add costs
 * N predicated adds and no memory traffic; flush() reduces each bin over the
 * warp (shuffles) and then either adds the warp's sums (warp_reduce) or sums
 * the warps' totals through a table in shared storage (block_reduce, 32 N
 * values) and adds one value per bin per block. What makes one hot bin or a
 * handful of bins run at memory speed. */
#ifndef MCT_BLOCK_TALLY_REGISTERS_CUH
#define MCT_BLOCK_TALLY_REGISTERS_CUH

#include <stdint.h>

#include "mctally/device/mct_cuda.cuh"
#include "mctally/device/thread/thread_atomic.cuh"
#include "mctally/device/warp/warp_reduce.cuh"
#include "mctally/device/warp/warp_segmented_reduce.cuh"

template <typename T, int N>
struct mct_block_register_sums {
    T sums[N];

    __device__ __forceinline__ void zero(void) {
        MCT_UNROLL
        for (int b = 0; b < N; ++b) sums[b] = T(0);
    }

    /** bin += value for 0 <= bin < nbins <= N. Predicated adds keep the sums in
     * registers (an indexed store would put them in local memory); the other
     * bins add nothing, so a NaN or Inf stays in its own bin. */
    __device__ __forceinline__ void add(int64_t bin, T value) {
        MCT_UNROLL
        for (int b = 0; b < N; ++b) sums[b] = mct_plus{}(sums[b], b == bin ? value : T(0));
    }

    /** add() for sums that live in memory anyway (the tally reached through a
     * pointer): one indexed load and store instead of N. */
    __device__ __forceinline__ void add_indexed(int64_t bin, T value) { sums[bin] = mct_plus{}(sums[bin], value); }

    /** Every thread of the block, converged, once: the sums of nbins bins into
     * global[0, nbins). per_warp: one atomic per bin per warp (warp_reduce);
     * else one per bin per block through `warp_sums` (32 * nbins values of
     * shared storage). */
    __device__ __forceinline__ void flush(T* global, int nbins, bool per_warp, T* warp_sums) {
        const int width = mct_warp_width_in_block(), lane = mct_lane(), warp = mct_thread_rank() >> 5;
        MCT_UNROLL
        for (int b = 0; b < N; ++b) {
            if (b >= nbins) break;
            const T s = mct_warp_reduce_sum(sums[b], width);
            if (lane != 0) continue;
            if (per_warp) {
                if (s != T(0)) mct_atomic_add(global + b, s);
            } else {
                warp_sums[warp * nbins + b] = s;
            }
        }
        if (per_warp) return;
        __syncthreads();
        /* Any block size: fewer threads than bins take several bins each. */
        const int nwarps = (mct_block_threads() + 31) >> 5;
        for (int b = mct_thread_rank(); b < nbins; b += mct_block_threads()) {
            T s = T(0);
            for (int w = 0; w < nwarps; ++w) s = mct_plus{}(s, warp_sums[w * nbins + b]);
            if (s != T(0)) mct_atomic_add(global + b, s);
        }
    }
};

#endif /* MCT_BLOCK_TALLY_REGISTERS_CUH */
