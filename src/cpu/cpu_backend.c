/* SPDX-License-Identifier: BSD-3-Clause */
/** @file cpu_backend.c  Host memory backend of the tally handle (OpenMP). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cpu_backend.h"
#include "../common/take_bins.h"
#include "mctally/mct_arith.h"

#ifdef _OPENMP
#include <omp.h>
#endif

static int cpu_threads(void) {
#ifdef _OPENMP
    return omp_get_max_threads();
#else
    return 1;
#endif
}

static mct_status_t cpu_probe(int device, char* name, size_t size) {
    (void)device;
    snprintf(name, size, "CPU (%d OpenMP thread%s)", cpu_threads(), cpu_threads() == 1 ? "" : "s");
    return MCT_STATUS_SUCCESS;
}

static mct_status_t cpu_mem_info(int device, size_t* free_bytes, size_t* total_bytes) {
    (void)device;
    long pages = sysconf(_SC_PHYS_PAGES), avail = sysconf(_SC_AVPHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    if (pages <= 0 || page <= 0) return MCT_STATUS_INTERNAL_ERROR;
    *total_bytes = (size_t)pages * (size_t)page;
    *free_bytes = (size_t)(avail > 0 ? avail : pages) * (size_t)page;
    return MCT_STATUS_SUCCESS;
}

static mct_status_t cpu_alloc(int device, size_t bytes, void** out) {
    (void)device;
    *out = NULL;
    if (posix_memalign(out, 64, bytes ? bytes : 64) != 0) return MCT_STATUS_OUT_OF_MEMORY;
    return MCT_STATUS_SUCCESS;
}

static void cpu_release(void* ptr) { free(ptr); }

static mct_status_t cpu_zero(void* ptr, size_t bytes, void* stream) {
    (void)stream;
    memset(ptr, 0, bytes);
    return MCT_STATUS_SUCCESS;
}

static mct_status_t cpu_synchronize(void* stream) {
    (void)stream;
    return MCT_STATUS_SUCCESS;
}

static mct_status_t cpu_to_host(void* dst, const void* src, size_t bytes, void* stream) {
    (void)stream;
    memcpy(dst, src, bytes);
    return MCT_STATUS_SUCCESS;
}

/* Each bin sums its replicas in replica order: the result depends only on the
 * data, not on the number of OpenMP threads. Integer sums are checked
 * (mct_arith.h): any add out of the type's range raises OVERFLOW. */
#define MCT__CPU_REDUCE(T, ADD)                                                                 \
    do {                                                                                        \
        T* b = (T*)bins;                                                                        \
        const T* r = (const T*)replicas;                                                        \
        _Pragma("omp parallel for schedule(static) reduction(| : overflow)") for (int64_t k = 0; k < nbins; ++k) { \
            T s = b[k];                                                                         \
            for (int64_t i = 0; i < nreplicas; ++i) s = ADD(s, r[i * nbins + k], &overflow);    \
            b[k] = s;                                                                           \
        }                                                                                       \
    } while (0)

static float add_f32(float a, float b, int* overflow) { (void)overflow; return a + b; }
static double add_f64(double a, double b, int* overflow) { (void)overflow; return a + b; }
static int32_t add_i32(int32_t a, int32_t b, int* overflow) {
    int o;
    const int32_t r = mct_arith_add_i32(a, b, &o);
    *overflow |= o;
    return r;
}
static uint64_t add_u64(uint64_t a, uint64_t b, int* overflow) {
    int o;
    const uint64_t r = mct_arith_add_u64(a, b, &o);
    *overflow |= o;
    return r;
}

static mct_status_t cpu_reduce_replicas(void* bins, void* replicas, int64_t nbins, int64_t nreplicas,
                                        mct_dtype_t dtype, unsigned* flags, mct__scratch_t* scratch, void* stream) {
    (void)scratch;
    int overflow = 0;
    switch (dtype) {
    case MCT_DTYPE_I32: MCT__CPU_REDUCE(int32_t, add_i32); break;
    case MCT_DTYPE_U64: MCT__CPU_REDUCE(uint64_t, add_u64); break;
    case MCT_DTYPE_F32: MCT__CPU_REDUCE(float, add_f32); break;
    case MCT_DTYPE_F64: MCT__CPU_REDUCE(double, add_f64); break;
    default: return MCT_STATUS_UNKNOWN_DTYPE;
    }
    if (overflow) __atomic_fetch_or(flags, MCT_TALLY_FLAG_OVERFLOW, __ATOMIC_RELAXED);
    return cpu_zero(replicas, (size_t)(nbins * nreplicas) * mct_dtype_size(dtype), stream);
}

/* Bins [lo, hi) of mct_tally_take_sums's check (dst NULL: the flag bits
 * found) or take (dst: values written, bins zeroed). */
static unsigned cpu_take_range(const mct_tally_view_t* v, double* dst, int64_t lo, int64_t hi) {
    unsigned flags = 0;
    double x;
    if (!dst)
        for (int64_t k = lo; k < hi; ++k) flags |= mct__take_bin(v, k, &x);
    else
        for (int64_t k = lo; k < hi; ++k) {
            mct__take_bin(v, k, &dst[k]);
            mct__zero_bin(v, k);
        }
    return flags;
}

/* Large tallies are read by OpenMP threads in chunks (each bin's result is
 * the same); small ones in the calling thread, without a parallel region. */
#define MCT__CPU_TAKE_CHUNK (INT64_C(1) << 18)

static mct_status_t cpu_take_bins(const mct_tally_view_t* v, double* dst, void* stream) {
    (void)stream;
    const int64_t n = v->nbins, chunks = (n + MCT__CPU_TAKE_CHUNK - 1) / MCT__CPU_TAKE_CHUNK;
    unsigned flags = 0;
    if (chunks <= 1) {
        flags = cpu_take_range(v, dst, 0, n);
    } else {
#pragma omp parallel for schedule(static) reduction(| : flags)
        for (int64_t c = 0; c < chunks; ++c) {
            const int64_t lo = c * MCT__CPU_TAKE_CHUNK, hi = lo + MCT__CPU_TAKE_CHUNK < n ? lo + MCT__CPU_TAKE_CHUNK : n;
            flags |= cpu_take_range(v, dst, lo, hi);
        }
    }
    if (!dst && flags) __atomic_fetch_or(v->flags, flags, __ATOMIC_RELAXED);
    return MCT_STATUS_SUCCESS;
}

static int cpu_compute_capability(int device) {
    (void)device;
    return 0;
}

const mct__backend_ops_t mct__backend_cpu = {
    cpu_probe, cpu_mem_info, cpu_alloc, cpu_release, cpu_zero, cpu_synchronize, cpu_to_host, cpu_reduce_replicas,
    mct__cpu_add_host, mct__cpu_add_device, mct__cpu_sort_reduce, cpu_to_host, cpu_compute_capability, cpu_take_bins,
    NULL, NULL,
};
