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
    const sim_phantom_tables_t* tables; /**< one per material (copied where the transport runs) */
    int materials;                      /**< 1 for the water cube */
    mct_phantom_transport_t transport;  /**< resolved: F64 or F32 */
    /** The voxels' materials and densities (NULL: the homogeneous water cube,
     * whose transport splits deposits over the voxels a step crosses), and
     * the Fano source's cumulative mass table (NULL: the beam). */
    const mct_phantom_geometry_t* geometry;
    const double* cdf;
    float rho_max[MCT_PHANTOM_MAX_MATERIALS]; /**< with a geometry: each material's densest voxel */
} sim_phantom_problem_t;

/** What the transport reads, in both precisions: the tables (viewing the
 * engine's copies of their data, in host or device memory) and the geometry.
 * With a geometry, each material's tables are mtb64/mtb32[m] and g64/g32
 * point at them and at the voxels (sim_phantom_views_place). */
typedef struct {
    mct_phantom_transport_t transport;
    mct_ph_tables_t_f64 tb64;
    mct_ph_tables_t_f32 tb32;
    mct_ph_geom_t_f64 g64;
    mct_ph_geom_t_f32 g32;
    int materials;
    mct_ph_tables_t_f64 mtb64[MCT_PHANTOM_MAX_MATERIALS];
    mct_ph_tables_t_f32 mtb32[MCT_PHANTOM_MAX_MATERIALS];
} sim_phantom_views_t;

/** The number of reals of one material's tables. */
static inline size_t sim_phantom_table_reals(const sim_phantom_problem_t* problem) {
    return (size_t)MCT_PH_T_COUNT * (size_t)problem->tables[0].n;
}

/** The views of `problem` with the tables' data at data64 and data32 (every
 * material's, one after the other, sim_phantom_table_reals apart). The
 * geometry's pointers are left for the engine (sim_phantom_views_place). */
static inline sim_phantom_views_t sim_phantom_views(const sim_phantom_problem_t* problem, const double* data64,
                                                    const float* data32) {
    sim_phantom_views_t v;
    const size_t reals = sim_phantom_table_reals(problem);
    v.transport = problem->transport;
    v.materials = problem->materials;
    for (int m = 0; m < problem->materials; ++m) {
        v.mtb64[m] = sim_phantom_tables_view_f64(&problem->tables[m], data64 + (size_t)m * reals);
        v.mtb32[m] = sim_phantom_tables_view_f32(&problem->tables[m], data32 + (size_t)m * reals);
    }
    v.tb64 = v.mtb64[0];
    v.tb32 = v.mtb32[0];
    v.g64 = sim_phantom_geom_f64(problem->p);
    v.g32 = sim_phantom_geom_f32(problem->p);
    return v;
}

/** Points the geometry of v at the engine's copies (host or device) of the
 * per-material table views, the voxels' materials and densities and the
 * Fano source's table, and turns on the paths they need. */
static inline void sim_phantom_views_place(sim_phantom_views_t* v, const sim_phantom_problem_t* problem,
                                           const mct_ph_tables_t_f64* mtb64, const mct_ph_tables_t_f32* mtb32,
                                           const uint8_t* mat, const float* rho, const double* cdf) {
    const int het = problem->geometry != NULL, fano = problem->cdf != NULL;
    v->g64.het = v->g32.het = het;
    v->g64.fano = v->g32.fano = fano;
    v->g64.mtb = mtb64;
    v->g32.mtb = mtb32;
    v->g64.mat = v->g32.mat = mat;
    v->g64.rho = v->g32.rho = rho;
    v->g64.cdf = v->g32.cdf = cdf;
    v->g64.materials = v->g32.materials = problem->materials;
    if (het)
        for (int m = 0; m < MCT_PHANTOM_MAX_MATERIALS; ++m) {
            v->g64.rho_max[m] = (double)problem->rho_max[m];
            v->g32.rho_max[m] = problem->rho_max[m];
        }
}

extern const sim_engine_t sim_phantom_engine_cpu;
extern const sim_engine_t sim_phantom_engine_emulated;
#if MCT_HAVE_CUDA
extern const sim_engine_t sim_phantom_engine_cuda;
#endif
/* The engines of bitwise tallies (`fixed`): the same sources built with
 * MCT_PH_BITWISE, whose doses have the same bits on every backend. */
extern const sim_engine_t sim_phantom_engine_cpu_bitwise;
extern const sim_engine_t sim_phantom_engine_emulated_bitwise;
#if MCT_HAVE_CUDA
extern const sim_engine_t sim_phantom_engine_cuda_bitwise;
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
