/* SPDX-License-Identifier: BSD-3-Clause */
/** @file escape.h  Bossler 2018's photon-escape problem: mono-energetic photons
 * enter a 1-D helium slab (total cross section sigma, thickness x); a photon
 * escapes when its first collision lies beyond the slab, with probability
 * exp(-sigma x). Source, transport and tally are separate kernels; the tally
 * kernel reads each history's event flag from memory and adds it to a one-bin
 * tally with the tally's method. */
#ifndef MCT_SIM_ESCAPE_H
#define MCT_SIM_ESCAPE_H

#include <stdint.h>

#include "mctally/mct_tally.h"
#include "sim_ranks.h"
#include "sim_checkpoint.h"
#include "sim_params.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Bossler's published cross section of helium, per metre. */
#define MCT_ESCAPE_SIGMA_HELIUM 6.59936e-3

/** Launch shape of the tally kernel. */
typedef enum {
    MCT_ESCAPE_LAUNCH_PAPER = 0, /**< one history per thread, as published */
    MCT_ESCAPE_LAUNCH_FULL = 1   /**< a grid that just fills the device, grid-stride loop */
} mct_escape_launch_t;

typedef struct {
    double thickness_m;  /**< slab thickness x >= 0 (m) */
    double sigma_per_m;  /**< total cross section > 0 */
    int64_t histories;   /**< >= batches */
    int64_t batches;     /**< >= 1 */
    uint64_t seed;
    int block_size;              /**< tally kernel block size, 1 .. 1024 (128 as published) */
    mct_escape_launch_t launch;
    int64_t chunk;               /**< most histories in flight at once; 0 = chosen by the problem */
    void (*progress)(void* ctx, int64_t done, int64_t total); /**< optional, after every batch */
    void* progress_ctx;
    const mct_sim_checkpoint_t* checkpoint; /**< optional: save and resume the run (sim_checkpoint.h) */
    const mct_sim_ranks_t* ranks; /**< optional: the ranks sharing the run (sim_ranks.h); NULL: this process alone */
} mct_escape_params_t;

typedef struct {
    double escapes;      /**< escapes counted over all batches */
    double fraction;     /**< escapes per history */
    double std_error;    /**< standard error of the fraction, batch method */
    double analytic;     /**< exp(-sigma x) */
    double seconds;      /**< wall time of the whole run */
} mct_escape_result_t;

/** The ranges and defaults of the numeric parameters (sim_params.h): every
 * numeric field, and the problem file's [escape] keys. */
extern const mct_sim_param_table_t mct_escape_param_table;

/** Defaults: helium, x = 100 m, 1e6 histories, 10 batches, seed 1, block 128, paper launch. */
void mct_escape_params_init(mct_escape_params_t* p);

/** Checks the parameters and that the tally can hold a batch's count (an i32
 * tally refuses batches over 2^31 - 1 histories with MCT_STATUS_OVERFLOW).
 * Returns INVALID_VALUE for parameters out of range, NOT_SUPPORTED for a
 * method other than Bossler's five (atomic, shared, warp_reduce, block_reduce,
 * replicated). */
mct_status_t mct_escape_check(const mct_escape_params_t* p, mct_tally_t tally);

/** Runs the problem into `tally` (1 bin; any backend; the method the tally
 * was created with) and fills `out`. The escape decision of history h depends
 * only on (seed, h), so integer tallies give the same count on every backend. */
mct_status_t mct_escape_run(const mct_escape_params_t* p, mct_tally_t tally, mct_escape_result_t* out);

#ifdef __cplusplus
}
#endif

#endif /* MCT_SIM_ESCAPE_H */
