/* SPDX-License-Identifier: BSD-3-Clause */
/** @file kernel_add.cuh  Thin kernels behind mct_tally_add: whole arrays of
 * (key, f64 value) added into a tally with its method, and the kernels of the
 * sort_reduce post-pass. */
#ifndef MCT_KERNEL_ADD_CUH
#define MCT_KERNEL_ADD_CUH

#include <math.h>
#include <stdint.h>

#include "mctally/device/block/block_tally.cuh"
#include "mctally/mct_arith.h"
#include "mctally/device/warp/warp_segmented_reduce.cuh"

#define MCT_ADD_THREADS 256

/** An f64 input value in the tally's type: floats round to nearest; integers
 * follow mct_arith.h (nearest, ties to even), as the CPU backend does, and a
 * value that does not fit is dropped (0 is returned: it adds nothing) with its
 * flag (OVERFLOW, NONFINITE) raised in `flags`. */
__device__ __forceinline__ unsigned mct__int_from_f64(double v, int32_t* out) { return mct_arith_i32_from_f64(v, out); }
__device__ __forceinline__ unsigned mct__int_from_f64(double v, uint64_t* out) { return mct_arith_u64_from_f64(v, out); }
template <typename T>
__device__ __forceinline__ T mct__from_f64(double v, unsigned int* flags) {
    if constexpr (std::is_floating_point<T>::value) {
        (void)flags;
        return (T)v;
    } else {
        T x = T(0);
        const unsigned bad = mct__int_from_f64(v, &x);
        if (bad) mct_tally_raise(flags, bad);
        return x;
    }
}

/** A key as the adds read it: 32-bit keys as they are, 64-bit ones through
 * mct_arith_key_from_i64 (out of [0, 2^32): a key past every bin). */
__device__ __forceinline__ uint32_t mct__key_u32(uint32_t key) { return key; }
__device__ __forceinline__ uint32_t mct__key_u32(int64_t key) { return mct_arith_key_from_i64(key); }

/** The largest |value| an array add reads, kept for a fixed tally that asked
 * for it (mct_tally_view_t.abs_max, mct_tally_enable_abs_max): each thread
 * keeps the bits of its largest |v| (the bits of a non-negative double order
 * as the numbers do, NaN's above +Inf's), the warp takes their maximum and one
 * lane merges it with one atomicMax. ON false: no code. */
template <bool ON>
struct mct__abs_max {
    __device__ __forceinline__ void see(double) {}
    __device__ __forceinline__ void merge(const mct_tally_view_t&) {}
};
template <>
struct mct__abs_max<true> {
    unsigned long long bits = 0;
    __device__ __forceinline__ void see(double v) {
        const unsigned long long b = (unsigned long long)__double_as_longlong(v) & 0x7fffffffffffffffull;
        bits = b > bits ? b : bits;
    }
    /** Every lane of the warp; view.abs_max is not NULL. */
    __device__ __forceinline__ void merge(const mct_tally_view_t& view) {
        MCT_UNROLL
        for (int d = 16; d > 0; d >>= 1) {
            const unsigned long long o = __shfl_xor_sync(MCT_FULL_WARP_MASK, bits, d);
            bits = o > bits ? o : bits;
        }
        if ((threadIdx.x & 31u) == 0 && bits) atomicMax(view.abs_max, bits);
    }
};

/** Items a thread loads before it adds them: independent loads in flight. */
#define MCT_ADD_ITEMS_PER_LOAD 4

/** bin keys[i] += values[i]: each thread loads MCT_ADD_ITEMS_PER_LOAD keys and
 * values before adding any, so the loads overlap instead of waiting behind the
 * adds. A warp takes U * 32 consecutive items at a time (item u of lane l is
 * u * 32 + l of the warp's chunk): each load stays coalesced, and the warp's
 * U adds see neighbouring keys, which a warp-aggregating method sums (a run of
 * sorted keys stays in one warp's cached bin instead of U bins far apart). */
