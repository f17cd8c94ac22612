/* SPDX-License-Identifier: BSD-3-Clause */
/** @file cli_plan.c  `mctally plan`: which method the planner picks for a
 * tally and why, the ranking it considered; the plan's JSON for result files;
 * the wisdom file of `run` and `plan`. */
#include <cjson/cJSON.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static const char plan_usage[] =
    "usage: mctally plan --bins B [--dtype T] [--determinism not_guaranteed|run_to_run|bitwise]\n"
    "                    [--keys FILE] [--mode estimate|measure] [--backend auto|cpu|cuda|emulated]\n"
    "                    [--wisdom FILE] [--width W] [--adds arrays|kernel]\n"
    "                    [--pattern unknown|uniform|sorted|hot|few] [--max-rel-loss L]\n"
    "                    [--adds-per-bin N] [--budget-s S]\n"
    "Prints the method a tally created with method auto gets, and the ranking of\n"
    "every method: predicted (estimate) or measured time per update, and why it is\n"
    "admissible or not. --keys: little-endian uint32 keys like the ones to come\n"
    "(their pattern is classed; up to 2^20 are read). --wisdom FILE: saved plans\n"
    "are reused and the new plan is written back to FILE (atomically).\n";

cJSON* mct_cli_plan_json(const mct_plan_info_t* p) {
    cJSON* j = cJSON_CreateObject();
    cJSON_AddStringToObject(j, "method", mct_method_name(p->method));
    cJSON_AddStringToObject(j, "source", mct_plan_source_name(p->source));
    cJSON_AddStringToObject(j, "mode", mct_plan_mode_name(p->mode));
    cJSON_AddStringToObject(j, "pattern", mct_key_pattern_name(p->pattern));
    cJSON_AddStringToObject(j, "reason", p->reason);
    cJSON_AddNumberToObject(j, "seconds", p->seconds);
    cJSON* r = cJSON_AddArrayToObject(j, "ranking");
    for (int i = 0; i < p->nentries; ++i) {
        const mct_plan_entry_t* e = &p->ranking[i];
        cJSON* o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "method", mct_method_name(e->method));
        cJSON_AddBoolToObject(o, "admissible", e->admissible);
        if (e->seconds_per_update >= 0.0)
            cJSON_AddNumberToObject(o, "seconds_per_update", e->seconds_per_update);
        else
            cJSON_AddNullToObject(o, "seconds_per_update");
        cJSON_AddStringToObject(o, "why", e->why);
        cJSON_AddItemToArray(r, o);
    }
    return j;
}

int mct_cli_wisdom_open(const char* path, mct_wisdom_t* out) {
    *out = NULL;
    if (!path || !path[0]) return 0;
    /* Refused before any work: a path the wisdom could not be written back to. */
    if (mct_cli_check_out_file(path)) return 1;
    const mct_status_t ws = mct_wisdom_file_writable(path);
    if (ws == MCT_STATUS_INVALID_VALUE)
        return mct_cli_error("--wisdom '%s' holds something other than mctally wisdom; mctally leaves it as it is "
                             "(name a new file or a wisdom file)", path);
    if (ws) return mct_cli_error("cannot read wisdom '%s': %s", path, strerror(errno));
    if (mct_wisdom_create(out)) return mct_cli_error("out of memory");
    const mct_status_t st = mct_wisdom_import_file(*out, path);
    /* A missing file is a first run; anything unreadable is a warning, never an error. */
    if (st == MCT_STATUS_WISDOM_IGNORED)
        fprintf(stderr, "mctally: warning: %s: %s\n", path, mct_wisdom_message(*out));
    else if (st == MCT_STATUS_IO_ERROR && errno != ENOENT)
        fprintf(stderr, "mctally: warning: %s\n", mct_wisdom_message(*out));
    return 0;
}

int mct_cli_wisdom_close(const char* path, mct_wisdom_t w) {
    int rc = 0;
    if (w && mct_wisdom_export_file(w, path)) rc = mct_cli_error("cannot write wisdom: %s", mct_wisdom_message(w));
    mct_wisdom_destroy(w);
    return rc;
}

