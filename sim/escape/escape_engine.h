/* SPDX-License-Identifier: BSD-3-Clause */
/** @file escape_engine.h  Internal: the escape problem's engines (sim_engine.h),
 * one per backend; each runs a chunk of histories (source, transport, tally)
 * into a tally. */
#ifndef MCT_SIM_ESCAPE_ENGINE_H
#define MCT_SIM_ESCAPE_ENGINE_H

#include "escape.h"
#include "sim_engine.h"

#ifdef __cplusplus
extern "C" {
#endif

/** What the engines are created with (sim_engine_args_t.problem). */
typedef struct {
    const mct_escape_params_t* p;
    double p_escape; /**< exp(-sigma x), computed once on the host */
} sim_escape_problem_t;

extern const sim_engine_t sim_escape_engine_cpu;
extern const sim_engine_t sim_escape_engine_emulated;
#if MCT_HAVE_CUDA
extern const sim_engine_t sim_escape_engine_cuda;
#endif

#ifdef __cplusplus
}
#endif

#endif /* MCT_SIM_ESCAPE_ENGINE_H */
