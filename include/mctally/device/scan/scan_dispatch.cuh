/* SPDX-License-Identifier: BSD-3-Clause */
/** @file scan_dispatch.cuh  Host side of the device-wide scan for any value type,
 * operator and policy (mct_dispatch_scan): temporary-storage layout in CUB's
 * two-phase form, reset of the tile states, and the launch. The C API (mct_scan.h)
 * is this with the types and operators it names and mct_scan_default_policy; call
 * the template directly to scan a type or operator of one's own (see scan_agent.cuh
 * for what they must satisfy) or to try another policy (scan_tuning.cuh).
 *
 * Contract (as mct_scan.h's CUDA backend): with d_temp NULL only *temp_bytes is
 * written (never 0); else d_temp is a blob of at least that many bytes, of any
 * alignment, and `in`, `out` arrays of n elements (out == in allowed), all in device
 * memory (host memory under the emulation). The scan is enqueued on `stream` without
 * waiting; the blob may be reused once it has finished on the stream. Returns
 * MCT_STATUS_SUCCESS; MCT_STATUS_NULL_POINTER if temp_bytes is NULL, or, when d_temp
 * is not NULL and n > 0, in or out is; MCT_STATUS_INVALID_VALUE for n < 0, a blob
 * smaller than the size query said or an algorithm out of range;
 * MCT_STATUS_TOO_LARGE when n needs more tiles than a grid holds; else the status of
 * the failing CUDA call (mct_cuda_status). Float results: as mct_scan.h says for the
 * two designs, with the policy's tile in place of the default one. */
#ifndef MCT_SCAN_DISPATCH_CUH
#define MCT_SCAN_DISPATCH_CUH

#include <stddef.h>
#include <stdint.h>

#include "mctally/device/mct_cuda.cuh"
#include "mctally/device/mct_launch.cuh"
#include "mctally/device/scan/scan_kernel.cuh"
#include "mctally/mct_status.h"

/** Bytes of temporary storage for n elements: the tile counter (one 256-byte
 * sub-buffer), the tile states, and 255 bytes of slack so a blob of any alignment can
 * be aligned up to 256 bytes. Never 0. */
template <typename Policy, typename T>
static inline size_t mct_scan_temp_bytes(int64_t n) {
    const int64_t tiles = n > 0 ? (n + Policy::tile_items - 1) / Policy::tile_items : 1;
    return 255 + 256 + mct_scan_tile_state<T, Policy::state>::bytes(tiles);
}

/** Scans n elements of `in` into `out` on `stream` with one kernel variant fixed at
 * compile time (EXCLUSIVE with `init`; ALGO MCT_SCAN_DECOUPLED_LOOKBACK or
 * MCT_SCAN_CHAINED), so that a caller who needs one variant (a benchmark's policy
 * sweep) instantiates one kernel. `init` is ignored by the inclusive scan. */
template <typename Policy, typename T, typename Op, bool EXCLUSIVE, mct_scan_algo_t ALGO>
static inline mct_status_t mct_dispatch_scan_variant(void* d_temp, size_t* temp_bytes, const T* in, T* out,
                                                     int64_t n, T init, Op op, mct_scan_delays_t delays,
                                                     cudaStream_t stream) {
    using state_t = mct_scan_tile_state<T, Policy::state>;
    if (!temp_bytes) return MCT_STATUS_NULL_POINTER;
    if (n < 0) return MCT_STATUS_INVALID_VALUE;
    /* Checked before the size query, whose product would overflow for such n;
     * the division form of ceil(n / tile) cannot overflow. */
    const int64_t tiles = n / Policy::tile_items + (n % Policy::tile_items != 0);
    if (tiles > INT32_MAX) return MCT_STATUS_TOO_LARGE; /* grid.x and the 32-bit tile counter */
    const size_t need = mct_scan_temp_bytes<Policy, T>(n);
    if (!d_temp) {
        *temp_bytes = need;
        return MCT_STATUS_SUCCESS;
    }
    if (*temp_bytes < need) return MCT_STATUS_INVALID_VALUE;
    if (n == 0) return MCT_STATUS_SUCCESS;
    if (!in || !out) return MCT_STATUS_NULL_POINTER;
    char* base = (char*)(((uintptr_t)d_temp + 255u) & ~(uintptr_t)255u);
    unsigned* counter = (unsigned*)base;
    const state_t state = state_t::carve(base + 256, tiles);
    /* The counter and the status words start at zero (INVALID) for every scan. */
    mct_status_t st = mct_cuda_status(cudaMemsetAsync(base, 0, 256 + state_t::zero_bytes(tiles), stream));
    if (st) return st;
    MCT_LAUNCH((mct_scan_kernel<Policy, T, Op, EXCLUSIVE, ALGO>), (unsigned)tiles, Policy::threads, 0, stream, in,
               out, n, init, op, state, counter, delays);
    return mct_cuda_status(cudaPeekAtLastError());
}

/** The same with the variant chosen at run time: `exclusive`, and `algo`. */
template <typename Policy, typename T, typename Op>
static inline mct_status_t mct_dispatch_scan(void* d_temp, size_t* temp_bytes, const T* in, T* out, int64_t n,
                                             bool exclusive, T init, Op op, mct_scan_algo_t algo,
                                             mct_scan_delays_t delays, cudaStream_t stream) {
    switch (algo) {
    case MCT_SCAN_DECOUPLED_LOOKBACK:
        return exclusive ? mct_dispatch_scan_variant<Policy, T, Op, true, MCT_SCAN_DECOUPLED_LOOKBACK>(
                               d_temp, temp_bytes, in, out, n, init, op, delays, stream)
                         : mct_dispatch_scan_variant<Policy, T, Op, false, MCT_SCAN_DECOUPLED_LOOKBACK>(
                               d_temp, temp_bytes, in, out, n, init, op, delays, stream);
    case MCT_SCAN_CHAINED:
        return exclusive ? mct_dispatch_scan_variant<Policy, T, Op, true, MCT_SCAN_CHAINED>(
                               d_temp, temp_bytes, in, out, n, init, op, delays, stream)
                         : mct_dispatch_scan_variant<Policy, T, Op, false, MCT_SCAN_CHAINED>(
                               d_temp, temp_bytes, in, out, n, init, op, delays, stream);
    default: return MCT_STATUS_INVALID_VALUE;
    }
}

#endif /* MCT_SCAN_DISPATCH_CUH */
