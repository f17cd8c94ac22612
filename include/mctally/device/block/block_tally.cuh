/* SPDX-License-Identifier: BSD-3-Clause */
/** @file block_tally.cuh  Block-scope adds into the B bins of a tally: the
 * place where the methods that keep a block's contributions before they reach
 * global memory (`shared`, `block_reduce`, `warp_reduce`) run, with every
 * other method forwarded to mct_add.
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
 * How each method keeps the block's contributions (mct__block_mode_of):
 * - shared: a block-private copy of the B bins in dynamic shared memory
 *   (mct_block_tally_smem_bytes = B * sizeof(T); the caller checks it fits,
 *   48 KiB without opt-in), zeroed at construction, shared-memory atomics in
 *   add(), one global atomic per non-zero bin in flush() (Bossler's "shared",
 *   CUB's privatized histogram). Wins when a block adds many more
 *   contributions than B; lanes hitting the same bin serialize in shared memory.
 * - block_reduce, B <= MCT_BLOCK_TALLY_REGISTER_BINS: each thread keeps its own
 *   B sums in registers (add() is B predicated adds, no memory traffic at all);
 *   flush() reduces each bin over the block (shuffles, then a table of warp
 *   sums in dynamic shared memory, 32 B sizeof(T) bytes) and adds it with one
 *   global atomic per bin per block. What makes one hot bin or
 *   a handful of bins run at memory speed.
 * - block_reduce, larger B that fits in shared memory: the shared copy of
 *   `shared`, with the warp's adds aggregated first (below), so a hot bin or
 *   a run of equal keys costs no shared atomic per lane. Larger B: the same
 *   aggregation straight into the global bins.
 * - warp_reduce, B <= MCT_BLOCK_TALLY_REGISTER_BINS: the register sums of
 *   block_reduce, reduced per warp in flush() (one global atomic per bin per
 *   warp, no barrier). Larger B: the aggregation below, into the global bins.
 * Warp aggregation (block_reduce and warp_reduce above the register bins):
 *   each warp keeps one bin's running sum in registers (the "cached bin",
 *   warp-uniform, each lane holding its share of the sum). An add() by the
 *   whole warp first lets the lanes whose bin is the cached one add into their
 *   share (one ballot, no shuffle, no memory traffic); then the lanes sharing
 *   the lowest remaining lane's bin are summed and added with one atomic, and
 *   that bin becomes the cached one when more lanes hit it than hit the cached
 *   bin; every other lane adds its own value. The shares are summed (shuffles)
 *   only when the cached bin changes and at flush(). So sorted keys and a hot
 *   bin cost a ballot per add, uniform keys two ballots and a shuffle more
 *   than a plain atomic, and
 *   the bounded work (two rounds, where the ballot loop of wag and wib runs one
 *   round per distinct bin) keeps uniform keys near atomic speed. A warp that
 *   calls add() with some lanes missing (divergent code) sums peers found by
 *   __match_any_sync instead, in sub-trees, and leaves the cached bin alone.
 *   flush() adds each warp's cached sum.
 * - kahan, when B pairs fit in shared memory: a block-private copy of the
 *   (sum, comp) pairs in shared memory; warp peers are summed in double, the
 *   group's leader does the Kahan step by a shared-memory CAS, and flush()
 *   adds each pair's value (sum - comp, exact in double) into the global pair
 *   with one Kahan CAS per bin per block. The CAS retries on a hot bin then
 *   happen in shared memory among one block's warps instead of in L2 among the
 *   whole GPU's; the error stays Kahan's (each block's pair is a Kahan sum of
 *   its addends, then one more Kahan step per block). kahan_naive keeps Liu's
 *   global-only update.
 * Determinism: not_guaranteed for floats (the order of atomics varies), exact
 * for integers. For every other method construction and flush() are no-ops (no
 * barrier) and add() is mct_add<T, M>. */
