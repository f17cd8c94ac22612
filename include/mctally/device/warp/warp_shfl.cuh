/* SPDX-License-Identifier: BSD-3-Clause */
/** @file warp_shfl.cuh  Warp shuffles of any trivially copyable type.
 *
 * CUDA's __shfl_*_sync take only arithmetic types; a user type (a pair, a small
 * struct for a non-commutative scan operator) is moved as 32-bit words, as CUB's
 * ShuffleIndex does. Arithmetic types of 4 and 8 bytes go straight to the intrinsic. */
#ifndef MCT_WARP_SHFL_CUH
#define MCT_WARP_SHFL_CUH

#include <string.h>

#include <type_traits>

#include "mctally/device/mct_cuda.cuh"

/** Every lane of a warp, as the mask of the _sync intrinsics. */
#define MCT_FULL_WARP_MASK 0xffffffffu

/** Shuffle `v` word by word with the intrinsic `f`. */
template <typename T, typename F>
__device__ __forceinline__ T mct__shfl_words(const T& v, F f) {
    static_assert(std::is_trivially_copyable<T>::value, "warp shuffles need a trivially copyable type");
    constexpr int W = (int)((sizeof(T) + 3) / 4);
    unsigned w[W];
    w[W - 1] = 0u; /* defined padding bytes when sizeof(T) is not a multiple of 4 */
    memcpy(w, &v, sizeof(T));
MCT_UNROLL
    for (int i = 0; i < W; ++i) w[i] = f(w[i]);
    T r;
    memcpy(&r, w, sizeof(T));
    return r;
}

/** __shfl_sync for any trivially copyable T. */
template <typename T>
__device__ __forceinline__ T mct_shfl_idx(unsigned mask, const T& v, int src) {
    if constexpr (std::is_arithmetic<T>::value && sizeof(T) >= 4) {
        return __shfl_sync(mask, v, src);
    } else {
        return mct__shfl_words(v, [&](unsigned x) { return __shfl_sync(mask, x, src); });
    }
}

/** __shfl_up_sync for any trivially copyable T. */
template <typename T>
__device__ __forceinline__ T mct_shfl_up(unsigned mask, const T& v, unsigned delta) {
    if constexpr (std::is_arithmetic<T>::value && sizeof(T) >= 4) {
        return __shfl_up_sync(mask, v, delta);
    } else {
        return mct__shfl_words(v, [&](unsigned x) { return __shfl_up_sync(mask, x, delta); });
    }
}

/** __shfl_down_sync for any trivially copyable T. */
template <typename T>
__device__ __forceinline__ T mct_shfl_down(unsigned mask, const T& v, unsigned delta) {
    if constexpr (std::is_arithmetic<T>::value && sizeof(T) >= 4) {
        return __shfl_down_sync(mask, v, delta);
    } else {
        return mct__shfl_words(v, [&](unsigned x) { return __shfl_down_sync(mask, x, delta); });
    }
}

#endif /* MCT_WARP_SHFL_CUH */
