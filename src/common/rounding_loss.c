/* SPDX-License-Identifier: BSD-3-Clause */
/** @file rounding_loss.c  The rounding-loss estimate of float tallies: the
 * sampled f64 shadow's bookkeeping, the per-bin estimate and its significance
 * (the design is argued in mctally/mct_rounding.h), and the predictive model. */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mctally/mct_rounding.h"
#include "rounding_loss.h"

/* Probability that a tally losing nothing is reported as losing (per query). */
#define MCT_LOSS_FALSE_ALARM 1e-3

struct mct__loss_s {
    int log2;
    double fraction;
    uint32_t mask;
    double* shadow;      /* backend memory, MCT_LOSS_SHADOW_WORDS per bin */
    double* host_shadow; /* host copy of one batch's shadow */
    /* Per bin, over the batches folded: sampled sum, sampled sum of squares,
     * the tally's own batch sums. */
    double* s1;
    double* s2;
    double* b;
    int64_t bins;
    int64_t batches;
    uint32_t views; /* views handed out: each view's salt */
};

#include "mctally/mct_arith.h"

static int is_float_tally(const mct_tally_desc_t* d) {
    return (d->dtype == MCT_DTYPE_F32 || d->dtype == MCT_DTYPE_F64) && d->method != MCT_METHOD_FIXED;
}

void mct__loss_free(mct__loss_t* l, const mct__backend_ops_t* ops) {
    if (!l) return;
    if (ops) ops->release(l->shadow);
    free(l->host_shadow);
    free(l->s1);
    free(l->s2);
    free(l->b);
    free(l);
}

void mct__loss_view(mct__loss_t* l, mct_tally_view_t* v) {
    v->loss_shadow = l ? l->shadow : NULL;
    v->loss_mask = l ? l->mask : 0u;
    v->loss_salt = l ? ++l->views : 0u;
}

/* Saved state: log2, batches, views (the sampling salts to come), then s1, s2
 * and b, each as 8-byte words in host order. */
size_t mct__loss_state_bytes(const mct__loss_t* l) { return l ? (3 + 3 * (size_t)l->bins) * 8 : 0; }

void mct__loss_state_save(const mct__loss_t* l, unsigned char* p) {
    if (!l) return;
    const int64_t head[3] = {l->log2, l->batches, (int64_t)l->views};
    const size_t n = (size_t)l->bins * sizeof(double);
    memcpy(p, head, sizeof head);
    memcpy(p + 24, l->s1, n);
    memcpy(p + 24 + n, l->s2, n);
    memcpy(p + 24 + 2 * n, l->b, n);
}

mct_status_t mct__loss_state_load(mct__loss_t* l, const unsigned char* p, size_t bytes) {
    if (!l || bytes != mct__loss_state_bytes(l)) return MCT_STATUS_INVALID_VALUE;
    int64_t head[3];
    memcpy(head, p, sizeof head);
    if (head[0] != l->log2 || head[1] < 0 || head[2] < 0 || head[2] > (int64_t)UINT32_MAX) return MCT_STATUS_INVALID_VALUE;
    const size_t n = (size_t)l->bins * sizeof(double);
    l->batches = head[1];
    l->views = (uint32_t)head[2];
    memcpy(l->s1, p + 24, n);
    memcpy(l->s2, p + 24 + n, n);
    memcpy(l->b, p + 24 + 2 * n, n);
    return MCT_STATUS_SUCCESS;
}

