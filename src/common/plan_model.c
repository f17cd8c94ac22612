/* SPDX-License-Identifier: BSD-3-Clause */
/** @file plan_model.c  The planner's estimate model, in one place: the
 * predicted rounding loss of a float tally, the classes of key samples, and
 * the predicted time per update of every method by backend, bin count, key
 * pattern, width and where the adds come from. Every CUDA row is copied from
 * a committed measurement: bench/results/README.md, "Planner rows", names each
 * table's runs and how its derived columns were settled. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mctally/mct_config.h"
#include "plan.h"

/* ---- Rounding loss -------------------------------------------------------------
 * A float bin that takes n adds of similar positive values v is a sum built in
 * an order nobody controls (atomics, block trees, replicas): bound it as a
 * recursive sum. Each add rounds the running sum S by at most u·|S| (u = 2^-24
 * for f32, 2^-53 for f64), so the error is at most γ(n-1)·Σ|v| with
 * γ(k) = k·u / (1 - k·u) (Higham, Accuracy and Stability, 4.2), plus u for the
 * conversion of each f64 value to f32. The typical loss is smaller: once
 * S ≥ 2^24·v (stagnation) each add loses up to half an ulp of S, about
 * n·2^-24/2 of the sum on average, and addends below half an ulp vanish
 * altogether. The bound n·u is twice that estimate, so it errs on the side of
 * refusing f32 atomics; it is capped at 1 (the whole sum lost).
 * Kahan's compensated step keeps the error at (2u + O(n·u²))·Σ|v| (Higham
 * 4.11): we take 2u + n·u². Fixed point rounds each value to 2^-(f+1)
 * absolute and then adds exactly, so its relative loss does not grow with n:
 * 2^-(f+1) for values of order one or larger. Integers are exact. */
double mct_plan_rounding_loss(mct_dtype_t dtype, mct_method_t method, double adds_per_bin, int fixed_frac_bits) {
    if (dtype == MCT_DTYPE_I32 || dtype == MCT_DTYPE_U64) return 0.0;
    const double n = adds_per_bin > 0.0 ? adds_per_bin : 4294967296.0;
    if (method == MCT_METHOD_FIXED) return ldexp(1.0, -(fixed_frac_bits + 1));
    const double u = dtype == MCT_DTYPE_F32 ? ldexp(1.0, -24) : ldexp(1.0, -53);
    if (method == MCT_METHOD_KAHAN || method == MCT_METHOD_KAHAN_NAIVE) {
        const double k = 2.0 * u + n * u * u;
        return k < 1.0 ? k : 1.0;
    }
    const double k = (n - 1.0) * u;
    if (k >= 0.5) return 1.0;
    const double loss = (dtype == MCT_DTYPE_F32 ? u : 0.0) + k / (1.0 - k);
    return loss < 1.0 ? loss : 1.0;
}

/* ---- Key samples ----------------------------------------------------------------- */

/* Classes, in this order: HOT when one key takes at least a quarter of the
 * adds and at least twice its fair share among the keys present; SORTED when
 * keys ascend (95 % of neighbours) in runs of 2 or more; FEW when a warp of 32
 * consecutive keys sees 4 distinct keys or fewer; else UNIFORM.
 * A sample longer than CLASSIFY_WINDOWS windows of CLASSIFY_WINDOW consecutive
 * keys is read in that many windows spread evenly over it (neighbours and
 * warps are taken inside a window only), so that the cost of a plan does not
 * grow with the sample: a plan from wisdom must still classify its sample. */
