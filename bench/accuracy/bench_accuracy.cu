/* SPDX-License-Identifier: BSD-3-Clause */
/** @file bench_accuracy.cu  `mctally bench accuracy`: how far each float tally
 * method's sum drifts from the true sum as the number of additions grows (the
 * effect behind Liu 2018's Table IV, where the FP32 atomic dose tally lost up
 * to 25 % while KAS stayed within 1e-7).
 *
 * For n = 1e5 ... 10^max additions into one hot bin and into 8 bins (uniform
 * keys), the inputs of accuracy_common.h (exponential deposits, mean 0.1,
 * rounded to float) are generated on the GPU in chunks of at most 1e8, and
 * every chunk is added with mct_tally_add_device into tallies of f32 atomic,
 * f32 kahan, f32 kahan_naive, f64 fixed and f64 atomic. The same kernel that
 * generates a chunk also sums it per bin in double-double (the reference) and
 * sums the fixed-point images of its values exactly in int64 (what `fixed`
 * must equal bit for bit). Per case and method: relative error of the total
 * and the largest per-bin relative error (the worst over the repetitions),
 * and the time of the method's adds alone (CUDA events around each
 * mct_tally_add_device call, summed over the chunks; median of the
 * repetitions).
 *
 * Time guard: a method is skipped in a case when its previous case's time per
 * addition predicts more than --cap-s seconds for one pass, or more than what
 * is left of --budget-s; a pass that still runs past 3x the cap is abandoned
 * (recorded as aborted). Cases predicted under 2 s are repeated --reps times.
 *
 * Derived bounds checked (failures make the exit status non-zero), with
 * every value >= 0 so that sum |x| is the bin's total T:
 * - f64 atomic: (n - 1) 2^-53 T, recursive summation in any order;
 * - kahan, kahan_naive: (3u + 8 n u^2) T + 2^-48 T, u = 2^-24: Kahan's
 *   2u + O(N u^2) for N <= 2n float addends (a warp group's double sum is
 *   split into two floats; its own rounding is below 2^-48), the O() constant
 *   taken as 4, and u more for reading the pair as sum - comp;
 * - fixed: equal to the exact sum of the quantized values, bit for bit.
 * The f32 atomic tally has no useful bound: its error is what is measured. */
#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <vector>

#include "../common/bench_common.cuh"
#include "cli_flags.h"
#include "accuracy_common.h"
#include "mctally/mct.h"

#define ACC_THREADS 256 /* the generator's block: a power of two for its tree */
#define ACC_MAX_BINS 8
#define ACC_CHUNK INT64_C(100000000) /* 1.2 GB of keys and values on the GPU */
#define ACC_REPEAT_BELOW_S 2.0       /* passes predicted shorter than this are repeated */
#define ACC_U64 0x1p-53
#define ACC_U32 0x1p-24

typedef struct {
    const char* label;
    mct_method_t method;
    mct_dtype_t dtype;
} acc_method_t;

static const acc_method_t kMethods[] = {
    {"f32 atomic", MCT_METHOD_ATOMIC, MCT_DTYPE_F32},     {"f32 kahan", MCT_METHOD_KAHAN, MCT_DTYPE_F32},
    {"f32 kahan_naive", MCT_METHOD_KAHAN_NAIVE, MCT_DTYPE_F32}, {"f64 fixed", MCT_METHOD_FIXED, MCT_DTYPE_F64},
    {"f64 atomic", MCT_METHOD_ATOMIC, MCT_DTYPE_F64},
};
#define ACC_METHODS ((int)(sizeof kMethods / sizeof kMethods[0]))
#define ACC_MAX_REPS 9

typedef struct {
    int max_log10, reps;
    double cap_s, budget_s;
    uint64_t seed;
    const char* out;
} acc_args_t;

/* One block's share of a chunk: per bin, the double-double sum of its values
 * and the exact sum of their fixed-point images. */
typedef struct {
    mct_dd_t sum[ACC_MAX_BINS];
    long long fixed[ACC_MAX_BINS];
} acc_partial_t;

/* Reference of a case: per bin, the double-double sum and the quantized sum. */
typedef struct {
    mct_dd_t sum[ACC_MAX_BINS];
    long long fixed[ACC_MAX_BINS];
    int64_t merges; /* double-double additions of partial sums, for the bound */
} acc_reference_t;