mct_status_t mct_tally_enable_rounding_loss(mct_tally_t t, int sample_log2) {
    if (!t) return MCT_STATUS_NULL_POINTER;
    mct_tally_desc_t d;
    void* stream = NULL;
    mct_status_t st = mct_tally_get_desc(t, &d);
    if (!st) st = mct_tally_get_stream(t, &stream);
    if (st) return st;
    if (!is_float_tally(&d)) return MCT_STATUS_NOT_SUPPORTED;
    if (sample_log2 < -1 || sample_log2 > 24) return MCT_STATUS_INVALID_VALUE;
    const mct__backend_ops_t* ops = NULL;
    mct__loss_t** slot = mct__tally_loss_slot(t, &ops);
    mct__loss_free(*slot, ops);
    *slot = NULL;
    if (sample_log2 < 0) return MCT_STATUS_SUCCESS;

    mct__loss_t* l = calloc(1, sizeof *l);
    if (!l) return MCT_STATUS_OUT_OF_MEMORY;
    const size_t n = (size_t)d.bins, shadow_bytes = n * MCT_LOSS_SHADOW_WORDS * sizeof(double);
    l->log2 = sample_log2;
    l->fraction = ldexp(1.0, -sample_log2);
    l->mask = (uint32_t)((UINT64_C(1) << sample_log2) - 1u);
    l->bins = d.bins;
    l->host_shadow = malloc(shadow_bytes);
    l->s1 = calloc(n, sizeof(double));
    l->s2 = calloc(n, sizeof(double));
    l->b = calloc(n, sizeof(double));
    st = (!l->host_shadow || !l->s1 || !l->s2 || !l->b) ? MCT_STATUS_OUT_OF_MEMORY : MCT_STATUS_SUCCESS;
    if (!st) st = ops->alloc(d.device, shadow_bytes, (void**)&l->shadow);
    if (!st) st = ops->zero(l->shadow, shadow_bytes, stream);
    if (st) {
        mct__loss_free(l, ops);
        return st;
    }
    *slot = l;
    return MCT_STATUS_SUCCESS;
}

mct_status_t mct__loss_take(mct__loss_t* l, const mct__backend_ops_t* ops, void* stream) {
    const size_t bytes = (size_t)l->bins * MCT_LOSS_SHADOW_WORDS * sizeof(double);
    mct_status_t st = ops->to_host(l->host_shadow, l->shadow, bytes, stream);
    return st ? st : ops->zero(l->shadow, bytes, stream);
}

void mct__loss_fold(mct__loss_t* l, const double* batch) {
    for (int64_t k = 0; k < l->bins; ++k) {
        l->s1[k] += l->host_shadow[MCT_LOSS_SHADOW_WORDS * k];
        l->s2[k] += l->host_shadow[MCT_LOSS_SHADOW_WORDS * k + 1];
        l->b[k] += batch[k];
    }
    l->batches += 1;
}

double* mct__loss_shadow(mct__loss_t* l, int host, int64_t* words) {
    *words = l ? l->bins * MCT_LOSS_SHADOW_WORDS : 0;
    return l ? (host ? l->host_shadow : l->shadow) : NULL;
}

/* The one-sided standard normal quantile: z with P(Z > z) = p, 0 < p < 1/2. */
static double normal_upper_quantile(double p) {
    double lo = 0.0, hi = 40.0;
    for (int i = 0; i < 200; ++i) {
        const double mid = 0.5 * (lo + hi);
        if (0.5 * erfc(mid / sqrt(2.0)) > p)
            lo = mid;
        else
            hi = mid;
    }
    return 0.5 * (lo + hi);
}

/* One bin's estimate; 0 when the bin does not take part. `lower`: the loss's
 * one-sided lower confidence bound at z standard deviations (mct_rounding.h):
 * the loss at the exact sum's bound e = S^ - z sd (towards zero), (e - B) / e;
 * -inf when that bound reaches zero (the sum itself is not resolved). It is
 * positive exactly when S^ exceeds B (in the sum's direction) by more than
 * z sd, the test on S^ that its normal law supports; loss - z err, the same
 * bound linearized at S^, would test at z |B / S^| instead, below z on the side
 * where a loss shows, and raise the false alarms of a bin resolved to a few
 * percent by several times. */
static int bin_estimate(const mct__loss_t* l, int64_t k, double z, double* loss, double* err, double* samples,
                        double* lower) {
    const double f = l->fraction, s1 = l->s1[k], s2 = l->s2[k];
    if (!(s2 > 0.0) || !isfinite(s1) || !isfinite(s2)) return 0;
    *samples = s1 * s1 / s2;
    if (*samples < MCT_ROUNDING_LOSS_MIN_SAMPLES) return 0;
    const double exact = s1 / f, sd = sqrt((1.0 - f) * s2 / (f * f));
    *loss = (exact - l->b[k]) / exact;
    *err = fabs(l->b[k]) * sd / (exact * exact);
    const double e = exact > 0.0 ? exact - z * sd : exact + z * sd;
    *lower = (exact > 0.0 ? e > 0.0 : e < 0.0) ? (e - l->b[k]) / e : -INFINITY;
    return isfinite(*loss) && isfinite(*err);
}

