/* SPDX-License-Identifier: BSD-3-Clause */
/** @file block_tally.cuh  Block-scope adds into the B bins of a tally: the
 * place where the methods that keep a block's contributions before they reach
 * global memory (`shared`, `block_reduce`, `warp_reduce`, `kahan`) run, with
 * every other method forwarded to mct_add.
 *
 * Usage (every thread of the block constructs it and calls flush(), converged;
 * add() from any lane, any number of times in between, in divergent code):
 *
 *     static __global__ void k(mct_tally_view_t view, ...) {
 *         MCT_EXTERN_SHARED(unsigned char, smem);
 *         mct_block_tally<double> tally(view, smem); // method from view.method
 *         for (...) if (hit) tally.add(voxel, energy);
 *         tally.flush();
 *     }
 *     MCT_LAUNCH(k, grid, block, mct_block_tally_smem_bytes<double>(view), stream, view, ...);
 *
 * Storage: the tally's shared memory is the caller's to place, as CUB's
 * TempStorage is: the constructor takes a pointer to
 * mct_block_tally_smem_bytes(...) bytes of block-shared memory, 16-byte
 * aligned (dynamic shared memory at any offset, or a __shared__ array). A kernel
 * that keeps data of its own in shared memory puts it beside the tally's. The
 * constructor without storage takes the start of the dynamic shared memory.
 *
 * Modes (block_tally_mode.cuh, mct_block_mode_of), one file each:
 * - shared: a block-private copy of the B bins (block_privatized.cuh), zeroed
 *   at construction, shared-memory atomics in add(), one global atomic per
 *   non-zero bin in flush() (Bossler's "shared", CUB's privatized histogram).
 *   The caller checks it fits (48 KiB without opt-in).
 * - block_reduce and warp_reduce, B <= MCT_BLOCK_TALLY_REGISTER_BINS: register
 *   sums (block_tally_registers.cuh).
 * - block_reduce, larger B that fits in shared memory: the shared copy, with
 *   the warp's adds aggregated first (block_tally_aggregated.cuh); larger B,
 *   and warp_reduce above the register bins: the same aggregation straight into
 *   the global bins.
 * - kahan, when B pairs fit in shared memory: shared (sum, comp) pairs
 *   (block_tally_kahan.cuh); kahan_naive keeps Liu's global-only update.
 * - fixed: block_reduce's modes, on the int64 fixed-point values each add()
 *   converts first; per lane in the run-time form (mct_block_mode_of_view).
 * - every other method: per lane; construction and flush() are no-ops (no
 *   barrier) and add() is mct_add<T, M>.
 * Determinism: not_guaranteed for floats (the order of atomics varies), exact
 * for integers, whose adds (shared atomics, register and warp sums, flushes)
 * are all checked for overflow (thread_checked.cuh). */
#ifndef MCT_BLOCK_TALLY_CUH
#define MCT_BLOCK_TALLY_CUH

#include <stddef.h>
#include <stdint.h>

#include <type_traits>

#include "mctally/device/block/block_privatized.cuh"
#include "mctally/device/block/block_tally_aggregated.cuh"
#include "mctally/device/block/block_tally_kahan.cuh"
#include "mctally/device/block/block_tally_mode.cuh"
#include "mctally/device/block/block_tally_registers.cuh"
#include "mctally/device/mct_add.cuh"
#include "mctally/device/mct_shared.cuh"

/** Shared storage a launch must give to a kernel using mct_block_tally<T, M>
 * on nbins bins (host and device). */
template <typename T, mct_method_t M>
MCT_HD inline size_t mct_block_tally_smem_bytes(int64_t nbins) {
    return mct_block_tally_storage_bytes(M, nbins, sizeof(T));
}

/** The same for the run-time form, mct_block_tally<T> (host and device). */
template <typename T>
MCT_HD inline size_t mct_block_tally_smem_bytes(const mct_tally_view_t& view) {
    return mct_block_mode_storage_bytes(mct_block_mode_of_view(view.method, view.nbins, sizeof(T)), view.method,
                                        view.nbins, sizeof(T));
}

/** Whether mct_block_tally<T, M, MODE> can run in mode x: MODE alone when
 * fixed, every mode of method M otherwise (every mode for the run-time form). */