#ifndef MCT_BLOCK_TALLY_CUH
#define MCT_BLOCK_TALLY_CUH

#include <stddef.h>
#include <stdint.h>

#include "mctally/device/block/block_privatized.cuh"
#include "mctally/device/mct_add.cuh"
#include "mctally/device/mct_shared.cuh"
#include "mctally/device/warp/warp_reduce.cuh"
#include "mctally/device/warp/warp_shfl.cuh"

/** The method argument that means "view.method, at run time". */
constexpr mct_method_t MCT_METHOD_FROM_VIEW = MCT_METHOD_COUNT;

/** Most bins a thread keeps in registers (block_reduce, warp_reduce). */
#define MCT_BLOCK_TALLY_REGISTER_BINS 8

/** Where a block keeps its contributions before they reach the bins. */
enum mct__block_mode {
    MCT__BLOCK_PER_LANE,   /* nowhere: every add() is mct_add */
    MCT__BLOCK_SHARED,     /* shared-memory copy, one shared atomic per add() */
    MCT__BLOCK_AGGREGATED, /* shared-memory copy, warp aggregation first */
    MCT__BLOCK_AGGREGATED_GLOBAL, /* warp aggregation into the global bins */
    MCT__BLOCK_REGISTERS,  /* per-thread sums in registers, reduced at flush() */
    MCT__BLOCK_KAHAN,      /* shared-memory copy of Kahan pairs, warp peers summed first */
    MCT__BLOCK_ANY_MODE,   /* template argument: the mode is found at run time */
};

/** The mode of method m on nbins bins of elem-byte values (host and device). */
MCT_HD constexpr mct__block_mode mct__block_mode_of(mct_method_t m, int64_t nbins, size_t elem) {
    return m == MCT_METHOD_SHARED ? MCT__BLOCK_SHARED
           : m == MCT_METHOD_KAHAN && (size_t)nbins * sizeof(mct_kahan_pair_t) <= MCT_BLOCK_TALLY_SMEM_LIMIT
               ? MCT__BLOCK_KAHAN
           : (m == MCT_METHOD_BLOCK_REDUCE || m == MCT_METHOD_WARP_REDUCE) && nbins <= MCT_BLOCK_TALLY_REGISTER_BINS
               ? MCT__BLOCK_REGISTERS
           : m == MCT_METHOD_BLOCK_REDUCE && (size_t)nbins * elem <= MCT_BLOCK_TALLY_SMEM_LIMIT ? MCT__BLOCK_AGGREGATED
           : m == MCT_METHOD_BLOCK_REDUCE || m == MCT_METHOD_WARP_REDUCE ? MCT__BLOCK_AGGREGATED_GLOBAL
                                                                         : MCT__BLOCK_PER_LANE;
}

/** Dynamic shared memory of method m on nbins bins of elem-byte values: the
 * bins' copy, or block_reduce's table of warp sums (32 warps x B). */
MCT_HD constexpr size_t mct__block_tally_smem(mct_method_t m, int64_t nbins, size_t elem) {
    return mct__block_mode_of(m, nbins, elem) == MCT__BLOCK_SHARED ||
                   mct__block_mode_of(m, nbins, elem) == MCT__BLOCK_AGGREGATED
               ? (size_t)nbins * elem
           : mct__block_mode_of(m, nbins, elem) == MCT__BLOCK_REGISTERS && m == MCT_METHOD_BLOCK_REDUCE
               ? 32 * (size_t)nbins * elem
           : mct__block_mode_of(m, nbins, elem) == MCT__BLOCK_KAHAN ? (size_t)nbins * sizeof(mct_kahan_pair_t)
                                                                     : 0;
}

/** Dynamic shared memory a launch must give to a kernel using
 * mct_block_tally<T, M> on nbins bins (host and device). */
template <typename T, mct_method_t M>
MCT_HD inline size_t mct_block_tally_smem_bytes(int64_t nbins) {
    return mct__block_tally_smem(M, nbins, sizeof(T));
}

