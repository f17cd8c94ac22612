/* SPDX-License-Identifier: BSD-3-Clause */
/** @file mct_rounding.h  How much of the added value a float tally's rounding
 * has lost: measured during a run (a sampled f64 shadow), and predicted for a
 * method and type before one (for a planner that picks a method for an
 * accuracy need).
 *
 * Measurement. A tally with the estimate enabled (mct_tally_enable_rounding_loss)
 * also adds a hashed subset of its contributions, a fraction f = 2^-k of them
 * (mct_loss_sampled in mct_arith.h, the same rule on every backend), into an
 * f64 shadow of two words per bin: the sampled sum and sum of squares. At each
 * batch's end the shadow is read and zeroed with the bins. Per bin, over the
 * closed batches:
 *
 *     S^  = (sampled sum) / f            unbiased estimate of the exact sum
 *     var = (1 - f) (sampled sum of squares) / f^2   its variance (Bernoulli
 *           sampling, Horvitz-Thompson)
 *     loss = (S^ - B) / S^               B: what the tally holds
 *     err  = |B| sqrt(var) / S^2         its standard uncertainty
 *
 * The estimate compares the bin with what was added to it end to end, so it
 * counts every rounding a method makes on the way (warp sums, shared or
 * register copies, replicas, the bin itself), from the value the tally was
 * given: a caller's own pre-sums (mct_thread_run) enter as the sums they are.
 * A bin takes part when its sampled adds are at least
 * MCT_ROUNDING_LOSS_MIN_SAMPLES effective ones ((sum)^2 / sum of squares), where
 * the normal approximation holds. The loss is significant when S^ exceeds B
 * (in the sum's direction) by more than z sqrt(var), with z the one-sided
 * normal quantile of 10^-3 divided by the number of bins taking part
 * (Bonferroni): a tally that loses nothing is reported as losing in fewer than
 * one run in a thousand. The test is on S^, whose law the sampling makes
 * normal, not on loss / err: err is linearized at S^, so loss > z err would
 * test S^ - B at z |B / S^|, below z where a loss shows, and flag a bin
 * resolved to a few percent several times too often. The loss's lower bound
 * is the same test's: 1 - B / (S^ - z sqrt(var)) (the bound taken towards
 * zero; -inf where it reaches zero), and the worst bin is the one whose lower
 * bound is largest.
 *
 * Why a sampled shadow: it measures what happened (not a bound that assumes an
 * order), for every method and backend alike, at the cost of one hash per add
 * and two f64 atomics per sampled add; a tally without it pays one test of a
 * NULL pointer per add. Its resolution is statistical: the relative
 * uncertainty of a bin is about sqrt((1 + cv^2) / (f n)) for n adds of
 * coefficient of variation cv, e.g. 0.3 % at f = 1/64 and n = 1.6e7 (where an
 * f32 bin of exponential deposits loses 2 %). The shadow's own rounding (f64)
 * is below 2^-53 n relative, far under that resolution. A bin that one huge
 * add dominates is estimated with the variance that add gives it (large).
 *
 * Methods: every float method (atomic, cas, wag, wib, wag_match, shared,
 * warp_reduce, block_reduce, replicated, kahan, kahan_naive, sort_reduce), on
 * every backend, through mct_add, mct_block_tally and the whole-array adds.
 * Not `fixed`, whose values are integers (its one rounding is the conversion to
 * 2^-s, unbiased and at most 2^-s-1 per add), nor integer tallies (exact). */
#ifndef MCT_ROUNDING_H
#define MCT_ROUNDING_H

#include <stdint.h>

#include "mctally/mct_tally.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Effective sampled adds a bin needs to take part in the estimate. */
#define MCT_ROUNDING_LOSS_MIN_SAMPLES 32.0

/** Default sampling: 2^-6 = 1/64 of the adds. */
#define MCT_ROUNDING_LOSS_DEFAULT_LOG2 6

/** What mct_tally_rounding_loss reports; losses are relative, (exact - tally)
 * / exact: positive when value was lost. */
