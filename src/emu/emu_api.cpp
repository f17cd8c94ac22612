/* SPDX-License-Identifier: BSD-3-Clause */
/** @file emu_api.cpp  The CUDA runtime API subset of the emulation: device memory is
 * host memory, streams and events are synchronous, the "device" is this host. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <chrono>
#include <mutex>
#include <new>
#include <string>

#include "emu_internal.h"

/* The error record is the runtime's only process-wide mutable state: launches on any
 * thread report into it and cudaGetLastError() reads it, so a mutex guards it. */
namespace {
struct error_record {
    std::mutex mu;
    mct_emu_error_t code = mct_emu_success;
    std::string message;
};
error_record& errors() {
    static error_record r;
    return r;
}
mct_emu_error_t fail(mct_emu_error_t code, const char* what) {
    mct__emu_set_error(code, std::string("mctally emulation: ") + what);
    return code;
}
} // namespace

struct mct_emu_stream_s {
    unsigned flags;
};
struct mct_emu_event_s {
    bool recorded;
    std::chrono::steady_clock::time_point t;
};

void mct__emu_set_error(mct_emu_error_t code, const std::string& message) {
    error_record& r = errors();
    std::lock_guard<std::mutex> g(r.mu);
    r.code = code;
    r.message = message;
}

extern "C" const char* mct_emu_get_error_name(mct_emu_error_t e) {
    switch (e) {
    case mct_emu_success: return "cudaSuccess";
    case mct_emu_error_invalid_value: return "cudaErrorInvalidValue";
    case mct_emu_error_memory_allocation: return "cudaErrorMemoryAllocation";
    case mct_emu_error_invalid_configuration: return "cudaErrorInvalidConfiguration";
    case mct_emu_error_invalid_device_pointer: return "cudaErrorInvalidDevicePointer";
    case mct_emu_error_invalid_memcpy_direction: return "cudaErrorInvalidMemcpyDirection";
    case mct_emu_error_not_supported: return "cudaErrorNotSupported";
    case mct_emu_error_no_device: return "cudaErrorNoDevice";
    case mct_emu_error_invalid_device: return "cudaErrorInvalidDevice";
    case mct_emu_error_launch_failure: return "cudaErrorLaunchFailure";
    case mct_emu_error_unknown: return "cudaErrorUnknown";
    }
    return "cudaErrorUnknown";
}

extern "C" const char* mct_emu_get_error_string(mct_emu_error_t e) {
    switch (e) {
    case mct_emu_success: return "no error";
    case mct_emu_error_invalid_value: return "invalid argument";
    case mct_emu_error_memory_allocation: return "out of memory";
    case mct_emu_error_invalid_configuration: return "invalid configuration argument";
    case mct_emu_error_invalid_device_pointer: return "invalid device pointer";
    case mct_emu_error_invalid_memcpy_direction: return "invalid copy direction for memcpy";
    case mct_emu_error_not_supported: return "operation not supported";
    case mct_emu_error_no_device: return "no CUDA-capable device is detected";
    case mct_emu_error_invalid_device: return "invalid device ordinal";
    case mct_emu_error_launch_failure:
        return "unspecified launch failure (see mct_emu_last_error_message)";
    case mct_emu_error_unknown: return "unknown error";
    }
    return "unknown error";
}

extern "C" mct_emu_error_t mct_emu_get_last_error(void) {
    error_record& r = errors();
    std::lock_guard<std::mutex> g(r.mu);
    mct_emu_error_t c = r.code;
    r.code = mct_emu_success;
    return c;
}

extern "C" mct_emu_error_t mct_emu_peek_at_last_error(void) {
    error_record& r = errors();
    std::lock_guard<std::mutex> g(r.mu);
    return r.code;
}

extern "C" const char* mct_emu_last_error_message(void) {
    thread_local std::string copy;
    error_record& r = errors();
    std::lock_guard<std::mutex> g(r.mu);
    copy = r.message;
    return copy.c_str();
}

extern "C" mct_emu_error_t mct_emu_malloc(void** p, size_t bytes) {
    if (!p) return fail(mct_emu_error_invalid_value, "cudaMalloc: NULL output pointer");
    *p = nullptr;
    if (bytes == 0) return mct_emu_success;
    if (bytes > SIZE_MAX - 63 || posix_memalign(p, 64, (bytes + 63) / 64 * 64) != 0) {
        *p = nullptr;
        return fail(mct_emu_error_memory_allocation, "cudaMalloc: out of host memory");
    }
    return mct_emu_success;
}

