/* SPDX-License-Identifier: BSD-3-Clause */
/** @file bench_scatter.cu  `mctally bench scatter` and `mctally bench mpc`:
 * bin[key] += value over arrays already in GPU memory, FP64, every mctally
 * method that serves f64 beside the CUB peers, in the same run.
 *
 * scatter: n = 1e8 updates into B in {1, 8, 1e3, 1e6} bins, keys uniform,
 *          sorted (runs of n/B) or hot (half into bin B/2); 12 bytes read per
 *          update (u32 key + f64 value). With one bin the three patterns are
 *          the same keys, so B = 1 runs once.
 * mpc:     Westphal's workload, 1e7 particles in 1e6 cells, 9 f64 components
 *          per particle (values stored component by component), keys uniform
 *          or sorted by cell; 4 + 9 * 8 bytes read per particle.
 * Inputs come from sim/scatter/scatter_inputs.h, generated on the device.
 *
 * Protocol: a tally per method, created outside the timed region; the timed
 * region (CUDA events) is mct_tally_add_device[_grouped] + mct_tally_flush;
 * mct_tally_end_batch closes every run outside it, and every run's bins are
 * checked against an exact reference (128-bit integer sums of the inputs,
 * which lie on a 2^-54 grid). Prefixes of the keys run first (predict) and a
 * method predicted to take more than twice --case-seconds on the full input is
 * skipped; a first full run slower than --case-seconds is the only one;
 * otherwise one or two warm-up runs, then the median of --reps runs (fewer
 * when they would pass twice --case-seconds, recorded in "reps"). Peers on
 * the same inputs: CUB radix sort + reduce-by-key + a scatter of the run sums
 * (all timed, temp storage allocated outside), and for the sweep CUB
 * HistogramEven on the keys (counts only, its own floor: 4 bytes per key).
 * The floor is the bytes read once at the device copy bandwidth measured in
 * the same run. The JSON is rewritten after every case, so a run stopped
 * early leaves what it measured. */
#include <cjson/cJSON.h>
#include <cub/device/device_histogram.cuh>
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_reduce.cuh>
#include <cuda/std/functional>
#include <algorithm>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <string>
#include <vector>

#include "../../sim/scatter/scatter_inputs.h"
#include "../common/bench_common.cuh"
#include "mctally/mct.h"

/* The CLI's number parser (tools/mctally/cli_config.c): accepts "1e8". */
extern "C" int mct_cli_parse_i64(const char* text, int64_t min, int64_t max, int64_t* out);
extern "C" int mct_cli_parse_f64(const char* text, double min, double* out);

typedef struct {
    const char* suite; /* "scatter" or "mpc" */
    int64_t n;         /* updates (scatter) or particles (mpc) */
    int width;         /* values per key: 1 or 9 */
    int reps;
    double case_seconds;
    const char* out;
    uint32_t methods; /* bit m: method m runs (--methods; all by default) */
} bench_args_t;

/* One input set on the device and its exact reference on the host. */
typedef struct {
    mct_scatter_pattern_t pattern;
    int64_t n, cells, nbins; /* nbins = cells * width */
    int width;
    uint64_t seed;
    uint32_t* keys;              /* device, n */
    double* values;              /* device, width * n, component c at c * n */
    std::vector<double> ref;     /* exact per-bin sums, rounded once to double */
    std::vector<uint32_t> count; /* updates per cell */
    std::vector<double> tol_float; /* per bin: the float methods' part of the tolerance (float_part) */
} scatter_case_t;

/* What one method or peer did on one case. */
typedef struct {
    std::string status;    /* "ok", "n/a: ...", "skipped: ...", "error: ..." */
    std::vector<double> ms; /* timed runs */
    double first_ms;        /* first full run (a warm-up; the one a skip is decided on) */
    double predicted_s;     /* full run's time predicted from prefixes */
    double worst;           /* largest |got - ref| / tolerance over checked bins */
    int64_t bad_bins;       /* bins beyond tolerance, over all checked runs */
    int checked;            /* runs checked */
} case_result_t;

static cJSON* g_root; /* the suite's JSON, rewritten after every case */
static const char* g_out;
static int g_failures;
static cudaEvent_t g_t0, g_t1;
static char g_where[160] = "setup"; /* the case being measured, for an abort's message */
static const char* const g_pattern_names[MCT_SCATTER_PATTERN_COUNT] = {"uniform", "sorted", "hot"};

static void save_partial(void) {
    char* text = cJSON_Print(g_root);
    FILE* f = fopen(g_out, "w");
    if (f && text) fputs(text, f);
    if (f) fclose(f);
    free(text);
}

/* A CUDA failure outside a tally call ends the run (a sticky error poisons
 * the context); what was measured so far is kept in the JSON. */
static void bench_abort(const char* what, const char* why) {
    fprintf(stderr, "mctally bench: %s failed during %s: %s\n", what, g_where, why);
    if (g_root) {
        cJSON_AddStringToObject(g_root, "aborted", why);
        cJSON_AddStringToObject(g_root, "aborted_in", g_where);
        cJSON_AddNumberToObject(g_root, "failures", g_failures + 1);
        save_partial();
    }
    exit(1);
}

