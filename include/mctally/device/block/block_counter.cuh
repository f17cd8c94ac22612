/* SPDX-License-Identifier: BSD-3-Clause */
/** @file block_counter.cuh  Block-scope accumulation into ONE bin of a tally
 * (an event counter such as an escape tally), with each of Bossler's five
 * methods. The methods differ only in add() and flush():
 *
 * | method        | add(v)                       | flush()                                   |
 * |---------------|------------------------------|-------------------------------------------|
 * | atomic        | global atomic (if v != 0)    | nothing                                   |
 * | shared        | shared-memory atomic         | one global atomic per word per block      |
 * | warp_reduce   | register sum                 | warp shuffle sum, one atomic per warp     |
 * | block_reduce  | register sum                 | block sum, one atomic per block           |
 * | replicated    | register sum                 | plain add into the thread's own replica   |
 *
 * Usage inside a kernel with 1-D blocks (all threads of the block construct the
 * counter and call flush(), converged; add() may be called from any thread any
 * number of times in between):
 *
 *     __shared__ mct_block_counter_storage<double> s;
 *     mct_block_counter<double, MCT_METHOD_BLOCK_REDUCE> c(view, bin, s);
 *     for (...) if (escaped) c.add(1.0);
 *     c.flush();
 *
 * Determinism: integer counters are exact whatever the method, and never wrap:
 * the global atomics test the old value they return, the register sum keeps
 * an overflow bit, the reductions add by mct_checked_plus_local, and flush()
 * raises MCT_TALLY_FLAG_OVERFLOW once per thread for either
 * (thread_checked.cuh). shared keeps two words: a thread's adds go to the
 * first without a test while their magnitudes sum to at most the type's range
 * over the most threads a block can have (so that word cannot leave the range, whatever the
 * order; 1024 threads at most), and beyond that to the second, whose atomics
 * test the old value. The first is the common case and costs what an
 * unchecked shared atomic does. For floats the atomics' order varies (not_guaranteed), except replicated, whose replicas are
 * reduced in a fixed order by mct_tally_end_batch (run_to_run).
 * Precondition for replicated: the tally holds at least one replica per thread
 * of the grid (mct_tally_reserve_replicas), replica index = global thread rank. */
#ifndef MCT_BLOCK_COUNTER_CUH
#define MCT_BLOCK_COUNTER_CUH

#include <type_traits>

#include "mctally/device/block/block_privatized.cuh"
#include "mctally/device/block/block_reduce.cuh"
#include "mctally/device/thread/thread_checked.cuh"
#include "mctally/device/thread/thread_loss.cuh"
#include "mctally/mct_tally.h"

template <typename T>
struct mct_block_counter_storage {
    T shared_bin[2];                        /* method shared: [0] adds within budget, [1] the rest */
    mct_block_reduce_storage<T> reduce;     /* method block_reduce */
};

/** The magnitude of an integer add, unsigned (|INT32_MIN| fits). */
template <typename T>
__device__ __forceinline__ typename std::make_unsigned<T>::type mct__add_magnitude(T v) {
    using U = typename std::make_unsigned<T>::type;
    if constexpr (std::is_signed<T>::value)
        return v < 0 ? (U)(U(0) - (U)v) : (U)v;
    else
        return v;
}

template <typename T, mct_method_t M>
struct mct_block_counter {
    T* target; /* the global bin, or this thread's replica of it */
    T acc;     /* register partial of the reducing methods */
    int overflow; /* integers: the register partial left the type's range */
    /* shared, integers: what is left of the thread's budget of unchecked adds:
     * the type's largest value over 1024, the most threads a block can have,
     * so that the budget is a constant and needs no division by the block's
     * size; held in 32 bits (for 64-bit types capped at 2^32 - 1, a smaller
     * budget being as safe), so that an add's test is 32-bit arithmetic. */
    uint32_t budget;
    mct_block_counter_storage<T>& storage;
    const mct_tally_view_t& view; /* flags and the rounding-loss shadow (mct_rounding.h) */
    int64_t bin;

