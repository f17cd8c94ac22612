/* SPDX-License-Identifier: BSD-3-Clause */
/** @file tally.c  The tally handle: creation, device views, batch folding and
 * results. Written once against the backend interface (backend.h). */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "rounding_loss.h"
#include "take_bins.h"
#include "mctally/mct_combine.h"
#include "mctally/mct_config.h"
#include "mctally/mct_tally.h"
#include "plan.h"

#include <omp.h>

#define MCT_MAX_BINS (INT64_C(1) << 31)

struct mct_tally_s {
    mct_tally_desc_t desc; /* AUTO resolved */
    const mct__backend_ops_t* ops;
    void* stream;
    void* bins;     /* backend memory, B values of the current batch */
    void* replicas; /* backend memory, nreplicas * B values */
    int64_t nreplicas;
    int64_t writers; /* most threads declared or run adding at once (replicated's determinism) */
    mct__scratch_t scratch; /* staging, sort and reduction room, grown once (backend.h) */
    void* staging;  /* host copy of one batch's bins */
    int staging_pinned; /* staging came from ops->host_alloc */
    unsigned* flags; /* backend memory, a flag_block_t (the flag word first) */
    unsigned flags_seen;
    int keep_abs_max;    /* fixed: the array adds keep the batch's largest |value| (mct_tally_enable_abs_max) */
    double last_abs_max; /* the last ended batch's largest |value| (mct_tally_last_abs_max) */
    int abs_max_read;    /* a batch has ended since and last_abs_max holds its maximum */
    void* pairs;     /* sort_reduce: backend memory, pair_capacity pairs + a counter */
    /* Per-bin batch statistics: West's weighted running mean and M2 of the
     * per-history batch means, and exact raw sums. */
    double* mean;
    double* m2;
    double* fsum;    /* float tallies */
    int64_t* isum;   /* integer tallies */
    int64_t batches;
    int64_t histories;
    int last_batch;    /* staging holds the last closed batch, canonical (mct_tally_copy_sums) */
    mct__loss_t* loss; /* rounding-loss estimate (rounding_loss.c), NULL when off */
    mct_plan_info_t plan; /* how desc.method was chosen; its reasons written when first read */
    mct__plan_facts_t plan_facts;
    char device_name[256]; /* the backend's probe at create */
};

/* The batch's flag word and, for a fixed tally that keeps it, the bits of the
 * largest |value| its array adds read (mct_tally_view_t.abs_max), side by side
 * so that one copy at a batch end reads both. */
typedef struct {
    unsigned flags, pad;
    unsigned long long abs_max;
} flag_block_t;

/* The bytes of the flag block a batch end reads and zeroes. */
static size_t flag_bytes(const mct_tally_t t) { return t->keep_abs_max ? sizeof(flag_block_t) : sizeof(unsigned); }

mct__loss_t** mct__tally_loss_slot(mct_tally_t t, const mct__backend_ops_t** ops) {
    *ops = t->ops;
    return &t->loss;
}

void mct_tally_desc_init(mct_tally_desc_t* desc) {
    if (!desc) return;
    memset(desc, 0, sizeof *desc);
    desc->bins = 1;
    desc->dtype = MCT_DTYPE_F64;
    desc->method = MCT_METHOD_AUTO;
    desc->backend = MCT_BACKEND_AUTO;
    desc->device = MCT_DEVICE_CURRENT;
    desc->fixed_frac_bits = 32;
    desc->pair_capacity = INT64_C(1) << 24;
    desc->determinism = MCT_NOT_GUARANTEED;
    desc->plan_mode = MCT_PLAN_ESTIMATE;
    desc->plan_budget_s = 0.25;
    desc->key_pattern = MCT_PATTERN_UNKNOWN;
    desc->width = 1;
    desc->adds = MCT_ADDS_ARRAYS;
}

const char* mct_version(void) { return MCT_VERSION_STRING; }

static int is_integer(mct_dtype_t d) { return d == MCT_DTYPE_I32 || d == MCT_DTYPE_U64; }

static size_t bins_bytes(const mct_tally_t t) {
    return (size_t)t->desc.bins * mct_method_storage_size(t->desc.method, t->desc.dtype);
}

/* sort_reduce's pairs, followed by the 8-byte append counter. */
static size_t pairs_bytes(const mct_tally_t t) {
    return t->desc.method == MCT_METHOD_SORT_REDUCE
               ? (size_t)t->desc.pair_capacity * sizeof(mct_sort_pair_t) + sizeof(unsigned long long)
               : 0;
}

static mct_status_t validate_desc(const mct_tally_desc_t* d) {
    if (d->method != MCT_METHOD_AUTO && (unsigned)d->method >= MCT_METHOD_COUNT) return MCT_STATUS_UNKNOWN_METHOD;
    if ((unsigned)d->dtype >= MCT_DTYPE_COUNT) return MCT_STATUS_UNKNOWN_DTYPE;
    if ((unsigned)d->backend >= MCT_BACKEND_COUNT) return MCT_STATUS_UNKNOWN_BACKEND;
    if (d->bins < 1 || d->bins > MCT_MAX_BINS || d->device < MCT_DEVICE_CURRENT) return MCT_STATUS_INVALID_VALUE;
    if (d->fixed_frac_bits < MCT_FIXED_FRAC_BITS_MIN || d->fixed_frac_bits > MCT_FIXED_FRAC_BITS_MAX)
        return MCT_STATUS_INVALID_VALUE;
    if (!(d->fixed_bound >= 0.0 && d->fixed_bound <= DBL_MAX)) return MCT_STATUS_INVALID_VALUE;
    if ((d->method == MCT_METHOD_SORT_REDUCE || d->method == MCT_METHOD_AUTO) &&
        (d->pair_capacity < 1 || d->pair_capacity > (INT64_C(1) << 40)))
        return MCT_STATUS_INVALID_VALUE;
    return mct__plan_validate(d);
}

/* The host copy of a batch: the method's storage, then rewritten in place as
 * 8-byte exact or double values (canonicalize_staged). */
static size_t staging_bytes(const mct_tally_t t) {
    const size_t canonical = (size_t)t->desc.bins * 8;
    return bins_bytes(t) > canonical ? bins_bytes(t) : canonical;
}

