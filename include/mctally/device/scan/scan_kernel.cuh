/* SPDX-License-Identifier: BSD-3-Clause */
/** @file scan_kernel.cuh  The device-wide scan kernel (mct_scan_kernel): declares the
 * tile's shared storage and hands the tile to the agent (scan_agent.cuh). The grid
 * has one block per tile; which tile a block scans comes from the atomic counter, not
 * from blockIdx. scan_dispatch.cuh sizes the grid, zeroes the counter and the tile
 * states, and launches it.
 *
 * The kernel is `static`: this header may be compiled by nvcc and, under
 * MCT_EMULATED, by the host compiler into the same program, and external kernels
 * would collide. */
#ifndef MCT_SCAN_KERNEL_CUH
#define MCT_SCAN_KERNEL_CUH

#include "mctally/device/scan/scan_agent.cuh"

template <typename Policy, typename T, typename Op, bool EXCLUSIVE, mct_scan_algo_t ALGO>
static __global__ void __launch_bounds__(Policy::threads)
    mct_scan_kernel(const T* in, T* out, int64_t n, T init, Op op, mct_scan_tile_state<T, Policy::state> state,
                    unsigned* counter, mct_scan_delays_t delays) {
    using agent = mct_scan_agent<Policy, T, Op, EXCLUSIVE, ALGO>;
    __shared__ typename agent::storage_t storage;
    agent::run(storage, in, out, n, init, op, state, counter, delays);
}

#endif /* MCT_SCAN_KERNEL_CUH */
