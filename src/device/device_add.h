/* SPDX-License-Identifier: BSD-3-Clause */
/** @file device_add.h  Internal entry points of the device backends for whole
 * arrays of contributions (mct_tally_add, `mctally accumulate`) and for the
 * sort_reduce post-pass. The same source (device_add.cu) builds both names:
 * mct__cuda_* under nvcc, mct__emulated_* under the CPU emulation. */
#ifndef MCT_DEVICE_ADD_H
#define MCT_DEVICE_ADD_H

#include <stdint.h>

#include "../common/backend.h"
#include "mctally/mct_tally.h"

#ifdef __cplusplus
extern "C" {
#endif

/** bin d_keys[i] * width + c += d_values[c * stride + i] for i < n, c < width
 * (arrays in the backend's memory; width 1: bin d_keys[i] += d_values[i];
 * keys of type key_type, a 64-bit key read as mct_arith_key_from_i64 gives),
 * each value converted to the tally's dtype (floats: nearest; integers:
 * nearest, ties to even), with view->method. Asynchronous on `stream` (a
 * cudaStream_t). sort_reduce only appends the pairs (see *_sort_reduce).
 * Groups that reach past nbins are dropped and raise MCT_TALLY_FLAG_OUT_OF_RANGE.
 * Returns SUCCESS; NULL_POINTER; INVALID_VALUE (n < 0, width < 1,
 * stride < n with width > 1, or an unknown key type); NOT_SUPPORTED (the
 * method cannot serve the dtype); TOO_LARGE (shared: the bins exceed 48 KiB of
 * shared memory); UNKNOWN_DTYPE / UNKNOWN_METHOD; CUDA_ERROR or
 * EMULATION_ERROR (launch failure). When `threads` is not NULL it receives the
 * number of threads the kernel ran (replicated: private replicas need at least
 * as many). */
mct_status_t mct__cuda_add_arrays(const mct_tally_view_t* view, const void* d_keys, mct_key_type_t key_type,
                                  const double* d_values, int64_t n, int width, int64_t stride, void* stream,
                                  int64_t* threads);
mct_status_t mct__emulated_add_arrays(const mct_tally_view_t* view, const void* d_keys, mct_key_type_t key_type,
                                      const double* d_values, int64_t n, int width, int64_t stride, void* stream,
                                      int64_t* threads);

/** sort_reduce post-pass of a batch: sorts the appended pairs
 * (min(*pair_count, pair_capacity) of them) by (bin, value bit pattern), sums
 * each bin's run in that order, adds the run totals into view->bins (any
 * dtype; integers get the total rounded to nearest) and resets *pair_count to
 * 0. Its sort buffers come from the tally's `scratch` (grown when too small).
 * Synchronizes with `stream`.
 *
 * Determinism: run_to_run. Two stable LSD radix sorts (by the value's 64 bits,
 * then by bin) put the same multiset of pairs in the same order whatever order
 * the atomics appended them in, and each run is summed by CUB's segmented
 * reduction, whose order depends only on the run's length and the GPU's tuning.
 * So results are bitwise identical across runs and across launch shapes of the
 * kernels that appended; they may differ between GPU architectures.
 *
 * Returns SUCCESS; NULL_POINTER; TOO_LARGE (more than INT_MAX pairs);
 * OUT_OF_MEMORY; CUDA_ERROR. The emulated build returns NOT_SUPPORTED (CUB
 * does not run under the emulation). */
mct_status_t mct__cuda_sort_reduce(const mct_tally_view_t* view, mct__scratch_t* scratch, void* stream);
mct_status_t mct__emulated_sort_reduce(const mct_tally_view_t* view, mct__scratch_t* scratch, void* stream);

#ifdef __cplusplus
}
#endif

#endif /* MCT_DEVICE_ADD_H */