static mct_status_t alloc_host_stats(mct_tally_t t) {
    size_t n = (size_t)t->desc.bins;
    t->staging = t->ops->host_alloc ? t->ops->host_alloc(staging_bytes(t)) : NULL;
    t->staging_pinned = t->staging != NULL;
    if (!t->staging) t->staging = malloc(staging_bytes(t));
    t->mean = calloc(n, sizeof(double));
    t->m2 = calloc(n, sizeof(double));
    if (is_integer(t->desc.dtype))
        t->isum = calloc(n, sizeof(int64_t));
    else
        t->fsum = calloc(n, sizeof(double));
    if (!t->staging || !t->mean || !t->m2 || (!t->isum && !t->fsum)) return MCT_STATUS_OUT_OF_MEMORY;
    return MCT_STATUS_SUCCESS;
}

/* Refuses tallies whose bins (backend memory, dev_free bytes free) or
 * statistics (host memory, 3 doubles and one staged value of at least 8 bytes
 * per bin) cannot fit, before allocating any. On the CPU backend both live in
 * the same memory. */
static mct_status_t check_memory(const mct_tally_t t, size_t dev_free) {
    size_t host_free = 0, total = 0;
    mct_status_t st = t->ops == &mct__backend_cpu ? MCT_STATUS_SUCCESS : mct__backend_cpu.mem_info(0, &host_free, &total);
    if (st) return st;
    if (t->ops == &mct__backend_cpu) host_free = dev_free;
    const double host_need = (double)t->desc.bins * 3.0 * sizeof(double) + (double)staging_bytes(t);
    const double dev_need = (double)bins_bytes(t) + (double)pairs_bytes(t);
    if (t->ops == &mct__backend_cpu) return host_need + dev_need > (double)host_free ? MCT_STATUS_TOO_LARGE : MCT_STATUS_SUCCESS;
    return (host_need > (double)host_free || dev_need > (double)dev_free) ? MCT_STATUS_TOO_LARGE : MCT_STATUS_SUCCESS;
}

mct_status_t mct_tally_create(mct_tally_t* out, const mct_tally_desc_t* desc) {
    if (!out || !desc) return MCT_STATUS_NULL_POINTER;
    *out = NULL;
    mct_status_t st = validate_desc(desc);
    if (st) return st;
    mct_tally_desc_t d = *desc;
    mct__fixed_bound_resolve(&d); /* a declared bound sets the scale */
    d.backend = mct__backend_resolve(d.backend, d.device);
    if ((st = mct_method_supports(d.method, d.dtype, d.backend))) return st;
    const mct__backend_ops_t* ops = mct__backend_ops(d.backend);
    char name[256];
    if (!ops || ops->probe(d.device, name, sizeof name) != MCT_STATUS_SUCCESS)
        return MCT_STATUS_BACKEND_UNAVAILABLE;
    /* The memory free, asked once: the planner judges replicas by it and the
     * tally's own sizes are checked against it. */
    size_t dev_free = 0, total = 0;
    if ((st = ops->mem_info(d.device, &dev_free, &total))) return st;
    /* AUTO becomes one concrete method here, before any view or add exists. */
    mct_plan_info_t plan;
    mct__plan_facts_t facts;
    if ((st = mct__plan_resolved(&d, name, &dev_free, 0, &facts, &plan))) return st;
    d.method = plan.method;
    d.key_sample = NULL;
    d.key_sample_n = 0;

    mct_tally_t t = calloc(1, sizeof *t);
    if (!t) return MCT_STATUS_OUT_OF_MEMORY;
    t->desc = d;
    t->ops = ops;
    t->plan = plan;
    t->plan_facts = facts;
    memcpy(t->device_name, name, sizeof name);
    if ((st = check_memory(t, dev_free))) goto fail;
    if ((st = alloc_host_stats(t))) goto fail;
    if ((st = ops->alloc(d.device, bins_bytes(t), &t->bins))) goto fail;
    if ((st = ops->zero(t->bins, bins_bytes(t), t->stream))) goto fail;
    if ((st = ops->alloc(d.device, sizeof(flag_block_t), (void**)&t->flags))) goto fail;
    if ((st = ops->zero(t->flags, sizeof(flag_block_t), t->stream))) goto fail;
    if (pairs_bytes(t) && (st = ops->alloc(d.device, pairs_bytes(t), &t->pairs))) goto fail;
    if (pairs_bytes(t) && (st = ops->zero(t->pairs, pairs_bytes(t), t->stream))) goto fail;
    /* The zeroing runs on the default stream; a caller's non-blocking stream
     * would not wait for it. */
    if ((st = ops->synchronize(t->stream))) goto fail;
    t->scratch.device = d.device;
    *out = t;
    return MCT_STATUS_SUCCESS;
fail:
    mct_tally_destroy(t);
    return st;
}

void mct_tally_destroy(mct_tally_t t) {
    if (!t) return;
    if (t->ops) {
        mct__loss_free(t->loss, t->ops);
        t->ops->release(t->bins);
        t->ops->release(t->replicas);
        t->ops->release(t->flags);
        t->ops->release(t->pairs);
        t->ops->release(t->scratch.ptr);
    }
    if (t->staging_pinned)
        t->ops->host_release(t->staging);
    else
        free(t->staging);
    free(t->mean);
    free(t->m2);
    free(t->fsum);
    free(t->isum);
    free(t);
}

mct_status_t mct_tally_get_desc(mct_tally_t t, mct_tally_desc_t* desc) {
    if (!t || !desc) return MCT_STATUS_NULL_POINTER;
    *desc = t->desc;
    return MCT_STATUS_SUCCESS;
}

mct_status_t mct_tally_plan_info(mct_tally_t t, mct_plan_info_t* info) {
    if (!t || !info) return MCT_STATUS_NULL_POINTER;
    if (!t->plan.reason[0]) {
        const mct_status_t st = mct__plan_explain(&t->desc, t->device_name, &t->plan_facts, &t->plan);
        if (st) return st;
    }
    *info = t->plan;
    return MCT_STATUS_SUCCESS;
}

