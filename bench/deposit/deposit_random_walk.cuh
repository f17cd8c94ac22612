/* SPDX-License-Identifier: BSD-3-Clause */
/** @file deposit_random_walk.cuh  A user kernel that no problem of mctally
 * names, for the buffered-deposit test and benchmark: walkers on a line of
 * bins take steps of -3..+3 bins, deposit a random weight where they stand,
 * and leave when absorbed (1/16 a step) or off the line, so that lanes exit at
 * their own times and deposit into their own bins. Each walker's path is a
 * function of (seed, walker) alone (Philox), host and device, so the host
 * replays every deposit exactly. Three forms: mct_add per deposit (direct),
 * mct_deposit_buffer (buffered), no add at all (discard: the walk alone). */
#ifndef MCT_BENCH_DEPOSIT_RANDOM_WALK_CUH
#define MCT_BENCH_DEPOSIT_RANDOM_WALK_CUH

#include <stdint.h>

#include "mctally/device/mct_launch.cuh"
#include "mctally/device/mct_tally_device.cuh"

enum { RW_DIRECT = 0, RW_BUFFERED = 1, RW_DISCARD = 2 };

/** One walker: where it stands, its step count, its key. */
typedef struct {
    int64_t bin;
    uint32_t step;
    uint64_t walker;
    mct_key2x32_t key;
} rw_walker_t;

MCT_HD inline rw_walker_t rw_start(int64_t nbins, uint64_t seed, uint64_t w) {
    rw_walker_t p;
    p.key = mct_philox_key_from_seed(seed);
    p.walker = w, p.step = 0;
    const mct_ctr4x32_t r = mct_philox4x32_10(mct_philox_ctr_history(w, 0, 0), p.key);
    p.bin = (int64_t)(r.v[0] % (uint32_t)nbins);
    return p;
}

/** One step: the deposit (bin, weight in (0, 1], a multiple of 2^-16) and
 * whether the walker goes on. */
MCT_HD inline bool rw_step(int64_t nbins, rw_walker_t* p, int64_t* bin, double* weight) {
    const mct_ctr4x32_t r = mct_philox4x32_10(mct_philox_ctr_history(p->walker, ++p->step, 0), p->key);
    *bin = p->bin;
    *weight = (double)((r.v[0] & 0xffffu) + 1u) * 0x1p-16;
    p->bin += (int64_t)(r.v[1] % 7u) - 3;
    return (r.v[2] & 15u) != 0u && p->bin >= 0 && p->bin < nbins;
}

/** Where rw_kernel's deposits go in the direct and discarding forms. */
template <typename T, mct_method_t M, int F>
struct rw_direct_sink {
    const mct_tally_view_t& view;
    __device__ __forceinline__ void add(int64_t bin, T v) {
        if constexpr (F == RW_DIRECT && M == MCT_METHOD_FROM_VIEW)
            mct_add<T>(view, bin, v);
        else if constexpr (F == RW_DIRECT)
            mct_add<T, M>(view, bin, v);
    }
    __device__ __forceinline__ void flush(void) {}
};

/** This thread's walkers (grid-stride) into sink; returns its steps. SERIAL:
 * the lanes of a warp walk one after the other (lane 0's walker, then lane
 * 1's, ...), so that no two lanes of a warp ever add together. */
template <typename T, bool SERIAL, typename Sink>
static __device__ __forceinline__ unsigned long long rw_walk(Sink& sink, int64_t nbins, uint64_t walkers,
                                                             uint64_t seed) {
    const uint64_t stride = (uint64_t)gridDim.x * blockDim.x;
    unsigned long long n = 0;
    for (uint64_t w = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x; w < walkers; w += stride) {
        for (int turn = 0; turn < (SERIAL ? 32 : 1); ++turn) {
            if (SERIAL && turn != (int)(threadIdx.x & 31)) continue;
            rw_walker_t p = rw_start(nbins, seed, w);
            for (bool on = true; on;) {
                int64_t bin;
                double weight;
                on = rw_step(nbins, &p, &bin, &weight);
                ++n;
                sink.add(bin, (T)weight);
            }
        }
    }
    return n;
}

/* Every form holds 64 registers at most, so that the benchmark's launch of 8
 * blocks of 128 threads per SM is one wave whatever the form: a form that
 * took a few registers more would run its last blocks in a second wave and
 * time that tail, not the method. */
#if defined(__CUDACC__)
#define RW_MAX_REGISTERS __maxnreg__(64)
#else
#define RW_MAX_REGISTERS
#endif

/** Walkers [0, walkers) with method M (MCT_METHOD_FROM_VIEW: the view's) in
 * form F; `steps` receives the number of steps (every form). Lanes leave the
 * walk at their own times and wait at the buffer's flush(). */
template <typename T, mct_method_t M, int F, bool SERIAL = false>
static __global__ void RW_MAX_REGISTERS rw_kernel(mct_tally_view_t view, uint64_t walkers, uint64_t seed,
                                                  unsigned long long* steps) {
    unsigned long long n;
    if constexpr (F == RW_BUFFERED) {
        mct_deposit_buffer<T, M> buf(view); /* every thread, converged */
        n = rw_walk<T, SERIAL>(buf, view.nbins, walkers, seed);
        buf.flush(); /* every thread, converged, once */
    } else {
        rw_direct_sink<T, M, F> sink{view};
        n = rw_walk<T, SERIAL>(sink, view.nbins, walkers, seed);
    }
    atomicAdd(steps, n);
}

/** Shared memory of rw_kernel's launch. */
template <typename T>
static inline size_t rw_smem(const mct_tally_view_t& view, int form, int block) {
    return form == RW_BUFFERED ? mct_deposit_buffer_smem_bytes<T>(view, block) : 0;
}

#endif /* MCT_BENCH_DEPOSIT_RANDOM_WALK_CUH */
