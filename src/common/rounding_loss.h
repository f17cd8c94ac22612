/* SPDX-License-Identifier: BSD-3-Clause */
/** @file rounding_loss.h  Internal interface between the tally handle and the
 * rounding-loss estimate (rounding_loss.c, public side in mct_rounding.h): the
 * handle keeps one pointer and calls these at its view, batch end and destroy. */
#ifndef MCT_ROUNDING_LOSS_INTERNAL_H
#define MCT_ROUNDING_LOSS_INTERNAL_H

#include "backend.h"
#include "mctally/mct_tally.h"

typedef struct mct__loss_s mct__loss_t;

/** The tally's slot for its estimate and its backend (tally.c). */
mct__loss_t** mct__tally_loss_slot(mct_tally_t tally, const mct__backend_ops_t** ops);

/** Fills the view's shadow fields (NULL and 0 when loss is NULL). */
void mct__loss_view(mct__loss_t* loss, mct_tally_view_t* view);

/** At a batch's end: copies the shadow to the host copy and zeroes it. */
mct_status_t mct__loss_take(mct__loss_t* loss, const mct__backend_ops_t* ops, void* stream);

/** Then folds the host copy of the shadow and the batch's bins (as doubles,
 * combined with other processes' where the batch is) into the estimate. */
void mct__loss_fold(mct__loss_t* loss, const double* batch);

/** The shadow in backend memory (host 0) or its host copy (host 1), and its
 * length in doubles; NULL and 0 when loss is NULL. */
double* mct__loss_shadow(mct__loss_t* loss, int host, int64_t* words);

/** The estimate's accumulated state for a tally's saved state (tally.c):
 * its size in bytes (0 for NULL), a copy into p, and the copy read back into
 * an estimate of the same sampling (INVALID_VALUE otherwise). */
size_t mct__loss_state_bytes(const mct__loss_t* loss);
void mct__loss_state_save(const mct__loss_t* loss, unsigned char* p);
mct_status_t mct__loss_state_load(mct__loss_t* loss, const unsigned char* p, size_t bytes);

/** Frees the estimate and its shadow; NULL is a no-op. */
void mct__loss_free(mct__loss_t* loss, const mct__backend_ops_t* ops);

#endif /* MCT_ROUNDING_LOSS_INTERNAL_H */