template <typename T, typename Tally, typename K, typename AbsMax>
__device__ __forceinline__ void mct__add_singles(Tally& tally, const mct_tally_view_t& view,
                                                 const K* __restrict__ keys,
                                                 const double* __restrict__ values, int64_t n, AbsMax& amax) {
    constexpr int U = MCT_ADD_ITEMS_PER_LOAD;
    const int lane = (int)(threadIdx.x & 31u);
    const int64_t warp = ((int64_t)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    const int64_t warps = ((int64_t)gridDim.x * blockDim.x) >> 5; /* blocks are whole warps */
    for (int64_t base = warp * (U * 32) + lane; base < n; base += warps * (U * 32)) {
        uint32_t k[U];
        double v[U];
        MCT_UNROLL
        for (int u = 0; u < U; ++u) {
            const int64_t i = base + u * 32;
            k[u] = i < n ? mct__key_u32(keys[i]) : 0u;
            v[u] = i < n ? values[i] : 0.0;
            amax.see(v[u]);
        }
        MCT_UNROLL
        for (int u = 0; u < U; ++u)
            if (base + u * 32 < n) {
                /* An integer value is converted (and flagged) only for a bin
                 * in range, as on the CPU backend; add() flags the others. */
                const bool convert = std::is_floating_point<T>::value || (int64_t)k[u] < view.nbins;
                tally.add((int64_t)k[u], convert ? mct__from_f64<T>(v[u], view.flags) : T(0));
            }
    }
}

/** Whether the grouped adds of method M in block-tally mode MODE go through run
 * sums (mct__add_key_sums): methods that add each value on its own, in no fixed
 * order. Not the modes that aggregate by themselves (a shared copy, register
 * sums, warp aggregation into the global bins: there the registers of the run
 * sums cost the kernel more occupancy than the sums save, as measured in
 * bench/results/README.md), not `shared`, nor
 * `fixed` (bitwise reproducible whatever the launch), `sort_reduce` (sums each
 * bin in sorted order) or the Kahan methods (an uncompensated f32 pre-sum
 * would lose what their pairs keep). */
MCT_HD constexpr bool mct__add_may_presum(mct_method_t m, mct_block_mode_t mode) {
    return mode != MCT_BLOCK_MODE_AGGREGATED && mode != MCT_BLOCK_MODE_AGGREGATED_GLOBAL && mode != MCT_BLOCK_MODE_REGISTERS &&
           m != MCT_METHOD_SHARED && m != MCT_METHOD_FIXED && m != MCT_METHOD_SORT_REDUCE &&
           m != MCT_METHOD_KAHAN && m != MCT_METHOD_KAHAN_NAIVE;
}

/** Runs of keys among a warp's 32 groups up to which they are added as run sums
 * (below); more go to the group walk. At 8, each key has 4 groups on average, so
 * the adds drop at least 4x; at 32 distinct keys the sums would only add the
 * reduction's cost to the walk's adds, spread over more bins per instruction. */
#ifndef MCT_ADD_PRESUM_MAX_KEYS
#define MCT_ADD_PRESUM_MAX_KEYS 8
#endif
/** Components a lane loads before it reduces and adds them: a cell's scores
 * (up to 12 of them, Westphal's 9 included) in one round trip to memory. */
#define MCT_ADD_COMPONENTS_PER_LOAD 12

/** The warp's 32 groups from g0 when their keys come in runs (sorted or
 * clustered keys) of few distinct values: lane l reads group g0 + l, each
 * component coalesced across the warp; each run's groups are summed per
 * component in the warp (mct_warp_run_reduce) and the run's first lane adds
 * the sums, one add per run and component instead of one per value. Returns
 * false, having added nothing, when some key's groups are not one run or the
 * runs are more than MCT_ADD_PRESUM_MAX_KEYS; the walk below then adds them.
 * A run whose groups reach past the bins is dropped and flagged, as in the
 * walk. Lanes past n take the last valid lane's key and zero values: they
 * extend its run without changing its sums, and lead no add. */
template <typename T, typename Tally, typename K>
__device__ __forceinline__ bool mct__add_key_sums(Tally& tally, const mct_tally_view_t& view,
                                                  const K* __restrict__ keys,
                                                  const double* __restrict__ values, int64_t n, int width,
                                                  int64_t stride, int64_t g0) {
    constexpr int U = MCT_ADD_COMPONENTS_PER_LOAD;
    const int lane = mct_lane();
    const int64_t i = g0 + lane;
    const bool valid = i < n;
    const int64_t last_valid = n - 1 - g0 < 31 ? n - 1 - g0 : 31;
    const uint32_t key =
        __shfl_sync(MCT_FULL_WARP_MASK, valid ? mct__key_u32(keys[i]) : 0u, valid ? lane : (int)last_valid);
    const unsigned peers = __match_any_sync(MCT_FULL_WARP_MASK, key);
    const bool leader = mct_warp_is_leader(peers);
    if (!__all_sync(MCT_FULL_WARP_MASK, mct_warp_peers_contiguous(peers)) ||
        __popc(__ballot_sync(MCT_FULL_WARP_MASK, leader)) > MCT_ADD_PRESUM_MAX_KEYS)
        return false;
    const int last = 31 - __clz((int)peers);
    const int64_t first = (int64_t)key * width;
    const bool fits = first + width <= view.nbins;
    if (leader && !fits) mct_tally_raise(view.flags, MCT_TALLY_FLAG_OUT_OF_RANGE);
    const bool adds = leader && fits; /* a leader is valid: lanes past n join a valid lane's run */
    for (int c0 = 0; c0 < width; c0 += U) {
        T v[U];
        MCT_UNROLL
        for (int u = 0; u < U; ++u)
            v[u] = valid && fits && c0 + u < width ? mct__from_f64<T>(values[(c0 + u) * stride + i], view.flags) : T(0);
        MCT_UNROLL
        for (int u = 0; u < U; ++u)
            if (c0 + u < width) v[u] = mct_warp_run_reduce(v[u], last, mct_checked_plus{view.flags});
        if (adds) {
            MCT_UNROLL
            for (int u = 0; u < U; ++u)
                if (c0 + u < width) tally.add(first + c0 + u, v[u]);
        }
    }
    return true;
}

/** bin keys[i] * width + c += values[c * stride + i], width > 1. A warp takes
 * 32 groups at a time. Where the method allows it and the groups' keys are few
 * (mct__add_key_sums), each key's sums are added; otherwise the warp walks
 * their 32 * width values group by group: in
 * round r lane l takes value f = 32 r + l, i.e. component f % width of group
 * f / width. Neighbouring lanes then add into neighbouring bins of one group
 * (a few memory sectors per atomic instruction instead of 32, and peers for
 * the aggregating methods), and the reads of a component stay in a few
 * sectors that the next rounds reuse. A lane loads the keys and values of
 * MCT_ADD_ITEMS_PER_LOAD rounds before it adds them, so the loads overlap. A
 * group reaching past the bins is dropped whole and flagged once (by the lane
 * holding its component 0). */
template <typename T, mct_method_t M, mct_block_mode_t MODE, typename Tally, typename K, typename AbsMax>
__device__ __forceinline__ void mct__add_groups(Tally& tally, const mct_tally_view_t& view,
                                                const K* __restrict__ keys, const double* __restrict__ values,
                                                int64_t n, int width, int64_t stride, AbsMax& amax) {
    constexpr int U = MCT_ADD_ITEMS_PER_LOAD;
    const int lane = (int)(threadIdx.x & 31u);
    const int64_t warp = ((int64_t)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    const int64_t warps = ((int64_t)gridDim.x * blockDim.x) >> 5; /* blocks are whole warps */
    const int step_groups = 32 / width, step_comps = 32 % width;
    /* The run sums read only the values they add: a method that keeps the maximum never takes them. */
    static_assert(!mct__add_may_presum(M, MODE) || std::is_same<AbsMax, mct__abs_max<false>>::value,
                  "run sums would skip values of the maximum");
    for (int64_t g0 = warp * 32; g0 < n; g0 += warps * 32) {
        if constexpr (mct__add_may_presum(M, MODE))
            if (mct__add_key_sums<T>(tally, view, keys, values, n, width, stride, g0)) continue;
        int p = lane / width, c = lane % width; /* round 0: value `lane` */
        for (int round = 0; round < width; round += U) {
            int64_t first[U]; /* the group's first bin; -1: no value in this round */
            int comp[U];
            double v[U];
            MCT_UNROLL
            for (int u = 0; u < U; ++u) {
                const int64_t i = g0 + p;
                first[u] = -1;
                comp[u] = c;
                if (round + u < width && i < n) {
                    first[u] = (int64_t)mct__key_u32(keys[i]) * width;
                    v[u] = values[c * stride + i];
                    amax.see(v[u]);
                }
                p += step_groups, c += step_comps; /* value f + 32 */
                if (c >= width) c -= width, ++p;
            }
            MCT_UNROLL
            for (int u = 0; u < U; ++u) {
                if (first[u] < 0) continue;
                if (first[u] + width > view.nbins) {
                    if (comp[u] == 0) mct_tally_raise(view.flags, MCT_TALLY_FLAG_OUT_OF_RANGE);
                } else {
                    tally.add(first[u] + comp[u], mct__from_f64<T>(v[u], view.flags));
                }
            }
        }
    }
}

/** Every group's values added (width 1: each value alone; a key past the
 * bins is flagged by add()), each value read seen by amax. */
template <typename T, mct_method_t M, mct_block_mode_t MODE, typename Tally, typename K, typename AbsMax>
__device__ __forceinline__ void mct__add_all(Tally& tally, const mct_tally_view_t& view, const K* __restrict__ keys,
                                             const double* __restrict__ values, int64_t n, int width, int64_t stride,
                                             AbsMax& amax) {
    if (width == 1)
        mct__add_singles<T>(tally, view, keys, values, n, amax);
    else
        mct__add_groups<T, M, MODE>(tally, view, keys, values, n, width, stride, amax);
}

/* Blocks per SM the add kernels are compiled for. The aggregation into a
 * shared copy: its adds wait on loads and shared-memory atomics, so more
 * resident warps hide more of that latency (the register cap costs a few
 * bytes of spills, in cold code). The aggregation into global bins has no cap:
 * it is faster without one. Both chosen by measurement (bench/results/
 * README.md). The kernels that find the mode at run time: 4 blocks (64 registers),
 * so that the run sums' component loads (mct__add_key_sums) do not take them
 * down to 2 blocks per SM. */
#ifndef MCT_ADD_AGGREGATED_MIN_BLOCKS
#define MCT_ADD_AGGREGATED_MIN_BLOCKS 5
#endif
#ifndef MCT_ADD_MIN_BLOCKS
#define MCT_ADD_MIN_BLOCKS 4
#endif
/* Threads an SM can hold, by the architecture being compiled (1024 on Turing,
 * 1536 on sm_86/87/89, 2048 elsewhere): the request stays within it. */
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ == 750
#define MCT__ADD_SM_THREADS 1024
#elif defined(__CUDA_ARCH__) && (__CUDA_ARCH__ == 860 || __CUDA_ARCH__ == 870 || __CUDA_ARCH__ == 890)
#define MCT__ADD_SM_THREADS 1536
#else
#define MCT__ADD_SM_THREADS 2048
#endif
MCT_HD constexpr int mct__add_blocks_within_sm(int blocks) {
    return blocks * MCT_ADD_THREADS > MCT__ADD_SM_THREADS ? MCT__ADD_SM_THREADS / MCT_ADD_THREADS : blocks;
}
MCT_HD constexpr int mct__add_min_blocks(mct_block_mode_t mode) {
    return mode == MCT_BLOCK_MODE_AGGREGATED ? mct__add_blocks_within_sm(MCT_ADD_AGGREGATED_MIN_BLOCKS)
           : mode == MCT_BLOCK_MODE_ANY ? mct__add_blocks_within_sm(MCT_ADD_MIN_BLOCKS)
                                         : 1;
}

/** Grid-stride adds of n groups of `width` values: bin keys[i] * width + c +=
 * values[c * stride + i] (width 1: bin keys[i] += values[i]), keys of type K
 * (uint32_t, or int64_t read through mct__key_u32), each value first
 * converted to the tally's dtype (so every method, fixed and sort_reduce
 * included, adds what the tally's type can hold), through
 * mct_block_tally<T, M, MODE> (shared, block_reduce, warp_reduce and kahan
 * keep the block's sums, every other method is mct_add; MODE, when fixed,
 * must be the one mct_block_mode_of gives for the view). Blocks of a
 * multiple of 32 threads. Dynamic shared memory:
 * mct_block_tally_smem_bytes<T, M>(nbins). */
template <typename T, mct_method_t M, mct_block_mode_t MODE, typename K>
static __global__ void __launch_bounds__(MCT_ADD_THREADS, mct__add_min_blocks(MODE))
    mct_kernel_add_arrays(mct_tally_view_t view, const K* __restrict__ keys,
                          const double* __restrict__ values, int64_t n, int width, int64_t stride) {
    mct_block_tally<T, M, MODE> tally(view);
    /* A fixed tally keeps the maximum only when asked (a branch uniform over
     * the grid, outside the loops): the loop that keeps it costs the fixed
     * adds a few per cent. */
    if (M == MCT_METHOD_FIXED && view.abs_max) {
        mct__abs_max<M == MCT_METHOD_FIXED> amax;
        mct__add_all<T, M, MODE>(tally, view, keys, values, n, width, stride, amax);
        amax.merge(view);
    } else {
        mct__abs_max<false> none;
        mct__add_all<T, M, MODE>(tally, view, keys, values, n, width, stride, none);
    }
    tally.flush();
}

#if !MCT_IS_EMULATED /* the sort_reduce pass needs CUB: CUDA build only */

/** sort_reduce, step 1: the appended pairs as separate key (bin) and value-bit
 * arrays, the form radix sorts take. */
static __global__ void mct_kernel_sort_unpack(const mct_sort_pair_t* pairs, int64_t n, uint32_t* bins,
                                              unsigned long long* value_bits) {
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x) {
        bins[i] = pairs[i].bin;
        value_bits[i] = (unsigned long long)__double_as_longlong(pairs[i].value);
    }
}

/** sort_reduce, last step: each run's total into its bin. Every bin appears in
 * one run at most, so a plain read-modify-write is race free. */
template <typename T>
static __global__ void mct_kernel_sort_scatter(T* bins, const uint32_t* run_bins, const double* run_sums,
                                               const int* num_runs, unsigned int* flags) {
    for (int64_t r = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; r < *num_runs; r += (int64_t)gridDim.x * blockDim.x)
        mct_owned_add(bins + run_bins[r], mct__from_f64<T>(run_sums[r], flags), flags);
}

#endif /* !MCT_IS_EMULATED */

#endif /* MCT_KERNEL_ADD_CUH */
