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
#include "mctally/device/thread/thread_checked.cuh"
#include "mctally/device/warp/warp_reduce.cuh"
#include "mctally/device/warp/warp_segmented_reduce.cuh"

template <typename T, int N>
struct mct_block_register_sums {
    T sums[N];
    /* Integer sums: the sign bits (i32) or carries (u64) of the adds so far,
     * OR-ed together; flush() raises OVERFLOW once when any add overflowed,
     * so an add costs one or two register instructions more, no branch. */
    typename std::conditional<std::is_integral<T>::value, T, int>::type overflow;

    __device__ __forceinline__ void zero(void) {
        MCT_UNROLL
        for (int b = 0; b < N; ++b) sums[b] = T(0);
        overflow = 0;
    }

    /* a + b, wrapping, the overflow remembered (integers); a + b (floats). */
    __device__ __forceinline__ T plus(T a, T b) {
        if constexpr (std::is_same<T, int32_t>::value) {
            const int32_t r = (int32_t)((uint32_t)a + (uint32_t)b);
            overflow |= (a ^ r) & (b ^ r); /* sign bit set: a and b of one sign, r of the other */
            return r;
        } else if constexpr (std::is_same<T, uint64_t>::value) {
            const uint64_t r = a + b;
            overflow |= (uint64_t)(r < a); /* the carry */
            return r;
        } else if constexpr (std::is_same<T, int64_t>::value) { /* fixed point */
            const int64_t r = (int64_t)((uint64_t)a + (uint64_t)b);
            overflow |= (a ^ r) & (b ^ r);
            return r;
        } else {
            return a + b;
        }
    }

    /* Whether an add of the sums so far overflowed. */
    __device__ __forceinline__ bool overflowed(void) const {
        if constexpr (std::is_same<T, int32_t>::value || std::is_same<T, int64_t>::value)
            return overflow < 0;
        else
            return overflow != 0;
    }

    /** bin += value for 0 <= bin < nbins <= N. Predicated adds keep the sums in
     * registers (an indexed store would put them in local memory); the other
     * bins add nothing, so a NaN or Inf stays in its own bin. */
    __device__ __forceinline__ void add(int64_t bin, T value) {
        MCT_UNROLL
        for (int b = 0; b < N; ++b) sums[b] = plus(sums[b], b == bin ? value : T(0));
    }

    /** add() for sums that live in memory anyway (the tally reached through a
     * pointer): one indexed load and store instead of N. */
    __device__ __forceinline__ void add_indexed(int64_t bin, T value) { sums[bin] = plus(sums[bin], value); }

    /** Every thread of the block, converged, once: the sums of nbins bins into
     * global[0, nbins). per_warp: one atomic per bin per warp (warp_reduce);
     * else one per bin per block through `warp_sums` (32 * nbins values of
     * shared storage). */
    __device__ __forceinline__ void flush(T* global, int nbins, bool per_warp, T* warp_sums, unsigned int* flags) {
        const int width = mct_warp_width_in_block(), lane = mct_lane(), warp = mct_thread_rank() >> 5;
        const mct_checked_plus op{flags};
        if (overflowed()) mct_tally_raise(flags, MCT_TALLY_FLAG_OVERFLOW);
        MCT_UNROLL
        for (int b = 0; b < N; ++b) {
            if (b >= nbins) break;
            const T s = mct_warp_reduce_sum(sums[b], width, op);
            if (lane != 0) continue;
            if (per_warp) {
                if (s != T(0)) mct_atomic_add(global + b, s, flags);
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
            for (int w = 0; w < nwarps; ++w) s = op(s, warp_sums[w * nbins + b]);
            if (s != T(0)) mct_atomic_add(global + b, s, flags);
        }
    }
};

#endif /* MCT_BLOCK_TALLY_REGISTERS_CUH */
