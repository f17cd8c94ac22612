/* SPDX-License-Identifier: BSD-3-Clause */
/** @file scan_tile_state.cuh  Inter-block communication of the device-wide scan: the
 * per-tile states (mct_scan_tile_state), the decoupled look-back (mct_scan_lookback,
 * Merrill & Garland 2016) and the chained wait of the prefix-sum seed
 * (mct_scan_chained_wait). scan_agent.cuh uses them; a kernel of one's own may too.
 *
 * Protocol. Every tile (one block's share of the input) has a status:
 * MCT_SCAN_TILE_INVALID (nothing published yet), MCT_SCAN_TILE_AGGREGATE (the
 * op-total of the tile alone is published) or MCT_SCAN_TILE_PREFIX (the op-total of
 * the tile and everything before it is published). The states start zeroed
 * (INVALID); a tile publishes AGGREGATE at most once and then PREFIX once, both from
 * one thread. Guarantee: a reader that sees AGGREGATE or PREFIX for tile p reads the
 * value tile p published with that status, never another one, on every layout.
 * The waits (look-back, chained) terminate only if every tile they wait for is
 * running or done: the agent takes tile indices from an atomic counter when its
 * block starts, not from blockIdx, so a tile only ever waits for tiles whose blocks
 * started before it, and no schedule of the blocks can deadlock (a GPU may start
 * block 7 before block 3); under the CPU emulation, where blocks run one after
 * another on each OS thread, every awaited tile has already been published or is
 * running on another OS thread.
 *
 * Memory layout and ordering. What a reader needs: when it sees status AGGREGATE or
 * PREFIX for tile p, the value it combines must be the one tile p published with
 * that status. Nothing else a tile writes is read by another tile during the scan
 * (outputs are never read back), so this pairing is the whole requirement.
 *
 * - Packed (MCT_SCAN_STATE_PACKED, 4- and 8-byte values, the default): status and
 *   value share one naturally aligned word, 8 bytes for 4-byte values (status in the
 *   high half) and 16 bytes for 8-byte values (status in the first 8 bytes, value in
 *   the second), and every access is one whole-word load or store (ld/st .u64, or
 *   .b128 for 16 bytes).
 *   1. Indivisible: a load returns all of one store (or the zeros of the memset),
 *      never a status from one store with the value of another. For 8 bytes the PTX
 *      memory model guarantees it. For 16 bytes we rely on an aligned .b128 access
 *      being one access to one L2 sector (CUB's packed tile state relies on the
 *      same); test_device_scan checks it (no torn read in some 1e8 polls of a word
 *      being rewritten). The emulation provides it (mct_emu_load_16/store_16).
 *   2. No fence: the value travels inside the word, so there is no other location
 *      whose store must become visible first (the split layout below needs a fence
 *      after the value and another after reading the status, two dependent round
 *      trips per poll). Strong accesses (relaxed .gpu, or volatile, which PTX treats
 *      as relaxed .sys) cannot be served from a stale L1 line, and a store becomes
 *      visible to the polling warp eventually.
 *   3. Monotone: a tile's word goes INVALID -> AGGREGATE -> PREFIX, both stores by
 *      the same thread in program order, so coherence never shows PREFIX and then
 *      AGGREGATE; and each status is correct whenever it is seen (an AGGREGATE only
 *      makes the reader look further back).
 *   4. The memset that zeroes the words precedes the kernel on the same stream.
 *   Why volatile for 16 bytes: the 8-byte word is accessed relaxed at .gpu scope,
 *   the 16-byte word volatile. With relaxed .gpu .b128 accesses, scans with a
 *   non-commutative operator under compute-sanitizer racecheck can get one tile's
 *   prefix wrong, where the volatile word and the split layout do not; without the
 *   sanitizer all three are right. The cause is not known, so the word takes the
 *   access that has passed, at a small cost in speed (bench/results/README.md, "the
 *   device scan under racecheck").
 * - Split (MCT_SCAN_STATE_SPLIT, and every value size other than 4 and 8 bytes): a
 *   status word per tile and two value arrays, one for aggregates and one for
 *   prefixes (as CUB's non-packed tile state), so that publishing the prefix never
 *   overwrites a value that a reader who saw AGGREGATE is about to read. The writer
 *   stores the value, __threadfence(), then the status; the reader loads the status,
 *   __threadfence(), then the value. Values must be trivially copyable and a whole
 *   number of 32-bit words.
 * Polled words are read with strong (relaxed or volatile) loads, so each poll is a
 * load from the L2 and the compiler keeps it inside the loop. */
#ifndef MCT_SCAN_TILE_STATE_CUH
#define MCT_SCAN_TILE_STATE_CUH

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#if defined(MCT_EMULATED) && !defined(__CUDACC__)
#include <sched.h>
#endif

