/* SPDX-License-Identifier: BSD-3-Clause */
/** @file warp_scan.cuh  Inclusive and exclusive prefix scans of one warp by shuffles
 * (the first level of the prefix-sum seed), over the full warp or over any set of
 * lanes given as a mask.
 *
 * Overview: the Kogge–Stone / Hillis–Steele scan of the seed — log2(32) = 5 steps, in
 * step d each lane adds the value d lanes below it — done in registers with
 * __shfl_up_sync, so it needs no shared memory and no __syncthreads.
 *
 * Masks: every lane named in `mask` must call the scan together and no other lane.
 * The lanes are scanned in increasing lane order. Three paths, chosen by the mask
 * (warp-uniform, so the branch does not diverge):
 * - the full warp (0xffffffff), the fast path;
 * - a prefix of lanes [0, w) (the partial last warp of a block, the warp totals of a
 *   block), still __shfl_up_sync: a lane only reads lanes below it, all in the mask;
 * - any other mask: each lane reads the d-th mask lane below it with __shfl_sync.
 * No path shuffles from a lane outside the mask, which is undefined on a GPU and an
 * error under the CPU emulation.
 *
 * Performance: 5 shuffle + operator steps for 32 lanes (ceil(log2(popc(mask))) in
 * general), one more shuffle for the exclusive form and one for the aggregate.
 *
 * Determinism: the order of the operator applications depends only on the mask, so
 * results are bitwise reproducible for a given mask; a float sum is a tree of depth
 * at most 5 (+1 for the init of the exclusive form). */
#ifndef MCT_WARP_SCAN_CUH
#define MCT_WARP_SCAN_CUH

#include "mctally/device/thread/thread_operators.cuh"
#include "mctally/device/warp/warp_shfl.cuh"

/** Lanes strictly below the calling lane. */
__device__ __forceinline__ unsigned mct__lanemask_lt(int lane) { return (1u << lane) - 1u; }

/** Position of the k-th (0-based) set bit of `mask`; `mask` has more than k bits. */
__device__ __forceinline__ int mct__nth_set_bit(unsigned mask, int k) {
    for (int i = 0; i < k; ++i) mask &= mask - 1u;
    return __ffs((int)mask) - 1;
}

/** Inclusive scan of `v` over the lanes of `mask`: lane i gets v(l0) op ... op v(i),
 * l0 the lowest lane of the mask. */
template <typename T, typename Op>
__device__ __forceinline__ T mct_warp_scan_inclusive(T v, Op op, unsigned mask = MCT_FULL_WARP_MASK) {
    const int lane = mct_lane();
    if (mask == MCT_FULL_WARP_MASK) {
MCT_UNROLL
        for (int d = 1; d < 32; d <<= 1) {
            const T other = mct_shfl_up(mask, v, (unsigned)d);
            if (lane >= d) v = op(other, v);
        }
        return v;
    }
    if ((mask & (mask + 1u)) == 0u) { /* lanes [0, width): sources lane - d stay inside */
        const int width = __popc(mask);
        for (int d = 1; d < width; d <<= 1) {
            const T other = mct_shfl_up(mask, v, (unsigned)d);
            if (lane >= d) v = op(other, v);
        }
        return v;
    }
    const int rank = __popc(mask & mct__lanemask_lt(lane)), count = __popc(mask);
    for (int d = 1; d < count; d <<= 1) {
        /* The lane of rank (rank - d) when it exists, else this lane (value unused). */
        const int src = rank >= d ? mct__nth_set_bit(mask, rank - d) : lane;
        const T other = mct_shfl_idx(mask, v, src);
        if (rank >= d) v = op(other, v);
    }
    return v;
}

/** The lane of `mask` just below the calling lane, or the calling lane itself when it
 * is the lowest lane of the mask. */
__device__ __forceinline__ int mct__warp_prev_lane(unsigned mask, int lane) {
    const unsigned below = mask & mct__lanemask_lt(lane);
    return below ? 31 - __clz((int)below) : lane;
}

/** Inclusive scan that also returns, in every lane of the mask, the total of the
 * mask's lanes (the inclusive value of its highest lane). */
template <typename T, typename Op>
__device__ __forceinline__ T mct_warp_scan_inclusive(T v, Op op, unsigned mask, T& warp_aggregate) {
    const T incl = mct_warp_scan_inclusive(v, op, mask);
    warp_aggregate = mct_shfl_idx(mask, incl, 31 - __clz((int)mask));
    return incl;
}

/** Exclusive scan seeded with `init`: the lowest lane of the mask gets `init`, lane i
 * gets init op v(l0) op ... op v(i-1). Built as the inclusive scan shifted up by one
 * lane, so `init` is applied once per lane (it need not be an identity). */
template <typename T, typename Op>
__device__ __forceinline__ T mct_warp_scan_exclusive(T v, T init, Op op, unsigned mask = MCT_FULL_WARP_MASK) {
    const int lane = mct_lane();
    const T incl = mct_warp_scan_inclusive(v, op, mask);
    const int prev = mct__warp_prev_lane(mask, lane);
    const T before = mask == MCT_FULL_WARP_MASK ? mct_shfl_up(mask, incl, 1u) : mct_shfl_idx(mask, incl, prev);
    return prev == lane ? init : op(init, before);
}

/** Exclusive scan that also returns the total of the mask's lanes (without init). */
template <typename T, typename Op>
__device__ __forceinline__ T mct_warp_scan_exclusive(T v, T init, Op op, unsigned mask, T& warp_aggregate) {
    const int lane = mct_lane();
    const T incl = mct_warp_scan_inclusive(v, op, mask);
    warp_aggregate = mct_shfl_idx(mask, incl, 31 - __clz((int)mask));
    const int prev = mct__warp_prev_lane(mask, lane);
    const T before = mask == MCT_FULL_WARP_MASK ? mct_shfl_up(mask, incl, 1u) : mct_shfl_idx(mask, incl, prev);
    return prev == lane ? init : op(init, before);
}

/** Sum shorthands (the seed's prefix sum). */
template <typename T>
__device__ __forceinline__ T mct_warp_inclusive_sum(T v, unsigned mask = MCT_FULL_WARP_MASK) {
    return mct_warp_scan_inclusive(v, mct_op_sum<T>(), mask);
}
template <typename T>
__device__ __forceinline__ T mct_warp_exclusive_sum(T v, unsigned mask = MCT_FULL_WARP_MASK) {
    return mct_warp_scan_exclusive(v, T(0), mct_op_sum<T>(), mask);
}

#endif /* MCT_WARP_SCAN_CUH */
