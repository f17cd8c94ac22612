/* SPDX-License-Identifier: BSD-3-Clause */
/** @file phantom_kernels.cuh  The phantom's transport kernel: persistent
 * threads (a grid that fills the GPU once, each thread looping over
 * histories, as in Liu 2018), every deposit added with the tally's method
 * through mct_block_tally (`shared`, `block_reduce`, `warp_reduce` and
 * `kahan` keep the block's sums, every other method is mct_add). Shared by
 * the device engine and the benchmark. Compiled by nvcc and, for the emulated
 * backend, as host C++.
 *
 * Kept small, in registers and in code, because the kernel is bound by
 * instruction fetches: the step functions, the one deposit site
 * (deposit_segment, where the tally's add is inlined) and the transcendental
 * functions (phantom_physics_body.inc) are compiled once and called; a
 * history's state lives in the thread's local memory, where the step functions
 * load what they use; the engines' methods have their own kernel instances
 * (sim_phantom_kernel_for), `atomic`'s add being one instruction. One step
 * per pass of the thread's loop, a new history started in the pass where one
 * ends, and one kind of step per pass (sim_phantom_pass_kind) keep a warp's
 * lanes stepping together. The parameters the called functions read are
 * copied per block into shared memory, the registers are capped so that more
 * blocks share an SM, and a deposit's tally path makes no local loads. Code
 * that runs fewer instructions but adds lines to the hot functions can be
 * slower here: keep the hot code small first. Each of these choices was
 * measured; bench/results/README.md lists the runs. */
#ifndef MCT_SIM_PHANTOM_KERNELS_CUH
#define MCT_SIM_PHANTOM_KERNELS_CUH

#include <type_traits>

#include "mctally/device/mct_launch.cuh"
#include "mctally/device/mct_tally_device.cuh"
#include "mctally/device/thread/thread_run.cuh"
#include "sim_deposit.h"

/** Where the threads' runs start in the dynamic shared memory: after the
 * tally's (the `shared` method's bins, block_reduce's warp sums). */
template <typename T>
static MCT_HD inline size_t sim_phantom_run_offset(const mct_tally_view_t& view) {
    return (mct_block_tally_smem_bytes<T>(view) + 15) & ~(size_t)15;
}

/** The block's copy of the tally's view, at an
 * address the compiler knows to be shared: an add that reads the view here
 * emits shared loads, where one through the tally's reference (held in the
 * sink, in local memory) loads the reference and then the view through it
 * with generic loads, one after the other. */
static __device__ __forceinline__ mct_tally_view_t& sim_phantom_shared_view(void) {
    __shared__ mct_tally_view_t view;
    return view;
}

/** A thread's run of deposits into one voxel: a voxel is never negative, so
 * the run needs no open flag (mct_thread_run's nonnegative form), and its
 * index is below 2^31, so it is an int (one register to compare and move).
 * The sink places the slots and sim_phantom_run_end sizes them by this one
 * type. */
template <typename T>
using sim_phantom_run_t = mct_thread_run<T, true, int>;

/* MCT_BENCHMARK_HOOKS (the build option of that name, on by default) keeps
 * the discarding launch the benchmark measures the tally's overhead against;
 * without it the kernel has no discard path and the engine refuses `discard`. */
#ifndef MCT_BENCHMARK_HOOKS
#define MCT_BENCHMARK_HOOKS 1
#endif

/** Where a deposit goes: the block's tally (method M, or the view's at run
 * time), or nowhere in the benchmark's discarding launch (the values still
 * reach the counters, so the transport cannot be optimized away); the branch
 * is uniform over the grid. Where the method allows it (sim_phantom_runs), a
 * thread's consecutive deposits into one voxel are summed first and reach the
 * tally as one add (mct_thread_run). The add is inlined at the transport's one
 * deposit site (deposit_segment), which is compiled once and called, and
 * reaches the sink through a pointer: the sink, and the tally it holds,
 * therefore live in the thread's local memory, where a register-sum add is
 * best one indexed sum (add_in_memory). The run is in shared memory, one slot
 * per thread, where its load and store at every deposit cannot miss; its
 * address is formed from the shared array and the thread's rank, not kept as a
 * pointer, so that the compiler sees shared memory and emits shared loads and
 * stores, not generic ones. The block's mode (runs, adds or discard) is in
 * shared memory too, one broadcast load, so a deposit loads nothing from local
 * memory. The dynamic shared memory holds the tally's storage first, then the
 * runs (sim_phantom_run_offset). */
