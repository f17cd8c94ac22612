/* SPDX-License-Identifier: BSD-3-Clause */
/** @file backend.c  Picks the backend ops for a backend enum, and resolves AUTO. */
#include "backend.h"

const mct__backend_ops_t* mct__backend_ops(mct_backend_t backend) {
    switch (backend) {
    case MCT_BACKEND_CPU: return &mct__backend_cpu;
    case MCT_BACKEND_EMULATED: return &mct__backend_emulated;
#if MCT_HAVE_CUDA
    case MCT_BACKEND_CUDA: return &mct__backend_cuda;
#endif
    default: return NULL;
    }
}

mct_backend_t mct__backend_resolve(mct_backend_t backend, int device) {
    if (backend != MCT_BACKEND_AUTO) return backend;
#if MCT_HAVE_CUDA
    char name[8];
    if (mct__backend_cuda.probe(device, name, sizeof name) == MCT_STATUS_SUCCESS) return MCT_BACKEND_CUDA;
#else
    (void)device;
#endif
    return MCT_BACKEND_CPU;
}

mct_status_t mct_backend_devices(mct_backend_t backend, int* count) {
    if (!count) return MCT_STATUS_NULL_POINTER;
    if ((unsigned)backend >= MCT_BACKEND_COUNT) return MCT_STATUS_UNKNOWN_BACKEND;
    *count = 0;
    const mct__backend_ops_t* ops = mct__backend_ops(mct__backend_resolve(backend, 0));
    if (!ops) return MCT_STATUS_SUCCESS;
    if (ops != mct__backend_ops(MCT_BACKEND_CUDA)) {
        *count = 1;
        return MCT_STATUS_SUCCESS;
    }
    char name[8];
    while (*count < 4096 && ops->probe(*count, name, sizeof name) == MCT_STATUS_SUCCESS) ++*count;
    return MCT_STATUS_SUCCESS;
}
