/* SPDX-License-Identifier: BSD-3-Clause */
/** @file pet_engine.h  Internal: the PET problem's engines (sim_engine.h), one
 * per backend; each runs chunks of decays into a tally and counts the good
 * events. */
#ifndef MCT_SIM_PET_ENGINE_H
#define MCT_SIM_PET_ENGINE_H

#include "pet.h"
#include "pet_physics.h"
#include "sim_engine.h"

#ifdef __cplusplus
extern "C" {
#endif

/** What the engines are created with (sim_engine_args_t.problem): the decay's
 * geometry and source, computed once on the host, so that every backend
 * reads the same floats. */
typedef struct {
    const mct_pet_params_t* p;
    mct_pet_geom_t geom;
    mct_pet_src_shape_t shapes[MCT_PET_MAX_SHAPES];
} sim_pet_problem_t;

/** What an engine's finish writes: its totals over every chunk. */
typedef struct {
    uint64_t good;     /**< good events, in the index or not */
    uint64_t outside;  /**< good events without a bin */
    uint64_t checksum; /**< XOR of the keys of the discarding launch */
} sim_pet_counters_t;

extern const sim_engine_t sim_pet_engine_cpu;
extern const sim_engine_t sim_pet_engine_emulated;
#if MCT_HAVE_CUDA
extern const sim_engine_t sim_pet_engine_cuda;
#endif

#ifdef __cplusplus
}
#endif

#endif /* MCT_SIM_PET_ENGINE_H */
