/* SPDX-License-Identifier: BSD-3-Clause */
/** @file scan.c  The public scan API (mct_scan.h): argument validation first, then
 * the backend's implementation, and the names and determinism table. */
#include <stddef.h>
#include <stdint.h>

#include "scan_impl.h"

static mct_status_t scan_backend(mct_backend_t backend, mct__scan_fn* fn) {
    switch (backend) {
    case MCT_BACKEND_CPU: *fn = mct__scan_cpu; return MCT_STATUS_SUCCESS;
    case MCT_BACKEND_EMULATED: *fn = mct__scan_emulated; return MCT_STATUS_SUCCESS;
    case MCT_BACKEND_CUDA:
#if MCT_HAVE_CUDA
        *fn = mct__scan_cuda;
        return MCT_STATUS_SUCCESS;
#else
        return MCT_STATUS_BACKEND_UNAVAILABLE;
#endif
    case MCT_BACKEND_AUTO: return MCT_STATUS_INVALID_VALUE; /* pointers must match the backend */
    default: return MCT_STATUS_UNKNOWN_BACKEND;
    }
}

static mct_status_t scan_run(mct_backend_t backend, void* d_temp, size_t* temp_bytes, const void* d_in,
                             void* d_out, const void* h_init, int exclusive, int64_t n, mct_scan_type_t type,
                             mct_scan_op_t op, mct_scan_algo_t algo, void* stream) {
    mct__scan_fn fn = NULL;
    mct_status_t st = scan_backend(backend, &fn);
    if (st) return st;
    if (!temp_bytes) return MCT_STATUS_NULL_POINTER;
    if (n < 0 || (unsigned)type >= MCT_SCAN_TYPE_COUNT || (unsigned)op >= MCT_SCAN_OP_COUNT ||
        (unsigned)algo >= MCT_SCAN_ALGO_COUNT)
        return MCT_STATUS_INVALID_VALUE;
    /* n elements must fit in the address space: beyond that no array exists,
     * and every backend's size arithmetic stays inside size_t below it. */
    if ((uint64_t)n > (uint64_t)PTRDIFF_MAX / mct_scan_type_size(type)) return MCT_STATUS_TOO_LARGE;
    if (d_temp && n > 0 && (!d_in || !d_out)) return MCT_STATUS_NULL_POINTER;
    return fn(d_temp, temp_bytes, d_in, d_out, h_init, exclusive, n, type, op, algo, stream);
}

mct_status_t mct_scan_inclusive(mct_backend_t backend, void* d_temp, size_t* temp_bytes, const void* d_in,
                                void* d_out, int64_t n, mct_scan_type_t type, mct_scan_op_t op,
                                mct_scan_algo_t algo, void* stream) {
    return scan_run(backend, d_temp, temp_bytes, d_in, d_out, NULL, 0, n, type, op, algo, stream);
}

mct_status_t mct_scan_exclusive(mct_backend_t backend, void* d_temp, size_t* temp_bytes, const void* d_in,
                                void* d_out, const void* h_init, int64_t n, mct_scan_type_t type,
                                mct_scan_op_t op, mct_scan_algo_t algo, void* stream) {
    return scan_run(backend, d_temp, temp_bytes, d_in, d_out, h_init, 1, n, type, op, algo, stream);
}

mct_determinism_t mct_scan_determinism(mct_backend_t backend, mct_scan_type_t type, mct_scan_op_t op,
                                       mct_scan_algo_t algo) {
    const int is_float = type == MCT_SCAN_F32 || type == MCT_SCAN_F64;
    if (!is_float || op != MCT_SCAN_SUM) return MCT_BITWISE; /* exact operations */
    if (backend == MCT_BACKEND_CPU) return MCT_RUN_TO_RUN;
    return algo == MCT_SCAN_CHAINED ? MCT_RUN_TO_RUN : MCT_NOT_GUARANTEED;
}

const char* mct_scan_type_name(mct_scan_type_t type) {
    static const char* const names[] = {"i32", "u32", "i64", "u64", "f32", "f64"};
    return (unsigned)type < MCT_SCAN_TYPE_COUNT ? names[type] : "invalid";
}

const char* mct_scan_op_name(mct_scan_op_t op) {
    static const char* const names[] = {"sum", "max", "min"};
    return (unsigned)op < MCT_SCAN_OP_COUNT ? names[op] : "invalid";
}

const char* mct_scan_algo_name(mct_scan_algo_t algo) {
    static const char* const names[] = {"decoupled_lookback", "chained"};
    return (unsigned)algo < MCT_SCAN_ALGO_COUNT ? names[algo] : "invalid";
}

size_t mct_scan_type_size(mct_scan_type_t type) {
    static const size_t sizes[] = {4, 4, 8, 8, 4, 8};
    return (unsigned)type < MCT_SCAN_TYPE_COUNT ? sizes[type] : 0;
}
