/* SPDX-License-Identifier: BSD-3-Clause */
/** @file single_pass_scan.cuh  Inter-block communication of the device-wide scan: the
 * per-tile status words, the decoupled look-back (Merrill & Garland 2016) and the
 * chained wait of the prefix-sum seed.
 *
 * Every tile (one block's share of the input) has a status: INVALID (nothing
 * published yet), AGGREGATE (the op-total of the tile alone is published) or PREFIX
 * (the op-total of the tile and everything before it is published). Tiles take their
 * index from an atomic counter when their block starts, not from blockIdx: a tile
 * then only ever waits for tiles whose blocks started before it and are running or
 * done, so no schedule of the blocks can deadlock (a GPU may start block 7 before
 * block 3), and under the CPU emulation, where blocks run one after another on each
 * OS thread, every awaited tile has already been published or is running on another
 * OS thread.
 *
 * Memory layout and ordering:
 * - 4-byte values: status and value share one 64-bit word (value in the low half),
 *   written and read with single 64-bit volatile accesses, so a reader can never see
 *   a status with another value.
 * - 8-byte values: a status word per tile and two value arrays, one for aggregates
 *   and one for prefixes (as CUB's non-packed tile state), so that publishing the
 *   prefix never overwrites a value that a reader who saw AGGREGATE is about to
 *   read. The writer stores the value, __threadfence(), then the status; the reader
 *   loads the status, __threadfence(), then the value.
 * All polled words are read through volatile pointers, so that each poll is a load
 * from the L2 (ld.volatile) and the compiler keeps it inside the loop. */
#ifndef MCT_SINGLE_PASS_SCAN_CUH
#define MCT_SINGLE_PASS_SCAN_CUH

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#if defined(MCT_EMULATED) && !defined(__CUDACC__)
#include <sched.h>
#endif

#include "../tuning/tuning_scan.h"
#include "mctally/device/warp/warp_scan.cuh"

enum {
    MCT__TILE_INVALID = 0u,
    MCT__TILE_AGGREGATE = 1u,
    MCT__TILE_PREFIX = 2u,
};

/** Rounds a byte count up to the 256-byte alignment of every temp sub-buffer. */
static inline size_t mct__align256(size_t bytes) { return (bytes + 255u) & ~(size_t)255u; }

/** Waits about `ns` nanoseconds where the hardware can (sm_70+). Under the CPU
 * emulation the awaited tile belongs to a block running on another OS thread, so the
 * spinning thread gives its core away (which matters when there are more emulation
 * threads than cores). */
__device__ __forceinline__ void mct__scan_delay(unsigned ns) {
#if MCT_IS_EMULATED
    if (ns) sched_yield();
#elif defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 700
    if (ns) __nanosleep(ns);
#else
    (void)ns;
#endif
}

/** Volatile word-wise copies of a value (its words need not be read atomically: the
 * status word orders them). */
template <typename T>
__device__ __forceinline__ void mct__volatile_store(T* p, const T& v) {
    static_assert(sizeof(T) % 4 == 0, "tile values are whole 32-bit words");
    unsigned w[sizeof(T) / 4];
    memcpy(w, &v, sizeof(T));
    volatile unsigned* q = (volatile unsigned*)p;
MCT_UNROLL
    for (int i = 0; i < (int)(sizeof(T) / 4); ++i) q[i] = w[i];
}
template <typename T>
__device__ __forceinline__ T mct__volatile_load(const T* p) {
    unsigned w[sizeof(T) / 4];
    const volatile unsigned* q = (const volatile unsigned*)p;
MCT_UNROLL
    for (int i = 0; i < (int)(sizeof(T) / 4); ++i) w[i] = q[i];
    T v;
    memcpy(&v, w, sizeof(T));
    return v;
}
__device__ __forceinline__ void mct__volatile_store(double* p, const double& v) { *(volatile double*)p = v; }
__device__ __forceinline__ double mct__volatile_load(const double* p) { return *(const volatile double*)p; }
__device__ __forceinline__ void mct__volatile_store(uint64_t* p, const uint64_t& v) { *(volatile uint64_t*)p = v; }
__device__ __forceinline__ uint64_t mct__volatile_load(const uint64_t* p) { return *(const volatile uint64_t*)p; }
__device__ __forceinline__ void mct__volatile_store(int64_t* p, const int64_t& v) { *(volatile int64_t*)p = v; }
__device__ __forceinline__ int64_t mct__volatile_load(const int64_t* p) { return *(const volatile int64_t*)p; }

/** Tile states of values that are not 4 bytes: status words plus two value arrays. */
template <typename T, bool PACKED = (sizeof(T) == 4)>
struct mct__scan_tile_state {
    unsigned* status;
    T* aggregate;
    T* prefix;

    /** Bytes to zero before a scan (the status words), and the whole footprint. */
    static size_t zero_bytes(int64_t tiles) { return mct__align256((size_t)tiles * sizeof(unsigned)); }
    static size_t bytes(int64_t tiles) { return zero_bytes(tiles) + 2 * mct__align256((size_t)tiles * sizeof(T)); }
    static mct__scan_tile_state carve(void* base, int64_t tiles) {
        mct__scan_tile_state s;
        char* p = (char*)base;
        s.status = (unsigned*)p;
        s.aggregate = (T*)(p + zero_bytes(tiles));
        s.prefix = (T*)(p + zero_bytes(tiles) + mct__align256((size_t)tiles * sizeof(T)));
        return s;
    }

