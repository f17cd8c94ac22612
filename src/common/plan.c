/* SPDX-License-Identifier: BSD-3-Clause */
/** @file plan.c  The planner: which methods are admissible for a descriptor
 * (the method table's facts in types.c, the rounding-loss model, the fit of
 * shared copies and replicas), and the ranking of the admissible ones by
 * estimate, measurement or saved wisdom (mct_plan.h). */
#define _POSIX_C_SOURCE 200809L
#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <omp.h>

#include "backend.h"
#include "mctally/mct_config.h"
#include "plan.h"

double mct__plan_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* ---- Names ------------------------------------------------------------------------ */

static const char* const mode_names[] = {"estimate", "measure"};
static const char* const source_names[] = {"explicit", "estimate", "measure", "wisdom"};
static const char* const pattern_names[MCT_PATTERN_COUNT] = {"unknown", "uniform", "sorted", "hot", "few"};
static const char* const adds_names[] = {"arrays", "kernel"};

const char* mct_plan_mode_name(mct_plan_mode_t m) { return (unsigned)m < 2 ? mode_names[m] : "invalid"; }
const char* mct_plan_source_name(mct_plan_source_t s) { return (unsigned)s < 4 ? source_names[s] : "invalid"; }
const char* mct_key_pattern_name(mct_key_pattern_t p) {
    return (unsigned)p < MCT_PATTERN_COUNT ? pattern_names[p] : "invalid";
}
const char* mct_adds_name(mct_adds_t a) { return (unsigned)a < 2 ? adds_names[a] : "invalid"; }

static mct_status_t from_names(const char* const* names, int count, const char* name, int* out) {
    if (!name || !out) return MCT_STATUS_NULL_POINTER;
    for (int i = 0; i < count; ++i)
        if (!strcmp(names[i], name)) {
            *out = i;
            return MCT_STATUS_SUCCESS;
        }
    return MCT_STATUS_INVALID_VALUE;
}

mct_status_t mct_plan_mode_from_name(const char* name, mct_plan_mode_t* out) {
    int i = 0;
    mct_status_t st = from_names(mode_names, 2, name, &i);
    if (!st) *out = (mct_plan_mode_t)i;
    return st;
}
mct_status_t mct_key_pattern_from_name(const char* name, mct_key_pattern_t* out) {
    int i = 0;
    mct_status_t st = from_names(pattern_names, MCT_PATTERN_COUNT, name, &i);
    if (!st) *out = (mct_key_pattern_t)i;
    return st;
}
/* The names are mct_determinism_name's (types.c), so the two cannot drift. */
mct_status_t mct_determinism_from_name(const char* name, mct_determinism_t* out) {
    if (!name || !out) return MCT_STATUS_NULL_POINTER;
    for (int d = MCT_NOT_GUARANTEED; d <= MCT_BITWISE; ++d)
        if (!strcmp(mct_determinism_name((mct_determinism_t)d), name)) {
            *out = (mct_determinism_t)d;
            return MCT_STATUS_SUCCESS;
        }
    return MCT_STATUS_INVALID_VALUE;
}

/* ---- Descriptor checks ---------------------------------------------------------------- */

mct_status_t mct__plan_validate(const mct_tally_desc_t* d) {
    if (d->method != MCT_METHOD_AUTO && (unsigned)d->method >= MCT_METHOD_COUNT) return MCT_STATUS_UNKNOWN_METHOD;
    if ((unsigned)d->determinism > MCT_BITWISE || (unsigned)d->plan_mode > MCT_PLAN_MEASURE ||
        (unsigned)d->key_pattern >= MCT_PATTERN_COUNT || (unsigned)d->adds > MCT_ADDS_KERNEL)
        return MCT_STATUS_INVALID_VALUE;
    if (!(d->max_rel_loss >= 0.0) || !isfinite(d->max_rel_loss) || !(d->adds_per_bin >= 0.0) ||
        !isfinite(d->adds_per_bin) || !(d->plan_budget_s >= 0.0) || !isfinite(d->plan_budget_s))
        return MCT_STATUS_INVALID_VALUE;
    if (d->key_sample_n < 0 || (d->key_sample_n > 0 && !d->key_sample)) return MCT_STATUS_INVALID_VALUE;
    if (d->width < 1 || d->width > d->bins) return MCT_STATUS_INVALID_VALUE;
    return MCT_STATUS_SUCCESS;
}

/* ---- Admissibility --------------------------------------------------------------------- */

typedef struct {
    const mct_tally_desc_t* d;
    mct__plan_workload_t w;
    const mct__backend_ops_t* ops; /* NULL when the backend is not here (estimate only) */
    size_t free_bytes;             /* backend memory free, 0 when unknown */
    char device[256];              /* the backend's device name, probed once */
    int explain;                   /* write the reasons (why, reason); a plan without them is the same plan */
} plan_ctx_t;

/* A plan inside mct_tally_create writes no reasons (mct__plan_explain makes it
 * again with them when asked), and most of what it costs there is memory that
 * later GPU work has pushed out of the caches: the code that writes reasons is
 * kept out of line (cold), so that the path taken without them is short. */
#if defined(__GNUC__)
#define PLAN_COLD __attribute__((cold, noinline))
#define PLAN_NOINLINE __attribute__((noinline))
#define PLAN_UNLIKELY(x) __builtin_expect(!!(x), 0)
#else
#define PLAN_COLD
#define PLAN_NOINLINE
#define PLAN_UNLIKELY(x) (x)
#endif

