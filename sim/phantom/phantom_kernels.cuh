/* SPDX-License-Identifier: BSD-3-Clause */
/** @file phantom_kernels.cuh  The phantom's transport kernel: persistent
 * threads (a grid that fills the GPU once, each thread looping over
 * histories, as in Liu 2018), every deposit added with the tally's method
 * through mct_block_tally (the `shared` method keeps the bins in shared memory,
 * every other method is mct_add). Shared by the device engine and the
 * benchmark. Compiled by nvcc and, for the emulated backend, as host C++.
 *
 * Kept small per thread: the step functions (phantom_transport.inc) are
 * compiled once and called, not inlined into one loop; a
 * history's state (particle, generator, counters, waiting particles) lives in
 * the thread's local memory, where the step functions load what they use. So
 * the registers are those of one step, not of everything at once (sm_90: 162
 * in double instead of 252, 96 if the tally's add were called too) and the
 * code holds one copy of each step. */
#ifndef MCT_SIM_PHANTOM_KERNELS_CUH
#define MCT_SIM_PHANTOM_KERNELS_CUH

#include <type_traits>

#include "mctally/device/mct_launch.cuh"
#include "mctally/device/mct_tally_device.cuh"

/** One deposit into the block's tally with the tally's method, inlined at
 * each deposit site. A called (__noinline__) add kept the kernel at 96
 * registers, but on the H100 a run with the real tally then took 2.5x the
 * time of the discarding one (Table II, test 2, 4e5 histories: 0.337 s
 * against 0.137 s; a call per deposit, ~450 per history), where an inlined
 * add had cost 10-17%. Inlined, the kernel takes 162 registers (sm_90, no
 * spills). */
template <typename T>
static __device__ __forceinline__ void mct__phantom_tally_add(mct_block_tally<T>* tally, int64_t voxel, T e) {
    tally->add(voxel, e);
}

/** Where a deposit goes: the block's tally, or nowhere in the benchmark's
 * discarding launch (the values still reach the counters, so the transport
 * cannot be optimized away). The branch is uniform over the grid. */
template <typename T>
struct mct__phantom_sink {
    mct_block_tally<T>* tally;
    int discard;
    template <typename R>
    __device__ __forceinline__ void add(int64_t voxel, R e) {
        if (!discard) mct__phantom_tally_add<T>(tally, voxel, (T)e);
    }
};

#define MCT_PH_FN template <typename MCT_PH_SinkT> static __device__ __forceinline__
#define MCT_PH_FN_COLD template <typename MCT_PH_SinkT> static __device__ __noinline__
#define MCT_PH_SINK_T MCT_PH_SinkT
#define MCT_PH_SCORE(sink, voxel, e) (sink)->add((voxel), (e))
#include "phantom_transport.h"

/** The transport functions and types of one precision. */
template <typename R>
struct mct__phantom_real;

template <>
struct mct__phantom_real<double> {
    typedef mct_ph_tables_t_f64 tables_t;
    typedef mct_ph_geom_t_f64 geom_t;
    template <typename S>
    static __device__ __forceinline__ void history(S* s, const geom_t* g, const tables_t* tb, uint64_t h,
                                                   mct_phantom_counters_t* c) {
        mct_ph_history_f64(s, g, tb, h, c);
    }
};

template <>
struct mct__phantom_real<float> {
    typedef mct_ph_tables_t_f32 tables_t;
    typedef mct_ph_geom_t_f32 geom_t;
    template <typename S>
    static __device__ __forceinline__ void history(S* s, const geom_t* g, const tables_t* tb, uint64_t h,
                                                   mct_phantom_counters_t* c) {
        mct_ph_history_f32(s, g, tb, h, c);
    }
};

/** The run's counters on the device: path_max as the bits of a non-negative
 * double, whose integer order is the numeric order, so atomicMax works. */
