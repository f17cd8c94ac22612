/* SPDX-License-Identifier: BSD-3-Clause */
/** @file mct_add.cuh  The any-lane, any-time device API: add one contribution
 * into a bin of a tally, from any lane, in divergent code, with any method.
 *
 *     mct_add<double, MCT_METHOD_WIB>(view, bin, energy); // method fixed at compile time
 *     mct_add(view, bin, energy);                          // method from view.method
 *
 * `view` is the tally's mct_tally_view_t, passed to the kernel by value. The
 * value type T must be the tally's dtype (int32_t, uint64_t, float, double). A
 * bin outside [0, nbins) is dropped and raises MCT_TALLY_FLAG_OUT_OF_RANGE.
 *
 * Warp-aggregating methods look for peers among the lanes that reach the call
 * together (one __activemask() read, used by all of them): lanes that exited,
 * returned early or took the other side of a branch are neither waited for nor
 * read, and the partial last warp of a block needs nothing special. Lanes of
 * one warp that reach the call at different times simply form separate groups.
 *
 * Methods (Overview / Performance / Determinism):
 *
 * - atomic: one native atomicAdd per call (Liu's "HB" for f64). Fast whenever
 *   lanes of a warp hit different bins; a hot bin serializes in the L2 atomic
 *   unit. Float results: not_guaranteed (order of atomics varies).
 * - cas: f32/f64 add by a CAS loop on the bit pattern (thread_cas.cuh). Slowest
 *   under contention (each failed CAS is a round trip); kept as the seeds'
 *   baseline and for types without a native atomic. not_guaranteed.
 * - wag: peers by the ballot/shuffle loop (one round per distinct bin in the
 *   warp), sub-tree reduction, the leader adds with CAS (integers: native
 *   atomicAdd). Wins with few distinct bins per warp (sorted keys, hot bins);
 *   costs ~4 warp instructions per distinct bin otherwise. not_guaranteed.
 * - wib: as wag, the leader uses the native atomicAdd (Liu's WIB). not_guaranteed.
 * - wag_match: as wib, peers from one __match_any_sync (sm_70+), whose cost does
 *   not loop in software. not_guaranteed.
 * - kahan: f32 only; the bin is an (f32 sum, f32 comp) pair (thread_kahan.cuh).
 *   In a full warp peers (by __match_any_sync) are summed first, in double,
 *   and the leader does one compensated add; in a partial (divergent) warp
 *   each lane does its own: a float atomic add into the sum whose old value gives the
 *   add's exact error, which goes into comp without a wait (comp folded into
 *   the sum now and then, mct_arith.h). Error second order, of order
 *   10 n u^2 Σ|x| with u = 2^-24, instead of plain f32's (n-1)u Σ|x|. More
 *   accurate, not deterministic: not_guaranteed.
 * - kahan_naive: Kahan's step on the pair by a 64-bit CAS loop, by every lane,
 *   no aggregation (Liu's unoptimized KAS): the CAS contention of cas, on
 *   64-bit words.
 * - fixed: f32/f64 values become int64 round(v * 2^s) (thread_fixed.cuh),
 *   whatever the tally's dtype (pass double to keep all of a value's bits),
 *   in a full warp peers (by __match_any_sync) sum them exactly and the
 *   leader does one integer atomicAdd; in a partial (divergent) warp each lane
 *   adds its own. Integer sums are associative, so the result is bitwise: the same
 *   on every run, launch shape, GPU and the CPU backend. NaN/Inf values are
 *   dropped (MCT_TALLY_FLAG_NONFINITE); |v * 2^s| >= 2^63 and int64 overflow of a
 *   group sum or a bin raise MCT_TALLY_FLAG_OVERFLOW.
 *
 * - replicated: adds into replica (global thread rank mod nreplicas). The host
 *   reserves one replica per thread of the grid (mct_tally_reserve_replicas), so
 *   each thread owns its replica and a plain add suffices; when the grid has
 *   more threads than replicas, replicas are shared and the add is atomic, so
 *   the result stays right. Replicas are reduced after the kernel in a fixed
 *   order: run_to_run when replicas are private. Without replicas it is atomic.
 * - sort_reduce: appends a (bin, value) pair (as double, whatever the dtype)
 *   to view.pairs; the index comes from one atomicAdd per warp
 *   (warp-aggregated). A full buffer
 *   drops the pair and raises MCT_TALLY_FLAG_OVERFLOW. The sum happens after the
 *   kernel (mct_tally_flush or mct_tally_end_batch): the pairs are sorted by (bin, value bits),
 *   so the sum does not depend on the order they were appended in: run_to_run
 *   on one GPU, whatever the launch shape.
 * - shared, warp_reduce, block_reduce need the block (or warp) converged, which
 *   an any-lane call cannot ask for. Here shared runs as atomic, and
 *   warp_reduce and block_reduce as wag_match (the lanes that arrive together
 *   summed by bin, peers by one __match_any_sync), as mct_any_lane_method
 *   says. Their converged forms are mct_block_tally (any number of bins; its
 *   warps that arrive with lanes missing sum peers by the same match) and
 *   mct_block_counter (one bin, all five of Bossler's methods).
 *
 * Integer tallies (int32_t, uint64_t) never wrap, whatever the method: the
 * atomics return the old value and the overflow test is made on it, group sums
 * combine by mct_checked_plus, a private replica's add tests the value it read
 * (thread_checked.cuh); a sum out of the type's range raises
 * MCT_TALLY_FLAG_OVERFLOW (mct_tally.h).
 *
 * A method that cannot serve T (kahan with double, cas with an integer type)
 * fails to compile in the template form; in the run-time form it is a no-op,
 * because the host refuses such tallies (mct_method_supports) before a kernel
 * can see them. */
