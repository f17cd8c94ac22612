/* SPDX-License-Identifier: BSD-3-Clause */
/** @file mct_scan.h  Device-wide prefix scans (inclusive and exclusive) of user
 * arrays, in CUB's two-phase form, on every backend.
 *
 * Usage (the same two calls on every backend):
 *
 *     size_t bytes = 0;
 *     mct_scan_inclusive(MCT_BACKEND_CUDA, NULL, &bytes, d_in, d_out, n, MCT_SCAN_I32,
 *                        MCT_SCAN_SUM, MCT_SCAN_DECOUPLED_LOOKBACK, stream);   // size only
 *     cudaMalloc(&d_temp, bytes);
 *     mct_scan_inclusive(MCT_BACKEND_CUDA, d_temp, &bytes, d_in, d_out, n, MCT_SCAN_I32,
 *                        MCT_SCAN_SUM, MCT_SCAN_DECOUPLED_LOOKBACK, stream);   // scan
 *
 * Inclusive: out[i] = in[0] op in[1] op ... op in[i].
 * Exclusive: out[0] = init, out[i] = init op in[0] op ... op in[i-1].
 *
 * Backends and pointers: MCT_BACKEND_CPU takes host pointers and scans with OpenMP;
 * MCT_BACKEND_CUDA takes device pointers and enqueues the scan on `stream` (a
 * cudaStream_t, NULL for the default stream) without waiting for it;
 * MCT_BACKEND_EMULATED takes host pointers and runs the CUDA kernels on the host
 * under the CPU emulation (slow; for tests). MCT_BACKEND_AUTO is refused
 * (MCT_STATUS_INVALID_VALUE), because the kind of pointer must match the backend.
 * `stream` is ignored by the CPU and emulated backends, which return when done.
 *
 * Temporary storage: with `d_temp` NULL the call only writes the size it needs to
 * `*temp_bytes` (never 0, also for n = 0) and does nothing else; call again with a blob
 * of at least that size, in the backend's memory. The blob is carved into 256-byte
 * aligned sub-buffers. It may be reused by later scans once this one has finished
 * on the stream. The size depends on the backend, n, the type and the algorithm.
 *
 * In place: out == in is allowed; other overlaps are not.
 *
 * Integers: sums wrap modulo 2^32 or 2^64 (signed ones too, with two's-complement
 * bits); every result is exact and identical on every backend and algorithm.
 *
 * Determinism of float sums (max and min never round, so they are bitwise on every
 * backend; they follow fmax/fmin, ignoring NaN operands, and the sign of a zero
 * result between -0 and +0 is unspecified):
 * - MCT_SCAN_DECOUPLED_LOOKBACK: MCT_NOT_GUARANTEED. A tile's prefix is combined from
 *   whichever predecessors had published their totals when it looked, so the
 *   association, hence the rounding, can change from run to run. Error bound: every
 *   out[i] is a sum of its i + 1 inputs (plus init) in a tree of depth k <= t + 64,
 *   t the index of i's tile (tiles are 5888 f32 or 5152 f64 elements by default), so
 *   |error| <= gamma_k * (|init| + sum |in[j]|) with gamma_k = k u / (1 - k u)
 *   (u = 2^-24 for f32, 2^-53 for f64; Higham's bound for any summation tree).
 * - MCT_SCAN_CHAINED: MCT_RUN_TO_RUN. Each tile's prefix is its predecessor's prefix
 *   plus the predecessor's total, always; the bits depend only on n and the tile
 *   shape (the GPU's compute capability and the library version). Same error bound.
 * - CPU backend: MCT_RUN_TO_RUN and independent of the number of OpenMP threads:
 *   fixed chunks of 65536 elements are reduced, their prefixes chained in order, and
 *   each chunk scanned sequentially from its prefix. The algorithm argument is
 *   checked but does not change the CPU's method. Bits differ from the GPU's. The
 *   sequential sums make the tree deeper: the bound above holds with k = i + 2.
 * mct_scan_determinism() returns the level for a combination. */
#ifndef MCT_SCAN_H
#define MCT_SCAN_H

#include <stddef.h>
#include <stdint.h>

#include "mctally/mct_status.h"
#include "mctally/mct_types.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Element type of a scan. */
typedef enum {
    MCT_SCAN_I32 = 0, /**< int32_t */
    MCT_SCAN_U32 = 1, /**< uint32_t */
    MCT_SCAN_I64 = 2, /**< int64_t */
    MCT_SCAN_U64 = 3, /**< uint64_t */
    MCT_SCAN_F32 = 4, /**< float */
    MCT_SCAN_F64 = 5, /**< double */
    MCT_SCAN_TYPE_COUNT
} mct_scan_type_t;

