/* SPDX-License-Identifier: BSD-3-Clause */
/** @file device_scratch.cuh  Growing a tally's scratch region (backend.h) on a
 * device backend. */
#ifndef MCT_DEVICE_SCRATCH_CUH
#define MCT_DEVICE_SCRATCH_CUH

#include "../common/backend.h"
#include "device_check.cuh"

/* Points *out at `bytes` of the scratch region, growing it (by at least half
 * its size, so a slowly rising demand reallocates O(log) times) when it is
 * smaller. Every user of the region synchronizes before it returns, so no
 * queued work can still read the region being replaced. */
static inline mct_status_t mct__scratch_reserve(mct__scratch_t* s, size_t bytes, void** out) {
    if (s->ptr && bytes <= s->bytes) {
        *out = s->ptr;
        return MCT_STATUS_SUCCESS;
    }
    size_t want = s->bytes + s->bytes / 2;
    want = want > bytes ? want : bytes;
    want = (want + 255) & ~(size_t)255;
    if (s->ptr) cudaFree(s->ptr);
    s->ptr = NULL;
    s->bytes = 0;
    mct_status_t st = s->device >= 0 ? MCT_CUDA_CHECK(cudaSetDevice(s->device)) : MCT_STATUS_SUCCESS;
    if (!st) st = MCT_CUDA_CHECK(cudaMalloc(&s->ptr, want));
    if (st) {
        s->ptr = NULL;
        cudaGetLastError();
        return st;
    }
    s->bytes = want;
    *out = s->ptr;
    return MCT_STATUS_SUCCESS;
}

#endif /* MCT_DEVICE_SCRATCH_CUH */
