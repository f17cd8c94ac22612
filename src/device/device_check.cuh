/* SPDX-License-Identifier: BSD-3-Clause */
/** @file device_check.cuh  Turns CUDA (or emulated CUDA) errors into mct_status_t. */
#ifndef MCT_DEVICE_CHECK_CUH
#define MCT_DEVICE_CHECK_CUH

#include <stdio.h>
#include <stdlib.h>

#include "mctally/device/mct_cuda.cuh"
#include "mctally/mct_status.h"

/* Maps a CUDA error to a status (mct_cuda_status), logging it first when
 * MCT_DEBUG_LOG is set in the environment. MCT_DEBUG_SYNC=1 in the environment
 * makes every launch check synchronize, so errors name their launch. */
static inline mct_status_t mct__cuda_status(cudaError_t err, const char* what, const char* file, int line) {
    if (err != cudaSuccess && getenv("MCT_DEBUG_LOG"))
        fprintf(stderr, "mctally: %s failed at %s:%d: %s\n", what, file, line, cudaGetErrorString(err));
    return mct_cuda_status(err);
}

#define MCT_CUDA_CHECK(call) mct__cuda_status((call), #call, __FILE__, __LINE__)

/** After a launch: the launch error, or with MCT_DEBUG_SYNC set, the kernel's. */
#define MCT_LAUNCH_CHECK()                                                              \
    (getenv("MCT_DEBUG_SYNC") ? MCT_CUDA_CHECK(cudaDeviceSynchronize())                 \
                              : MCT_CUDA_CHECK(cudaPeekAtLastError()))

#endif /* MCT_DEVICE_CHECK_CUH */