#define CLASSIFY_WINDOW 64
#define CLASSIFY_WINDOWS 4
#define CLASSIFY_SLOTS (2 * CLASSIFY_WINDOW * CLASSIFY_WINDOWS) /* >= 2 x the keys read, a power of two */
void mct__plan_classify(const uint32_t* keys, int64_t n, int64_t cells, mct__key_stats_t* out) {
    memset(out, 0, sizeof *out);
    out->pattern = MCT_PATTERN_UNKNOWN;
    if (!keys || n < 1) return;
    const int64_t cap = (int64_t)CLASSIFY_WINDOW * CLASSIFY_WINDOWS;
    const int windows = n > cap ? CLASSIFY_WINDOWS : 1;
    const int64_t window = n > cap ? CLASSIFY_WINDOW : n;
    const int64_t m = windows * window; /* keys read */
    int64_t runs = 0, ascending = 0, pairs = 0, warps = 0, distinct = 0;
    const uint32_t* start[CLASSIFY_WINDOWS]; /* each window's first key */
    for (int w = 0; w < windows; ++w) start[w] = keys + (windows > 1 ? (n - window) / (windows - 1) * w : 0);
#if defined(__GNUC__)
    /* Every line of the windows asked for at once: a plan between GPU runs
     * finds the sample in memory, not in cache, and pays one wait, not one a line. */
    for (int w = 0; w < windows; ++w) {
        const uint32_t* k = start[w];
        for (int64_t i = 0; i < window; i += 16) __builtin_prefetch(k + i);
        __builtin_prefetch(k + window - 1);
    }
#endif
    /* One pass a key, one hash for two open-addressed tables: a count table
     * over every window (the most frequent key's count and the keys present;
     * at least twice the keys read, on the stack: a plan allocates nothing),
     * and a 64-slot set of the current warp's keys, cleared by a new stamp per
     * warp (about one probe a key, not the n^2/2 comparisons of a scan). */
    uint32_t warp_key[64] = {0}, warp_stamp[64] = {0}, stamp = 0;
    uint32_t table_key[CLASSIFY_SLOTS];
    uint16_t table_count[CLASSIFY_SLOTS];
    int64_t slots = 1, hottest = 0, present = 0;
    while (slots < 2 * m) slots *= 2;
    const uint64_t mask = (uint64_t)slots - 1;
    memset(table_count, 0, (size_t)slots * sizeof *table_count);
    for (int w = 0; w < windows; ++w) {
        const uint32_t* k = start[w];
        runs += 1;
        pairs += window - 1;
        for (int64_t i = 0; i < window; ++i) {
            const uint32_t key = k[i];
            const uint64_t h = (uint64_t)key * 0x9E3779B97F4A7C15ull;
            uint64_t t = h >> 32 & mask;
            while (table_count[t] && table_key[t] != key) t = (t + 1) & mask;
            if (!table_count[t]) table_key[t] = key, ++present;
            if ((int64_t)++table_count[t] > hottest) hottest = table_count[t];
            if ((i & 31) == 0) ++stamp, ++warps; /* warps are taken inside a window */
            unsigned u = (unsigned)(h >> 58);
            while (warp_stamp[u] == stamp && warp_key[u] != key) u = (u + 1) & 63u;
            if (warp_stamp[u] != stamp) warp_stamp[u] = stamp, warp_key[u] = key, ++distinct;
            if (i > 0) {
                runs += key != k[i - 1];
                ascending += key >= k[i - 1];
            }
        }
    }
    out->distinct_per_warp = (double)distinct / (double)warps;
    out->mean_run = (double)m / (double)runs;
    out->hot_share = (double)hottest / (double)m;
    out->ascending = pairs > 0 ? (double)ascending / (double)pairs : 1.0;
    const double keys_present = (double)(present < cells ? present : cells);
    if (out->hot_share >= 0.25 && out->hot_share >= 2.0 / keys_present)
        out->pattern = MCT_PATTERN_HOT;
    else if (out->ascending >= 0.95 && out->mean_run >= 2.0)
        out->pattern = MCT_PATTERN_SORTED;
    else if (out->distinct_per_warp <= 4.0)
        out->pattern = MCT_PATTERN_FEW;
    else
        out->pattern = MCT_PATTERN_UNIFORM;
}

/* ---- Time per update --------------------------------------------------------------- */

size_t mct__plan_shared_bytes(mct_method_t method, mct_dtype_t dtype, int64_t bins) {
    /* Only `shared` needs its copy to fit; block_reduce and kahan fall back to
     * the global bins when theirs does not (block_tally_mode.cuh). */
    return method == MCT_METHOD_SHARED ? (size_t)bins * mct_method_storage_size(method, dtype) : 0;
}