#include "mctally/device/mct_cuda.cuh"
#include "mctally/device/scan/scan_tuning.cuh"
#include "mctally/device/warp/warp_shfl.cuh"

/** The status of a tile (see the protocol above). */
enum {
    MCT_SCAN_TILE_INVALID = 0u,
    MCT_SCAN_TILE_AGGREGATE = 1u,
    MCT_SCAN_TILE_PREFIX = 2u,
};

/** Rounds a byte count up to the 256-byte alignment of every temp sub-buffer. */
static inline size_t mct__scan_align256(size_t bytes) { return (bytes + 255u) & ~(size_t)255u; }

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
__device__ __forceinline__ void mct__scan_volatile_store(T* p, const T& v) {
    static_assert(sizeof(T) % 4 == 0, "tile values are whole 32-bit words");
    unsigned w[sizeof(T) / 4];
    memcpy(w, &v, sizeof(T));
    volatile unsigned* q = (volatile unsigned*)p;
MCT_UNROLL
    for (int i = 0; i < (int)(sizeof(T) / 4); ++i) q[i] = w[i];
}
template <typename T>
__device__ __forceinline__ T mct__scan_volatile_load(const T* p) {
    unsigned w[sizeof(T) / 4];
    const volatile unsigned* q = (const volatile unsigned*)p;
MCT_UNROLL
    for (int i = 0; i < (int)(sizeof(T) / 4); ++i) w[i] = q[i];
    T v;
    memcpy(&v, w, sizeof(T));
    return v;
}
__device__ __forceinline__ void mct__scan_volatile_store(double* p, const double& v) { *(volatile double*)p = v; }
__device__ __forceinline__ double mct__scan_volatile_load(const double* p) { return *(const volatile double*)p; }
__device__ __forceinline__ void mct__scan_volatile_store(uint64_t* p, const uint64_t& v) { *(volatile uint64_t*)p = v; }
__device__ __forceinline__ uint64_t mct__scan_volatile_load(const uint64_t* p) { return *(const volatile uint64_t*)p; }
__device__ __forceinline__ void mct__scan_volatile_store(int64_t* p, const int64_t& v) { *(volatile int64_t*)p = v; }
__device__ __forceinline__ int64_t mct__scan_volatile_load(const int64_t* p) { return *(const volatile int64_t*)p; }

/** The layout a value type gets under a policy's STATE choice. */
enum { MCT__SCAN_LAYOUT_SPLIT = 0, MCT__SCAN_LAYOUT_WORD8 = 1, MCT__SCAN_LAYOUT_WORD16 = 2 };
template <typename T, int STATE>
constexpr int mct__scan_layout() {
    return STATE == MCT_SCAN_STATE_SPLIT ? MCT__SCAN_LAYOUT_SPLIT
           : sizeof(T) == 4               ? MCT__SCAN_LAYOUT_WORD8
           : sizeof(T) == 8               ? MCT__SCAN_LAYOUT_WORD16
                                          : MCT__SCAN_LAYOUT_SPLIT;
}

/** Split tile states: status words plus two value arrays. */
template <typename T>
struct mct_scan_split_state {
    unsigned* status;
    T* aggregate;
    T* prefix;

    /** Bytes to zero before a scan (the status words), and the whole footprint. */
    static size_t zero_bytes(int64_t tiles) { return mct__scan_align256((size_t)tiles * sizeof(unsigned)); }
    static size_t bytes(int64_t tiles) { return zero_bytes(tiles) + 2 * mct__scan_align256((size_t)tiles * sizeof(T)); }
    static mct_scan_split_state carve(void* base, int64_t tiles) {
        mct_scan_split_state s;
        char* p = (char*)base;
        s.status = (unsigned*)p;
        s.aggregate = (T*)(p + zero_bytes(tiles));
        s.prefix = (T*)(p + zero_bytes(tiles) + mct__scan_align256((size_t)tiles * sizeof(T)));
        return s;
    }

    __device__ __forceinline__ void publish(unsigned tile, unsigned status_value, const T& v) const {
        mct__scan_volatile_store(status_value == MCT_SCAN_TILE_AGGREGATE ? aggregate + tile : prefix + tile, v);
        __threadfence();
        ((volatile unsigned*)status)[tile] = status_value;
    }

    /** One read of a tile's status, and its value when it has one. */
    __device__ __forceinline__ unsigned peek(unsigned tile, T& v) const {
        const unsigned st = ((const volatile unsigned*)status)[tile];
        if (st != MCT_SCAN_TILE_INVALID) {
            __threadfence();
            v = mct__scan_volatile_load(st == MCT_SCAN_TILE_AGGREGATE ? aggregate + tile : prefix + tile);
        }
        return st;
    }