mct_status_t mct_tally_rounding_loss(mct_tally_t t, mct_rounding_loss_t* info) {
    if (!t || !info) return MCT_STATUS_NULL_POINTER;
    mct_tally_desc_t d;
    mct_status_t st = mct_tally_get_desc(t, &d);
    if (st) return st;
    if (!is_float_tally(&d)) return MCT_STATUS_NOT_SUPPORTED;
    const mct__backend_ops_t* ops = NULL;
    const mct__loss_t* l = *mct__tally_loss_slot(t, &ops);
    if (!l || l->batches < 1) return MCT_STATUS_INVALID_STATE;

    memset(info, 0, sizeof *info);
    info->worst_bin = -1;
    info->worst_loss = info->worst_loss_err = NAN;
    info->sample_fraction = l->fraction;
    info->batches = l->batches;
    double loss, err, samples, lower, exact_total = 0.0, var_total = 0.0, tally_total = 0.0;
    const double f = l->fraction;
    for (int64_t k = 0; k < l->bins; ++k) {
        exact_total += l->s1[k] / f;
        var_total += (1.0 - f) * l->s2[k] / (f * f);
        tally_total += l->b[k];
        info->bins_estimated += bin_estimate(l, k, 0.0, &loss, &err, &samples, &lower);
    }
    info->total_loss = exact_total != 0.0 ? (exact_total - tally_total) / exact_total : NAN;
    info->total_loss_err =
        exact_total != 0.0 ? fabs(tally_total) * sqrt(var_total) / (exact_total * exact_total) : NAN;
    info->z = normal_upper_quantile(MCT_LOSS_FALSE_ALARM / (double)(info->bins_estimated > 0 ? info->bins_estimated : 1));
    /* Ranked by the lower bound; among bins whose bound is -inf, by the linearized one. */
    double best = -INFINITY, best_linear = -INFINITY;
    for (int64_t k = 0; k < l->bins; ++k) {
        if (!bin_estimate(l, k, info->z, &loss, &err, &samples, &lower)) continue;
        const double linear = loss - info->z * err;
        if (lower > best || info->worst_bin < 0 || (lower == best && linear > best_linear)) {
            best = lower;
            best_linear = linear;
            info->worst_bin = k;
            info->worst_loss = loss;
            info->worst_loss_err = err;
            info->worst_samples = samples;
        }
    }
    info->significant = info->worst_bin >= 0 && best > 0.0;
    return MCT_STATUS_SUCCESS;
}

int mct_rounding_loss_exceeds(const mct_rounding_loss_t* info, double threshold) {
    return info && info->significant && info->worst_loss >= threshold;
}

/* ---- the predictive model -------------------------------------------------- */

/* Regularized upper incomplete gamma function Q(a, x), a > 0 (series for the
 * lower function below a + 1, Lentz's continued fraction above). */
static double gamma_q(double a, double x) {
    if (!(x > 0.0)) return 1.0;
    if (a == 1.0) return exp(-x);
    const double lead = exp(-x + a * log(x) - lgamma(a));
    if (x < a + 1.0) {
        double ap = a, del = 1.0 / a, sum = del;
        for (int n = 0; n < 10000 && fabs(del) > fabs(sum) * 1e-17; ++n) {
            ap += 1.0;
            del *= x / ap;
            sum += del;
        }
        const double q = 1.0 - sum * lead;
        return q > 0.0 ? q : 0.0;
    }
    const double tiny = 1e-300;
    double b = x + 1.0 - a, c = 1.0 / tiny, dd = 1.0 / b, h = dd;
    for (int i = 1; i < 10000; ++i) {
        const double an = -i * (i - a);
        b += 2.0;
        dd = an * dd + b;
        if (fabs(dd) < tiny) dd = tiny;
        c = b + an / c;
        if (fabs(c) < tiny) c = tiny;
        dd = 1.0 / dd;
        const double del = dd * c;
        h *= del;
        if (fabs(del - 1.0) < 1e-16) break;
    }
    return lead * h;
}