/** The same for the run-time form, mct_block_tally<T> (host and device). */
template <typename T>
MCT_HD inline size_t mct_block_tally_smem_bytes(const mct_tally_view_t& view) {
    return mct__block_tally_smem(view.method, view.nbins, sizeof(T));
}

/** Whether mct_block_tally<T, M, MODE> can run in mode x: MODE alone when
 * fixed, every mode of method M otherwise (every mode for the run-time form). */
template <typename T, mct_method_t M, mct__block_mode MODE>
MCT_HD constexpr bool mct__block_can(mct__block_mode x) {
    /* mct__block_mode_of depends on the bin count only through two
     * thresholds: a count on each side of both gives every mode M has. */
    return MODE != MCT__BLOCK_ANY_MODE
               ? MODE == x
               : M == MCT_METHOD_FROM_VIEW || mct__block_mode_of(M, 1, sizeof(T)) == x ||
                     mct__block_mode_of(M, MCT_BLOCK_TALLY_REGISTER_BINS + 1, sizeof(T)) == x ||
                     mct__block_mode_of(M, MCT_BLOCK_TALLY_SMEM_LIMIT + 1, sizeof(T)) == x;
}

/** MODE (optional) fixes the mode at compile time, for a kernel instance the
 * host picks by mct__block_mode_of(M, nbins, sizeof(T)): the instance then
 * holds no registers and no code for the other modes (block_reduce's eight
 * register sums would otherwise stay live in an instance that aggregates). */
template <typename T, mct_method_t M = MCT_METHOD_FROM_VIEW, mct__block_mode MODE = MCT__BLOCK_ANY_MODE>
struct mct_block_tally {
    static_assert(M == MCT_METHOD_FROM_VIEW || mct_method_serves<T, M>(),
                  "this tally method cannot add values of this type");
    static_assert(MODE == MCT__BLOCK_ANY_MODE || M != MCT_METHOD_FROM_VIEW,
                  "a fixed mode needs a fixed method");
    /* Each test of the mode goes through in(), so that an instance compiles to
     * its own modes' code alone even where the tally lives in memory (passed
     * by pointer to a called function) and `mode` is a load. */
    static MCT_HD constexpr bool can(mct__block_mode x) { return mct__block_can<T, M, MODE>(x); }
    /* Register sums exist only where the mode may need them. */
    static constexpr int register_bins =
        mct__block_can<T, M, MODE>(MCT__BLOCK_REGISTERS) ? MCT_BLOCK_TALLY_REGISTER_BINS : 1;

    const mct_tally_view_t& view;
    const mct__block_mode mode; /* warp- and block-uniform */
    T* bins_shared;             /* the block's copy, in the shared modes */
    T sums[register_bins];      /* this thread's sums, in the register mode */
    int64_t cached_bin;         /* warp aggregation: the warp's cached bin (-1: none), */
    T cached_sum;               /* and this lane's share of its sum */

    /* A fixed MODE answers at compile time: no load of `mode` where the tally is in memory. */
    __device__ __forceinline__ bool in(mct__block_mode x) const {
        return can(x) && (MODE != MCT__BLOCK_ANY_MODE || mode == x);
    }

    /** Every thread of the block, converged. */
    __device__ __forceinline__ explicit mct_block_tally(const mct_tally_view_t& v)
        : view(v), mode(MODE != MCT__BLOCK_ANY_MODE
                            ? MODE
                            : mct__block_mode_of(M == MCT_METHOD_FROM_VIEW ? v.method : M, v.nbins, sizeof(T))),
          bins_shared(NULL), cached_bin(-1), cached_sum(T(0)) {
        MCT_UNROLL
        for (int b = 0; b < register_bins; ++b) sums[b] = T(0);
        if (in(MCT__BLOCK_SHARED) || in(MCT__BLOCK_AGGREGATED)) {
            MCT_EXTERN_SHARED(T, smem);
            bins_shared = smem;
            mct_block_privatized_zero(bins_shared, view.nbins);
        } else if (in(MCT__BLOCK_KAHAN)) {
            MCT_EXTERN_SHARED(unsigned long long, smem);
            mct_block_privatized_zero(smem, view.nbins);
        }
    }