    __device__ __forceinline__ void publish(unsigned tile, unsigned status_value, const T& v) const {
        mct__volatile_store(status_value == MCT__TILE_AGGREGATE ? aggregate + tile : prefix + tile, v);
        __threadfence();
        ((volatile unsigned*)status)[tile] = status_value;
    }

    /** One read of a tile's status, and its value when it has one. */
    __device__ __forceinline__ unsigned peek(unsigned tile, T& v) const {
        const unsigned st = ((const volatile unsigned*)status)[tile];
        if (st != MCT__TILE_INVALID) {
            __threadfence();
            v = mct__volatile_load(st == MCT__TILE_AGGREGATE ? aggregate + tile : prefix + tile);
        }
        return st;
    }
};

/** Tile states of 4-byte values: (status << 32) | value bits in one 64-bit word. */
template <typename T>
struct mct__scan_tile_state<T, true> {
    unsigned long long* words;

    static size_t zero_bytes(int64_t tiles) { return mct__align256((size_t)tiles * sizeof(unsigned long long)); }
    static size_t bytes(int64_t tiles) { return zero_bytes(tiles); }
    static mct__scan_tile_state carve(void* base, int64_t tiles) {
        (void)tiles;
        mct__scan_tile_state s;
        s.words = (unsigned long long*)base;
        return s;
    }

    __device__ __forceinline__ void publish(unsigned tile, unsigned status_value, const T& v) const {
        unsigned bits;
        memcpy(&bits, &v, 4);
        ((volatile unsigned long long*)words)[tile] = ((unsigned long long)status_value << 32) | bits;
    }

    __device__ __forceinline__ unsigned peek(unsigned tile, T& v) const {
        const unsigned long long w = ((const volatile unsigned long long*)words)[tile];
        const unsigned bits = (unsigned)w;
        memcpy(&v, &bits, 4);
        return (unsigned)(w >> 32);
    }
};

/** Decoupled look-back, called by all 32 lanes of one warp of tile `tile` > 0 once the
 * tile's own total `aggregate` is known. Publishes AGGREGATE at once, so successors
 * need not wait for this tile's predecessors; then reads the statuses of the 32
 * preceding tiles (lane l reads tile - 1 - l), waits until none is INVALID, and
 * combines, nearest last, the values of the tiles down to the nearest PREFIX; if the
 * window has none, it moves 32 tiles back and goes on. Publishes PREFIX and returns
 * the exclusive prefix of the tile in every lane.
 *
 * Operator order: lane l + off holds earlier tiles than lane l, so partial totals are
 * combined as op(earlier, later), which keeps non-commutative operators right. */
template <typename T, typename Op, typename State>
__device__ __forceinline__ T mct__scan_lookback(const State& state, unsigned tile, T aggregate, Op op,
                                                mct__scan_delays_t delays) {
    const int lane = mct_lane();
    if (lane == 0) state.publish(tile, MCT__TILE_AGGREGATE, aggregate);
    mct__scan_delay(delays.first_poll_ns);
    T running = aggregate; /* overwritten by the first window */
    bool have = false;
    int64_t window_end = (int64_t)tile - 1;
    for (;;) {
        const int64_t pred = window_end - lane;
        T v = aggregate; /* any defined value: lanes past the nearest PREFIX are unused */
        unsigned st;
        for (;;) {
            st = pred >= 0 ? state.peek((unsigned)pred, v) : (unsigned)MCT__TILE_PREFIX;
            if (__all_sync(MCT_FULL_WARP_MASK, st != MCT__TILE_INVALID)) break;
            mct__scan_delay(delays.poll_ns);
        }
        const unsigned prefix_lanes = __ballot_sync(MCT_FULL_WARP_MASK, st == MCT__TILE_PREFIX);
        const int last = prefix_lanes ? __ffs((int)prefix_lanes) - 1 : 31;
        /* Lane 0 ends with op over lanes [0, last], earliest (highest lane) first. */
MCT_UNROLL
        for (int off = 1; off < 32; off <<= 1) {
            const T other = mct_shfl_down(MCT_FULL_WARP_MASK, v, (unsigned)off);
            if (lane + off <= last) v = op(other, v);
        }
        running = have ? op(v, running) : v;
        have = true;
        if (prefix_lanes) break;
        window_end -= 32;
    }
    running = mct_shfl_idx(MCT_FULL_WARP_MASK, running, 0);
    if (lane == 0) state.publish(tile, MCT__TILE_PREFIX, op(running, aggregate));
    return running;
}

/** The seed's chained design, made independent of the block schedule: one thread of
 * tile `tile` > 0 waits until its predecessor has published PREFIX, publishes its own
 * and returns the exclusive prefix. Tiles thus finish strictly one after another:
 * the critical path is one flag round trip through L2 per tile. (The seed itself
 * waits on a counter and reads the predecessor's last output element, i.e. it also
 * waits for the predecessor's stores; publishing the total first is the same chain
 * without that wait.) */
template <typename T, typename Op, typename State>
__device__ __forceinline__ T mct__scan_chained_wait(const State& state, unsigned tile, T aggregate, Op op,
                                                    mct__scan_delays_t delays) {
    T prefix = aggregate;
    mct__scan_delay(delays.first_poll_ns);
    while (state.peek(tile - 1, prefix) != MCT__TILE_PREFIX) mct__scan_delay(delays.poll_ns);
    state.publish(tile, MCT__TILE_PREFIX, op(prefix, aggregate));
    return prefix;
}

#endif /* MCT_SINGLE_PASS_SCAN_CUH */
