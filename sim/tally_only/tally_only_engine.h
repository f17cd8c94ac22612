/* SPDX-License-Identifier: BSD-3-Clause */
/** @file tally_only_engine.h  Internal: one engine per backend adds the
 * deposits of a chunk of particles into a tally. */
#ifndef MCT_SIM_TALLY_ONLY_ENGINE_H
#define MCT_SIM_TALLY_ONLY_ENGINE_H

#include "tally_only.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    /** Prepares for chunks of up to `chunk` particles. */
    mct_status_t (*create)(void** ctx, const mct_tally_only_params_t* p, int64_t chunk, int device);
    /** Threads that add into the tally (one replica each for `replicated`). */
    int64_t (*tally_threads)(void* ctx, const mct_tally_only_params_t* p);
    /** The deposits of particles [first, first + n) into the tally; n <= chunk. */
    mct_status_t (*run_chunk)(void* ctx, const mct_tally_only_params_t* p, int64_t first, int64_t n,
                              mct_tally_t tally);
    void (*destroy)(void* ctx);
} mct__tally_only_engine_t;

extern const mct__tally_only_engine_t mct__tally_only_engine_cpu;
extern const mct__tally_only_engine_t mct__tally_only_engine_emulated;
#if MCT_HAVE_CUDA
extern const mct__tally_only_engine_t mct__tally_only_engine_cuda;
#endif

#ifdef __cplusplus
}
#endif

#endif /* MCT_SIM_TALLY_ONLY_ENGINE_H */
