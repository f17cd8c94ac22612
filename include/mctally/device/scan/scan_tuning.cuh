/* SPDX-License-Identifier: BSD-3-Clause */
/** @file scan_tuning.cuh  Policies of the device-wide scan: tile shape, tile-state
 * layout and look-back delays, and the defaults the C API (mct_scan.h) uses.
 *
 * A policy (mct_scan_policy) is a block size and a number of items per thread (both
 * compile-time, they size registers and shared memory) and the tile-state layout
 * (compile-time, below). A tile is THREADS * ITEMS consecutive elements scanned by
 * one block. The policy changes speed and, for float sums, the association of the
 * operator (the tile shape is part of what makes MCT_SCAN_CHAINED run-to-run); it
 * never changes which results are correct. The look-back delays (mct_scan_delays_t)
 * are kernel arguments, so a benchmark can sweep them without recompiling; they
 * change only how often a waiting tile polls. `mctally bench scan` measures the
 * alternatives side by side on the GPU at hand (its tuning section).
 *
 * Data movement is fixed (scan_agent.cuh): each warp loads its 32*ITEMS elements
 * warp-striped and transposes them to the blocked arrangement through shared memory,
 * and tiles take their index from an atomic counter. (16-byte vector loads, with or
 * without the transpose, and tiles from blockIdx are not faster: see the scan sweeps
 * listed in bench/results/README.md.)
 *
 * ITEMS is odd on purpose: in the transpose, lane l reads words l*ITEMS + j; an odd
 * stride is free of bank conflicts for 4-byte values, and for 8-byte values (read as
 * two half-warp phases) too. */
#ifndef MCT_SCAN_TUNING_CUH
#define MCT_SCAN_TUNING_CUH

/** How tile states are stored (scan_tile_state.cuh has the memory-ordering argument).
 * - MCT_SCAN_STATE_PACKED: status and value in one word, 8 bytes for 4-byte values
 *   (read and written as one relaxed .gpu access) and 16 bytes for 8-byte values (one
 *   volatile access; scan_tile_state.cuh says why). Other sizes fall back to SPLIT.
 * - MCT_SCAN_STATE_SPLIT: a status word plus separate aggregate and prefix arrays,
 *   fenced (the only layout for other sizes; a reference for 4 and 8 bytes). */
enum { MCT_SCAN_STATE_PACKED = 0, MCT_SCAN_STATE_SPLIT = 1 };

/** Compile-time policy: THREADS per block (whole warps, at most 1024), ITEMS per
 * thread (1 to 31), and the tile-state layout STATE. */
template <int THREADS, int ITEMS, int STATE = MCT_SCAN_STATE_PACKED>
struct mct_scan_policy {
    static constexpr int threads = THREADS;
    static constexpr int items = ITEMS;
    static constexpr int tile_items = THREADS * ITEMS;
    static constexpr int state = STATE;
    static_assert(THREADS % 32 == 0 && THREADS >= 32 && THREADS <= 1024, "the block scan needs whole warps");
    static_assert(ITEMS >= 1 && ITEMS <= 31, "the float error bound of mct_scan.h assumes ITEMS <= 31");
    static_assert(STATE == MCT_SCAN_STATE_PACKED || STATE == MCT_SCAN_STATE_SPLIT, "unknown tile-state layout");
};

/** Delays of the look-back, in nanoseconds (__nanosleep, sm_70 and later; ignored
 * before, and under the CPU emulation, where a waiting thread yields its core).
 * `first_poll_ns` waits before the first read of the predecessors' states, which
 * gives their writes time to reach L2; `poll_ns` waits between two reads of states
 * that are not ready, so that spinning blocks do not flood L2 with reads. Any values
 * are correct, 0 included. */
typedef struct {
    unsigned first_poll_ns;
    unsigned poll_ns;
} mct_scan_delays_t;

/* Defaults, chosen by the tuning sweep of `mctally bench scan` (bench/results/README.md
 * lists the runs). 4-byte values: 256 x 23, the fastest shape. 8-byte values: large
 * tiles, which pay off once the packed 16-byte state spares the look-back two fenced
 * round trips per predecessor; 224 x 23 is CUB's sm_90 tile for f64 (224 x 24) with
 * an odd item count. Each can be overridden at build time. */
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
#define MCT_TUNE_SCAN_STATE MCT_SCAN_STATE_PACKED
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

/** The default policy for values of BYTES bytes: the 4-byte one for 4, the 8-byte one
 * for every other size (the C API's types are 4 or 8 bytes). */
template <int BYTES>
struct mct_scan_default_policy
    : mct_scan_policy<MCT_TUNE_SCAN_THREADS_8B, MCT_TUNE_SCAN_ITEMS_8B, MCT_TUNE_SCAN_STATE> {};
template <>
struct mct_scan_default_policy<4>
    : mct_scan_policy<MCT_TUNE_SCAN_THREADS_4B, MCT_TUNE_SCAN_ITEMS_4B, MCT_TUNE_SCAN_STATE> {};

/** The default look-back delays. */
static inline mct_scan_delays_t mct_scan_default_delays(void) {
    mct_scan_delays_t d = {MCT_TUNE_SCAN_FIRST_POLL_NS, MCT_TUNE_SCAN_POLL_NS};
    return d;
}

#endif /* MCT_SCAN_TUNING_CUH */
