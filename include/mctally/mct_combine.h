/* SPDX-License-Identifier: BSD-3-Clause */
/** @file mct_combine.h  Closing a batch together with other processes.
 *
 * A run split over processes (MPI ranks, one GPU each, or a caller's own
 * scheme) gives each process a tally of the same shape and a share of every
 * batch's histories. mct_tally_end_batch_combined closes the batch on every
 * process through a combiner that the caller supplies: the processes first
 * agree (status, flags, histories), then the batch's bins are summed over
 * them, and each process folds the same combined batch into its statistics.
 * Every process then holds the statistics a single process would have after
 * running all of the batch's histories.
 *
 * The library itself does no communication: libmctally_mpi (mctally/mct_dist.h)
 * is a combiner over MPI and NCCL, and a caller may write one over anything else.
 *
 * What is combined is the batch's exact representation, so that integer and
 * fixed-point tallies give the same bits whatever the number of processes:
 * - MCT_BATCH_EXACT (integer types and the fixed method): int64 values, the bin
 *   itself for i32 and u64, value x 2^fixed_frac_bits for fixed. INT64_MIN is
 *   reserved: it marks a bin that overflowed (a u64 bin past INT64_MAX, a fixed
 *   bin at -2^63), and a combiner's sum keeps it where any part had it or where
 *   a partial sum leaves the int64 range (mct_batch_exact_add).
 * - MCT_BATCH_FLOAT (every other method of f32 and f64): doubles, the bin's
 *   value as the statistics read it (a Kahan pair's sum - comp). Their sum
 *   depends on the order of the additions, as the tally's own float sums do.
 *
 * A combiner is called in this order, on every process, by every
 * mct_tally_end_batch_combined:
 * 1. agree (always, also when this process has failed: batch->status says so,
 *    so that its peers learn of it instead of waiting): replaces status, flags
 *    and histories by the combined ones (the first failure, the flags ORed, the
 *    histories summed; histories < 0 when the sum passes INT64_MAX). When the
 *    combined status is not SUCCESS the batch ends there on every process.
 * 2. reduce_device (optional): may sum the bins in the backend's memory, in
 *    place (device_bins, the method's storage, and device_shadow), and set
 *    *reduced; the whole batch is then combined.
 * 3. reduce_host (unless reduce_device reduced): sums the host arrays in place
 *    (exact or values, and shadow when not NULL).
 * The combiner decides, once for all processes, which of 2 and 3 it uses: all
 * processes must take the same path, and call with the same shape
 * (mct_tally_batch_shape). */
#ifndef MCT_COMBINE_H
#define MCT_COMBINE_H

#include <stdint.h>

#include "mctally/mct_tally.h"

#ifdef __cplusplus
extern "C" {
#endif

/** How a batch's bins are combined. */
typedef enum {
    MCT_BATCH_EXACT = 0, /**< int64 values, summed exactly (integer tallies, fixed) */
    MCT_BATCH_FLOAT = 1  /**< double values */
} mct_batch_kind_t;

/** The mark of an exact bin that overflowed. */
#define MCT_BATCH_EXACT_OVERFLOW INT64_MIN

/** One batch of one process, as a combiner sees it. */
typedef struct {
    /* Shape: equal on every process combined (mct_tally_batch_shape fills it). */
    int64_t bins;
    mct_dtype_t dtype;
    mct_method_t method;  /**< may differ between processes where kind and fraction bits agree */
    mct_batch_kind_t kind;
    int fixed_frac_bits;  /**< fixed: the scale of the exact values; else 0 */
    int64_t exact_min;    /**< EXACT: the range a combined bin must lie in (its type's; above INT64_MIN) */
    int64_t exact_max;
    int64_t shadow_words; /**< doubles of the rounding-loss shadow (0 when the estimate is off) */
    mct_backend_t backend;
    int device;
    void* stream;         /**< the tally's stream (cuda) */

    /* Agreement: this process's values in, the combined ones out. */
    mct_status_t status;
    unsigned flags;       /**< MCT_TALLY_FLAG_* raised by this process's kernels in the batch */
    int64_t histories;    /**< this process's histories in the batch (>= 0) */

    /* Step 2: the batch where the backend keeps it. */
    void* device_bins;    /**< bins values in the method's storage (mct_method_storage_size) */
    double* device_shadow; /**< shadow_words doubles, or NULL */

    /* Step 3: the batch on the host. */
    int64_t* exact;       /**< EXACT: bins values; NULL for FLOAT */
    double* values;       /**< FLOAT: bins values; NULL for EXACT */
    double* shadow;       /**< shadow_words doubles, or NULL */
} mct_batch_t;

/** The caller's combiner (see the file's comment for the order of calls). */
typedef struct {
    void* ctx;
    mct_status_t (*agree)(void* ctx, mct_batch_t* batch);
    mct_status_t (*reduce_device)(void* ctx, mct_batch_t* batch, int* reduced); /**< optional */
    mct_status_t (*reduce_host)(void* ctx, mct_batch_t* batch);
} mct_batch_combiner_t;

/** Fills the shape fields of *batch (and zeroes the rest) for this tally:
 * what a combiner compares between processes before the first batch. */
MCT_API mct_status_t mct_tally_batch_shape(mct_tally_t tally, mct_batch_t* batch);

/** Closes a batch of which this process ran `histories` (>= 0) histories,
 * combined with the other processes through `combiner` (see above). The
 * combined batch is folded as mct_tally_end_batch folds its own, and the
 * statuses are those of mct_tally_end_batch, the same on every process:
 * the flags of any process, an exact bin out of its type's range once
 * combined (OVERFLOW; that bin is folded only where its exact value is
 * known), a non-finite combined bin. Also: the status of this process's own
 * failure, or the combiner's (PEER_FAILED when another process failed, as
 * its agree reports), after which the batch is dropped; INVALID_VALUE when
 * all processes together ran no history; OVERFLOW, with nothing read, when
 * the combined histories would take the counts past INT64_MAX. NULL_POINTER
 * for a combiner without agree or reduce_host. */
MCT_API mct_status_t mct_tally_end_batch_combined(mct_tally_t tally, int64_t histories,
                                                  const mct_batch_combiner_t* combiner);

/** a + b of two exact batch values, as a combiner sums them:
 * MCT_BATCH_EXACT_OVERFLOW when either is, or when the sum leaves the int64
 * range. Commutative; associative wherever no partial sum overflows, and
 * for values of one sign it marks exactly the sums that do not fit. */
static inline int64_t mct_batch_exact_add(int64_t a, int64_t b) {
    int64_t s;
    if (a == MCT_BATCH_EXACT_OVERFLOW || b == MCT_BATCH_EXACT_OVERFLOW) return MCT_BATCH_EXACT_OVERFLOW;
    if (__builtin_add_overflow(a, b, &s) || s == MCT_BATCH_EXACT_OVERFLOW) return MCT_BATCH_EXACT_OVERFLOW;
    return s;
}

#ifdef __cplusplus
}
#endif

#endif /* MCT_COMBINE_H */
