/* SPDX-License-Identifier: BSD-3-Clause */
/** @file dispatch_scan.cuh  Host side of the device-wide scan for one value type,
 * operator and policy: temporary-storage layout (CUB's two-phase form), reset of the
 * tile states, and the launch. A template so that tests and benchmarks can run other
 * operators and policies than the C API's. */
#ifndef MCT_DISPATCH_SCAN_CUH
#define MCT_DISPATCH_SCAN_CUH

#include <stdint.h>

#include "../device_check.cuh"
#include "../kernels/kernel_scan.cuh"
#include "mctally/device/mct_launch.cuh"

/** Bytes of temporary storage for n elements: the tile counter (one 256-byte
 * sub-buffer), the tile states, and 255 bytes of slack so a blob of any alignment can
 * be aligned up to 256 bytes. Never 0. */
template <typename Policy, typename T>
static size_t mct__scan_temp_bytes(int64_t n) {
    const int64_t tiles = n > 0 ? (n + Policy::tile_items - 1) / Policy::tile_items : 1;
    return 255 + 256 + mct__scan_tile_state<T, Policy::state>::bytes(tiles);
}

/** Scans n elements of `in` into `out` on `stream` with one kernel variant fixed at
 * compile time (EXCLUSIVE with `init`; ALGO MCT__SCAN_LOOKBACK or _CHAINED), so that a
 * caller who needs one variant (a benchmark's policy sweep) instantiates one kernel.
 * d_temp NULL: writes the size to *temp_bytes only. */
template <typename Policy, typename T, typename Op, bool EXCLUSIVE, int ALGO>
static mct_status_t mct__dispatch_scan_variant(void* d_temp, size_t* temp_bytes, const T* in, T* out, int64_t n,
                                               T init, Op op, mct__scan_delays_t delays, cudaStream_t stream) {
    using state_t = mct__scan_tile_state<T, Policy::state>;
    const size_t need = mct__scan_temp_bytes<Policy, T>(n);
    if (!d_temp) {
        *temp_bytes = need;
        return MCT_STATUS_SUCCESS;
    }
    if (*temp_bytes < need) return MCT_STATUS_INVALID_VALUE;
    if (n == 0) return MCT_STATUS_SUCCESS;
    const int64_t tiles = (n + Policy::tile_items - 1) / Policy::tile_items;
    if (tiles > INT32_MAX) return MCT_STATUS_TOO_LARGE; /* grid.x and the 32-bit tile counter */
    char* base = (char*)(((uintptr_t)d_temp + 255u) & ~(uintptr_t)255u);
    unsigned* counter = (unsigned*)base;
    const state_t state = state_t::carve(base + 256, tiles);
    /* The counter and the status words start at zero (INVALID) for every scan. */
    mct_status_t st = MCT_CUDA_CHECK(cudaMemsetAsync(base, 0, 256 + state_t::zero_bytes(tiles), stream));
    if (st) return st;
    MCT_LAUNCH((mct_kernel_scan<Policy, T, Op, EXCLUSIVE, ALGO>), (unsigned)tiles, Policy::threads, 0, stream, in,
               out, n, init, op, state, counter, delays);
    return MCT_LAUNCH_CHECK();
}

/** The same with the variant chosen at run time (`algo` is an mct_scan_algo_t). */
template <typename Policy, typename T, typename Op>
static mct_status_t mct__dispatch_scan(void* d_temp, size_t* temp_bytes, const T* in, T* out, int64_t n,
                                       bool exclusive, T init, Op op, int algo, mct__scan_delays_t delays,
                                       cudaStream_t stream) {
    if (algo == MCT__SCAN_CHAINED)
        return exclusive ? mct__dispatch_scan_variant<Policy, T, Op, true, MCT__SCAN_CHAINED>(
                               d_temp, temp_bytes, in, out, n, init, op, delays, stream)
                         : mct__dispatch_scan_variant<Policy, T, Op, false, MCT__SCAN_CHAINED>(
                               d_temp, temp_bytes, in, out, n, init, op, delays, stream);
    return exclusive ? mct__dispatch_scan_variant<Policy, T, Op, true, MCT__SCAN_LOOKBACK>(
                           d_temp, temp_bytes, in, out, n, init, op, delays, stream)
                     : mct__dispatch_scan_variant<Policy, T, Op, false, MCT__SCAN_LOOKBACK>(
                           d_temp, temp_bytes, in, out, n, init, op, delays, stream);
}

#endif /* MCT_DISPATCH_SCAN_CUH */
