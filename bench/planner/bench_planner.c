/* SPDX-License-Identifier: BSD-3-Clause */
/** @file bench_planner.c  How good is method auto? On the scatter sweep's
 * cases (B in {1, 8, 1000, 1e6} x uniform/sorted/hot keys) and Westphal's MPC
 * (9 components per key), every concrete method and auto (estimate, measure,
 * and measure again through the wisdom the first measure recorded) add the
 * same keys from the backend's memory (--cases other: bin counts, widths and
 * value types of no issue's sweep); for each case the JSON gives every
 * method's time, the best, and for each auto its method, its time relative to
 * the best of the same run and its planning time. bench/planner/table.py
 * makes the Markdown table.
 *
 * usage: bench_planner [--backend B] [--n N] [--reps R] [--budget-s S] [--cases sweep|other|types|small] --out FILE.json */
#define _POSIX_C_SOURCE 200809L
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli_flags.h"
#include "mctally/mct.h"

#if MCT_HAVE_CUDA
#include <cuda_runtime_api.h>
#endif

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

typedef struct {
    int64_t cells;
    int width;
    const char* pattern;
    const char* dtype; /* NULL: f64 */
} case_t;

static mct_dtype_t case_dtype(const case_t* c) {
    mct_dtype_t t = MCT_DTYPE_F64;
    if (c->dtype) mct_dtype_from_name(c->dtype, &t);
    return t;
}

typedef struct {
    mct_backend_t backend;
    int64_t n;
    int reps;
    double budget;
    const uint32_t* dkeys; /* backend memory */
    const double* dvalues;
    int64_t sample_n; /* keys in the planner's sample */
} run_t;

/* The scatter benchmark's keys (sim/scatter): uniform; sorted, runs of n/cells
 * in ascending cells; hot, half of them into cell cells/2. */
static void make_keys(uint32_t* k, int64_t n, const case_t* c) {
    uint64_t s = 0x2545F4914F6CDD1Dull;
    for (int64_t i = 0; i < n; ++i) {
        s ^= s << 13, s ^= s >> 7, s ^= s << 17;
        const uint32_t r = (uint32_t)(s % (uint64_t)c->cells);
        if (!strcmp(c->pattern, "sorted"))
            k[i] = (uint32_t)((i * c->cells) / n);
        else if (!strcmp(c->pattern, "hot"))
            k[i] = (s >> 33) & 1 ? (uint32_t)(c->cells / 2) : r;
        else
            k[i] = r;
    }
}

static mct_status_t sync_backend(mct_backend_t b) {
#if MCT_HAVE_CUDA
    if (b == MCT_BACKEND_CUDA && cudaDeviceSynchronize() != cudaSuccess) return MCT_STATUS_CUDA_ERROR;
#else
    (void)b;
#endif
    return MCT_STATUS_SUCCESS;
}

static int cmp_double(const void* a, const void* b) {
    const double x = *(const double*)a, y = *(const double*)b;
    return (x > y) - (x < y);
}

/* Median seconds of one add of the whole array (with the flush of deferred
 * work), after a warm-up; negative when the method cannot serve the case. */
