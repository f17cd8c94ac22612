/* SPDX-License-Identifier: BSD-3-Clause */
/** @file scatter_engine.h  Internal: one engine per backend materializes a
 * chunk's keys and values where the tally lives and adds them. */
#ifndef MCT_SIM_SCATTER_ENGINE_H
#define MCT_SIM_SCATTER_ENGINE_H

#include "scatter.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    /** Buffers for chunks of up to `chunk` particles of `width` values. */
    mct_status_t (*create)(void** ctx, int64_t chunk, int width, int device);
    /** Particles [first, first + n) into the tally; n <= chunk. */
    mct_status_t (*run_chunk)(void* ctx, const mct_scatter_params_t* p, int64_t first, int64_t n, mct_tally_t tally);
    void (*destroy)(void* ctx);
} mct__scatter_engine_t;

/** Host arrays, for the cpu and emulated backends (whose memory is the host's). */
extern const mct__scatter_engine_t mct__scatter_engine_host;
#if MCT_HAVE_CUDA
extern const mct__scatter_engine_t mct__scatter_engine_cuda;
#endif

/** Writes the keys of particles [first, first + n) to keys[0 .. n) and their
 * values to values[c * stride + i] (OpenMP; also the reference's inputs). */
void mct__scatter_generate_host(const mct_scatter_params_t* p, int64_t first, int64_t n, uint32_t* keys,
                                double* values, int64_t stride);

#ifdef __cplusplus
}
#endif

#endif /* MCT_SIM_SCATTER_ENGINE_H */
