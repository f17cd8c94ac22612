/* SPDX-License-Identifier: BSD-3-Clause */
/** @file device_backend.cu  GPU memory backend of the tally handle. The same
 * source builds the CUDA backend (nvcc) and the emulated backend (host C++ with
 * MCT_EMULATED, see device_backend_emulated.cpp). */
#include <stdio.h>
#include <string.h>

#include "../common/backend.h"
#include "device_add.h"
#include "device_check.cuh"
#include "device_scratch.cuh"
#include "kernels/kernel_replicas.cuh"
#include "kernels/kernel_take_bins.cuh"
#include "mctally/device/mct_launch.cuh"

#if MCT_IS_EMULATED
#define MCT__DEVICE_BACKEND_OPS mct__backend_emulated
#define MCT__ADD_ARRAYS mct__emulated_add_arrays
#else
#define MCT__DEVICE_BACKEND_OPS mct__backend_cuda
#define MCT__ADD_ARRAYS mct__cuda_add_arrays
#endif



/* MCT_DEVICE_CURRENT (a negative ordinal): the calling thread's current
 * device, never changed by the library. */
static int device_ordinal(int device) {
    if (device >= 0) return device;
    int current = 0;
    if (cudaGetDevice(&current) != cudaSuccess) cudaGetLastError();
    return current;
}

static mct_status_t device_probe(int device, char* name, size_t size) {
    device = device_ordinal(device);
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess || device >= count) {
        cudaGetLastError(); /* clear the sticky "no device" error */
        return MCT_STATUS_BACKEND_UNAVAILABLE;
    }
    cudaDeviceProp prop;
    mct_status_t st = MCT_CUDA_CHECK(cudaGetDeviceProperties(&prop, device));
    if (st) return st;
    snprintf(name, size, "%s", prop.name);
    return MCT_STATUS_SUCCESS;
}

static mct_status_t device_mem_info(int device, size_t* free_bytes, size_t* total_bytes) {
    mct_status_t st = device >= 0 ? MCT_CUDA_CHECK(cudaSetDevice(device)) : MCT_STATUS_SUCCESS;
    return st ? st : MCT_CUDA_CHECK(cudaMemGetInfo(free_bytes, total_bytes));
}

static mct_status_t device_alloc(int device, size_t bytes, void** out) {
    *out = NULL;
    mct_status_t st = device >= 0 ? MCT_CUDA_CHECK(cudaSetDevice(device)) : MCT_STATUS_SUCCESS;
    if (st) return st;
    st = MCT_CUDA_CHECK(cudaMalloc(out, bytes ? bytes : 256));
    if (st) {
        *out = NULL;
        cudaGetLastError();
    }
    return st;
}

static void device_release(void* ptr) {
    if (ptr) cudaFree(ptr);
}

#if !MCT_IS_EMULATED
/* Page-locked host memory: device-to-host copies into it run at the link's
 * speed, where pageable memory is staged through a driver buffer. Not for
 * more than MCT__PINNED_MAX bytes: pinning most of a machine's memory starves
 * the rest of the system. */
#define MCT__PINNED_MAX ((size_t)1 << 31)
static void* device_host_alloc(size_t bytes) {
    void* p = NULL;
    if (bytes > MCT__PINNED_MAX || cudaMallocHost(&p, bytes ? bytes : 8) != cudaSuccess) {
        cudaGetLastError();
        return NULL;
    }
    return p;
}

static void device_host_release(void* ptr) {
    if (ptr) cudaFreeHost(ptr);
}
#endif

static mct_status_t device_zero(void* ptr, size_t bytes, void* stream) {
    return MCT_CUDA_CHECK(cudaMemsetAsync(ptr, 0, bytes, (cudaStream_t)stream));
}

static mct_status_t device_synchronize(void* stream) {
    return MCT_CUDA_CHECK(cudaStreamSynchronize((cudaStream_t)stream));
}

static mct_status_t device_to_host(void* dst, const void* src, size_t bytes, void* stream) {
    mct_status_t st = MCT_CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToHost, (cudaStream_t)stream));
    return st ? st : MCT_CUDA_CHECK(cudaStreamSynchronize((cudaStream_t)stream));
}

static int64_t div_up(int64_t a, int64_t b) { return (a + b - 1) / b; }

static int column_blocks(int64_t nbins) {
    int64_t blocks = div_up(nbins, MCT_REPLICA_THREADS);
    return (int)(blocks < 65535 ? blocks : 65535);
}

/* Few bins and many replicas go through per-block partial sums first, so the
 * work spreads over the GPU; the chunking depends on (R, B) only. */
template <typename T>
static mct_status_t reduce_replicas_typed(T* bins, T* replicas, int64_t nbins, int64_t nreplicas, unsigned* flags,
                                         mct__scratch_t* scratch, cudaStream_t stream) {
    mct_status_t st = MCT_STATUS_SUCCESS;
    if (nbins >= 4096 || nreplicas < 8192) {
        MCT_LAUNCH(mct_kernel_replicas_by_column<T>, column_blocks(nbins), MCT_REPLICA_THREADS, 0, stream, bins,
                   replicas, nbins, nreplicas, flags);
        return MCT_LAUNCH_CHECK();
    }
    int64_t parts = div_up(nreplicas, 8192);
    if (parts > 4096) parts = 4096;
    const int64_t rows = div_up(nreplicas, parts);
    void* region = NULL;
    if ((st = mct__scratch_reserve(scratch, (size_t)(parts * nbins) * sizeof(T), &region))) return st;
    T* partial = (T*)region;
    MCT_LAUNCH(mct_kernel_replicas_partial<T>, (unsigned)parts, MCT_REPLICA_THREADS, 0, stream, partial, replicas,
               nbins, nreplicas, rows, flags);
    st = MCT_LAUNCH_CHECK();
    if (!st) {
        MCT_LAUNCH(mct_kernel_replicas_rows<T>, (unsigned)nbins, MCT_REPLICA_THREADS, 0, stream, bins, partial, nbins,
                   parts, flags);
        st = MCT_LAUNCH_CHECK();
    }
    /* The scratch region is free again only once the reduction has read it. */
    mct_status_t sync = MCT_CUDA_CHECK(cudaStreamSynchronize(stream));
    return st ? st : sync;
}