#define SC_CHECK(call)                                                  \
    do {                                                                \
        cudaError_t e_ = (call);                                        \
        if (e_ != cudaSuccess) bench_abort(#call, cudaGetErrorString(e_)); \
    } while (0)

/* ------------------------------------------------------------------------ */
/* Inputs and the exact reference                                            */

static __global__ void mct_bench_scatter_fill(uint32_t* keys, double* values, int64_t n, int64_t cells, int width,
                                              int pattern, uint64_t seed) {
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x) {
        keys[i] = mct_scatter_key((mct_scatter_pattern_t)pattern, (uint64_t)cells, (uint64_t)n, seed, (uint64_t)i);
        for (int c = 0; c < width; ++c) values[(int64_t)c * n + i] = mct_scatter_value(seed, (uint64_t)i, (uint32_t)c);
    }
}

/* Per-bin 128-bit integer sums in units of 2^-54 (every input value is an
 * integer multiple of 2^-54 in (0, 1]), so the reference is exact and does not
 * depend on the order of the additions. */
typedef struct {
    unsigned long long* lo; /* per bin, low 64 bits */
    unsigned long long* hi; /* per bin, carries out of lo */
    unsigned int* count;    /* per cell */
    unsigned int* bad;      /* set when a key is out of range or a value off the grid */
} ref_acc_t;

#define REF_CHUNK 64 /* consecutive updates per thread: runs of one key cost one atomic */

static __device__ void ref_flush(ref_acc_t acc, int64_t bin, unsigned long long lo, unsigned long long hi) {
    const unsigned long long old = atomicAdd(&acc.lo[bin], lo);
    hi += (old + lo < old);
    if (hi) atomicAdd(&acc.hi[bin], hi);
}

static __global__ void mct_bench_reference(const uint32_t* keys, const double* values, int64_t n, int64_t cells,
                                           int width, ref_acc_t acc) {
    const int64_t begin = (blockIdx.x * (int64_t)blockDim.x + threadIdx.x) * REF_CHUNK;
    const int64_t end = begin + REF_CHUNK < n ? begin + REF_CHUNK : n;
    for (int c = 0; c < width; ++c) {
        int64_t run = -1;
        unsigned long long lo = 0, hi = 0;
        unsigned cnt = 0;
        for (int64_t i = begin; i < end; ++i) {
            const uint32_t k = keys[i];
            const double s = values[(int64_t)c * n + i] * 0x1p54;
            if (k >= cells || !(s >= 0.0 && s < 0x1p64) || s != floor(s)) {
                atomicOr(acc.bad, 1u);
                continue;
            }
            if ((int64_t)k != run) {
                if (run >= 0) ref_flush(acc, run * width + c, lo, hi);
                if (run >= 0 && c == 0) atomicAdd(&acc.count[run], cnt);
                run = k, lo = hi = 0, cnt = 0;
            }
            const unsigned long long u = (unsigned long long)s;
            lo += u;
            hi += (lo < u);
            ++cnt;
        }
        if (run >= 0) ref_flush(acc, run * width + c, lo, hi);
        if (run >= 0 && c == 0) atomicAdd(&acc.count[run], cnt);
    }
}

/* hi * 2^64 + lo units of 2^-54, in double: within 2 u of the exact sum. */
static __global__ void mct_bench_reference_sums(ref_acc_t acc, int64_t nbins, double* out) {
    for (int64_t k = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; k < nbins; k += (int64_t)gridDim.x * blockDim.x)
        out[k] = (double)acc.hi[k] * 0x1p10 + (double)acc.lo[k] * 0x1p-54;
}

static unsigned grid_for(int64_t items, int block) {
    const int64_t g = (items + block - 1) / block;
    return (unsigned)std::max<int64_t>(1, std::min<int64_t>(g, 65535));
}

static double float_part(double S, double m);

/* Fills the case's inputs and its reference; an input off its contract ends
 * the run (the generator itself would be wrong). */
