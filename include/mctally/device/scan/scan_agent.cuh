/* SPDX-License-Identifier: BSD-3-Clause */
/** @file scan_agent.cuh  One block's work in the device-wide scan (mct_scan_agent):
 * take a tile index, load the tile, scan it, obtain the tile's prefix from the tiles
 * before it (decoupled look-back or chained wait, scan_tile_state.cuh), and store it.
 *
 * Operator: any associative `Op` with `T op(const T& earlier, const T& later)`
 * callable on the device; it need not be commutative (operands are always combined
 * in sequence order) and need not have an identity (an inclusive scan never applies
 * `init`). T must be default-constructible and trivially copyable, and a whole number
 * of 32-bit words (the tile states copy it word by word).
 *
 * Data movement: each warp loads its 32*ITEMS consecutive elements warp-striped
 * (lane l reads elements l, l+32, ...: every load instruction of the warp reads 32
 * neighbouring values, fully coalesced), transposes them through shared memory to a
 * blocked arrangement (lane l holds elements l*ITEMS ... l*ITEMS+ITEMS-1, which a
 * thread can scan sequentially), and does the reverse before storing. Only
 * __syncwarp is needed around a warp's own shared-memory region.
 *
 * The last tile may be partial (any n, not only multiples of the tile); it takes the
 * guarded path. Positions past n are filled with T() and only influence outputs past
 * n, which are not stored, and the last tile's total, which no one reads.
 *
 * In-place scans (out == in) are safe: a tile reads all of its input before it
 * stores any output, and no tile reads another tile's input. */
#ifndef MCT_SCAN_AGENT_CUH
#define MCT_SCAN_AGENT_CUH

#include "mctally/device/block/block_scan.cuh"
#include "mctally/device/scan/scan_tile_state.cuh"
#include "mctally/mct_scan.h"

/** The block's work under `Policy` (mct_scan_policy) with the design ALGO
 * (MCT_SCAN_DECOUPLED_LOOKBACK or MCT_SCAN_CHAINED, mct_scan.h). EXCLUSIVE: out[0] =
 * init, out[i] = init op in[0] op ... op in[i-1]; else out[i] = in[0] op ... op in[i].
 * The kernel (scan_kernel.cuh) declares `__shared__ storage_t` and calls run(). */
template <typename Policy, typename T, typename Op, bool EXCLUSIVE, mct_scan_algo_t ALGO>
struct mct_scan_agent {
    static constexpr int THREADS = Policy::threads;
    static constexpr int ITEMS = Policy::items;
    static constexpr int TILE = Policy::tile_items;
    static constexpr int WARP_ITEMS = 32 * ITEMS;
    using state_t = mct_scan_tile_state<T, Policy::state>;

    struct storage_t {
        T exchange[TILE];
        mct_block_scan_storage<T> scan;
        T tile_prefix;
        unsigned tile;
    };
    static_assert(sizeof(storage_t) <= 48 * 1024, "the scan tile must fit static shared memory (48 KiB)");

    /** Scans the tile with index taken from `counter`. `init` is used by the exclusive
     * scan only (tile 0's prefix; it is folded into every published PREFIX). The grid
     * has one 1-D block of Policy::threads threads per tile (ceil(n / tile_items)
     * blocks, n > 0); `counter` and the states' zero_bytes start zeroed. */
    static __device__ __forceinline__ void run(storage_t& s, const T* in, T* out, int64_t n, T init, Op op,
                                               state_t state, unsigned* counter, mct_scan_delays_t delays) {
        if (threadIdx.x == 0) s.tile = atomicAdd(counter, 1u);
        __syncthreads();
        const unsigned tile = s.tile;
        const int64_t base = (int64_t)tile * TILE;
        if (n - base >= TILE)
            consume<true>(s, in + base, out + base, TILE, tile, init, op, state, delays);
        else
            consume<false>(s, in + base, out + base, (int)(n - base), tile, init, op, state, delays);
    }

    template <bool FULL>
    static __device__ __forceinline__ void consume(storage_t& s, const T* in, T* out, int valid, unsigned tile,
                                                   T init, Op op, const state_t& state,
                                                   mct_scan_delays_t delays) {
        const int tid = (int)threadIdx.x, lane = tid & 31, warp = tid >> 5;
        const int wbase = warp * WARP_ITEMS;
        T* ex = s.exchange + wbase;
        T x[ITEMS];
        /* Warp-striped load, then blocked through shared memory. */
MCT_UNROLL
        for (int j = 0; j < ITEMS; ++j) {
            const int i = wbase + j * 32 + lane;
            x[j] = (FULL || i < valid) ? in[i] : T();
        }
MCT_UNROLL
        for (int j = 0; j < ITEMS; ++j) ex[j * 32 + lane] = x[j];
        __syncwarp();
MCT_UNROLL
        for (int j = 0; j < ITEMS; ++j) x[j] = ex[lane * ITEMS + j];

        /* Thread scan, then the block scan of the thread totals. */
MCT_UNROLL
        for (int j = 1; j < ITEMS; ++j) x[j] = op(x[j - 1], x[j]);
        T aggregate;
        const T thread_excl = mct_block_scan_exclusive_raw(x[ITEMS - 1], op, s.scan, aggregate);

        /* The tile's prefix: init for tile 0 of an exclusive scan, none for tile 0 of
         * an inclusive one, else from the tiles before. */
        T tile_prefix = init;
        if (tile == 0) {
            if (tid == 0) state.publish(0u, MCT_SCAN_TILE_PREFIX, EXCLUSIVE ? op(init, aggregate) : aggregate);
        } else {
            if (ALGO == MCT_SCAN_CHAINED) {
                if (tid == 0) s.tile_prefix = mct_scan_chained_wait(state, tile, aggregate, op, delays);
            } else if (warp == 0) {
                const T p = mct_scan_lookback(state, tile, aggregate, op, delays);
                if (lane == 0) s.tile_prefix = p;
            }
            __syncthreads();
            tile_prefix = s.tile_prefix;
        }
        const bool tile_has_prefix = EXCLUSIVE || tile > 0;

        /* Apply the thread's prefix to its items. */
        if (EXCLUSIVE) {
            const T p = tid == 0 ? tile_prefix : op(tile_prefix, thread_excl);
MCT_UNROLL
            for (int j = ITEMS - 1; j > 0; --j) x[j] = op(p, x[j - 1]);
            x[0] = p;
        } else if (tid > 0 || tile_has_prefix) {
            const T p = tid == 0 ? tile_prefix : (tile_has_prefix ? op(tile_prefix, thread_excl) : thread_excl);
MCT_UNROLL
            for (int j = 0; j < ITEMS; ++j) x[j] = op(p, x[j]);
        }

        /* Blocked to warp-striped through the warp's own region (each lane rewrites
         * the words it read), then coalesced stores. */
MCT_UNROLL
        for (int j = 0; j < ITEMS; ++j) ex[lane * ITEMS + j] = x[j];
        __syncwarp();
MCT_UNROLL
        for (int j = 0; j < ITEMS; ++j) {
            const int i = wbase + j * 32 + lane;
            if (FULL || i < valid) out[i] = ex[j * 32 + lane];
        }
    }
};

#endif /* MCT_SCAN_AGENT_CUH */
