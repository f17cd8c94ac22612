/* SPDX-License-Identifier: BSD-3-Clause */
/** @file phantom_engine.h  Internal: the phantom's engines (sim_engine.h), one
 * per backend; each runs chunks of histories into a tally and keeps the run's
 * counters. */
#ifndef MCT_SIM_PHANTOM_ENGINE_H
#define MCT_SIM_PHANTOM_ENGINE_H

#include "phantom.h"
#include "phantom_tables.h"
#include "sim_engine.h"

#ifdef __cplusplus
extern "C" {
#endif

/** What the engines are created with (sim_engine_args_t.problem). An
 * engine's finish writes the totals of the counters over every chunk into a
 * mct_phantom_counters_t. */
typedef struct {
    const mct_phantom_params_t* p;
    const sim_phantom_tables_t* tables; /**< copied where the transport runs */
    mct_phantom_transport_t transport;   /**< resolved: F64 or F32 */
} sim_phantom_problem_t;

/** What the transport reads, in both precisions: the tables (viewing the
 * engine's copies of their data, in host or device memory) and the geometry. */
typedef struct {
    mct_phantom_transport_t transport;
    mct_ph_tables_t_f64 tb64;
    mct_ph_tables_t_f32 tb32;
    mct_ph_geom_t_f64 g64;
    mct_ph_geom_t_f32 g32;
} sim_phantom_views_t;

/** The views of `problem` with its tables' data at data64 and data32. */
static inline sim_phantom_views_t sim_phantom_views(const sim_phantom_problem_t* problem, const double* data64,
                                                    const float* data32) {
    sim_phantom_views_t v;
    v.transport = problem->transport;
    v.tb64 = sim_phantom_tables_view_f64(problem->tables, data64);
    v.tb32 = sim_phantom_tables_view_f32(problem->tables, data32);
    v.g64 = sim_phantom_geom_f64(problem->p);
    v.g32 = sim_phantom_geom_f32(problem->p);
    return v;
}

extern const sim_engine_t sim_phantom_engine_cpu;
extern const sim_engine_t sim_phantom_engine_emulated;
#if MCT_HAVE_CUDA
extern const sim_engine_t sim_phantom_engine_cuda;
#endif

/** Adds the counters b into a (sums, maxima, or). */
static inline void sim_phantom_counters_merge(mct_phantom_counters_t* a, const mct_phantom_counters_t* b) {
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
