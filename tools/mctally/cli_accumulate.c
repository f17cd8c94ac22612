/* SPDX-License-Identifier: BSD-3-Clause */
/** @file cli_accumulate.c  `mctally accumulate`: tally user data (little-endian
 * u32 keys, f64 values) into B bins with any method, write the bins as raw
 * little-endian f64 and a JSON summary beside them. */
#define _POSIX_C_SOURCE 200809L
#include <cjson/cJSON.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"

static const char accumulate_usage[] =
    "usage: mctally accumulate --bins B --keys FILE --values FILE --out FILE\n"
    "                          [--method M|auto] [--backend auto|cpu|cuda|emulated] [--dtype T]\n"
    "                          [--frac-bits N]\n"
    "Adds values[i] into bin keys[i] for every i. Keys: little-endian uint32; values:\n"
    "little-endian float64; both files hold the same number of items. Writes the B bins\n"
    "to FILE as little-endian float64 and a summary to FILE.json.\n"
    "The method defaults to auto (planned with these keys as the sample); the value\n"
    "type to the method's natural one (f32 for kahan, f64 otherwise).\n"
    "fixed stores round(v * 2^N); N defaults to the largest that keeps the sum of |v|\n"
    "below 2^62. A key >= B, a NaN or infinite value, an empty, truncated or missing\n"
    "file, or files of different lengths: an error naming it, and nothing written.\n";

typedef mct_cli_acc_t acc_args_t;

static int parse_args(int argc, char** argv, acc_args_t* a) {
    memset(a, 0, sizeof *a);
    a->method = MCT_METHOD_AUTO;
    a->backend = MCT_BACKEND_AUTO;
    for (int i = 0; i < argc; ++i) {
        const char* f = argv[i];
        if (!strcmp(f, "--help") || !strcmp(f, "-h")) {
            fputs(accumulate_usage, stdout);
            return 2;
        }
        if (i + 1 >= argc) return mct_cli_error("accumulate: option %s needs a value", f);
        const char* v = argv[++i];
        int64_t x;
        if (!strcmp(f, "--bins")) {
            if (mct_cli_parse_i64(v, 1, INT64_C(1) << 31, &a->bins)) return mct_cli_error("--bins %s: expected a whole number 1 .. 2^31", v);
        } else if (!strcmp(f, "--keys")) a->keys_path = v;
        else if (!strcmp(f, "--values")) a->values_path = v;
        else if (!strcmp(f, "--out")) a->out = v;
        else if (!strcmp(f, "--method")) {
            if (mct_method_from_name(v, &a->method)) return mct_cli_error("--method %s: unknown method (see: mctally methods)", v);
        } else if (!strcmp(f, "--backend")) {
            if (mct_backend_from_name(v, &a->backend)) return mct_cli_error("--backend %s: unknown backend (auto, cpu, cuda, emulated)", v);
        } else if (!strcmp(f, "--dtype")) {
            if (mct_dtype_from_name(v, &a->dtype)) return mct_cli_error("--dtype %s: unknown type (i32, u64, f32, f64)", v);
            a->have_dtype = 1;
        } else if (!strcmp(f, "--frac-bits")) {
            if (mct_cli_parse_i64(v, MCT_FIXED_FRAC_BITS_MIN, MCT_FIXED_FRAC_BITS_MAX, &x))
                return mct_cli_error("--frac-bits %s: expected a whole number %d .. %d", v, MCT_FIXED_FRAC_BITS_MIN,
                                     MCT_FIXED_FRAC_BITS_MAX);
            a->frac_bits = (int)x, a->have_frac_bits = 1;
        } else return mct_cli_error("accumulate: unknown option '%s' (try: mctally accumulate --help)", f);
    }
    if (!a->bins) return mct_cli_error("accumulate: --bins is required");
    if (!a->keys_path || !a->values_path) return mct_cli_error("accumulate: --keys and --values are required");
    if (!a->out) return mct_cli_error("accumulate: --out is required");
    /* The outputs may not be the inputs (same file by device and inode, whatever the name). */
    sim_out_install_signals();
    if (sim_out_protect(a->keys_path) || sim_out_protect(a->values_path)) return mct_cli_error("accumulate: too many inputs");
    char json_path[4200];
    snprintf(json_path, sizeof json_path, "%s.json", a->out);
    if (mct_cli_check_out_file(a->out) || mct_cli_check_out_file(json_path)) return 1;
    if (!a->have_dtype)
        a->dtype = (a->method == MCT_METHOD_KAHAN || a->method == MCT_METHOD_KAHAN_NAIVE) ? MCT_DTYPE_F32 : MCT_DTYPE_F64;
    return 0;
}

