/* SPDX-License-Identifier: BSD-3-Clause */
/** @file tuning_scan.h  Tile shapes and look-back delays of the device-wide scan.
 *
 * Tuning is data: a policy is a block size and a number of items per thread (both
 * compile-time, they size registers and shared memory) plus two delays that are
 * kernel arguments, so benchmarks can sweep them without recompiling.
 *
 * ITEMS is odd on purpose: the tile goes through shared memory from a warp-striped
 * to a blocked arrangement, where lane l reads words l*ITEMS + j; an odd stride is
 * free of bank conflicts for 4-byte values, and for 8-byte values (read as two
 * half-warp phases) too. The defaults follow the sizes CUB uses on sm_90 (128 threads
 * x 24 items for 4-byte values), rounded to an odd count; `mctally bench scan`
 * reports a sweep of alternatives on the GPU at hand. */
#ifndef MCT_TUNING_SCAN_H
#define MCT_TUNING_SCAN_H

/** Compile-time tile shape. */
template <int THREADS, int ITEMS>
struct mct__scan_policy {
    static constexpr int threads = THREADS;
    static constexpr int items = ITEMS;
    static constexpr int tile_items = THREADS * ITEMS;
    static_assert(THREADS % 32 == 0 && THREADS <= 1024, "the block scan needs whole warps");
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

#ifndef MCT_TUNE_SCAN_THREADS_4B
#define MCT_TUNE_SCAN_THREADS_4B 128
#endif
#ifndef MCT_TUNE_SCAN_ITEMS_4B
#define MCT_TUNE_SCAN_ITEMS_4B 23
#endif
#ifndef MCT_TUNE_SCAN_THREADS_8B
#define MCT_TUNE_SCAN_THREADS_8B 128
#endif
#ifndef MCT_TUNE_SCAN_ITEMS_8B
#define MCT_TUNE_SCAN_ITEMS_8B 15
#endif
#ifndef MCT_TUNE_SCAN_FIRST_POLL_NS
#define MCT_TUNE_SCAN_FIRST_POLL_NS 1200 /* best of the H100 sweep for i32, 2026-11-21 */
#endif
#ifndef MCT_TUNE_SCAN_POLL_NS
#define MCT_TUNE_SCAN_POLL_NS 350
#endif

/** The default policy for values of `bytes` bytes (the C API's types are 4 or 8). */
template <int BYTES>
struct mct__scan_default_policy
    : mct__scan_policy<MCT_TUNE_SCAN_THREADS_8B, MCT_TUNE_SCAN_ITEMS_8B> {};
template <>
struct mct__scan_default_policy<4> : mct__scan_policy<MCT_TUNE_SCAN_THREADS_4B, MCT_TUNE_SCAN_ITEMS_4B> {};

static inline mct__scan_delays_t mct__scan_default_delays(void) {
    mct__scan_delays_t d = {MCT_TUNE_SCAN_FIRST_POLL_NS, MCT_TUNE_SCAN_POLL_NS};
    return d;
}

#endif /* MCT_TUNING_SCAN_H */
