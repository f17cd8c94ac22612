/* SPDX-License-Identifier: BSD-3-Clause */
/** @file sim_batches.h  Internal: the batch loop the problems share. A run of
 * `total` histories is split into `batches` batches of nearly equal size (the
 * first total % batches are one larger), each batch is run in chunks of at
 * most `chunk` histories, and then closed with mct_tally_end_batch. */
#ifndef MCT_SIM_BATCHES_H
#define MCT_SIM_BATCHES_H

#include <stdint.h>

#include "mctally/mct_tally.h"

typedef struct {
    /** Histories [first, first + n) into the tally. */
    mct_status_t (*run_chunk)(void* ctx, int64_t first, int64_t n);
    /** Optional: after batch b (of `histories` histories) is closed. */
    mct_status_t (*batch_done)(void* ctx, int64_t b, int64_t histories);
    void* ctx;
    /** Bring deferred work into the bins after every chunk (sort_reduce
     * keeps a chunk's contributions as pairs in a buffer of fixed size). */
    int flush_chunks;
    /** Optional: histories done so far, after every batch. */
    void (*progress)(void* ctx, int64_t done, int64_t total);
    void* progress_ctx;
} mct__sim_batches_t;

#ifdef __cplusplus
extern "C" {
#endif

/** Runs the batches; the first failing status stops the run and is returned. */
mct_status_t mct__sim_run_batches(const mct__sim_batches_t* run, mct_tally_t tally, int64_t total, int64_t batches,
                                  int64_t chunk);

#ifdef __cplusplus
}
#endif

#endif /* MCT_SIM_BATCHES_H */
