/* SPDX-License-Identifier: BSD-3-Clause */
/** @file tally_only_kernels.cuh  The tally-only kernel, its launch shapes and
 * its launcher, shared by the problem's device engine and its benchmark.
 * Compiled by nvcc and, for the emulated backend, as host C++. */
#ifndef MCT_SIM_TALLY_ONLY_KERNELS_CUH
#define MCT_SIM_TALLY_ONLY_KERNELS_CUH

#include "mctally/device/mct_launch.cuh"
#include "mctally/device/mct_tally_device.cuh"
#include "tally_only.h"
#include "tally_only_physics.h"
#include "sim_deposit.h"

/** Everything a launch needs besides the view and the geometry. */
typedef struct {
    uint64_t seed;
    uint64_t first; /**< the chunk's first particle */
    int64_t n;      /**< particles in the chunk */
    int collisions;
    uint32_t bins;
    float mean;
    int buffered; /**< deposits through mct_deposit_buffer (sim_deposit_buffers) */
} sim_tally_only_args_t;

/** Every deposit of this thread's particles of the chunk (grid-stride) into
 * sink.add(bin, value), the value as a T. */
template <typename T, typename Sink>
static __device__ __forceinline__ void sim_tally_only_deposits(Sink& sink, const sim_tally_only_args_t& a) {
    const int64_t stride = (int64_t)gridDim.x * blockDim.x;
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < a.n; i += stride) {
        const uint64_t particle = a.first + (uint64_t)i;
        for (int j = 0; j < a.collisions; j += 2) {
            const mct_ctr4x32_t r = mct_tally_only_draw(a.seed, particle, (uint32_t)(j / 2));
            sink.add(mct_tally_only_bin(r.v[0], a.bins), (T)mct_tally_only_energy(r.v[1], a.mean));
            if (j + 1 < a.collisions) /* uniform: collisions is the same for every lane */
                sink.add(mct_tally_only_bin(r.v[2], a.bins), (T)mct_tally_only_energy(r.v[3], a.mean));
        }
    }
}

/** The deposits of a chunk added with method M into one block tally that each
 * thread keeps for its whole grid-stride loop (so methods that hold per-thread
 * partial sums, shared or block-level copies pay their set-up and flush once
 * per thread). Lanes that run out of particles early simply stop adding;
 * every thread reaches flush(), as the block tally requires. */
template <typename T, mct_method_t M>
static __global__ void mct_tally_only_kernel(mct_tally_view_t view, sim_tally_only_args_t a) {
    mct_block_tally<T, M> tally(view);
    sim_tally_only_deposits<T>(tally, a);
    tally.flush();
}

/** The same deposits through a deposit buffer (block_deposit_buffer.cuh):
 * runs, a block cache of hot bins, per-lane sort_reduce slots. */
template <typename T, mct_method_t M>
static __global__ void mct_tally_only_kernel_buffered(mct_tally_view_t view, sim_tally_only_args_t a) {
    mct_deposit_buffer<T, M> buf(view);
    sim_tally_only_deposits<T>(buf, a);
    buf.flush();
}

/** Whether the launch buffers: the problem's choice, the method and whether
 * the block tally already keeps this method's sums in the block. */
static inline int sim_tally_only_buffers(mct_sim_deposit_t d, const mct_tally_view_t& view) {
    const size_t elem = view.dtype == MCT_DTYPE_F32 ? 4u : 8u;
    return sim_deposit_buffers(d, view.method, view.dtype,
                               mct_block_mode_of(view.method, view.nbins, elem) != MCT_BLOCK_MODE_PER_LANE);
}

/** Threads per block of a launch shape. */
static inline int sim_tally_only_block(mct_tally_only_launch_t launch) {
    return launch == MCT_TALLY_ONLY_LAUNCH_PAPER ? MCT_TALLY_ONLY_PAPER_THREADS : 256;
}