static void make_case(scatter_case_t* c) {
    mct_bench_scatter_fill<<<grid_for(c->n, 256), 256>>>(c->keys, c->values, c->n, c->cells, c->width, c->pattern,
                                                       c->seed);
    SC_CHECK(cudaGetLastError());
    ref_acc_t acc;
    double* sums;
    SC_CHECK(cudaMalloc((void**)&acc.lo, (size_t)c->nbins * 8));
    SC_CHECK(cudaMalloc((void**)&acc.hi, (size_t)c->nbins * 8));
    SC_CHECK(cudaMalloc((void**)&acc.count, (size_t)c->cells * 4));
    SC_CHECK(cudaMalloc((void**)&acc.bad, 4));
    SC_CHECK(cudaMalloc((void**)&sums, (size_t)c->nbins * 8));
    SC_CHECK(cudaMemset(acc.lo, 0, (size_t)c->nbins * 8));
    SC_CHECK(cudaMemset(acc.hi, 0, (size_t)c->nbins * 8));
    SC_CHECK(cudaMemset(acc.count, 0, (size_t)c->cells * 4));
    SC_CHECK(cudaMemset(acc.bad, 0, 4));
    const int64_t threads = (c->n + REF_CHUNK - 1) / REF_CHUNK;
    mct_bench_reference<<<(unsigned)((threads + 255) / 256), 256>>>(c->keys, c->values, c->n, c->cells, c->width, acc);
    SC_CHECK(cudaGetLastError());
    mct_bench_reference_sums<<<grid_for(c->nbins, 256), 256>>>(acc, c->nbins, sums);
    SC_CHECK(cudaGetLastError());
    unsigned bad = 0;
    c->ref.resize((size_t)c->nbins);
    c->count.resize((size_t)c->cells);
    SC_CHECK(cudaMemcpy(&bad, acc.bad, 4, cudaMemcpyDeviceToHost));
    SC_CHECK(cudaMemcpy(c->ref.data(), sums, (size_t)c->nbins * 8, cudaMemcpyDeviceToHost));
    SC_CHECK(cudaMemcpy(c->count.data(), acc.count, (size_t)c->cells * 4, cudaMemcpyDeviceToHost));
    cudaFree(acc.lo), cudaFree(acc.hi), cudaFree(acc.count), cudaFree(acc.bad), cudaFree(sums);
    int64_t total = 0;
    for (uint32_t m : c->count) total += m;
    if (bad || total != c->n)
        bench_abort("scatter inputs", "a key out of range or a value off the 2^-54 grid (scatter_inputs.h)");
    c->tol_float.resize((size_t)c->nbins);
    for (int64_t k = 0; k < c->nbins; ++k) c->tol_float[k] = float_part(c->ref[k], (double)c->count[k / c->width]);
}

/* ------------------------------------------------------------------------ */
/* Checking                                                                  */

/* Tolerance of bin k (exact sum S of m positive values): every method forms
 * the bin with at most m - 1 floating additions whose partial sums lie in
 * [0, S], each rounding by at most u S (u = 2^-53). Worst case (m - 1) u S;
 * the rounding errors of values with random low bits are independent and of
 * mean zero, so 8 sqrt(m) u S is > 10 standard deviations: the tolerance is
 * the smaller (float_part, computed once per case). `fixed` instead rounds
 * each value to 2^-f once (at most 2^-f each, rounding direction not assumed)
 * and adds integers exactly: m 2^-f. On top: the reference (2 u S), the final
 * conversion to double (u S) and the host's running sum over `batches`
 * batches, from which a batch is recovered by a difference: (batches + 2) u S.
 * A lost or doubled update moves its bin by its value, uniform on (0, 1]:
 * beyond the largest tolerance of the suites (4.4e-4 for the float methods,
 * 0.024 for fixed, both on one bin: m = 1e8, S = 5e7) with probability > 0.97. */
static double float_part(double S, double m) {
    return std::max(0.0, std::min(m - 1.0, 8.0 * sqrt(m))) * 0x1p-53 * S;
}

/* Checks one batch: got[k] = cur[k] - prev[k] (prev may be NULL). */
static void check_bins(const scatter_case_t* c, const double* cur, const double* prev, int fixed_bits, int batches,
                       case_result_t* r) {
    const double fixed_unit = fixed_bits >= 0 ? ldexp(1.0, -fixed_bits) : 0.0;
    for (int64_t k = 0; k < c->nbins; ++k) {
        const double got = prev ? cur[k] - prev[k] : cur[k], S = c->ref[k];
        const double method = fixed_bits >= 0 ? (double)c->count[k / c->width] * fixed_unit : c->tol_float[k];
        const double tol = method + (batches + 5.0) * 0x1p-53 * S;
        const double err = fabs(got - S);
        if (!(err <= tol)) ++r->bad_bins;
        const double ratio = tol > 0.0 ? err / tol : (err > 0.0 ? 1e300 : 0.0);
        r->worst = std::max(r->worst, ratio != ratio ? 1e300 : ratio);
    }
    ++r->checked;
}

/* ------------------------------------------------------------------------ */
/* Recording                                                                 */

static double case_updates(const scatter_case_t* c) { return (double)c->n * c->width; }

