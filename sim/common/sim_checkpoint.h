/* SPDX-License-Identifier: BSD-3-Clause */
/** @file sim_checkpoint.h  What a problem's driver needs to save its run after
 * a batch and to resume it: the caller (the CLI) owns the file, the tally's
 * own state (mct_tally_save_state) and the identity of the run; the problem
 * hands over, and takes back, only what it accumulates besides the tally.
 *
 * Resuming continues at the next batch with the histories numbered as in an
 * uninterrupted run. Every problem draws a history's random numbers from a
 * Philox stream keyed by (seed, history index) alone (and the event within the
 * history), so the next history index is the whole RNG position: batches run
 * after a resume are the batches an uninterrupted run would have run. */
#ifndef MCT_SIM_CHECKPOINT_H
#define MCT_SIM_CHECKPOINT_H

#include <stddef.h>
#include <stdint.h>

#include "mctally/mct_tally.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    /** Resume: the problem state a previous save handed over (NULL: start at
     * batch 0). The tally must already hold the saved tally state. */
    const void* resume;
    size_t resume_bytes;
    /** Save after every `every` batches (>= 1) and after the last one, when
     * save is set. The state is valid during the call only. */
    int64_t every;
    mct_status_t (*save)(void* ctx, int64_t batches_done, const void* state, size_t bytes);
    void* ctx;
} mct_sim_checkpoint_t;

#ifdef __cplusplus
}
#endif

#endif /* MCT_SIM_CHECKPOINT_H */
