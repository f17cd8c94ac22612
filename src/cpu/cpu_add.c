/* SPDX-License-Identifier: BSD-3-Clause */
/** @file cpu_add.c  The CPU backend's methods for adding (bin, value) pairs from
 * host arrays, with OpenMP threads in the roles of the GPU's threads: atomic,
 * replicated (a replica per thread; integer adds checked for overflow), kahan
 * (compensated adds, each pair swapped by a 64-bit CAS), fixed (int64 atomics,
 * overflow detected) and sort_reduce (append, then sort). */
#include <stdlib.h>
#include <string.h>

#include "../common/backend.h"
#include "mctally/mct_arith.h"
#include "cpu_backend.h"

#ifdef _OPENMP
#include <omp.h>
#endif

static int thread_id(void) {
#ifdef _OPENMP
    return omp_get_thread_num();
#else
    return 0;
#endif
}

static void raise_flag(const mct_tally_view_t* v, unsigned flag) { __atomic_fetch_or(v->flags, flag, __ATOMIC_RELAXED); }

/* Float adds by CAS on the bit pattern, as the GPU's cas method: a NaN in the
 * bin compares equal to itself bitwise, so the loop always ends. NAME adds a
 * T through the unsigned integer U of its width. */
#define CPU_ATOMIC_ADD_FLOAT(NAME, T, U) \
    static void NAME(T* p, T v) { \
        U old = __atomic_load_n((U*)p, __ATOMIC_RELAXED), next; \
        do { \
            T cur; \
            memcpy(&cur, &old, sizeof cur); \
            cur += v; \
            memcpy(&next, &cur, sizeof next); \
        } while (!__atomic_compare_exchange_n((U*)p, &old, next, 1, __ATOMIC_RELAXED, __ATOMIC_RELAXED)); \
    }
CPU_ATOMIC_ADD_FLOAT(atomic_add_f64, double, uint64_t)
CPU_ATOMIC_ADD_FLOAT(atomic_add_f32, float, uint32_t)
#undef CPU_ATOMIC_ADD_FLOAT

/* Integer adds: mct_arith.h's conversion FROM_F64 (a value that does not fit
 * the type is dropped and flagged) and its overflow test ADD on the old value
 * the atomic returns, as on the GPU. The atomic adds through the unsigned U of
 * T's width, so that it wraps instead of overflowing. */
#define CPU_ADD_INT(NAME, T, U, FROM_F64, ADD) \
    static void NAME(const mct_tally_view_t* view, T* p, double v) { \
        T x = 0; \
        const unsigned bad = FROM_F64(v, &x); \
        if (bad) return raise_flag(view, bad); \
        const T old = (T)__atomic_fetch_add((U*)p, (U)x, __ATOMIC_RELAXED); \
        int overflow; \
        (void)ADD(old, x, &overflow); \
        if (overflow) raise_flag(view, MCT_TALLY_FLAG_OVERFLOW); \
    }
CPU_ADD_INT(add_i32, int32_t, uint32_t, mct_arith_i32_from_f64, mct_arith_add_i32)
CPU_ADD_INT(add_u64, uint64_t, uint64_t, mct_arith_u64_from_f64, mct_arith_add_u64)
#undef CPU_ADD_INT

/* One contribution to element k of `base` (bins or a replica), atomically. */
static void add_value(const mct_tally_view_t* view, void* base, int64_t k, double v) {
    switch (view->dtype) {
    case MCT_DTYPE_I32: add_i32(view, (int32_t*)base + k, v); break;
    case MCT_DTYPE_U64: add_u64(view, (uint64_t*)base + k, v); break;
    case MCT_DTYPE_F32: atomic_add_f32((float*)base + k, (float)v); break;
    default: atomic_add_f64((double*)base + k, v); break;
    }
}

/* kahan's compensated add into one (sum, comp) pair (mct_arith.h's, whose
 * steps the GPU does on the two words by separate atomics), the whole pair
 * swapped by CAS. */
static void kahan_add(mct_kahan_pair_t* p, double v) {
    uint64_t old = __atomic_load_n((uint64_t*)p, __ATOMIC_RELAXED), next;
    do next = mct_kahan_pack(mct_compensated_add_value(mct_kahan_unpack(old), v));
    while (!__atomic_compare_exchange_n((uint64_t*)p, &old, next, 1, __ATOMIC_RELAXED, __ATOMIC_RELAXED));
}

/* Fixed point: mct_arith.h's conversion and overflow rules, as on the GPU, so
 * both backends add the same integers and raise the same flags. An int64 add
 * that leaves the range (seen from the old value) raises OVERFLOW. */
static void fixed_add(const mct_tally_view_t* view, int64_t k, double v) {
    int64_t r = 0;
    const unsigned bad = mct_fixed_from_double(v, view->fixed_scale, &r);
    if (bad) return raise_flag(view, bad);
    const uint64_t old = __atomic_fetch_add((uint64_t*)view->bins + k, (uint64_t)r, __ATOMIC_RELAXED);
    int overflow;
    (void)mct_fixed_add_wrapping((int64_t)old, r, &overflow);
    if (overflow) raise_flag(view, MCT_TALLY_FLAG_OVERFLOW);
}

static void append_pair(const mct_tally_view_t* view, uint32_t bin, double v) {
    const unsigned long long i = __atomic_fetch_add(view->pair_count, 1ull, __ATOMIC_RELAXED);
    if (i >= (unsigned long long)view->pair_capacity) return raise_flag(view, MCT_TALLY_FLAG_OVERFLOW);
    mct_sort_pair_t* p = (mct_sort_pair_t*)view->pairs + i;
    p->bin = bin;
    p->pad = 0;
    p->value = v;
}

