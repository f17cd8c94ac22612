/* SPDX-License-Identifier: BSD-3-Clause */
/** @file block_deposit_buffer.cuh  Buffered deposits: a block-scope object that
 * decouples when a lane deposits from when the tally's method adds, so that the
 * methods that want converged warps or uncontended words (cas, wag, wib,
 * wag_match, kahan, fixed, sort_reduce) stay cheap inside divergent transport,
 * where each lane deposits at its own time into its own bin.
 *
 *     static __global__ void k(mct_tally_view_t view, ...) {
 *         MCT_EXTERN_SHARED(unsigned char, smem);
 *         mct_deposit_buffer<double> dep(view, smem);   // every thread, converged
 *         for (...) {                                   // divergent code, early breaks
 *             if (hit) dep.add(voxel, energy);
 *         }
 *         dep.flush();                                  // every thread, converged, once
 *     }
 *     MCT_LAUNCH(k, grid, block, mct_deposit_buffer_smem_bytes<double>(view, block), stream, view, ...);
 *
 * Contract: every thread of the block constructs the buffer and calls flush()
 * once after its last add(), converged (both contain a __syncthreads). A lane
 * that is done early leaves its loop (break, not return) and waits at flush();
 * its buffered deposits are added there. Between the two, add() may be called
 * from any lane at any time, any number of times, in divergent code: nothing in
 * add() waits for another lane (no barrier, no warp-wide collective over lanes
 * that may not come), so warps that never converge are fine.
 *
 * What the buffer does, by the tally's method (mct_deposit_kind_of):
 * - DIRECT (atomic, replicated, shared): nothing; add() is mct_add. These are
 *   one uncontended instruction (or a private replica) already, and the
 *   buffer would only take registers and shared memory from the transport.
 * - HOT (cas, wag, wib, wag_match, warp_reduce, block_reduce, kahan,
 *   kahan_naive, fixed): (1) a lane's consecutive deposits into one bin are
 *   summed in a register (the run) in the method's carrier, and reach the rest
 *   as one deposit when the bin changes; (2) the runs that lanes of a warp
 *   hand on together are summed per bin first (one __match_any_sync among the
 *   lanes that arrive together, whoever they are: a lane alone pays a few
 *   instructions, a converged warp's adds into few bins shrink to one per
 *   bin); (3) a block-shared cache of HOT bins: the first sum into a free
 *   slot claims it for its bin (one shared CAS), and later sums into a cached
 *   bin are one shared-memory atomic add, which on a hot bin replaces the
 *   global compare-and-swap loops the whole GPU would otherwise contend on;
 *   (4) a sum whose bin finds no slot is added at once with the method's own
 *   update (its CAS loop, its compensated add, its atomic). flush() adds each
 *   cached bin once into the tally, with the method's own update. Slots are never evicted,
 *   so a block's cache holds the bins it met first; with nbins <= HOT the cache
 *   holds every bin (a block-private copy). The carrier: int64 round(v 2^s) for
 *   fixed (each value converted once, at add(), as mct_add does), double for
 *   every float method (kahan's group sums are double anyway), the tally's
 *   type for integer tallies.
 * - APPEND (sort_reduce): each lane keeps up to SLOTS pairs in its own slots of
 *   shared memory; a lane whose slots are full, and every lane at flush(),
 *   reserves room for all of its pairs in view.pairs with one atomicAdd (where
 *   the direct form needs one per group of lanes arriving together, on one
 *   counter for the whole GPU) and writes them. Pairs are not merged: the
 *   sorted sum sees the same multiset of pairs as from mct_add.
 *
 * Determinism is the method's, unchanged: fixed stays bitwise on every backend
 * and launch shape (every value converted once, then integer sums, which are
 * associative; overflow of a partial sum raises MCT_TALLY_FLAG_OVERFLOW as
 * warp aggregation does); sort_reduce stays run_to_run (the same pairs);
 * integer tallies are exact and checked; float methods are not_guaranteed.
 * kahan's error: runs and cached sums are formed in double (error below
 * n 2^-53 Σ|x| for n addends, far below f32's u = 2^-24), then the method's
 * updates in f32, so its bound gains n 2^-53 Σ|x|. Plain float methods
 * keep gamma(n-1) Σ|x|: each rounding still merges at least two addends.
 *
 * Bins: below 2^31 (a run's bin and a cache tag are 32-bit), as mct_add's
 * peer search assumes; out-of-range bins are dropped and flagged at add().
 *
 * Storage: mct_deposit_buffer_storage_bytes(method, block_threads, HOT, SLOTS)
 * bytes of block-shared memory, 16-byte aligned, the caller's (as for
 * mct_block_tally): 12 HOT bytes for HOT methods, 12 SLOTS block_threads for
 * sort_reduce, 0 for DIRECT. The run-time form (M = MCT_METHOD_FROM_VIEW) needs
 * the bytes of view.method, which mct_deposit_buffer_smem_bytes<T>(view, block)
 * gives. */
