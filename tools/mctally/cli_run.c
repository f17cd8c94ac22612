/* SPDX-License-Identifier: BSD-3-Clause */
/** @file cli_run.c  `mctally run FILE.ini`: parse, override, run, write result.json. */
#define _POSIX_C_SOURCE 200809L
#include <cjson/cJSON.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"

static const char run_usage[] =
    "usage: mctally run FILE.ini [--backend auto|cpu|cuda|emulated] [--method M] [--dtype T]\n"
    "                            [--histories N] [--seed S] [--batches B] [--out DIR]\n"
    "Runs the problem described by FILE.ini; flags override the file. Writes\n"
    "DIR/result.json (default DIR: out). See `mctally methods` for methods.\n";

typedef struct {
    const char* file;
    const char* out_dir;
    mct_backend_t backend;
    mct_cli_config_t cfg;
} run_args_t;

/* Flags are applied after the file is read, so they override it. */
static int parse_flag(run_args_t* a, const char* flag, const char* value) {
    mct_cli_config_t* c = &a->cfg;
    if (!strcmp(flag, "--backend"))
        return mct_backend_from_name(value, &a->backend) ? mct_cli_error("--backend %s: unknown backend (auto, cpu, cuda, emulated)", value) : 0;
    if (!strcmp(flag, "--method"))
        return mct_method_from_name(value, &c->method) ? mct_cli_error("--method %s: unknown method (see: mctally methods)", value) : 0;
    if (!strcmp(flag, "--dtype"))
        return mct_dtype_from_name(value, &c->dtype) ? mct_cli_error("--dtype %s: unknown type (i32, u64, f32, f64)", value) : 0;
    if (!strcmp(flag, "--histories"))
        return mct_cli_parse_i64(value, 1, INT64_MAX, &c->histories) ? mct_cli_error("--histories %s: expected a whole number >= 1", value) : 0;
    if (!strcmp(flag, "--batches"))
        return mct_cli_parse_i64(value, 1, INT64_MAX, &c->batches) ? mct_cli_error("--batches %s: expected a whole number >= 1", value) : 0;
    if (!strcmp(flag, "--seed"))
        return mct_cli_parse_u64(value, &c->seed) ? mct_cli_error("--seed %s: expected a whole number 0 .. 2^64-1", value) : 0;
    if (!strcmp(flag, "--out")) {
        a->out_dir = value;
        return 0;
    }
    return mct_cli_error("run: unknown option '%s' (try: mctally run --help)", flag);
}

static int parse_args(int argc, char** argv, run_args_t* a) {
    static const char* const flags[] = {"--backend", "--method", "--dtype", "--histories",
                                        "--batches", "--seed", "--out"};
    /* The file is read first; flags are remembered and applied after it. */
    const char* pending[16][2];
    int npending = 0;
    for (int i = 0; i < argc; ++i) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            fputs(run_usage, stdout);
            exit(0);
        }
        int known = 0;
        for (size_t f = 0; f < sizeof flags / sizeof *flags; ++f) known |= !strcmp(argv[i], flags[f]);
        if (argv[i][0] == '-' && argv[i][1] == '-') {
            if (!known) return mct_cli_error("run: unknown option '%s' (try: mctally run --help)", argv[i]);
            if (i + 1 >= argc) return mct_cli_error("run: option %s needs a value", argv[i]);
            if (npending == 16) return mct_cli_error("run: too many options");
            pending[npending][0] = argv[i];
            pending[npending++][1] = argv[++i];
        } else if (!a->file) {
            a->file = argv[i];
        } else {
            return mct_cli_error("run: unexpected argument '%s' (one problem file at a time)", argv[i]);
        }
    }
    if (!a->file) return mct_cli_error("run: missing problem file (usage: mctally run FILE.ini)");
    if (mct_cli_config_load(a->file, &a->cfg)) return 1;
    for (int i = 0; i < npending; ++i)
        if (parse_flag(a, pending[i][0], pending[i][1])) return 1;
    if (a->cfg.histories < a->cfg.batches)
        return mct_cli_error("histories (%lld) must be at least batches (%lld)", (long long)a->cfg.histories,
                             (long long)a->cfg.batches);
    return 0;
}