void mct_cli_print_plan(const mct_plan_info_t* p) {
    printf("%-4s %-13s %-10s %12s  %s\n", "rank", "method", "admissible", "ns/update", "why");
    for (int i = 0; i < p->nentries; ++i) {
        const mct_plan_entry_t* e = &p->ranking[i];
        char t[32] = "-";
        if (e->seconds_per_update >= 0.0) snprintf(t, sizeof t, "%.4g", 1e9 * e->seconds_per_update);
        printf("%-4d %-13s %-10s %12s  %s\n", i + 1, mct_method_name(e->method), e->admissible ? "yes" : "no", t, e->why);
    }
}

/* Keys of a file: little-endian uint32, up to `max`. */
static int read_keys(const char* path, int64_t max, uint32_t** keys, int64_t* n) {
    FILE* f = NULL;
    if (mct_cli_open_regular(path, "keys file", &f)) return 1;
    *keys = malloc((size_t)max * sizeof **keys);
    if (!*keys) {
        fclose(f);
        return mct_cli_error("out of memory");
    }
    size_t got = fread(*keys, sizeof **keys, (size_t)max, f);
    fclose(f);
    if (got == 0) return mct_cli_error("keys file '%s' holds no keys (4 bytes each)", path);
    *n = (int64_t)got;
    return 0;
}