#ifndef MCT_BLOCK_DEPOSIT_BUFFER_CUH
#define MCT_BLOCK_DEPOSIT_BUFFER_CUH

#include <stddef.h>
#include <stdint.h>

#include <type_traits>

#include "mctally/device/block/block_tally_mode.cuh"
#include "mctally/device/mct_add.cuh"
#include "mctally/device/mct_shared.cuh"

/** Cached bins per block (default): 12 bytes each, 3 KiB in all. */
#define MCT_DEPOSIT_HOT_BINS 256
/** Pairs each lane keeps for sort_reduce (default): 12 bytes each. */
#define MCT_DEPOSIT_SLOTS 4

/** What mct_deposit_buffer does for a method (see the file comment). */
enum mct_deposit_kind_t {
    MCT_DEPOSIT_DIRECT, /**< nothing: every add() is mct_add */
    MCT_DEPOSIT_HOT,    /**< register runs, a block cache of hot bins, the method for the rest */
    MCT_DEPOSIT_APPEND, /**< per-lane pair slots, one reservation per lane's full slots */
};

/** The kind of method m (host and device). */
MCT_HD constexpr mct_deposit_kind_t mct_deposit_kind_of(mct_method_t m) {
    return m == MCT_METHOD_SORT_REDUCE ? MCT_DEPOSIT_APPEND
           : (m == MCT_METHOD_ATOMIC || m == MCT_METHOD_SHARED || m == MCT_METHOD_REPLICATED ||
              (unsigned)m >= (unsigned)MCT_METHOD_COUNT)
               ? MCT_DEPOSIT_DIRECT
               : MCT_DEPOSIT_HOT;
}

/** Bytes of block-shared storage mct_deposit_buffer<T, m, hot, slots> needs
 * for a block of block_threads threads (host and device): the hot cache's
 * values (8 bytes) and tags (4 bytes), or the lanes' pair slots (8 + 4 bytes
 * each), or 0. Never depends on nbins. */
MCT_HD constexpr size_t mct_deposit_buffer_storage_bytes(mct_method_t m, int block_threads,
                                                         int hot = MCT_DEPOSIT_HOT_BINS,
                                                         int slots = MCT_DEPOSIT_SLOTS) {
    return mct_deposit_kind_of(m) == MCT_DEPOSIT_HOT      ? (size_t)hot * 12u
           : mct_deposit_kind_of(m) == MCT_DEPOSIT_APPEND ? (size_t)slots * (size_t)block_threads * 12u
                                                          : 0u;
}

/** The same for the run-time form: the bytes of view.method (host and device). */
template <typename T, int HOT = MCT_DEPOSIT_HOT_BINS, int SLOTS = MCT_DEPOSIT_SLOTS>
MCT_HD inline size_t mct_deposit_buffer_smem_bytes(const mct_tally_view_t& view, int block_threads) {
    return mct_deposit_buffer_storage_bytes(view.method, block_threads, HOT, SLOTS);
}

