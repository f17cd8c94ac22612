/* SPDX-License-Identifier: BSD-3-Clause */
/** @file sim_ranks.h  A run shared by several processes (ranks): what a
 * problem's driver needs of them, without naming how they talk (the CLI
 * implements it over MPI with libmctally_mpi; the problems stay free of MPI).
 *
 * Every rank runs the same problem with a tally of the same shape. Batch b's
 * histories are split into `size` contiguous slices, rank r taking the r-th
 * (sim_rank_slice), and each history keeps its index: every problem draws a
 * history's random numbers from a Philox stream keyed by (seed, history
 * index), so R ranks together draw exactly the random numbers of one rank.
 * Each batch is closed on every rank by end_batch, which combines the ranks'
 * bins (mct_combine.h): integer and fixed-point tallies then hold the same bits
 * for any number of ranks, and every rank the same statistics. */
#ifndef MCT_SIM_RANKS_H
#define MCT_SIM_RANKS_H

#include <stdint.h>

#include "mctally/mct_tally.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum { SIM_RANKS_SUM = 0, SIM_RANKS_MAX = 1, SIM_RANKS_XOR = 2 /**< u64 only */ } sim_ranks_op_t;

typedef struct {
    int rank; /**< this process, 0 .. size - 1 */
    int size; /**< ranks in the run, >= 1 */
    /** Closes the batch on every rank: this rank ran `histories` (>= 0) of it,
     * and `local` says whether its chunks succeeded. Returns the combined
     * status, the same on every rank (PEER_FAILED on the others when one
     * failed); the batch is not combined when any failed. */
    mct_status_t (*end_batch)(void* ctx, mct_tally_t tally, int64_t histories, mct_status_t local);
    /** Every rank's status combined, as end_batch combines them: where a rank
     * may fail alone (an allocation), so that none waits for it. */
    mct_status_t (*agree)(void* ctx, mct_status_t local);
    /** x[0..n) summed (SUM), the largest (MAX) or, for u64, XORed over the
     * ranks, in place, the same result on every rank. */
    mct_status_t (*combine_f64)(void* ctx, double* x, int64_t n, sim_ranks_op_t op);
    mct_status_t (*combine_u64)(void* ctx, uint64_t* x, int64_t n, sim_ranks_op_t op);
    void* ctx;
} mct_sim_ranks_t;

/** Rank `rank` of `size` takes histories [*first, *first + *count) of a batch
 * of n: contiguous slices, the first n % size of them one longer. */
static inline void sim_rank_slice(int64_t n, int rank, int size, int64_t* first, int64_t* count) {
    const int64_t q = n / size, r = n % size;
    *first = (int64_t)rank * q + (rank < r ? rank : r);
    *count = q + (rank < r);
}

/** The agreed status of a rank's local one (itself without ranks). */
static inline mct_status_t sim_ranks_agree(const mct_sim_ranks_t* ranks, mct_status_t local) {
    return ranks ? ranks->agree(ranks->ctx, local) : local;
}

/** Whether this process writes what the run reports (rank 0, or no ranks). */
static inline int sim_ranks_root(const mct_sim_ranks_t* ranks) { return !ranks || ranks->rank == 0; }

#ifdef __cplusplus
}
#endif

#endif /* MCT_SIM_RANKS_H */