/* Keys or values files are read whole; an item count must fit a tally's add. */
#define MCT_CLI_ACC_MAX_BYTES ((size_t)1 << 40)

/* Reads a whole file of `item` byte records; 0 on success. */
static int read_items(const char* path, const char* what, size_t item, void** data, int64_t* count) {
    char* buf = NULL;
    size_t size = 0;
    if (mct_cli_read_file(path, what, MCT_CLI_ACC_MAX_BYTES, &buf, &size)) return 1;
    if (size == 0) {
        free(buf);
        return mct_cli_error("%s '%s' is empty", what, path);
    }
    if (size % item) {
        free(buf);
        return mct_cli_error("%s '%s' is truncated: %zu bytes is not a whole number of %zu-byte items", what, path,
                             size, item);
    }
    *data = buf;
    *count = (int64_t)(size / item);
    return 0;
}

/* Files are little-endian; this machine's order is checked, not assumed. */
static int host_is_little_endian(void) {
    const uint16_t one = 1;
    return *(const uint8_t*)&one == 1;
}

static int check_data(const acc_args_t* a, const uint32_t* keys, const double* values, int64_t n) {
    for (int64_t i = 0; i < n; ++i) {
        if ((int64_t)keys[i] >= a->bins)
            return mct_cli_error("key %u at item %lld is outside the %lld bins", keys[i], (long long)i, (long long)a->bins);
        if (!isfinite(values[i])) return mct_cli_error("value at item %lld is %g, not a finite number", (long long)i, values[i]);
    }
    return 0;
}

/* The largest scale that keeps any partial sum of the data inside int64 with a
 * factor 2 to spare: sum |v| * 2^bits < 2^62, whatever the data's magnitude
 * (negative bits for totals past 2^62, more than 62 for totals far below 1).
 * The bit count is clamped in double before it becomes an int, so a total
 * past the double range (Inf) stays defined. */
static int default_frac_bits(const double* values, int64_t n) {
    double total = 0.0;
    for (int64_t i = 0; i < n; ++i) total += fabs(values[i]);
    if (total == 0.0) return 32;
    const double bits = floor(62.0 - log2(total)) - 1.0;
    return !(bits > MCT_FIXED_FRAC_BITS_MIN) ? MCT_FIXED_FRAC_BITS_MIN
           : bits > MCT_FIXED_FRAC_BITS_MAX  ? MCT_FIXED_FRAC_BITS_MAX
                                             : (int)bits;
}

/* FILE and FILE.json as one output set: neither is in place unless both are
 * complete, FILE.json last (sim_output.h). */
static int write_outputs(const char* path, const char* json_path, const void* data, size_t bytes, const char* text) {
    sim_out_set_t* set = malloc(sizeof *set);
    if (!set) return mct_cli_error("out of memory");
    sim_out_init(set);
    FILE* f = sim_out_begin(set, path);
    int ok = f && fwrite(data, 1, bytes, f) == bytes;
    if (f && sim_out_end(set, f) != 0) ok = 0;
    f = ok ? sim_out_begin(set, json_path) : NULL;
    ok = f && fputs(text, f) >= 0;
    if (f && sim_out_end(set, f) != 0) ok = 0;
    int rc = 0;
    if (!ok || sim_out_commit(set, NULL, 0) != 0) {
        sim_out_abort(set);
        rc = mct_cli_error("%s", set->error[0] ? set->error : "cannot write the output");
    }
    free(set);
    return rc;
}