    static void host_set(void* base, int64_t tiles, unsigned tile, unsigned status_value, const T& v) {
        const mct_scan_split_state s = carve(base, tiles);
        s.status[tile] = status_value;
        (status_value == MCT_SCAN_TILE_AGGREGATE ? s.aggregate : s.prefix)[tile] = v;
    }
    static unsigned host_get(const void* base, int64_t tiles, unsigned tile, T& v) {
        const mct_scan_split_state s = carve((void*)base, tiles);
        if (s.status[tile] != MCT_SCAN_TILE_INVALID)
            v = (s.status[tile] == MCT_SCAN_TILE_AGGREGATE ? s.aggregate : s.prefix)[tile];
        return s.status[tile];
    }
};

/** Whole-word accesses of the packed states. The 8-byte word: relaxed at .gpu scope
 * (sm_70+; volatile before), a relaxed atomic under the emulation. The 16-byte word:
 * volatile (see "Why volatile for 16 bytes" above), one .b128 access (PTX 8.3,
 * sm_70+), not a .v2 vector: the memory model makes a vector access two element
 * accesses in unspecified order; under the emulation the emulation's indivisible
 * 16-byte copy. The branch without __CUDA_ARCH__ is nvcc's host pass, which never
 * runs device code. */
__device__ __forceinline__ unsigned long long mct__scan_load_word(const unsigned long long* p) {
#if MCT_IS_EMULATED
    return __atomic_load_n(p, __ATOMIC_RELAXED);
#elif defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 700
    unsigned long long v;
    asm volatile("ld.relaxed.gpu.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
    return v;
#else
    return *(const volatile unsigned long long*)p;
#endif
}
__device__ __forceinline__ void mct__scan_store_word(unsigned long long* p, unsigned long long v) {
#if MCT_IS_EMULATED
    __atomic_store_n(p, v, __ATOMIC_RELAXED);
#elif defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 700
    asm volatile("st.relaxed.gpu.u64 [%0], %1;" : : "l"(p), "l"(v) : "memory");
#else
    *(volatile unsigned long long*)p = v;
#endif
}
__device__ __forceinline__ ulonglong2 mct__scan_load_word(const ulonglong2* p) {
    ulonglong2 v;
#if MCT_IS_EMULATED
    mct_emu_load_16(&v, p);
#elif defined(__CUDA_ARCH__)
#if __CUDA_ARCH__ >= 700
    asm volatile("{\n\t.reg .b128 t;\n\tld.volatile.b128 t, [%2];\n\tmov.b128 {%0, %1}, t;\n\t}"
                 : "=l"(v.x), "=l"(v.y) : "l"(p) : "memory");
#else
    asm volatile("ld.volatile.v2.u64 {%0, %1}, [%2];" : "=l"(v.x), "=l"(v.y) : "l"(p) : "memory");
#endif
#else
    v.x = ((const volatile unsigned long long*)p)[0];
    v.y = ((const volatile unsigned long long*)p)[1];
#endif
    return v;
}
__device__ __forceinline__ void mct__scan_store_word(ulonglong2* p, ulonglong2 v) {
#if MCT_IS_EMULATED
    mct_emu_store_16(p, &v);
#elif defined(__CUDA_ARCH__)
#if __CUDA_ARCH__ >= 700
    asm volatile("{\n\t.reg .b128 t;\n\tmov.b128 t, {%1, %2};\n\tst.volatile.b128 [%0], t;\n\t}"
                 : : "l"(p), "l"(v.x), "l"(v.y) : "memory");
#else
    asm volatile("st.volatile.v2.u64 [%0], {%1, %2};" : : "l"(p), "l"(v.x), "l"(v.y) : "memory");
#endif
#else
    ((volatile unsigned long long*)p)[0] = v.x;
    ((volatile unsigned long long*)p)[1] = v.y;
#endif
}

/** (status, value) <-> word. 8-byte words: (status << 32) | value bits; 16-byte
 * words: x = status, y = value bits. */
template <typename T>
MCT_HD inline void mct__scan_pack(unsigned long long& w, unsigned status_value, const T& v) {
    unsigned bits;
    memcpy(&bits, &v, 4);
    w = ((unsigned long long)status_value << 32) | bits;
}
template <typename T>
MCT_HD inline unsigned mct__scan_unpack(const unsigned long long& w, T& v) {
    const unsigned bits = (unsigned)w;
    memcpy(&v, &bits, 4);
    return (unsigned)(w >> 32);
}
template <typename T>
MCT_HD inline void mct__scan_pack(ulonglong2& w, unsigned status_value, const T& v) {
    w.x = status_value;
    memcpy(&w.y, &v, 8);
}
template <typename T>
MCT_HD inline unsigned mct__scan_unpack(const ulonglong2& w, T& v) {
    memcpy(&v, &w.y, 8);
    return (unsigned)w.x;
}

/** Packed tile states: one Word (8 or 16 bytes) per tile, read and written whole. */
template <typename T, typename Word>
struct mct_scan_packed_state {
    static_assert(sizeof(Word) == 2 * sizeof(T) && sizeof(Word) % 8 == 0, "a value and its status fill the word");
    Word* words;

    static size_t zero_bytes(int64_t tiles) { return mct__scan_align256((size_t)tiles * sizeof(Word)); }
    static size_t bytes(int64_t tiles) { return zero_bytes(tiles); }
    static mct_scan_packed_state carve(void* base, int64_t tiles) {
        (void)tiles;
        mct_scan_packed_state s;
        s.words = (Word*)base;
        return s;
    }

    __device__ __forceinline__ void publish(unsigned tile, unsigned status_value, const T& v) const {
        Word w;
        mct__scan_pack(w, status_value, v);
        mct__scan_store_word(words + tile, w);
    }

    /** One read of a tile's status, and its value (meaningful when the status is not
     * INVALID). */
    __device__ __forceinline__ unsigned peek(unsigned tile, T& v) const {
        return mct__scan_unpack(mct__scan_load_word(words + tile), v);
    }

    static void host_set(void* base, int64_t tiles, unsigned tile, unsigned status_value, const T& v) {
        mct__scan_pack(carve(base, tiles).words[tile], status_value, v);
    }
    static unsigned host_get(const void* base, int64_t tiles, unsigned tile, T& v) {
        return mct__scan_unpack(carve((void*)base, tiles).words[tile], v);
    }
};

template <typename T, int STATE, int LAYOUT>
struct mct__scan_tile_state_sel {
    using type = mct_scan_split_state<T>;
};
template <typename T, int STATE>
struct mct__scan_tile_state_sel<T, STATE, MCT__SCAN_LAYOUT_WORD8> {
    using type = mct_scan_packed_state<T, unsigned long long>;
};
template <typename T, int STATE>
struct mct__scan_tile_state_sel<T, STATE, MCT__SCAN_LAYOUT_WORD16> {
    using type = mct_scan_packed_state<T, ulonglong2>;
};

/** The tile states of values of type T under a policy's STATE choice: a small view,
 * passed to kernels by value, of a blob in device memory. Every layout has, on the
 * host, bytes(tiles) (the blob's size for `tiles` tiles; the blob must be 256-byte
 * aligned), zero_bytes(tiles) (how many of its first bytes to zero before a scan,
 * which makes every tile INVALID) and carve(base, tiles) (the view); on the device,
 * publish(tile, status, value) and peek(tile, value) (one read: returns the status
 * and, unless INVALID, sets the value published with it); and host_set/host_get,
 * the same on a host copy of the blob (tests prepare and inspect states with them). */
template <typename T, int STATE = MCT_SCAN_STATE_PACKED>
using mct_scan_tile_state = typename mct__scan_tile_state_sel<T, STATE, mct__scan_layout<T, STATE>()>::type;

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
__device__ __forceinline__ T mct_scan_lookback(const State& state, unsigned tile, T aggregate, Op op,
                                               mct_scan_delays_t delays) {
    const int lane = mct_lane();
    if (lane == 0) state.publish(tile, MCT_SCAN_TILE_AGGREGATE, aggregate);
    mct__scan_delay(delays.first_poll_ns);
    T running = aggregate; /* overwritten by the first window */
    bool have = false;
    int64_t window_end = (int64_t)tile - 1;
    for (;;) {
        const int64_t pred = window_end - lane;
        T v = aggregate; /* any defined value: lanes past the nearest PREFIX are unused */
        unsigned st;
        for (;;) {
            st = pred >= 0 ? state.peek((unsigned)pred, v) : (unsigned)MCT_SCAN_TILE_PREFIX;
            if (__all_sync(MCT_FULL_WARP_MASK, st != MCT_SCAN_TILE_INVALID)) break;
            mct__scan_delay(delays.poll_ns);
        }
        const unsigned prefix_lanes = __ballot_sync(MCT_FULL_WARP_MASK, st == MCT_SCAN_TILE_PREFIX);
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
    if (lane == 0) state.publish(tile, MCT_SCAN_TILE_PREFIX, op(running, aggregate));
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
__device__ __forceinline__ T mct_scan_chained_wait(const State& state, unsigned tile, T aggregate, Op op,
                                                   mct_scan_delays_t delays) {
    T prefix = aggregate;
    mct__scan_delay(delays.first_poll_ns);
    while (state.peek(tile - 1, prefix) != MCT_SCAN_TILE_PREFIX) mct__scan_delay(delays.poll_ns);
    state.publish(tile, MCT_SCAN_TILE_PREFIX, op(prefix, aggregate));
    return prefix;
}

#endif /* MCT_SCAN_TILE_STATE_CUH */