static double time_method(const run_t* r, const case_t* c, mct_method_t m) {
    mct_tally_desc_t d;
    mct_tally_desc_init(&d);
    d.bins = c->cells * c->width;
    d.dtype = case_dtype(c);
    d.backend = r->backend;
    d.method = m;
    d.pair_capacity = r->n * c->width;
    mct_tally_t t = NULL;
    if (mct_tally_create(&t, &d)) return -1.0;
    double times[64];
    int k = 0;
    mct_status_t st = MCT_STATUS_SUCCESS;
    /* A method far from the best (a CAS loop on one hot bin can need minutes
     * for 1e8 adds) is timed on prefixes of 1/256 and 1/64 of the keys (after
     * a warm-up on the smaller, which allocates what the method allocates on
     * its first add) and its time predicted from the line through the two:
     * such a method is never the best, and the run stays bounded. The line,
     * not a proportion, so that a cost paid once per flush (replicated's
     * reduction, sort_reduce's sort set-up) is not multiplied by 64. */
    const int64_t prefix = r->n / 64, small = prefix / 4;
    if (small >= 1024) {
        double tp[2] = {0.0, 0.0};
        for (int i = 0; !st && i < 3; ++i) {
            const int64_t m = i < 2 ? small : prefix;
            const double t0 = now();
            st = mct_tally_add_device_grouped(t, r->dkeys, r->dvalues, m, c->width, r->n);
            if (!st) st = mct_tally_flush(t);
            if (!st) st = sync_backend(r->backend);
            if (i > 0) tp[i - 1] = now() - t0;
        }
        const double slope = tp[1] > tp[0] ? (tp[1] - tp[0]) / (double)(prefix - small) : tp[1] / (double)prefix;
        const double predicted = tp[1] + slope * (double)(r->n - prefix);
        if (!st && predicted > 2.0) {
            mct_tally_destroy(t);
            return predicted;
        }
    }
    for (int rep = 0; !st && rep <= r->reps && rep < 64; ++rep) {
        const double t0 = now();
        st = mct_tally_add_device_grouped(t, r->dkeys, r->dvalues, r->n, c->width, r->n);
        if (!st) st = mct_tally_flush(t);
        if (!st) st = sync_backend(r->backend);
        const double dt = now() - t0;
        if (rep > 0) times[k++] = dt;
        if (!st && rep == 0 && dt > 1.0) { /* a slow case: its warm-up run is its time */
            times[k++] = dt;
            break;
        }
    }
    mct_tally_destroy(t);
    if (st || k == 0) return -1.0;
    qsort(times, (size_t)k, sizeof *times, cmp_double);
    return times[k / 2];
}

/* auto in one mode: the method it picks and the seconds it spends planning. */
static cJSON* time_auto(const run_t* r, const case_t* c, mct_plan_mode_t mode, mct_wisdom_t w, const uint32_t* sample,
                        const double* method_s, double best, double adds_per_bin) {
    mct_tally_desc_t d;
    mct_tally_desc_init(&d);
    d.bins = c->cells * c->width;
    d.dtype = case_dtype(c);
    d.width = c->width;
    d.backend = r->backend;
    d.plan_mode = mode;
    d.plan_budget_s = r->budget;
    d.adds_per_bin = adds_per_bin;
    d.wisdom = w;
    d.key_sample = sample;
    d.key_sample_n = r->sample_n;
    d.pair_capacity = r->n * c->width;
    const double t0 = now();
    mct_tally_t t = NULL;
    const mct_status_t st = mct_tally_create(&t, &d);
    const double create_s = now() - t0;
    cJSON* j = cJSON_CreateObject();
    if (st) {
        cJSON_AddStringToObject(j, "error", mct_status_name(st));
        return j;
    }
    mct_plan_info_t info;
    mct_tally_plan_info(t, &info);
    mct_tally_destroy(t);
    cJSON_AddStringToObject(j, "method", mct_method_name(info.method));
    cJSON_AddStringToObject(j, "source", mct_plan_source_name(info.source));
    cJSON_AddStringToObject(j, "pattern", mct_key_pattern_name(info.pattern));
    cJSON_AddNumberToObject(j, "plan_seconds", info.seconds);
    cJSON_AddNumberToObject(j, "create_seconds", create_s);
    cJSON_AddNumberToObject(j, "adds_per_bin", adds_per_bin);
    /* Planning against the run it plans for: the best method's time for the case's keys. */
    if (best > 0.0) cJSON_AddNumberToObject(j, "plan_share_of_best_run", info.seconds / best);
    const double s = method_s[info.method];
    if (s > 0.0) {
        cJSON_AddNumberToObject(j, "seconds", s);
        cJSON_AddNumberToObject(j, "vs_best", s / best);
    }
    cJSON_AddStringToObject(j, "reason", info.reason);
    /* The planner's own ranking (measured or predicted time per update), to
     * compare with the methods' times in the same run. */
    cJSON* jr = cJSON_AddArrayToObject(j, "ranking");
    for (int i = 0; i < info.nentries; ++i) {
        const mct_plan_entry_t* e = &info.ranking[i];
        if (!e->admissible) continue;
        cJSON* je = cJSON_CreateObject();
        cJSON_AddStringToObject(je, "method", mct_method_name(e->method));
        cJSON_AddNumberToObject(je, "seconds_per_update", e->seconds_per_update);
        cJSON_AddStringToObject(je, "why", e->why);
        cJSON_AddItemToArray(jr, je);
    }
    return j;
}