typedef struct {
    double escaped, scored, uncollided, path_sum;
    unsigned long long path_max_bits, adds;
    unsigned int max_stack, overflow;
} mct__phantom_device_counters_t;

/* The step functions and the tally's add are not inlined and read the
 * tables, the geometry and the tally's view through pointers to the kernel's
 * parameters: __grid_constant__ lets them point into the parameter space,
 * where a plain parameter would be copied to each thread's stack first.
 * Nothing to say on the host (the emulation). */
#if defined(__CUDACC__)
#define MCT__PH_GRID_CONST __grid_constant__
#else
#define MCT__PH_GRID_CONST
#endif

/* MCT_PHANTOM_MAX_REGISTERS (a build option, unset by default) caps the
 * kernel's registers, to weigh occupancy against the spills a cap brings on
 * a GPU (nvcc -DMCT_PHANTOM_MAX_REGISTERS=80). Without it, no cap: ptxas
 * fits the kernel without spilling. */
#if defined(__CUDACC__) && defined(MCT_PHANTOM_MAX_REGISTERS)
#define MCT__PH_MAX_REGISTERS __maxnreg__(MCT_PHANTOM_MAX_REGISTERS)
#else
#define MCT__PH_MAX_REGISTERS
#endif

/** Histories [first, first + n): transport precision R, tally type T. */
template <typename R, typename T>
static __global__ void MCT__PH_MAX_REGISTERS
mct_phantom_kernel(MCT__PH_GRID_CONST const typename mct__phantom_real<R>::tables_t tb,
                   MCT__PH_GRID_CONST const typename mct__phantom_real<R>::geom_t g, uint64_t first, int64_t n,
                   MCT__PH_GRID_CONST const mct_tally_view_t view, int discard, mct__phantom_device_counters_t* out) {
    mct_block_tally<T> tally(view);
    mct__phantom_sink<T> sink = {&tally, discard};
    mct_phantom_counters_t c = {0.0, 0.0, 0.0, 0.0, 0.0, 0ull, 0u, 0u};
    const int64_t stride = (int64_t)gridDim.x * blockDim.x;
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        mct__phantom_real<R>::history(&sink, &g, &tb, first + (uint64_t)i, &c);
    tally.flush();
    if (c.adds == 0 && c.escaped == 0.0) return; /* a thread without histories */
    atomicAdd(&out->escaped, c.escaped);
    atomicAdd(&out->scored, c.scored);
    atomicAdd(&out->uncollided, c.uncollided);
    atomicAdd(&out->path_sum, c.path_sum);
    atomicMax(&out->path_max_bits, (unsigned long long)__double_as_longlong(c.path_max));
    atomicAdd(&out->adds, c.adds);
    atomicMax(&out->max_stack, c.max_stack);
    if (c.overflow) atomicOr(&out->overflow, 1u);
}

/** Dynamic shared memory of the kernel for this tally (the `shared` method's bins). */
template <typename T>
static inline size_t mct__phantom_smem(const mct_tally_view_t& view) {
    return mct_block_tally_smem_bytes<T>(view);
}

/** Launches the kernel for the view's type (no synchronization). */
template <typename R>
static inline void mct__phantom_launch(const typename mct__phantom_real<R>::tables_t& tb,
                                       const typename mct__phantom_real<R>::geom_t& g, uint64_t first, int64_t n,
                                       const mct_tally_view_t& view, int discard, mct__phantom_device_counters_t* out,
                                       int grid, int block, cudaStream_t stream) {
    if (view.dtype == MCT_DTYPE_F32)
        MCT_LAUNCH((mct_phantom_kernel<R, float>), grid, block, mct__phantom_smem<float>(view), stream, tb, g, first,
                   n, view, discard, out);
    else
        MCT_LAUNCH((mct_phantom_kernel<R, double>), grid, block, mct__phantom_smem<double>(view), stream, tb, g,
                   first, n, view, discard, out);
}

#endif /* MCT_SIM_PHANTOM_KERNELS_CUH */