/** The carrier of a HOT method's run and cache: int64 (fixed), double (floats),
 * T (integer tallies). */
template <typename T, mct_method_t L>
using mct__deposit_carrier_t =
    typename std::conditional<L == MCT_METHOD_FIXED, int64_t,
                              typename std::conditional<std::is_floating_point<T>::value, double, T>::type>::type;

/** log2 of a power of two, at compile time. */
MCT_HD constexpr int mct__log2(int x) { return x <= 1 ? 0 : 1 + mct__log2(x / 2); }

/** T: the tally's value type. M: the method, or MCT_METHOD_FROM_VIEW (the
 * view's, at run time). HOT: cached bins per block, a power of two. SLOTS:
 * sort_reduce pairs per lane. H: MCT_LOSS_NONE compiles the rounding-loss hook
 * out (thread_loss.cuh). */
template <typename T, mct_method_t M = MCT_METHOD_FROM_VIEW, int HOT = MCT_DEPOSIT_HOT_BINS,
          int SLOTS = MCT_DEPOSIT_SLOTS, mct_loss_hook_t H = MCT_LOSS_FROM_VIEW>
struct mct_deposit_buffer {
    static_assert(M == MCT_METHOD_FROM_VIEW || mct_method_serves<T, M>(),
                  "this tally method cannot add values of this type");
    static_assert(HOT >= 2 && (HOT & (HOT - 1)) == 0 && HOT <= (1 << 16), "HOT must be a power of two, 2..65536");
    static_assert(SLOTS >= 1, "SLOTS must be at least 1");
    static constexpr unsigned EMPTY = 0xffffffffu; /* a free cache slot (bins are < 2^31) */
    static constexpr int HOT_LOG2 = mct__log2(HOT);

    const mct_tally_view_t& view;
    int storage_offset; /* from the start of the dynamic shared memory (see mct_block_tally) */
    int run_bin;        /* HOT: the open run's bin, or -1 */
    int count;          /* APPEND: pairs in this lane's slots */
    union {             /* HOT: the run's sum in the method's carrier */
        double d;
        int64_t i;
        T t;
    } run;

    /** Every thread of the block, converged; `shared_storage`: the caller's
     * mct_deposit_buffer_storage_bytes of block-shared memory, 16-byte aligned. */
    __device__ __forceinline__ mct_deposit_buffer(const mct_tally_view_t& v, void* shared_storage)
        : view(v), storage_offset((int)((unsigned char*)shared_storage - dynamic_storage())), run_bin(-1), count(0) {
        run.i = 0;
        if (kind() == MCT_DEPOSIT_HOT) {
            /* nbins <= HOT: slot b is bin b's from the start (a private copy). */
            const bool identity = view.nbins <= HOT;
            for (int s = mct_thread_rank(); s < HOT; s += mct_block_threads()) {
                cache_values()[s] = 0;
                cache_tags()[s] = identity && s < view.nbins ? (unsigned)s : EMPTY;
            }
        }
        __syncthreads();
    }

    /** The same, with the storage at the start of the dynamic shared memory. */
    __device__ __forceinline__ explicit mct_deposit_buffer(const mct_tally_view_t& v)
        : mct_deposit_buffer(v, dynamic_storage()) {}

    /** The kind of the method this buffer serves (warp- and block-uniform). */
    __device__ __forceinline__ mct_deposit_kind_t kind(void) const {
        return mct_deposit_kind_of(M == MCT_METHOD_FROM_VIEW ? view.method : M);
    }

    /** Any lane, any time: bin += value (out-of-range bins dropped and flagged). */
    __device__ __forceinline__ void add(int64_t bin, T value) {
        if constexpr (M == MCT_METHOD_FROM_VIEW) {
            adder a{this, bin, value};
            mct__method_dispatch(view.method, a);
        } else {
            add_as<M>(bin, value);
        }
    }

    /** Every thread of the block, converged, once, after its last add(). */
    __device__ __forceinline__ void flush(void) {
        if constexpr (M == MCT_METHOD_FROM_VIEW) {
            flusher f{this};
            mct__method_dispatch(view.method, f);
        } else {
            flush_as<M>();
        }
    }