/* Additions first .. first + len - 1 of a case: keys and values written for
 * the tallies, and each block's reference partials. Every thread walks a fixed
 * set of indices and the tree below is fixed, so the partials are
 * deterministic. Predicated adds (0 elsewhere, exact) keep the B sums in
 * registers. Launched with ACC_THREADS threads. */
template <int B>
static __global__ void acc_generate_kernel(uint32_t* keys, double* values, int64_t first, int64_t len, uint64_t seed,
                                           double fixed_scale, acc_partial_t* partials) {
    mct_dd_t sum[B];
    long long fixed[B];
#pragma unroll
    for (int b = 0; b < B; ++b) sum[b].hi = sum[b].lo = 0.0, fixed[b] = 0;
    for (int64_t j = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; j < len; j += (int64_t)gridDim.x * blockDim.x) {
        const uint64_t i = (uint64_t)(first + j);
        const uint32_t k = mct_accuracy_key(B, seed, i);
        const double v = mct_accuracy_value(seed, i);
        keys[j] = k;
        values[j] = v;
        const long long q = __double2ll_rn(v * fixed_scale); /* as the fixed method rounds */
#pragma unroll
        for (int b = 0; b < B; ++b) {
            sum[b] = mct_dd_add_double(sum[b], b == (int)k ? v : 0.0);
            fixed[b] += b == (int)k ? q : 0;
        }
    }
    __shared__ mct_dd_t s_sum[ACC_THREADS];
    __shared__ long long s_fixed[ACC_THREADS];
    const int t = threadIdx.x;
    for (int b = 0; b < B; ++b) {
        s_sum[t] = sum[b];
        s_fixed[t] = fixed[b];
        __syncthreads();
        for (int w = ACC_THREADS / 2; w > 0; w >>= 1) {
            if (t < w) {
                s_sum[t] = mct_dd_add(s_sum[t], s_sum[t + w]);
                s_fixed[t] += s_fixed[t + w];
            }
            __syncthreads();
        }
        if (t == 0) {
            partials[blockIdx.x].sum[b] = s_sum[0];
            partials[blockIdx.x].fixed[b] = s_fixed[0];
        }
        __syncthreads();
    }
}

/* Device buffers of a run: one chunk of keys and values, and the partials. */
typedef struct {
    uint32_t* keys;
    double* values;
    acc_partial_t* partials;
    std::vector<acc_partial_t> host_partials;
    unsigned grid;
    int fixed_bits;
} acc_buffers_t;

/* Generates a chunk and folds its partials into `ref` (host, fixed order). */
static void acc_generate(acc_buffers_t* bu, int bins, int64_t first, int64_t len, uint64_t seed,
                         acc_reference_t* ref) {
    const double scale = ldexp(1.0, bu->fixed_bits);
    if (bins == 1)
        acc_generate_kernel<1><<<bu->grid, ACC_THREADS>>>(bu->keys, bu->values, first, len, seed, scale, bu->partials);
    else
        acc_generate_kernel<ACC_MAX_BINS>
            <<<bu->grid, ACC_THREADS>>>(bu->keys, bu->values, first, len, seed, scale, bu->partials);
    BENCH_CHECK(cudaGetLastError());
    BENCH_CHECK(cudaMemcpy(bu->host_partials.data(), bu->partials, bu->grid * sizeof(acc_partial_t),
                           cudaMemcpyDeviceToHost));
    for (unsigned g = 0; g < bu->grid; ++g)
        for (int b = 0; b < bins; ++b) {
            ref->sum[b] = mct_dd_add(ref->sum[b], bu->host_partials[g].sum[b]);
            ref->fixed[b] += bu->host_partials[g].fixed[b];
        }
    /* Tree merges in the kernel (ACC_THREADS - 1 per block) and on the host. */
    ref->merges += (int64_t)bu->grid * ACC_THREADS;
}

/* What one method did in one case. */
typedef struct {
    const char* status; /* "measured", "skipped", "aborted", "failed" */
    char reason[160];
    int reps;
    mct_tally_t tally[ACC_MAX_REPS];
    double ms[ACC_MAX_REPS];
    double rel_total, max_bin_rel, total, bound;
    int within_bound, equals_quantized, at_floor;
} acc_outcome_t;

/* Run-wide state: the prediction of each method's time per addition for each
 * bin setting (from its last case), and the time spent adding so far. */
typedef struct {
    double s_per_add[ACC_METHODS][2];
    double spent_s;
} acc_clock_t;