template <typename T, mct_method_t M, mct_block_mode_t MODE>
MCT_HD constexpr bool mct_block_tally_can(mct_block_mode_t x) {
    /* mct_block_mode_of depends on the bin count only through two
     * thresholds: a count on each side of both gives every mode M has. */
    return MODE != MCT_BLOCK_MODE_ANY
               ? MODE == x
               : M == MCT_METHOD_FROM_VIEW || mct_block_mode_of(M, 1, sizeof(T)) == x ||
                     mct_block_mode_of(M, MCT_BLOCK_TALLY_REGISTER_BINS + 1, sizeof(T)) == x ||
                     mct_block_mode_of(M, MCT_BLOCK_TALLY_SMEM_LIMIT + 1, sizeof(T)) == x;
}

/** T: the tally's value type. M: the method, or MCT_METHOD_FROM_VIEW for the
 * view's at run time. MODE (optional) fixes the mode at compile time, for a
 * kernel instance the host picks by mct_block_mode_of(M, nbins, sizeof(T)): the
 * instance then holds no registers and no code for the other modes. H
 * (optional): MCT_LOSS_NONE compiles the rounding-loss hook out, for an
 * instance the host picks by mct_loss_hook_for(view) (thread_loss.cuh). */
template <typename T, mct_method_t M = MCT_METHOD_FROM_VIEW, mct_block_mode_t MODE = MCT_BLOCK_MODE_ANY,
          mct_loss_hook_t H = MCT_LOSS_FROM_VIEW>
struct mct_block_tally {
    static_assert(M == MCT_METHOD_FROM_VIEW || mct_method_serves<T, M>(),
                  "this tally method cannot add values of this type");
    static_assert(MODE == MCT_BLOCK_MODE_ANY || M != MCT_METHOD_FROM_VIEW, "a fixed mode needs a fixed method");
    /* Each test of the mode goes through in(), so that an instance compiles to
     * its own modes' code alone even where the tally lives in memory (passed
     * by pointer to a called function) and `mode` is a load. */
    static MCT_HD constexpr bool can(mct_block_mode_t x) { return mct_block_tally_can<T, M, MODE>(x); }
    /* Register sums exist only where the mode may need them. */
    static constexpr int register_bins = can(MCT_BLOCK_MODE_REGISTERS) ? MCT_BLOCK_TALLY_REGISTER_BINS : 1;
    /* The type of the block's sums: fixed's int64 fixed-point values, else T. */
    using S = typename std::conditional<M == MCT_METHOD_FIXED, int64_t, T>::type;

    const mct_tally_view_t& view;
    const mct_block_mode_t mode; /* warp- and block-uniform */
    /* The caller's storage, as a byte offset from the start of the dynamic
     * shared memory: a pointer rebuilt from that base is known to be shared, so
     * the modes' adds compile to shared-memory instructions even where the
     * tally lives in local memory (a kernel that passes it to called
     * functions), which a stored pointer would turn into generic ones. */
    int storage_offset;
    mct_block_register_sums<S, register_bins> registers;
    mct_warp_cached_bin<S> cached;

    /* A fixed MODE answers at compile time: no load of `mode` where the tally is in memory. */
    __device__ __forceinline__ bool in(mct_block_mode_t x) const {
        return can(x) && (MODE != MCT_BLOCK_MODE_ANY || mode == x);
    }

    /** Every thread of the block, converged; `storage`: the caller's
     * mct_block_tally_smem_bytes of shared memory (unused by modes that need none). */
    __device__ __forceinline__ mct_block_tally(const mct_tally_view_t& v, void* shared_storage)
        : view(v), mode(MODE != MCT_BLOCK_MODE_ANY      ? MODE
                        : M == MCT_METHOD_FROM_VIEW ? mct_block_mode_of_view(v.method, v.nbins, sizeof(T))
                                                    : mct_block_mode_of(M, v.nbins, sizeof(T))),
          storage_offset((int)((unsigned char*)shared_storage - dynamic_storage())) {
        registers.zero();
        cached.reset(v.flags);
        if (in(MCT_BLOCK_MODE_SHARED) || in(MCT_BLOCK_MODE_AGGREGATED))
            mct_block_privatized_zero(bins_shared(), view.nbins);
        else if (in(MCT_BLOCK_MODE_KAHAN))
            mct_block_privatized_zero((unsigned long long*)storage(), view.nbins);
    }