  private:
    struct adder {
        mct_deposit_buffer* self;
        int64_t bin;
        T value;
        template <mct_method_t L>
        __device__ __forceinline__ void run() {
            if constexpr (mct_method_serves<T, L>()) self->template add_as<L>(bin, value);
        }
    };
    struct flusher {
        mct_deposit_buffer* self;
        template <mct_method_t L>
        __device__ __forceinline__ void run() {
            if constexpr (mct_method_serves<T, L>()) self->template flush_as<L>();
        }
    };

    template <mct_method_t L>
    __device__ __forceinline__ void add_as(int64_t bin, T value) {
        constexpr mct_deposit_kind_t K = mct_deposit_kind_of(L);
        if constexpr (K == MCT_DEPOSIT_DIRECT) {
            mct_add<T, L, H>(view, bin, value);
        } else {
            if (!mct__bin_in_range(bin, view.nbins)) {
                mct_tally_raise(view.flags, MCT_TALLY_FLAG_OUT_OF_RANGE);
                return;
            }
            if constexpr (L != MCT_METHOD_FIXED) mct_loss_hook<H>(view, bin, value);
            if constexpr (K == MCT_DEPOSIT_APPEND) {
                append(bin, (double)value);
            } else {
                typedef mct__deposit_carrier_t<T, L> C;
                C v;
                if constexpr (L == MCT_METHOD_FIXED) {
                    const unsigned bad = mct_fixed_from_double((double)value, view.fixed_scale, &v);
                    if (bad) {
                        mct_tally_raise(view.flags, bad);
                        return;
                    }
                } else {
                    v = (C)value;
                }
                /* The run: one register compare; the rest only when the bin changes. */
                if ((int)bin == run_bin) {
                    run_ref<C>() = mct_checked_plus{view.flags}(run_ref<C>(), v);
                    return;
                }
                const int ended = run_bin;
                const C sum = run_ref<C>();
                run_bin = (int)bin;
                run_ref<C>() = v;
                if (ended >= 0) deposit<L>(ended, sum);
            }
        }
    }

    template <mct_method_t L>
    __device__ __forceinline__ void flush_as(void) {
        constexpr mct_deposit_kind_t K = mct_deposit_kind_of(L);
        if constexpr (K == MCT_DEPOSIT_HOT) {
            typedef mct__deposit_carrier_t<T, L> C;
            if (run_bin >= 0) deposit<L>(run_bin, run_ref<C>());
            run_bin = -1;
            __syncthreads(); /* every lane's cache adds are in */
            for (int s = mct_thread_rank(); s < HOT; s += mct_block_threads()) {
                const unsigned tag = cache_tags()[s];
                const C v = ((C*)cache_values())[s];
                if (tag != EMPTY && (v != C(0) || v != v)) global_update<L>((int64_t)tag, v);
            }
            __syncthreads(); /* the storage may be used again after flush() */
        } else if constexpr (K == MCT_DEPOSIT_APPEND) {
            drain();
            __syncthreads();
        } else {
            __syncthreads(); /* the same barrier for every method: a uniform contract */
        }
    }

