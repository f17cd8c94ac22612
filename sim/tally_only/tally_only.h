/* SPDX-License-Identifier: BSD-3-Clause */
/** @file tally_only.h  Liu et al. 2018's test 1, a mini application that only
 * tallies: every particle makes `collisions` collisions (10 as published), each
 * depositing an energy drawn from an exponential distribution of mean
 * `mean_energy` (0.1 MeV) into one of `bins` bins (8) chosen uniformly. The
 * deposits are added with the tally's own method from a kernel on the GPU
 * backends (one block tally per thread over a grid-stride loop), or as arrays
 * through mct_tally_add_device on the CPU backend.
 *
 * Reference: the total is a sum of particles x collisions independent
 * exponential deposits, so its expectation is particles x collisions x mean and
 * its standard deviation mean x sqrt(particles x collisions) (an exponential's
 * standard deviation equals its mean). A deposit depends only on (seed,
 * particle, collision), so a `fixed` tally gives bitwise equal totals on the
 * cpu, emulated and cuda backends, and for any launch shape. */
#ifndef MCT_SIM_TALLY_ONLY_H
#define MCT_SIM_TALLY_ONLY_H

#include <stdint.h>

#include "mctally/mct_tally.h"
#include "sim_ranks.h"
#include "sim_params.h"
#include "sim_deposit.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Launch shape of the kernel (GPU backends; the CPU ignores it). */
typedef enum {
    MCT_TALLY_ONLY_LAUNCH_PAPER = 0, /**< 1024 blocks of 64 threads, grid-stride loop over particles, as published */
    MCT_TALLY_ONLY_LAUNCH_FULL = 1   /**< blocks of 256 threads, as many as the device holds at once */
} mct_tally_only_launch_t;

/** Liu's launch: blocks per grid and threads per block. */
#define MCT_TALLY_ONLY_PAPER_BLOCKS 1024
#define MCT_TALLY_ONLY_PAPER_THREADS 64

typedef struct {
    int64_t particles;   /**< >= batches */
    int collisions;      /**< per particle, 1 .. 10^6 (10) */
    int64_t bins;        /**< 1 .. 2^31 (8); the tally must have this many */
    double mean_energy;  /**< mean deposit in MeV, finite and > 0 (0.1); used as a float */
    uint64_t seed;
    int64_t batches;     /**< >= 1 */
    mct_tally_only_launch_t launch;
    mct_sim_deposit_t deposit; /**< GPU backends: direct adds, mct_deposit_buffer, or per method (auto, the default) */
    int64_t chunk;       /**< most particles per engine call; 0 = chosen by the problem */
    void (*progress)(void* ctx, int64_t done, int64_t total); /**< optional, after every batch */
    void* progress_ctx;
    const mct_sim_ranks_t* ranks; /**< optional: the ranks sharing the run (sim_ranks.h); NULL: this process alone */
} mct_tally_only_params_t;

typedef struct {
    double total;           /**< MeV tallied over all batches and bins */
    double expected;        /**< particles x collisions x mean (the float mean the kernels use) */
    double std_error;       /**< mean x sqrt(particles x collisions): the sampling spread of the total */
    double z_score;         /**< (total - expected) / std_error */
    double batch_std_error; /**< the total's standard error from the spread of batch totals (NaN for 1 batch) */
    double max_bin_z;       /**< largest |z| of one bin's total against its own expectation */
    int64_t updates;        /**< particles x collisions */
    double seconds;         /**< wall time of the whole run */
    double updates_per_second;
} mct_tally_only_result_t;

/** The ranges and defaults of the numeric parameters (sim_params.h): every
 * numeric field (mean_energy under the problem file's key,
 * mean_energy_MeV), and the problem file's [tally_only] keys. */
extern const mct_sim_param_table_t mct_tally_only_param_table;

/** Defaults: 1e6 particles, 10 collisions, 8 bins, 0.1 MeV, seed 1, 10 batches, paper launch. */
void mct_tally_only_params_init(mct_tally_only_params_t* p);

/** Checks the parameters against the tally. Returns NULL_POINTER;
 * INVALID_VALUE (parameters out of range, a tally with another number of bins,
 * sort_reduce whose pair buffer cannot hold one particle's deposits);
 * NOT_SUPPORTED (an integer tally: deposits are energies; `shared` with more
 * bins than 48 KiB of shared memory holds). */
mct_status_t mct_tally_only_check(const mct_tally_only_params_t* p, mct_tally_t tally);

/** Runs the problem into `tally` (any backend, the tally's method) and fills
 * `out`. Besides mct_tally_only_check's statuses: whatever mct_tally_end_batch
 * or the backend returns (OVERFLOW for a fixed-point bin, CUDA_ERROR, ...). */
mct_status_t mct_tally_only_run(const mct_tally_only_params_t* p, mct_tally_t tally, mct_tally_only_result_t* out);

#ifdef __cplusplus
}
#endif

#endif /* MCT_SIM_TALLY_ONLY_H */
