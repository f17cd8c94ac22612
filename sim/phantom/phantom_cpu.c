/* SPDX-License-Identifier: BSD-3-Clause */
/** @file phantom_cpu.c  The phantom on the CPU backend (OpenMP): the same
 * history code as the GPU engine (phantom_transport.inc). Each thread collects
 * its deposits, (voxel, MeV) pairs, while it transports a chunk of histories;
 * the pairs then go to the tally through mct_tally_add, which applies the
 * tally's own CPU method (atomic, replicated, kahan, fixed, sort_reduce) with
 * the library's code. A problem uses only the public API, so the CPU engine
 * does not reach into the backend for a per-element add; the price is one
 * pass over the pairs after the transport of each chunk. Where the method
 * accepts runs (mct_method_accepts_runs), a history's consecutive deposits
 * into one voxel become one pair, as on the GPU: a charged particle deposits
 * at every step and takes several steps in a voxel, so the pairs shrink
 * several times over. A run never crosses histories, so each pair is a
 * function of its history alone whatever thread transports it. */
#include <stdlib.h>

#include "phantom_engine.h"
#include "sim_common.h"

/** One thread's deposits of the current chunk. */
typedef struct {
    uint32_t* keys;
    double* values;
    int64_t n, cap;
    int64_t history_start; /* the first pair of the current history */
    int runs;              /* sum a history's consecutive deposits into one voxel */
    int failed;            /* a buffer could not grow */
} mct_phantom_cpu_sink_t;

static int cpu_grow(mct_phantom_cpu_sink_t* s) {
    const int64_t cap = s->cap ? 2 * s->cap : 4096;
    uint32_t* k = realloc(s->keys, (size_t)cap * sizeof *k);
    if (k) s->keys = k;
    double* v = realloc(s->values, (size_t)cap * sizeof *v);
    if (v) s->values = v;
    if (!k || !v) return 0;
    s->cap = cap;
    return 1;
}

static inline void cpu_score(mct_phantom_cpu_sink_t* s, int64_t voxel, double e) {
    if (s->runs && s->n > s->history_start && s->keys[s->n - 1] == (uint32_t)voxel) {
        s->values[s->n - 1] += e;
        return;
    }
    if (s->n == s->cap && !cpu_grow(s)) {
        s->failed = 1;
        return;
    }
    s->keys[s->n] = (uint32_t)voxel;
    s->values[s->n++] = e;
}

#define MCT_PH_FN MCT_INLINE
#define MCT_PH_FN_COLD MCT_INLINE
#define MCT_PH_SINK_T mct_phantom_cpu_sink_t
#define MCT_PH_SCORE(sink, voxel, e) cpu_score((sink), (voxel), (double)(e))
#include "phantom_transport.h"

typedef struct {
    sim_phantom_views_t v;
    double* data64; /* the engine's own copies of the tables */
    float* data32;
    mct_phantom_cpu_sink_t* sinks; /* one per thread */
    int threads;
    mct_phantom_counters_t totals;
} phantom_cpu_t;

static void cpu_destroy(void* ctx) {
    phantom_cpu_t* c = ctx;
    if (!c) return;
    for (int i = 0; c->sinks && i < c->threads; ++i) {
        free(c->sinks[i].keys);
        free(c->sinks[i].values);
    }
    free(c->sinks);
    free(c->data64);
    free(c->data32);
    free(c);
}

static mct_status_t cpu_create(void** ctx, const sim_engine_args_t* a) {
    const sim_phantom_problem_t* problem = a->problem;
    phantom_cpu_t* c = calloc(1, sizeof *c);
    *ctx = c;
    if (!c) return MCT_STATUS_OUT_OF_MEMORY;
    const size_t reals = sim_phantom_table_reals(problem), count = reals * (size_t)problem->materials;
    c->threads = sim_cpu_threads();
    c->data64 = malloc(count * sizeof *c->data64);
    c->data32 = malloc(count * sizeof *c->data32);
    c->sinks = calloc((size_t)c->threads, sizeof *c->sinks);
    if (!c->data64 || !c->data32 || !c->sinks) return MCT_STATUS_OUT_OF_MEMORY;
    for (int m = 0; m < problem->materials; ++m) {
        const sim_phantom_tables_t* t = &problem->tables[m];
        for (size_t k = 0; k < reals; ++k) c->data64[m * reals + k] = t->f64[k], c->data32[m * reals + k] = t->f32[k];
    }
    c->v = sim_phantom_views(problem, c->data64, c->data32);
    const mct_phantom_geometry_t* g = problem->geometry;
    sim_phantom_views_place(&c->v, problem, c->v.mtb64, c->v.mtb32, g ? g->mat : NULL, g ? g->density : NULL,
                            problem->cdf);
    return MCT_STATUS_SUCCESS;
}

static int64_t cpu_tally_threads(void* ctx, int64_t chunk) {
    (void)chunk;
    return ((phantom_cpu_t*)ctx)->threads;
}

static mct_status_t cpu_run_chunk(void* ctx, int64_t first, int64_t n, mct_tally_t tally) {
    phantom_cpu_t* c = ctx;
    mct_tally_desc_t desc;
    mct_status_t st = mct_tally_get_desc(tally, &desc);
    if (st) return st;
    const int runs = mct_method_accepts_runs(desc.method, desc.dtype);
    int failed = 0;
#pragma omp parallel num_threads(c->threads) reduction(| : failed)
    {
        mct_phantom_cpu_sink_t* sink = &c->sinks[sim_cpu_thread_id()];
        sink->n = 0;
        sink->runs = runs;
        mct_phantom_counters_t local = {0};
        /* Histories differ a lot in length (a photon may cross without
         * interacting): hand them out in small dynamic portions. */
#pragma omp for schedule(dynamic, 8)
        for (int64_t i = 0; i < n; ++i) {
            sink->history_start = sink->n;
            if (c->v.transport == MCT_PHANTOM_TRANSPORT_F32)
                mct_ph_history_f32(sink, &c->v.g32, &c->v.tb32, (uint64_t)(first + i), &local);
            else
                mct_ph_history_f64(sink, &c->v.g64, &c->v.tb64, (uint64_t)(first + i), &local);
        }
        failed |= sink->failed;
#pragma omp critical(mct_phantom_cpu_totals)
        sim_phantom_counters_merge(&c->totals, &local);
    }
    if (failed) return MCT_STATUS_OUT_OF_MEMORY;
    for (int i = 0; i < c->threads; ++i) {
        const mct_phantom_cpu_sink_t* s = &c->sinks[i];
        if (s->n == 0) continue;
        st = mct_tally_add(tally, s->keys, s->values, s->n);
        if (st) return st;
    }
    return MCT_STATUS_SUCCESS;
}

static mct_status_t cpu_counters(void* ctx, void* out) {
    *(mct_phantom_counters_t*)out = ((phantom_cpu_t*)ctx)->totals;
    return MCT_STATUS_SUCCESS;
}

static mct_status_t cpu_restore(void* ctx, const void* in) {
    ((phantom_cpu_t*)ctx)->totals = *(const mct_phantom_counters_t*)in;
    return MCT_STATUS_SUCCESS;
}

#if MCT_PH_BITWISE
#define SIM_PHANTOM_CPU_ENGINE sim_phantom_engine_cpu_bitwise
#else
#define SIM_PHANTOM_CPU_ENGINE sim_phantom_engine_cpu
#endif
const sim_engine_t SIM_PHANTOM_CPU_ENGINE = {cpu_create, cpu_tally_threads, cpu_run_chunk, cpu_counters, cpu_destroy,
                                             cpu_restore};
