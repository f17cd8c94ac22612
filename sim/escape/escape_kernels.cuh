/* SPDX-License-Identifier: BSD-3-Clause */
/** @file escape_kernels.cuh  The escape problem's three kernels (source,
 * transport, tally) and the tally kernel's launcher. Shared by the problem's
 * device engine and by its benchmark. */
#ifndef MCT_SIM_ESCAPE_KERNELS_CUH
#define MCT_SIM_ESCAPE_KERNELS_CUH

#include "escape.h"
#include "escape_physics.h"
#include "mctally/device/mct_launch.cuh"
#include "mctally/device/mct_tally_device.cuh"

static __global__ void mct_escape_source_kernel(mct_escape_photon_t* photons, int64_t n, int64_t first) {
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x)
        photons[i] = mct_escape_source((uint64_t)(first + i));
}

static __global__ void mct_escape_transport_kernel(const mct_escape_photon_t* photons, int32_t* events, int64_t n,
                                            uint64_t seed, double p_escape) {
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x)
        events[i] = mct_escape_transport(seed, photons[i], p_escape);
}

/** Reads every event flag and counts the escapes with method M. With one
 * history per thread (paper launch) each thread reads one flag; with a full
 * launch each thread strides over many and the counter's register partial
 * carries across them. */
template <typename T, mct_method_t M>
static __global__ void mct_escape_tally_kernel(const int32_t* __restrict__ events, int64_t n, mct_tally_view_t view) {
    __shared__ mct_block_counter_storage<T> storage;
    mct_block_counter<T, M> counter(view, 0, storage);
    const int64_t stride = (int64_t)gridDim.x * blockDim.x;
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        if (events[i] == MCT_ESCAPE_ESCAPED) counter.add(T(1));
    counter.flush();
}

/** Grid of the tally kernel: one thread per history (paper), or enough blocks
 * of `block` threads to fill each of the `sms` multiprocessors once (full; 2048
 * resident threads per multiprocessor on sm_70 to sm_90). */
static inline int64_t sim_escape_tally_grid(mct_escape_launch_t launch, int64_t n, int block, int sms) {
    int64_t paper = (n + block - 1) / block;
    if (paper < 1) paper = 1;
    if (launch == MCT_ESCAPE_LAUNCH_PAPER) return paper;
    int64_t full = (int64_t)sms * (2048 / block > 0 ? 2048 / block : 1);
    return full < paper ? full : paper;
}

template <typename T, mct_method_t M>
static void sim_escape_tally_launch_typed(const int32_t* events, int64_t n, mct_tally_view_t view, int64_t grid,
                                           int block, cudaStream_t stream) {
    MCT_LAUNCH((mct_escape_tally_kernel<T, M>), (unsigned)grid, block, 0, stream, events, n, view);
}

template <typename T>
static void sim_escape_tally_launch_method(const int32_t* events, int64_t n, mct_tally_view_t view, int64_t grid,
                                            int block, cudaStream_t stream) {
    switch (view.method) {
    case MCT_METHOD_ATOMIC: sim_escape_tally_launch_typed<T, MCT_METHOD_ATOMIC>(events, n, view, grid, block, stream); break;
    case MCT_METHOD_SHARED: sim_escape_tally_launch_typed<T, MCT_METHOD_SHARED>(events, n, view, grid, block, stream); break;
    case MCT_METHOD_WARP_REDUCE: sim_escape_tally_launch_typed<T, MCT_METHOD_WARP_REDUCE>(events, n, view, grid, block, stream); break;
    case MCT_METHOD_BLOCK_REDUCE: sim_escape_tally_launch_typed<T, MCT_METHOD_BLOCK_REDUCE>(events, n, view, grid, block, stream); break;
    case MCT_METHOD_REPLICATED: sim_escape_tally_launch_typed<T, MCT_METHOD_REPLICATED>(events, n, view, grid, block, stream); break;
    default: break;
    }
}

/** Launches the tally kernel for the view's type and method (no synchronization). */
static inline void sim_escape_tally_launch(const int32_t* events, int64_t n, mct_tally_view_t view, int64_t grid,
                                            int block, cudaStream_t stream) {
    switch (view.dtype) {
    case MCT_DTYPE_I32: sim_escape_tally_launch_method<int32_t>(events, n, view, grid, block, stream); break;
    case MCT_DTYPE_U64: sim_escape_tally_launch_method<uint64_t>(events, n, view, grid, block, stream); break;
    case MCT_DTYPE_F32: sim_escape_tally_launch_method<float>(events, n, view, grid, block, stream); break;
    case MCT_DTYPE_F64: sim_escape_tally_launch_method<double>(events, n, view, grid, block, stream); break;
    default: break;
    }
}

#endif /* MCT_SIM_ESCAPE_KERNELS_CUH */