/* Progress goes to a terminal only, never into logs. */
static void show_progress(void* ctx, int64_t done, int64_t total) {
    (void)ctx;
    fprintf(stderr, "\r  %lld / %lld histories (%3.0f%%)%s", (long long)done, (long long)total,
            100.0 * (double)done / (double)total, done == total ? "\n" : "");
    fflush(stderr);
}

static int want_progress(void) { return isatty(STDERR_FILENO) && !getenv("CI"); }

static cJSON* raw_integer(uint64_t v, int negative) {
    char text[32];
    snprintf(text, sizeof text, "%s%llu", negative ? "-" : "", (unsigned long long)v);
    return cJSON_CreateRaw(text);
}

/* JSON has no NaN: undefined values (a relative error from one batch) are null. */
static cJSON* number_or_null(double v) { return isfinite(v) ? cJSON_CreateNumber(v) : cJSON_CreateNull(); }

static cJSON* tally_json(mct_tally_t tally, const char* name) {
    mct_tally_desc_t d;
    mct_tally_get_desc(tally, &d);
    double* mean = malloc((size_t)d.bins * sizeof(double));
    double* rel = malloc((size_t)d.bins * sizeof(double));
    double* sums = malloc((size_t)d.bins * sizeof(double));
    cJSON* t = cJSON_CreateObject();
    if (!mean || !rel || !sums || mct_tally_results(tally, mean, rel) || mct_tally_sums(tally, sums)) {
        free(mean), free(rel), free(sums);
        cJSON_Delete(t);
        return NULL;
    }
    cJSON_AddStringToObject(t, "name", name);
    cJSON_AddNumberToObject(t, "bins", (double)d.bins);
    cJSON* jm = cJSON_AddArrayToObject(t, "mean");
    cJSON* jr = cJSON_AddArrayToObject(t, "rel_err");
    double total = 0.0;
    for (int64_t k = 0; k < d.bins; ++k) {
        cJSON_AddItemToArray(jm, number_or_null(mean[k]));
        cJSON_AddItemToArray(jr, number_or_null(rel[k]));
        total += sums[k];
    }
    cJSON_AddNumberToObject(t, "total", total);
    free(mean), free(rel), free(sums);
    return t;
}

static cJSON* escape_json(const mct_escape_params_t* p, const mct_escape_result_t* r) {
    cJSON* e = cJSON_CreateObject();
    const double n = (double)p->histories;
    /* The yardstick of the check: binomial sampling spread of the fraction
     * under the analytic answer (it stays defined when no photon escapes). */
    const double binomial = sqrt(r->analytic * (1.0 - r->analytic) / n);
    const double diff = r->fraction - r->analytic;
    cJSON_AddNumberToObject(e, "thickness_m", p->thickness_m);
    cJSON_AddNumberToObject(e, "sigma_per_m", p->sigma_per_m);
    cJSON_AddStringToObject(e, "launch", p->launch == MCT_ESCAPE_LAUNCH_FULL ? "full" : "paper");
    cJSON_AddNumberToObject(e, "block_size", p->block_size);
    cJSON_AddNumberToObject(e, "escapes", r->escapes);
    cJSON_AddNumberToObject(e, "fraction", r->fraction);
    cJSON_AddItemToObject(e, "std_error", number_or_null(r->std_error));
    cJSON_AddNumberToObject(e, "analytic", r->analytic);
    cJSON_AddNumberToObject(e, "binomial_std_error", binomial);
    cJSON_AddItemToObject(e, "z_score", binomial > 0.0 ? cJSON_CreateNumber(diff / binomial)
                                                       : (diff == 0.0 ? cJSON_CreateNumber(0.0) : cJSON_CreateNull()));
    return e;
}

/* Written to a temporary name and renamed, so no half-written file is left. */
static int write_result(const char* dir, cJSON* root) {
    if (mkdir(dir, 0777) != 0 && errno != EEXIST) return mct_cli_error("cannot create output directory '%s': %s", dir, strerror(errno));
    char path[4096], tmp[4200];
    snprintf(path, sizeof path, "%s/result.json", dir);
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    char* text = cJSON_Print(root);
    FILE* f = text ? fopen(tmp, "w") : NULL;
    int ok = f && fputs(text, f) >= 0 && fputc('\n', f) != EOF;
    if (f && fclose(f) != 0) ok = 0;
    free(text);
    if (!ok || rename(tmp, path) != 0) {
        remove(tmp);
        return mct_cli_error("cannot write '%s': %s", path, strerror(errno));
    }
    printf("wrote %s\n", path);
    return 0;
}