#ifndef MCT_ADD_CUH
#define MCT_ADD_CUH

#include <stdint.h>

#include <type_traits>

#include "mctally/device/mct_cuda.cuh"
#include "mctally/device/thread/thread_atomic.cuh"
#include "mctally/device/thread/thread_cas.cuh"
#include "mctally/device/thread/thread_checked.cuh"
#include "mctally/device/thread/thread_fixed.cuh"
#include "mctally/device/thread/thread_kahan.cuh"
#include "mctally/device/thread/thread_loss.cuh"
#include "mctally/device/warp/warp_peers.cuh"
#include "mctally/device/warp/warp_segmented_reduce.cuh"
#include "mctally/mct_tally.h"

/** A value type a tally can hold on the device. */
template <typename T>
MCT_HD constexpr bool mct_is_tally_type(void) {
    return std::is_same<T, int32_t>::value || std::is_same<T, uint64_t>::value || std::is_same<T, float>::value ||
           std::is_same<T, double>::value;
}

/** Whether method M can add values of type T (the device side of
 * mct_method_supports; the host table may be narrower, never wider). */
template <typename T, mct_method_t M>
MCT_HD constexpr bool mct_method_serves(void) {
    if (!mct_is_tally_type<T>() || (unsigned)M >= (unsigned)MCT_METHOD_COUNT) return false;
    if (M == MCT_METHOD_KAHAN || M == MCT_METHOD_KAHAN_NAIVE) return std::is_same<T, float>::value;
    if (M == MCT_METHOD_CAS || M == MCT_METHOD_FIXED) return std::is_floating_point<T>::value;
    return true;
}

/* ---------------------------------------------------------------------------
 * Method traits. Each method is the same three steps, prepare -> (aggregate
 * over peers) -> update; the methods differ only in the lines marked by M.
 * ------------------------------------------------------------------------- */

/** The method an any-lane call (mct_add) runs for M: itself, except the three
 * methods that need a converged block or warp, which an any-lane call cannot
 * ask for: `shared` runs as `atomic`, `warp_reduce` and `block_reduce` as
 * `wag_match` (the lanes that arrive together summed by bin). Peers by one
 * match, not wib's ballot loop, because an any-lane call is where lanes arrive
 * apart with bins of their own: the loop pays a round per distinct bin, the
 * match one instruction, and mct_block_tally's aggregation does the same for
 * a warp with lanes missing. Their converged form is mct_block_tally, which
 * runs them as they are. Public so that a caller (or a plan) can see what its
 * any-lane adds will do. */