static mct_tally_t acc_tally(const acc_method_t* m, int bins, int fixed_bits) {
    mct_tally_desc_t d;
    mct_tally_desc_init(&d);
    d.backend = MCT_BACKEND_CUDA, d.method = m->method, d.dtype = m->dtype, d.bins = bins;
    d.fixed_frac_bits = fixed_bits;
    mct_tally_t t = NULL;
    return mct_tally_create(&t, &d) == MCT_STATUS_SUCCESS ? t : NULL;
}

/* Decides whether method m runs in a case of n additions, and how many times. */
static void acc_plan(acc_outcome_t* o, const acc_args_t* a, const acc_clock_t* c, int m, int bi, int64_t n) {
    memset(o, 0, sizeof *o);
    o->status = "measured";
    const double predicted = c->s_per_add[m][bi] * (double)n;
    if (isinf(predicted)) {
        o->status = "skipped";
        snprintf(o->reason, sizeof o->reason, "aborted at a smaller n");
    } else if (predicted > a->cap_s) {
        o->status = "skipped";
        snprintf(o->reason, sizeof o->reason, "predicted %.0f s for one pass, over --cap-s %.0f", predicted, a->cap_s);
    } else if (c->spent_s + predicted > a->budget_s) {
        o->status = "skipped";
        snprintf(o->reason, sizeof o->reason, "predicted %.1f s, over what is left of --budget-s %.0f", predicted,
                 a->budget_s);
    }
    o->reps = predicted > 0 ? (int)fmin((double)a->reps, fmax(1.0, floor(ACC_REPEAT_BELOW_S / predicted))) : a->reps;
}

/* Adds the chunk into every live tally of method outcome o; returns the
 * seconds it took (summed over the repetitions). */
static double acc_add_chunk(acc_outcome_t* o, const acc_buffers_t* bu, int64_t len, double cap_s, cudaEvent_t e0,
                            cudaEvent_t e1) {
    double total = 0.0;
    for (int r = 0; r < o->reps && !strcmp(o->status, "measured"); ++r) {
        BENCH_CHECK(cudaEventRecord(e0));
        const mct_status_t st = mct_tally_add_device(o->tally[r], bu->keys, bu->values, len);
        BENCH_CHECK(cudaEventRecord(e1));
        BENCH_CHECK(cudaEventSynchronize(e1));
        if (st != MCT_STATUS_SUCCESS) {
            o->status = "failed";
            snprintf(o->reason, sizeof o->reason, "mct_tally_add_device: %s", mct_status_name(st));
            break;
        }
        float ms = 0.f;
        BENCH_CHECK(cudaEventElapsedTime(&ms, e0, e1));
        o->ms[r] += ms;
        total += ms * 1e-3;
        if (o->ms[r] * 1e-3 > 3.0 * cap_s) {
            o->status = "aborted";
            snprintf(o->reason, sizeof o->reason, "past 3x --cap-s after %.0f s", o->ms[r] * 1e-3);
        }
    }
    return total;
}

/* Closes a repetition's batch and reads its relative errors against `ref`. */
static int acc_read(mct_tally_t t, int bins, const acc_reference_t* ref, int fixed_bits, double* rel_total,
                    double* max_bin_rel, double* total, int* equals_quantized, char* reason, size_t reason_size) {
    double sums[ACC_MAX_BINS];
    mct_status_t st = mct_tally_end_batch(t, 1);
    if (!st) st = mct_tally_sums(t, sums);
    if (st) {
        snprintf(reason, reason_size, "mct_tally_end_batch/sums: %s", mct_status_name(st));
        return 1;
    }
    mct_dd_t got = {0.0, 0.0}, want = {0.0, 0.0};
    *max_bin_rel = 0.0;
    *equals_quantized = 1;
    for (int b = 0; b < bins; ++b) {
        const mct_dd_t x = {sums[b], 0.0};
        const double rel = mct_dd_rel_diff(x, ref->sum[b]);
        if (isnan(rel) || fabs(rel) > *max_bin_rel) *max_bin_rel = fabs(rel); /* a NaN stays */
        got = mct_dd_add(got, x);
        want = mct_dd_add(want, ref->sum[b]);
        /* The tally reads a fixed bin as (double)int64 / 2^s: the same conversion. */
        if (sums[b] != (double)ref->fixed[b] / ldexp(1.0, fixed_bits)) *equals_quantized = 0;
    }
    *rel_total = mct_dd_rel_diff(got, want);
    *total = got.hi + got.lo;
    return 0;
}

