/* SPDX-License-Identifier: BSD-3-Clause */
/** @file tuning_scan.h  Tile shapes, tile-state layout and look-back delays of the
 * device-wide scan.
 *
 * Tuning is data: a policy is a block size and a number of items per thread (both
 * compile-time, they size registers and shared memory), the tile-state layout
 * (compile-time, below), plus two delays that are kernel arguments, so benchmarks can
 * sweep them without recompiling. `mctally bench scan` measures the alternatives side
 * by side on the GPU at hand (its tuning section).
 *
 * Data movement is fixed (agent_scan.cuh): each warp loads its 32*ITEMS elements
 * warp-striped and transposes them to the blocked arrangement through shared memory,
 * and tiles take their index from an atomic counter. (16-byte vector loads, with or
 * without the transpose, and tiles from blockIdx are not faster: see the scan sweeps
 * listed in bench/results/README.md.)
 *
 * ITEMS is odd on purpose: in the transpose, lane l reads words l*ITEMS + j; an odd
 * stride is free of bank conflicts for 4-byte values, and for 8-byte values (read as
 * two half-warp phases) too. */
#ifndef MCT_TUNING_SCAN_H
#define MCT_TUNING_SCAN_H

/** How tile states are stored (single_pass_scan.cuh has the memory-ordering argument).
 * - PACKED: status and value in one word, 8 bytes for 4-byte values (read and written
 *   as one relaxed .gpu access) and 16 bytes for 8-byte values (one volatile access;
 *   single_pass_scan.cuh says why). Other sizes: SPLIT.
 * - PACKED_VOLATILE: the same words, all accessed with volatile loads and stores (a
 *   reference layout for benchmarks, never a default).
 * - SPLIT: a status word plus separate aggregate and prefix arrays, fenced (the only
 *   layout for other sizes; a benchmark reference for 4 and 8 bytes). */
enum { MCT__SCAN_STATE_PACKED = 0, MCT__SCAN_STATE_PACKED_VOLATILE = 1, MCT__SCAN_STATE_SPLIT = 2 };

/** Compile-time policy. */
template <int THREADS, int ITEMS, int STATE = MCT__SCAN_STATE_PACKED>
struct mct__scan_policy {
    static constexpr int threads = THREADS;
    static constexpr int items = ITEMS;
    static constexpr int tile_items = THREADS * ITEMS;
    static constexpr int state = STATE;
    static_assert(THREADS % 32 == 0 && THREADS <= 1024, "the block scan needs whole warps");
    static_assert(ITEMS >= 1 && ITEMS <= 31, "the float error bound of mct_scan.h assumes ITEMS <= 31");
};

/** Delays of the look-back, in nanoseconds (__nanosleep, sm_70 and later; ignored
 * before and under the CPU emulation). `first_poll_ns` waits before the first read of
 * the predecessors' flags, which gives their writes time to reach L2; `poll_ns` waits
 * between two reads of flags that are not ready, so that spinning blocks do not flood
 * L2 with reads. */
typedef struct {
    unsigned first_poll_ns;
    unsigned poll_ns;
} mct__scan_delays_t;

/* Defaults, chosen by the tuning sweep of `mctally bench scan` (bench/results/README.md
 * lists the runs). 4-byte values: 256 x 23, the fastest shape. 8-byte values: large
 * tiles, which pay off once the packed 16-byte state spares the look-back two fenced
 * round trips per predecessor; 224 x 23 is CUB's sm_90 tile for f64 (224 x 24) with
 * an odd item count. */
#ifndef MCT_TUNE_SCAN_THREADS_4B
#define MCT_TUNE_SCAN_THREADS_4B 256
#endif
#ifndef MCT_TUNE_SCAN_ITEMS_4B
#define MCT_TUNE_SCAN_ITEMS_4B 23
#endif
#ifndef MCT_TUNE_SCAN_THREADS_8B
#define MCT_TUNE_SCAN_THREADS_8B 224
#endif
#ifndef MCT_TUNE_SCAN_ITEMS_8B
#define MCT_TUNE_SCAN_ITEMS_8B 23
#endif
#ifndef MCT_TUNE_SCAN_STATE
#define MCT_TUNE_SCAN_STATE MCT__SCAN_STATE_PACKED
#endif
/* Delays: 2400 / 700 ns, the best row of the delay sweep for both 4- and 8-byte
 * values with the policies above (bench/results/README.md); the sweep covers
 * shorter and longer delays, so a GPU that wants others shows it. */
#ifndef MCT_TUNE_SCAN_FIRST_POLL_NS
#define MCT_TUNE_SCAN_FIRST_POLL_NS 2400
#endif
#ifndef MCT_TUNE_SCAN_POLL_NS
#define MCT_TUNE_SCAN_POLL_NS 700
#endif

/** The default policy for values of `bytes` bytes (the C API's types are 4 or 8). */
template <int BYTES>
struct mct__scan_default_policy
    : mct__scan_policy<MCT_TUNE_SCAN_THREADS_8B, MCT_TUNE_SCAN_ITEMS_8B, MCT_TUNE_SCAN_STATE> {};
template <>
struct mct__scan_default_policy<4>
    : mct__scan_policy<MCT_TUNE_SCAN_THREADS_4B, MCT_TUNE_SCAN_ITEMS_4B, MCT_TUNE_SCAN_STATE> {};

static inline mct__scan_delays_t mct__scan_default_delays(void) {
    mct__scan_delays_t d = {MCT_TUNE_SCAN_FIRST_POLL_NS, MCT_TUNE_SCAN_POLL_NS};
    return d;
}

#endif /* MCT_TUNING_SCAN_H */