/* Terms of the rounded increment summed exactly; above them the rounding
 * error of an add is taken as mean zero (the law is smooth on the scale q). */
#define MCT_LOSS_MODEL_TERMS 512

/* The mean change of a sum of spacing q when a gamma addend of mean 1 and
 * coefficient of variation cv is added: E[q round(v / q)]. */
static double mean_increment(double q, double cv) {
    if (cv == 0.0) { /* every addend is 1 */
        const double r = 1.0 / q, j = floor(r), frac = r - j;
        if (frac > 0.5) return (j + 1.0) * q;
        if (frac < 0.5) return j * q;
        return j == 0.0 ? 0.0 : 1.0; /* a tie to even: 1/2 ulp never moves an even sum; else alternates */
    }
    const double k = 1.0 / (cv * cv), theta = cv * cv; /* shape and scale */
    double sum = 0.0;
    int j = 1;
    for (; j <= MCT_LOSS_MODEL_TERMS; ++j) {
        const double qj = gamma_q(k, (j - 0.5) * q / theta);
        sum += qj;
        if (qj < 1e-18) break;
    }
    if (j > MCT_LOSS_MODEL_TERMS) j = MCT_LOSS_MODEL_TERMS;
    /* q [sum_{i<=J} P(v >= (i-1/2)q) - J P(v >= (J+1/2)q)] + E[v; v >= (J+1/2)q] */
    const double y = (j + 0.5) * q / theta;
    return q * (sum - j * gamma_q(k, y)) + gamma_q(k + 1.0, y);
}

/* Mean relative loss of n addends summed one at a time with a p-bit significand. */
static double sequential_loss(double n, double cv, int p) {
    double s = 1.0, a = 1.0; /* the first add into an empty bin is exact */
    while (a < n) {
        int ex;
        frexp(s, &ex); /* s in [2^(ex-1), 2^ex) */
        const double q = ldexp(1.0, ex - p), top = ldexp(1.0, ex);
        const double d = mean_increment(q, cv);
        if (!(d > 0.0)) break; /* no add moves the sum any more */
        const double m = ceil((top - s) / d);
        if (a + m >= n) {
            s += (n - a) * d;
            a = n;
        } else {
            s += m * d;
            a += m;
        }
    }
    const double loss = 1.0 - s / n;
    return loss > 0.0 ? loss : 0.0;
}

mct_status_t mct_rounding_loss_predict(mct_method_t m, mct_dtype_t d, double adds_per_bin, double addend_cv,
                                       double* rel_loss) {
    if (!rel_loss) return MCT_STATUS_NULL_POINTER;
    mct_status_t st = mct_method_supports(m, d, MCT_BACKEND_CUDA);
    if (st) return st;
    if (!(adds_per_bin >= 1.0) || !(addend_cv >= 0.0 && addend_cv <= 8.0) || !isfinite(adds_per_bin))
        return MCT_STATUS_INVALID_VALUE;
    const int p = d == MCT_DTYPE_F32 ? FLT_MANT_DIG : DBL_MANT_DIG;
    if (d == MCT_DTYPE_I32 || d == MCT_DTYPE_U64 || m == MCT_METHOD_FIXED)
        *rel_loss = 0.0;
    else if (m == MCT_METHOD_KAHAN || m == MCT_METHOD_KAHAN_NAIVE)
        *rel_loss = ldexp(1.0, 1 - FLT_MANT_DIG);
    else if (m == MCT_METHOD_SORT_REDUCE && d == MCT_DTYPE_F32)
        *rel_loss = ldexp(1.0, -FLT_MANT_DIG) + sequential_loss(adds_per_bin, addend_cv, DBL_MANT_DIG);
    else
        *rel_loss = sequential_loss(adds_per_bin, addend_cv, p);
    return MCT_STATUS_SUCCESS;
}
