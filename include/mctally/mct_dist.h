/* SPDX-License-Identifier: BSD-3-Clause */
/** @file mct_dist.h  A tally shared by the ranks of an MPI communicator
 * (libmctally_mpi; link mctally::mctally_mpi, or -lmctally_mpi -lmctally and
 * MPI's flags).
 *
 * Each rank owns a tally of the same shape, on any backend, and runs a share
 * of every batch's histories; mct_dist_end_batch closes the batch on all of
 * them together (mct_combine.h): the ranks agree on status, flags and
 * histories, the batch's bins are summed over the ranks, and every rank folds
 * the same combined batch. Afterwards every rank's tally holds the statistics
 * (mean, relative error, sums) of the whole run so far.
 *
 * - Integer and fixed-point tallies are summed as exact int64 values, with an
 *   overflow check (mct_batch_exact_add): the same bits for any number of ranks,
 *   and the same bits as one process running every history (when the ranks
 *   draw the same random numbers: split histories by index).
 * - Float tallies are summed as doubles (MPI_SUM) or, on GPUs through NCCL, in
 *   the tally's own type; their bits depend on the ranks and the reduction's
 *   order, and agree with one process within rounding.
 * - Failures: a rank whose batch failed passes its status to
 *   mct_dist_end_batch; every rank then returns (PEER_FAILED on the others,
 *   mct_dist_failure names the rank), none waits for it. Tallies of different
 *   shapes are refused by mct_dist_create on every rank (SHAPE_MISMATCH). A rank
 *   that dies ends the job through the MPI launcher.
 *
 * Transports (mct_dist_transport_t): HOST stages every rank's batch in host
 * memory (the tally's fold needs it there anyway) and sums it with
 * MPI_Allreduce; NCCL sums float bins in GPU memory with ncclAllReduce before
 * they are staged (every rank's tally on its own GPU; built with MCTALLY_NCCL);
 * exact tallies always take HOST, whose sum is checked. AUTO takes NCCL where
 * it can serve a tally of at least 2^22 bins (below, NCCL's set-up at its first
 * all-reduce costs more than it saves), and HOST where NCCL does not start.
 * Every call here is collective over the communicator except mct_dist_info
 * and mct_dist_failure. */
#ifndef MCT_DIST_H
#define MCT_DIST_H

#include <mpi.h>
#include <stdint.h>

#include "mctally/mct_combine.h"
#include "mctally/mct_tally.h"

#if defined(MCT_STATIC)
#define MCT_DIST_API
#else
#define MCT_DIST_API __attribute__((visibility("default")))
#endif

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
    MCT_DIST_AUTO = 0, /**< NCCL where every rank's float tally of >= 2^22 bins is on its own GPU and NCCL is built in, else HOST */
    MCT_DIST_HOST = 1, /**< host buffers and MPI_Allreduce */
    MCT_DIST_NCCL = 2  /**< ncclAllReduce on the GPUs (NOT_SUPPORTED where it cannot serve the tally) */
} mct_dist_transport_t;

typedef struct {
    MPI_Comm comm;                  /**< the ranks (duplicated: the tally's messages never mix with the caller's) */
    mct_dist_transport_t transport; /**< default AUTO */
} mct_dist_desc_t;

typedef struct mct_dist_s* mct_dist_t;

/** What a distributed tally has done so far. */
typedef struct {
    int rank, size;
    mct_dist_transport_t transport; /**< the one in use: HOST or NCCL */
    int64_t batches;                /**< batches closed through mct_dist_end_batch */
    double agree_seconds;           /**< in the batches' agreements: mostly waiting for the slowest rank */
    double reduce_seconds;          /**< in the sums of the bins (and the loss shadow) */
    double reduced_bytes;           /**< bytes this rank contributed to those sums */
} mct_dist_info_t;

/** comm = MPI_COMM_WORLD, transport AUTO. */
MCT_DIST_API void mct_dist_desc_init(mct_dist_desc_t* desc);

/** Wraps `tally` (which stays the caller's, and must outlive the handle) for
 * the ranks of desc->comm. Collective. Every rank compares the shapes
 * (mct_tally_batch_shape: bins, type, exact or float, fraction bits,
 * rounding-loss shadow): SHAPE_MISMATCH on every rank when they differ;
 * NOT_SUPPORTED when NCCL was asked for and cannot serve the tallies;
 * PEER_FAILED when another rank failed; COMM_ERROR. Ranks may use different
 * methods and backends where the shapes agree. MPI must be initialized. */
MCT_DIST_API mct_status_t mct_dist_create(mct_dist_t* out, mct_tally_t tally, const mct_dist_desc_t* desc);

/** Frees the handle (collective: frees its communicators). NULL is a no-op. */
MCT_DIST_API void mct_dist_destroy(mct_dist_t dist);

/** Closes a batch on every rank: this rank ran `histories` (>= 0) of it, and
 * `local` is SUCCESS or this rank's failure in the batch so far. Collective.
 * Returns mct_tally_end_batch_combined's status, agreed by the ranks once
 * more after the fold: a status of the combined batch (OVERFLOW, ...) on
 * every rank; a rank's own failure (`local`, or one of its own in the batch
 * end) on that rank and PEER_FAILED on the others. */
MCT_DIST_API mct_status_t mct_dist_end_batch(mct_dist_t dist, int64_t histories, mct_status_t local);

/** Every rank's `local` status combined: SUCCESS when all are, else the
 * status of the lowest failing rank on it and PEER_FAILED on the others; that
 * rank and its status in *failed_rank and *failed_status when not NULL (-1
 * and SUCCESS when none failed). Collective over `comm`; for the steps where a
 * rank can fail alone (creating its tally, writing output), so that no rank
 * enters a collective another has left. COMM_ERROR when MPI fails. */
MCT_DIST_API mct_status_t mct_dist_agree(MPI_Comm comm, mct_status_t local, int* failed_rank,
                                         mct_status_t* failed_status);

/** The rank and status of the last failure the handle's agreements saw (-1 and
 * SUCCESS when none), for messages. Not collective. */
MCT_DIST_API mct_status_t mct_dist_failure(mct_dist_t dist, int* rank, mct_status_t* status);

/** Counters and timings of the handle (not collective). */
MCT_DIST_API mct_status_t mct_dist_info(mct_dist_t dist, mct_dist_info_t* info);

/** The determinism the combined tally delivers: the tally's own
 * (mct_tally_determinism) for exact tallies; for float tallies on more than
 * one rank NOT_GUARANTEED, since MPI and NCCL do not promise the order of a
 * sum. The lowest over the ranks. Collective. */
MCT_DIST_API mct_status_t mct_dist_determinism(mct_dist_t dist, mct_determinism_t* det);

/** "host", "nccl", "auto"; "invalid" otherwise. */
MCT_DIST_API const char* mct_dist_transport_name(mct_dist_transport_t transport);

/** Whether this library was built with NCCL (1) or not (0). */
MCT_DIST_API int mct_dist_have_nccl(void);

#ifdef __cplusplus
}
#endif

#endif /* MCT_DIST_H */