/** Blocks of a launch shape: Liu's 1024 whatever n (threads without a
 * particle only flush), or enough 256-thread blocks to fill each of the `sms`
 * multiprocessors once (2048 resident threads on sm_80 and sm_90; where fewer
 * fit, on sm_75 or with a large shared tally, blocks only queue), never more
 * than the n particles need. */
static inline int64_t sim_tally_only_grid(mct_tally_only_launch_t launch, int64_t n, int sms) {
    const int block = sim_tally_only_block(launch);
    const int64_t want = launch == MCT_TALLY_ONLY_LAUNCH_PAPER ? MCT_TALLY_ONLY_PAPER_BLOCKS
                                                               : (int64_t)sms * (2048 / block);
    const int64_t need = (n + block - 1) / block;
    if (launch == MCT_TALLY_ONLY_LAUNCH_PAPER) return want;
    return need < 1 ? 1 : (need < want ? need : want);
}

template <typename T, mct_method_t M>
static void sim_tally_only_launch_typed(const mct_tally_view_t& view, const sim_tally_only_args_t& a, int64_t grid,
                                         int block, cudaStream_t stream) {
    if constexpr (mct_method_serves<T, M>()) {
        if constexpr (mct_deposit_kind_of(M) != MCT_DEPOSIT_DIRECT)
            if (a.buffered) {
                MCT_LAUNCH((mct_tally_only_kernel_buffered<T, M>), (unsigned)grid, block,
                           mct_deposit_buffer_storage_bytes(M, block), stream, view, a);
                return;
            }
        MCT_LAUNCH((mct_tally_only_kernel<T, M>), (unsigned)grid, block, (mct_block_tally_smem_bytes<T, M>(view.nbins)),
                   stream, view, a);
    }
}

/* One arm of the method switch: M as a compile-time argument, so every
 * method's add inlines without a run-time branch. */
#define SIM_TALLY_ONLY_ARM(M) \
    case M: sim_tally_only_launch_typed<T, M>(view, a, grid, block, stream); break

template <typename T>
static void sim_tally_only_launch_method(const mct_tally_view_t& view, const sim_tally_only_args_t& a, int64_t grid,
                                          int block, cudaStream_t stream) {
    switch (view.method) {
        SIM_TALLY_ONLY_ARM(MCT_METHOD_ATOMIC);
        SIM_TALLY_ONLY_ARM(MCT_METHOD_SHARED);
        SIM_TALLY_ONLY_ARM(MCT_METHOD_WARP_REDUCE);
        SIM_TALLY_ONLY_ARM(MCT_METHOD_BLOCK_REDUCE);
        SIM_TALLY_ONLY_ARM(MCT_METHOD_REPLICATED);
        SIM_TALLY_ONLY_ARM(MCT_METHOD_CAS);
        SIM_TALLY_ONLY_ARM(MCT_METHOD_WAG);
        SIM_TALLY_ONLY_ARM(MCT_METHOD_WIB);
        SIM_TALLY_ONLY_ARM(MCT_METHOD_WAG_MATCH);
        SIM_TALLY_ONLY_ARM(MCT_METHOD_KAHAN);
        SIM_TALLY_ONLY_ARM(MCT_METHOD_KAHAN_NAIVE);
        SIM_TALLY_ONLY_ARM(MCT_METHOD_FIXED);
        SIM_TALLY_ONLY_ARM(MCT_METHOD_SORT_REDUCE);
    default: break;
    }
}
#undef SIM_TALLY_ONLY_ARM

/** Launches the kernel for the view's type and method (no synchronization);
 * integer tallies launch nothing (the problem refuses them before). */
static inline void sim_tally_only_launch(const mct_tally_view_t& view, const sim_tally_only_args_t& a, int64_t grid,
                                          int block, cudaStream_t stream) {
    if (view.dtype == MCT_DTYPE_F32)
        sim_tally_only_launch_method<float>(view, a, grid, block, stream);
    else if (view.dtype == MCT_DTYPE_F64)
        sim_tally_only_launch_method<double>(view, a, grid, block, stream);
}

#endif /* MCT_SIM_TALLY_ONLY_KERNELS_CUH */