/* `salt`: the contribution's index, the key of its rounding-loss sampling. */
static void add_one(const mct_tally_view_t* view, uint32_t key, double v, uint64_t salt) {
    /* An f32 tally takes f32 contributions whatever the method, as on the GPU. */
    if (view->dtype == MCT_DTYPE_F32) v = (double)(float)v;
    if (view->loss_shadow && mct_loss_sampled(key, v, salt, view->loss_mask)) {
        atomic_add_f64(view->loss_shadow + MCT_LOSS_SHADOW_WORDS * key, v);
        atomic_add_f64(view->loss_shadow + MCT_LOSS_SHADOW_WORDS * key + 1, v * v);
    }
    switch (view->method) {
    case MCT_METHOD_REPLICATED: {
        /* A private replica when there is one per thread; shared replicas stay right through atomics. */
        const int64_t r = (int64_t)thread_id() % view->nreplicas;
        add_value(view, (char*)view->replicas + (size_t)(r * view->nbins) * mct_dtype_size(view->dtype), key, v);
        break;
    }
    case MCT_METHOD_KAHAN: kahan_add((mct_kahan_pair_t*)view->bins + key, v); break;
    case MCT_METHOD_FIXED: fixed_add(view, key, v); break;
    case MCT_METHOD_SORT_REDUCE: append_pair(view, key, v); break;
    default: add_value(view, view->bins, key, v); break;
    }
}

mct_status_t mct__cpu_add_device(const mct_tally_view_t* view, const void* keys, mct_key_type_t key_type,
                                 const double* values, int64_t n, int width, int64_t stride, void* stream,
                                 int64_t* writers) {
    (void)stream;
#ifdef _OPENMP
    *writers = omp_get_max_threads();
#else
    *writers = 1;
#endif
    if (n < 0 || width < 1 || (width > 1 && stride < n)) return MCT_STATUS_INVALID_VALUE;
    if (view->method == MCT_METHOD_REPLICATED && view->nreplicas < 1) return MCT_STATUS_INVALID_STATE;
    int out_of_range = 0;
    /* A fixed tally that asked for it (view->abs_max) keeps the largest
     * |value| passed (the bits of |v|, which order as the numbers do; NaN's
     * above +Inf's), dropped groups' included, as the device adds do
     * (mct_tally_last_abs_max). */
    const int keep_max = view->abs_max != NULL;
    uint64_t amax = 0;
#pragma omp parallel for schedule(static) reduction(| : out_of_range) reduction(max : amax)
    for (int64_t i = 0; i < n; ++i) {
        const uint32_t key = key_type == MCT_KEY_I64 ? mct_arith_key_from_i64(((const int64_t*)keys)[i])
                                                     : ((const uint32_t*)keys)[i];
        const int64_t first = (int64_t)key * width;
        if (keep_max)
            for (int c = 0; c < width; ++c) {
                uint64_t b;
                memcpy(&b, &values[(int64_t)c * stride + i], sizeof b);
                b &= UINT64_C(0x7fffffffffffffff);
                amax = b > amax ? b : amax;
            }
        if (first + width > view->nbins) { /* the whole group is dropped */
            out_of_range = 1;
            continue;
        }
        for (int c = 0; c < width; ++c)
            add_one(view, (uint32_t)(first + c), values[(int64_t)c * stride + i], ((uint64_t)i * (uint64_t)width + (uint64_t)c) ^ ((uint64_t)view->loss_salt << 40));
    }
    if (out_of_range) raise_flag(view, MCT_TALLY_FLAG_OUT_OF_RANGE);
    if (keep_max && amax) {
        unsigned long long old = __atomic_load_n(view->abs_max, __ATOMIC_RELAXED);
        while (old < amax &&
               !__atomic_compare_exchange_n(view->abs_max, &old, (unsigned long long)amax, 1, __ATOMIC_RELAXED, __ATOMIC_RELAXED))
            ;
    }
    return MCT_STATUS_SUCCESS;
}

mct_status_t mct__cpu_add_host(const mct_tally_view_t* view, const void* keys, mct_key_type_t key_type,
                               const double* values, int64_t n,
                               mct__scratch_t* scratch, void* stream, int64_t* writers) {
    (void)scratch;
    return mct__cpu_add_device(view, keys, key_type, values, n, 1, n, stream, writers);
}

/* Total order on pairs: by bin, then by the value's bit pattern. Any order of
 * appends ends in the same sequence, so each bin's sum is reproducible. */
static int compare_pairs(const void* a, const void* b) {
    const mct_sort_pair_t *p = a, *q = b;
    if (p->bin != q->bin) return p->bin < q->bin ? -1 : 1;
    uint64_t x, y;
    memcpy(&x, &p->value, sizeof x);
    memcpy(&y, &q->value, sizeof y);
    return (x > y) - (x < y);
}

mct_status_t mct__cpu_sort_reduce(const mct_tally_view_t* view, mct__scratch_t* scratch, void* stream) {
    (void)stream, (void)scratch;
    int64_t n = (int64_t)*view->pair_count;
    if (n > view->pair_capacity) n = view->pair_capacity;
    mct_sort_pair_t* pairs = view->pairs;
    qsort(pairs, (size_t)n, sizeof *pairs, compare_pairs);
    for (int64_t i = 0; i < n;) {
        const uint32_t bin = pairs[i].bin;
        double sum = 0.0;
        for (; i < n && pairs[i].bin == bin; ++i) sum += pairs[i].value;
        if (view->dtype == MCT_DTYPE_F32)
            ((float*)view->bins)[bin] += (float)sum;
        else
            ((double*)view->bins)[bin] += sum;
    }
    return MCT_STATUS_SUCCESS;
}