MCT_HD constexpr mct_method_t mct_any_lane_method(mct_method_t m) {
    return m == MCT_METHOD_SHARED ? MCT_METHOD_ATOMIC
           : (m == MCT_METHOD_WARP_REDUCE || m == MCT_METHOD_BLOCK_REDUCE) ? MCT_METHOD_WAG_MATCH
                                                                          : m;
}

enum mct__peer_search { MCT__PEERS_NONE, MCT__PEERS_BALLOT, MCT__PEERS_MATCH };

/** How a method finds the lanes it aggregates with. */
MCT_HD constexpr mct__peer_search mct__peers_of(mct_method_t m) {
    return (m == MCT_METHOD_WAG || m == MCT_METHOD_WIB)                               ? MCT__PEERS_BALLOT
           : (m == MCT_METHOD_WAG_MATCH || m == MCT_METHOD_FIXED || m == MCT_METHOD_KAHAN) ? MCT__PEERS_MATCH
                                                                                            : MCT__PEERS_NONE;
}

/** The type a contribution travels in between prepare and update: int64 for
 * fixed; double for the Kahan methods (a group sum keeps its low bits until
 * the pair update) and sort_reduce (the pair's field); else T. */
template <typename T, mct_method_t M>
using mct__acc_t = typename std::conditional<
    M == MCT_METHOD_FIXED, int64_t,
    typename std::conditional<M == MCT_METHOD_KAHAN || M == MCT_METHOD_KAHAN_NAIVE || M == MCT_METHOD_SORT_REDUCE,
                              double, T>::type>::type;

/** Step 1: the contribution in the method's carrier type; false drops it. */
template <typename T, mct_method_t M>
__device__ __forceinline__ bool mct__prepare(const mct_tally_view_t& view, T value, mct__acc_t<T, M>* out) {
    if constexpr (M == MCT_METHOD_FIXED) {
        const unsigned bad = mct_fixed_from_double((double)value, view.fixed_scale, out);
        if (bad) mct_tally_raise(view.flags, bad);
        return bad == 0;
    } else {
        (void)view;
        *out = (mct__acc_t<T, M>)value;
        return true;
    }
}

/** sort_reduce's update: a warp-aggregated slot reservation (one atomicAdd per
 * group of lanes arriving together), then a plain store of the pair. */
__device__ __forceinline__ void mct__append_pair(const mct_tally_view_t& view, int64_t bin, double value) {
    const unsigned active = __activemask();
    const int leader = __ffs((int)active) - 1;
    unsigned long long base = 0;
    if (mct_lane() == leader) base = atomicAdd(view.pair_count, (unsigned long long)__popc(active));
    base = __shfl_sync(active, base, leader);
    const unsigned long long slot = base + (unsigned long long)__popc(active & mct_lanemask_lt());
    if (slot < (unsigned long long)view.pair_capacity) {
        mct_sort_pair_t* p = (mct_sort_pair_t*)view.pairs + slot;
        p->bin = (uint32_t)bin;
        p->pad = 0u;
        p->value = value;
    } else {
        mct_tally_raise(view.flags, MCT_TALLY_FLAG_OVERFLOW);
    }
}

/** replicated's update (see the method notes). */
template <typename T>
__device__ __forceinline__ void mct__replica_add(const mct_tally_view_t& view, int64_t bin, T v) {
    if (view.replicas == NULL || view.nreplicas <= 0) {
        mct_atomic_add((T*)view.bins + bin, v, view.flags);
        return;
    }
    const int64_t block_threads = mct_block_threads();
    const int64_t block = blockIdx.x + (int64_t)gridDim.x * (blockIdx.y + (int64_t)gridDim.y * blockIdx.z);
    const int64_t threads = block_threads * gridDim.x * gridDim.y * gridDim.z;
    const int64_t rank = block * block_threads + mct_thread_rank();
    T* const replicas = (T*)view.replicas;
    if (view.nreplicas >= threads) /* private: this thread owns replica `rank` (no division on this path) */
        mct_owned_add(replicas + rank * view.nbins + bin, v, view.flags);
    else
        mct_atomic_add(replicas + (rank % view.nreplicas) * view.nbins + bin, v, view.flags);
}