mct_status_t mct_tally_device_name(mct_tally_t t, char* buf, size_t size) {
    if (!t || !buf) return MCT_STATUS_NULL_POINTER;
    if (size == 0) return MCT_STATUS_INVALID_VALUE;
    return t->ops->probe(t->desc.device, buf, size);
}

mct_status_t mct_tally_set_stream(mct_tally_t t, void* stream) {
    if (!t) return MCT_STATUS_NULL_POINTER;
    t->stream = stream;
    return MCT_STATUS_SUCCESS;
}

mct_status_t mct_tally_get_stream(mct_tally_t t, void** stream) {
    if (!t || !stream) return MCT_STATUS_NULL_POINTER;
    *stream = t->stream;
    return MCT_STATUS_SUCCESS;
}

mct_status_t mct_tally_max_replicas(mct_tally_t t, double fraction, int64_t* out) {
    if (!t || !out) return MCT_STATUS_NULL_POINTER;
    if (!(fraction > 0.0 && fraction <= 1.0)) return MCT_STATUS_INVALID_VALUE;
    size_t free_bytes = 0, total_bytes = 0;
    mct_status_t st = t->ops->mem_info(t->desc.device, &free_bytes, &total_bytes);
    if (st) return st;
    /* Replicas already held count as free: reserving again replaces them. */
    free_bytes += (size_t)t->nreplicas * bins_bytes(t);
    *out = (int64_t)((double)free_bytes * fraction / (double)bins_bytes(t));
    return MCT_STATUS_SUCCESS;
}

mct_status_t mct_tally_reserve_replicas(mct_tally_t t, int64_t nreplicas) {
    if (!t) return MCT_STATUS_NULL_POINTER;
    if (t->desc.method != MCT_METHOD_REPLICATED) return MCT_STATUS_INVALID_STATE;
    if (nreplicas < 1) return MCT_STATUS_INVALID_VALUE;
    if (nreplicas <= t->nreplicas) return MCT_STATUS_SUCCESS;
    int64_t limit = 0;
    mct_status_t st = mct_tally_max_replicas(t, 0.9, &limit);
    if (st) return st;
    if (nreplicas > limit) return MCT_STATUS_TOO_LARGE;
    /* Replicas hold no data between batches (end_batch zeroes them), so they
     * can be replaced without a copy. */
    t->ops->release(t->replicas);
    t->replicas = NULL;
    t->nreplicas = 0;
    if ((uint64_t)nreplicas > SIZE_MAX / bins_bytes(t)) return MCT_STATUS_TOO_LARGE;
    size_t bytes = (size_t)nreplicas * bins_bytes(t);
    if ((st = t->ops->alloc(t->desc.device, bytes, &t->replicas))) return st;
    if ((st = t->ops->zero(t->replicas, bytes, t->stream))) return st;
    if ((st = t->ops->synchronize(t->stream))) return st;
    t->nreplicas = nreplicas;
    return MCT_STATUS_SUCCESS;
}

mct_status_t mct_tally_view(mct_tally_t t, mct_tally_view_t* v) {
    if (!t || !v) return MCT_STATUS_NULL_POINTER;
    v->bins = t->bins;
    v->replicas = t->replicas;
    v->nbins = t->desc.bins;
    v->nreplicas = t->nreplicas;
    v->dtype = t->desc.dtype;
    v->method = t->desc.method;
    v->fixed_frac_bits = t->desc.fixed_frac_bits;
    v->fixed_scale = ldexp(1.0, t->desc.fixed_frac_bits);
    v->flags = t->flags;
    v->pairs = t->pairs;
    v->pair_capacity = t->pairs ? t->desc.pair_capacity : 0;
    v->pair_count = t->pairs ? (unsigned long long*)((char*)t->pairs + pairs_bytes(t) - sizeof(unsigned long long))
                             : NULL;
    v->abs_max = t->keep_abs_max ? &((flag_block_t*)t->flags)->abs_max : NULL;
    mct__loss_view(t->loss, v);
    return MCT_STATUS_SUCCESS;
}

/* Replicated with no replicas yet: a private copy per CPU thread, or up to
 * 4096 copies shared (atomically) by the GPU's threads, but no more than
 * 256 MiB of them: every copy is read again by the reduction. */
static mct_status_t ensure_replicas(mct_tally_t t) {
    if (t->desc.method != MCT_METHOD_REPLICATED || t->nreplicas > 0) return MCT_STATUS_SUCCESS;
    const int64_t fit = (int64_t)(((size_t)256 << 20) / bins_bytes(t));
    int64_t want = t->desc.backend == MCT_BACKEND_CPU ? omp_get_max_threads() : (fit < 4096 ? fit : 4096), limit = 0;
    if (want < 1) want = 1;
    mct_status_t st = mct_tally_max_replicas(t, 0.5, &limit);
    if (st) return st;
    return mct_tally_reserve_replicas(t, want < limit ? want : (limit > 0 ? limit : 1));
}

/* What an add starts with: the replicas it may need, then the view the backend
 * adds through. */
static mct_status_t add_view(mct_tally_t t, mct_tally_view_t* v) {
    const mct_status_t st = ensure_replicas(t);
    if (!st) mct_tally_view(t, v);
    return st;
}

/* The most threads that have added so far: it only grows. */
static void note_writers(mct_tally_t t, int64_t writers) {
    if (writers > t->writers) t->writers = writers;
}

mct_status_t mct_tally_add(mct_tally_t t, const uint32_t* keys, const double* values, int64_t n) {
    return mct_tally_add_keys(t, keys, MCT_KEY_U32, values, n);
}

mct_status_t mct_tally_add_keys(mct_tally_t t, const void* keys, mct_key_type_t key_type, const double* values,
                                int64_t n) {
    if (!t || (n > 0 && (!keys || !values))) return MCT_STATUS_NULL_POINTER;
    if (n < 0 || (key_type != MCT_KEY_U32 && key_type != MCT_KEY_I64)) return MCT_STATUS_INVALID_VALUE;
    if (n == 0) return MCT_STATUS_SUCCESS;
    mct_tally_view_t v;
    mct_status_t st = add_view(t, &v);
    if (st) return st;
    int64_t writers = 0;
    st = t->ops->add_host(&v, keys, key_type, values, n, &t->scratch, t->stream, &writers);
    note_writers(t, writers);
    return st;
}

