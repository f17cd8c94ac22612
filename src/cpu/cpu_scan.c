/* SPDX-License-Identifier: BSD-3-Clause */
/** @file cpu_scan.c  The CPU backend of mct_scan_*: a three-phase OpenMP scan whose
 * results do not depend on the number of threads.
 *
 * The input is cut into fixed chunks of MCT__CPU_SCAN_CHUNK elements (never a share
 * per thread, which would tie the float rounding to the thread count): (1) each chunk
 * is reduced in order, in parallel; (2) the chunk prefixes are chained in order on
 * one thread; (3) each chunk is scanned in order from its prefix, in parallel. The
 * temporary blob holds one value per chunk. Reading a chunk twice costs a third more
 * memory traffic than a single pass, which a CPU's caches partly hide.
 *
 * Determinism: every output is the same fixed expression of the inputs for a given
 * n, so results are bitwise reproducible (run_to_run) on any thread count; integer
 * results are exact and wrap like the GPU's. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "../common/scan_impl.h"

#define MCT__CPU_SCAN_CHUNK ((int64_t)65536)

/* Operators, as in thread_operators.cuh: signed sums wrap through the unsigned type;
 * float max/min are fmax/fmin. */
#define ADD_I32(a, b) ((int32_t)((uint32_t)(a) + (uint32_t)(b)))
#define ADD_I64(a, b) ((int64_t)((uint64_t)(a) + (uint64_t)(b)))
#define ADD_PLAIN(a, b) ((a) + (b))
#define MAX_CMP(a, b) ((a) < (b) ? (b) : (a))
#define MIN_CMP(a, b) ((b) < (a) ? (b) : (a))

/* One scan function per (type, operator): phases 1-3 above. `agg` holds one value per
 * chunk (the temporary blob). */
#define MCT__CPU_SCAN_DEFINE(NAME, T, OP, IDENTITY)                                                      \
    static void NAME(const T* in, T* out, T* agg, int64_t n, int exclusive, const T* init) {           \
        const int64_t chunks = (n + MCT__CPU_SCAN_CHUNK - 1) / MCT__CPU_SCAN_CHUNK;                     \
        _Pragma("omp parallel for schedule(static)") for (int64_t c = 0; c < chunks; ++c) {             \
            const int64_t b = c * MCT__CPU_SCAN_CHUNK;                                                   \
            const int64_t e = b + MCT__CPU_SCAN_CHUNK < n ? b + MCT__CPU_SCAN_CHUNK : n;                 \
            T s = in[b];                                                                                 \
            for (int64_t i = b + 1; i < e; ++i) s = OP(s, in[i]);                                       \
            agg[c] = s;                                                                                  \
        }                                                                                                \
        /* agg[c] becomes the exclusive prefix of chunk c (unused for chunk 0 of an                 \
         * inclusive scan). */                                                                           \
        T run = exclusive ? (init ? *init : (IDENTITY)) : agg[0];                                        \
        for (int64_t c = exclusive ? 0 : 1; c < chunks; ++c) {                                           \
            const T a = agg[c];                                                                          \
            agg[c] = run;                                                                                \
            run = OP(run, a);                                                                            \
        }                                                                                                \
        _Pragma("omp parallel for schedule(static)") for (int64_t c = 0; c < chunks; ++c) {             \
            const int64_t b = c * MCT__CPU_SCAN_CHUNK;                                                   \
            const int64_t e = b + MCT__CPU_SCAN_CHUNK < n ? b + MCT__CPU_SCAN_CHUNK : n;                 \
            if (exclusive) {                                                                             \
                T s = agg[c];                                                                            \
                for (int64_t i = b; i < e; ++i) {                                                        \
                    const T x = in[i];                                                                   \
                    out[i] = s;                                                                          \
                    s = OP(s, x);                                                                        \
                }                                                                                        \
            } else {                                                                                     \
                T s = c == 0 ? in[b] : OP(agg[c], in[b]);                                                \
                out[b] = s;                                                                              \
                for (int64_t i = b + 1; i < e; ++i) out[i] = s = OP(s, in[i]);                           \
            }                                                                                            \
        }                                                                                                \
    }

