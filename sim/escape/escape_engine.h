/* SPDX-License-Identifier: BSD-3-Clause */
/** @file escape_engine.h  Internal: one engine per backend runs a chunk of
 * histories (source, transport, tally) into a tally. */
#ifndef MCT_SIM_ESCAPE_ENGINE_H
#define MCT_SIM_ESCAPE_ENGINE_H

#include "escape.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    /** Buffers for up to `chunk` histories in flight. */
    mct_status_t (*create)(void** ctx, int64_t chunk, int device);
    /** Threads the tally kernel uses for n histories (replicas to reserve). */
    int64_t (*tally_threads)(void* ctx, const mct_escape_params_t* p, int64_t n);
    /** Histories [first, first + n) into the tally; n <= chunk. */
    mct_status_t (*run_chunk)(void* ctx, const mct_escape_params_t* p, double p_escape, int64_t first, int64_t n,
                              mct_tally_t tally);
    void (*destroy)(void* ctx);
} mct__escape_engine_t;

extern const mct__escape_engine_t mct__escape_engine_cpu;
extern const mct__escape_engine_t mct__escape_engine_emulated;
#if MCT_HAVE_CUDA
extern const mct__escape_engine_t mct__escape_engine_cuda;
#endif

#ifdef __cplusplus
}
#endif

#endif /* MCT_SIM_ESCAPE_ENGINE_H */