mct_status_t mct_tally_add_device_keys(mct_tally_t t, const void* keys, mct_key_type_t key_type, const double* values,
                                       int64_t n, int width, int64_t stride) {
    if (!t || (n > 0 && (!keys || !values))) return MCT_STATUS_NULL_POINTER;
    if (n < 0 || width < 1 || (width > 1 && stride < n) || (key_type != MCT_KEY_U32 && key_type != MCT_KEY_I64))
        return MCT_STATUS_INVALID_VALUE;
    if (n == 0) return MCT_STATUS_SUCCESS;
    mct_tally_view_t v;
    mct_status_t st = add_view(t, &v);
    if (st) return st;
    int64_t writers = 0;
    st = t->ops->add_device(&v, keys, key_type, values, n, width, stride, t->stream, &writers);
    note_writers(t, writers);
    return st;
}

mct_status_t mct_tally_add_device_grouped(mct_tally_t t, const uint32_t* keys, const double* values, int64_t n,
                                          int width, int64_t stride) {
    return mct_tally_add_device_keys(t, keys, MCT_KEY_U32, values, n, width, stride);
}

mct_status_t mct_tally_set_writers(mct_tally_t t, int64_t writers) {
    if (!t) return MCT_STATUS_NULL_POINTER;
    if (writers < 1) return MCT_STATUS_INVALID_VALUE;
    note_writers(t, writers);
    return MCT_STATUS_SUCCESS;
}

mct_status_t mct_tally_replicas(mct_tally_t t, int64_t* nreplicas, int64_t* writers) {
    if (!t) return MCT_STATUS_NULL_POINTER;
    if (nreplicas) *nreplicas = t->nreplicas;
    if (writers) *writers = t->writers;
    return MCT_STATUS_SUCCESS;
}

/* replicated keeps its method's promise only while every replica has a single
 * writer: shared replicas are added to atomically, in an order that varies.
 * Without a declared or observed writer count, reserving R replicas states R
 * writers (the contract of mct_tally_reserve_replicas). */
mct_status_t mct_tally_determinism(mct_tally_t t, mct_determinism_t* det) {
    if (!t || !det) return MCT_STATUS_NULL_POINTER;
    *det = mct_method_determinism(t->desc.method, t->desc.dtype);
    if (t->desc.method == MCT_METHOD_REPLICATED && *det == MCT_RUN_TO_RUN &&
        (t->nreplicas < 1 || t->writers > t->nreplicas))
        *det = MCT_NOT_GUARANTEED;
    return MCT_STATUS_SUCCESS;
}

mct_status_t mct_tally_add_device(mct_tally_t t, const uint32_t* keys, const double* values, int64_t n) {
    return mct_tally_add_device_grouped(t, keys, values, n, 1, n);
}

mct_status_t mct_tally_flags(mct_tally_t t, unsigned* flags) {
    if (!t || !flags) return MCT_STATUS_NULL_POINTER;
    *flags = t->flags_seen;
    return MCT_STATUS_SUCCESS;
}

static mct_batch_kind_t batch_kind(const mct_tally_t t) {
    return is_integer(t->desc.dtype) || t->desc.method == MCT_METHOD_FIXED ? MCT_BATCH_EXACT : MCT_BATCH_FLOAT;
}

/* Tallies from 2^16 bins (a dose grid, a PET LOR map) are converted and
 * folded by OpenMP threads: a serial fold of 10^6 bins costs milliseconds a
 * batch, a parallel region microseconds. Each bin's arithmetic, and so every
 * result, is the same as in order. */
#define MCT_PARALLEL_BINS (INT64_C(1) << 16)

/* Widens 4-byte values to 8 bytes in place: bins [ceil(h/2), h) read bytes
 * below 4h and write bytes from 8 ceil(h/2) >= 4h up, so each such range is
 * converted in parallel, from the top half down, without a bin being
 * overwritten before it is read. */
#define MCT_WIDEN_IN_PLACE(S, BINS, FROM, TO)                                                       \
    do {                                                                                              \
        const FROM* from_ = (const FROM*)(S);                                                         \
        TO* to_ = (TO*)(S);                                                                           \
        int64_t hi_ = (BINS);                                                                         \
        while (hi_ > 1) {                                                                             \
            const int64_t lo_ = (hi_ + 1) / 2;                                                        \
            _Pragma("omp parallel for schedule(static) if (hi_ - lo_ >= MCT_PARALLEL_BINS)")          \
            for (int64_t k = lo_; k < hi_; ++k) to_[k] = (TO)from_[k];                                \
            hi_ = lo_;                                                                                \
        }                                                                                             \
        if ((BINS) > 0) to_[0] = (TO)from_[0];                                                        \
    } while (0)

/* Rewrites the staged batch (the method's storage, host copy) in place as its
 * combinable form (mct_combine.h): int64 for integer tallies and fixed, double
 * otherwise (MCT_WIDEN_IN_PLACE for 4-byte types). Returns OVERFLOW's flag when a bin has no
 * exact int64 value (a u64 bin past INT64_MAX, a fixed bin at -2^63): it
 * becomes MCT_BATCH_EXACT_OVERFLOW. */
static unsigned canonicalize_staged(mct_tally_t t) {
    void* s = t->staging;
    int64_t* exact = s;
    double* value = s;
    const int64_t bins = t->desc.bins;
    unsigned flags = 0;
    const int par = bins >= MCT_PARALLEL_BINS;
    if (t->desc.method == MCT_METHOD_FIXED) {
#pragma omp parallel for schedule(static) reduction(| : flags) if (par)
        for (int64_t k = 0; k < bins; ++k)
            if (exact[k] == MCT_BATCH_EXACT_OVERFLOW) flags |= MCT_TALLY_FLAG_OVERFLOW;
        return flags;
    }
    if (t->desc.method == MCT_METHOD_KAHAN || t->desc.method == MCT_METHOD_KAHAN_NAIVE) {
#pragma omp parallel for schedule(static) if (par)
        for (int64_t k = 0; k < bins; ++k) {
            const mct_kahan_pair_t p = ((const mct_kahan_pair_t*)s)[k];
            value[k] = (double)p.sum - (double)p.comp;
        }
        return 0;
    }
    switch (t->desc.dtype) {
    case MCT_DTYPE_I32: MCT_WIDEN_IN_PLACE(s, bins, int32_t, int64_t); break;
    case MCT_DTYPE_U64:
#pragma omp parallel for schedule(static) reduction(| : flags) if (par)
        for (int64_t k = 0; k < bins; ++k) {
            const uint64_t u = ((const uint64_t*)s)[k];
            if (u > (uint64_t)INT64_MAX) flags |= MCT_TALLY_FLAG_OVERFLOW;
            exact[k] = u > (uint64_t)INT64_MAX ? MCT_BATCH_EXACT_OVERFLOW : (int64_t)u;
        }
        break;
    case MCT_DTYPE_F32: MCT_WIDEN_IN_PLACE(s, bins, float, double); break;
    default: break; /* f64: already doubles */
    }
    return flags;
}