int mct_cli_plan(int argc, char** argv) {
    mct_tally_desc_t d;
    mct_tally_desc_init(&d);
    d.bins = 0;
    const char *keys_path = NULL, *wisdom_path = NULL;
    for (int i = 0; i < argc; ++i) {
        const char* f = argv[i];
        if (!strcmp(f, "--help") || !strcmp(f, "-h")) {
            fputs(plan_usage, stdout);
            return 0;
        }
        if (strncmp(f, "--", 2) != 0) return mct_cli_error("plan: unexpected argument '%s' (try: mctally plan --help)", f);
        if (i + 1 >= argc) return mct_cli_error("plan: option %s needs a value", f);
        const char* v = argv[++i];
        int64_t i64 = 0;
        double x = 0.0;
        if (!strcmp(f, "--bins")) {
            if (mct_cli_parse_i64(v, 1, INT64_C(1) << 31, &d.bins)) return mct_cli_error("--bins %s: expected 1 .. 2^31", v);
        } else if (!strcmp(f, "--dtype")) {
            if (mct_dtype_from_name(v, &d.dtype)) return mct_cli_error("--dtype %s: unknown type (i32, u64, f32, f64)", v);
        } else if (!strcmp(f, "--determinism")) {
            if (mct_determinism_from_name(v, &d.determinism))
                return mct_cli_error("--determinism %s: expected not_guaranteed, run_to_run or bitwise", v);
        } else if (!strcmp(f, "--mode")) {
            if (mct_plan_mode_from_name(v, &d.plan_mode)) return mct_cli_error("--mode %s: expected estimate or measure", v);
        } else if (!strcmp(f, "--backend")) {
            if (mct_backend_from_name(v, &d.backend))
                return mct_cli_error("--backend %s: unknown backend (auto, cpu, cuda, emulated)", v);
        } else if (!strcmp(f, "--pattern")) {
            if (mct_key_pattern_from_name(v, &d.key_pattern))
                return mct_cli_error("--pattern %s: expected unknown, uniform, sorted, hot or few", v);
        } else if (!strcmp(f, "--adds")) {
            if (strcmp(v, "arrays") && strcmp(v, "kernel")) return mct_cli_error("--adds %s: expected arrays or kernel", v);
            d.adds = strcmp(v, "kernel") ? MCT_ADDS_ARRAYS : MCT_ADDS_KERNEL;
        } else if (!strcmp(f, "--width")) {
            if (mct_cli_parse_i64(v, 1, 1024, &i64)) return mct_cli_error("--width %s: expected 1 .. 1024", v);
            d.width = (int)i64;
        } else if (!strcmp(f, "--max-rel-loss")) {
            if (mct_cli_parse_f64(v, 0.0, &x) || x >= 1.0) return mct_cli_error("--max-rel-loss %s: expected 0 <= L < 1", v);
            d.max_rel_loss = x;
        } else if (!strcmp(f, "--adds-per-bin")) {
            if (mct_cli_parse_f64(v, 0.0, &x)) return mct_cli_error("--adds-per-bin %s: expected a number >= 0", v);
            d.adds_per_bin = x;
        } else if (!strcmp(f, "--budget-s")) {
            if (mct_cli_parse_f64(v, 0.0, &x) || x > 600.0) return mct_cli_error("--budget-s %s: expected 0 .. 600", v);
            d.plan_budget_s = x;
        } else if (!strcmp(f, "--keys")) {
            keys_path = v;
        } else if (!strcmp(f, "--wisdom")) {
            wisdom_path = v;
        } else {
            return mct_cli_error("plan: unknown option '%s' (try: mctally plan --help)", f);
        }
    }
    if (d.bins < 1) return mct_cli_error("plan: --bins is required (try: mctally plan --help)");
    if (d.bins % d.width != 0)
        return mct_cli_error("plan: --bins %lld is not a multiple of --width %d", (long long)d.bins, d.width);
    uint32_t* keys = NULL;
    if (keys_path) {
        if (read_keys(keys_path, INT64_C(1) << 20, &keys, &d.key_sample_n)) return 1;
        const int64_t cells = d.bins / d.width;
        for (int64_t i = 0; i < d.key_sample_n; ++i)
            if (keys[i] >= (uint64_t)cells) {
                const unsigned k = keys[i];
                free(keys);
                return mct_cli_error("keys file '%s': key %lld is %u, not below %lld", keys_path, (long long)i, k,
                                     (long long)cells);
            }
        d.key_sample = keys;
    }
    mct_wisdom_t w = NULL;
    if (mct_cli_wisdom_open(wisdom_path, &w)) {
        free(keys);
        mct_wisdom_destroy(w);
        return 1;
    }
    d.wisdom = w;
    mct_plan_info_t info;
    const mct_status_t st = mct_plan(&d, &info);
    free(keys);
    int rc = 0;
    if (st == MCT_STATUS_SUCCESS || st == MCT_STATUS_UNSATISFIABLE) {
        printf("plan: %lld bins of %s on %s, width %d, adds from %s, determinism %s", (long long)d.bins,
               mct_dtype_name(d.dtype), mct_backend_name(info.backend), d.width, mct_adds_name(d.adds),
               mct_determinism_name(d.determinism));
        if (d.max_rel_loss > 0.0) printf(", rounding loss <= %.3g", d.max_rel_loss);
        printf(", %s keys", mct_key_pattern_name(info.pattern));
        if (d.key_sample_n > 0)
            printf(" (%lld sampled: %.3g distinct per warp, runs of %.3g, hottest %.3g)", (long long)d.key_sample_n,
                   info.distinct_per_warp, info.mean_run, info.hot_share);
        printf(", mode %s\n", mct_plan_mode_name(d.plan_mode));
        mct_cli_print_plan(&info);
        printf("planning took %.3g s\n", info.seconds);
    }
    if (st == MCT_STATUS_SUCCESS) {
        printf("chosen: %s (%s) -- %s\n", mct_method_name(info.method), mct_plan_source_name(info.source), info.reason);
    } else if (st == MCT_STATUS_UNSATISFIABLE) {
        rc = mct_cli_error("plan: %s", info.reason);
    } else if (st == MCT_STATUS_BACKEND_UNAVAILABLE) {
        rc = mct_cli_error("plan: backend %s is not available here (measure needs it; estimate does not)",
                           mct_backend_name(d.backend));
    } else {
        rc = mct_cli_error("plan: %s (%s)", mct_status_string(st), mct_status_name(st));
    }
    if (wisdom_path && mct_cli_wisdom_close(wisdom_path, w)) rc = 1;
    if (!wisdom_path) mct_wisdom_destroy(w);
    return rc;
}