/* A row of the CUDA model: Gupdates/s of each method in enum order (0: the
 * method cannot serve the case), copied from the file named. */
typedef struct {
    double gups[MCT_METHOD_COUNT];
} gups_row_t;

/* Array adds (mct_tally_add_device), one f64 value per key, 1e8 updates.
 * The sweep adds f64 values, which the Kahan methods cannot serve: kahan is
 * taken as 0.6 x wib (warp aggregation, then one update of the pair) and
 * kahan_naive as cas (a CAS loop per value). Columns: atomic shared
 * warp_reduce block_reduce replicated cas wag wib wag_match kahan kahan_naive
 * fixed sort_reduce. */
enum { ROW_UNIFORM, ROW_SORTED, ROW_HOT, ROW_PATTERNS };
enum { CLASS_ONE, CLASS_SMALL, CLASS_SHARED, CLASS_LARGE, CLASS_COUNT };
static const gups_row_t arrays_rows[CLASS_COUNT][ROW_PATTERNS] = {
    /* B = 1: one row for every pattern. */
    [CLASS_ONE] = {{{0.568, 13.6, 246, 247, 85.6, 1e-4, 1.16e-3, 17.7, 17.7, 10.6, 1e-4, 132, 2.24}},
                   {{0.568, 13.6, 246, 247, 85.6, 1e-4, 1.16e-3, 17.7, 17.7, 10.6, 1e-4, 132, 2.24}},
                   {{0.568, 13.6, 246, 247, 85.6, 1e-4, 1.16e-3, 17.7, 17.7, 10.6, 1e-4, 132, 2.24}}},
    /* B = 8 (up to 8 bins: the register modes). */
    [CLASS_SMALL] = {{{2.15, 75.4, 240, 246, 56.7, 6.7e-4, 5.9e-4, 13.6, 13.6, 8.2, 6.7e-4, 131, 3.79}},
                     {{0.616, 15.3, 240, 246, 57.9, 1e-4, 1.16e-3, 18.4, 18.4, 11.0, 1e-4, 130, 4.16}},
                     {{0.959, 24, 240, 247, 57.6, 1.9e-4, 2.3e-4, 13.6, 13.6, 8.2, 1.9e-4, 131, 2.92}}},
    /* B = 1000 (a block's copy fits in shared memory). */
    [CLASS_SHARED] = {{{18.9, 231, 18.9, 215, 35.2, 0.264, 0.304, 18.9, 19.1, 11.3, 0.264, 182, 4.53}},
                      {{4.64, 39.7, 216, 252, 51.5, 1.04e-3, 7.1e-3, 83.6, 87.3, 50.2, 1.04e-3, 178, 4.5}},
                      {{1.13, 24.8, 33, 230, 38.5, 2.3e-4, 2.6e-4, 15.5, 15.6, 9.3, 2.3e-4, 177, 2.9}}},
    /* B = 1e6 (no copy fits: shared cannot serve). */
    [CLASS_LARGE] = {{{76.3, 0, 76.2, 76.2, 14, 20.4, 21.2, 36.9, 74.4, 22.1, 20.4, 55.9, 4.64}},
                     {{58.5, 0, 216, 220, 48.1, 15.4, 15.5, 106, 118, 63.6, 15.4, 97.9, 4.68}},
                     {{1.14, 0, 115, 114, 8.78, 2.3e-4, 6.7e-4, 17.6, 17.8, 10.6, 2.3e-4, 89.7, 2.22}}},
};

/* Grouped adds (width > 1) into more bins than a block holds, Westphal's MPC
 * (1e7 keys x 9 components into 1e6 cells); a hot pattern has no grouped row
 * and uses the width-1 row. kahan and kahan_naive derived as above. */
