/* SPDX-License-Identifier: BSD-3-Clause */
/** @file pet_kernels.cuh  The PET problem's event generator: persistent
 * threads (a grid that fills the GPU once), each running many decays, one
 * Philox stream per decay, every good event one add into the LOR tally with
 * the tally's method (mct_block_tally: `shared`, `block_reduce` and
 * `warp_reduce` keep the block's contributions, every other method is
 * mct_add). Compiled by nvcc and, for the emulated backend, as host C++.
 *
 * The kernel does little besides the decay's arithmetic and the add, so the
 * add into a map of 10^8-10^9 bins is its cost: `atomic`'s add is one atomic
 * instruction (its own instance, as are `wib` and `block_reduce`; the other
 * methods share the instance that reads the method from the view). The
 * discarding instance computes every key but adds nothing (it XORs the keys
 * into a checksum that reaches memory, so no work is optimized away): the time
 * of the real launch over it is the tally's overhead. */
#ifndef MCT_SIM_PET_KERNELS_CUH
#define MCT_SIM_PET_KERNELS_CUH

#include "mctally/device/mct_launch.cuh"
#include "mctally/device/mct_tally_device.cuh"
#include "pet_physics.h"

/* MCT_BENCHMARK_HOOKS (on by default) keeps the discarding instance the
 * benchmark measures the tally's overhead against. */
#ifndef MCT_BENCHMARK_HOOKS
#define MCT_BENCHMARK_HOOKS 1
#endif

/* The geometry and the view are read through pointers into the parameter
 * space (a broadcast constant load), not copied per thread. */
#if defined(__CUDACC__)
#define SIM_PET_GRID_CONST __grid_constant__
#else
#define SIM_PET_GRID_CONST
#endif

/** The run's counters on the device. */
typedef struct {
    unsigned long long good, outside, checksum;
} sim_pet_device_counters_t;

/** Decays [first, first + n) into the tally with method M (FROM_VIEW: the
 * view's) and value type T; DISCARD: no add. BUF: every event through a
 * deposit buffer (block_deposit_buffer.cuh) instead of the block tally. */
template <typename T, mct_method_t M, bool DISCARD, bool BUF = false>
static __global__ void mct_pet_kernel(SIM_PET_GRID_CONST const mct_pet_geom_t geom,
                                      const mct_pet_src_shape_t* __restrict__ shapes, mct_key2x32_t key2,
                                      uint64_t first, int64_t n, SIM_PET_GRID_CONST const mct_tally_view_t view,
                                      sim_pet_device_counters_t* out) {
    typename std::conditional<BUF, mct_deposit_buffer<T, M>, mct_block_tally<T, M>>::type tally(view);
    unsigned long long good = 0, outside = 0, checksum = 0;
    const int64_t stride = (int64_t)gridDim.x * blockDim.x;
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
        uint32_t key = 0;
        const int r = mct_pet_decay(&geom, shapes, key2, first + (uint64_t)i, &key);
        if (r == MCT_PET_MISSED) continue;
        ++good;
        if (r == MCT_PET_OUTSIDE) {
            ++outside;
        } else if (DISCARD) {
            checksum ^= key;
        } else {
            tally.add((int64_t)key, T(1));
        }
    }
    tally.flush();
    if (good) atomicAdd(&out->good, good);
    if (outside) atomicAdd(&out->outside, outside);
    if (checksum) atomicXor(&out->checksum, checksum);
}

template <typename T>
using sim_pet_kernel_t = void (*)(mct_pet_geom_t, const mct_pet_src_shape_t*, mct_key2x32_t, uint64_t, int64_t,
                                  mct_tally_view_t, sim_pet_device_counters_t*);

/** Whether the launch buffers its events (sim_deposit.h): the choice, the
 * method, and whether the block tally keeps the method's sums in the block. */
template <typename T>
static inline int sim_pet_buffers(mct_sim_deposit_t d, const mct_tally_view_t& view) {
    return sim_deposit_buffers(d, view.method, view.dtype,
                               mct_block_mode_of_view(view.method, view.nbins, sizeof(T)) != MCT_BLOCK_MODE_PER_LANE);
}

/** The kernel instance for the view's method, or the discarding one; with
 * `buffered`, the one that reads the method from the view through a deposit
 * buffer (only the methods that buffer launch it). */
template <typename T>
static inline sim_pet_kernel_t<T> sim_pet_kernel_for(const mct_tally_view_t& view, int discard, int buffered = 0) {
#if MCT_BENCHMARK_HOOKS
    if (discard) return mct_pet_kernel<T, MCT_METHOD_ATOMIC, true>;
#else
    (void)discard;
#endif
    if (buffered) return mct_pet_kernel<T, MCT_METHOD_FROM_VIEW, false, true>;
    if (view.method == MCT_METHOD_ATOMIC) return mct_pet_kernel<T, MCT_METHOD_ATOMIC, false>;
    if (view.method == MCT_METHOD_WIB) return mct_pet_kernel<T, MCT_METHOD_WIB, false>;
    if (view.method == MCT_METHOD_BLOCK_REDUCE) return mct_pet_kernel<T, MCT_METHOD_BLOCK_REDUCE, false>;
    return mct_pet_kernel<T, MCT_METHOD_FROM_VIEW, false>;
}

/** Dynamic shared memory of the kernel: the tally's or the buffer's storage. */
template <typename T>
static inline size_t sim_pet_smem(const mct_tally_view_t& view, int block, int buffered = 0) {
    return buffered ? mct_deposit_buffer_smem_bytes<T>(view, block) : mct_block_tally_smem_bytes<T>(view);
}

#endif /* MCT_SIM_PET_KERNELS_CUH */