    /** Any lane, any time: bin += value (out-of-range bins dropped and flagged). */
    __device__ __forceinline__ void add(int64_t bin, T value) {
        if (in(MCT__BLOCK_PER_LANE)) {
            if constexpr (M == MCT_METHOD_FROM_VIEW)
                mct_add<T>(view, bin, value);
            else
                mct_add<T, M>(view, bin, value);
            return;
        }
        if (!mct__bin_in_range(bin, view.nbins)) {
            mct_tally_raise(view.flags, MCT_TALLY_FLAG_OUT_OF_RANGE);
            return;
        }
        if (in(MCT__BLOCK_REGISTERS)) {
            /* Predicated adds keep the sums in registers (an indexed store
             * would put them in local memory); the other bins add nothing, so
             * a NaN or Inf stays in its own bin. */
            MCT_UNROLL
            for (int b = 0; b < register_bins; ++b) sums[b] = mct_plus{}(sums[b], b == bin ? value : T(0));
        } else if (in(MCT__BLOCK_KAHAN)) {
            add_kahan(bin, value);
        } else if (in(MCT__BLOCK_AGGREGATED)) {
            add_aggregated(bins_shared, bin, value);
        } else if (in(MCT__BLOCK_AGGREGATED_GLOBAL)) {
            add_aggregated((T*)view.bins, bin, value);
        } else if (in(MCT__BLOCK_SHARED)) {
            mct_atomic_add(bins_shared + bin, value);
        }
    }

    /** add() for a tally that lives in memory anyway (one reached through a
     * pointer from a function that is not inlined): in the register mode the
     * one sum is indexed, a load and a store, where add()'s predicated adds
     * would load and store all B sums. Elsewhere the same as add(). */
    __device__ __forceinline__ void add_in_memory(int64_t bin, T value) {
        if (in(MCT__BLOCK_REGISTERS) && mct__bin_in_range(bin, view.nbins))
            sums[bin] = mct_plus{}(sums[bin], value);
        else
            add(bin, value); /* every other mode, and a bin out of range (flagged there) */
    }

    /** Every thread of the block, converged, once, after its last add(). */
    __device__ __forceinline__ void flush(void) {
        if (in(MCT__BLOCK_AGGREGATED)) flush_cached(bins_shared);
        if (in(MCT__BLOCK_AGGREGATED_GLOBAL)) flush_cached((T*)view.bins);
        if (in(MCT__BLOCK_SHARED) || in(MCT__BLOCK_AGGREGATED))
            mct_block_privatized_flush(bins_shared, (T*)view.bins, view.nbins);
        else if (in(MCT__BLOCK_REGISTERS))
            flush_registers();
        else if (in(MCT__BLOCK_KAHAN))
            flush_kahan();
    }

  private:
    /** An atomic add of s unless it is zero (a NaN is added). */
    static __device__ __forceinline__ void add_nonzero(T* bin, T s) {
        if (s != T(0) || s != s) mct_atomic_add(bin, s);
    }