static void record(const scatter_case_t* c, const char* kind, const char* name, const case_result_t* r,
                   double floor_ms) {
    cJSON* o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "bins", (double)c->cells);
    cJSON_AddStringToObject(o, "pattern", g_pattern_names[c->pattern]);
    if (c->cells == 1 && c->width == 1) cJSON_AddStringToObject(o, "same_for", "sorted, hot (one bin: identical keys)");
    cJSON_AddStringToObject(o, "kind", kind);
    cJSON_AddStringToObject(o, "name", name);
    cJSON_AddStringToObject(o, "status", r->status.c_str());
    double med = 0;
    if (!r->ms.empty()) {
        med = mct_bench_median(r->ms);
        cJSON_AddNumberToObject(o, "median_ms", med);
        cJSON_AddNumberToObject(o, "min_ms", *std::min_element(r->ms.begin(), r->ms.end()));
        cJSON_AddNumberToObject(o, "max_ms", *std::max_element(r->ms.begin(), r->ms.end()));
        cJSON_AddNumberToObject(o, "reps", (double)r->ms.size());
        cJSON_AddNumberToObject(o, "gupdates_per_s", case_updates(c) / (med * 1e-3) * 1e-9);
        cJSON_AddNumberToObject(o, "of_floor", floor_ms / med);
    }
    if (r->first_ms > 0) cJSON_AddNumberToObject(o, "first_ms", r->first_ms);
    if (r->predicted_s > 0) cJSON_AddNumberToObject(o, "predicted_s", r->predicted_s);
    cJSON_AddNumberToObject(o, "checked_runs", r->checked);
    cJSON_AddNumberToObject(o, "bad_bins", (double)r->bad_bins);
    cJSON_AddNumberToObject(o, "max_err_over_tol", r->worst);
    const int correct = r->checked > 0 && r->bad_bins == 0;
    cJSON_AddBoolToObject(o, "correct", correct);
    cJSON_AddItemToArray(cJSON_GetObjectItem(g_root, "cases"), o);
    const int failed = r->status.rfind("error", 0) == 0 || (r->checked > 0 && !correct);
    g_failures += failed;
    save_partial();
    printf("  B=%-8lld %-7s %-5s %-24s", (long long)c->cells, g_pattern_names[c->pattern], kind, name);
    if (med > 0)
        printf(" %10.3f ms %8.2f Gupd/s (%5.1f%% of floor)", med, case_updates(c) / (med * 1e-3) * 1e-9,
               100.0 * floor_ms / med);
    printf(" %s%s\n", r->status.c_str(), failed ? (r->checked && !correct ? "  WRONG SUMS" : "  FAILED") : "");
    fflush(stdout);
}

/* ------------------------------------------------------------------------ */
/* mctally methods                                                           */

/* Events around `work` on the default stream (the tallies' stream). */
template <class F>
static double time_region(F&& work) {
    SC_CHECK(cudaEventRecord(g_t0, 0));
    work();
    SC_CHECK(cudaEventRecord(g_t1, 0));
    SC_CHECK(cudaEventSynchronize(g_t1));
    float ms = 0;
    SC_CHECK(cudaEventElapsedTime(&ms, g_t0, g_t1));
    return ms;
}

static mct_status_t timed_add(mct_tally_t t, const scatter_case_t* c, int64_t n, double* ms) {
    mct_status_t st = MCT_STATUS_SUCCESS;
    *ms = time_region([&] {
        st = c->width == 1 ? mct_tally_add_device(t, c->keys, c->values, n)
                           : mct_tally_add_device_grouped(t, c->keys, c->values, n, c->width, c->n);
        if (!st) st = mct_tally_flush(t);
    });
    return st;
}

static std::string status_text(const char* what, mct_status_t st) {
    return std::string(what) + mct_status_name(st) + " (" + mct_status_string(st) + ")";
}

/* One full run: timed add + flush, then the batch closed and checked. */
static mct_status_t full_run(mct_tally_t t, const scatter_case_t* c, int fixed_bits, std::vector<double>* prev,
                             std::vector<double>* cur, case_result_t* r, double* ms) {
    mct_status_t st = timed_add(t, c, c->n, ms);
    if (!st) st = mct_tally_end_batch(t, c->n);
    if (!st) st = mct_tally_sums(t, cur->data());
    if (st) return st;
    check_bins(c, cur->data(), prev->data(), fixed_bits, r->checked + 2, r);
    prev->swap(*cur);
    return MCT_STATUS_SUCCESS;
}

/* One add + flush of the first n keys, timed, its batch closed unchecked. */
static mct_status_t prefix_run(mct_tally_t t, const scatter_case_t* c, int64_t n, double* ms) {
    mct_status_t st = timed_add(t, c, n, ms);
    return st ? st : mct_tally_end_batch(t, n);
}

/* Predicts the full run's time from prefixes, so that no run that could take
 * minutes (cas on one bin) is started. An untimed small run first takes the
 * lazy allocations (replicas) and first launches; then 1/64 of the keys, and
 * where its linear extrapolation is too slow, 1/16 too: a fixed cost per call
 * (reducing replicas) then does not count 64 times. Sets *predicted_s and
 * *skip (the prediction passes twice the cap, or the 1/64 prefix alone takes
 * a quarter of it). */