    /** The same, with the storage at the start of the dynamic shared memory. */
    __device__ __forceinline__ explicit mct_block_tally(const mct_tally_view_t& v)
        : mct_block_tally(v, dynamic_storage()) {}

    /** Any lane, any time: bin += value (out-of-range bins dropped and flagged). */
    __device__ __forceinline__ void add(int64_t bin, T value) {
        if (in(MCT_BLOCK_MODE_PER_LANE)) {
            if constexpr (M == MCT_METHOD_FROM_VIEW)
                mct_add<T>(view, bin, value);
            else
                mct_add<T, M, H>(view, bin, value);
            return;
        }
        if (!mct__bin_in_range(bin, view.nbins)) {
            mct_tally_raise(view.flags, MCT_TALLY_FLAG_OUT_OF_RANGE);
            return;
        }
        S s;
        if (!sum_of(bin, value, &s)) return;
        if (in(MCT_BLOCK_MODE_REGISTERS)) {
            registers.add(bin, s);
        } else if (in(MCT_BLOCK_MODE_KAHAN)) {
            if constexpr (std::is_same<T, float>::value) mct_block_kahan_add((mct_kahan_pair_t*)storage(), bin, value);
        } else if (in(MCT_BLOCK_MODE_AGGREGATED)) {
            cached.add(bins_shared(), view.nbins, bin, s);
        } else if (in(MCT_BLOCK_MODE_AGGREGATED_GLOBAL)) {
            cached.add((S*)view.bins, view.nbins, bin, s);
        } else if (in(MCT_BLOCK_MODE_SHARED)) {
            mct_atomic_add(bins_shared() + bin, s, view.flags);
        }
    }

    /** add() for a tally that lives in memory anyway (one reached through a
     * pointer from a function that is not inlined): in the register mode the
     * one sum is indexed, a load and a store, where add()'s predicated adds
     * would load and store all B sums. Elsewhere the same as add(). */
    __device__ __forceinline__ void add_in_memory(int64_t bin, T value) {
        S s;
        if (in(MCT_BLOCK_MODE_REGISTERS) && mct__bin_in_range(bin, view.nbins)) {
            if (sum_of(bin, value, &s)) registers.add_indexed(bin, s);
        } else
            add(bin, value); /* every other mode, and a bin out of range (flagged there) */
    }

    /** Every thread of the block, converged, once, after its last add(). */
    __device__ __forceinline__ void flush(void) {
        if (in(MCT_BLOCK_MODE_AGGREGATED)) cached.flush(bins_shared());
        if (in(MCT_BLOCK_MODE_AGGREGATED_GLOBAL)) cached.flush((S*)view.bins);
        if (in(MCT_BLOCK_MODE_SHARED) || in(MCT_BLOCK_MODE_AGGREGATED))
            mct_block_privatized_flush(bins_shared(), (S*)view.bins, view.nbins, view.flags);
        else if (in(MCT_BLOCK_MODE_REGISTERS))
            registers.flush((S*)view.bins, (int)view.nbins,
                            (M == MCT_METHOD_FROM_VIEW ? view.method : M) == MCT_METHOD_WARP_REDUCE,
                            (S*)storage(), view.flags);
        else if (in(MCT_BLOCK_MODE_KAHAN))
            mct_block_kahan_flush((const mct_kahan_pair_t*)storage(), (mct_kahan_pair_t*)view.bins, view.nbins);
    }

  private:
    /* A contribution to a bin in range as the block sums it: fixed converts
     * (false: dropped, its flag raised, as mct_add does); the float methods
     * record in the rounding-loss shadow (mct_rounding.h; per-lane adds
     * record in mct_add). */
    __device__ __forceinline__ bool sum_of(int64_t bin, T value, S* s) {
        if constexpr (M == MCT_METHOD_FIXED) {
            (void)bin;
            return mct__prepare<T, M>(view, value, s);
        } else {
            mct_loss_hook<H>(view, bin, value);
            *s = value;
            return true;
        }
    }
    __device__ __forceinline__ unsigned char* storage(void) const { return dynamic_storage() + storage_offset; }
    __device__ __forceinline__ S* bins_shared(void) const { return (S*)storage(); }
    static __device__ __forceinline__ unsigned char* dynamic_storage(void) {
        MCT_EXTERN_SHARED(unsigned char, smem);
        return smem;
    }
};

#endif /* MCT_BLOCK_TALLY_CUH */