/** Step 3: one global update of bin by the (leader) lane. */
template <typename T, mct_method_t M>
__device__ __forceinline__ void mct__update(const mct_tally_view_t& view, int64_t bin, mct__acc_t<T, M> v) {
    T* const bins = (T*)view.bins;
    MCT_ASSUME_GLOBAL(bins);
    if constexpr (M == MCT_METHOD_CAS || (M == MCT_METHOD_WAG && std::is_floating_point<T>::value))
        mct_atomic_add_cas(bins + bin, v);
    else if constexpr (M == MCT_METHOD_KAHAN)
        mct_atomic_add_compensated((mct_kahan_pair_t*)view.bins + bin, v);
    else if constexpr (M == MCT_METHOD_KAHAN_NAIVE)
        mct_atomic_add_kahan((mct_kahan_pair_t*)view.bins + bin, v);
    else if constexpr (M == MCT_METHOD_FIXED)
        mct_atomic_add_fixed((int64_t*)view.bins + bin, v, view.flags);
    else if constexpr (M == MCT_METHOD_REPLICATED)
        mct__replica_add(view, bin, v);
    else if constexpr (M == MCT_METHOD_SORT_REDUCE)
        mct__append_pair(view, bin, v);
    else /* atomic, wib, wag_match, wag on integers (checked: mct_atomic_add's flags form) */
        mct_atomic_add(bins + bin, v, view.flags);
}

/** Whether 0 <= bin < nbins, in one unsigned comparison (nbins >= 0): a
 * negative bin wraps to above any nbins. */
static MCT_HD inline bool mct__bin_in_range(int64_t bin, int64_t nbins) { return (uint64_t)bin < (uint64_t)nbins; }

/** Adds `value` into bin `bin` of the tally with method M; any lane, any time.
 * Compile error when M cannot serve T (mct_method_serves). H: whether the add
 * may record into the rounding-loss shadow (thread_loss.cuh; NONE only in an
 * instance launched for views without one, mct_loss_hook_for). */
template <typename T, mct_method_t M, mct_loss_hook_t H = MCT_LOSS_FROM_VIEW>
__device__ __forceinline__ void mct_add(const mct_tally_view_t& view, int64_t bin, T value) {
    static_assert(mct_method_serves<T, M>(), "this tally method cannot add values of this type");
    constexpr mct_method_t L = mct_any_lane_method(M);
    constexpr mct__peer_search search = mct__peers_of(L);
    if (!mct__bin_in_range(bin, view.nbins)) {
        mct_tally_raise(view.flags, MCT_TALLY_FLAG_OUT_OF_RANGE);
        return;
    }
    /* The rounding-loss shadow (mct_rounding.h): one pointer test when off. */
    if constexpr (L != MCT_METHOD_FIXED) mct_loss_hook<H>(view, bin, value);
    mct__acc_t<T, L> v;
    if (!mct__prepare<T, L>(view, value, &v)) return;
    if constexpr (search != MCT__PEERS_NONE) {
        /* Read once: every lane of the group must name the same mask. */
        const unsigned active = __activemask();
        /* fixed and kahan aggregate in a full warp only (array adds,
         * converged kernels): in divergent code a lane's peers are rare and
         * the match costs more than the atomics it saves. Integer sums
         * commute, so fixed's bits are the same either way. The test is
         * uniform over `active`. */
        if ((L == MCT_METHOD_FIXED || L == MCT_METHOD_KAHAN) && active != 0xffffffffu) {
            mct__update<T, L>(view, bin, v);
            return;
        }
        const unsigned key = (unsigned)bin; /* bins < 2^31 */
        const unsigned peers =
            search == MCT__PEERS_MATCH ? mct_warp_peers_match(active, key) : mct_warp_peers_ballot(active, key);
        /* Integer group sums (fixed's int64 included) are checked for overflow. */
        v = mct_warp_segmented_reduce(active, peers, v, mct_checked_plus{view.flags});
        if (!mct_warp_is_leader(peers)) return;
    }
    mct__update<T, L>(view, bin, v);
}

