/* SPDX-License-Identifier: BSD-3-Clause */
/** @file bench_c_calls.c  The C library's own time for the calls the Python
 * package makes per call, so that bench_scatter_add.py can report what the
 * Python layer adds on top: on one tally of --bins bins (method --method, kept
 * open as mctally.Tally and scatter_add's cache keep theirs), for n keys
 * already in the backend's memory (uniform over the bins, values in [0.5, 1.5)),
 * the median seconds of
 *   add            mct_tally_add_device                         (Tally.add)
 *   add_end_batch  mct_tally_add_device + mct_tally_end_batch   (Tally.add + end_batch)
 *   scatter_add    mct_tally_add_device + mct_tally_take_sums   (scatter_add, cached tally)
 * each call timed alone after a warm-up, as bench_scatter_add.py times the
 * Python calls: the wall clock around the call and, on the GPU, a wait for the
 * device (cudaDeviceSynchronize).
 *
 * usage: bench_c_calls --out FILE.json [--backend cpu|cuda|emulated] [--method M]
 *        [--bins B] [--n 1,32,1024] [--reps R] */
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

enum { MAX_SIZES = 16 };

typedef struct {
    mct_backend_t backend;
    mct_method_t method;
    int64_t bins;
    int64_t n[MAX_SIZES];
    int nsizes;
    int reps;
    const char* out;
} args_t;

typedef enum { OP_ADD, OP_ADD_END_BATCH, OP_SCATTER_ADD, OP_COUNT } op_t;
static const char* const op_names[OP_COUNT] = {"add_s", "add_end_batch_s", "scatter_add_s"};

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int cmp_double(const void* a, const void* b) {
    const double x = *(const double*)a, y = *(const double*)b;
    return (x > y) - (x < y);
}

static mct_status_t call(op_t op, mct_tally_t t, const uint32_t* k, const double* v, int64_t n, double* dst) {
    mct_status_t st = mct_tally_add_device(t, k, v, n);
    if (st || op == OP_ADD) return st;
    return op == OP_ADD_END_BATCH ? mct_tally_end_batch(t, 1) : mct_tally_take_sums(t, dst);
}

/* Waits for the device (cuda): what the timed region of a call ends with. */
static mct_status_t sync_device(const args_t* a) {
#if MCT_HAVE_CUDA
    if (a->backend == MCT_BACKEND_CUDA && cudaDeviceSynchronize() != cudaSuccess) return MCT_STATUS_CUDA_ERROR;
#else
    (void)a;
#endif
    return MCT_STATUS_SUCCESS;
}

/* Seconds of one call, as the Python benchmark times one: the wall clock
 * around the call and, on the GPU, a wait for the device, so that
 * asynchronous work is counted in full. */
static mct_status_t time_call(const args_t* a, op_t op, mct_tally_t t, const uint32_t* k, const double* v, int64_t n,
                              double* dst, double* seconds) {
    const double t0 = now();
    mct_status_t st = call(op, t, k, v, n, dst);
    const mct_status_t sync = sync_device(a);
    *seconds = now() - t0;
    return st ? st : sync;
}

static void* backend_buffer(mct_backend_t b, const void* host, size_t bytes) {
    void* p = malloc(bytes ? bytes : 1);
    if (p && host) memcpy(p, host, bytes);
#if MCT_HAVE_CUDA
    if (b == MCT_BACKEND_CUDA) {
        void* d = NULL;
        if (cudaMalloc(&d, bytes ? bytes : 1) != cudaSuccess ||
            (host && cudaMemcpy(d, host, bytes, cudaMemcpyHostToDevice) != cudaSuccess))
            d = NULL;
        free(p);
        return d;
    }
#else
    (void)b;
#endif
    return p;
}

static void backend_free(mct_backend_t b, void* p) {
#if MCT_HAVE_CUDA
    if (b == MCT_BACKEND_CUDA) {
        cudaFree(p);
        return;
    }
#else
    (void)b;
#endif
    free(p);
}