    /** Warp aggregation (see the file's comment) into `target`, the block's
     * copy or the global bins (two call sites, so that each compiles to the
     * atomics of its own memory instead of slower generic-address ones): the
     * cached bin, then the lowest remaining lane's bin, then one atomic per
     * lane left. */
    __device__ __forceinline__ void add_aggregated(T* target, int64_t bin, T value) {
        const unsigned active = __activemask();
        if (active != 0xffffffffu) {
            /* 32-bit keys where they suffice: the narrower match is the cheaper one. */
            const unsigned peers = view.nbins <= 0xffffffffll ? mct_warp_peers_match(active, (unsigned)bin)
                                                              : mct_warp_peers_match(active, (unsigned long long)bin);
            const T group = mct_warp_segmented_reduce(active, peers, value);
            if (mct_warp_is_leader(peers)) mct_atomic_add(target + bin, group);
            return;
        }
        const bool in_cache = bin == cached_bin;
        const unsigned cached = __ballot_sync(active, in_cache);
        if (in_cache) cached_sum = mct_plus{}(cached_sum, value); /* each lane its own share */
        const unsigned left = ~cached;
        if (left == 0u) return;
        const int first = __ffs((int)left) - 1;
        const int64_t lead_bin = mct_shfl_idx(active, bin, first);
        const bool in_lead = bin == lead_bin; /* never a cached lane: lead_bin is not cached_bin */
        const unsigned lead = __ballot_sync(active, in_lead);
        if (__popc(lead) > 1) {
            if (__popc(lead) > __popc(cached)) { /* the busier bin takes the cache */
                flush_cached(target);
                cached_bin = lead_bin;
                cached_sum = in_lead ? value : T(0);
            } else {
                const T s = mct_warp_reduce_sum(in_lead ? value : T(0), 32);
                if (mct_lane() == 0) mct_atomic_add(target + lead_bin, s);
            }
            if (in_lead) return;
        }
        if (!in_cache) mct_atomic_add(target + bin, value);
    }

    /** The cached bin's sum (the lanes' shares, reduced) into target; a full
     * warp, converged. Only full warps ever cache a bin. */
    __device__ __forceinline__ void flush_cached(T* target) {
        if (cached_bin < 0) return;
        const T s = mct_warp_reduce_sum(cached_sum, 32);
        if (mct_lane() == 0) add_nonzero(target + cached_bin, s);
    }

    /** kahan: the warp's peers summed in double, one shared-memory Kahan CAS
     * by the group's leader. */
    __device__ __forceinline__ void add_kahan(int64_t bin, T value) {
        if constexpr (std::is_same<T, float>::value) {
            MCT_EXTERN_SHARED(mct_kahan_pair_t, pairs);
            const unsigned active = __activemask();
            const unsigned peers = mct_warp_peers_match(active, (unsigned)bin);
            const double group = mct_warp_segmented_reduce(active, peers, (double)value);
            if (mct_warp_is_leader(peers)) mct_atomic_add_kahan(pairs + bin, group);
        } else {
            (void)bin, (void)value; /* kahan serves f32 only; the host refuses the rest */
        }
    }

    /** kahan: each block pair's value, sum - comp, into the global pair. */
    __device__ __forceinline__ void flush_kahan(void) {
        MCT_EXTERN_SHARED(mct_kahan_pair_t, pairs);
        __syncthreads();
        for (int64_t k = mct_thread_rank(); k < view.nbins; k += mct_block_threads()) {
            const double v = (double)pairs[k].sum - (double)pairs[k].comp;
            if (v != 0.0 || v != v) mct_atomic_add_kahan((mct_kahan_pair_t*)view.bins + k, v);
        }
    }

    /** Register sums: each warp reduces every bin; warp_reduce adds them from
     * lane 0, block_reduce first sums the warps' totals in shared memory. */
    __device__ __forceinline__ void flush_registers(void) {
        const int width = mct_warp_width_in_block(), lane = mct_lane(), warp = mct_thread_rank() >> 5;
        const int nbins = (int)view.nbins;
        const bool per_warp = (M == MCT_METHOD_FROM_VIEW ? view.method : M) == MCT_METHOD_WARP_REDUCE;
        T* const global = (T*)view.bins;
        MCT_EXTERN_SHARED(T, warp_sums); /* [warp * nbins + bin] */
        MCT_UNROLL
        for (int b = 0; b < register_bins; ++b) {
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

#endif /* MCT_BLOCK_TALLY_CUH */