typedef struct {
    int64_t worst_bin;        /**< the bin with the largest lower bound (1 - B / (S^ - z sqrt(var)), above); -1 when no bin took part */
    double worst_loss;        /**< its estimated relative loss */
    double worst_loss_err;    /**< its standard uncertainty */
    double worst_samples;     /**< its effective sampled adds */
    double total_loss;        /**< the tally's summed bins against the estimated exact total */
    double total_loss_err;    /**< its standard uncertainty */
    double z;                 /**< the significance multiple used (Bonferroni over bins_estimated) */
    int64_t bins_estimated;   /**< bins that took part */
    int significant;          /**< 1 when the worst bin's loss exceeds z * worst_loss_err */
    double sample_fraction;   /**< f */
    int64_t batches;          /**< batches folded into the estimate */
} mct_rounding_loss_t;

/** Enables the estimate on a float tally, sampling a fraction 2^-sample_log2
 * of the adds (0 <= sample_log2 <= 24; MCT_ROUNDING_LOSS_DEFAULT_LOG2 is the
 * default), or disables it (sample_log2 = -1) and frees the shadow. Call it
 * before the first add of a batch (a view taken earlier does not sample):
 * right after mct_tally_create, or after mct_tally_end_batch. Enabling again
 * restarts the estimate. NULL_POINTER; INVALID_VALUE (sample_log2 out of
 * range); NOT_SUPPORTED (an integer tally, or method fixed); OUT_OF_MEMORY,
 * TOO_LARGE or a backend error when the shadow cannot be made. */
MCT_API mct_status_t mct_tally_enable_rounding_loss(mct_tally_t tally, int sample_log2);

/** The estimate over the batches closed since it was enabled. NULL_POINTER;
 * NOT_SUPPORTED (an integer tally, or method fixed); INVALID_STATE (the
 * estimate is not enabled, or no batch has been closed since). */
MCT_API mct_status_t mct_tally_rounding_loss(mct_tally_t tally, mct_rounding_loss_t* info);

/** 1 when `info` shows a significant loss of at least `threshold` (a fraction,
 * e.g. 0.01) in its worst bin; 0 otherwise, and for NULL. */
MCT_API int mct_rounding_loss_exceeds(const mct_rounding_loss_t* info, double threshold);

/** The expected relative loss of one bin that takes `adds_per_bin` positive
 * addends, independent and gamma distributed with coefficient of variation
 * `addend_cv` (0: all equal; 1: exponential; at most 8), added one at a time
 * in the tally's precision: the mean of (exact - tally) / exact over runs.
 *
 * Model: the bin's value climbs through its binades; in a binade of spacing q
 * each add moves it by q * round(v / q), whose mean over the addends' law is
 * summed exactly (the regularized incomplete gamma function), so the loss
 * follows in one step per binade. The fluctuations of the running sum about its
 * mean are left out; tests/api/test_rounding_loss.c holds the model to exact
 * sums of simulated addends.
 *
 * By method: the per-add methods (atomic, cas, wag, wib, wag_match, shared,
 * warp_reduce, block_reduce, replicated) are predicted as one add per
 * contribution into one accumulator, the case of a hot bin whose adds nothing
 * aggregates (warp aggregation, block copies and replicas take fewer, larger
 * addends, and lose less); kahan and kahan_naive: 2u (u = 2^-24), the first
 * order of Kahan's bound (kahan's compensated adds have no first-order term);
 * sort_reduce: sums each bin in f64 and rounds once (u for f32, and the f64
 * model for f64); fixed and integer types: 0 (exact, or an unbiased
 * conversion). NULL_POINTER; UNKNOWN_METHOD / UNKNOWN_DTYPE; NOT_SUPPORTED
 * (a method that cannot add the type: kahan with f64, cas with integers);
 * INVALID_VALUE (adds_per_bin < 1, addend_cv outside [0, 8], NaN). */
MCT_API mct_status_t mct_rounding_loss_predict(mct_method_t method, mct_dtype_t dtype, double adds_per_bin,
                                               double addend_cv, double* rel_loss);

#ifdef __cplusplus
}
#endif

#endif /* MCT_ROUNDING_H */
