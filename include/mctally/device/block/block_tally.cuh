/* SPDX-License-Identifier: BSD-3-Clause */
/** @file block_tally.cuh  Block-scope adds into the B bins of a tally: the one
 * place where the `shared` method (a block-private copy of the bins in shared
 * memory) can run, with every other method forwarded to mct_add.
 *
 * Usage (every thread of the block constructs it and calls flush(), converged;
 * add() from any lane, any number of times in between, in divergent code):
 *
 *     static __global__ void k(mct_tally_view_t view, ...) {
 *         mct_block_tally<double> tally(view);      // method from view.method
 *         for (...) if (hit) tally.add(voxel, energy);
 *         tally.flush();
 *     }
 *     MCT_LAUNCH(k, grid, block, mct_block_tally_smem_bytes<double>(view), stream, view, ...);
 *
 * With M = MCT_METHOD_SHARED (or view.method == shared in the run-time form)
 * the block keeps the B bins in dynamic shared memory: the launch must give
 * mct_block_tally_smem_bytes bytes (B * sizeof(T); the caller checks it fits,
 * 48 KiB without opt-in). They are zeroed at construction, take shared-memory
 * atomics in add(), and flush() adds each non-zero bin into the tally with one
 * global atomic. Overview: turns contention on hot bins into cheap shared
 * atomics. Performance: pays B zeroes and up to B global atomics per block, so
 * it wins when a block adds many more contributions than B. Determinism:
 * not_guaranteed for floats (order of shared and global atomics varies), exact
 * for integers.
 *
 * For every other method construction and flush() are no-ops (no barrier) and
 * add() is mct_add<T, M>. */
#ifndef MCT_BLOCK_TALLY_CUH
#define MCT_BLOCK_TALLY_CUH

#include <stddef.h>
#include <stdint.h>

#include "mctally/device/block/block_privatized.cuh"
#include "mctally/device/mct_add.cuh"
#include "mctally/device/mct_shared.cuh"

/** The method argument that means "view.method, at run time". */
constexpr mct_method_t MCT_METHOD_FROM_VIEW = MCT_METHOD_COUNT;

/** Dynamic shared memory a launch must give to a kernel using
 * mct_block_tally<T, M> on nbins bins (host and device). */
template <typename T, mct_method_t M>
MCT_HD inline size_t mct_block_tally_smem_bytes(int64_t nbins) {
    return M == MCT_METHOD_SHARED ? (size_t)nbins * sizeof(T) : 0;
}

/** The same for the run-time form, mct_block_tally<T> (host and device). */
template <typename T>
MCT_HD inline size_t mct_block_tally_smem_bytes(const mct_tally_view_t& view) {
    return view.method == MCT_METHOD_SHARED ? (size_t)view.nbins * sizeof(T) : 0;
}

template <typename T, mct_method_t M = MCT_METHOD_FROM_VIEW>
struct mct_block_tally {
    static_assert(M == MCT_METHOD_FROM_VIEW || mct_method_serves<T, M>(),
                  "this tally method cannot add values of this type");

    const mct_tally_view_t& view;
    T* bins_shared; /* the block's copy, when privatized */

    /** Every thread of the block, converged. */
    __device__ __forceinline__ explicit mct_block_tally(const mct_tally_view_t& v) : view(v), bins_shared(NULL) {
        if (privatized()) {
            MCT_EXTERN_SHARED(T, smem);
            bins_shared = smem;
            mct_block_privatized_zero(bins_shared, view.nbins);
        }
    }

    /** Whether this block keeps its own copy of the bins (warp- and block-uniform). */
    __device__ __forceinline__ bool privatized(void) const {
        if constexpr (M == MCT_METHOD_FROM_VIEW)
            return view.method == MCT_METHOD_SHARED;
        else
            return M == MCT_METHOD_SHARED;
    }

    /** Any lane, any time: bin += value (out-of-range bins dropped and flagged). */
    __device__ __forceinline__ void add(int64_t bin, T value) {
        if (privatized()) {
            if (bin < 0 || bin >= view.nbins)
                mct_tally_raise(view.flags, MCT_TALLY_FLAG_OUT_OF_RANGE);
            else
                mct_atomic_add(bins_shared + bin, value);
        } else if constexpr (M == MCT_METHOD_FROM_VIEW) {
            mct_add<T>(view, bin, value);
        } else {
            mct_add<T, M>(view, bin, value);
        }
    }

    /** Every thread of the block, converged, once, after its last add(). */
    __device__ __forceinline__ void flush(void) {
        if (privatized()) mct_block_privatized_flush(bins_shared, (T*)view.bins, view.nbins);
    }
};

#endif /* MCT_BLOCK_TALLY_CUH */
