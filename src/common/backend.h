/* SPDX-License-Identifier: BSD-3-Clause */
/** @file backend.h  Internal interface every backend implements (memory, copies,
 * replica reduction). The tally handle in tally.c is written once against it. */
#ifndef MCT_BACKEND_H
#define MCT_BACKEND_H

#include <stddef.h>
#include <stdint.h>

#include "mctally/mct_tally.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Backend memory a tally owns for the passes that need room of their own (host
 * staging of mct_tally_add, sort_reduce's sort buffers, the partial sums of the
 * replica reduction). It grows, never shrinks, so repeated calls allocate
 * nothing once the largest has run; the passes that use it are synchronous, so
 * one region serves them all. Freed with the tally (ops->release). */
typedef struct {
    void* ptr;
    size_t bytes;
    int device;
} mct__scratch_t;

typedef struct {
    /** SUCCESS when the backend can run on `device`; writes its name. */
    mct_status_t (*probe)(int device, char* name, size_t size);
    mct_status_t (*mem_info)(int device, size_t* free_bytes, size_t* total_bytes);
    mct_status_t (*alloc)(int device, size_t bytes, void** out);
    void (*release)(void* ptr);
    mct_status_t (*zero)(void* ptr, size_t bytes, void* stream);
    /** Waits until the work queued on the stream is done; reports its errors. */
    mct_status_t (*synchronize)(void* stream);
    /** Copies to host memory and waits for the stream: also where errors of
     * earlier kernels on the stream surface. */
    mct_status_t (*to_host)(void* dst, const void* src, size_t bytes, void* stream);
    /** bins[k] += sum over r of replicas[r*nbins + k], in an order fixed by
     * (nbins, nreplicas) alone; then zeroes the replicas. Integer types: an
     * add that leaves the type's range (a partial sum or the bin) raises
     * MCT_TALLY_FLAG_OVERFLOW in `flags` (the tally's flag word, backend memory). */
    mct_status_t (*reduce_replicas)(void* bins, void* replicas, int64_t nbins, int64_t nreplicas,
                                    mct_dtype_t dtype, unsigned* flags, mct__scratch_t* scratch, void* stream);
    /** bins[keys[i]] += values[i] with the view's method, from HOST arrays (the
     * backend stages them in `scratch` where its kernels can read them). Writes
     * the number of threads that added (what decides whether replicas were
     * private) to *writers. */
    mct_status_t (*add_host)(const mct_tally_view_t* view, const void* keys, mct_key_type_t key_type,
                             const double* values, int64_t n,
                             mct__scratch_t* scratch, void* stream, int64_t* writers);
    /** bins[keys[i] * width + c] += values[c * stride + i] from arrays in the
     * backend's own memory (device pointers on cuda, host pointers otherwise),
     * keys of type key_type (a 64-bit key read as mct_arith_key_from_i64 gives),
     * asynchronous on the stream; *writers as for add_host. */
    mct_status_t (*add_device)(const mct_tally_view_t* view, const void* keys, mct_key_type_t key_type,
                               const double* values, int64_t n, int width, int64_t stride, void* stream,
                               int64_t* writers);
    /** sort_reduce: orders the batch's pairs by (bin, value bits) and adds each
     * bin's run, in that order, into the bins. NULL where the backend has none. */
    mct_status_t (*sort_reduce)(const mct_tally_view_t* view, mct__scratch_t* scratch, void* stream);
    /** Copies host memory into backend memory (the planner's key samples). */
    mct_status_t (*to_device)(void* dst, const void* src, size_t bytes, void* stream);
    /** Compute capability as major * 10 + minor; 0 off the GPU. */
    int (*compute_capability)(int device);
    /** mct_tally_take_sums's passes over the open batch's bins (take_bins.h),
     * asynchronous on the stream: with dst NULL, checks every bin and raises
     * in view->flags the bits mct__take_bin gives; with dst (nbins doubles in
     * backend memory), writes each bin's float64 value there and zeroes the
     * bins (called once the check found nothing: the flag word is zero). */
    mct_status_t (*take_bins)(const mct_tally_view_t* view, double* dst, void* stream);
    /** Host memory that to_host fills fastest (page-locked on cuda), or NULL
     * (none to give, or none left: the caller uses malloc); freed by
     * host_release. NULL members where plain host memory is as fast. */
    void* (*host_alloc)(size_t bytes);
    void (*host_release)(void* ptr);
} mct__backend_ops_t;

extern const mct__backend_ops_t mct__backend_cpu;
extern const mct__backend_ops_t mct__backend_emulated;
#if MCT_HAVE_CUDA
extern const mct__backend_ops_t mct__backend_cuda;
#endif

/** The ops of a concrete backend, or NULL when it is not built in. */
const mct__backend_ops_t* mct__backend_ops(mct_backend_t backend);

/** Resolves AUTO: CUDA when built with CUDA and a device answers, else CPU. */
mct_backend_t mct__backend_resolve(mct_backend_t backend, int device);

#ifdef __cplusplus
}
#endif

#endif /* MCT_BACKEND_H */
