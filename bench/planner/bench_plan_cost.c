/* SPDX-License-Identifier: BSD-3-Clause */
/** @file bench_plan_cost.c  What method auto's plan costs inside
 * mct_tally_create (mct_plan_info_t.seconds, estimate mode, f64, a key sample
 * of 2^20 keys), in three states of the caches: warm (plans back to back),
 * cold (64 MB of host memory touched before each plan) and after work (an
 * add of 1e7 keys on another tally of the same backend, then the 64 MB), the
 * last being what a plan meets between GPU runs. Median, 10th and 90th
 * percentile over --reps plans, for each bin count of --bins; the Markdown
 * table on stdout, the figures in --out.
 *
 * usage: bench_plan_cost [--backend B] [--bins N,N,...] [--reps R] [--no-sample] --out FILE.json */
#define _POSIX_C_SOURCE 200809L
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_flags.h"
#include "mctally/mct.h"

enum { STATES = 3, MAX_BINS = 8 };
static const char* const state_names[STATES] = {"warm", "cold", "after_work"};

static int cmp_double(const void* a, const void* b) {
    const double x = *(const double*)a, y = *(const double*)b;
    return (x > y) - (x < y);
}

static void touch(volatile unsigned char* junk, size_t size) {
    for (size_t i = 0; i < size; i += 64) junk[i] = (unsigned char)(junk[i] + 1);
}