/* printf into out (append: after what it holds). */
static PLAN_COLD void why_printf(char* out, size_t size, int append, const char* fmt, ...) {
    const size_t len = append ? strnlen(out, size) : 0;
    if (len + 1 >= size) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(out + len, size - len, fmt, ap);
    va_end(ap);
}

/* A reason into `why`, when the plan explains itself (why != NULL). */
#define WHY(...) (PLAN_UNLIKELY(why != NULL) ? why_printf(why, size, 0, __VA_ARGS__) : (void)0)

/* 1 when `m` meets every need of the descriptor; else 0 and why. The facts
 * are the method table's (mct_method_supports, mct_method_determinism) and the
 * rounding-loss model's. */
static int admissible(const plan_ctx_t* c, mct_method_t m, char* why, size_t size) {
    const mct_tally_desc_t* d = c->d;
    /* A method the caller names is held to the needs only: whether it serves the
     * type, backend and bin count is mct_tally_create's own check, with its own
     * statuses. */
    const int named = d->method != MCT_METHOD_AUTO;
    if (!named && d->method_mask && !(d->method_mask & (1u << m))) {
        WHY("not among the methods the caller can run");
        return 0;
    }
    if (!named && mct_method_supports(m, d->dtype, c->w.backend)) {
        WHY("cannot serve %s on %s", mct_dtype_name(d->dtype), mct_backend_name(c->w.backend));
        return 0;
    }
    const mct_determinism_t det = mct_method_determinism(m, d->dtype);
    if (det < d->determinism) {
        WHY("gives %s, %s needed", mct_determinism_name(det), mct_determinism_name(d->determinism));
        return 0;
    }
    if (d->max_rel_loss > 0.0) {
        const double loss = mct_plan_rounding_loss(d->dtype, m, d->adds_per_bin, d->fixed_frac_bits);
        if (loss > d->max_rel_loss) {
            if (m == MCT_METHOD_FIXED)
                WHY("rounding loss %.2g > %.2g (fixed point, %d fraction bits)", loss, d->max_rel_loss,
                    d->fixed_frac_bits);
            else if (d->adds_per_bin > 0.0)
                WHY("predicted rounding loss %.2g > %.2g at %.3g adds per bin", loss, d->max_rel_loss,
                    d->adds_per_bin);
            else
                WHY("rounding loss up to %.2g > %.2g (adds per bin unknown)", loss, d->max_rel_loss);
            return 0;
        }
    }
    const size_t smem = mct__plan_shared_bytes(m, d->dtype, d->bins);
    if (!named && c->w.backend != MCT_BACKEND_CPU && smem > MCT_BLOCK_TALLY_SMEM_LIMIT) {
        WHY("%.3g KiB of bins do not fit a block's %d KiB of shared memory", (double)smem / 1024.0,
            MCT_BLOCK_TALLY_SMEM_LIMIT / 1024);
        return 0;
    }
    /* Replicated needs at least two copies beside the bins. */
    const double replica = (double)d->bins * (double)mct_method_storage_size(m, d->dtype);
    if (!named && m == MCT_METHOD_REPLICATED && c->free_bytes && 3.0 * replica > 0.5 * (double)c->free_bytes) {
        WHY("no room for replicas (%.3g MB each)", replica / 1e6);
        return 0;
    }
    if (!why) return 1;
    const double loss = mct_plan_rounding_loss(d->dtype, m, d->adds_per_bin, d->fixed_frac_bits);
    if (d->max_rel_loss > 0.0)
        WHY("%s; rounding loss <= %.2g", mct_determinism_name(det), loss);
    else
        WHY("%s", mct_determinism_name(det));
    return 1;
}

/* ---- Ranking ------------------------------------------------------------------------- */

typedef struct {
    mct_plan_entry_t e;
    double key; /* ranking key: smaller first */
} ranked_t;

static int cmp_ranked(const void* a, const void* b) {
    const ranked_t *x = a, *y = b;
    if (x->e.admissible != y->e.admissible) return y->e.admissible - x->e.admissible;
    if (x->key != y->key) return x->key < y->key ? -1 : 1;
    return (int)x->e.method - (int)y->e.method;
}

/* Copies r (n <= MCT_METHOD_COUNT) into info's ranking in cmp_ranked's order. An
 * insertion sort of indices: no allocation and no library code to bring into
 * a cold cache, which is what a plan's time is made of between GPU runs. A
 * plan without reasons keeps the first entry only (the chosen method, what
 * wisdom saves): the ranking is the explanation's, written when one is asked. */
static void fill_ranking(mct_plan_info_t* info, const ranked_t* r, int n, int explain) {
    int order[MCT_METHOD_COUNT];
    for (int i = 0; i < n; ++i) {
        int j = i;
        for (; j > 0 && cmp_ranked(&r[i], &r[order[j - 1]]) < 0; --j) order[j] = order[j - 1];
        order[j] = i;
    }
    info->nentries = explain || n < 1 ? n : 1;
    for (int i = 0; i < info->nentries; ++i) info->ranking[i] = r[order[i]].e;
}

/* Estimate: the model's time per update. With a known pattern, the fastest;
 * with none, the method whose worst ratio to the best over the patterns is
 * smallest (it is never far off whatever the keys turn out to be). */