template <typename T, mct_method_t M, mct_block_mode_t MODE, mct_loss_hook_t H>
struct sim_phantom_sink {
    typedef sim_phantom_run_t<T> run_t;
    static constexpr int ADDS = -1;    /* mode: no runs, every deposit is an add */
    static constexpr int DISCARD = -2; /* mode: the benchmark's discarding launch */
    mct_block_tally<T, M, MODE, H> tally;

    /** The block's mode, in shared memory: where the runs start in the
     * dynamic shared memory (bytes), or ADDS, or DISCARD. */
    static __device__ __forceinline__ int& mode(void) {
        __shared__ int m;
        return m;
    }
    /** Every thread of the block, converged (the tally's constructor). */
    __device__ __forceinline__ sim_phantom_sink(const mct_tally_view_t& view, int runs, int discard)
        : tally(view, smem()) {
        if (mct_thread_rank() == 0)
            mode() = MCT_BENCHMARK_HOOKS && discard ? DISCARD : runs ? (int)sim_phantom_run_offset<T>(view) : ADDS;
        __syncthreads();
        if (mode() >= 0) *run(mode()) = run_t();
    }
    /** The kernel's dynamic shared memory: the tally's storage, then the runs. */
    static __device__ __forceinline__ unsigned char* smem(void) {
        MCT_EXTERN_SHARED(unsigned char, smem_bytes);
        return smem_bytes;
    }
    /** This thread's run, the runs starting `base` bytes in. */
    static __device__ __forceinline__ run_t* run(int base) {
        return reinterpret_cast<run_t*>(smem() + base) + mct_thread_rank();
    }
    template <typename R>
    __device__ __forceinline__ void add(int voxel, R e) {
        const int at = mode();
        T v = (T)e;
        if (at >= 0) { /* first: a deposit that continues its run tests the mode once */
            if (!run(at)->exchange(voxel, v)) return;
        } else if (MCT_BENCHMARK_HOOKS && at == DISCARD) {
            return;
        }
        /* One site: the add's code once. A method fixed at compile time that
         * adds per lane reads the view in shared memory itself (the one
         * thing the tally would do). */
        if constexpr (MODE == MCT_BLOCK_MODE_PER_LANE && M != MCT_METHOD_FROM_VIEW)
            mct_add<T, M, H>(sim_phantom_shared_view(), voxel, v);
        else
            tally.add_in_memory(voxel, v);
    }
    /** The last run into the tally, then the tally's flush; every thread of
     * the block, converged, once. */
    __device__ __forceinline__ void flush(void) {
        if (mode() >= 0) run(mode())->flush([this](int b, T s) { tally.add_in_memory(b, s); });
        tally.flush();
    }
};

/** Voxels the buffered sink's block cache holds: 12 KiB of shared memory a
 * block, which leaves the 6 blocks of 128 threads an SM holds (register-bound,
 * SIM_PH_REGISTER_CAP) room to spare, and holds every voxel of a 10^3 grid (a
 * block-private copy, no claims). */
#define SIM_PH_HOT_BINS 1024

/** The buffered sink (deposit = buffered, sim_deposit.h): every deposit into
 * a mct_deposit_buffer of method M (block_deposit_buffer.cuh), whose register
 * run, block cache of hot voxels and sort_reduce slots replace the runs and
 * the block tally of sim_phantom_sink; its storage is the whole dynamic shared
 * memory. The discarding launch of the benchmark keeps the same instance and
 * storage, so that it measures this kernel's own transport. */