/* The range a combined exact bin of the tally's type must lie in. */
static void exact_range(const mct_tally_t t, int64_t* lo, int64_t* hi) {
    *lo = MCT_BATCH_EXACT_OVERFLOW + 1;
    *hi = INT64_MAX;
    if (t->desc.method == MCT_METHOD_FIXED) return;
    if (t->desc.dtype == MCT_DTYPE_I32) *lo = INT32_MIN, *hi = INT32_MAX;
    if (t->desc.dtype == MCT_DTYPE_U64) *lo = 0;
}

/* Folds the canonical batch (canonicalize_staged, combined with other
 * processes' where it is) of `histories` histories. Exact bins: a bin out of
 * its type's range sets *overflow; a marked bin (no exact value) also leaves
 * that bin's statistics as they were; integer tallies' exact int64 sums take
 * the batch by a checked add, a sum past the int64 range leaving that bin's
 * sum as it was and setting *overflow. Float bins are folded whatever they
 * hold; returns 1 when one is not finite. The rounding-loss estimate takes the
 * same batch. */
static int fold_batch(mct_tally_t t, int64_t histories, int* overflow) {
    int nonfinite = 0, ovf = 0;
    const int exact_kind = batch_kind(t) == MCT_BATCH_EXACT;
    const int64_t* exact = t->staging;
    double* value = t->staging;
    const double scale = ldexp(1.0, t->desc.method == MCT_METHOD_FIXED ? t->desc.fixed_frac_bits : 0);
    int64_t lo, hi;
    exact_range(t, &lo, &hi);
    double w = (double)histories, wsum = (double)(t->histories + histories);
#pragma omp parallel for schedule(static) reduction(| : nonfinite, ovf) if (t->desc.bins >= MCT_PARALLEL_BINS)
    for (int64_t k = 0; k < t->desc.bins; ++k) {
        double s;
        if (exact_kind) {
            const int64_t v = exact[k];
            if (v == MCT_BATCH_EXACT_OVERFLOW || v < lo || v > hi) ovf = 1;
            if (v == MCT_BATCH_EXACT_OVERFLOW) continue;
            s = (double)v / scale;
            int64_t next = 0;
            if (t->isum) {
                if (!__builtin_add_overflow(t->isum[k], v, &next))
                    t->isum[k] = next;
                else
                    ovf = 1;
            } else
                t->fsum[k] += s;
        } else {
            s = value[k];
            t->fsum[k] += s;
        }
        if (!isfinite(s)) nonfinite = 1;
        double x = s / w, delta = x - t->mean[k];
        t->mean[k] += delta * (w / wsum);
        t->m2[k] += w * delta * (x - t->mean[k]);
    }
    if (ovf) *overflow = 1;
    t->batches += 1;
    t->histories += histories;
    if (t->loss && !exact_kind) mct__loss_fold(t->loss, value);
    return nonfinite;
}

/* Reads the batch's flag word and, where the tally keeps it, the batch's
 * largest |value| (into last_abs_max), in one copy. */
static mct_status_t read_flags(mct_tally_t t, unsigned* flags) {
    flag_block_t fb = {0, 0, 0};
    const mct_status_t st = t->ops->to_host(&fb, t->flags, flag_bytes(t), t->stream);
    *flags = fb.flags;
    if (!st && t->keep_abs_max) {
        memcpy(&t->last_abs_max, &fb.abs_max, sizeof t->last_abs_max);
        t->abs_max_read = 1;
    }
    return st;
}

/* Reads and clears the batch's flag word (and maximum). */
static mct_status_t take_flags(mct_tally_t t, unsigned* flags) {
    mct_status_t st = read_flags(t, flags);
    if (!st) st = t->ops->zero(t->flags, flag_bytes(t), t->stream);
    t->flags_seen |= *flags;
    return st;
}

mct_status_t mct_tally_enable_abs_max(mct_tally_t t) {
    if (!t) return MCT_STATUS_NULL_POINTER;
    if (t->desc.method != MCT_METHOD_FIXED) return MCT_STATUS_NOT_SUPPORTED;
    if (t->keep_abs_max) return MCT_STATUS_SUCCESS;
    /* The word beside the flags starts at zero (the tally's creation zeroed the block). */
    t->keep_abs_max = 1;
    return MCT_STATUS_SUCCESS;
}

mct_status_t mct_tally_last_abs_max(mct_tally_t t, double* abs_max) {
    if (!t || !abs_max) return MCT_STATUS_NULL_POINTER;
    if (t->desc.method != MCT_METHOD_FIXED) return MCT_STATUS_NOT_SUPPORTED;
    if (!t->keep_abs_max || !t->abs_max_read) return MCT_STATUS_INVALID_STATE;
    *abs_max = t->last_abs_max;
    return MCT_STATUS_SUCCESS;
}

static mct_status_t finish_sort_reduce(mct_tally_t t) {
    if (!t->pairs) return MCT_STATUS_SUCCESS;
    if (!t->ops->sort_reduce) return MCT_STATUS_NOT_SUPPORTED;
    mct_tally_view_t v;
    mct_tally_view(t, &v);
    mct_status_t st = t->ops->sort_reduce(&v, &t->scratch, t->stream);
    return st ? st : t->ops->zero(v.pair_count, sizeof(unsigned long long), t->stream);
}

