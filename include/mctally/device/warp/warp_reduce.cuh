/* SPDX-License-Identifier: BSD-3-Clause */
/** @file warp_reduce.cuh  Shuffle reduction of a converged warp (or of its first
 * `width` lanes, for the partial last warp of a block). */
#ifndef MCT_WARP_REDUCE_CUH
#define MCT_WARP_REDUCE_CUH

#include <stdint.h>

#include <limits>
#include <type_traits>

#include "mctally/device/mct_cuda.cuh"

/** Mask of lanes [0, width), 1 <= width <= 32. */
__device__ __forceinline__ unsigned mct_warp_prefix_mask(int width) {
    return width >= 32 ? 0xffffffffu : ((1u << width) - 1u);
}

/** The default combine of the reductions: a + b. */
struct mct__plain_plus {
    template <typename V>
    __device__ __forceinline__ V operator()(V a, V b) const { return a + b; }
};

/** Checked integer sums (thread_checked.cuh marks mct_checked_plus_local): a
 * combine that records an overflow through `op.note(int)`. For these a warp
 * need not test every step: values whose magnitudes are all small
 * (mct__fits_warp_sum) are added plainly after one vote, and other 32-bit
 * values are summed exactly from their 16-bit halves by two hardware
 * reductions (mct__warp_sum32). */
template <typename Op>
struct mct__op_checked_sum : std::false_type {};

/** The hardware warp reduction of 32-bit integers (redux.sync), on sm_80 and
 * later and on the emulation; older devices shuffle. */
#if defined(MCT_EMULATED) || (defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800)
#define MCT__HAS_REDUX 1
#else
#define MCT__HAS_REDUX 0
#endif

#if MCT__HAS_REDUX
/** Sum of 32-bit integer `v` over the lanes of `mask`, wrapping, in every lane;
 * with `overflow` (checked sums), whether the exact sum leaves T's range: the
 * low and the high 16-bit halves are summed separately (32 halves cannot
 * overflow 32 bits), and the exact sum is rebuilt in 64 bits. */
template <typename T>
__device__ __forceinline__ T mct__warp_sum32(unsigned mask, T v, int* overflow) {
    static_assert(std::is_integral<T>::value && sizeof(T) == 4, "32-bit integers only");
    if (!overflow) return (T)__reduce_add_sync(mask, (unsigned)v);
    const unsigned lo = __reduce_add_sync(mask, (unsigned)v & 0xffffu);
    int64_t exact;
    if constexpr (std::is_signed<T>::value)
        exact = (int64_t)__reduce_add_sync(mask, (int)v >> 16) * 65536 + (int64_t)lo;
    else
        exact = (int64_t)__reduce_add_sync(mask, (unsigned)v >> 16) * 65536 + (int64_t)lo;
    constexpr int64_t low = std::is_signed<T>::value ? INT32_MIN : 0;
    constexpr int64_t high = std::is_signed<T>::value ? (int64_t)INT32_MAX : (int64_t)UINT32_MAX;
    *overflow = exact < low || exact > high;
    return (T)(uint32_t)(uint64_t)exact;
}
#endif

/** v in [-2^(digits-5), 2^(digits-5)) (unsigned: [0, 2^(digits-5))): no sum of
 * 32 such values leaves T's range (i32: 32 x -2^26 is INT32_MIN, 32 x
 * (2^26 - 1) = 2^31 - 32). Computed in unsigned arithmetic, so no value
 * overflows the test itself. */
template <typename T>
__device__ __forceinline__ int mct__fits_warp_sum(T v) {
    using U = typename std::make_unsigned<T>::type;
    constexpr U limit = (U)1 << (std::numeric_limits<T>::digits - 5);
    if constexpr (std::is_signed<T>::value)
        return (U)((U)v + limit) < (U)(2 * limit);
    else
        return v < limit;
}

/** Sum of `v` over lanes [0, width) of the calling warp; every one of those
 * lanes must call it together, and no other lane. The sum is returned in lane 0
 * (other lanes get partial sums, or the sum). A full warp uses the classic shuffle-down
 * tree; a partial warp reads its own value where the partner lane does not
 * exist, because a shuffle from a lane outside the mask is undefined. */
/* `op` (optional) combines two partial sums: mct_checked_plus for a tally's
 * integer sums. */
template <typename T, typename Op = mct__plain_plus>
__device__ __forceinline__ T mct_warp_reduce_sum(T v, int width, Op op = Op()) {
    const unsigned mask = mct_warp_prefix_mask(width);
#if MCT__HAS_REDUX
    if constexpr (std::is_integral<T>::value && sizeof(T) == 4) {
        if constexpr (std::is_same<Op, mct__plain_plus>::value) {
            return mct__warp_sum32(mask, v, (int*)nullptr);
        } else if constexpr (mct__op_checked_sum<Op>::value) {
            /* Small values (the common counts of one): one vote and one
             * reduction instead of the two exact halves. */
            if (__all_sync(mask, mct__fits_warp_sum(v))) return mct__warp_sum32(mask, v, (int*)nullptr);
            int o;
            const T r = mct__warp_sum32(mask, v, &o);
            op.note(o);
            return r;
        }
    }
#endif
    /* One vote instead of a test per step, where no step can overflow. */
    if constexpr (mct__op_checked_sum<Op>::value && std::is_integral<T>::value)
        if (__all_sync(mask, mct__fits_warp_sum(v))) return mct_warp_reduce_sum(v, width, mct__plain_plus{});
    if (width >= 32) {
        if constexpr (std::is_same<Op, mct__plain_plus>::value) {
            for (int offset = 16; offset > 0; offset >>= 1) v = op(v, __shfl_down_sync(mask, v, offset));
        } else {
            /* A lane whose partner is past the warp gets its own value back:
             * combining it would form a sum of no real lanes, which a checked
             * op could take for an overflow. */
            const int lane = mct_lane();
            for (int offset = 16; offset > 0; offset >>= 1) {
                const T other = __shfl_down_sync(mask, v, offset);
                if (lane + offset < 32) v = op(v, other);
            }
        }
        return v;
    }
    const int lane = mct_lane();
    for (int offset = 16; offset > 0; offset >>= 1) {
        const int src = lane + offset;
        const T other = __shfl_sync(mask, v, src < width ? src : lane);
        if (src < width) v = op(v, other);
    }
    return v;
}

/** Number of lanes of the calling thread's warp that exist in its block. */
__device__ __forceinline__ int mct_warp_width_in_block(void) {
    const int first = mct_thread_rank() & ~31;
    const int left = mct_block_threads() - first;
    return left < 32 ? left : 32;
}

#endif /* MCT_WARP_REDUCE_CUH */