template <typename T, mct_method_t M>
struct sim_phantom_buffered_sink {
    mct_deposit_buffer<T, M, SIM_PH_HOT_BINS> buf;
    static __device__ __forceinline__ int& discard(void) {
        __shared__ int d;
        return d;
    }
    /** Every thread of the block, converged (the buffer's constructor). */
    __device__ __forceinline__ sim_phantom_buffered_sink(const mct_tally_view_t& view, int runs, int discarding)
        : buf(view) {
        (void)runs;
        if (mct_thread_rank() == 0) discard() = MCT_BENCHMARK_HOOKS && discarding;
        __syncthreads();
    }
    template <typename R>
    __device__ __forceinline__ void add(int voxel, R e) {
        if (MCT_BENCHMARK_HOOKS && discard()) return;
        buf.add(voxel, (T)e);
    }
    /** Every thread of the block, converged, once. */
    __device__ __forceinline__ void flush(void) { buf.flush(); }
};

/** A sink that also says whether its kernel has the voxel path (phantom_geometry.h). */
template <typename Base, bool HET>
struct sim_phantom_sink_in : Base {
    using Base::Base;
    static constexpr bool het = HET;
};

#define MCT_PH_FN template <typename MCT_PH_SinkT> static __device__ __forceinline__
#define MCT_PH_FN_COLD template <typename MCT_PH_SinkT> static __device__ __noinline__
#define MCT_PH_SINK_T MCT_PH_SinkT
#define MCT_PH_SINK_HET MCT_PH_SinkT::het
#define MCT_PH_SCORE(sink, voxel, e) (sink)->add((voxel), (e))
#include "phantom_transport.h"

/** The transport functions and types of one precision. */
template <typename R>
struct sim_phantom_real;

template <>
struct sim_phantom_real<double> {
    typedef mct_ph_tables_t_f64 tables_t;
    typedef mct_ph_geom_t_f64 geom_t;
    typedef mct_ph_track_t_f64 track_t;
    template <typename S>
    static __device__ __forceinline__ void begin(S* s, track_t* t, const geom_t* g, uint64_t h) {
        mct_ph_track_begin_f64(s, t, g, h);
    }
    static __device__ __forceinline__ int next(const track_t* t) { return mct_ph_track_next_f64(t); }
    template <typename S>
    static __device__ __forceinline__ int step(S* s, const geom_t* g, const tables_t* tb, track_t* t,
                                               mct_phantom_counters_t* c) {
        return mct_ph_track_step_f64(s, g, tb, t, c);
    }
};

template <>
struct sim_phantom_real<float> {
    typedef mct_ph_tables_t_f32 tables_t;
    typedef mct_ph_geom_t_f32 geom_t;
    typedef mct_ph_track_t_f32 track_t;
    template <typename S>
    static __device__ __forceinline__ void begin(S* s, track_t* t, const geom_t* g, uint64_t h) {
        mct_ph_track_begin_f32(s, t, g, h);
    }
    static __device__ __forceinline__ int next(const track_t* t) { return mct_ph_track_next_f32(t); }
    template <typename S>
    static __device__ __forceinline__ int step(S* s, const geom_t* g, const tables_t* tb, track_t* t,
                                               mct_phantom_counters_t* c) {
        return mct_ph_track_step_f32(s, g, tb, t, c);
    }
};

/** The run's counters on the device: path_max as the bits of a non-negative
 * double, whose integer order is the numeric order, so atomicMax works. */
typedef struct {
    double escaped, scored, uncollided, path_sum;
    unsigned long long path_max_bits, adds;
    unsigned int max_stack, overflow;
} sim_phantom_device_counters_t;

/* The step functions and the tally's add are not inlined and read the
 * tables, the geometry and the tally's view through pointers to the kernel's
 * parameters: __grid_constant__ lets them point into the parameter space,
 * where a plain parameter would be copied to each thread's stack first.
 * Nothing to say on the host (the emulation). */
#if defined(__CUDACC__)
#define SIM_PH_GRID_CONST __grid_constant__
#else
#define SIM_PH_GRID_CONST
#endif