    /** A run's sum, with those of the lanes arriving together into the same
     * bin, into the cache, or, without a slot, into the tally. */
    template <mct_method_t L>
    __device__ __forceinline__ void deposit(int bin, mct__deposit_carrier_t<T, L> v) {
        typedef mct__deposit_carrier_t<T, L> C;
        /* Read once: every lane of the group must name the same mask. Integer
         * sums (fixed's int64 included) are checked for overflow. */
        const unsigned active = __activemask();
        const unsigned peers = mct_warp_peers_match(active, (unsigned)bin);
        v = mct_warp_segmented_reduce(active, peers, v, mct_checked_plus{view.flags});
        if (!mct_warp_is_leader(peers)) return;
        unsigned* const tags = cache_tags();
        const unsigned b = (unsigned)bin;
        const unsigned home = view.nbins <= HOT ? b : (b * 2654435761u) >> (32 - HOT_LOG2);
        for (int probe = 0; probe < 2; ++probe) {
            const unsigned s = (home + (unsigned)probe) & (unsigned)(HOT - 1);
            /* A plain (volatile) read: a slot's tag changes once, from EMPTY to
             * its bin, by the CAS below; a stale EMPTY only sends us to the CAS. */
            unsigned tag = ((volatile unsigned*)tags)[s];
            if (tag == EMPTY) {
                tag = atomicCAS(tags + s, EMPTY, b);
                if (tag == EMPTY) tag = b; /* claimed */
            }
            if (tag == b) {
                cache_add((C*)cache_values() + s, v);
                return;
            }
        }
        global_update<L>((int64_t)bin, v);
    }

    template <typename C>
    __device__ __forceinline__ void cache_add(C* p, C v) {
        if constexpr (std::is_same<C, int64_t>::value)
            mct_atomic_add_fixed(p, v, view.flags);
        else if constexpr (std::is_same<C, double>::value)
            atomicAdd(p, v);
        else
            mct_atomic_add(p, v, view.flags);
    }

    /** A sum into the tally with the method's update (the global step of
     * mct_add: its CAS, compensated add, checked or fixed-point atomic). */
    template <mct_method_t L>
    __device__ __forceinline__ void global_update(int64_t bin, mct__deposit_carrier_t<T, L> c) {
        constexpr mct_method_t A = mct_any_lane_method(L);
        mct__update<T, A>(view, bin, (mct__acc_t<T, A>)c);
    }

    /** sort_reduce: a pair into this lane's slots, draining them when full. */
    __device__ __forceinline__ void append(int64_t bin, double value) {
        if (count == SLOTS) drain();
        const int at = count * mct_block_threads() + mct_thread_rank();
        slot_values()[at] = value;
        slot_bins()[at] = (uint32_t)bin;
        ++count;
    }

    /** This lane's pairs into view.pairs: one reservation, then plain stores. */
    __device__ __forceinline__ void drain(void) {
        if (count == 0) return;
        const unsigned long long base = atomicAdd(view.pair_count, (unsigned long long)count);
        for (int k = 0; k < count; ++k) {
            const unsigned long long slot = base + (unsigned long long)k;
            const int at = k * mct_block_threads() + mct_thread_rank();
            if (slot < (unsigned long long)view.pair_capacity) {
                mct_sort_pair_t* p = (mct_sort_pair_t*)view.pairs + slot;
                p->bin = slot_bins()[at];
                p->pad = 0u;
                p->value = slot_values()[at];
            } else {
                mct_tally_raise(view.flags, MCT_TALLY_FLAG_OVERFLOW);
            }
        }
        count = 0;
    }

    template <typename C>
    __device__ __forceinline__ C& run_ref(void) {
        if constexpr (std::is_same<C, double>::value)
            return run.d;
        else if constexpr (std::is_same<C, int64_t>::value)
            return run.i;
        else
            return run.t;
    }

    /* Storage layout: 8-byte values first, then 4-byte tags or bins. */
    __device__ __forceinline__ unsigned char* storage(void) const { return dynamic_storage() + storage_offset; }
    __device__ __forceinline__ unsigned long long* cache_values(void) const {
        return (unsigned long long*)storage();
    }
    __device__ __forceinline__ unsigned* cache_tags(void) const { return (unsigned*)(storage() + 8 * HOT); }
    __device__ __forceinline__ double* slot_values(void) const { return (double*)storage(); }
    __device__ __forceinline__ uint32_t* slot_bins(void) const {
        return (uint32_t*)(storage() + (size_t)8 * SLOTS * mct_block_threads());
    }
    static __device__ __forceinline__ unsigned char* dynamic_storage(void) {
        MCT_EXTERN_SHARED(unsigned char, smem);
        return smem;
    }
};

#endif /* MCT_BLOCK_DEPOSIT_BUFFER_CUH */
