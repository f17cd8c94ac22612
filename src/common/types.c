/* SPDX-License-Identifier: BSD-3-Clause */
/** @file types.c  Names of value types, methods and backends, and the method
 * table that says which method serves which type where, with what determinism. */
#include <string.h>

#include "mctally/mct_types.h"

static const char* const dtype_names[MCT_DTYPE_COUNT] = {"i32", "u64", "f32", "f64"};
static const size_t dtype_sizes[MCT_DTYPE_COUNT] = {4, 8, 4, 8};
static const char* const backend_names[MCT_BACKEND_COUNT] = {"auto", "cpu", "cuda", "emulated"};

/* The method table is data: adding a method means adding a row here and its
 * device specialization, nothing else in the host code. */
typedef struct {
    const char* name;
    const char* summary;
    unsigned dtypes;   /* bit per mct_dtype_t */
    unsigned backends; /* bit per mct_backend_t (AUTO answers as CUDA) */
    mct_determinism_t float_det;
} method_row_t;

#define ALL_DTYPES ((1u << MCT_DTYPE_COUNT) - 1u)
#define GPU_ONLY ((1u << MCT_BACKEND_CUDA) | (1u << MCT_BACKEND_EMULATED))
#define EVERYWHERE (GPU_ONLY | (1u << MCT_BACKEND_CPU))

#define INTS ((1u << MCT_DTYPE_I32) | (1u << MCT_DTYPE_U64))
#define FLOATS ((1u << MCT_DTYPE_F32) | (1u << MCT_DTYPE_F64))
#define F32 (1u << MCT_DTYPE_F32)
#define CUDA_CPU ((1u << MCT_BACKEND_CUDA) | (1u << MCT_BACKEND_CPU))

static const method_row_t methods[MCT_METHOD_COUNT] = {
    [MCT_METHOD_ATOMIC] = {"atomic", "one native atomic add per contribution (HB for f64)",
                           ALL_DTYPES, EVERYWHERE, MCT_NOT_GUARANTEED},
    [MCT_METHOD_SHARED] = {"shared",
                           "block-private bins in shared memory, shared atomics, one global atomic per bin per block",
                           ALL_DTYPES, GPU_ONLY, MCT_NOT_GUARANTEED},
    [MCT_METHOD_WARP_REDUCE] = {"warp_reduce",
                                "per-thread register sums (<= 8 bins) shuffle-reduced per warp, one atomic per bin per warp; else warp aggregation with a cached bin",
                                ALL_DTYPES, GPU_ONLY, MCT_NOT_GUARANTEED},
    [MCT_METHOD_BLOCK_REDUCE] = {"block_reduce",
                                 "per-thread register sums (<= 8 bins), or warp aggregation with a cached bin into a shared copy (or the bins)",
                                 ALL_DTYPES, GPU_ONLY, MCT_NOT_GUARANTEED},
    [MCT_METHOD_REPLICATED] = {"replicated",
                               "a private copy of the bins per thread, no atomics, reduced in a fixed order after the kernel",
                               ALL_DTYPES, EVERYWHERE, MCT_RUN_TO_RUN},
    [MCT_METHOD_CAS] = {"cas", "float add emulated with an atomicCAS loop comparing bit patterns (Liu's CAS)",
                        FLOATS, GPU_ONLY, MCT_NOT_GUARANTEED},
    [MCT_METHOD_WAG] = {"wag", "warp aggregation by bin: peers by ballot loop, sub-tree reduction, leader adds with CAS",
                        ALL_DTYPES, GPU_ONLY, MCT_NOT_GUARANTEED},
    [MCT_METHOD_WIB] = {"wib", "warp aggregation by bin as wag, leader adds with a native atomic (Liu's WIB)",
                        ALL_DTYPES, GPU_ONLY, MCT_NOT_GUARANTEED},
    [MCT_METHOD_WAG_MATCH] = {"wag_match", "warp aggregation with peers from __match_any_sync (sm_70+)",
                              ALL_DTYPES, GPU_ONLY, MCT_NOT_GUARANTEED},
    [MCT_METHOD_KAHAN] = {"kahan", "f32 (sum, compensation) pair per bin, warp-aggregated; a float atomic add into the sum, its exact error into the compensation",
                          F32, EVERYWHERE, MCT_NOT_GUARANTEED},
    [MCT_METHOD_KAHAN_NAIVE] = {"kahan_naive", "f32 Kahan pair per bin updated by 64-bit CAS, no aggregation (Liu's KAS)",
                                F32, GPU_ONLY, MCT_NOT_GUARANTEED},
    [MCT_METHOD_FIXED] = {"fixed", "value x 2^frac_bits rounded to int64, integer atomics; overflow detected",
                          FLOATS, EVERYWHERE, MCT_BITWISE},
    [MCT_METHOD_SORT_REDUCE] = {"sort_reduce", "(bin, value) pairs sorted by bin and value, each bin's run summed in order",
                                FLOATS, CUDA_CPU, MCT_RUN_TO_RUN},
};