extern "C" mct_emu_error_t mct_emu_malloc_host(void** p, size_t bytes) {
    return mct_emu_malloc(p, bytes);
}

extern "C" mct_emu_error_t mct_emu_free(void* p) {
    free(p);
    return mct_emu_success;
}

extern "C" mct_emu_error_t mct_emu_memcpy(void* dst, const void* src, size_t n,
                                          mct_emu_memcpy_kind_t k) {
    if ((unsigned)k > (unsigned)mct_emu_memcpy_default)
        return fail(mct_emu_error_invalid_memcpy_direction, "cudaMemcpy: bad kind");
    if (n && (!dst || !src)) return fail(mct_emu_error_invalid_value, "cudaMemcpy: NULL pointer");
    if (n) memmove(dst, src, n);
    return mct_emu_success;
}

extern "C" mct_emu_error_t mct_emu_memcpy_async(void* dst, const void* src, size_t n,
                                                mct_emu_memcpy_kind_t k, mct_emu_stream_t s) {
    (void)s;
    return mct_emu_memcpy(dst, src, n, k);
}

extern "C" mct_emu_error_t mct_emu_memset(void* p, int value, size_t n) {
    if (n && !p) return fail(mct_emu_error_invalid_value, "cudaMemset: NULL pointer");
    if (n) memset(p, value, n);
    return mct_emu_success;
}

extern "C" mct_emu_error_t mct_emu_memset_async(void* p, int value, size_t n,
                                                mct_emu_stream_t s) {
    (void)s;
    return mct_emu_memset(p, value, n);
}

extern "C" mct_emu_error_t mct_emu_stream_create_with_flags(mct_emu_stream_t* s,
                                                            unsigned flags) {
    if (!s) return fail(mct_emu_error_invalid_value, "cudaStreamCreate: NULL output");
    *s = new (std::nothrow) mct_emu_stream_s{flags};
    return *s ? mct_emu_success
              : fail(mct_emu_error_memory_allocation, "cudaStreamCreate: out of memory");
}

extern "C" mct_emu_error_t mct_emu_stream_create(mct_emu_stream_t* s) {
    return mct_emu_stream_create_with_flags(s, 0);
}

extern "C" mct_emu_error_t mct_emu_stream_destroy(mct_emu_stream_t s) {
    delete s;
    return mct_emu_success;
}

extern "C" mct_emu_error_t mct_emu_stream_synchronize(mct_emu_stream_t s) {
    (void)s;
    return mct_emu_success;
}

extern "C" mct_emu_error_t mct_emu_device_synchronize(void) { return mct_emu_success; }

extern "C" mct_emu_error_t mct_emu_device_reset(void) {
    (void)mct_emu_get_last_error();
    return mct_emu_success;
}

extern "C" mct_emu_error_t mct_emu_event_create_with_flags(mct_emu_event_t* e, unsigned flags) {
    (void)flags;
    if (!e) return fail(mct_emu_error_invalid_value, "cudaEventCreate: NULL output");
    *e = new (std::nothrow) mct_emu_event_s{false, {}};
    return *e ? mct_emu_success
              : fail(mct_emu_error_memory_allocation, "cudaEventCreate: out of memory");
}

extern "C" mct_emu_error_t mct_emu_event_create(mct_emu_event_t* e) {
    return mct_emu_event_create_with_flags(e, 0);
}

extern "C" mct_emu_error_t mct_emu_event_record(mct_emu_event_t e, mct_emu_stream_t s) {
    (void)s;
    if (!e) return fail(mct_emu_error_invalid_value, "cudaEventRecord: NULL event");
    e->recorded = true;
    e->t = std::chrono::steady_clock::now();
    return mct_emu_success;
}

extern "C" mct_emu_error_t mct_emu_event_synchronize(mct_emu_event_t e) {
    return e ? mct_emu_success : fail(mct_emu_error_invalid_value, "cudaEventSynchronize: NULL");
}

extern "C" mct_emu_error_t mct_emu_event_elapsed_time(float* ms, mct_emu_event_t start,
                                                      mct_emu_event_t end) {
    if (!ms || !start || !end || !start->recorded || !end->recorded)
        return fail(mct_emu_error_invalid_value, "cudaEventElapsedTime: bad argument");
    *ms = std::chrono::duration<float, std::milli>(end->t - start->t).count();
    return mct_emu_success;
}

