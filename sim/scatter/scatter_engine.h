/* SPDX-License-Identifier: BSD-3-Clause */
/** @file scatter_engine.h  Internal: the scatter workload's engines
 * (sim_engine.h); each materializes a chunk's keys and values where the tally
 * lives and adds them. The engines are created with the parameters
 * (sim_engine_args_t.problem is a const mct_scatter_params_t*). They reserve
 * no replicas: mct_tally_add_device_grouped applies the tally's method. */
#ifndef MCT_SIM_SCATTER_ENGINE_H
#define MCT_SIM_SCATTER_ENGINE_H

#include "scatter.h"
#include "sim_engine.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Host arrays, for the cpu and emulated backends (whose memory is the host's). */
extern const sim_engine_t sim_scatter_engine_host;
#if MCT_HAVE_CUDA
extern const sim_engine_t sim_scatter_engine_cuda;
#endif

/** Writes the keys of particles [first, first + n) to keys[0 .. n) and their
 * values to values[c * stride + i] (OpenMP; also the reference's inputs). */
void sim_scatter_generate_host(const mct_scatter_params_t* p, int64_t first, int64_t n, uint32_t* keys,
                                double* values, int64_t stride);

#ifdef __cplusplus
}
#endif

#endif /* MCT_SIM_SCATTER_ENGINE_H */