int main(int argc, char** argv) {
    run_t r = {MCT_BACKEND_AUTO, 0, 3, 0.25, NULL, NULL, 0};
    const char *out = NULL, *cases_name = "sweep";
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--backend")) {
            if (mct_backend_from_name(argv[i + 1], &r.backend)) return fprintf(stderr, "bad --backend\n"), 1;
        } else if (!strcmp(argv[i], "--n")) {
            MCT_CLI_FLAG_INT(r.n, "bench_planner --n", argv[i + 1], 0, INT64_C(1) << 31);
        } else if (!strcmp(argv[i], "--reps")) {
            MCT_CLI_FLAG_INT(r.reps, "bench_planner --reps", argv[i + 1], 1, 1000);
        } else if (!strcmp(argv[i], "--budget-s")) {
            MCT_CLI_FLAG_F64(r.budget, "bench_planner --budget-s", argv[i + 1], 0.0);
        } else if (!strcmp(argv[i], "--cases")) {
            cases_name = argv[i + 1];
        } else if (!strcmp(argv[i], "--out")) {
            out = argv[i + 1];
        } else {
            return fprintf(stderr, "bench_planner: unknown option %s\n", argv[i]), 1;
        }
    }
    if (!out || r.reps < 1 || r.reps > 63) return fprintf(stderr, "usage: bench_planner [--backend B] [--n N] [--reps R] [--budget-s S] [--cases sweep|other|types|small] --out FILE.json\n"), 1;
    const int small = !strcmp(cases_name, "small"), other = !strcmp(cases_name, "other");
    if (!small && !other && strcmp(cases_name, "sweep") && strcmp(cases_name, "types"))
        return fprintf(stderr, "bench_planner: --cases sweep|other|types|small\n"), 1;
    const case_t sweep[] = {{1, 1, "uniform", NULL},       {8, 1, "uniform", NULL},      {8, 1, "sorted", NULL},
                            {8, 1, "hot", NULL},           {1000, 1, "uniform", NULL},   {1000, 1, "sorted", NULL},
                            {1000, 1, "hot", NULL},        {1000000, 1, "uniform", NULL}, {1000000, 1, "sorted", NULL},
                            {1000000, 1, "hot", NULL},     {1000000, 9, "uniform", NULL}, {1000000, 9, "sorted", NULL}};
    /* Tiny sizes for the emulation's smoke test: the same patterns and classes of B. */
    const case_t tiny[] = {{1, 1, "uniform", NULL},     {8, 1, "hot", NULL},       {1000, 1, "sorted", NULL},
                           {20000, 1, "uniform", NULL}, {2000, 9, "sorted", NULL}};
    /* Bin counts, widths and value types between and beside the sweep's. */
    const case_t others[] = {{100, 1, "uniform", "f32"}, {4096, 1, "sorted", "u64"}, {30000, 1, "hot", NULL},
                             {250000, 4, "uniform", NULL}, {3000000, 1, "uniform", "f32"}, {64, 1, "hot", "i32"}};
    /* The sweep's bin counts that a block's copy fits, for the value types
     * other than f64: their shared-memory atomics are the hardware's own. */
    case_t typed[27];
    int ntyped = 0;
    static const char* const tnames[] = {"f32", "i32", "u64"};
    static const char* const pnames[] = {"uniform", "sorted", "hot"};
    static const int64_t tcells[] = {1, 8, 1000};
    for (int t = 0; t < 3; ++t)
        for (int b = 0; b < 3; ++b)
            for (int q = 0; q < 3; ++q) typed[ntyped++] = (case_t){tcells[b], 1, pnames[q], tnames[t]};
    const int types = !strcmp(cases_name, "types");
    const case_t* cases = small ? tiny : other ? others : types ? typed : sweep;
    const int ncases = small ? (int)(sizeof tiny / sizeof *tiny)
                       : other ? (int)(sizeof others / sizeof *others)
                       : types ? ntyped
                               : (int)(sizeof sweep / sizeof *sweep);

    mct_tally_desc_t probe;
    mct_tally_desc_init(&probe);
    probe.backend = r.backend;
    mct_tally_t pt = NULL;
    if (mct_tally_create(&pt, &probe)) return fprintf(stderr, "bench_planner: backend %s unavailable\n", mct_backend_name(r.backend)), 1;
    mct_tally_get_desc(pt, &probe);
    char device[256];
    mct_tally_device_name(pt, device, sizeof device);
    mct_tally_destroy(pt);
    r.backend = probe.backend;
    if (r.n <= 0) r.n = r.backend == MCT_BACKEND_CUDA ? 100000000 : r.backend == MCT_BACKEND_CPU ? 4000000 : 20000;

    cJSON* root = cJSON_CreateObject();
    cJSON_AddStringToObject(root, "benchmark", "planner");
    cJSON_AddStringToObject(root, "backend", mct_backend_name(r.backend));
    cJSON_AddStringToObject(root, "device", device);
    cJSON_AddStringToObject(root, "commit", getenv("MCT_COMMIT") ? getenv("MCT_COMMIT") : "unknown");
    cJSON_AddNumberToObject(root, "reps", r.reps);
    cJSON_AddNumberToObject(root, "plan_budget_s", r.budget);
    cJSON* jcases = cJSON_AddArrayToObject(root, "cases");
    mct_wisdom_t wisdom = NULL;
    mct_wisdom_create(&wisdom);
    int rc = 0;
    for (int ci = 0; ci < ncases && !rc; ++ci) {
        const case_t* c = &cases[ci];
        /* MPC: 1e7 keys of 9 components; the sweep: n keys of one. */
        const int64_t n = c->width > 1 && !small ? r.n / 10 : r.n;
        run_t rc_run = r;
        rc_run.n = n;
        uint32_t* keys = malloc((size_t)n * sizeof *keys);
        double* values = malloc((size_t)(n * c->width) * sizeof *values);
        if (!keys || !values) return fprintf(stderr, "out of memory\n"), 1;
        make_keys(keys, n, c);
        /* Integer tallies take whole values. */
        const int integral = case_dtype(c) == MCT_DTYPE_I32 || case_dtype(c) == MCT_DTYPE_U64;
        for (int64_t i = 0; i < n * c->width; ++i) values[i] = integral ? (double)(1 + i % 3) : 0.5 + (double)(i % 1000) / 1000.0;
        void *dk = keys, *dv = values;
#if MCT_HAVE_CUDA
        if (r.backend == MCT_BACKEND_CUDA) {
            if (cudaMalloc(&dk, (size_t)n * sizeof *keys) != cudaSuccess ||
                cudaMalloc(&dv, (size_t)(n * c->width) * sizeof *values) != cudaSuccess ||
                cudaMemcpy(dk, keys, (size_t)n * sizeof *keys, cudaMemcpyHostToDevice) != cudaSuccess ||
                cudaMemcpy(dv, values, (size_t)(n * c->width) * sizeof *values, cudaMemcpyHostToDevice) != cudaSuccess)
                return fprintf(stderr, "bench_planner: CUDA allocation failed\n"), 1;
        }
#endif
        rc_run.dkeys = dk;
        rc_run.dvalues = dv;
        double method_s[MCT_METHOD_COUNT], best = -1.0;
        int best_m = -1;
        cJSON* jc = cJSON_CreateObject();
        cJSON_AddNumberToObject(jc, "cells", (double)c->cells);
        cJSON_AddNumberToObject(jc, "width", c->width);
        cJSON_AddStringToObject(jc, "pattern", c->pattern);
        cJSON_AddStringToObject(jc, "dtype", mct_dtype_name(case_dtype(c)));
        cJSON_AddNumberToObject(jc, "keys", (double)n);
        cJSON* jm = cJSON_AddObjectToObject(jc, "methods");
        for (int m = 0; m < MCT_METHOD_COUNT; ++m) {
            method_s[m] = time_method(&rc_run, c, (mct_method_t)m);
            if (method_s[m] > 0.0) {
                cJSON_AddNumberToObject(jm, mct_method_name((mct_method_t)m), method_s[m]);
                if (best < 0.0 || method_s[m] < best) best = method_s[m], best_m = m;
            }
        }
        if (best_m < 0) rc = 1;
        cJSON_AddStringToObject(jc, "best", best_m >= 0 ? mct_method_name((mct_method_t)best_m) : "none");
        cJSON_AddNumberToObject(jc, "best_seconds", best);
        /* The planner's sample, as mct_tally.h advises: 64 runs of 1024
         * consecutive keys from evenly spaced places of the stream. */
        uint32_t* sample = malloc(65536 * sizeof *sample);
        if (!sample) return fprintf(stderr, "out of memory\n"), 1;
        int64_t sn = 0;
        for (int b = 0; b < 64 && sn < n; ++b) {
            const int64_t at = (n / 64) * b;
            for (int64_t i = 0; i < 1024 && at + i < n; ++i) sample[sn++] = keys[at + i];
        }
        rc_run.sample_n = sn;
        cJSON_AddItemToObject(jc, "auto_estimate", time_auto(&rc_run, c, MCT_PLAN_ESTIMATE, NULL, sample, method_s, best, 0.0));
        cJSON_AddItemToObject(jc, "auto_measure", time_auto(&rc_run, c, MCT_PLAN_MEASURE, wisdom, sample, method_s, best, 0.0));
        cJSON_AddItemToObject(jc, "auto_wisdom", time_auto(&rc_run, c, MCT_PLAN_MEASURE, wisdom, sample, method_s, best, 0.0));
        /* Measure with the batch announced (its keys over the cells): the budget
         * is then at most 2 % of the batch's predicted time. */
        cJSON_AddItemToObject(jc, "auto_measure_batch", time_auto(&rc_run, c, MCT_PLAN_MEASURE, NULL, sample, method_s, best,
                                                                  (double)n / (double)c->cells));
        free(sample);
        cJSON_AddItemToArray(jcases, jc);
        fprintf(stderr, "planner: %lld cells x %d %s: best %s\n", (long long)c->cells, c->width, c->pattern,
                best_m >= 0 ? mct_method_name((mct_method_t)best_m) : "none");
#if MCT_HAVE_CUDA
        if (r.backend == MCT_BACKEND_CUDA) cudaFree(dk), cudaFree(dv);
#endif
        free(keys);
        free(values);
    }
    mct_wisdom_destroy(wisdom);
    char* text = cJSON_Print(root);
    FILE* f = text ? fopen(out, "w") : NULL;
    if (!f || fputs(text, f) < 0 || fclose(f) != 0) rc = 1, fprintf(stderr, "bench_planner: cannot write %s\n", out);
    free(text);
    cJSON_Delete(root);
    return rc;
}