mct_status_t mct_tally_flush(mct_tally_t t) {
    if (!t) return MCT_STATUS_NULL_POINTER;
    mct_status_t st = finish_sort_reduce(t);
    if (!st && t->nreplicas > 0)
        st = t->ops->reduce_replicas(t->bins, t->replicas, t->desc.bins, t->nreplicas, t->desc.dtype, t->flags, &t->scratch,
                                     t->stream);
    return st;
}

mct_status_t mct_tally_batch_shape(mct_tally_t t, mct_batch_t* b) {
    if (!t || !b) return MCT_STATUS_NULL_POINTER;
    memset(b, 0, sizeof *b);
    b->bins = t->desc.bins;
    b->dtype = t->desc.dtype;
    b->method = t->desc.method;
    b->kind = batch_kind(t);
    b->fixed_frac_bits = t->desc.method == MCT_METHOD_FIXED ? t->desc.fixed_frac_bits : 0;
    if (b->kind == MCT_BATCH_EXACT) exact_range(t, &b->exact_min, &b->exact_max);
    mct__loss_shadow(t->loss, 0, &b->shadow_words);
    b->backend = t->desc.backend;
    b->device = t->desc.device;
    b->stream = t->stream;
    return MCT_STATUS_SUCCESS;
}

/* Drops an open batch whose combination failed, so that the tally is left
 * between batches as after any other batch end (the rest of the run is over
 * on every process anyway). */
static void drop_batch(mct_tally_t t) {
    int64_t words = 0;
    t->last_batch = 0;
    double* shadow = mct__loss_shadow(t->loss, 0, &words);
    t->ops->zero(t->bins, bins_bytes(t), t->stream);
    if (shadow) t->ops->zero(shadow, (size_t)words * sizeof(double), t->stream);
    t->ops->synchronize(t->stream);
}

/* The batch end of both entries: without a combiner, the batch of this
 * process alone (histories >= 1, refused before anything is read when the
 * counts would pass INT64_MAX); with one, agreed, then combined (mct_combine.h). */
static mct_status_t end_batch(mct_tally_t t, int64_t histories, const mct_batch_combiner_t* c) {
    if (!t) return MCT_STATUS_NULL_POINTER;
    if (c && (!c->agree || !c->reduce_host)) return MCT_STATUS_NULL_POINTER;
    if (histories < (c ? 0 : 1)) return MCT_STATUS_INVALID_VALUE;
    mct_status_t st;
    unsigned flags = 0;
    mct_batch_t b;
    int reduced = 0;
    if (!c) {
        /* The counters stay exact: a batch that would take them past INT64_MAX
         * is refused before anything is read, and stays in the bins. */
        if (histories > INT64_MAX - t->histories || t->batches == INT64_MAX) return MCT_STATUS_OVERFLOW;
        if ((st = mct_tally_flush(t)) || (st = take_flags(t, &flags))) return st;
    } else {
        mct_tally_batch_shape(t, &b);
        st = mct_tally_flush(t);
        if (!st) st = take_flags(t, &flags);
        b.status = st;
        b.flags = flags;
        b.histories = histories;
        const mct_status_t agreed = c->agree(c->ctx, &b);
        if (st || agreed || b.status) {
            drop_batch(t);
            return st ? st : agreed ? agreed : b.status;
        }
        flags = b.flags;
        histories = b.histories;
        if (histories == 0) {
            drop_batch(t);
            return MCT_STATUS_INVALID_VALUE;
        }
        /* As above, on every process alike: the batch stays in the bins. */
        if (histories < 0 || histories > INT64_MAX - t->histories || t->batches == INT64_MAX) return MCT_STATUS_OVERFLOW;
        b.device_bins = t->bins;
        b.device_shadow = mct__loss_shadow(t->loss, 0, &b.shadow_words);
        if (c->reduce_device && (st = c->reduce_device(c->ctx, &b, &reduced))) return st;
    }
    t->last_batch = 0;
    if ((st = t->ops->to_host(t->staging, t->bins, bins_bytes(t), t->stream))) return st;
    if ((st = t->ops->zero(t->bins, bins_bytes(t), t->stream))) return st;
    if (t->loss && (st = mct__loss_take(t->loss, t->ops, t->stream))) return st;
    flags |= canonicalize_staged(t);
    if (c && !reduced) {
        if (b.kind == MCT_BATCH_EXACT)
            b.exact = t->staging;
        else
            b.values = t->staging;
        b.shadow = mct__loss_shadow(t->loss, 1, &b.shadow_words);
        if ((st = c->reduce_host(c->ctx, &b))) return st;
    }
    int sum_overflow = 0;
    const int nonfinite = fold_batch(t, histories, &sum_overflow);
    t->last_batch = 1;
    if (sum_overflow) flags |= MCT_TALLY_FLAG_OVERFLOW;
    t->flags_seen |= flags;
    if (flags & MCT_TALLY_FLAG_OUT_OF_RANGE) return MCT_STATUS_BIN_OUT_OF_RANGE;
    if (flags & MCT_TALLY_FLAG_OVERFLOW) return MCT_STATUS_OVERFLOW;
    if (nonfinite || (flags & MCT_TALLY_FLAG_NONFINITE)) return MCT_STATUS_NONFINITE_VALUE;
    return MCT_STATUS_SUCCESS;
}

mct_status_t mct_tally_end_batch(mct_tally_t t, int64_t histories) { return end_batch(t, histories, NULL); }

mct_status_t mct_tally_end_batch_combined(mct_tally_t t, int64_t histories, const mct_batch_combiner_t* c) {
    if (!c) return MCT_STATUS_NULL_POINTER;
    return end_batch(t, histories, c);
}

mct_status_t mct_tally_counts(mct_tally_t t, int64_t* batches, int64_t* histories) {
    if (!t) return MCT_STATUS_NULL_POINTER;
    if (batches) *batches = t->batches;
    if (histories) *histories = t->histories;
    return MCT_STATUS_SUCCESS;
}

