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
 * its channels, a cost a run repays only by what each later batch saves over
 * host MPI, a saving that grows with the bins; mct_dist_create knows the bins
 * but not how many batches will follow, so the floor is on the bins alone
 * (the measurements it rests on: bench/results/2026-11-28-h200x4-multigpu.md). */
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