/* Bound of method m's relative error (see the file note), or -1 where none. */
static double acc_bound(const acc_method_t* m, int64_t n) {
    if (m->method == MCT_METHOD_ATOMIC && m->dtype == MCT_DTYPE_F64) return (double)(n - 1) * ACC_U64;
    if (m->method == MCT_METHOD_KAHAN || m->method == MCT_METHOD_KAHAN_NAIVE)
        return 3.0 * ACC_U32 + 8.0 * (double)n * ACC_U32 * ACC_U32 + 0x1p-48;
    return -1.0;
}

/* Folds the repetitions of a measured method into o (worst errors, checks). */
static void acc_finish(acc_outcome_t* o, const acc_method_t* m, int bins, int64_t n, const acc_reference_t* ref,
                       int fixed_bits, double floor_rel) {
    o->rel_total = o->max_bin_rel = 0.0;
    o->equals_quantized = 1;
    for (int r = 0; r < o->reps; ++r) {
        double rel, max_bin, total;
        int eq;
        if (acc_read(o->tally[r], bins, ref, fixed_bits, &rel, &max_bin, &total, &eq, o->reason, sizeof o->reason)) {
            o->status = "failed";
            return;
        }
        /* The worst repetition; a NaN, once seen, stays. */
        if (r == 0 || isnan(rel) || fabs(rel) > fabs(o->rel_total)) o->rel_total = rel, o->total = total;
        if (r == 0 || isnan(max_bin) || max_bin > o->max_bin_rel) o->max_bin_rel = max_bin;
        o->equals_quantized &= eq;
    }
    o->bound = acc_bound(m, n);
    o->within_bound = o->bound < 0 || o->max_bin_rel <= o->bound;
    if (m->method == MCT_METHOD_FIXED) o->within_bound = o->equals_quantized;
    o->at_floor = o->max_bin_rel < floor_rel;
}

static cJSON* acc_outcome_json(const acc_outcome_t* o, const acc_method_t* m, int64_t n) {
    cJSON* j = cJSON_CreateObject();
    cJSON_AddStringToObject(j, "label", m->label);
    cJSON_AddStringToObject(j, "method", mct_method_name(m->method));
    cJSON_AddStringToObject(j, "dtype", mct_dtype_name(m->dtype));
    cJSON_AddStringToObject(j, "status", o->status);
    if (o->reason[0]) cJSON_AddStringToObject(j, "reason", o->reason);
    if (strcmp(o->status, "measured") != 0) return j;
    std::vector<double> ms(o->ms, o->ms + o->reps);
    const double med = mct_bench_median(ms);
    cJSON_AddNumberToObject(j, "reps", o->reps);
    cJSON_AddNumberToObject(j, "median_ms", med);
    cJSON_AddNumberToObject(j, "min_ms", *std::min_element(ms.begin(), ms.end()));
    cJSON_AddNumberToObject(j, "max_ms", *std::max_element(ms.begin(), ms.end()));
    cJSON_AddNumberToObject(j, "ns_per_add", med * 1e6 / (double)n);
    cJSON_AddNumberToObject(j, "total", o->total);
    cJSON_AddNumberToObject(j, "rel_err_total", o->rel_total);
    cJSON_AddNumberToObject(j, "max_bin_rel_err", o->max_bin_rel);
    cJSON_AddBoolToObject(j, "at_floor", o->at_floor);
    if (o->bound >= 0) cJSON_AddNumberToObject(j, "bound", o->bound);
    if (m->method == MCT_METHOD_FIXED) cJSON_AddBoolToObject(j, "equals_quantized_sum", o->equals_quantized);
    cJSON_AddBoolToObject(j, "within_bound", o->within_bound);
    return j;
}