static mct_status_t predict(mct_tally_t t, const scatter_case_t* c, double cap_s, double* predicted_s, int* skip) {
    const int64_t n64 = std::max<int64_t>(1, c->n / 64), n16 = std::max<int64_t>(n64 + 1, c->n / 16);
    double ms64 = 0, ms16 = 0;
    mct_status_t st = prefix_run(t, c, std::min<int64_t>(c->n, 1024), &ms64);
    if (!st) st = prefix_run(t, c, n64, &ms64);
    if (st) return st;
    *predicted_s = ms64 * 1e-3 * (double)c->n / (double)n64;
    *skip = ms64 * 1e-3 > cap_s / 4;
    if (*skip || *predicted_s <= 2.0 * cap_s || n16 >= c->n) return MCT_STATUS_SUCCESS;
    if ((st = prefix_run(t, c, n16, &ms16))) return st;
    const double slope = std::max(0.0, (ms16 - ms64) / (double)(n16 - n64));
    *predicted_s = (ms16 + slope * (double)(c->n - n16)) * 1e-3;
    *skip = *predicted_s > 2.0 * cap_s;
    return MCT_STATUS_SUCCESS;
}

static mct_status_t create_tally(const scatter_case_t* c, mct_method_t m, mct_tally_t* t, int* fixed_bits) {
    mct_tally_desc_t d;
    mct_tally_desc_init(&d);
    d.bins = c->nbins, d.dtype = MCT_DTYPE_F64, d.method = m, d.backend = MCT_BACKEND_CUDA;
    d.pair_capacity = std::max<int64_t>(1, c->n * c->width); /* sort_reduce: one pair per value */
    *fixed_bits = m == MCT_METHOD_FIXED ? d.fixed_frac_bits : -1;
    return mct_tally_create(t, &d);
}

static void run_reps(mct_tally_t t, const scatter_case_t* c, const bench_args_t* a, int fixed_bits,
                     case_result_t* r) {
    std::vector<double> prev((size_t)c->nbins), cur((size_t)c->nbins);
    mct_status_t st = mct_tally_sums(t, prev.data()); /* the prefixes' batches */
    double ms = 0;
    if (!st) st = full_run(t, c, fixed_bits, &prev, &cur, r, &ms);
    if (st) {
        r->status = status_text("error: ", st);
        return;
    }
    r->first_ms = ms;
    const double cap_ms = a->case_seconds * 1e3;
    if (ms > cap_ms) {
        char why[96];
        snprintf(why, sizeof why, "skipped: too slow (%.2f s for the first run)", ms * 1e-3);
        r->status = why;
        return;
    }
    const int warm = ms < 50.0 ? 1 : 0;
    const int reps = std::min(a->reps, std::max(2, (int)std::min(1e6, 2.0 * cap_ms / std::max(ms, 1e-3))));
    for (int i = 0; i < warm + reps; ++i) {
        if ((st = full_run(t, c, fixed_bits, &prev, &cur, r, &ms))) {
            r->status = status_text("error: ", st);
            return;
        }
        if (i >= warm) r->ms.push_back(ms);
    }
    r->status = "ok";
}

static void run_method(const scatter_case_t* c, mct_method_t m, const bench_args_t* a, double floor_ms) {
    case_result_t r = {};
    mct_tally_t t = NULL;
    int fixed_bits = -1, skip = 0;
    mct_status_t st = create_tally(c, m, &t, &fixed_bits);
    if (st) r.status = status_text(st == MCT_STATUS_NOT_SUPPORTED ? "n/a: " : "error: create ", st);
    else if ((st = predict(t, c, a->case_seconds, &r.predicted_s, &skip)))
        r.status = status_text("error: ", st);
    else if (skip) {
        char why[96];
        snprintf(why, sizeof why, "skipped: too slow (%.2f s predicted from prefixes)", r.predicted_s);
        r.status = why;
    } else
        run_reps(t, c, a, fixed_bits, &r);
    mct_tally_destroy(t);
    (void)cudaGetLastError(); /* a failed launch inside the tally must not be blamed on the next call */
    record(c, "mctally", mct_method_name(m), &r, floor_ms);
}

/* ------------------------------------------------------------------------ */
/* CUB peers                                                                 */

static __global__ void mct_bench_iota(uint32_t* idx, int64_t n) {
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x)
        idx[i] = (uint32_t)i;
}

/* out[c * n + i] = values[c * stride + perm[i]]: the components in key order. */
static __global__ void mct_bench_gather(const double* values, int64_t stride, const uint32_t* perm, int64_t n,
                                        int width, double* out) {
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x) {
        const int64_t p = perm[i];
        for (int c = 0; c < width; ++c) out[(int64_t)c * n + i] = values[(int64_t)c * stride + p];
    }
}

/* bins[unique[j] * width + c] = agg[j] for the runs reduce-by-key found. */
static __global__ void mct_bench_scatter_runs(const uint32_t* unique, const double* agg, const long long* num_runs,
                                              int64_t max_runs, double* bins, int width, int c) {
    const int64_t runs = *num_runs < max_runs ? *num_runs : max_runs;
    for (int64_t j = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; j < runs; j += (int64_t)gridDim.x * blockDim.x)
        bins[(int64_t)unique[j] * width + c] = agg[j];
}

typedef struct {
    uint32_t *keys_sorted, *idx, *perm, *unique;
    double *vals_sorted, *agg, *bins;
    long long* num_runs;
    void* temp;
    size_t temp_bytes;
    int end_bit;
    int64_t max_runs;
} sort_peer_t;