/* The kernel's registers are capped at 80, so that 6 blocks of 128 threads
 * share an SM where the FP64 atomic instance's own register count allows 5.
 * The cap costs that instance a few bytes of spill and is a net gain; the
 * methods that loop on a compare-and-swap in global memory (wag, kahan at many
 * bins) pay more for it, and one instance without the cap slowed the others
 * (measured, bench/results/README.md). */
#define SIM_PH_REGISTER_CAP 80
#if defined(__CUDACC__)
#define SIM_PH_MAX_REGISTERS __maxnreg__(SIM_PH_REGISTER_CAP)
#else
#define SIM_PH_MAX_REGISTERS
#endif

/* A warp turns to photon steps or hard events once 1/SIM_PH_QUORUM of its
 * lanes wait for them (see sim_phantom_pass_kind). */
#define SIM_PH_QUORUM 4

/** The kind of step (MCT_PH_NEXT_*) the busy lanes of a warp take in this
 * pass (busy_lanes: the ballot of the lanes with a history), from the kind
 * each lane's history needs next (`next`; -1 for an idle lane). Lanes of
 * different kinds would run the electron step, the photon step and the hard
 * event one after the other, and at 20 MeV one lane or another of a warp's 32
 * needs each of them in most passes. So a pass runs electron steps while few
 * lanes wait for anything else, and a waiting kind once a quarter of the busy
 * lanes wait for it (the larger such kind first), or when no lane has an
 * electron step to take: idle lanes traded against extra passes of the two
 * long functions, the quorum chosen by measurement. Only when a step runs
 * changes, never what it does: a history's random numbers and result are
 * those of the CPU engine. Every lane of `warp` calls it in every pass and
 * computes the same answer from the same ballots, which also bring the warp's
 * lanes back together: a warp that diverged inside a step (the voxel path's
 * walks do) would otherwise run its later passes in fragments, one step
 * function per fragment. */
static __device__ __forceinline__ int sim_phantom_pass_kind(unsigned warp, unsigned busy_lanes, int next) {
    const int n = __popc(busy_lanes);
    const int photons = __popc(__ballot_sync(warp, next == MCT_PH_NEXT_PHOTON));
    const int events = __popc(__ballot_sync(warp, next == MCT_PH_NEXT_EVENT));
    const int quorum = (n + SIM_PH_QUORUM - 1) / SIM_PH_QUORUM;
    if (events >= quorum && events >= photons) return MCT_PH_NEXT_EVENT;
    if (photons >= quorum) return MCT_PH_NEXT_PHOTON;
    return MCT_PH_NEXT_ELECTRON; /* some lane has one: without, a kind would hold half the lanes */
}

/** The kernel's parameters that the called functions read by pointer. */
template <typename R>
struct sim_phantom_params {
    typename sim_phantom_real<R>::tables_t tb;
    typename sim_phantom_real<R>::geom_t g;
};

/** Histories [first, first + n): transport precision R, tally type T, tally
 * method M (MCT_METHOD_FROM_VIEW: the view's, chosen at each add) in block
 * tally mode MODE (MCT_BLOCK_MODE_ANY: the method's, found at run time), with
 * the rounding-loss hook H (MCT_LOSS_NONE: no code for it); BUF: every
 * deposit through a deposit buffer (sim_phantom_buffered_sink) instead. */
template <typename R, typename T, mct_method_t M, mct_block_mode_t MODE, mct_loss_hook_t H, bool BUF = false,
          bool HET = false>