/* One case: n additions into `bins` bins, every method. Returns failures. */
static int acc_case(int64_t n, int bins, const acc_args_t* a, acc_buffers_t* bu, acc_clock_t* clock, cJSON* cases) {
    const int bi = bins == 1 ? 0 : 1;
    acc_outcome_t out[ACC_METHODS];
    for (int m = 0; m < ACC_METHODS; ++m) {
        acc_plan(&out[m], a, clock, m, bi, n);
        for (int r = 0; r < out[m].reps && !strcmp(out[m].status, "measured"); ++r)
            if (!(out[m].tally[r] = acc_tally(&kMethods[m], bins, bu->fixed_bits))) {
                out[m].status = "failed";
                snprintf(out[m].reason, sizeof out[m].reason, "mct_tally_create failed");
            }
    }
    acc_reference_t ref;
    memset(&ref, 0, sizeof ref);
    cudaEvent_t e0, e1;
    BENCH_CHECK(cudaEventCreate(&e0));
    BENCH_CHECK(cudaEventCreate(&e1));
    for (int64_t first = 0; first < n; first += ACC_CHUNK) {
        const int64_t len = n - first < ACC_CHUNK ? n - first : ACC_CHUNK;
        acc_generate(bu, bins, first, len, a->seed, &ref);
        for (int m = 0; m < ACC_METHODS; ++m) clock->spent_s += acc_add_chunk(&out[m], bu, len, a->cap_s, e0, e1);
    }
    cudaEventDestroy(e0), cudaEventDestroy(e1);

    /* Reference bound: every addition and merge errs by at most 3u^2 (u = 2^-53)
     * of its result, itself at most the bin's total (all values >= 0). */
    const double ref_bound = 3.01 * ACC_U64 * ACC_U64 * (double)(n + ref.merges);
    cJSON* c = cJSON_CreateObject();
    cJSON_AddNumberToObject(c, "n", (double)n);
    cJSON_AddNumberToObject(c, "bins", bins);
    cJSON_AddStringToObject(c, "keys", bins == 1 ? "one hot bin" : "uniform");
    mct_dd_t ref_total = {0.0, 0.0};
    for (int b = 0; b < bins; ++b) ref_total = mct_dd_add(ref_total, ref.sum[b]);
    cJSON_AddNumberToObject(c, "reference_total", ref_total.hi + ref_total.lo);
    cJSON_AddNumberToObject(c, "reference_rel_error_bound", ref_bound);
    cJSON_AddNumberToObject(c, "floor", 1e3 * ref_bound);
    cJSON* methods = cJSON_AddArrayToObject(c, "methods");
    int failures = 0;
    for (int m = 0; m < ACC_METHODS; ++m) {
        acc_outcome_t* o = &out[m];
        if (!strcmp(o->status, "measured")) acc_finish(o, &kMethods[m], bins, n, &ref, bu->fixed_bits, 1e3 * ref_bound);
        const int measured = !strcmp(o->status, "measured");
        failures += !strcmp(o->status, "failed") || (measured && !o->within_bound);
        if (measured) {
            double best = o->ms[0];
            for (int r = 1; r < o->reps; ++r) best = fmin(best, o->ms[r]);
            clock->s_per_add[m][bi] = best * 1e-3 / (double)n;
        } else if (!strcmp(o->status, "aborted")) {
            clock->s_per_add[m][bi] = INFINITY;
        }
        cJSON_AddItemToArray(methods, acc_outcome_json(o, &kMethods[m], n));
        for (int r = 0; r < o->reps; ++r) mct_tally_destroy(o->tally[r]);
        if (measured)
            printf("n %.0e bins %d %-16s total %+.3e  max bin %.3e  %10.3f ms%s\n", (double)n, bins, kMethods[m].label,
                   o->rel_total, o->max_bin_rel, o->ms[0], o->within_bound ? "" : "  OUTSIDE ITS BOUND");
        else
            printf("n %.0e bins %d %-16s %s (%s)\n", (double)n, bins, kMethods[m].label, o->status, o->reason);
    }
    cJSON_AddItemToArray(cases, c);
    fflush(stdout);
    return failures;
}

static int acc_parse(int argc, char** argv, acc_args_t* a) {
    a->max_log10 = 9, a->reps = 3, a->cap_s = 30.0, a->budget_s = 100.0, a->seed = 2018, a->out = "bench_accuracy.json";
    for (int i = 0; i < argc; ++i) {
        if (!strcmp(argv[i], "--help")) {
            puts("usage: mctally bench accuracy [--max-log10 N (9)] [--reps R (3)] [--cap-s S (30)] "
                 "[--budget-s S (100)] [--seed S] [--out FILE.json]");
            exit(0);
        }
        if (i + 1 >= argc) return fprintf(stderr, "mctally: bench accuracy: %s needs a value\n", argv[i]), 1;
        if (!strcmp(argv[i], "--max-log10")) MCT_CLI_FLAG_INT(a->max_log10, "bench accuracy --max-log10", argv[++i], 1, 12);
        else if (!strcmp(argv[i], "--reps")) MCT_CLI_FLAG_INT(a->reps, "bench accuracy --reps", argv[++i], 1, 1000);
        else if (!strcmp(argv[i], "--cap-s")) MCT_CLI_FLAG_F64(a->cap_s, "bench accuracy --cap-s", argv[++i], 0.0);
        else if (!strcmp(argv[i], "--budget-s")) MCT_CLI_FLAG_F64(a->budget_s, "bench accuracy --budget-s", argv[++i], 0.0);
        else if (!strcmp(argv[i], "--seed")) MCT_CLI_FLAG_INT(a->seed, "bench accuracy --seed", argv[++i], 0, INT64_MAX);
        else if (!strcmp(argv[i], "--out")) a->out = argv[++i];
        else return fprintf(stderr, "mctally: bench accuracy: unknown option '%s'\n", argv[i]), 1;
    }
    if (a->max_log10 < 5 || a->max_log10 > 10 || a->reps < 1 || a->reps > ACC_MAX_REPS || !(a->cap_s > 0) ||
        !(a->budget_s > 0))
        return fprintf(stderr, "mctally: bench accuracy: need 5 <= max-log10 <= 10, 1 <= reps <= %d, cap-s and "
                               "budget-s > 0\n", ACC_MAX_REPS), 1;
    return 0;
}