static int rank_estimate(const plan_ctx_t* c, mct_key_pattern_t pattern, ranked_t* r, int n) {
    int best = -1;
    if (pattern != MCT_PATTERN_UNKNOWN) {
        for (int i = 0; i < n; ++i) {
            const char* src = NULL;
            const double t = mct__plan_model(&c->w, pattern, r[i].e.method, &src);
            r[i].e.seconds_per_update = t;
            if (r[i].e.admissible && t < 0.0) {
                r[i].e.admissible = 0;
                if (PLAN_UNLIKELY(c->explain)) why_printf(r[i].e.why, sizeof r[i].e.why, 0, "no figure in the model");
            }
            r[i].key = t >= 0.0 ? t : HUGE_VAL;
            if (PLAN_UNLIKELY(c->explain) && t >= 0.0)
                why_printf(r[i].e.why, sizeof r[i].e.why, 1, " (%.3g ns/update, %s)", 1e9 * t, src);
        }
    } else {
        static const mct_key_pattern_t kinds[] = {MCT_PATTERN_UNIFORM, MCT_PATTERN_SORTED, MCT_PATTERN_HOT};
        double best_t[3] = {HUGE_VAL, HUGE_VAL, HUGE_VAL};
        for (int k = 0; k < 3; ++k)
            for (int i = 0; i < n; ++i) {
                const double t = mct__plan_model(&c->w, kinds[k], r[i].e.method, NULL);
                if (r[i].e.admissible && t >= 0.0 && t < best_t[k]) best_t[k] = t;
            }
        for (int i = 0; i < n; ++i) {
            double worst = 0.0, tmax = 0.0;
            int have = 1;
            for (int k = 0; k < 3; ++k) {
                const double t = mct__plan_model(&c->w, kinds[k], r[i].e.method, NULL);
                if (t < 0.0) have = 0;
                if (t > tmax) tmax = t;
                if (t >= 0.0 && best_t[k] < HUGE_VAL && t / best_t[k] > worst) worst = t / best_t[k];
            }
            if (r[i].e.admissible && !have) {
                r[i].e.admissible = 0;
                if (PLAN_UNLIKELY(c->explain)) why_printf(r[i].e.why, sizeof r[i].e.why, 0, "no figure in the model");
            }
            r[i].e.seconds_per_update = have ? tmax : -1.0;
            r[i].key = have ? worst : HUGE_VAL;
            if (PLAN_UNLIKELY(c->explain) && have) {
                const char* src = NULL;
                mct__plan_model(&c->w, MCT_PATTERN_UNIFORM, r[i].e.method, &src);
                why_printf(r[i].e.why, sizeof r[i].e.why, 1, " (worst pattern %.3gx the best, %s)", worst, src);
            }
        }
    }
    for (int i = 0; i < n; ++i)
        if (r[i].e.admissible && (best < 0 || cmp_ranked(&r[i], &r[best]) < 0)) best = i;
    return best;
}

/* Synthetic keys of a pattern over `cells` cells, from a fixed seed. */
static void synth_keys(uint32_t* k, int64_t n, int64_t cells, mct_key_pattern_t p) {
    uint64_t s = 0x9E3779B97F4A7C15ull;
    for (int64_t i = 0; i < n; ++i) {
        s ^= s << 13, s ^= s >> 7, s ^= s << 17;
        const uint64_t r = s % (uint64_t)cells;
        switch (p) {
        case MCT_PATTERN_SORTED: k[i] = (uint32_t)((i * cells) / n); break;
        case MCT_PATTERN_HOT: k[i] = (s >> 40) & 1 ? (uint32_t)(cells / 2) : (uint32_t)r; break;
        case MCT_PATTERN_FEW: k[i] = (uint32_t)((r % 4) * (uint64_t)(cells / 4 > 0 ? cells / 4 : 1) % (uint64_t)cells); break;
        default: k[i] = (uint32_t)r; break;
        }
    }
}

/* Measure: the estimate's MEASURE_TOP admissible methods, in its order, each on
 * a scratch tally of the same shape on the tally's own backend. The keys are
 * the caller's sample (or synthetic keys of its pattern) repeated to a size at
 * which the adds, not the launches and waits, dominate (up to 2^23 updates on a
 * GPU), so the pattern's contention is what is timed: one warm-up, then timed
 * rounds of `inner` adds with one flush and one wait, on the whole sample and
 * on its first quarter, until the method's share of the budget is spent; the
 * time per update is the difference of the two over the difference of their
 * updates. Methods far down the estimate are not measured (a CAS loop on a hot
 * bin could take minutes on such a sample); they, and those the budget does not
 * reach, keep their estimate and rank after the measured.
 *
 * The size follows the budget: the largest power of two at which every
 * candidate's warm-up and one round fit it, by the estimate's time per update
 * and MEASURE_LAUNCH_S per launch and wait. A size whose adds take less than
 * MEASURE_MIN_ADD_S times launches, not adds; when even that size does not fit,
 * nothing is measured (*measured = 0) and the estimate stands. */
#define MEASURE_TOP 4
#define MEASURE_TIE 0.05
#define MEASURE_LAUNCH_S 1.5e-5
#define MEASURE_MIN_ADD_S 2e-5
#define MCT__PLAN_XSTR(x) #x
#define MCT__PLAN_STR(x) MCT__PLAN_XSTR(x)
/* The measured sample's keys for `budget` (see above); 0 when none fits. */
static int64_t measure_size(const plan_ctx_t* c, const ranked_t* r, int n, int64_t updates, int inner, double budget) {
    const mct_tally_desc_t* d = c->d;
    double spu_sum = 0.0, spu_min = HUGE_VAL;
    int candidates = 0;
    for (int i = 0; i < n && candidates < MEASURE_TOP; ++i) {
        if (!r[i].e.admissible) continue;
        const double spu = r[i].e.seconds_per_update > 0.0 ? r[i].e.seconds_per_update : 1e-9;
        spu_sum += spu;
        if (spu < spu_min) spu_min = spu;
        ++candidates;
    }
    if (candidates == 0) return 0;
    const double w = (double)d->width;
    const int gpu = c->w.backend == MCT_BACKEND_CUDA;
    const int64_t top = updates / d->width > 0 ? updates / d->width : 1;
    const int64_t least = gpu ? 1 : (top < 1024 ? top : 1024); /* host backends: no launch to hide */
    /* Warm-up (one launch set over the sample) and one round (the sample and its
     * quarter): 2.25 x inner x the sample's updates, and 3 x inner launches and
     * waits, per candidate. */
    for (int64_t ns = top; ns >= least; ns /= 2) {
        if (gpu && ns < top && (double)ns * w * spu_min < MEASURE_MIN_ADD_S) break;
        const double cost = 2.25 * inner * (double)ns * w * spu_sum + (gpu ? 3.0 * inner * candidates * MEASURE_LAUNCH_S : 0.0);
        if (cost <= budget) return ns;
    }
    return 0;
}

