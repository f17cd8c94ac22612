/* SPDX-License-Identifier: BSD-3-Clause */
/** @file tally_only_engine.h  Internal: the tally-only problem's engines
 * (sim_engine.h), one per backend; each adds the deposits of a chunk of
 * particles into a tally. The engines are created with the parameters
 * (sim_engine_args_t.problem is a const mct_tally_only_params_t*). */
#ifndef MCT_SIM_TALLY_ONLY_ENGINE_H
#define MCT_SIM_TALLY_ONLY_ENGINE_H

#include "sim_engine.h"
#include "tally_only.h"

#ifdef __cplusplus
extern "C" {
#endif

extern const sim_engine_t sim_tally_only_engine_cpu;
extern const sim_engine_t sim_tally_only_engine_emulated;
#if MCT_HAVE_CUDA
extern const sim_engine_t sim_tally_only_engine_cuda;
#endif

#ifdef __cplusplus
}
#endif

#endif /* MCT_SIM_TALLY_ONLY_ENGINE_H */