/* The peer's whole work: zero the bins, sort (pairs directly for one value
 * per key; keys with an index permutation and a gather for several), reduce
 * each component by key, scatter the run sums. `temp` NULL: sizes only. */
static void sort_peer_work(const scatter_case_t* c, sort_peer_t* p) {
    const int n = (int)c->n; /* 32-bit offsets, CUB's fast path (n < 2^31 by the options) */
    size_t bytes = p->temp_bytes, need = 0;
    if (p->temp) SC_CHECK(cudaMemsetAsync(p->bins, 0, (size_t)c->nbins * 8));
    if (c->width == 1) {
        SC_CHECK(cub::DeviceRadixSort::SortPairs(p->temp, bytes, c->keys, p->keys_sorted, c->values, p->vals_sorted, n,
                                                 0, p->end_bit));
    } else {
        if (p->temp) mct_bench_iota<<<grid_for(n, 256), 256>>>(p->idx, n);
        SC_CHECK(cub::DeviceRadixSort::SortPairs(p->temp, bytes, c->keys, p->keys_sorted, p->idx, p->perm, n, 0,
                                                 p->end_bit));
        if (p->temp) mct_bench_gather<<<grid_for(n, 256), 256>>>(c->values, n, p->perm, n, c->width, p->vals_sorted);
    }
    need = std::max(need, bytes);
    for (int k = 0; k < c->width; ++k) {
        bytes = p->temp_bytes;
        const double* component = p->vals_sorted + (int64_t)k * n;
        SC_CHECK(cub::DeviceReduce::ReduceByKey(p->temp, bytes, p->keys_sorted, p->unique, component, p->agg,
                                                p->num_runs, ::cuda::std::plus<>{}, n));
        need = std::max(need, bytes);
        if (p->temp)
            mct_bench_scatter_runs<<<grid_for(p->max_runs, 256), 256>>>(p->unique, p->agg, p->num_runs, p->max_runs,
                                                                      p->bins, c->width, k);
    }
    if (p->temp) SC_CHECK(cudaGetLastError());
    else p->temp_bytes = need;
}

static void sort_peer_alloc(const scatter_case_t* c, sort_peer_t* p) {
    memset(p, 0, sizeof *p);
    p->end_bit = 1;
    while (p->end_bit < 32 && (INT64_C(1) << p->end_bit) < c->cells) ++p->end_bit;
    p->max_runs = std::min(c->n, c->cells);
    SC_CHECK(cudaMalloc((void**)&p->keys_sorted, (size_t)c->n * 4));
    SC_CHECK(cudaMalloc((void**)&p->vals_sorted, (size_t)c->n * c->width * 8));
    if (c->width > 1) SC_CHECK(cudaMalloc((void**)&p->idx, (size_t)c->n * 4));
    if (c->width > 1) SC_CHECK(cudaMalloc((void**)&p->perm, (size_t)c->n * 4));
    SC_CHECK(cudaMalloc((void**)&p->unique, (size_t)p->max_runs * 4));
    SC_CHECK(cudaMalloc((void**)&p->agg, (size_t)p->max_runs * 8));
    SC_CHECK(cudaMalloc((void**)&p->num_runs, sizeof(long long)));
    SC_CHECK(cudaMalloc((void**)&p->bins, (size_t)c->nbins * 8));
    sort_peer_work(c, p); /* sizes the temp storage */
    SC_CHECK(cudaMalloc(&p->temp, p->temp_bytes));
}

static void sort_peer_free(sort_peer_t* p) {
    cudaFree(p->keys_sorted), cudaFree(p->vals_sorted), cudaFree(p->idx), cudaFree(p->perm);
    cudaFree(p->unique), cudaFree(p->agg), cudaFree(p->num_runs), cudaFree(p->bins), cudaFree(p->temp);
}

static void run_sort_peer(const scatter_case_t* c, const bench_args_t* a, double floor_ms) {
    sort_peer_t p;
    sort_peer_alloc(c, &p);
    case_result_t r = {};
    SC_CHECK(cudaMemset(p.bins, 0xff, (size_t)c->nbins * 8)); /* poison: NaN */
    for (int i = 0; i < 2 + a->reps; ++i) {
        const double ms = time_region([&] { sort_peer_work(c, &p); });
        if (i >= 2) r.ms.push_back(ms);
    }
    std::vector<double> got((size_t)c->nbins);
    SC_CHECK(cudaMemcpy(got.data(), p.bins, (size_t)c->nbins * 8, cudaMemcpyDeviceToHost));
    check_bins(c, got.data(), NULL, -1, 0, &r);
    r.status = "ok";
    sort_peer_free(&p);
    record(c, "peer", c->width == 1 ? "cub_sort_reduce_by_key" : "cub_sort_perm_reduce_by_key_x9", &r, floor_ms);
}