/* The reasons of a ranking made without them (the same admissibility and
 * estimate, written): a plan that measures cannot be made again later. */
static void explain_entries(plan_ctx_t* c, mct_key_pattern_t pattern, ranked_t* r, int n) {
    c->explain = 1;
    for (int i = 0; i < n; ++i) {
        r[i].e.why[0] = 0;
        r[i].e.admissible = admissible(c, r[i].e.method, r[i].e.why, sizeof r[i].e.why);
    }
    rank_estimate(c, pattern, r, n);
}

/* Out of line: its milliseconds are the devices'; inline, it would stretch
 * the estimate's path through plan_run. */
static PLAN_NOINLINE mct_status_t rank_measure(plan_ctx_t* c, mct_key_pattern_t pattern, ranked_t* r, int n,
                                 double budget, int64_t* sample_n, int* measured) {
    const mct_tally_desc_t* d = c->d;
    const int64_t cells = d->bins / d->width;
    const int inner = c->w.backend == MCT_BACKEND_CUDA ? 4 : 1;
    const int64_t updates = c->w.backend == MCT_BACKEND_CUDA ? (INT64_C(1) << 23)
                            : c->w.backend == MCT_BACKEND_CPU ? (INT64_C(1) << 18)
                                                              : (INT64_C(1) << 12);
    *measured = 0;
    *sample_n = 0;
    int64_t ns = measure_size(c, r, n, updates, inner, budget);
    if (ns == 0) return MCT_STATUS_SUCCESS; /* not even the smallest measurement fits */
    *measured = 1;
    if (!c->explain) explain_entries(c, pattern, r, n);
    const int64_t nv = ns * d->width;
    uint32_t* keys = malloc((size_t)ns * sizeof *keys);
    double* values = malloc((size_t)nv * sizeof *values);
    void *dkeys = NULL, *dvalues = NULL;
    mct_status_t st = keys && values ? MCT_STATUS_SUCCESS : MCT_STATUS_OUT_OF_MEMORY;
    if (!st) {
        if (d->key_sample_n > 0) /* the sample, repeated: its pattern at the measured size */
            for (int64_t i = 0; i < ns; ++i) {
                const uint32_t k = d->key_sample[i % d->key_sample_n];
                keys[i] = k < (uint64_t)cells ? k : (uint32_t)(cells - 1);
            }
        else
            synth_keys(keys, ns, cells, pattern == MCT_PATTERN_UNKNOWN ? MCT_PATTERN_UNIFORM : pattern);
        for (int64_t i = 0; i < nv; ++i) values[i] = 0.5 + (double)((i * 2654435761u) % 1000u) / 1000.0;
        st = c->ops->alloc(d->device, (size_t)ns * sizeof *keys, &dkeys);
        if (!st) st = c->ops->alloc(d->device, (size_t)nv * sizeof *values, &dvalues);
        if (!st) st = c->ops->to_device(dkeys, keys, (size_t)ns * sizeof *keys, NULL);
        if (!st) st = c->ops->to_device(dvalues, values, (size_t)nv * sizeof *values, NULL);
    }
    *sample_n = ns;
    const double t_start = mct__plan_now();
    int candidates = 0;
    for (int i = 0; i < n; ++i) candidates += r[i].e.admissible;
    if (candidates > MEASURE_TOP) candidates = MEASURE_TOP;
    int tried = 0;
    double last_warm = 0.0;
    for (int i = 0; !st && i < n; ++i) {
        if (!r[i].e.admissible) continue;
        const double used = mct__plan_now() - t_start;
        if (tried >= MEASURE_TOP || (used + last_warm > budget && tried > 0)) {
            /* Ranked after every measured method, in the estimate's order. */
            r[i].key = 1e6 + r[i].key;
            snprintf(r[i].e.why + strlen(r[i].e.why), sizeof r[i].e.why - strlen(r[i].e.why), "; not measured: %s",
                     tried >= MEASURE_TOP ? "below the estimate's first " MCT__PLAN_STR(MEASURE_TOP) : "budget spent");
            continue;
        }
        const double share = (budget - used) / (double)(candidates - tried > 0 ? candidates - tried : 1);
        ++tried;
        mct_tally_desc_t sd = *d;
        sd.method = r[i].e.method;
        sd.wisdom = NULL, sd.key_sample = NULL, sd.key_sample_n = 0, sd.method_mask = 0;
        sd.determinism = MCT_NOT_GUARANTEED, sd.max_rel_loss = 0.0;
        if (sd.method == MCT_METHOD_SORT_REDUCE) sd.pair_capacity = nv * inner;
        mct_tally_t s = NULL;
        mct_status_t sst = mct_tally_create(&s, &sd);
        double w0 = mct__plan_now();
        for (int k = 0; !sst && k < inner; ++k) sst = mct_tally_add_device_grouped(s, dkeys, dvalues, ns, d->width, ns);
        if (!sst) sst = mct_tally_flush(s);
        if (!sst) sst = c->ops->to_host(keys, dkeys, sizeof *keys, NULL);
        last_warm = mct__plan_now() - w0;
        /* Each round times `inner` launches over the whole sample and `inner`
         * over its first quarter: their difference is the time per update at
         * scale, without what a launch costs whatever its size (a block's
         * flush of its shared bins, the launch and the wait), which would
         * otherwise weigh a dozen times more on the sample than on a run of
         * 1e8 updates and favour the methods that keep no block state. */
        int64_t nq = ns / 4 > 0 ? ns / 4 : 1;
        int reps = 0;
        double t0 = mct__plan_now(), t = 0.0, t_full = 0.0, t_quarter = 0.0;
        /* A warm-up that already spent the method's share is its measurement. */
        while (!sst && last_warm < share) {
            for (int part = 0; part < 2 && !sst; ++part) {
                const int64_t m = part ? nq : ns;
                const double p0 = mct__plan_now();
                for (int k = 0; !sst && k < inner; ++k)
                    sst = mct_tally_add_device_grouped(s, dkeys, dvalues, m, d->width, m);
                if (!sst) sst = mct_tally_flush(s);
                if (!sst) sst = c->ops->to_host(keys, dkeys, sizeof *keys, NULL);
                *(part ? &t_quarter : &t_full) += mct__plan_now() - p0;
            }
            ++reps;
            t = mct__plan_now() - t0;
            if (t + t / reps > share || reps >= 64) break;
        }
        mct_tally_destroy(s);
        if (sst) {
            r[i].e.admissible = 0;
            snprintf(r[i].e.why, sizeof r[i].e.why, "scratch tally failed: %s", mct_status_name(sst));
            continue;
        }
        if (reps == 0) t_full = last_warm, reps = 1, t_quarter = 0.0, nq = 0;
        const double updates_run = (double)reps * (double)inner * (double)nv;
        const double quarter_run = (double)reps * (double)inner * (double)(nq * d->width);
        double spu = (t_full - t_quarter) / (updates_run - quarter_run);
        if (!(spu > 0.0) || nq == ns) spu = t_full / updates_run; /* noise larger than the difference */
        r[i].e.seconds_per_update = spu;
        r[i].key = spu;
        snprintf(r[i].e.why + strlen(r[i].e.why), sizeof r[i].e.why - strlen(r[i].e.why), "; measured x%d", reps * inner);
    }
    /* Near ties go to the estimate: the sample is not the run (its runs of
     * equal keys are cut at the sample's seams, its launches are smaller), and
     * methods that both run at the memory's speed differ on it by a few per cent
     * either way; the estimate's order comes from full-size runs. r is in the
     * estimate's order, so the first measured method within MEASURE_TIE of the
     * fastest takes the fastest's place. */
    double fastest = HUGE_VAL;
    for (int i = 0; i < n; ++i)
        if (r[i].e.admissible && r[i].key < 1e6 && r[i].key < fastest) fastest = r[i].key;
    for (int i = 0; !st && i < n; ++i)
        if (r[i].e.admissible && r[i].key < 1e6 && r[i].key <= fastest * (1.0 + MEASURE_TIE)) {
            if (r[i].key > fastest)
                snprintf(r[i].e.why + strlen(r[i].e.why), sizeof r[i].e.why - strlen(r[i].e.why),
                         "; within %.0f %% of the fastest measured, first in the estimate", 100.0 * MEASURE_TIE);
            r[i].key = fastest * (1.0 - 1e-9);
            break;
        }
    if (c->ops && dkeys) c->ops->release(dkeys);
    if (c->ops && dvalues) c->ops->release(dvalues);
    free(keys);
    free(values);
    return st;
}