/* One size: the median of every op, into row. */
static int run_size(const args_t* a, int64_t n, cJSON* row) {
    uint32_t* keys = malloc((size_t)(n ? n : 1) * sizeof *keys);
    double* values = malloc((size_t)(n ? n : 1) * sizeof *values);
    double* times = malloc((size_t)a->reps * sizeof *times);
    if (!keys || !values || !times) return fprintf(stderr, "bench_c_calls: out of memory\n"), 1;
    uint64_t s = 0x9E3779B97F4A7C15ull;
    for (int64_t i = 0; i < n; ++i) {
        s ^= s << 13, s ^= s >> 7, s ^= s << 17;
        keys[i] = (uint32_t)(s % (uint64_t)a->bins);
        values[i] = 0.5 + (double)(s >> 11) * 0x1p-53;
    }
    uint32_t* dk = backend_buffer(a->backend, keys, (size_t)n * sizeof *keys);
    double* dv = backend_buffer(a->backend, values, (size_t)n * sizeof *values);
    double* dst = backend_buffer(a->backend, NULL, (size_t)a->bins * sizeof *dst);
    int rc = !dk || !dv || !dst;
    if (rc) fprintf(stderr, "bench_c_calls: cannot allocate %lld keys in the backend's memory\n", (long long)n);
    mct_tally_desc_t d;
    mct_tally_desc_init(&d);
    d.bins = a->bins, d.backend = a->backend, d.method = a->method;
    for (int op = 0; !rc && op < OP_COUNT; ++op) {
        mct_tally_t t = NULL;
        mct_status_t st = mct_tally_create(&t, &d);
        for (int i = 0; !st && i < 20; ++i) st = call((op_t)op, t, dk, dv, n, dst); /* warm-up */
        for (int r = 0; !st && r < a->reps; ++r) st = time_call(a, (op_t)op, t, dk, dv, n, dst, &times[r]);
        if (!st && op == OP_ADD) st = mct_tally_end_batch(t, 1);
        mct_tally_destroy(t);
        if (st) {
            fprintf(stderr, "bench_c_calls: %s, n = %lld: %s\n", op_names[op], (long long)n, mct_status_string(st));
            rc = 1;
            break;
        }
        qsort(times, (size_t)a->reps, sizeof *times, cmp_double);
        cJSON_AddNumberToObject(row, op_names[op], times[a->reps / 2]);
    }
    backend_free(a->backend, dk);
    backend_free(a->backend, dv);
    backend_free(a->backend, dst);
    free(keys), free(values), free(times);
    return rc;
}

static int parse(int argc, char** argv, args_t* a) {
    a->backend = MCT_BACKEND_CPU, a->method = MCT_METHOD_ATOMIC, a->bins = 64, a->reps = 2000, a->out = NULL;
    a->n[0] = 1, a->n[1] = 32, a->n[2] = 1024, a->nsizes = 3;
    for (int i = 1; i < argc; i += 2) {
        const char* f = argv[i];
        if (i + 1 >= argc) return fprintf(stderr, "bench_c_calls: %s needs a value\n", f), 1;
        const char* v = argv[i + 1];
        if (!strcmp(f, "--backend")) {
            if (mct_backend_from_name(v, &a->backend) || a->backend == MCT_BACKEND_AUTO)
                return fprintf(stderr, "bench_c_calls: --backend %s: expected cpu, cuda or emulated\n", v), 1;
        } else if (!strcmp(f, "--method")) {
            if (mct_method_from_name(v, &a->method) || a->method == MCT_METHOD_AUTO)
                return fprintf(stderr, "bench_c_calls: --method %s: expected a concrete method\n", v), 1;
        } else if (!strcmp(f, "--bins")) {
            MCT_CLI_FLAG_INT(a->bins, "bench_c_calls --bins", v, 1, INT64_C(1) << 31);
        } else if (!strcmp(f, "--reps")) {
            MCT_CLI_FLAG_INT(a->reps, "bench_c_calls --reps", v, 1, 1000000);
        } else if (!strcmp(f, "--n")) {
            char buf[256];
            snprintf(buf, sizeof buf, "%s", v);
            a->nsizes = 0;
            for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
                if (a->nsizes == MAX_SIZES) return fprintf(stderr, "bench_c_calls: at most %d sizes\n", MAX_SIZES), 1;
                MCT_CLI_FLAG_INT(a->n[a->nsizes], "bench_c_calls --n", tok, 0, INT64_C(1) << 31);
                ++a->nsizes;
            }
            if (!a->nsizes) return fprintf(stderr, "bench_c_calls: --n needs sizes\n"), 1;
        } else if (!strcmp(f, "--out")) {
            a->out = v;
        } else {
            return fprintf(stderr, "bench_c_calls: unknown option %s\n", f), 1;
        }
    }
    if (!a->out) return fprintf(stderr, "usage: bench_c_calls --out FILE.json [--backend B] [--method M] [--bins B] [--n 1,32,1024] [--reps R]\n"), 1;
    return 0;
}

int main(int argc, char** argv) {
    args_t a;
    if (parse(argc, argv, &a)) return 2;
    cJSON* root = cJSON_CreateObject();
    cJSON_AddStringToObject(root, "mctally", mct_version());
    cJSON_AddStringToObject(root, "backend", mct_backend_name(a.backend));
    cJSON_AddStringToObject(root, "method", mct_method_name(a.method));
    cJSON_AddNumberToObject(root, "bins", (double)a.bins);
    cJSON_AddNumberToObject(root, "reps", a.reps);
    cJSON* rows = cJSON_AddArrayToObject(root, "rows");
    int rc = 0;
    for (int i = 0; !rc && i < a.nsizes; ++i) {
        cJSON* row = cJSON_CreateObject();
        cJSON_AddNumberToObject(row, "n", (double)a.n[i]);
        cJSON_AddItemToArray(rows, row);
        rc = run_size(&a, a.n[i], row);
    }
    char* text = rc ? NULL : cJSON_Print(root);
    FILE* f = text ? fopen(a.out, "w") : NULL;
    if (text && (!f || fputs(text, f) < 0 || fclose(f) != 0)) rc = 1, fprintf(stderr, "bench_c_calls: cannot write %s\n", a.out);
    free(text);
    cJSON_Delete(root);
    return rc;
}
