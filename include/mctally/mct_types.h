/* SPDX-License-Identifier: BSD-3-Clause */
/** @file mct_types.h  Value types, tally methods, backends and determinism levels. */
#ifndef MCT_TYPES_H
#define MCT_TYPES_H

#include <stddef.h>
#include <stdint.h>

#include "mctally/mct_status.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Value type of a tally's bins. */
typedef enum {
    MCT_DTYPE_I32 = 0, /**< int32_t; exact, overflow is detected before a run */
    MCT_DTYPE_U64 = 1, /**< uint64_t; exact */
    MCT_DTYPE_F32 = 2, /**< float; rounds once a bin passes 2^24 units */
    MCT_DTYPE_F64 = 3, /**< double */
    MCT_DTYPE_COUNT
} mct_dtype_t;

/** How additions reach memory. Each method is documented in `mctally methods`
 * and in mctally/device/mct_add.cuh; the CLI and API names are the strings below. */
typedef enum {
    MCT_METHOD_ATOMIC = 0,       /**< one native atomic add per contribution ("HB" for f64) */
    MCT_METHOD_SHARED = 1,       /**< block-private bins in shared memory, flushed once per block */
    MCT_METHOD_WARP_REDUCE = 2,  /**< converged warps shuffle-reduce, one atomic per warp (one bin) */
    MCT_METHOD_BLOCK_REDUCE = 3, /**< converged blocks reduce, one atomic per block (one bin) */
    MCT_METHOD_REPLICATED = 4,   /**< a private copy of the bins per thread, reduced after the kernel */
    MCT_METHOD_CAS = 5,          /**< float add emulated by an atomicCAS loop on the bit pattern */
    MCT_METHOD_WAG = 6,          /**< warp aggregation by bin (ballot loop), leader adds with CAS */
    MCT_METHOD_WIB = 7,          /**< warp aggregation by bin, leader adds with a native atomic */
    MCT_METHOD_WAG_MATCH = 8,    /**< warp aggregation with peers from __match_any_sync */
    MCT_METHOD_KAHAN = 9,        /**< f32 (sum, compensation) pairs, compensated adds, warp-aggregated */
    MCT_METHOD_KAHAN_NAIVE = 10, /**< f32 pairs by Kahan's step in a CAS loop, no aggregation */
    MCT_METHOD_FIXED = 11,       /**< value x 2^frac_bits rounded to int64, integer atomics; bitwise */
    MCT_METHOD_SORT_REDUCE = 12, /**< (bin, value) pairs sorted, then each bin's run summed in order */
    MCT_METHOD_COUNT,            /**< number of concrete methods: [0, MCT_METHOD_COUNT) */
    /** Not a method: the planner picks a concrete one when the tally is created
     * (mctally/mct_plan.h). Outside [0, MCT_METHOD_COUNT), so loops over the
     * concrete methods never meet it; a view, and so device code, never holds it. */
    MCT_METHOD_AUTO = 64
} mct_method_t;

/** Where a tally lives and its kernels run. */
typedef enum {
    MCT_BACKEND_AUTO = 0,     /**< CUDA when a GPU is present, else CPU */
    MCT_BACKEND_CPU = 1,      /**< OpenMP on the host */
    MCT_BACKEND_CUDA = 2,     /**< an NVIDIA GPU */
    MCT_BACKEND_EMULATED = 3, /**< the CUDA device source run on the host under lane emulation */
    MCT_BACKEND_COUNT
} mct_backend_t;

/** What a method promises about the bits of its result (CUB's vocabulary, plus
 * BITWISE for results that are also equal across GPUs and the CPU backend). */
typedef enum {
    MCT_NOT_GUARANTEED = 0, /**< float additions in an order that varies between runs */
    MCT_RUN_TO_RUN = 1,     /**< identical bits on the same device and launch shape */
    MCT_BITWISE = 2         /**< identical bits across runs, launch shapes, GPUs and the CPU */
} mct_determinism_t;

/** Parses a name ("f64", "block_reduce", "auto", "cuda", ...). Returns
 * MCT_STATUS_UNKNOWN_DTYPE / _METHOD / _BACKEND for an unknown name and
 * MCT_STATUS_NULL_POINTER for NULL arguments. */
MCT_API mct_status_t mct_dtype_from_name(const char* name, mct_dtype_t* out);
MCT_API mct_status_t mct_method_from_name(const char* name, mct_method_t* out);
MCT_API mct_status_t mct_backend_from_name(const char* name, mct_backend_t* out);

/** Names of enumerators ("auto" for MCT_METHOD_AUTO); "invalid" for values
 * out of range. Never NULL. */
MCT_API const char* mct_dtype_name(mct_dtype_t dtype);
MCT_API const char* mct_method_name(mct_method_t method);
MCT_API const char* mct_backend_name(mct_backend_t backend);
MCT_API const char* mct_determinism_name(mct_determinism_t det);

/** Size in bytes of one bin of the type, 0 for an invalid type. */
MCT_API size_t mct_dtype_size(mct_dtype_t dtype);

/** Bytes of one bin as the method stores it: the value type itself, int64 for
 * fixed, an (f32 sum, f32 compensation) pair for the Kahan methods. */
MCT_API size_t mct_method_storage_size(mct_method_t method, mct_dtype_t dtype);

/** One line of description of a method, for `mctally methods`. */
MCT_API const char* mct_method_summary(mct_method_t method);

/** MCT_STATUS_SUCCESS when `method` can tally `dtype` on `backend`, else
 * MCT_STATUS_NOT_SUPPORTED (or UNKNOWN_* for values out of range). AUTO is
 * answered for the backend it would pick on a machine with a GPU. The method
 * MCT_METHOD_AUTO is supported wherever a concrete method is. */
MCT_API mct_status_t mct_method_supports(mct_method_t method, mct_dtype_t dtype, mct_backend_t backend);

/** The determinism `method` gives for `dtype`. Integer additions are exact and
 * associative, so every method is BITWISE on integers (below overflow).
 * MCT_METHOD_AUTO promises only what the descriptor asks for, so it answers
 * NOT_GUARANTEED for floats; a created tally's resolved method says more. */
MCT_API mct_determinism_t mct_method_determinism(mct_method_t method, mct_dtype_t dtype);

/** 1 when a caller may sum its own consecutive values for one bin and add the
 * sum instead (a run: mctally/device/thread/thread_run.cuh), keeping the
 * method's promise: the methods that are not BITWISE for `dtype` (a run is a
 * function of the caller's own sequence; only the rounding of a float sum
 * changes), except the Kahan methods, whose compensated step is per value.
 * 0 otherwise, and for values out of range. */
MCT_API int mct_method_accepts_runs(mct_method_t method, mct_dtype_t dtype);

#ifdef __cplusplus
}
#endif

#endif /* MCT_TYPES_H */