int main(int argc, char** argv) {
    mct_backend_t backend = MCT_BACKEND_AUTO;
    int64_t bins[MAX_BINS] = {1000000, 8};
    int nbins = 2, reps = 101, sample = 1;
    const char* out = NULL;
    for (int i = 1; i < argc; ++i) {
        const char* v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(argv[i], "--backend") && v) {
            if (mct_backend_from_name(v, &backend)) return fprintf(stderr, "bench_plan_cost: unknown backend %s\n", v), 1;
            ++i;
        } else if (!strcmp(argv[i], "--bins") && v) {
            nbins = 0;
            char* copy = strdup(v);
            for (char* tok = strtok(copy, ","); tok; tok = strtok(NULL, ",")) {
                int64_t b = 0;
                if (nbins == MAX_BINS || mct_cli_flag_i64("bench_plan_cost --bins", tok, 1, INT64_C(1) << 31, &b)) {
                    free(copy);
                    return fprintf(stderr, "bench_plan_cost: --bins takes at most %d counts\n", MAX_BINS), 1;
                }
                bins[nbins++] = b;
            }
            free(copy);
            ++i;
        } else if (!strcmp(argv[i], "--reps") && v) {
            MCT_CLI_FLAG_INT(reps, "bench_plan_cost --reps", v, 1, 100000);
            ++i;
        } else if (!strcmp(argv[i], "--no-sample")) {
            sample = 0;
        } else if (!strcmp(argv[i], "--out") && v) {
            out = v;
            ++i;
        } else {
            return fprintf(stderr, "usage: bench_plan_cost [--backend B] [--bins N,N,...] [--reps R] [--no-sample] --out FILE.json\n"), 1;
        }
    }
    if (!out || nbins < 1)
        return fprintf(stderr, "usage: bench_plan_cost [--backend B] [--bins N,N,...] [--reps R] [--no-sample] --out FILE.json\n"), 1;

    const int64_t sample_n = INT64_C(1) << 20, work_n = 10000000;
    const size_t junk_size = (size_t)64 << 20;
    uint32_t* keys = malloc((size_t)sample_n * sizeof *keys);
    uint32_t* work_keys = malloc((size_t)work_n * sizeof *work_keys);
    double* work_values = malloc((size_t)work_n * sizeof *work_values);
    unsigned char* junk = calloc(junk_size, 1);
    double* t = malloc((size_t)reps * sizeof *t);
    if (!keys || !work_keys || !work_values || !junk || !t) return fprintf(stderr, "bench_plan_cost: out of memory\n"), 1;
    for (int64_t i = 0; i < work_n; ++i) work_keys[i] = (uint32_t)(((uint64_t)i * 2654435761u) % 1000000u), work_values[i] = 1.0;

    mct_tally_desc_t wd;
    mct_tally_desc_init(&wd);
    wd.backend = backend;
    wd.bins = 1000000;
    wd.dtype = MCT_DTYPE_F64;
    wd.method = MCT_METHOD_ATOMIC;
    mct_tally_t work = NULL;
    mct_status_t st = mct_tally_create(&work, &wd);
    if (st) return fprintf(stderr, "bench_plan_cost: %s\n", mct_status_string(st)), 1;
    mct_tally_get_desc(work, &wd);
    char device[128] = "";
    mct_tally_device_name(work, device, sizeof device);

    cJSON* root = cJSON_CreateObject();
    cJSON_AddStringToObject(root, "backend", mct_backend_name(wd.backend));
    cJSON_AddStringToObject(root, "device", device);
    cJSON_AddStringToObject(root, "version", MCT_VERSION_STRING);
    cJSON_AddNumberToObject(root, "reps", reps);
    cJSON_AddNumberToObject(root, "sample_keys", sample ? (double)sample_n : 0.0);
    cJSON* cases = cJSON_AddArrayToObject(root, "cases");
    printf("| bins | method | state | plan µs, median | p10 | p90 |\n|---:|---|---|---:|---:|---:|\n");
    for (int b = 0; b < nbins; ++b) {
        for (int64_t i = 0; i < sample_n; ++i) keys[i] = (uint32_t)(((uint64_t)i * 2654435761u) % (uint64_t)bins[b]);
        for (int s = 0; s < STATES; ++s) {
            mct_method_t method = MCT_METHOD_AUTO;
            for (int r = 0; r < reps; ++r) {
                if (s == 2 && ((st = mct_tally_add(work, work_keys, work_values, work_n)) || (st = mct_tally_end_batch(work, 1))))
                    return fprintf(stderr, "bench_plan_cost: %s\n", mct_status_string(st)), 1;
                if (s >= 1) touch(junk, junk_size);
                mct_tally_desc_t d;
                mct_tally_desc_init(&d);
                d.backend = wd.backend;
                d.bins = bins[b];
                d.dtype = MCT_DTYPE_F64;
                d.method = MCT_METHOD_AUTO;
                if (sample) d.key_sample = keys, d.key_sample_n = sample_n;
                mct_tally_t tally = NULL;
                mct_plan_info_t info;
                if ((st = mct_tally_create(&tally, &d)) || (st = mct_tally_plan_info(tally, &info)))
                    return fprintf(stderr, "bench_plan_cost: %s\n", mct_status_string(st)), 1;
                t[r] = info.seconds;
                method = info.method;
                mct_tally_destroy(tally);
            }
            qsort(t, (size_t)reps, sizeof *t, cmp_double);
            const double med = t[reps / 2], p10 = t[reps / 10], p90 = t[(reps * 9) / 10];
            printf("| %lld | `%s` | %s | %.2f | %.2f | %.2f |\n", (long long)bins[b], mct_method_name(method), state_names[s],
                   1e6 * med, 1e6 * p10, 1e6 * p90);
            cJSON* c = cJSON_CreateObject();
            cJSON_AddNumberToObject(c, "bins", (double)bins[b]);
            cJSON_AddStringToObject(c, "state", state_names[s]);
            cJSON_AddStringToObject(c, "method", mct_method_name(method));
            cJSON_AddNumberToObject(c, "plan_seconds_median", med);
            cJSON_AddNumberToObject(c, "plan_seconds_p10", p10);
            cJSON_AddNumberToObject(c, "plan_seconds_p90", p90);
            cJSON_AddItemToArray(cases, c);
        }
    }
    mct_tally_destroy(work);
    char* text = cJSON_Print(root);
    FILE* f = text ? fopen(out, "w") : NULL;
    int rc = 0;
    if (!f || fputs(text, f) < 0 || fclose(f) != 0) rc = 1, fprintf(stderr, "bench_plan_cost: cannot write %s\n", out);
    cJSON_free(text);
    cJSON_Delete(root);
    free(keys), free(work_keys), free(work_values), free(junk), free(t);
    return rc;
}
