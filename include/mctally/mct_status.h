/* SPDX-License-Identifier: BSD-3-Clause */
/** @file mct_status.h  Status codes returned by every public mctally function. */
#ifndef MCT_STATUS_H
#define MCT_STATUS_H

#include "mctally/mct_export.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One list gives the enum, the names and the messages (libuv's UV_ERRNO_MAP
 * habit). Groups as in cuRAND: 0 success, 1xx caller errors, 2xx CUDA and
 * run-time errors, 3xx numerical conditions found in the data, 999 internal. */
#define MCT_STATUS_MAP(X)                                                              \
    X(SUCCESS, 0, "success")                                                           \
    X(INVALID_VALUE, 101, "an argument is out of its valid range")                     \
    X(NULL_POINTER, 102, "a required pointer argument is NULL")                        \
    X(UNKNOWN_METHOD, 103, "unknown tally method")                                     \
    X(UNKNOWN_DTYPE, 104, "unknown value type")                                        \
    X(UNKNOWN_BACKEND, 105, "unknown backend")                                         \
    X(NOT_SUPPORTED, 106, "the method cannot serve this value type or backend")        \
    X(INVALID_STATE, 107, "the call is not valid in the tally's current state")        \
    X(PARSE_ERROR, 108, "the input could not be parsed")                               \
    X(IO_ERROR, 109, "a file could not be read or written")                            \
    X(TOO_LARGE, 110, "the request exceeds what the backend or value type can hold")   \
    X(UNSATISFIABLE, 111, "no tally method meets the stated determinism or accuracy need") \
    X(WISDOM_IGNORED, 112, "the wisdom was corrupt, truncated or stale and was ignored") \
    X(SHAPE_MISMATCH, 113, "the tallies combined across processes differ in shape")   \
    X(BACKEND_UNAVAILABLE, 201, "the requested backend is not available")              \
    X(CUDA_ERROR, 202, "a CUDA call failed")                                           \
    X(OUT_OF_MEMORY, 203, "out of memory")                                             \
    X(EMULATION_ERROR, 204, "the CUDA emulation detected an invalid warp operation")   \
    X(PEER_FAILED, 205, "another process combining the tally failed")                 \
    X(COMM_ERROR, 206, "a communication call (MPI, NCCL) failed")                      \
    X(OVERFLOW, 301, "a tally exceeded the range of its value type")                   \
    X(NONFINITE_VALUE, 302, "a NaN or infinite value reached the tally")               \
    X(BIN_OUT_OF_RANGE, 303, "contributions to bins outside the tally were dropped")  \
    X(INTERNAL_ERROR, 999, "internal error")

typedef enum {
#define MCT__STATUS_ENUM(name, code, msg) MCT_STATUS_##name = code,
    MCT_STATUS_MAP(MCT__STATUS_ENUM)
#undef MCT__STATUS_ENUM
} mct_status_t;

/** Returns the enumerator's name without prefix ("INVALID_VALUE"), or
 * "UNKNOWN_STATUS" for a value outside the list. Never NULL. */
MCT_API const char* mct_status_name(mct_status_t status);

/** Returns a one-line English description of the status. Never NULL. */
MCT_API const char* mct_status_string(mct_status_t status);

#ifdef __cplusplus
}
#endif

#endif /* MCT_STATUS_H */
