/* SPDX-License-Identifier: BSD-3-Clause */
/** @file pet_reco.h  MLEM reconstruction (the book's Eq. 8.1) of measured LOR
 * counts with the system matrix of mct_pet_matrix_build, on polar voxels:
 * radial ring r (radial_step_mm wide), angular wedge c (of crystal c), axial
 * slice z (of ring z), voxel index v = (r N + z) C + c.
 *
 *     FP_l   = sum_v a_v S_vl                      forward projection
 *     BP_v   = sum_l S_vl m_l / FP_l               back projection
 *     a_v   <- a_v BP_v / sum_l S_vl               the update
 *
 * S_vl comes from the matrix entry (zsm1, c1, zsm2, c2, p) of voxel ring r,
 * for every turn k and slice z1 (Eq. 8.3): voxel (r, k, z1 + zsm1) and LOR
 * (z1, c1 + k, z1 + dz, c2 + k), dz = zsm1 + zsm2, z1 = 0 .. N - 1 - dz. The
 * LORs are the compressed physical index (pet.h). A work item is one entry
 * and turn k, looping over z1, as the book's kernels. The back projection of
 * each iteration is a mctally tally over the voxels (a scatter-add with the
 * tally's method, read back as its one batch); the forward projection sums
 * in double in the engine's memory. The update runs on the host.
 *
 * Each iteration also gives the Poisson log-likelihood of the measured
 * counts under the forward projection, sum_l (m_l ln FP_l - FP_l) over the
 * LORs with FP_l > 0, which MLEM never decreases. */
#ifndef MCT_SIM_PET_RECO_H
#define MCT_SIM_PET_RECO_H

#include <stdint.h>

#include "mctally/mct_tally.h"
#include "pet.h"
#include "sim_output.h"

#ifdef __cplusplus
extern "C" {
#endif

/** One matrix entry, decoded once on the host. */
typedef struct {
    float p;          /**< probability: count / decays per voxel */
    uint16_t c1, dc;  /**< the LOR's first crystal and (c2 - c1) mod C - C/4 */
    uint8_t zsm1, dz; /**< rings from the voxel's to the LOR's first end; z2 - z1 */
    uint16_t ring;    /**< the voxel's radial ring */
} mct_pet_sm_entry_t;

typedef struct {
    int crystals, rings, voxels; /**< C, N, radial rings */
    double radial_step_mm, crystal_mm;
    const mct_pet_sm_entry_t* sm; /**< the matrix, ring by ring */
    int64_t entries;
    const float* measured; /**< counts of the compressed physical index's bins */
    int64_t lor_bins;
    int iterations;
    void (*progress)(void* ctx, int done, int total); /**< optional, after every iteration */
    void* progress_ctx;
} mct_pet_reco_params_t;

typedef struct {
    double* activity;   /**< voxels N C, index (r N + z) C + c: decays in the voxel (MLEM's unknowns; a uniform
                             source gives more to the larger outer voxels: mct_pet_reco_voxel_mm3) */
    double* loglik;     /**< per iteration, before its update */
    double* sensitivity; /**< voxels N: sum_l S_vl of slice z of ring r (the same for every c) */
    int iterations;
    double seconds, forward_seconds, back_seconds; /**< the whole run, the two projections summed */
} mct_pet_reco_result_t;

/** The matrix entries of mct_pet_matrix_build's result (keys decoded, counts
 * over decays); NULL on OUT_OF_MEMORY or a key outside the index. */
mct_pet_sm_entry_t* mct_pet_reco_entries(const mct_pet_params_t* p, const mct_pet_matrix_t* m);

/** Runs `iterations` MLEM iterations from a uniform activity; each back
 * projection is a tally made from `desc` (bins, and the type if not a float,
 * set here: f64 unless desc asks for f32; backend, method and device the
 * caller's). INVALID_VALUE for an empty matrix, a ring or a LOR outside the
 * grid, fewer than 1 iteration; NOT_SUPPORTED for an integer type;
 * BACKEND_UNAVAILABLE. */
mct_status_t mct_pet_reco_run(const mct_pet_reco_params_t* p, const mct_tally_desc_t* desc,
                              mct_pet_reco_result_t* out);
void mct_pet_reco_result_free(mct_pet_reco_result_t* r);

/** The volume of a polar voxel of radial ring r, pi (2r + 1) h^2 f / C (mm^3). */
double mct_pet_reco_voxel_mm3(const mct_pet_reco_params_t* p, int r);

/** The activity density (decays per mm^3) on a Cartesian grid: n x n pixels
 * of radial_step_mm centred on the axis (n = 2 voxels), one slice per ring (x
 * fastest, then y, then z), each pixel the mean over 4 x 4 points of the
 * densities of the polar voxels they fall in (0 outside the grid). */
float* mct_pet_reco_cartesian(const mct_pet_reco_params_t* p, const double* activity, int* n);

/** Writes DIR/NAME.mhd/.raw (the Cartesian grid, MET_FLOAT, mm, the axis at
 * x = y = 0 and the scanner's front end at z = 0) and DIR/NAME.png (the
 * middle slice, grey levels linear in the activity). */
mct_status_t mct_pet_reco_write(sim_out_set_t* set, const char* dir, const char* name, const mct_pet_reco_params_t* p,
                                const float* grid, int n);

#ifdef __cplusplus
}
#endif

#endif /* MCT_SIM_PET_RECO_H */