/** The dtype whose bins hold T (T one of the four tally types). */
template <typename T>
MCT_HD constexpr mct_dtype_t mct__dtype_of(void) {
    return std::is_same<T, int32_t>::value    ? MCT_DTYPE_I32
           : std::is_same<T, uint64_t>::value ? MCT_DTYPE_U64
           : std::is_same<T, float>::value    ? MCT_DTYPE_F32
                                              : MCT_DTYPE_F64;
}

/** Every concrete method, as X(M) with M its enumerator: the one list that
 * the switches from a run-time method to a template argument are written
 * from (mct__method_dispatch; the library's array adds). */
#define MCT__METHOD_LIST(X) \
    X(MCT_METHOD_ATOMIC) \
    X(MCT_METHOD_SHARED) \
    X(MCT_METHOD_WARP_REDUCE) \
    X(MCT_METHOD_BLOCK_REDUCE) \
    X(MCT_METHOD_REPLICATED) \
    X(MCT_METHOD_CAS) \
    X(MCT_METHOD_WAG) \
    X(MCT_METHOD_WIB) \
    X(MCT_METHOD_WAG_MATCH) \
    X(MCT_METHOD_KAHAN) \
    X(MCT_METHOD_KAHAN_NAIVE) \
    X(MCT_METHOD_FIXED) \
    X(MCT_METHOD_SORT_REDUCE)
#define MCT__METHOD_COUNT_ONE(M) +1
static_assert(0 MCT__METHOD_LIST(MCT__METHOD_COUNT_ONE) == MCT_METHOD_COUNT, "MCT__METHOD_LIST names every method");
#undef MCT__METHOD_COUNT_ONE

/** One run-time method as a template argument: f.template run<M>() for the
 * method m (mct_any_lane_method is not applied: f sees the method as named).
 * Nothing for a value outside the enumeration. The any-lane adds
 * (mct__add_typed) and the buffered deposits (mct_deposit_buffer) share it;
 * warp-uniform when m comes from a view. */
template <typename F>
__device__ __forceinline__ void mct__method_dispatch(mct_method_t m, F&& f) {
#define MCT__METHOD_CASE(M) \
    case M: f.template run<M>(); break;
    switch (m) {
        MCT__METHOD_LIST(MCT__METHOD_CASE)
    default: break;
    }
#undef MCT__METHOD_CASE
}

/** mct__method_dispatch's arm for mct__add_typed: mct_add<T, M> when M serves
 * T, else nothing. */
template <typename T>
struct mct__typed_adder {
    const mct_tally_view_t& view;
    int64_t bin;
    T value;
    template <mct_method_t M>
    __device__ __forceinline__ void run() {
        if constexpr (mct_method_serves<T, M>()) mct_add<T, M>(view, bin, value);
    }
};

/** The run-time method switch for a value already of the tally's type. */
template <typename T>
__device__ __forceinline__ void mct__add_typed(const mct_tally_view_t& view, int64_t bin, T value) {
    mct__method_dispatch(view.method, mct__typed_adder<T>{view, bin, value});
}

/** An integer value for an integer bin type: kept when it fits, else the
 * tally's OVERFLOW flag is raised and the value dropped (as the host's adds). */
template <typename B, typename U>
__device__ __forceinline__ bool mct__int_fits(U v) {
    static_assert(std::is_same<B, int32_t>::value || std::is_same<B, uint64_t>::value, "an integer bin type");
    if constexpr (std::is_unsigned<U>::value)
        return std::is_unsigned<B>::value || (uint64_t)v <= (uint64_t)INT32_MAX;
    else if constexpr (std::is_unsigned<B>::value) /* u64: any non-negative value of at most 64 bits */
        return v >= 0;
    else /* i32 */
        return (int64_t)v >= (int64_t)INT32_MIN && (int64_t)v <= (int64_t)INT32_MAX;
}

