/* SPDX-License-Identifier: BSD-3-Clause */
/** @file scan_impl.h  Internal interface of the scan backends behind mct_scan.h. The
 * public functions in scan.c validate the arguments and call one of these; each
 * answers the size query (d_temp NULL) itself, because the layout is its own. */
#ifndef MCT_SCAN_IMPL_H
#define MCT_SCAN_IMPL_H

#include "mctally/mct_scan.h"

#ifdef __cplusplus
extern "C" {
#endif

/** `init` is a host pointer to the exclusive scan's seed, NULL for the identity
 * (ignored when `exclusive` is 0). Arguments are already validated. */
typedef mct_status_t (*mct__scan_fn)(void* d_temp, size_t* temp_bytes, const void* in, void* out,
                                     const void* init, int exclusive, int64_t n, mct_scan_type_t type,
                                     mct_scan_op_t op, mct_scan_algo_t algo, void* stream);

mct_status_t mct__scan_cpu(void* d_temp, size_t* temp_bytes, const void* in, void* out, const void* init,
                           int exclusive, int64_t n, mct_scan_type_t type, mct_scan_op_t op,
                           mct_scan_algo_t algo, void* stream);
mct_status_t mct__scan_emulated(void* d_temp, size_t* temp_bytes, const void* in, void* out, const void* init,
                                int exclusive, int64_t n, mct_scan_type_t type, mct_scan_op_t op,
                                mct_scan_algo_t algo, void* stream);
#if MCT_HAVE_CUDA
mct_status_t mct__scan_cuda(void* d_temp, size_t* temp_bytes, const void* in, void* out, const void* init,
                            int exclusive, int64_t n, mct_scan_type_t type, mct_scan_op_t op,
                            mct_scan_algo_t algo, void* stream);
#endif

#ifdef __cplusplus
}
#endif

#endif /* MCT_SCAN_IMPL_H */