#define MCT__PLAN_REPLICA_QUERY (16.0 * 1024 * 1024)

/* MEASURE's budget: plan_budget_s (0.25 s when unset), and at most
 * MCT__PLAN_RUN_SHARE_PCT % of the batch the caller announces (adds_per_bin x
 * the bins' keys, at the estimate's fastest time per update), so that planning
 * stays a small share of the work it plans for. r is in the estimate's order. */
#define MCT__PLAN_RUN_SHARE_PCT 2
static double measure_budget(const mct_tally_desc_t* d, const ranked_t* r, int n) {
    double budget = d->plan_budget_s > 0.0 ? d->plan_budget_s : 0.25;
    if (d->adds_per_bin > 0.0 && n > 0 && r[0].e.admissible && r[0].e.seconds_per_update > 0.0) {
        const double batch_s = d->adds_per_bin * (double)(d->bins / d->width) * r[0].e.seconds_per_update;
        const double share = 0.01 * MCT__PLAN_RUN_SHARE_PCT * batch_s;
        if (share < budget) budget = share;
    }
    return budget;
}

/* ---- The plan ---------------------------------------------------------------------- */

static int ceil_log2(double x) {
    int k = 0;
    while (k < 64 && ldexp(1.0, k) < x) ++k;
    return k;
}