/* CUB HistogramEven on the keys: counts only, checked exactly. */
static void run_histogram_peer(const scatter_case_t* c, const bench_args_t* a, double floor_ms) {
    int* counts;
    void* temp = NULL;
    size_t bytes = 0;
    const int levels = (int)c->cells + 1, n = (int)c->n;
    const unsigned upper = (unsigned)c->cells;
    auto histogram = [&] { /* with temp NULL: sizes temp only */
        SC_CHECK(cub::DeviceHistogram::HistogramEven(temp, bytes, c->keys, counts, levels, 0u, upper, n));
    };
    SC_CHECK(cudaMalloc((void**)&counts, (size_t)c->cells * 4));
    histogram();
    SC_CHECK(cudaMalloc(&temp, bytes));
    SC_CHECK(cudaMemset(counts, 0xff, (size_t)c->cells * 4)); /* poison */
    case_result_t r = {};
    for (int i = 0; i < 2 + a->reps; ++i) {
        const double ms = time_region(histogram);
        if (i >= 2) r.ms.push_back(ms);
    }
    std::vector<int> got((size_t)c->cells);
    SC_CHECK(cudaMemcpy(got.data(), counts, (size_t)c->cells * 4, cudaMemcpyDeviceToHost));
    for (int64_t k = 0; k < c->cells; ++k) r.bad_bins += (uint32_t)got[k] != c->count[k];
    r.worst = r.bad_bins ? 1e300 : 0.0;
    r.checked = 1;
    r.status = "ok";
    cudaFree(counts), cudaFree(temp);
    record(c, "peer", "cub_histogram_even_counts", &r, floor_ms);
}

/* ------------------------------------------------------------------------ */
/* Suites                                                                    */

static void set_where(const scatter_case_t* c, const char* what) {
    snprintf(g_where, sizeof g_where, "B=%lld %s %s", (long long)c->cells, g_pattern_names[c->pattern], what);
}

static void run_case(scatter_case_t* c, const bench_args_t* a, double floor_ms, double hist_floor_ms) {
    set_where(c, "inputs and reference");
    make_case(c);
    printf("B=%lld %s: inputs and exact reference ready\n", (long long)c->cells, g_pattern_names[c->pattern]);
    set_where(c, "CUB peers");
    if (c->width == 1) run_histogram_peer(c, a, hist_floor_ms);
    run_sort_peer(c, a, floor_ms);
    for (int m = 0; m < MCT_METHOD_COUNT; ++m) {
        if (mct_method_supports((mct_method_t)m, MCT_DTYPE_F64, MCT_BACKEND_CUDA) != MCT_STATUS_SUCCESS) continue;
        if (!(a->methods >> m & 1u)) continue;
        if (m == MCT_METHOD_SHARED && c->nbins * 8 > MCT_BLOCK_TALLY_SMEM_LIMIT) {
            case_result_t r = {};
            r.status = "n/a: B x 8 bytes exceed 48 KiB of shared memory";
            record(c, "mctally", "shared", &r, floor_ms);
            continue;
        }
        set_where(c, mct_method_name((mct_method_t)m));
        run_method(c, (mct_method_t)m, a, floor_ms);
    }
}

static void add_header(const bench_args_t* a, double bw, double floor_ms, double hist_floor_ms) {
    const double bytes = 4.0 + 8.0 * a->width;
    cJSON_AddNumberToObject(g_root, "n", (double)a->n);
    cJSON_AddNumberToObject(g_root, "width", a->width);
    cJSON_AddNumberToObject(g_root, "updates", (double)a->n * a->width);
    cJSON_AddNumberToObject(g_root, "reps", a->reps);
    cJSON_AddNumberToObject(g_root, "case_seconds", a->case_seconds);
    cJSON_AddStringToObject(g_root, "dtype", "f64");
    cJSON_AddNumberToObject(g_root, "copy_bandwidth_GBps", bw * 1e-9);
    cJSON_AddNumberToObject(g_root, "bytes_per_key", bytes);
    cJSON_AddNumberToObject(g_root, "floor_ms", floor_ms);
    cJSON_AddNumberToObject(g_root, "floor_gupdates_per_s", (double)a->n * a->width / (floor_ms * 1e-3) * 1e-9);
    if (hist_floor_ms > 0) cJSON_AddNumberToObject(g_root, "histogram_floor_ms", hist_floor_ms);
    cJSON_AddStringToObject(g_root, "timed",
                            "mct_tally_add_device[_grouped] + mct_tally_flush; peers: all their work incl. zeroing");
    cJSON_AddStringToObject(g_root, "tolerance",
                            "per bin with exact sum S of m values: min(m-1, 8 sqrt(m)) u S (fixed: m 2^-f) "
                            "+ (batches + 5) u S, u = 2^-53; reference exact (128-bit integer sums)");
    cJSON_AddArrayToObject(g_root, "cases");
}