    __device__ __forceinline__ mct_block_counter(const mct_tally_view_t& v, int64_t b,
                                                 mct_block_counter_storage<T>& s)
        : target((T*)v.bins + b), acc(T(0)), overflow(0), budget(0), storage(s), view(v), bin(b) {
        if (M == MCT_METHOD_REPLICATED) {
            const int64_t replica = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
            target = (T*)v.replicas + replica * v.nbins + b;
        }
        if (M == MCT_METHOD_SHARED) {
            if constexpr (std::is_integral<T>::value) {
                using U = typename std::make_unsigned<T>::type;
                constexpr U largest = std::is_signed<T>::value ? (U)(~U(0) >> 1) : ~U(0); /* T's largest value */
                constexpr U share = largest >> 10;
                budget = share > (U)UINT32_MAX ? UINT32_MAX : (uint32_t)share;
            }
            mct_block_privatized_zero(storage.shared_bin, 2);
        }
    }

    /* The reducing methods keep add() to one register add (and, for integers,
     * an overflow bit OR-ed without a branch): the flag and the rounding-loss
     * record wait for flush(), which sees each thread's partial. */
    __device__ __forceinline__ void add(T v) {
        if (M == MCT_METHOD_ATOMIC) {
            mct_loss_hook<MCT_LOSS_FROM_VIEW>(view, bin, v);
            if (v != T(0)) mct_atomic_add(target, v, view.flags);
        } else if (M == MCT_METHOD_SHARED) {
            mct_loss_hook<MCT_LOSS_FROM_VIEW>(view, bin, v);
            if constexpr (std::is_integral<T>::value) {
                const auto m = mct__add_magnitude(v);
                if (m <= (decltype(m))budget) {
                    budget -= (uint32_t)m;
                    mct_atomic_add(&storage.shared_bin[0], v); /* cannot leave the range: no test */
                } else {
                    mct_atomic_add(&storage.shared_bin[1], v, view.flags);
                }
            } else if (v != T(0)) {
                mct_atomic_add(&storage.shared_bin[0], v, view.flags);
            }
        } else if constexpr (std::is_integral<T>::value) {
            int o;
            acc = mct__checked_add(acc, v, &o);
            overflow |= o;
        } else {
            acc += v;
        }
    }

    __device__ __forceinline__ void flush() {
        /* Integer overflows of the thread's partial and of the reduction's
         * combines are OR-ed into one register and raised once at the end. */
        int o = overflow;
        if (M == MCT_METHOD_WARP_REDUCE || M == MCT_METHOD_BLOCK_REDUCE || M == MCT_METHOD_REPLICATED) {
            /* The rounding-loss estimate samples the partials as they enter the
             * reduction (the thread's own register sum of its adds). */
            if constexpr (std::is_floating_point<T>::value)
                if (acc != T(0)) mct_loss_hook<MCT_LOSS_FROM_VIEW>(view, bin, acc);
        }
        if (M == MCT_METHOD_SHARED) {
            /* Each non-zero word with its own checked atomic into the bin. */
            __syncthreads();
            for (int k = mct_thread_rank(); k < 2; k += mct_block_threads()) {
                const T w = storage.shared_bin[k];
                if (w != T(0)) mct_atomic_add(target, w, view.flags);
            }
        } else if (M == MCT_METHOD_WARP_REDUCE) {
            const T sum = mct_warp_reduce_sum(acc, mct_warp_width_in_block(), mct_checked_plus_local{&o});
            if (mct_lane() == 0 && sum != T(0)) mct_atomic_add(target, sum, view.flags);
        } else if (M == MCT_METHOD_BLOCK_REDUCE) {
            const T sum = mct_block_reduce_sum(acc, storage.reduce, mct_checked_plus_local{&o});
            if (threadIdx.x == 0 && sum != T(0)) mct_atomic_add(target, sum, view.flags);
        } else if (M == MCT_METHOD_REPLICATED) {
            *target = mct_checked_plus_local{&o}(*target, acc);
        }
        if constexpr (std::is_integral<T>::value)
            if (o) mct_tally_raise(view.flags, MCT_TALLY_FLAG_OVERFLOW);
    }
};

#endif /* MCT_BLOCK_COUNTER_CUH */