#define MCT__CPU_SCAN_TYPE(SUFFIX, T, ADD, MAX, MIN, LOWEST, HIGHEST)                \
    MCT__CPU_SCAN_DEFINE(scan_sum_##SUFFIX, T, ADD, (T)0)                              \
    MCT__CPU_SCAN_DEFINE(scan_max_##SUFFIX, T, MAX, LOWEST)                            \
    MCT__CPU_SCAN_DEFINE(scan_min_##SUFFIX, T, MIN, HIGHEST)

MCT__CPU_SCAN_TYPE(i32, int32_t, ADD_I32, MAX_CMP, MIN_CMP, INT32_MIN, INT32_MAX)
MCT__CPU_SCAN_TYPE(u32, uint32_t, ADD_PLAIN, MAX_CMP, MIN_CMP, 0u, UINT32_MAX)
MCT__CPU_SCAN_TYPE(i64, int64_t, ADD_I64, MAX_CMP, MIN_CMP, INT64_MIN, INT64_MAX)
MCT__CPU_SCAN_TYPE(u64, uint64_t, ADD_PLAIN, MAX_CMP, MIN_CMP, 0u, UINT64_MAX)
MCT__CPU_SCAN_TYPE(f32, float, ADD_PLAIN, fmaxf, fminf, -HUGE_VALF, HUGE_VALF)
MCT__CPU_SCAN_TYPE(f64, double, ADD_PLAIN, fmax, fmin, -HUGE_VAL, HUGE_VAL)

/* Dispatch on (type, op): one case per generated function. */
#define MCT__CPU_SCAN_CASE(ENUM, SUFFIX, T)                                                              \
    case ENUM:                                                                                           \
        if (op == MCT_SCAN_SUM) scan_sum_##SUFFIX((const T*)in, (T*)out, (T*)agg, n, exclusive, (const T*)init); \
        else if (op == MCT_SCAN_MAX) scan_max_##SUFFIX((const T*)in, (T*)out, (T*)agg, n, exclusive, (const T*)init); \
        else scan_min_##SUFFIX((const T*)in, (T*)out, (T*)agg, n, exclusive, (const T*)init);          \
        break;

mct_status_t mct__scan_cpu(void* d_temp, size_t* temp_bytes, const void* in, void* out, const void* init,
                           int exclusive, int64_t n, mct_scan_type_t type, mct_scan_op_t op,
                           mct_scan_algo_t algo, void* stream) {
    (void)algo; /* one CPU method serves both designs */
    (void)stream;
    const int64_t chunks = n > 0 ? (n + MCT__CPU_SCAN_CHUNK - 1) / MCT__CPU_SCAN_CHUNK : 1;
    /* One aligned sub-buffer of 8 bytes per chunk, plus slack to align the blob. */
    const size_t need = 255 + (((size_t)chunks * 8 + 255) & ~(size_t)255);
    if (!d_temp) {
        *temp_bytes = need;
        return MCT_STATUS_SUCCESS;
    }
    if (*temp_bytes < need) return MCT_STATUS_INVALID_VALUE;
    if (n == 0) return MCT_STATUS_SUCCESS;
    void* agg = (void*)(((uintptr_t)d_temp + 255u) & ~(uintptr_t)255u);
    switch (type) {
        MCT__CPU_SCAN_CASE(MCT_SCAN_I32, i32, int32_t)
        MCT__CPU_SCAN_CASE(MCT_SCAN_U32, u32, uint32_t)
        MCT__CPU_SCAN_CASE(MCT_SCAN_I64, i64, int64_t)
        MCT__CPU_SCAN_CASE(MCT_SCAN_U64, u64, uint64_t)
        MCT__CPU_SCAN_CASE(MCT_SCAN_F32, f32, float)
        MCT__CPU_SCAN_CASE(MCT_SCAN_F64, f64, double)
    default: return MCT_STATUS_INVALID_VALUE;
    }
    return MCT_STATUS_SUCCESS;
}
