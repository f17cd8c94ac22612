/* SPDX-License-Identifier: BSD-3-Clause */
/** @file pet_reco_engine.h  Internal: the MLEM projections of pet_reco.h, one
 * engine per backend. An engine holds the matrix, the measured counts and the
 * forward projection in its backend's memory. */
#ifndef MCT_SIM_PET_RECO_ENGINE_H
#define MCT_SIM_PET_RECO_ENGINE_H

#include "mctally/mct_config.h"
#include "pet_reco.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    /** Copies the matrix and the counts (`device`: the tally's GPU). Sets
     * *ctx, also on failure, so that destroy frees what was made. */
    mct_status_t (*create)(void** ctx, const mct_pet_reco_params_t* p, int device);
    /** FP from the activity (host memory, voxel order), and the Poisson
     * log-likelihood of the counts under it. */
    mct_status_t (*forward)(void* ctx, const double* activity, double* loglik);
    /** BP of the last forward projection into the tally (the voxels' bins). */
    mct_status_t (*back)(void* ctx, mct_tally_t bp);
    void (*destroy)(void* ctx);
} sim_pet_reco_engine_t;

/** The first LOR of an entry turned by k (slice z1 = 0) in the compressed
 * physical index; slice z1 adds z1 n_dc C. */
MCT_INLINE MCT_HD int64_t sim_pet_reco_lor0(int C, int N, int ndc, const mct_pet_sm_entry_t* e, int k) {
    const int64_t rest = N - e->dz;
    const int64_t s = (int64_t)N * (N + 1) / 2 - rest * (rest + 1) / 2;
    const int c1 = (e->c1 + k) % C;
    return (s * ndc + e->dc) * C + c1;
}

extern const sim_pet_reco_engine_t sim_pet_reco_engine_cpu;
extern const sim_pet_reco_engine_t sim_pet_reco_engine_emulated;
#if MCT_HAVE_CUDA
extern const sim_pet_reco_engine_t sim_pet_reco_engine_cuda;
#endif

#ifdef __cplusplus
}
#endif

#endif /* MCT_SIM_PET_RECO_ENGINE_H */