/** `value` converted to the integer bin type B (int32_t or uint64_t): from an
 * integer exactly when it fits (else OVERFLOW), from a floating value by the
 * host's rule (mct_arith.h). Returns 0 or the flag that drops the value. */
template <typename B, typename U>
__device__ __forceinline__ unsigned mct__int_from(U value, B* out) {
    if constexpr (std::is_integral<U>::value) {
        if (!mct__int_fits<B>(value)) return MCT_TALLY_FLAG_OVERFLOW;
        *out = (B)value;
        return 0;
    } else if constexpr (std::is_same<B, int32_t>::value) {
        return mct_arith_i32_from_f64((double)value, out);
    } else {
        return mct_arith_u64_from_f64((double)value, out);
    }
}

/** An add of `value` to an integer tally of bin type B: converted
 * (mct__int_from), then added with the view's method; a value that cannot be
 * converted is dropped like an add to a bin out of range: flagged (with its
 * own flag when the bin is in range, else OUT_OF_RANGE), not written. */
template <typename B, typename U>
__device__ __forceinline__ void mct__add_int_converted(const mct_tally_view_t& view, int64_t bin, U value) {
    B v = 0;
    const unsigned bad = mct__int_from<B>(value, &v);
    if (!bad) mct__add_typed<B>(view, bin, v);
    else if (mct__bin_in_range(bin, view.nbins)) mct_tally_raise(view.flags, bad);
    else mct_tally_raise(view.flags, MCT_TALLY_FLAG_OUT_OF_RANGE);
}

/** A value of another type converted once to the tally's (view.dtype): float
 * tallies by C conversion (rounded to nearest); integer tallies from an
 * integer exactly when it fits, from a floating value by the host's rule
 * (mct_arith.h: rounded to nearest, ties to even; non-finite or out of range
 * raises NONFINITE or OVERFLOW and drops it). Inlined like the rest, so a
 * kernel that adds another type carries the method switch once per tally
 * type; one that adds the tally's own type never reaches it. */
template <typename U>
__device__ __forceinline__ void mct__add_converted(const mct_tally_view_t& view, int64_t bin, U value) {
    switch (view.dtype) {
    case MCT_DTYPE_F64: mct__add_typed<double>(view, bin, (double)value); break;
    case MCT_DTYPE_F32: mct__add_typed<float>(view, bin, (float)value); break;
    case MCT_DTYPE_I32: mct__add_int_converted<int32_t>(view, bin, value); break;
    case MCT_DTYPE_U64: mct__add_int_converted<uint64_t>(view, bin, value); break;
    default: break;
    }
}

/** Adds `value` into bin `bin` with the tally's own method (view.method). The
 * switch is warp-uniform, since the view is a kernel argument, so the warp
 * collectives of the chosen method see the same lanes as without it.
 *
 * `value` may be of any arithmetic type (bool excepted): a value of the
 * tally's own type (double for f64, float for f32 and kahan, int32_t, uint64_t)
 * goes straight to the method; any other is converted once to the tally's
 * type (mct__add_converted). A `fixed` tally takes float or double as they
 * are (it converts to fixed point from double itself). The check is one
 * warp-uniform comparison of the view's fields. */
template <typename U>
__device__ __forceinline__ void mct_add(const mct_tally_view_t& view, int64_t bin, U value) {
    static_assert(std::is_arithmetic<U>::value && !std::is_same<U, bool>::value,
                  "mct_add takes an arithmetic value");
    if constexpr (mct_is_tally_type<U>()) {
        if (view.dtype == mct__dtype_of<U>() || (view.method == MCT_METHOD_FIXED && std::is_floating_point<U>::value)) {
            mct__add_typed<U>(view, bin, value);
            return;
        }
    }
    mct__add_converted<U>(view, bin, value);
}

#endif /* MCT_ADD_CUH */