static int find_name(const char* const* names, int count, const char* name) {
    for (int i = 0; i < count; ++i)
        if (strcmp(names[i], name) == 0) return i;
    return -1;
}

mct_status_t mct_dtype_from_name(const char* name, mct_dtype_t* out) {
    if (!name || !out) return MCT_STATUS_NULL_POINTER;
    int i = find_name(dtype_names, MCT_DTYPE_COUNT, name);
    if (i < 0) return MCT_STATUS_UNKNOWN_DTYPE;
    *out = (mct_dtype_t)i;
    return MCT_STATUS_SUCCESS;
}

mct_status_t mct_method_from_name(const char* name, mct_method_t* out) {
    if (!name || !out) return MCT_STATUS_NULL_POINTER;
    if (strcmp(name, "auto") == 0) {
        *out = MCT_METHOD_AUTO;
        return MCT_STATUS_SUCCESS;
    }
    for (int i = 0; i < MCT_METHOD_COUNT; ++i)
        if (strcmp(methods[i].name, name) == 0) {
            *out = (mct_method_t)i;
            return MCT_STATUS_SUCCESS;
        }
    return MCT_STATUS_UNKNOWN_METHOD;
}

mct_status_t mct_backend_from_name(const char* name, mct_backend_t* out) {
    if (!name || !out) return MCT_STATUS_NULL_POINTER;
    int i = find_name(backend_names, MCT_BACKEND_COUNT, name);
    if (i < 0) return MCT_STATUS_UNKNOWN_BACKEND;
    *out = (mct_backend_t)i;
    return MCT_STATUS_SUCCESS;
}

const char* mct_dtype_name(mct_dtype_t d) {
    return ((unsigned)d < MCT_DTYPE_COUNT) ? dtype_names[d] : "invalid";
}
const char* mct_method_name(mct_method_t m) {
    if (m == MCT_METHOD_AUTO) return "auto";
    return ((unsigned)m < MCT_METHOD_COUNT) ? methods[m].name : "invalid";
}
const char* mct_backend_name(mct_backend_t b) {
    return ((unsigned)b < MCT_BACKEND_COUNT) ? backend_names[b] : "invalid";
}
const char* mct_method_summary(mct_method_t m) {
    if (m == MCT_METHOD_AUTO)
        return "planned: the fastest method that meets the descriptor's determinism and accuracy needs (mct_plan.h)";
    return ((unsigned)m < MCT_METHOD_COUNT) ? methods[m].summary : "invalid";
}
const char* mct_determinism_name(mct_determinism_t det) {
    switch (det) {
    case MCT_NOT_GUARANTEED: return "not_guaranteed";
    case MCT_RUN_TO_RUN: return "run_to_run";
    case MCT_BITWISE: return "bitwise";
    }
    return "invalid";
}

size_t mct_dtype_size(mct_dtype_t d) { return ((unsigned)d < MCT_DTYPE_COUNT) ? dtype_sizes[d] : 0; }

mct_status_t mct_method_supports(mct_method_t m, mct_dtype_t d, mct_backend_t b) {
    if (m == MCT_METHOD_AUTO) m = MCT_METHOD_ATOMIC; /* atomic serves every type everywhere */
    if ((unsigned)m >= MCT_METHOD_COUNT) return MCT_STATUS_UNKNOWN_METHOD;
    if ((unsigned)d >= MCT_DTYPE_COUNT) return MCT_STATUS_UNKNOWN_DTYPE;
    if ((unsigned)b >= MCT_BACKEND_COUNT) return MCT_STATUS_UNKNOWN_BACKEND;
    if (b == MCT_BACKEND_AUTO) b = MCT_BACKEND_CUDA;
    const method_row_t* row = &methods[m];
    if (!(row->dtypes & (1u << d)) || !(row->backends & (1u << b))) return MCT_STATUS_NOT_SUPPORTED;
    return MCT_STATUS_SUCCESS;
}

size_t mct_method_storage_size(mct_method_t m, mct_dtype_t d) {
    if (m == MCT_METHOD_FIXED) return sizeof(int64_t);
    if (m == MCT_METHOD_KAHAN || m == MCT_METHOD_KAHAN_NAIVE) return 2 * sizeof(float);
    return mct_dtype_size(d);
}

int mct_method_accepts_runs(mct_method_t m, mct_dtype_t d) {
    if ((unsigned)m >= MCT_METHOD_COUNT || (unsigned)d >= MCT_DTYPE_COUNT) return 0;
    return mct_method_determinism(m, d) != MCT_BITWISE && m != MCT_METHOD_KAHAN && m != MCT_METHOD_KAHAN_NAIVE;
}

mct_determinism_t mct_method_determinism(mct_method_t m, mct_dtype_t d) {
    if ((unsigned)m >= MCT_METHOD_COUNT) return MCT_NOT_GUARANTEED;
    if (d == MCT_DTYPE_I32 || d == MCT_DTYPE_U64) return MCT_BITWISE;
    return methods[m].float_det;
}