static double now_seconds(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int tally_data(const acc_args_t* a, const uint32_t* keys, const double* values, int64_t n, double* bins,
                      cJSON* summary) {
    mct_tally_desc_t d;
    mct_tally_desc_init(&d);
    d.bins = a->bins, d.method = a->method, d.dtype = a->dtype, d.backend = a->backend;
    d.fixed_frac_bits = a->have_frac_bits ? a->frac_bits : default_frac_bits(values, n);
    if (d.method == MCT_METHOD_SORT_REDUCE || d.method == MCT_METHOD_AUTO) d.pair_capacity = n;
    /* auto plans with the data's own keys as its sample. */
    d.key_sample = keys;
    d.key_sample_n = n < (INT64_C(1) << 20) ? n : (INT64_C(1) << 20);
    mct_tally_t t = NULL;
    mct_status_t st = mct_tally_create(&t, &d);
    if (st == MCT_STATUS_NOT_SUPPORTED)
        return mct_cli_error("accumulate: method %s cannot serve %s on the %s backend (see: mctally methods)",
                             mct_method_name(d.method), mct_dtype_name(d.dtype), mct_backend_name(d.backend));
    if (st) return mct_cli_error("accumulate: cannot create the tally: %s", mct_status_string(st));
    const double t0 = now_seconds();
    st = mct_tally_add(t, keys, values, n);
    if (!st) st = mct_tally_end_batch(t, 1);
    const double seconds = now_seconds() - t0;
    if (!st) st = mct_tally_sums(t, bins);
    if (st) {
        mct_tally_destroy(t);
        if (st == MCT_STATUS_NOT_SUPPORTED)
            return mct_cli_error("accumulate: method %s cannot add %s pairs on the %s backend", mct_method_name(d.method),
                                 mct_dtype_name(d.dtype), mct_backend_name(d.backend));
        if (st == MCT_STATUS_TOO_LARGE)
            return mct_cli_error("accumulate: %lld bins of %s do not fit in a block's 48 KiB of shared memory (method %s)",
                                 (long long)d.bins, mct_dtype_name(d.dtype), mct_method_name(d.method));
        if (st == MCT_STATUS_OVERFLOW && d.method == MCT_METHOD_FIXED)
            return mct_cli_error("accumulate: fixed-point overflow with %d fraction bits; use a smaller --frac-bits",
                                 d.fixed_frac_bits);
        if (st == MCT_STATUS_OVERFLOW)
            return mct_cli_error("accumulate: integer overflow: a value or a bin's sum does not fit %s (use a wider "
                                 "type or a float one)",
                                 mct_dtype_name(d.dtype));
        return mct_cli_error("accumulate: %s (%s)", mct_status_string(st), mct_status_name(st));
    }
    char device[256];
    mct_tally_get_desc(t, &d);
    mct_tally_device_name(t, device, sizeof device);
    cJSON_AddStringToObject(summary, "backend", mct_backend_name(d.backend));
    cJSON_AddStringToObject(summary, "device", device);
    cJSON_AddStringToObject(summary, "method", mct_method_name(d.method));
    cJSON_AddStringToObject(summary, "dtype", mct_dtype_name(d.dtype));
    mct_determinism_t det = MCT_NOT_GUARANTEED;
    mct_tally_determinism(t, &det);
    cJSON_AddStringToObject(summary, "determinism", mct_determinism_name(det));
    if (d.method == MCT_METHOD_FIXED) {
        cJSON_AddNumberToObject(summary, "fixed_frac_bits", d.fixed_frac_bits);
        /* fixed stores round(v * 2^bits): a value of at most half a unit
         * becomes 0. Said, not silently dropped. */
        const double half = ldexp(0.5, -d.fixed_frac_bits);
        int64_t zeroed = 0, first = -1;
        for (int64_t i = 0; i < n; ++i)
            if (values[i] != 0.0 && fabs(values[i]) <= half) {
                if (first < 0) first = i;
                ++zeroed;
            }
        cJSON_AddNumberToObject(summary, "values_rounded_to_zero", (double)zeroed);
        if (zeroed)
            fprintf(stderr,
                    "mctally: warning: %lld non-zero values (the first at item %lld: %g) are at most 2^%d and round to "
                    "0 in fixed point with %d fraction bits; use a float method or more --frac-bits to keep them\n",
                    (long long)zeroed, (long long)first, values[first], -(d.fixed_frac_bits + 1), d.fixed_frac_bits);
    }
    cJSON_AddNumberToObject(summary, "seconds", seconds);
    mct_plan_info_t plan;
    if (!mct_tally_plan_info(t, &plan)) cJSON_AddItemToObject(summary, "plan", mct_cli_plan_json(&plan));
    mct_tally_destroy(t);
    return 0;
}

int mct_cli_accumulate_prepare(int argc, char** argv, acc_args_t* a) {
    const int parsed = parse_args(argc, argv, a);
    if (parsed) return parsed;
    if (!host_is_little_endian()) return mct_cli_error("accumulate: big-endian hosts are not supported");
    int64_t nv = 0;
    if (read_items(a->keys_path, "keys file", sizeof(uint32_t), (void**)&a->keys, &a->n) ||
        read_items(a->values_path, "values file", sizeof(double), (void**)&a->values, &nv))
        return 1;
    if (a->n != nv)
        return mct_cli_error("'%s' holds %lld keys but '%s' holds %lld values", a->keys_path, (long long)a->n,
                             a->values_path, (long long)nv);
    return check_data(a, a->keys, a->values, a->n);
}

void mct_cli_accumulate_free(acc_args_t* a) {
    free(a->keys);
    free(a->values);
    a->keys = NULL;
    a->values = NULL;
}

int mct_cli_accumulate(int argc, char** argv) {
    acc_args_t a;
    const int prepared = mct_cli_accumulate_prepare(argc, argv, &a);
    if (prepared) {
        mct_cli_accumulate_free(&a);
        return prepared == 2 ? 0 : 1;
    }
    const uint32_t* keys = a.keys;
    const double* values = a.values;
    const int64_t nk = a.n;
    double* bins = NULL;
    int rc = 0;
    cJSON* summary = cJSON_CreateObject();
    if (!rc && !(bins = calloc((size_t)a.bins, sizeof(double)))) rc = mct_cli_error("out of memory for %lld bins", (long long)a.bins);
    if (!rc) rc = tally_data(&a, keys, values, nk, bins, summary);
    if (!rc) {
        double total = 0.0;
        for (int64_t k = 0; k < a.bins; ++k) total += bins[k];
        cJSON_AddStringToObject(summary, "mctally_version", mct_version());
        cJSON_AddNumberToObject(summary, "bins", (double)a.bins);
        cJSON_AddNumberToObject(summary, "items", (double)nk);
        cJSON_AddStringToObject(summary, "keys", a.keys_path);
        cJSON_AddStringToObject(summary, "values", a.values_path);
        cJSON_AddStringToObject(summary, "output", a.out);
        cJSON_AddNumberToObject(summary, "total", total);
        char json_path[4200];
        snprintf(json_path, sizeof json_path, "%s.json", a.out);
        char* text = cJSON_Print(summary);
        rc = text ? write_outputs(a.out, json_path, bins, (size_t)a.bins * sizeof(double), text)
                  : mct_cli_error("out of memory");
        free(text);
        if (!rc) printf("accumulate: %lld items into %lld bins with %s: total %.17g; wrote %s and %s\n", (long long)nk,
                        (long long)a.bins, mct_method_name(a.method), total, a.out, json_path);
    }
    cJSON_Delete(summary);
    mct_cli_accumulate_free(&a);
    free(bins);
    return rc;
}