mct_status_t mct_tally_results(mct_tally_t t, double* mean, double* rel_err) {
    if (!t) return MCT_STATUS_NULL_POINTER;
    if (t->batches < 1) return MCT_STATUS_INVALID_STATE;
    for (int64_t k = 0; k < t->desc.bins; ++k) {
        double m = t->mean[k];
        if (mean) mean[k] = m;
        if (!rel_err) continue;
        if (t->batches < 2) {
            rel_err[k] = NAN;
            continue;
        }
        /* Standard error of the mean from the weighted spread of batch means. */
        double se = sqrt(t->m2[k] / (double)t->histories / (double)(t->batches - 1));
        rel_err[k] = (se == 0.0 && m == 0.0) ? 0.0 : se / fabs(m);
    }
    return MCT_STATUS_SUCCESS;
}

mct_status_t mct_tally_sums(mct_tally_t t, double* sums) {
    if (!t || !sums) return MCT_STATUS_NULL_POINTER;
    if (t->batches < 1) return MCT_STATUS_INVALID_STATE;
    for (int64_t k = 0; k < t->desc.bins; ++k) sums[k] = t->isum ? (double)t->isum[k] : t->fsum[k];
    return MCT_STATUS_SUCCESS;
}

mct_status_t mct_tally_sums_i64(mct_tally_t t, int64_t* sums) {
    if (!t || !sums) return MCT_STATUS_NULL_POINTER;
    if (!t->isum) return MCT_STATUS_NOT_SUPPORTED;
    if (t->batches < 1) return MCT_STATUS_INVALID_STATE;
    memcpy(sums, t->isum, (size_t)t->desc.bins * sizeof(int64_t));
    return MCT_STATUS_SUCCESS;
}

/* One bin of the chosen sums as an exact integer (*exact set) or a double. */
static int sums_bin(const mct_tally_t t, mct_sums_t which, int64_t k, int64_t* iv, double* dv) {
    if (which == MCT_SUMS_TOTAL) {
        if (t->isum) return *iv = t->isum[k], 1;
        return *dv = t->fsum[k], 0;
    }
    if (batch_kind(t) == MCT_BATCH_EXACT) {
        const int64_t v = ((const int64_t*)t->staging)[k];
        if (t->desc.method != MCT_METHOD_FIXED || v == MCT_BATCH_EXACT_OVERFLOW) return *iv = v, 1;
        return *dv = ldexp((double)v, -t->desc.fixed_frac_bits), 0;
    }
    return *dv = ((const double*)t->staging)[k], 0;
}

mct_status_t mct_tally_copy_sums(mct_tally_t t, mct_sums_t which, mct_dtype_t dtype, void* dst, int dst_on_device) {
    if (!t || !dst) return MCT_STATUS_NULL_POINTER;
    if (which != MCT_SUMS_LAST_BATCH && which != MCT_SUMS_TOTAL) return MCT_STATUS_INVALID_VALUE;
    if (dtype != MCT_DTYPE_F64 && dtype != MCT_DTYPE_F32 && dtype != MCT_DTYPE_I32 && dtype != MCT_DTYPE_U64)
        return MCT_STATUS_UNKNOWN_DTYPE;
    if (which == MCT_SUMS_LAST_BATCH ? !t->last_batch : t->batches < 1) return MCT_STATUS_INVALID_STATE;
    const int64_t bins = t->desc.bins;
    const int integer_out = dtype == MCT_DTYPE_I32 || dtype == MCT_DTYPE_U64;
    /* Integer outputs only from integer tallies, every bin in the output's range. */
    if (integer_out && !is_integer(t->desc.dtype)) return MCT_STATUS_NOT_SUPPORTED;
    for (int64_t k = 0; integer_out && k < bins; ++k) {
        int64_t v = 0;
        double unused;
        sums_bin(t, which, k, &v, &unused);
        if (v == MCT_BATCH_EXACT_OVERFLOW || (dtype == MCT_DTYPE_U64 && v < 0) ||
            (dtype == MCT_DTYPE_I32 && (v < INT32_MIN || v > INT32_MAX)))
            return MCT_STATUS_OVERFLOW;
    }
    const size_t bytes = (size_t)bins * mct_dtype_size(dtype);
    void* out = dst_on_device ? malloc(bytes) : dst;
    if (!out) return MCT_STATUS_OUT_OF_MEMORY;
    for (int64_t k = 0; k < bins; ++k) {
        int64_t iv = 0;
        double dv = 0.0;
        const int exact = sums_bin(t, which, k, &iv, &dv);
        /* A bin without an exact value (mct_tally_end_batch said OVERFLOW) reads as NaN. */
        if (exact) dv = iv == MCT_BATCH_EXACT_OVERFLOW ? NAN : (double)iv;
        switch (dtype) {
        case MCT_DTYPE_F64: ((double*)out)[k] = dv; break;
        case MCT_DTYPE_F32: ((float*)out)[k] = (float)dv; break;
        case MCT_DTYPE_I32: ((int32_t*)out)[k] = (int32_t)iv; break;
        default: ((uint64_t*)out)[k] = (uint64_t)iv; break;
        }
    }
    mct_status_t st = MCT_STATUS_SUCCESS;
    if (dst_on_device) {
        st = t->ops->to_device(dst, out, bytes, t->stream);
        free(out);
    }
    return st;
}

/* The batch end of a caller that wants the batch's sums alone: the bins are
 * checked where they are (one pass), the flag word read (the one
 * synchronization), and then either converted into dst and zeroed (a second
 * pass, asynchronous) or, for a batch with an error, zeroed without being
 * read. No host copy of the bins, no statistics. */
mct_status_t mct_tally_take_sums(mct_tally_t t, double* dst) {
    if (!t || !dst) return MCT_STATUS_NULL_POINTER;
    mct_tally_view_t v;
    unsigned flags = 0;
    mct_status_t st = mct_tally_flush(t);
    if (!st) st = mct_tally_view(t, &v);
    if (!st) st = t->ops->take_bins(&v, NULL, t->stream);
    if (!st) st = read_flags(t, &flags);
    if (st) return st;
    t->flags_seen |= flags & ~MCT__FLAG_BIN_NONFINITE;
    if (flags) {
        st = t->ops->zero(t->bins, bins_bytes(t), t->stream);
        if (!st) st = t->ops->zero(t->flags, flag_bytes(t), t->stream);
    } else {
        st = t->ops->take_bins(&v, dst, t->stream);
        /* The flag word is zero; a kept maximum is not. */
        if (!st && t->keep_abs_max) st = t->ops->zero(t->flags, flag_bytes(t), t->stream);
    }
    int64_t words = 0;
    double* shadow = mct__loss_shadow(t->loss, 0, &words);
    if (!st && shadow) st = t->ops->zero(shadow, (size_t)words * sizeof(double), t->stream);
    if (st) return st;
    if (flags & MCT_TALLY_FLAG_OUT_OF_RANGE) return MCT_STATUS_BIN_OUT_OF_RANGE;
    if (flags & MCT_TALLY_FLAG_OVERFLOW) return MCT_STATUS_OVERFLOW;
    if (flags & (MCT_TALLY_FLAG_NONFINITE | MCT__FLAG_BIN_NONFINITE)) return MCT_STATUS_NONFINITE_VALUE;
    return MCT_STATUS_SUCCESS;
}

