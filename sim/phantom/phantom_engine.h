/* SPDX-License-Identifier: BSD-3-Clause */
/** @file phantom_engine.h  Internal: one engine per backend runs chunks of
 * histories of the phantom into a tally and keeps the run's counters. */
#ifndef MCT_SIM_PHANTOM_ENGINE_H
#define MCT_SIM_PHANTOM_ENGINE_H

#include "phantom.h"
#include "phantom_tables.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    /** Copies the tables where the transport runs and prepares for chunks of
     * up to `chunk` histories; `transport` is resolved (F64 or F32). */
    mct_status_t (*create)(void** ctx, const mct_phantom_params_t* p, const mct__phantom_tables_t* tables,
                           mct_phantom_transport_t transport, int64_t chunk, int device);
    /** Threads that add into the tally (replicas the replicated method needs). */
    int64_t (*tally_threads)(void* ctx);
    /** Histories [first, first + n) into the tally. */
    mct_status_t (*run_chunk)(void* ctx, uint64_t first, int64_t n, mct_tally_t tally);
    /** Totals of the counters over every chunk so far. */
    mct_status_t (*counters)(void* ctx, mct_phantom_counters_t* out);
    void (*destroy)(void* ctx);
} mct__phantom_engine_t;

extern const mct__phantom_engine_t mct__phantom_engine_cpu;
extern const mct__phantom_engine_t mct__phantom_engine_emulated;
#if MCT_HAVE_CUDA
extern const mct__phantom_engine_t mct__phantom_engine_cuda;
#endif

/** Adds the counters b into a (sums, maxima, or). */
static inline void mct__phantom_counters_merge(mct_phantom_counters_t* a, const mct_phantom_counters_t* b) {
    a->escaped += b->escaped;
    a->scored += b->scored;
    a->uncollided += b->uncollided;
    a->path_sum += b->path_sum;
    if (b->path_max > a->path_max) a->path_max = b->path_max;
    a->adds += b->adds;
    if (b->max_stack > a->max_stack) a->max_stack = b->max_stack;
    a->overflow |= b->overflow;
}

#ifdef __cplusplus
}
#endif

#endif /* MCT_SIM_PHANTOM_ENGINE_H */