extern "C" mct_emu_error_t mct_emu_event_destroy(mct_emu_event_t e) {
    delete e;
    return mct_emu_success;
}

extern "C" mct_emu_error_t mct_emu_get_device(int* dev) {
    if (!dev) return fail(mct_emu_error_invalid_value, "cudaGetDevice: NULL output");
    *dev = 0;
    return mct_emu_success;
}

extern "C" mct_emu_error_t mct_emu_set_device(int dev) {
    return dev == 0 ? mct_emu_success
                    : fail(mct_emu_error_invalid_device, "cudaSetDevice: only device 0");
}

extern "C" mct_emu_error_t mct_emu_get_device_count(int* n) {
    if (!n) return fail(mct_emu_error_invalid_value, "cudaGetDeviceCount: NULL output");
    *n = 1;
    return mct_emu_success;
}

static size_t physical_bytes(int avail) {
    long pages = sysconf(avail ? _SC_AVPHYS_PAGES : _SC_PHYS_PAGES);
    long page = sysconf(_SC_PAGESIZE);
    return pages > 0 && page > 0 ? (size_t)pages * (size_t)page : 0;
}

extern "C" mct_emu_error_t mct_emu_get_device_properties(mct_emu_device_prop_t* p, int dev) {
    if (!p) return fail(mct_emu_error_invalid_value, "cudaGetDeviceProperties: NULL output");
    if (dev != 0) return fail(mct_emu_error_invalid_device, "cudaGetDeviceProperties: device 0 only");
    memset(p, 0, sizeof *p);
    snprintf(p->name, sizeof p->name, "%s", "mctally CPU emulation");
    p->totalGlobalMem = physical_bytes(0);
    p->sharedMemPerBlock = 48 * 1024;
    p->sharedMemPerBlockOptin = 227 * 1024;
    p->sharedMemPerMultiprocessor = 228 * 1024;
    p->totalConstMem = 64 * 1024;
    p->regsPerBlock = 65536;
    p->warpSize = 32;
    p->maxThreadsPerBlock = 1024;
    p->maxThreadsDim[0] = 1024;
    p->maxThreadsDim[1] = 1024;
    p->maxThreadsDim[2] = 64;
    p->maxGridSize[0] = 0x7fffffff;
    p->maxGridSize[1] = 65535;
    p->maxGridSize[2] = 65535;
    p->maxThreadsPerMultiProcessor = 2048;
    p->maxBlocksPerMultiProcessor = 32;
    p->multiProcessorCount = mct_emu_threads();
    /* Volta's model: independent thread scheduling, *_sync intrinsics, match_any. */
    p->major = 7;
    p->minor = 0;
    p->unifiedAddressing = 1;
    p->managedMemory = 1;
    return mct_emu_success;
}

extern "C" mct_emu_error_t mct_emu_device_get_attribute(int* v, int attr, int dev) {
    mct_emu_device_prop_t p;
    if (!v) return fail(mct_emu_error_invalid_value, "cudaDeviceGetAttribute: NULL output");
    mct_emu_error_t e = mct_emu_get_device_properties(&p, dev);
    if (e != mct_emu_success) return e;
    switch (attr) {
    case mct_emu_dev_attr_max_threads_per_block: *v = p.maxThreadsPerBlock; break;
    case mct_emu_dev_attr_max_shared_per_block: *v = (int)p.sharedMemPerBlock; break;
    case mct_emu_dev_attr_warp_size: *v = p.warpSize; break;
    case mct_emu_dev_attr_multiprocessor_count: *v = p.multiProcessorCount; break;
    case mct_emu_dev_attr_cc_major: *v = p.major; break;
    case mct_emu_dev_attr_cc_minor: *v = p.minor; break;
    case mct_emu_dev_attr_max_shared_per_block_optin: *v = (int)p.sharedMemPerBlockOptin; break;
    default: return fail(mct_emu_error_invalid_value, "cudaDeviceGetAttribute: attribute not emulated");
    }
    return mct_emu_success;
}

extern "C" mct_emu_error_t mct_emu_mem_get_info(size_t* free_bytes, size_t* total_bytes) {
    if (!free_bytes || !total_bytes) return fail(mct_emu_error_invalid_value, "cudaMemGetInfo: NULL output");
    *free_bytes = physical_bytes(1);
    *total_bytes = physical_bytes(0);
    return mct_emu_success;
}
