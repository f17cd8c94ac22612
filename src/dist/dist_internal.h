/* SPDX-License-Identifier: BSD-3-Clause */
/** @file dist_internal.h  Inside libmctally_mpi: the NCCL transport
 * (dist_nccl.c with MCTALLY_NCCL; answers "not here" without it). */
#ifndef MCT_DIST_INTERNAL_H
#define MCT_DIST_INTERNAL_H

#include "mctally/mct_dist.h"

#ifndef MCT_HAVE_NCCL
#define MCT_HAVE_NCCL 0
#endif

/** The fewest bins for which AUTO takes NCCL. NCCL's first all-reduce sets up
 * its channels (0.15 s on 2 NVLinked GPUs, 0.3 s on 4), which a run repays
 * only by what each later batch saves over host MPI, a saving that grows with
 * the bins: at 1e6 bins over 10 batches host MPI was as fast (the phantom on
 * 4 H200: 25.6 s against 25.9 s), at 8 bins 8x faster, and its sum of 9e6
 * bins took 0.08 s a batch (bench/results/2026-11-28-h200x4-multigpu.md). From
 * 2^22 bins (32 MB of f64) on, ten batches or so repay the set-up; a run of
 * one batch is still faster through host MPI, but the bins alone are what
 * mct_dist_create knows. */
#define MCT__DIST_NCCL_AUTO_MIN_BINS (INT64_C(1) << 22)

/** 1 when NCCL can sum this rank's batch on its GPU in the tally's storage:
 * a float tally of f32 or f64 values (not Kahan pairs) on the cuda backend. */
int mct__dist_nccl_eligible(const mct_batch_t* shape);
/** Collective: *distinct = 1 when no two ranks hold the same GPU (NCCL needs
 * one rank per GPU), by the devices' UUIDs. */
mct_status_t mct__dist_nccl_distinct(MPI_Comm comm, int device, int* distinct);
/** Collective: an NCCL communicator over comm's ranks on `device`. */
mct_status_t mct__dist_nccl_init(void** state, MPI_Comm comm, int rank, int size, int device);
/** Sums the batch's bins (and shadow) over the ranks in place on the GPU, on
 * the tally's stream, and waits for it. */
mct_status_t mct__dist_nccl_reduce(void* state, mct_batch_t* batch);
void mct__dist_nccl_free(void* state);

#endif /* MCT_DIST_INTERNAL_H */
