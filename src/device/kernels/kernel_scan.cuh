/* SPDX-License-Identifier: BSD-3-Clause */
/** @file kernel_scan.cuh  The device-wide scan kernel: declares the tile's shared
 * storage and hands the tile to the agent. The grid has one block per tile; which
 * tile a block scans comes from the atomic counter, not from blockIdx.
 *
 * Kernels are `static`: this header is compiled by nvcc and, under MCT_EMULATED, by
 * the host compiler into the same library, and external kernels would collide. */
#ifndef MCT_KERNEL_SCAN_CUH
#define MCT_KERNEL_SCAN_CUH

#include "../agent/agent_scan.cuh"

template <typename Policy, typename T, typename Op, bool EXCLUSIVE, int ALGO>
static __global__ void __launch_bounds__(Policy::threads)
    mct_kernel_scan(const T* in, T* out, int64_t n, T init, Op op, mct__scan_tile_state<T, Policy::state> state,
                    unsigned* counter, mct__scan_delays_t delays) {
    using agent = mct__agent_scan<Policy, T, Op, EXCLUSIVE, ALGO>;
    __shared__ typename agent::storage_t storage;
    agent::run(storage, in, out, n, init, op, state, counter, delays);
}

#endif /* MCT_KERNEL_SCAN_CUH */