static int report_status(mct_status_t st, const run_args_t* a, const char* what) {
    if (st == MCT_STATUS_NOT_SUPPORTED)
        return mct_cli_error("%s: method %s cannot serve %s on the %s backend (see: mctally methods)", what,
                             mct_method_name(a->cfg.method), mct_dtype_name(a->cfg.dtype), mct_backend_name(a->backend));
    if (st == MCT_STATUS_BACKEND_UNAVAILABLE)
        return mct_cli_error("%s: backend %s is not available here (no GPU, or built without CUDA)", what,
                             mct_backend_name(a->backend));
    if (st == MCT_STATUS_OVERFLOW)
        return mct_cli_error("%s: a batch could exceed the range of %s; use more batches or a wider type", what,
                             mct_dtype_name(a->cfg.dtype));
    return mct_cli_error("%s: %s (%s)", what, mct_status_string(st), mct_status_name(st));
}

static int run_escape(const run_args_t* a, mct_tally_t tally) {
    mct_escape_params_t p = a->cfg.escape;
    p.histories = a->cfg.histories;
    p.batches = a->cfg.batches;
    p.seed = a->cfg.seed;
    if (want_progress()) p.progress = show_progress;
    mct_status_t st = mct_escape_check(&p, tally);
    if (st) return report_status(st, a, "escape");
    if (a->cfg.dtype == MCT_DTYPE_F32 && p.histories / p.batches > (1 << 24))
        fprintf(stderr, "mctally: warning: f32 counts round above 2^24 per batch; use more batches for exact counts\n");
    mct_escape_result_t r;
    if ((st = mct_escape_run(&p, tally, &r))) return report_status(st, a, "escape");

    mct_tally_desc_t d;
    char device[256];
    mct_tally_get_desc(tally, &d);
    mct_tally_device_name(tally, device, sizeof device);
    cJSON* root = cJSON_CreateObject();
    cJSON_AddStringToObject(root, "mctally_version", mct_version());
    cJSON_AddStringToObject(root, "problem", "escape");
    cJSON_AddStringToObject(root, "input", a->file);
    cJSON_AddStringToObject(root, "backend", mct_backend_name(d.backend));
    cJSON_AddStringToObject(root, "device", device);
    cJSON_AddStringToObject(root, "method", mct_method_name(d.method));
    cJSON_AddStringToObject(root, "dtype", mct_dtype_name(d.dtype));
    cJSON_AddStringToObject(root, "determinism", mct_determinism_name(mct_method_determinism(d.method, d.dtype)));
    cJSON_AddItemToObject(root, "histories", raw_integer((uint64_t)p.histories, 0));
    cJSON_AddItemToObject(root, "seed", raw_integer(p.seed, 0));
    cJSON_AddItemToObject(root, "batches", raw_integer((uint64_t)p.batches, 0));
    cJSON_AddNumberToObject(root, "seconds", r.seconds);
    cJSON* tallies = cJSON_AddArrayToObject(root, "tallies");
    cJSON_AddItemToArray(tallies, tally_json(tally, "escape"));
    cJSON_AddItemToObject(root, "escape", escape_json(&p, &r));
    printf("escape: %s on %s (%s), %s %s: fraction %.8g +- %.2g (analytic %.8g), %.0f escapes, %.3f s\n", a->file,
           mct_backend_name(d.backend), device, mct_method_name(d.method), mct_dtype_name(d.dtype), r.fraction,
           r.std_error, r.analytic, r.escapes, r.seconds);
    int rc = write_result(a->out_dir, root);
    cJSON_Delete(root);
    return rc;
}

int mct_cli_run(int argc, char** argv) {
    run_args_t a;
    memset(&a, 0, sizeof a);
    a.out_dir = "out";
    a.backend = MCT_BACKEND_AUTO;
    if (parse_args(argc, argv, &a)) return 1;
    mct_tally_desc_t d;
    mct_tally_desc_init(&d);
    d.bins = 1;
    d.dtype = a.cfg.dtype;
    d.method = a.cfg.method;
    d.backend = a.backend;
    mct_tally_t tally = NULL;
    mct_status_t st = mct_tally_create(&tally, &d);
    if (st) return report_status(st, &a, "cannot create the tally");
    int rc = run_escape(&a, tally);
    mct_tally_destroy(tally);
    return rc;
}