/** Binary operator of a scan. */
typedef enum {
    MCT_SCAN_SUM = 0, /**< a + b; identity 0 */
    MCT_SCAN_MAX = 1, /**< max(a, b) (fmax for floats); identity: the type's lowest value, -inf */
    MCT_SCAN_MIN = 2, /**< min(a, b) (fmin for floats); identity: the type's highest value, +inf */
    MCT_SCAN_OP_COUNT
} mct_scan_op_t;

/** Device-wide design. Both load and store every element once; they differ in how a
 * tile learns the total of the tiles before it.
 *
 * MCT_SCAN_DECOUPLED_LOOKBACK (default): single pass, Merrill & Garland 2016. Each
 * tile publishes its own total as soon as it has it, then looks back over its
 * predecessors, adding their totals until it meets one that has published its
 * inclusive prefix. Performance: at the memory bandwidth for large n. Determinism
 * of float sums: not guaranteed (see above).
 *
 * MCT_SCAN_CHAINED: the prefix-sum seed's grid level: each tile waits for its
 * predecessor's inclusive prefix, then publishes its own. Correct whatever order
 * the GPU starts blocks in (tile indices come from an atomic counter). Performance:
 * tiles complete one at a time, one L2 round trip each, far below the bandwidth for
 * large n; kept as the seed's design and for its run-to-run determinism. */
typedef enum {
    MCT_SCAN_DECOUPLED_LOOKBACK = 0,
    MCT_SCAN_CHAINED = 1,
    MCT_SCAN_ALGO_COUNT
} mct_scan_algo_t;

/** Inclusive scan of n elements (n >= 0) of `type` with `op`.
 * Returns MCT_STATUS_SUCCESS; MCT_STATUS_NULL_POINTER if temp_bytes is NULL, or, when
 * d_temp is not NULL and n > 0, d_in or d_out is; MCT_STATUS_INVALID_VALUE for n < 0,
 * a type, op or algo out of range, backend AUTO, or a blob smaller than the size
 * query said; MCT_STATUS_UNKNOWN_BACKEND for a backend out of range;
 * MCT_STATUS_BACKEND_UNAVAILABLE for CUDA in a build without it; MCT_STATUS_TOO_LARGE
 * (size queries included) when n elements of the type exceed the address space
 * (n * size > PTRDIFF_MAX), or, on the GPU backends, when n needs more tiles than
 * a grid can hold (n above about 2^43);
 * MCT_STATUS_CUDA_ERROR / MCT_STATUS_EMULATION_ERROR when a launch fails. */
MCT_API mct_status_t mct_scan_inclusive(mct_backend_t backend, void* d_temp, size_t* temp_bytes, const void* d_in,
                                void* d_out, int64_t n, mct_scan_type_t type, mct_scan_op_t op,
                                mct_scan_algo_t algo, void* stream);

/** Exclusive scan seeded with `*h_init`, a host pointer to one value of `type`, or
 * NULL for the operator's identity (0, lowest, highest). `init` is applied once per
 * output (it need not be an identity). Statuses as mct_scan_inclusive. */
MCT_API mct_status_t mct_scan_exclusive(mct_backend_t backend, void* d_temp, size_t* temp_bytes, const void* d_in,
                                void* d_out, const void* h_init, int64_t n, mct_scan_type_t type,
                                mct_scan_op_t op, mct_scan_algo_t algo, void* stream);

/** What a combination guarantees about the bits of its results: MCT_BITWISE for
 * integers and for max/min, else as listed in this header's overview. */
MCT_API mct_determinism_t mct_scan_determinism(mct_backend_t backend, mct_scan_type_t type, mct_scan_op_t op,
                                       mct_scan_algo_t algo);

/** Names ("i32", "sum", "decoupled_lookback", "chained"); "invalid" out of range. */
MCT_API const char* mct_scan_type_name(mct_scan_type_t type);
MCT_API const char* mct_scan_op_name(mct_scan_op_t op);
MCT_API const char* mct_scan_algo_name(mct_scan_algo_t algo);

/** Size in bytes of one element, 0 for an invalid type. */
MCT_API size_t mct_scan_type_size(mct_scan_type_t type);

#ifdef __cplusplus
}
#endif

#endif /* MCT_SCAN_H */