static void wisdom_key(const plan_ctx_t* c, mct_key_pattern_t pattern, mct__wisdom_key_t* k) {
    const mct_tally_desc_t* d = c->d;
    memset(k, 0, sizeof *k);
    snprintf(k->device, sizeof k->device, "%s", c->device[0] ? c->device : "unknown");
    k->cc = c->ops->compute_capability(d->device);
    k->backend = c->w.backend;
    k->dtype = d->dtype;
    k->bins_log2 = ceil_log2((double)d->bins);
    k->width = d->width;
    k->adds = d->adds;
    k->determinism = d->determinism;
    k->max_rel_loss = d->max_rel_loss;
    k->adds_log2 = d->adds_per_bin > 0.0 ? ceil_log2(d->adds_per_bin) : -1;
    k->pattern = pattern;
    k->method_mask = d->method_mask;
    k->fixed_frac_bits = d->fixed_frac_bits;
}

/* What to change when nothing is admissible. */
static PLAN_COLD void unsatisfiable_reason(const mct_tally_desc_t* d, mct_backend_t b, char* out, size_t size) {
    const int flt = d->dtype == MCT_DTYPE_F32 || d->dtype == MCT_DTYPE_F64;
    char hint[320] = "";
    if (flt && d->max_rel_loss > 0.0 && d->adds_per_bin <= 0.0)
        strcat(hint, "; give the expected adds per bin so the rounding loss can be judged");
    if (d->dtype == MCT_DTYPE_F32 && d->max_rel_loss > 0.0) strcat(hint, "; a wider type (f64) or a looser bound may do");
    if (flt && d->determinism == MCT_BITWISE)
        strcat(hint, "; fixed is the bitwise float method, integer types are bitwise with every method");
    if (flt && d->determinism == MCT_RUN_TO_RUN)
        strcat(hint, "; replicated, sort_reduce and fixed are the run-to-run float methods");
    if (d->method_mask) strcat(hint, "; the caller's method mask excludes the others");
    char loss[64] = "";
    if (d->max_rel_loss > 0.0) snprintf(loss, sizeof loss, " and rounding loss <= %.3g", d->max_rel_loss);
    snprintf(out, size, "no method meets determinism %s%s for %s on %s%s", mct_determinism_name(d->determinism), loss,
             mct_dtype_name(d->dtype), mct_backend_name(b), hint);
}

static PLAN_COLD void pattern_phrase(const mct_plan_info_t* info, char* out, size_t size) {
    if (info->pattern == MCT_PATTERN_UNKNOWN)
        snprintf(out, size, "keys of unknown pattern");
    else
        snprintf(out, size, "%s keys", mct_key_pattern_name(info->pattern));
}

/* The plan. `given`: the facts of an earlier plan of the same descriptor, to
 * make it again with its reasons (no sample, device, memory or wisdom read);
 * NULL: a new plan, whose facts go to *learnt. */