static const gups_row_t grouped_rows[2] = {
    [ROW_UNIFORM] = {{68.6, 0, 68.7, 68.9, 23.6, 61.6, 31.3, 33.6, 67.8, 20.2, 61.6, 63, 2.88}},
    [ROW_SORTED] = {{202, 0, 128, 130, 125, 115, 81, 123, 178, 73.8, 115, 89.7, 3.1}},
};

/* Adds from the caller's kernels, in seconds of a whole run and the adds it
 * made. Up to 8 bins: Liu's test 1, where the tally is the kernel's whole work
 * (1e8 updates, paper launch; kahan_naive, which it lacks, taken as cas). More
 * bins: the water phantom's Table II (4e6 histories), every method as the
 * phantom adds it (deposit = auto buffers the CAS methods and sort_reduce).
 * A row's adds scale its times alike, so they set the predicted time, not the
 * order. At 2^3 voxels the phantom ranks atomic ahead of block_reduce, where
 * test 1 ranks block_reduce far ahead: the rule takes test 1's, where the
 * tally's cost is what matters. */
typedef struct {
    double seconds[MCT_METHOD_COUNT];
    double adds;
} kernel_row_t;
static const kernel_row_t kernel_rows[3] = {
    {{4.65e-3, 1.26e-4, 7.04e-5, 6.25e-5, 1.89e-4, 10.3, 10.0, 7.42e-4, 7.43e-4, 1.19e-3, 10.3, 9.51e-5, 2.74e-3}, 1e8},
    {{0.477, 0.597, 0.606, 0.605, 0.616, 0.535, 0.535, 0.622, 0.619, 0.551, 0.638, 0.604, 0.751}, 4e6 * 13},
    {{0.484, 0, 0.675, 0.676, 0.689, 0.588, 0.589, 0.699, 0.694, 0.539, 0.752, 0.67, 0.803}, 4e6 * 46},
};

static int bin_class(const mct__plan_workload_t* w) {
    if (w->bins == 1) return CLASS_ONE;
    if (w->bins <= 8) return CLASS_SMALL;
    /* f64 shared copy: the class of the 1000-bin row; beyond it, the 1e6 row. */
    if ((size_t)w->bins * mct_dtype_size(w->dtype) <= MCT_BLOCK_TALLY_SMEM_LIMIT) return CLASS_SHARED;
    return CLASS_LARGE;
}

static int pattern_row(mct_key_pattern_t p) {
    /* A few keys per warp in no order contend like a hot bin. */
    return p == MCT_PATTERN_SORTED ? ROW_SORTED : (p == MCT_PATTERN_HOT || p == MCT_PATTERN_FEW) ? ROW_HOT : ROW_UNIFORM;
}

static double cuda_model(const mct__plan_workload_t* w, mct_key_pattern_t pattern, mct_method_t m, const char** why) {
    const int c = bin_class(w);
    if (w->adds == MCT_ADDS_KERNEL) {
        const kernel_row_t* r = &kernel_rows[c <= CLASS_SMALL ? 0 : c == CLASS_SHARED ? 1 : 2];
        if (why) *why = c <= CLASS_SMALL ? "H100 tally-only test 1" : "H200 phantom Table II";
        return r->seconds[m] > 0.0 ? r->seconds[m] / r->adds : -1.0;
    }
    const int row = pattern_row(pattern);
    const gups_row_t* g = &arrays_rows[c][row];
    if (why) *why = "H100 scatter sweep";
    if (w->width > 1 && c == CLASS_LARGE && row != ROW_HOT) {
        g = &grouped_rows[row];
        if (why) *why = "H100 MPC";
    }
    /* i32's shared-memory atomic is the hardware's own, and contention does not
     * slow it: where a block's copy fits, shared keeps up with the fastest
     * method in every pattern (measured: "Planner rows"), while f32 and u64
     * contend like f64. Predicted just ahead of the row's fastest. */
    if (m == MCT_METHOD_SHARED && w->dtype == MCT_DTYPE_I32 && c != CLASS_LARGE) {
        double fastest = 0.0;
        for (int k = 0; k < MCT_METHOD_COUNT; ++k)
            if (g->gups[k] > fastest) fastest = g->gups[k];
        if (why) *why = "H100 scatter sweep, i32 shared atomics";
        return 1e-9 / (1.05 * fastest);
    }
    return g->gups[m] > 0.0 ? 1e-9 / g->gups[m] : -1.0;
}

