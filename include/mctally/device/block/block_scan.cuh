/* SPDX-License-Identifier: BSD-3-Clause */
/** @file block_scan.cuh  Block-wide prefix scans (the second level of the prefix-sum
 * seed): each warp scans by shuffles, the warp totals go through shared memory, and
 * each thread adds the total of the warps before it.
 *
 * Overview: any 1-D, 2-D or 3-D block whose thread count is a multiple of 32, up to
 * 1024; threads are ordered by their linear rank (x fastest). One value per thread, or
 * ITEMS values per thread in a blocked arrangement (thread r holds items
 * [r*ITEMS, (r+1)*ITEMS) of the block's sequence), which is how the device scan uses it.
 *
 * Storage: the caller declares `__shared__ mct_block_scan_storage<T> s;` (block-level
 * primitives never allocate, as CUB's TempStorage). Every thread of the block must call
 * the scan (it holds __syncthreads). The storage may be reused after the next
 * __syncthreads() of the block, not before: threads may still be reading it.
 *
 * Performance: up to 8 warps, each thread folds the warp totals before its warp
 * itself (one barrier); above 8 warps the first warp scans the totals with a masked
 * warp scan, as the seed does (two barriers, fewer shared-memory reads).
 *
 * Determinism: the association of the operator depends only on the block size, so
 * results are bitwise reproducible for a given block size. A float sum of the block's
 * values is a tree of depth at most ITEMS + 5 + 8 (block of up to 8 warps) or
 * ITEMS + 5 + 5 (more warps), +1 for the init of the exclusive form. */
#ifndef MCT_BLOCK_SCAN_CUH
#define MCT_BLOCK_SCAN_CUH

#include "mctally/device/warp/warp_reduce.cuh"
#include "mctally/device/warp/warp_scan.cuh"

/** Shared storage of the block scans. */
template <typename T>
struct mct_block_scan_storage {
    T warp_totals[32];
};

/** The core of every block scan: returns the exclusive prefix of `v` over the block
 * without any init (op-combination of the values of all lower-ranked threads), which
 * is undefined in thread 0, and writes the block's total to `block_aggregate` in
 * every thread. */
template <typename T, typename Op>
__device__ __forceinline__ T mct_block_scan_exclusive_raw(T v, Op op, mct_block_scan_storage<T>& s,
                                                          T& block_aggregate) {
    const int rank = mct_thread_rank(), lane = rank & 31, warp = rank >> 5;
    const int nwarps = mct_block_threads() >> 5;
    const T incl = mct_warp_scan_inclusive(v, op);
    const T up = mct_shfl_up(MCT_FULL_WARP_MASK, incl, 1u); /* exclusive in the warp, lane > 0 */
    if (lane == 31) s.warp_totals[warp] = incl;
    __syncthreads();
    T warp_prefix = incl; /* unused in warp 0 */
    if (nwarps <= 8) {
        /* Every thread folds the totals in the same order, so all agree bitwise. */
        T acc = s.warp_totals[0];
        for (int w = 1; w < nwarps; ++w) {
            if (w == warp) warp_prefix = acc;
            acc = op(acc, s.warp_totals[w]);
        }
        block_aggregate = acc;
    } else {
        if (warp == 0 && lane < nwarps) {
            const T t = mct_warp_scan_inclusive(s.warp_totals[lane], op, mct_warp_prefix_mask(nwarps));
            s.warp_totals[lane] = t;
        }
        __syncthreads();
        if (warp > 0) warp_prefix = s.warp_totals[warp - 1];
        block_aggregate = s.warp_totals[nwarps - 1];
    }
    if (warp == 0) return up;
    return lane == 0 ? warp_prefix : op(warp_prefix, up);
}

/** mct_block_scan_exclusive_raw with the block total written to
 * *block_aggregate when asked for (non-NULL). */
template <typename T, typename Op>
__device__ __forceinline__ T mct__block_scan_prefix(T v, Op op, mct_block_scan_storage<T>& s, T* block_aggregate) {
    T total;
    const T excl = mct_block_scan_exclusive_raw(v, op, s, total);
    if (block_aggregate) *block_aggregate = total;
    return excl;
}

/** The same for ITEMS values per thread in a blocked arrangement: each
 * thread's items are first scanned inclusively in place, and the prefix is
 * that of its last item. */
template <int ITEMS, typename T, typename Op>
__device__ __forceinline__ T mct__block_scan_blocked_prefix(T (&items)[ITEMS], Op op, mct_block_scan_storage<T>& s,
                                                            T* block_aggregate) {
MCT_UNROLL
    for (int j = 1; j < ITEMS; ++j) items[j] = op(items[j - 1], items[j]);
    return mct__block_scan_prefix(items[ITEMS - 1], op, s, block_aggregate);
}

/** Inclusive scan of one value per thread; optionally the block total. */
template <typename T, typename Op>
__device__ __forceinline__ T mct_block_scan_inclusive(T v, Op op, mct_block_scan_storage<T>& s,
                                                      T* block_aggregate = nullptr) {
    const T excl = mct__block_scan_prefix(v, op, s, block_aggregate);
    return mct_thread_rank() == 0 ? v : op(excl, v);
}

/** Exclusive scan of one value per thread seeded with `init` (thread 0 gets init);
 * optionally the block total, without init. */
template <typename T, typename Op>
__device__ __forceinline__ T mct_block_scan_exclusive(T v, T init, Op op, mct_block_scan_storage<T>& s,
                                                      T* block_aggregate = nullptr) {
    const T excl = mct__block_scan_prefix(v, op, s, block_aggregate);
    return mct_thread_rank() == 0 ? init : op(init, excl);
}

/** Inclusive scan of ITEMS values per thread in a blocked arrangement, in place. */
template <int ITEMS, typename T, typename Op>
__device__ __forceinline__ void mct_block_scan_inclusive(T (&items)[ITEMS], Op op, mct_block_scan_storage<T>& s,
                                                         T* block_aggregate = nullptr) {
    const T excl = mct__block_scan_blocked_prefix(items, op, s, block_aggregate);
    if (mct_thread_rank() != 0) {
MCT_UNROLL
        for (int j = 0; j < ITEMS; ++j) items[j] = op(excl, items[j]);
    }
}

/** Exclusive scan of ITEMS values per thread in a blocked arrangement, in place,
 * seeded with `init`. */
template <int ITEMS, typename T, typename Op>
__device__ __forceinline__ void mct_block_scan_exclusive(T (&items)[ITEMS], T init, Op op,
                                                         mct_block_scan_storage<T>& s,
                                                         T* block_aggregate = nullptr) {
    const T excl = mct__block_scan_blocked_prefix(items, op, s, block_aggregate);
    const T prefix = mct_thread_rank() == 0 ? init : op(init, excl);
MCT_UNROLL
    for (int j = ITEMS - 1; j > 0; --j) items[j] = op(prefix, items[j - 1]);
    items[0] = prefix;
}

#endif /* MCT_BLOCK_SCAN_CUH */