static __global__ void SIM_PH_MAX_REGISTERS
mct_phantom_kernel(SIM_PH_GRID_CONST const typename sim_phantom_real<R>::tables_t tb,
                   SIM_PH_GRID_CONST const typename sim_phantom_real<R>::geom_t g, uint64_t first, int64_t n,
                   SIM_PH_GRID_CONST const mct_tally_view_t view, int discard, int runs,
                   sim_phantom_device_counters_t* out) {
    /* The geometry, the tables' header and the tally's view, which the called
     * step functions and the add read through pointers, copied once per block
     * into shared memory: shared loads (one broadcast per warp) instead of
     * generic loads from the parameter space. */
    __shared__ sim_phantom_params<R> params;
    mct_tally_view_t& pview = sim_phantom_shared_view();
    if (mct_thread_rank() == 0) {
        params = {tb, g};
        pview = view;
    }
    if constexpr (HET) { /* every material's table header beside them, read at every step */
        __shared__ typename sim_phantom_real<R>::tables_t mtb[MCT_PHANTOM_MAX_MATERIALS];
        for (int m = (int)mct_thread_rank(); m < g.materials; m += (int)(blockDim.x * blockDim.y * blockDim.z))
            mtb[m] = g.mtb[m];
        if (mct_thread_rank() == 0) params.g.mtb = mtb;
    }
    __syncthreads();
    const auto* const ptb = &params.tb;
    const auto* const pg = &params.g;
    sim_phantom_sink_in<
        typename std::conditional<BUF, sim_phantom_buffered_sink<T, M>, sim_phantom_sink<T, M, MODE, H>>::type, HET>
        sink(pview, runs, discard);
    mct_phantom_counters_t c = {0.0, 0.0, 0.0, 0.0, 0.0, 0ull, 0u, 0u};
    /* At most one step per pass; a thread whose history ends starts its next
     * one in the same pass, so no lane idles until the warp's longest history
     * ends. A lane whose next step is not of the pass's kind waits. Every lane
     * of the warp (converged here, after the barrier) stays in the loop until
     * none has a history left, so that the pass's ballots can name them all. */
    const unsigned warp = __activemask();
    typename sim_phantom_real<R>::track_t track;
    const int64_t stride = (int64_t)gridDim.x * blockDim.x;
    int64_t next = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    for (int busy = 0;;) {
        if (!busy && next < n) {
            sim_phantom_real<R>::begin(&sink, &track, pg, first + (uint64_t)next);
            next += stride;
            busy = 1; /* it may wait before its first step */
        }
        const unsigned busy_lanes = __ballot_sync(warp, busy);
        if (!busy_lanes) break;
        const int next_kind = busy ? sim_phantom_real<R>::next(&track) : -1;
        if (next_kind == sim_phantom_pass_kind(warp, busy_lanes, next_kind))
            busy = sim_phantom_real<R>::step(&sink, pg, ptb, &track, &c);
    }
    sink.flush();
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

/** Whether a launch of `block` threads sums runs: where the method allows it,
 * and the runs fit beside the tally's shared memory (without them every
 * deposit is an add, which is slower but the same). The discarding launch of
 * the benchmark reserves the same memory, so both launches have one shape. */
template <typename T>
static inline size_t sim_phantom_run_end(const mct_tally_view_t& view, int block) {
    return sim_phantom_run_offset<T>(view) + (size_t)block * sizeof(sim_phantom_run_t<T>);
}
template <typename T>
static inline int sim_phantom_runs(const mct_tally_view_t& view, int block) {
    return mct_method_accepts_runs(view.method, view.dtype) &&
           sim_phantom_run_end<T>(view, block) <= MCT_BLOCK_TALLY_SMEM_LIMIT;
}

/** Whether the launch for this view buffers its deposits (sim_deposit.h):
 * the view's deposit choice (view-independent, passed in), the method, and
 * whether the block tally already keeps the method's sums in the block. */
template <typename T>
static inline int sim_phantom_buffers(mct_sim_deposit_t d, const mct_tally_view_t& view) {
    return sim_deposit_buffers(d, view.method, view.dtype,
                               mct_block_mode_of_view(view.method, view.nbins, sizeof(T)) != MCT_BLOCK_MODE_PER_LANE);
}

/** Dynamic shared memory of the kernel for this tally and block size. */
template <typename T>
static inline size_t sim_phantom_smem(const mct_tally_view_t& view, int block, int buffered = 0) {
    if (buffered) return mct_deposit_buffer_smem_bytes<T, SIM_PH_HOT_BINS>(view, block);
    return sim_phantom_runs<T>(view, block) ? sim_phantom_run_end<T>(view, block) : mct_block_tally_smem_bytes<T>(view);
}

/** The kernel for the view. The methods of the paper's engines and the one
 * built for few bins have their own instances: `atomic` (FP64 and FP32
 * engines; its add is one atomic instruction), `kahan` (KAS engine; one
 * instance per block mode, so each carries only its mode's code) and
 * `block_reduce` on few bins (per-thread register sums, test 4). Every other
 * method shares the instance that picks the method at each add, whose larger
 * code makes the transport itself slower. The own instances come twice: with
 * the rounding-loss hook for views that have a shadow, and without its code
 * (test and recording path) for views that do not, since that code alone made
 * the whole transport measurably slower. */
template <typename R>
using sim_phantom_kernel_t = void (*)(typename sim_phantom_real<R>::tables_t, typename sim_phantom_real<R>::geom_t,
                                       uint64_t, int64_t, mct_tally_view_t, int, int, sim_phantom_device_counters_t*);

template <typename R, typename T, mct_loss_hook_t H>
static inline sim_phantom_kernel_t<R> sim_phantom_kernel_for(const mct_tally_view_t& view) {
    if (view.method == MCT_METHOD_ATOMIC)
        return mct_phantom_kernel<R, T, MCT_METHOD_ATOMIC, MCT_BLOCK_MODE_PER_LANE, H>;
    if (view.method == MCT_METHOD_BLOCK_REDUCE &&
        mct_block_mode_of(view.method, view.nbins, sizeof(T)) == MCT_BLOCK_MODE_REGISTERS)
        return mct_phantom_kernel<R, T, MCT_METHOD_BLOCK_REDUCE, MCT_BLOCK_MODE_REGISTERS, H>;
    if constexpr (std::is_same<T, float>::value)
        if (view.method == MCT_METHOD_KAHAN) /* per block mode: the pairs in global or in shared memory */
            return mct_block_mode_of(view.method, view.nbins, sizeof(T)) == MCT_BLOCK_MODE_KAHAN
                       ? mct_phantom_kernel<R, T, MCT_METHOD_KAHAN, MCT_BLOCK_MODE_KAHAN, H>
                       : mct_phantom_kernel<R, T, MCT_METHOD_KAHAN, MCT_BLOCK_MODE_PER_LANE, H>;
    return mct_phantom_kernel<R, T, MCT_METHOD_FROM_VIEW, MCT_BLOCK_MODE_ANY, MCT_LOSS_FROM_VIEW>;
}
/** The buffered kernel for the view: an instance of its own for each method
 * that `auto` buffers (`cas`, `wag`, `sort_reduce`),
 * since the instance that picks the method at each add carries every
 * method's code and the transport is bound by instruction fetches; that one
 * for the rest. All with the rounding-loss hook from the view. Only the
 * methods that buffer launch them, so the direct instances keep their
 * registers and code. */
template <typename R, typename T>
static inline sim_phantom_kernel_t<R> sim_phantom_buffered_kernel_for(const mct_tally_view_t& view) {
    if (view.method == MCT_METHOD_CAS)
        return mct_phantom_kernel<R, T, MCT_METHOD_CAS, MCT_BLOCK_MODE_ANY, MCT_LOSS_FROM_VIEW, true>;
    if (view.method == MCT_METHOD_WAG)
        return mct_phantom_kernel<R, T, MCT_METHOD_WAG, MCT_BLOCK_MODE_ANY, MCT_LOSS_FROM_VIEW, true>;
    if (view.method == MCT_METHOD_SORT_REDUCE)
        return mct_phantom_kernel<R, T, MCT_METHOD_SORT_REDUCE, MCT_BLOCK_MODE_ANY, MCT_LOSS_FROM_VIEW, true>;
    return mct_phantom_kernel<R, T, MCT_METHOD_FROM_VIEW, MCT_BLOCK_MODE_ANY, MCT_LOSS_FROM_VIEW, true>;
}
/** The kernels with the voxel path (het): `atomic` (the FP64 and FP32
 * engines) and the instances that pick the method at each add, direct and
 * buffered; every method runs, the paper's with their own instances only on
 * the uniform medium. */
template <typename R, typename T>
static inline sim_phantom_kernel_t<R> sim_phantom_het_kernel_for(const mct_tally_view_t& view, int buffered) {
    if (buffered)
        return mct_phantom_kernel<R, T, MCT_METHOD_FROM_VIEW, MCT_BLOCK_MODE_ANY, MCT_LOSS_FROM_VIEW, true, true>;
    if (view.method == MCT_METHOD_ATOMIC)
        return mct_phantom_kernel<R, T, MCT_METHOD_ATOMIC, MCT_BLOCK_MODE_PER_LANE, MCT_LOSS_FROM_VIEW, false, true>;
    return mct_phantom_kernel<R, T, MCT_METHOD_FROM_VIEW, MCT_BLOCK_MODE_ANY, MCT_LOSS_FROM_VIEW, false, true>;
}
template <typename R, typename T>
static inline sim_phantom_kernel_t<R> sim_phantom_kernel_for(const mct_tally_view_t& view, int buffered = 0,
                                                             int het = 0) {
#if MCT_PH_BITWISE
    /* The engine of `fixed` (phantom_device_bitwise.cu): its own instances
     * only, which is all it runs; per lane, as the run-time form adds fixed
     * (mct_block_mode_of_view). */
    (void)view;
    constexpr mct_method_t F = MCT_METHOD_FIXED;
    constexpr mct_block_mode_t A = MCT_BLOCK_MODE_PER_LANE;
    if (het)
        return buffered ? mct_phantom_kernel<R, T, F, A, MCT_LOSS_FROM_VIEW, true, true>
                        : mct_phantom_kernel<R, T, F, A, MCT_LOSS_FROM_VIEW, false, true>;
    return buffered ? mct_phantom_kernel<R, T, F, A, MCT_LOSS_FROM_VIEW, true, false>
                    : mct_phantom_kernel<R, T, F, A, MCT_LOSS_FROM_VIEW, false, false>;
#else
    if (het) return sim_phantom_het_kernel_for<R, T>(view, buffered);
    if (buffered) return sim_phantom_buffered_kernel_for<R, T>(view);
    return mct_loss_hook_for(view) == MCT_LOSS_NONE ? sim_phantom_kernel_for<R, T, MCT_LOSS_NONE>(view)
                                                    : sim_phantom_kernel_for<R, T, MCT_LOSS_FROM_VIEW>(view);
#endif
}

/** Launches the kernel for the view's type and method (no synchronization). */
template <typename R>
static inline void sim_phantom_launch(const typename sim_phantom_real<R>::tables_t& tb,
                                       const typename sim_phantom_real<R>::geom_t& g, uint64_t first, int64_t n,
                                       const mct_tally_view_t& view, int discard, sim_phantom_device_counters_t* out,
                                       int grid, int block, cudaStream_t stream, mct_sim_deposit_t deposit) {
    if (view.dtype == MCT_DTYPE_F32) {
        const int buf = sim_phantom_buffers<float>(deposit, view);
        const auto kernel = sim_phantom_kernel_for<R, float>(view, buf, g.het);
        MCT_LAUNCH(((*kernel)), grid, block, sim_phantom_smem<float>(view, block, buf), stream, tb, g, first, n, view,
                   discard, sim_phantom_runs<float>(view, block), out);
    } else {
        const int buf = sim_phantom_buffers<double>(deposit, view);
        const auto kernel = sim_phantom_kernel_for<R, double>(view, buf, g.het);
        MCT_LAUNCH(((*kernel)), grid, block, sim_phantom_smem<double>(view, block, buf), stream, tb, g, first, n, view,
                   discard, sim_phantom_runs<double>(view, block), out);
    }
}

#endif /* MCT_SIM_PHANTOM_KERNELS_CUH */