/* First launches of every kernel involved (module loading is lazy), so that
 * the first case's times, which predict the next case's, are clean. */
static void acc_warm_up(const acc_args_t* a, acc_buffers_t* bu) {
    for (int bins = 1; bins <= ACC_MAX_BINS; bins += ACC_MAX_BINS - 1) {
        acc_reference_t ref;
        memset(&ref, 0, sizeof ref);
        acc_generate(bu, bins, 0, 10000, a->seed, &ref);
        for (int m = 0; m < ACC_METHODS; ++m) {
            mct_tally_t t = acc_tally(&kMethods[m], bins, bu->fixed_bits);
            if (t && mct_tally_add_device(t, bu->keys, bu->values, 10000) == MCT_STATUS_SUCCESS)
                (void)mct_tally_end_batch(t, 1);
            mct_tally_destroy(t);
        }
    }
    BENCH_CHECK(cudaDeviceSynchronize());
}

extern "C" int mct_bench_accuracy(int argc, char** argv) {
    acc_args_t a;
    if (acc_parse(argc, argv, &a)) return 1;
    cudaDeviceProp prop;
    cJSON* root = mct_bench_root("accuracy", &prop);
    int64_t n_max = 1;
    for (int e = 0; e < a.max_log10; ++e) n_max *= 10;
    acc_buffers_t bu;
    bu.fixed_bits = mct_accuracy_fixed_frac_bits(n_max);
    bu.grid = (unsigned)prop.multiProcessorCount * 4;
    const int64_t chunk = n_max < ACC_CHUNK ? n_max : ACC_CHUNK;
    BENCH_CHECK(cudaMalloc((void**)&bu.keys, (size_t)chunk * sizeof(uint32_t)));
    BENCH_CHECK(cudaMalloc((void**)&bu.values, (size_t)chunk * sizeof(double)));
    BENCH_CHECK(cudaMalloc((void**)&bu.partials, bu.grid * sizeof(acc_partial_t)));
    bu.host_partials.resize(bu.grid);

    cJSON_AddStringToObject(root, "values", "exponential, mean 0.1, rounded to float (accuracy_common.h)");
    cJSON_AddNumberToObject(root, "seed", (double)a.seed);
    cJSON_AddNumberToObject(root, "fixed_frac_bits", bu.fixed_bits);
    cJSON_AddNumberToObject(root, "chunk", (double)chunk);
    cJSON_AddNumberToObject(root, "reps", a.reps);
    cJSON_AddNumberToObject(root, "cap_s", a.cap_s);
    cJSON_AddNumberToObject(root, "budget_s", a.budget_s);
    cJSON* cases = cJSON_AddArrayToObject(root, "cases");
    printf("accuracy: fixed point with %d fraction bits, chunks of %lld, cap %.0f s, budget %.0f s\n", bu.fixed_bits,
           (long long)chunk, a.cap_s, a.budget_s);

    acc_warm_up(&a, &bu);
    acc_clock_t clock;
    memset(&clock, 0, sizeof clock);
    int failures = 0;
    int64_t n = 100000;
    for (int e = 5; e <= a.max_log10; ++e, n *= 10)
        for (int bins = 1; bins <= ACC_MAX_BINS; bins += ACC_MAX_BINS - 1)
            failures += acc_case(n, bins, &a, &bu, &clock, cases);
    cJSON_AddNumberToObject(root, "adds_seconds", clock.spent_s);
    cudaFree(bu.keys), cudaFree(bu.values), cudaFree(bu.partials);
    return mct_bench_finish(root, a.out, failures);
}
