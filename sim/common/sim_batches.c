/* SPDX-License-Identifier: BSD-3-Clause */
/** @file sim_batches.c  The batch loop the problems share (sim_batches.h). */
#include "sim_batches.h"

mct_status_t mct__sim_run_batches(const mct__sim_batches_t* run, mct_tally_t tally, int64_t total, int64_t batches,
                                  int64_t chunk) {
    int64_t first = 0;
    for (int64_t b = 0; b < batches; ++b) {
        const int64_t n_batch = total / batches + (b < total % batches);
        for (int64_t done = 0; done < n_batch;) {
            const int64_t n = n_batch - done < chunk ? n_batch - done : chunk;
            mct_status_t st = run->run_chunk(run->ctx, first + done, n);
            if (!st && run->flush_chunks) st = mct_tally_flush(tally);
            if (st) return st;
            done += n;
        }
        mct_status_t st = mct_tally_end_batch(tally, n_batch);
        if (!st && run->batch_done) st = run->batch_done(run->ctx, b, n_batch);
        if (st) return st;
        first += n_batch;
        if (run->progress) run->progress(run->progress_ctx, first, total);
    }
    return MCT_STATUS_SUCCESS;
}