/* ---- Saved state (checkpoints) -------------------------------------------------
 * Layout, host byte order: the header below, mean[B] and m2[B] (double), the
 * raw sums[B] (int64 for integer tallies, double otherwise), the
 * rounding-loss state (rounding_loss.c), then an FNV-1a 64 checksum of
 * everything before it. */

#define MCT_STATE_MAGIC "MCTSTATE"
#define MCT_STATE_VERSION 1u

typedef struct {
    char magic[8];
    uint32_t version;
    uint32_t dtype;
    uint32_t method;
    int32_t fixed_frac_bits;
    int64_t bins;
    int64_t batches;
    int64_t histories;
    int64_t writers;
    uint32_t flags_seen;
    uint32_t integer_sums;
    uint64_t loss_bytes;
} mct__state_header_t;

static uint64_t state_checksum(const unsigned char* p, size_t n) {
    uint64_t h = UINT64_C(0xcbf29ce484222325);
    for (size_t i = 0; i < n; ++i) h = (h ^ p[i]) * UINT64_C(0x100000001b3);
    return h;
}

static size_t state_bytes(const mct_tally_t t, size_t loss_bytes) {
    return sizeof(mct__state_header_t) + 3 * (size_t)t->desc.bins * 8 + loss_bytes + sizeof(uint64_t);
}

mct_status_t mct_tally_save_state(mct_tally_t t, void* buf, size_t* bytes) {
    if (!t || !bytes) return MCT_STATUS_NULL_POINTER;
    const size_t loss_bytes = mct__loss_state_bytes(t->loss), need = state_bytes(t, loss_bytes);
    if (!buf) {
        *bytes = need;
        return MCT_STATUS_SUCCESS;
    }
    if (*bytes < need) {
        *bytes = need;
        return MCT_STATUS_TOO_LARGE;
    }
    mct__state_header_t h;
    memset(&h, 0, sizeof h);
    memcpy(h.magic, MCT_STATE_MAGIC, 8);
    h.version = MCT_STATE_VERSION;
    h.dtype = (uint32_t)t->desc.dtype;
    h.method = (uint32_t)t->desc.method;
    h.fixed_frac_bits = t->desc.fixed_frac_bits;
    h.bins = t->desc.bins;
    h.batches = t->batches;
    h.histories = t->histories;
    h.writers = t->writers;
    h.flags_seen = t->flags_seen;
    h.integer_sums = t->isum != NULL;
    h.loss_bytes = loss_bytes;
    unsigned char* p = buf;
    const size_t n = (size_t)t->desc.bins * 8;
    memcpy(p, &h, sizeof h);
    p += sizeof h;
    memcpy(p, t->mean, n), p += n;
    memcpy(p, t->m2, n), p += n;
    memcpy(p, t->isum ? (const void*)t->isum : (const void*)t->fsum, n), p += n;
    mct__loss_state_save(t->loss, p), p += loss_bytes;
    const uint64_t sum = state_checksum(buf, (size_t)(p - (unsigned char*)buf));
    memcpy(p, &sum, sizeof sum);
    *bytes = need;
    return MCT_STATUS_SUCCESS;
}

mct_status_t mct_tally_load_state(mct_tally_t t, const void* buf, size_t bytes) {
    if (!t || !buf) return MCT_STATUS_NULL_POINTER;
    mct__state_header_t h;
    if (bytes < sizeof h + sizeof(uint64_t)) return MCT_STATUS_INVALID_VALUE;
    memcpy(&h, buf, sizeof h);
    const size_t loss_bytes = mct__loss_state_bytes(t->loss);
    if (memcmp(h.magic, MCT_STATE_MAGIC, 8) || h.version != MCT_STATE_VERSION) return MCT_STATUS_INVALID_VALUE;
    /* The shape first: a buffer of another tally is refused before its size is trusted. */
    if (h.dtype != (uint32_t)t->desc.dtype || h.method != (uint32_t)t->desc.method ||
        h.fixed_frac_bits != t->desc.fixed_frac_bits || h.bins != t->desc.bins ||
        h.integer_sums != (uint32_t)(t->isum != NULL) || h.loss_bytes != loss_bytes)
        return MCT_STATUS_INVALID_VALUE;
    if (bytes != state_bytes(t, loss_bytes)) return MCT_STATUS_INVALID_VALUE;
    uint64_t sum;
    memcpy(&sum, (const unsigned char*)buf + bytes - sizeof sum, sizeof sum);
    if (sum != state_checksum(buf, bytes - sizeof sum)) return MCT_STATUS_INVALID_VALUE;
    if (h.batches < 0 || h.histories < h.batches || h.writers < 0 || (h.batches == 0) != (h.histories == 0))
        return MCT_STATUS_INVALID_VALUE;
    const unsigned char* p = (const unsigned char*)buf + sizeof h;
    const size_t n = (size_t)t->desc.bins * 8;
    mct_status_t st = loss_bytes ? mct__loss_state_load(t->loss, p + 3 * n, loss_bytes) : MCT_STATUS_SUCCESS;
    if (st) return st;
    memcpy(t->mean, p, n);
    memcpy(t->m2, p + n, n);
    memcpy(t->isum ? (void*)t->isum : (void*)t->fsum, p + 2 * n, n);
    t->batches = h.batches;
    t->last_batch = 0;
    t->histories = h.histories;
    note_writers(t, h.writers);
    t->flags_seen = h.flags_seen;
    return MCT_STATUS_SUCCESS;
}