static int run_suite(const bench_args_t* a) {
    cudaDeviceProp prop;
    g_root = mct_bench_root(a->suite, &prop);
    g_out = a->out;
    SC_CHECK(cudaEventCreate(&g_t0));
    SC_CHECK(cudaEventCreate(&g_t1));
    const double bw = mct_bench_copy_bandwidth(a->reps, 2);
    const double floor_ms = (double)a->n * (4.0 + 8.0 * a->width) / bw * 1e3;
    const double hist_floor_ms = a->width == 1 ? (double)a->n * 4.0 / bw * 1e3 : 0.0;
    add_header(a, bw, floor_ms, hist_floor_ms);
    printf("%s on %s: copy bandwidth %.0f GB/s, floor %.3f ms = %.1f Gupd/s\n", a->suite, prop.name, bw * 1e-9,
           floor_ms, (double)a->n * a->width / (floor_ms * 1e-3) * 1e-9);
    scatter_case_t c;
    c.n = a->n, c.width = a->width;
    SC_CHECK(cudaMalloc((void**)&c.keys, (size_t)a->n * 4));
    SC_CHECK(cudaMalloc((void**)&c.values, (size_t)a->n * a->width * 8));
    const int64_t sweep[4] = {1, 8, 1000, 1000000}, mpc[1] = {1000000};
    const int64_t* bins = a->width == 1 ? sweep : mpc;
    const int nb = a->width == 1 ? 4 : 1;
    for (int b = 0; b < nb; ++b)
        for (int p = 0; p < MCT_SCATTER_PATTERN_COUNT; ++p) {
            if (a->width > 1 && p == MCT_SCATTER_HOT) continue; /* Westphal: random or sorted by cell */
            if (bins[b] == 1 && p != MCT_SCATTER_UNIFORM) continue; /* one bin: every pattern is key 0 */
            c.pattern = (mct_scatter_pattern_t)p;
            c.cells = bins[b], c.nbins = bins[b] * a->width;
            c.seed = 20150000u + 16u * (uint64_t)b + (uint64_t)p;
            run_case(&c, a, floor_ms, hist_floor_ms);
        }
    cudaFree(c.keys), cudaFree(c.values);
    cudaEventDestroy(g_t0), cudaEventDestroy(g_t1);
    cJSON_AddBoolToObject(g_root, "complete", 1);
    return mct_bench_finish(g_root, a->out, g_failures);
}

static int usage_error(const bench_args_t* a, const char* what) {
    fprintf(stderr, "mctally: bench %s: %s\n", a->suite, what);
    return 1;
}

static int parse_args(int argc, char** argv, bench_args_t* a) {
    const int mpc = !strcmp(a->suite, "mpc");
    a->width = mpc ? 9 : 1;
    a->n = mpc ? 10000000 : 100000000;
    a->reps = 7;
    a->case_seconds = 0.5;
    a->out = mpc ? "bench_mpc.json" : "bench_scatter.json";
    a->methods = (1u << MCT_METHOD_COUNT) - 1u;
    for (int i = 0; i < argc; ++i) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            printf("usage: mctally bench %s [--n N (%s)] [--reps R (7, >= 5)] [--case-seconds S (0.5)] "
                   "[--methods M,M,... (all)] [--out FILE.json]\n",
                   a->suite, mpc ? "1e7 particles" : "1e8 updates");
            exit(0);
        }
        if (i + 1 >= argc) return usage_error(a, "an option needs a value");
        const char *flag = argv[i], *value = argv[++i];
        int64_t v = 0;
        int bad = 0;
        if (!strcmp(flag, "--n")) bad = mct_cli_parse_i64(value, 1, INT32_MAX, &a->n);
        else if (!strcmp(flag, "--reps")) {
            bad = mct_cli_parse_i64(value, 5, 1000, &v);
            a->reps = (int)v;
        }
        else if (!strcmp(flag, "--case-seconds")) bad = mct_cli_parse_f64(value, 0.001, &a->case_seconds);
        else if (!strcmp(flag, "--out")) a->out = value;
        else if (!strcmp(flag, "--methods")) {
            /* A comma-separated list of method names; the peers run in any case. */
            a->methods = 0;
            char name[64];
            for (const char* p = value;;) {
                const size_t len = strcspn(p, ",");
                mct_method_t m;
                if (len == 0 || len >= sizeof name) return usage_error(a, "--methods: a list of method names, comma-separated");
                memcpy(name, p, len);
                name[len] = 0;
                if (mct_method_from_name(name, &m) != MCT_STATUS_SUCCESS || (int)m < 0 || (int)m >= MCT_METHOD_COUNT)
                    return usage_error(a, "--methods: unknown method (see mctally methods)");
                a->methods |= 1u << m;
                if (!p[len]) break;
                p += len + 1;
            }
        }
        else return usage_error(a, "unknown option (known: --n, --reps, --case-seconds, --methods, --out)");
        if (bad) return usage_error(a, "bad value (--n: 1 .. 2^31-1, --reps: 5 .. 1000, --case-seconds: >= 0.001)");
    }
    return 0;
}

static int bench_main(const char* suite, int argc, char** argv) {
    bench_args_t a;
    a.suite = suite;
    if (parse_args(argc, argv, &a)) return 1;
    return run_suite(&a);
}

extern "C" int mct_bench_scatter(int argc, char** argv) { return bench_main("scatter", argc, argv); }
extern "C" int mct_bench_mpc(int argc, char** argv) { return bench_main("mpc", argc, argv); }