/* The CPU backend: nanoseconds per update from the operations each method does
 * there. atomic: an OpenMP atomic add (a CAS loop for floats); fixed: a native
 * integer atomic after a conversion; kahan: a CAS on the 8-byte pair;
 * replicated: an add into the thread's copy, which costs what an uncontended
 * atomic does (the same path per value, lines as cold as the bins'), plus the
 * reduction of threads x B bins; sort_reduce: a sort of the pairs. Keys that
 * meet in a bin (hot, few, fewer bins than 64 per thread) make every atomic
 * bounce its cache line between cores: x10. So replicated wins where keys meet
 * and loses to fixed or atomic where they do not, as measured on a 2-core
 * machine ("Planner rows"). */
static double cpu_model(const mct__plan_workload_t* w, mct_key_pattern_t pattern, mct_method_t m, const char** why) {
    if (why) *why = "CPU operation counts";
    const int contended = pattern == MCT_PATTERN_HOT || pattern == MCT_PATTERN_FEW || w->bins < 64 * (int64_t)w->threads;
    const double bounce = contended ? 10.0 : 1.0;
    switch (m) {
    case MCT_METHOD_ATOMIC: return 2e-9 * bounce;
    case MCT_METHOD_FIXED: return 1.5e-9 * bounce;
    case MCT_METHOD_KAHAN: return 4e-9 * bounce;
    case MCT_METHOD_REPLICATED: return 2e-9 + 1e-9 * (double)w->threads / 64.0; /* reduction over >= 64 adds per bin */
    case MCT_METHOD_SORT_REDUCE: return 20e-9;
    default: return -1.0;
    }
}

/* The emulated backend runs the device source with lanes that step together
 * at every warp intrinsic and blocks as fibers (src/emu/): a method's cost is
 * its intrinsics and barriers, not memory. Microseconds per update: atomic 1,
 * fixed 1.2 (a conversion more), cas 1.5 (a loop), replicated 1.1 (plus its
 * reduction), kahan_naive 2 (a CAS loop on pairs), shared 4 (block barriers),
 * and the methods that vote and shuffle per add (warp_reduce, block_reduce,
 * wag, wib, wag_match, kahan) 6, also at 8 bins or fewer, where their
 * register sums still pass the block's barriers (bench/planner at tiny sizes
 * on the emulation: block_reduce tens of times slower than atomic there). */
static double emulated_model(const mct__plan_workload_t* w, mct_method_t m, const char** why) {
    (void)w;
    if (why) *why = "emulation intrinsic counts";
    switch (m) {
    case MCT_METHOD_ATOMIC: return 1e-6;
    case MCT_METHOD_FIXED: return 1.2e-6;
    case MCT_METHOD_CAS: return 1.5e-6;
    case MCT_METHOD_REPLICATED: return 1.1e-6;
    case MCT_METHOD_KAHAN_NAIVE: return 2e-6;
    case MCT_METHOD_SHARED: return 4e-6;
    case MCT_METHOD_WARP_REDUCE:
    case MCT_METHOD_BLOCK_REDUCE:
    case MCT_METHOD_WAG:
    case MCT_METHOD_WIB:
    case MCT_METHOD_WAG_MATCH:
    case MCT_METHOD_KAHAN: return 6e-6;
    default: return -1.0;
    }
}

double mct__plan_model(const mct__plan_workload_t* w, mct_key_pattern_t pattern, mct_method_t m, const char** why) {
    if ((unsigned)m >= MCT_METHOD_COUNT) return -1.0;
    switch (w->backend) {
    case MCT_BACKEND_CUDA: return cuda_model(w, pattern, m, why);
    case MCT_BACKEND_CPU: return cpu_model(w, pattern, m, why);
    case MCT_BACKEND_EMULATED: return emulated_model(w, m, why);
    default: return -1.0;
    }
}