static mct_status_t plan_run(const mct_tally_desc_t* d, const char* device_name, const size_t* device_free, int explain,
                             const mct__plan_facts_t* given, mct__plan_facts_t* learnt, mct_plan_info_t* info) {
    const double t0 = mct__plan_now();
    /* Without reasons, the figures only: the reason and the ranking (2 KB) are
     * written when explained, and a cold plan pays for every line it writes. */
    if (explain) {
        memset(info, 0, sizeof *info);
    } else {
        memset(info, 0, offsetof(mct_plan_info_t, reason));
        info->reason[0] = 0;
        info->nentries = 0;
    }
    info->mode = d->plan_mode;
    info->backend = d->backend;
    info->wisdom_status = MCT_STATUS_SUCCESS;
    plan_ctx_t c;
    c.d = d;
    c.w = (mct__plan_workload_t){d->backend, d->bins, d->dtype, d->width, d->adds, 1};
    /* OpenMP's thread count serves the CPU model only. */
    if (d->backend == MCT_BACKEND_CPU) c.w.threads = given ? given->threads : omp_get_max_threads();
    c.free_bytes = 0;
    c.device[0] = 0;
    c.explain = explain;
    c.ops = mct__backend_ops(d->backend);
    /* One device query per plan, none when the caller (mct_tally_create) has
     * made it: it is the slowest step of a plan from wisdom. */
    if (c.ops && device_name) {
        const size_t len = strnlen(device_name, sizeof c.device - 1);
        memcpy(c.device, device_name, len);
        c.device[len] = 0;
    } else if (c.ops && c.ops->probe(d->device, c.device, sizeof c.device)) {
        c.ops = NULL, c.device[0] = 0;
    }
    /* Free memory matters only to replicas that could fill a good share of a
     * device (the query costs more than the rest of a plan from wisdom): below
     * MCT__PLAN_REPLICA_QUERY bytes a copy, replicated is judged to fit, and the
     * tally's replica reservation sizes itself to the memory there is. */
    size_t total = 0;
    const double replica_bytes = (double)d->bins * (double)mct_method_storage_size(MCT_METHOD_REPLICATED, d->dtype);
    if (given)
        c.free_bytes = given->free_bytes;
    else if (c.ops && replica_bytes >= MCT__PLAN_REPLICA_QUERY && device_free)
        c.free_bytes = *device_free;
    else if (c.ops && replica_bytes >= MCT__PLAN_REPLICA_QUERY && c.ops->mem_info(d->device, &c.free_bytes, &total))
        c.free_bytes = 0;

    /* The pattern: the sample's class, else the caller's hint. */
    mct__key_stats_t ks;
    if (given)
        ks = given->keys;
    else
        mct__plan_classify(d->key_sample, d->key_sample_n, d->bins / d->width, &ks);
    info->pattern = given ? given->pattern : d->key_sample_n > 0 ? ks.pattern : d->key_pattern;
    if (learnt) {
        memset(learnt, 0, sizeof *learnt);
        learnt->asked = d->method;
        learnt->keys = ks;
        learnt->pattern = info->pattern;
        learnt->free_bytes = c.free_bytes;
        learnt->threads = c.w.threads;
    }
    info->distinct_per_warp = ks.distinct_per_warp;
    info->mean_run = ks.mean_run;
    info->hot_share = ks.hot_share;

    ranked_t r[MCT_METHOD_COUNT];
    int n = 0, nadm = 0;
    if (d->method != MCT_METHOD_AUTO) {
        r[0].e.method = d->method;
        r[0].e.why[0] = 0;
        r[0].e.admissible = admissible(&c, d->method, c.explain ? r[0].e.why : NULL, sizeof r[0].e.why);
        r[0].e.seconds_per_update = -1.0;
        r[0].key = 0.0;
        fill_ranking(info, r, 1, c.explain);
        info->method = d->method;
        info->source = MCT_PLAN_SOURCE_EXPLICIT;
        info->seconds = mct__plan_now() - t0;
        if (!r[0].e.admissible) {
            if (PLAN_UNLIKELY(c.explain))
                why_printf(info->reason, sizeof info->reason, 0, "method %s named, but it %s", mct_method_name(d->method),
                         r[0].e.why);
            return MCT_STATUS_UNSATISFIABLE;
        }
        if (PLAN_UNLIKELY(c.explain))
            why_printf(info->reason, sizeof info->reason, 0, "method %s named by the caller", mct_method_name(d->method));
        return MCT_STATUS_SUCCESS;
    }
    for (int m = 0; m < MCT_METHOD_COUNT; ++m, ++n) {
        r[n].e.method = (mct_method_t)m;
        r[n].e.why[0] = 0;
        r[n].e.admissible = admissible(&c, (mct_method_t)m, c.explain ? r[n].e.why : NULL, sizeof r[n].e.why);
        r[n].e.seconds_per_update = -1.0;
        r[n].key = HUGE_VAL;
        nadm += r[n].e.admissible;
    }
    char pat[64] = "";
    if (PLAN_UNLIKELY(c.explain)) pattern_phrase(info, pat, sizeof pat);
    if (nadm == 0) {
        fill_ranking(info, r, n, c.explain);
        info->method = MCT_METHOD_AUTO;
        info->source = d->plan_mode == MCT_PLAN_MEASURE ? MCT_PLAN_SOURCE_MEASURE : MCT_PLAN_SOURCE_ESTIMATE;
        if (PLAN_UNLIKELY(c.explain)) unsatisfiable_reason(d, d->backend, info->reason, sizeof info->reason);
        info->seconds = mct__plan_now() - t0;
        return MCT_STATUS_UNSATISFIABLE;
    }

    /* Wisdom first: a saved plan whose method is still admissible. */
    mct__wisdom_key_t wk = {0};
    mct_method_t wm = MCT_METHOD_AUTO;
    double spu = -1.0;
    int saved = 0;
    if (given) {
        saved = given->wisdom_hit, wm = given->wisdom_method, spu = given->wisdom_spu;
    } else if (d->wisdom && c.ops) {
        wisdom_key(&c, info->pattern, &wk);
        saved = !mct__wisdom_lookup(d->wisdom, &wk, d->plan_mode, &wm, &spu) && (unsigned)wm < MCT_METHOD_COUNT &&
                r[wm].e.admissible;
        if (saved && learnt) learnt->wisdom_hit = 1, learnt->wisdom_method = wm, learnt->wisdom_spu = spu;
    }
    if (saved) {
        r[wm].e.seconds_per_update = spu;
        r[wm].key = -1.0;
        if (PLAN_UNLIKELY(c.explain))
            why_printf(r[wm].e.why, sizeof r[wm].e.why, 1, "; saved plan");
        fill_ranking(info, r, n, c.explain);
        info->method = wm;
        info->source = MCT_PLAN_SOURCE_WISDOM;
        if (PLAN_UNLIKELY(c.explain))
            why_printf(info->reason, sizeof info->reason, 0, "%s: saved plan for %s, %s, 2^%d bins, %s (%d of %d methods admissible)",
                     mct_method_name(wm), c.device[0] ? c.device : "unknown", mct_dtype_name(d->dtype),
                     ceil_log2((double)d->bins), pat, nadm, n);
        info->seconds = mct__plan_now() - t0;
        return MCT_STATUS_SUCCESS;
    }

    int best = rank_estimate(&c, info->pattern, r, n);
    if (best < 0) {
        fill_ranking(info, r, n, c.explain);
        info->method = MCT_METHOD_AUTO;
        if (PLAN_UNLIKELY(c.explain)) unsatisfiable_reason(d, d->backend, info->reason, sizeof info->reason);
        info->seconds = mct__plan_now() - t0;
        return MCT_STATUS_UNSATISFIABLE;
    }
    info->source = MCT_PLAN_SOURCE_ESTIMATE;
    int measured = 0;
    if (d->plan_mode == MCT_PLAN_MEASURE) {
        if (!c.ops) return MCT_STATUS_BACKEND_UNAVAILABLE;
        qsort(r, (size_t)n, sizeof *r, cmp_ranked); /* measure in the estimate's order */
        int64_t sample_n = 0;
        const double budget = measure_budget(d, r, n);
        mct_status_t st = rank_measure(&c, info->pattern, r, n, budget, &sample_n, &measured);
        if (st) return st;
        if (!measured) { /* the estimate stands, and says why */
            const mct_method_t m = r[0].e.method;
            fill_ranking(info, r, n, c.explain);
            info->method = m;
            if (PLAN_UNLIKELY(c.explain))
                why_printf(info->reason, sizeof info->reason, 0,
                         "%s: fastest predicted for %lld bins of %s, %s; not measured: the budget (%.3g s%s) is below "
                         "one measurement of the candidates",
                         mct_method_name(m), (long long)d->bins, mct_dtype_name(d->dtype), pat, budget,
                         d->adds_per_bin > 0.0 ? ", " MCT__PLAN_STR(MCT__PLAN_RUN_SHARE_PCT) " % of the announced batch" : "");
        } else {
            fill_ranking(info, r, n, c.explain);
            if (!info->ranking[0].admissible) {
                unsatisfiable_reason(d, d->backend, info->reason, sizeof info->reason);
                info->method = MCT_METHOD_AUTO;
                info->seconds = mct__plan_now() - t0;
                return MCT_STATUS_UNSATISFIABLE;
            }
            info->method = info->ranking[0].method;
            info->source = MCT_PLAN_SOURCE_MEASURE;
            why_printf(info->reason, sizeof info->reason, 0,
                     "%s: fastest measured on %s (%.3g ns/update, %lld %s keys x %d, budget %.3g s), %d of %d methods admissible",
                     mct_method_name(info->method), mct_backend_name(d->backend), 1e9 * info->ranking[0].seconds_per_update,
                     (long long)sample_n, d->key_sample_n > 0 ? "sampled" : "synthetic", d->width, budget, nadm, n);
        }
    } else {
        const mct_method_t m = r[best].e.method;
        fill_ranking(info, r, n, c.explain);
        info->method = m;
        const char* src = NULL;
        if (PLAN_UNLIKELY(c.explain)) {
            mct__plan_model(&c.w, info->pattern == MCT_PATTERN_UNKNOWN ? MCT_PATTERN_UNIFORM : info->pattern, m, &src);
            why_printf(info->reason, sizeof info->reason, 0,
                     "%s: %s for %lld bins of %s, %s, width %d, adds from %s (%s), %d of %d methods admissible",
                     mct_method_name(m),
                     info->pattern == MCT_PATTERN_UNKNOWN ? "best in the worst key pattern" : "fastest predicted",
                     (long long)d->bins, mct_dtype_name(d->dtype), pat, d->width, mct_adds_name(d->adds), src, nadm, n);
        }
    }
    /* A measure plan that measured nothing is not saved: a larger batch would measure. */
    if (!given && d->wisdom && c.ops && (d->plan_mode != MCT_PLAN_MEASURE || measured))
        mct__wisdom_store(d->wisdom, &wk, d->plan_mode, info->method, info->ranking[0].seconds_per_update);
    info->seconds = mct__plan_now() - t0;
    return MCT_STATUS_SUCCESS;
}