static mct_status_t device_reduce_replicas(void* bins, void* replicas, int64_t nbins, int64_t nreplicas,
                                           mct_dtype_t dtype, unsigned* flags, mct__scratch_t* scratch, void* stream) {
    cudaStream_t s = (cudaStream_t)stream;
    mct_status_t st;
    switch (dtype) {
    case MCT_DTYPE_I32: st = reduce_replicas_typed((int32_t*)bins, (int32_t*)replicas, nbins, nreplicas, flags, scratch, s); break;
    case MCT_DTYPE_U64: st = reduce_replicas_typed((uint64_t*)bins, (uint64_t*)replicas, nbins, nreplicas, flags, scratch, s); break;
    case MCT_DTYPE_F32: st = reduce_replicas_typed((float*)bins, (float*)replicas, nbins, nreplicas, flags, scratch, s); break;
    case MCT_DTYPE_F64: st = reduce_replicas_typed((double*)bins, (double*)replicas, nbins, nreplicas, flags, scratch, s); break;
    default: return MCT_STATUS_UNKNOWN_DTYPE;
    }
    if (st) return st;
    return device_zero(replicas, (size_t)(nbins * nreplicas) * mct_dtype_size(dtype), stream);
}

/* Host arrays reach the kernels in chunks staged in the tally's scratch
 * region; under the emulation host memory is device memory, so they go
 * straight in. */
static mct_status_t device_add_host(const mct_tally_view_t* view, const void* keys, mct_key_type_t key_type,
                                    const double* values, int64_t n, mct__scratch_t* scratch, void* stream,
                                    int64_t* writers) {
#if MCT_IS_EMULATED
    (void)scratch;
    return MCT__ADD_ARRAYS(view, keys, key_type, values, n, 1, n, stream, writers);
#else
    const int64_t chunk = n < (INT64_C(1) << 24) ? n : (INT64_C(1) << 24);
    const size_t key_size = key_type == MCT_KEY_I64 ? sizeof(int64_t) : sizeof(uint32_t);
    const size_t key_bytes = ((size_t)chunk * key_size + 255) & ~(size_t)255;
    void* region = NULL;
    cudaStream_t s = (cudaStream_t)stream;
    mct_status_t st = mct__scratch_reserve(scratch, key_bytes + (size_t)chunk * sizeof(double), &region);
    void* d_keys = region;
    double* d_values = (double*)((char*)region + key_bytes);
    *writers = 0;
    for (int64_t done = 0; !st && done < n; done += chunk) {
        const int64_t m = n - done < chunk ? n - done : chunk;
        int64_t threads = 0;
        st = MCT_CUDA_CHECK(cudaMemcpyAsync(d_keys, (const char*)keys + (size_t)done * key_size, (size_t)m * key_size,
                                            cudaMemcpyHostToDevice, s));
        if (!st) st = MCT_CUDA_CHECK(cudaMemcpyAsync(d_values, values + done, (size_t)m * sizeof *d_values,
                                                     cudaMemcpyHostToDevice, s));
        if (!st) st = MCT__ADD_ARRAYS(view, d_keys, key_type, d_values, m, 1, m, stream, &threads);
        *writers = threads > *writers ? threads : *writers;
        /* The staging buffers are reused by the next chunk and the next call. */
        if (!st) st = MCT_CUDA_CHECK(cudaStreamSynchronize(s));
    }
    return st;
#endif
}

static mct_status_t device_to_device(void* dst, const void* src, size_t bytes, void* stream) {
    mct_status_t st = MCT_CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyHostToDevice, (cudaStream_t)stream));
    return st ? st : MCT_CUDA_CHECK(cudaStreamSynchronize((cudaStream_t)stream));
}

static mct_status_t device_take_bins(const mct_tally_view_t* view, double* dst, void* stream) {
    const int64_t blocks = div_up(view->nbins, MCT_TAKE_THREADS);
    MCT_LAUNCH(mct_kernel_take_bins, (unsigned)(blocks < 65535 ? blocks : 65535), MCT_TAKE_THREADS, 0,
               (cudaStream_t)stream, *view, dst);
    return MCT_LAUNCH_CHECK();
}

static int device_compute_capability(int device) {
#if MCT_IS_EMULATED
    (void)device;
    return 0;
#else
    device = device_ordinal(device);
    int major = 0, minor = 0;
    if (cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device) != cudaSuccess ||
        cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device) != cudaSuccess) {
        cudaGetLastError();
        return 0;
    }
    return major * 10 + minor;
#endif
}

extern "C" const mct__backend_ops_t MCT__DEVICE_BACKEND_OPS = {
    device_probe, device_mem_info, device_alloc, device_release, device_zero, device_synchronize, device_to_host,
    device_reduce_replicas, device_add_host, MCT__ADD_ARRAYS,
#if MCT_IS_EMULATED
    NULL, /* sort_reduce sorts with CUB, which has no emulation */
#else
    mct__cuda_sort_reduce,
#endif
    device_to_device, device_compute_capability, device_take_bins,
#if MCT_IS_EMULATED
    NULL, NULL, /* the emulation's device memory is host memory */
#else
    device_host_alloc, device_host_release,
#endif
};