mct_status_t mct__plan_resolved(const mct_tally_desc_t* d, const char* device_name, const size_t* device_free, int explain,
                                mct__plan_facts_t* facts, mct_plan_info_t* info) {
    return plan_run(d, device_name, device_free, explain, NULL, facts, info);
}

mct_status_t mct__plan_explain(const mct_tally_desc_t* desc, const char* device_name, const mct__plan_facts_t* facts,
                               mct_plan_info_t* info) {
    if (info->reason[0]) return MCT_STATUS_SUCCESS; /* explained when made */
    mct_tally_desc_t d = *desc;
    d.method = facts->asked;
    d.key_sample = NULL, d.key_sample_n = 0, d.wisdom = NULL;
    const double seconds = info->seconds;
    const mct_status_t st = plan_run(&d, device_name, NULL, 1, facts, NULL, info);
    info->seconds = seconds; /* the plan's own time, not the explanation's */
    return st;
}

void mct__fixed_bound_resolve(mct_tally_desc_t* d) {
    /* The most fraction bits f with bound * 2^f < 2^62, so a bin may still
     * reach twice the bound before its int64 overflows (and OVERFLOW is
     * raised, not wrapped): bound = m 2^e with 0.5 <= m < 1 gives f = 62 - e,
     * clamped to the range of fixed_frac_bits. */
    if (d->fixed_bound > 0.0) {
        int e = 0;
        (void)frexp(d->fixed_bound, &e);
        const int f = 62 - e;
        d->fixed_frac_bits = f < MCT_FIXED_FRAC_BITS_MIN   ? MCT_FIXED_FRAC_BITS_MIN
                             : f > MCT_FIXED_FRAC_BITS_MAX ? MCT_FIXED_FRAC_BITS_MAX
                                                           : f;
    }
}

mct_status_t mct_plan(const mct_tally_desc_t* desc, mct_plan_info_t* info) {
    if (!desc || !info) return MCT_STATUS_NULL_POINTER;
    memset(info, 0, sizeof *info);
    if ((unsigned)desc->dtype >= MCT_DTYPE_COUNT) return MCT_STATUS_UNKNOWN_DTYPE;
    if ((unsigned)desc->backend >= MCT_BACKEND_COUNT) return MCT_STATUS_UNKNOWN_BACKEND;
    if (desc->bins < 1 || desc->bins > (INT64_C(1) << 31)) return MCT_STATUS_INVALID_VALUE;
    mct_status_t st = mct__plan_validate(desc);
    if (st) return st;
    if (!(desc->fixed_bound >= 0.0 && desc->fixed_bound <= DBL_MAX)) return MCT_STATUS_INVALID_VALUE;
    mct_tally_desc_t d = *desc;
    mct__fixed_bound_resolve(&d);
    d.backend = mct__backend_resolve(d.backend, d.device);
    if (d.plan_mode == MCT_PLAN_MEASURE && !mct__backend_ops(d.backend)) return MCT_STATUS_BACKEND_UNAVAILABLE;
    return mct__plan_resolved(&d, NULL, NULL, 1, NULL, info);
}
