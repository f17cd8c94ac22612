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
    "usage: mctally run FILE.ini [--backend auto|cpu|cuda|emulated] [--method M|auto] [--dtype T]\n"
    "                            [--histories N] [--seed S] [--batches B] [--out DIR]\n"
    "                            [--loss-sample K|off] [--loss-threshold F]\n"
    "                            [--determinism not_guaranteed|run_to_run|bitwise]\n"
    "                            [--plan estimate|measure] [--wisdom FILE]\n"
    "                            [--checkpoint FILE [--checkpoint-every N]] [--resume FILE]\n"
    "                            [--reduce auto|host|nccl]\n"
    "Runs the problem described by FILE.ini; flags override the file. Writes\n"
    "DIR/result.json (default DIR: out), with the plan that chose the method. The\n"
    "method defaults to auto: the planner picks the fastest method that meets the\n"
    "determinism asked for (see `mctally plan`, `mctally methods`). --wisdom FILE\n"
    "reuses saved plans and records new ones in FILE.\n"
    "Float tallies estimate the value their rounding lost from a 2^-K sample of\n"
    "the adds (default K 6) and warn when a bin significantly loses F or more\n"
    "(default 0.01).\n"
    "--checkpoint FILE saves the run after every N batches (default 1) and after\n"
    "the last; --resume FILE continues a run of the same problem, parameters,\n"
    "seed and version from its last saved batch (escape and phantom).\n"
    "Under mpirun (mpirun -n R mctally run FILE.ini) the ranks share every\n"
    "batch's histories and combine its bins; rank 0 writes the results. --reduce\n"
    "picks how (host: MPI on host buffers; nccl: NCCL on the GPUs; auto: NCCL\n"
    "where every rank's float tally of at least 2^22 bins is on its own GPU).\n"
    "Outputs are written to temporaries and renamed into place together,\n"
    "result.json last; existing symbolic links, directories, devices and inputs\n"
    "at their names are refused.\n";

typedef mct_cli_run_args_t run_args_t;

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
    if (!strcmp(flag, "--determinism"))
        return mct_determinism_from_name(value, &c->determinism)
                   ? mct_cli_error("--determinism %s: expected not_guaranteed, run_to_run or bitwise", value)
                   : 0;
    if (!strcmp(flag, "--plan"))
        return mct_plan_mode_from_name(value, &c->plan_mode) ? mct_cli_error("--plan %s: expected estimate or measure", value) : 0;
    if (!strcmp(flag, "--wisdom")) {
        if (!value[0] || strlen(value) >= sizeof c->wisdom) return mct_cli_error("--wisdom: expected a file name");
        snprintf(c->wisdom, sizeof c->wisdom, "%s", value);
        return 0;
    }
    if (!strcmp(flag, "--loss-sample")) {
        int64_t k = 0;
        if (!strcmp(value, "off"))
            a->loss_sample_log2 = -1;
        else if (mct_cli_parse_i64(value, 0, 24, &k))
            return mct_cli_error("--loss-sample %s: expected 0 .. 24 (a 2^-K sample of the adds) or off", value);
        else
            a->loss_sample_log2 = (int)k;
        return 0;
    }
    if (!strcmp(flag, "--loss-threshold")) {
        double f = 0.0;
        if (mct_cli_parse_f64(value, 0.0, &f) || f > 1.0)
            return mct_cli_error("--loss-threshold %s: expected a fraction 0 .. 1", value);
        a->loss_threshold = f;
        return 0;
    }
    if (!strcmp(flag, "--out")) {
        a->out_dir = value;
        return 0;
    }
    if (!strcmp(flag, "--checkpoint")) {
        if (!value[0]) return mct_cli_error("--checkpoint: expected a file name");
        a->checkpoint = value;
        return 0;
    }
    if (!strcmp(flag, "--resume")) {
        if (!value[0]) return mct_cli_error("--resume: expected a file name");
        a->resume = value;
        return 0;
    }
    if (!strcmp(flag, "--reduce")) {
        static const char* const names[] = {"auto", "host", "nccl"};
        for (int i = 0; i < 3; ++i)
            if (!strcmp(value, names[i])) {
                a->reduce = i;
                return 0;
            }
        return mct_cli_error("--reduce %s: expected auto, host or nccl", value);
    }
    if (!strcmp(flag, "--checkpoint-every"))
        return mct_cli_parse_i64(value, 1, INT64_MAX, &a->checkpoint_every)
                   ? mct_cli_error("--checkpoint-every %s: expected a whole number of batches >= 1", value)
                   : 0;
    return mct_cli_error("run: unknown option '%s' (try: mctally run --help)", flag);
}

/* Progress goes to a terminal only, never into logs. */
static void show_progress(void* ctx, int64_t done, int64_t total) {
    (void)ctx;
    fprintf(stderr, "\r  %lld / %lld histories (%3.0f%%)%s", (long long)done, (long long)total,
            100.0 * (double)done / (double)total, done == total ? "\n" : "");
    fflush(stderr);
}

static int want_progress(void) { return isatty(STDERR_FILENO) && !getenv("CI"); }

/* The [problem] section's run (histories, batches, seed) and the progress
 * line into every problem's parameters. */
static void apply_run(mct_cli_config_t* c) {
    void (*progress)(void*, int64_t, int64_t) = want_progress() ? show_progress : NULL;
    c->escape.histories = c->phantom.histories = c->tally_only.particles = c->scatter.n = c->histories;
    c->escape.batches = c->phantom.batches = c->tally_only.batches = c->scatter.batches = c->batches;
    c->escape.seed = c->phantom.seed = c->tally_only.seed = c->scatter.seed = c->seed;
    c->escape.progress = c->phantom.progress = c->tally_only.progress = c->scatter.progress = progress;
    c->pet.histories = c->histories, c->pet.batches = c->batches, c->pet.seed = c->seed, c->pet.progress = progress;
}

int mct_cli_run_parse(int argc, char** argv, run_args_t* a) {
    memset(a, 0, sizeof *a);
    a->out_dir = "out";
    a->backend = MCT_BACKEND_AUTO;
    a->loss_sample_log2 = MCT_ROUNDING_LOSS_DEFAULT_LOG2;
    a->loss_threshold = 0.01;
    static const char* const flags[] = {"--backend", "--method", "--dtype", "--histories", "--batches",
                                        "--seed", "--out", "--loss-sample", "--loss-threshold", "--determinism", "--plan",
                                        "--wisdom", "--checkpoint", "--checkpoint-every", "--resume", "--reduce"};
    /* The file is read first; flags are remembered and applied after it. */
    const char* pending[32][2];
    int npending = 0;
    for (int i = 0; i < argc; ++i) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            fputs(run_usage, stdout);
            return 2;
        }
        int known = 0;
        for (size_t f = 0; f < sizeof flags / sizeof *flags; ++f) known |= !strcmp(argv[i], flags[f]);
        if (argv[i][0] == '-' && argv[i][1] == '-') {
            if (!known) return mct_cli_error("run: unknown option '%s' (try: mctally run --help)", argv[i]);
            if (i + 1 >= argc) return mct_cli_error("run: option %s needs a value", argv[i]);
            if (npending == 32) return mct_cli_error("run: too many options");
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
    apply_run(&a->cfg);
    return mct_cli_check_out_dir(a->out_dir);
}


static cJSON* raw_integer(uint64_t v, int negative) {
    char text[32];
    snprintf(text, sizeof text, "%s%llu", negative ? "-" : "", (unsigned long long)v);
    return cJSON_CreateRaw(text);
}

/* JSON has no NaN: undefined values (a relative error from one batch) are null. */
static cJSON* number_or_null(double v) { return isfinite(v) ? cJSON_CreateNumber(v) : cJSON_CreateNull(); }

/* The tally's rounding-loss estimate (mct_rounding.h), or NULL when it has none;
 * warns on stderr when the worst bin significantly loses the threshold or more. */
static cJSON* rounding_loss_json(mct_tally_t tally, const char* name, double threshold) {
    mct_rounding_loss_t r;
    if (mct_tally_rounding_loss(tally, &r) != MCT_STATUS_SUCCESS) return NULL;
    const int exceeds = mct_rounding_loss_exceeds(&r, threshold);
    if (exceeds)
        fprintf(stderr,
                "mctally: warning: tally '%s' lost %.3g %% of bin %lld's value to rounding (+- %.2g %%, threshold "
                "%.3g %%); use kahan, fixed or f64\n",
                name, 100.0 * r.worst_loss, (long long)r.worst_bin, 100.0 * r.worst_loss_err, 100.0 * threshold);
    cJSON* j = cJSON_CreateObject();
    cJSON_AddNumberToObject(j, "sample_fraction", r.sample_fraction);
    cJSON_AddNumberToObject(j, "bins_estimated", (double)r.bins_estimated);
    cJSON* w = cJSON_AddObjectToObject(j, "worst_bin");
    cJSON_AddItemToObject(w, "bin", r.worst_bin >= 0 ? cJSON_CreateNumber((double)r.worst_bin) : cJSON_CreateNull());
    cJSON_AddItemToObject(w, "loss", number_or_null(r.worst_loss));
    cJSON_AddItemToObject(w, "loss_err", number_or_null(r.worst_loss_err));
    cJSON_AddNumberToObject(w, "samples", r.worst_samples);
    cJSON_AddItemToObject(j, "total_loss", number_or_null(r.total_loss));
    cJSON_AddItemToObject(j, "total_loss_err", number_or_null(r.total_loss_err));
    cJSON_AddNumberToObject(j, "z", r.z);
    cJSON_AddBoolToObject(j, "significant", r.significant);
    cJSON_AddNumberToObject(j, "threshold", threshold);
    cJSON_AddBoolToObject(j, "exceeds_threshold", exceeds);
    return j;
}

/* Adds "rounding_loss" to a tally's entry where the tally has the estimate. */
static void add_rounding_loss(cJSON* entry, mct_tally_t tally, const char* name, double threshold) {
    cJSON* j = entry ? rounding_loss_json(tally, name, threshold) : NULL;
    if (j) cJSON_AddItemToObject(entry, "rounding_loss", j);
}

/* "sums_digest": FNV-1a (64 bits) of the bins' sums as IEEE doubles in bin
 * order, each little-endian. Two runs whose digests are equal have bitwise the
 * same tally (their means and errors follow), also where the bins are too many
 * to list; rank counts and backends are compared by it. `sums` or, for an
 * integer tally read as int64, `counts` (each exact as a double below 2^53). */
void mct_cli_add_sums_digest(cJSON* entry, const double* sums, const int64_t* counts, int64_t bins) {
    uint64_t h = MCT_CLI_FNV1A_INIT;
    for (int64_t k = 0; k < bins; ++k) {
        const double v = sums ? sums[k] : (double)counts[k];
        uint64_t bits;
        unsigned char le[8];
        memcpy(&bits, &v, sizeof bits);
        for (int i = 0; i < 8; ++i) le[i] = (unsigned char)(bits >> (8 * i));
        h = mct_cli_fnv1a(h, le, sizeof le);
    }
    char text[24];
    snprintf(text, sizeof text, "%016llx", (unsigned long long)h);
    cJSON_AddStringToObject(entry, "sums_digest", text);
}

static void add_sums_digest(cJSON* entry, mct_tally_t tally) {
    if (!entry || cJSON_GetObjectItemCaseSensitive(entry, "sums_digest")) return; /* tally_json's, from the sums it read */
    mct_tally_desc_t d;
    mct_tally_get_desc(tally, &d);
    double* sums = malloc((size_t)d.bins * sizeof *sums);
    if (sums && !mct_tally_sums(tally, sums)) mct_cli_add_sums_digest(entry, sums, NULL, d.bins);
    free(sums);
}

/* Adds `entry`, the run's one tally (`name`, with its rounding-loss estimate
 * where it has one, and the digest of its sums), as result.json's "tallies". */
static void add_run_tally(const run_args_t* a, cJSON* root, mct_tally_t tally, cJSON* entry, const char* name) {
    add_rounding_loss(entry, tally, name, a->loss_threshold);
    add_sums_digest(entry, tally);
    cJSON_AddItemToArray(cJSON_AddArrayToObject(root, "tallies"), entry);
}

/* The head of a run's summary line, "PROBLEM: INPUT on BACKEND (DEVICE),
 * METHOD DTYPE"; the caller goes on and ends the line. */
static void print_run_head(const run_args_t* a, const char* problem, const mct_tally_desc_t* d, const char* device) {
    printf("%s: %s on %s (%s), %s %s", problem, a->file, mct_backend_name(d->backend), device, mct_method_name(d->method),
           mct_dtype_name(d->dtype));
}

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
    mct_cli_add_sums_digest(t, sums, NULL, d.bins);
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

/* Creates the output directory (one level, as mkdir does) if it is not there. */
static int make_out_dir(const char* dir) {
    if (mkdir(dir, 0777) != 0 && errno != EEXIST)
        return mct_cli_error("cannot create output directory '%s': %s", dir, strerror(errno));
    return 0;
}

/* The files `run` writes into its directory: a run replaces those of a
 * previous run there (and only those), so no directory holds a mixed set. */
static const char* const run_file_names[] = {"result.json",      "dose.mhd",       "dose.raw",       "dose_rel_err.mhd",
                                             "dose_rel_err.raw", "depth_dose.csv", "depth_dose.png", "dose_slice.png",
                                             "lors.bin",         "sinogram.png"};
#define RUN_FILES (sizeof run_file_names / sizeof *run_file_names)

/* Adds result.json to the run's output set and puts the whole set in place,
 * result.json last (sim_output.h): its presence means the set is complete. */
static int write_result(const run_args_t* a, cJSON* root) {
    const char* dir = a->out_dir;
    sim_out_set_t* set = a->outputs;
    if (make_out_dir(dir)) return 1;
    char path[4096], stale[RUN_FILES][4096];
    const char* stale_names[RUN_FILES];
    for (size_t i = 0; i < RUN_FILES; ++i) {
        snprintf(stale[i], sizeof stale[i], "%s/%s", dir, run_file_names[i]);
        stale_names[i] = stale[i];
    }
    snprintf(path, sizeof path, "%s/result.json", dir);
    char* text = cJSON_Print(root);
    FILE* f = text ? sim_out_begin(set, path) : NULL;
    int ok = f && fputs(text, f) >= 0 && fputc('\n', f) != EOF;
    free(text);
    if (f && sim_out_end(set, f) != 0) ok = 0;
    if (!ok || sim_out_commit(set, stale_names, (int)RUN_FILES) != 0) {
        sim_out_abort(set);
        return mct_cli_error("%s", set->error[0] ? set->error : "cannot write the results");
    }
    printf("wrote %s\n", path);
    return 0;
}

static int report_status(mct_status_t st, const run_args_t* a, const char* what) {
    if (st == MCT_STATUS_PEER_FAILED && a->ranks) {
        int failed = -1;
        mct_status_t why = MCT_STATUS_SUCCESS;
        a->ranks->failure(a->ranks, &failed, &why);
        if (failed >= 0)
            return mct_cli_error("%s: rank %d of %d stops: rank %d failed (%s: %s)", what, a->ranks->rank, a->ranks->size,
                                 failed, mct_status_name(why), mct_status_string(why));
        return mct_cli_error("%s: rank %d of %d stops: another rank failed", what, a->ranks->rank, a->ranks->size);
    }
    if (st == MCT_STATUS_COMM_ERROR && a->ranks) {
        /* The ranks can no longer agree: every rank ends now, none waits. */
        mct_cli_error("%s: rank %d of %d: %s (%s); ending every rank", what, a->ranks->rank, a->ranks->size,
                      mct_status_string(st), mct_status_name(st));
        a->ranks->abort(a->ranks, 1);
    }

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

typedef mct_cli_rank_report_t rank_report_t;

/* After a problem's run succeeded on every rank: their report (collective).
 * Returns 1 after a message when it fails, 2 on the ranks that write nothing
 * (all but rank 0), else 0. */
static int ranks_report(const run_args_t* a, mct_tally_t tally, rank_report_t* rep) {
    *rep = (rank_report_t){1, MCT_NOT_GUARANTEED, NULL, 0.0, 0.0, 0.0};
    if (!a->ranks) return mct_tally_determinism(tally, &rep->det) ? 1 : 0;
    rep->ranks = a->ranks->size;
    const mct_status_t st =
        a->ranks->report(a->ranks, &rep->det, &rep->transport, &rep->agree_s, &rep->reduce_s, &rep->bytes);
    if (st) return report_status(st, a, "run");
    return a->ranks->rank == 0 ? 0 : 2;
}

/* The fields every problem's result.json opens with; also returns the tally's
 * resolved descriptor and device name for the caller's summary line. */
static cJSON* result_header(const run_args_t* a, const rank_report_t* rep, mct_tally_t tally, const char* problem,
                            int64_t histories, uint64_t seed, int64_t batches, double seconds, mct_tally_desc_t* d,
                            char* device, size_t device_size) {
    mct_tally_get_desc(tally, d);
    mct_tally_device_name(tally, device, device_size);
    cJSON* root = cJSON_CreateObject();
    cJSON_AddStringToObject(root, "mctally_version", mct_version());
    cJSON_AddStringToObject(root, "problem", problem);
    cJSON_AddStringToObject(root, "input", a->file);
    cJSON_AddStringToObject(root, "backend", mct_backend_name(d->backend));
    cJSON_AddStringToObject(root, "device", device);
    cJSON_AddStringToObject(root, "method", mct_method_name(d->method));
    cJSON_AddStringToObject(root, "dtype", mct_dtype_name(d->dtype));
    /* What the run delivered: replicated loses run_to_run when its replicas
     * were shared, float tallies when several ranks summed them. */
    cJSON_AddStringToObject(root, "determinism", mct_determinism_name(rep->det));
    if (d->method == MCT_METHOD_REPLICATED) {
        int64_t replicas = 0, writers = 0;
        mct_tally_replicas(tally, &replicas, &writers);
        cJSON_AddItemToObject(root, "replicas", raw_integer((uint64_t)replicas, 0));
        cJSON_AddItemToObject(root, "writers", raw_integer((uint64_t)writers, 0));
    }
    cJSON_AddStringToObject(root, "determinism_required", mct_determinism_name(d->determinism));
    mct_plan_info_t plan;
    if (!mct_tally_plan_info(tally, &plan)) cJSON_AddItemToObject(root, "plan", mct_cli_plan_json(&plan));
    cJSON_AddItemToObject(root, "histories", raw_integer((uint64_t)histories, 0));
    cJSON_AddItemToObject(root, "seed", raw_integer(seed, 0));
    cJSON_AddItemToObject(root, "batches", raw_integer((uint64_t)batches, 0));
    cJSON_AddNumberToObject(root, "seconds", seconds);
    cJSON_AddNumberToObject(root, "ranks", rep->ranks);
    if (rep->transport) {
        /* The slowest rank's seconds: agreeing (mostly waiting for the others)
         * and summing the bins. */
        cJSON* r = cJSON_AddObjectToObject(root, "reduction");
        cJSON_AddStringToObject(r, "transport", rep->transport);
        cJSON_AddNumberToObject(r, "agree_seconds", rep->agree_s);
        cJSON_AddNumberToObject(r, "reduce_seconds", rep->reduce_s);
        cJSON_AddNumberToObject(r, "bytes_per_rank", rep->bytes);
    }
    return root;
}

static int run_escape(const run_args_t* a, mct_tally_t tally) {
    mct_escape_params_t p = a->cfg.escape;
    p.ranks = a->ranks ? a->ranks->sim : NULL;
    p.checkpoint = &a->cp;
    mct_status_t st = mct_escape_check(&p, tally);
    if (st) return report_status(st, a, "escape");
    if (a->cfg.dtype == MCT_DTYPE_F32 && p.histories / p.batches > (1 << 24))
        fprintf(stderr, "mctally: warning: f32 counts round above 2^24 per batch; use more batches for exact counts\n");
    mct_escape_result_t r;
    if ((st = mct_escape_run(&p, tally, &r))) return report_status(st, a, "escape");
    rank_report_t rep;
    const int ranked = ranks_report(a, tally, &rep);
    if (ranked) return ranked == 2 ? 0 : 1;

    mct_tally_desc_t d;
    char device[256];
    cJSON* root = result_header(a, &rep, tally, "escape", p.histories, p.seed, p.batches, r.seconds, &d, device, sizeof device);
    add_run_tally(a, root, tally, tally_json(tally, "escape"), "escape");
    cJSON_AddItemToObject(root, "escape", escape_json(&p, &r));
    print_run_head(a, "escape", &d, device);
    printf(": fraction %.8g +- %.2g (analytic %.8g), %.0f escapes, %.3f s\n", r.fraction, r.std_error, r.analytic,
           r.escapes, r.seconds);
    int rc = write_result(a, root);
    cJSON_Delete(root);
    return rc;
}

/* ---- tally_only and scatter --------------------------------------------------- */

/* Bins written one by one into result.json; larger tallies get their total only. */
#define MCT_CLI_JSON_BINS 4096

static cJSON* tally_entry(mct_tally_t tally, const char* name, double total) {
    mct_tally_desc_t d;
    mct_tally_get_desc(tally, &d);
    if (d.bins <= MCT_CLI_JSON_BINS) return tally_json(tally, name);
    cJSON* t = cJSON_CreateObject();
    cJSON_AddStringToObject(t, "name", name);
    cJSON_AddNumberToObject(t, "bins", (double)d.bins);
    cJSON_AddNumberToObject(t, "total", total);
    cJSON_AddStringToObject(t, "note", "per-bin values omitted (more than 4096 bins)");
    return t;
}

/* Messages for the statuses of the two problems whose deposits are fractions. */
static int float_problem_status(mct_status_t st, const run_args_t* a, const char* problem, int64_t bins) {
    if (st == MCT_STATUS_NOT_SUPPORTED && a->cfg.dtype != MCT_DTYPE_F32 && a->cfg.dtype != MCT_DTYPE_F64)
        return mct_cli_error("%s: the values are real numbers and need a float tally (--dtype f32 or f64), not %s", problem,
                             mct_dtype_name(a->cfg.dtype));
    if (st == MCT_STATUS_NOT_SUPPORTED && a->cfg.method == MCT_METHOD_SHARED)
        return mct_cli_error("%s: %lld bins of %s do not fit in a block's 48 KiB of shared memory (method shared)",
                             problem, (long long)bins, mct_dtype_name(a->cfg.dtype));
    if (st == MCT_STATUS_OVERFLOW)
        return mct_cli_error("%s: a fixed-point bin overflowed; use fewer particles per batch or fewer fraction bits",
                             problem);
    return report_status(st, a, problem);
}

static cJSON* tally_only_json(const mct_tally_only_params_t* p, const mct_tally_only_result_t* r) {
    cJSON* j = cJSON_CreateObject();
    cJSON_AddItemToObject(j, "particles", raw_integer((uint64_t)p->particles, 0));
    cJSON_AddNumberToObject(j, "collisions", p->collisions);
    cJSON_AddNumberToObject(j, "bins", (double)p->bins);
    cJSON_AddNumberToObject(j, "mean_energy_MeV", p->mean_energy);
    cJSON_AddStringToObject(j, "launch", p->launch == MCT_TALLY_ONLY_LAUNCH_FULL ? "full" : "paper");
    cJSON_AddStringToObject(j, "deposit", sim_deposit_name(p->deposit));
    cJSON_AddNumberToObject(j, "total_MeV", r->total);
    cJSON_AddNumberToObject(j, "expected_MeV", r->expected);
    cJSON_AddNumberToObject(j, "std_error_MeV", r->std_error);
    cJSON_AddNumberToObject(j, "z_score", r->z_score);
    cJSON_AddItemToObject(j, "batch_std_error_MeV", number_or_null(r->batch_std_error));
    cJSON_AddNumberToObject(j, "max_bin_z", r->max_bin_z);
    cJSON_AddItemToObject(j, "updates", raw_integer((uint64_t)r->updates, 0));
    cJSON_AddNumberToObject(j, "updates_per_second", r->updates_per_second);
    return j;
}

static int run_tally_only(const run_args_t* a, mct_tally_t tally) {
    mct_tally_only_params_t p = a->cfg.tally_only;
    p.ranks = a->ranks ? a->ranks->sim : NULL;
    mct_tally_only_result_t r;
    mct_status_t st = mct_tally_only_run(&p, tally, &r);
    if (st) return float_problem_status(st, a, "tally_only", p.bins);
    rank_report_t rep;
    const int ranked = ranks_report(a, tally, &rep);
    if (ranked) return ranked == 2 ? 0 : 1;
    mct_tally_desc_t d;
    char device[256];
    cJSON* root = result_header(a, &rep, tally, "tally_only", p.particles, p.seed, p.batches, r.seconds, &d, device,
                                sizeof device);
    add_run_tally(a, root, tally, tally_entry(tally, "energy", r.total), "energy");
    cJSON_AddItemToObject(root, "tally_only", tally_only_json(&p, &r));
    print_run_head(a, "tally_only", &d, device);
    printf(": total %.10g MeV, expected %.10g +- %.3g (z %.2f), %.3g updates/s, %.3f s\n", r.total, r.expected,
           r.std_error, r.z_score, r.updates_per_second, r.seconds);
    int rc = write_result(a, root);
    cJSON_Delete(root);
    return rc;
}

static cJSON* scatter_json(const mct_scatter_params_t* p, const mct_scatter_result_t* r) {
    cJSON* j = cJSON_CreateObject();
    cJSON_AddItemToObject(j, "particles", raw_integer((uint64_t)p->n, 0));
    cJSON_AddNumberToObject(j, "cells", (double)p->bins);
    cJSON_AddNumberToObject(j, "width", p->width);
    cJSON_AddStringToObject(j, "pattern", mct_scatter_pattern_name(p->pattern));
    cJSON_AddNumberToObject(j, "total", r->total);
    cJSON_AddNumberToObject(j, "expected", r->expected);
    cJSON_AddNumberToObject(j, "std_error", r->std_error);
    cJSON_AddNumberToObject(j, "z_score", r->z_score);
    cJSON_AddItemToObject(j, "updates", raw_integer((uint64_t)r->updates, 0));
    cJSON_AddNumberToObject(j, "updates_per_second", r->updates_per_second);
    cJSON* c = cJSON_AddObjectToObject(j, "check");
    cJSON_AddBoolToObject(c, "checked", r->checked);
    if (r->checked) {
        cJSON_AddBoolToObject(c, "passed", r->check_passed);
        cJSON_AddNumberToObject(c, "max_rel_dev", r->max_rel_dev);
        cJSON_AddItemToObject(c, "max_dev_over_bound", number_or_null(r->max_dev_over_bound));
        cJSON_AddNumberToObject(c, "worst_bin", (double)r->worst_bin);
    }
    return j;
}

static int run_scatter(const run_args_t* a, mct_tally_t tally) {
    mct_scatter_params_t p = a->cfg.scatter;
    p.ranks = a->ranks ? a->ranks->sim : NULL;
    mct_scatter_result_t r;
    mct_status_t st = mct_scatter_run(&p, tally, &r);
    if (st) return float_problem_status(st, a, "scatter", p.bins * p.width);
    rank_report_t rep;
    const int ranked = ranks_report(a, tally, &rep);
    if (ranked) return ranked == 2 ? 0 : 1;
    mct_tally_desc_t d;
    char device[256];
    cJSON* root =
        result_header(a, &rep, tally, "scatter", p.n, p.seed, p.batches, r.seconds, &d, device, sizeof device);
    add_run_tally(a, root, tally, tally_entry(tally, "cells", r.total), "cells");
    cJSON_AddItemToObject(root, "scatter", scatter_json(&p, &r));
    print_run_head(a, "scatter", &d, device);
    printf(", %s keys: total %.10g, expected %.10g +- %.3g (z %.2f)", mct_scatter_pattern_name(p.pattern), r.total,
           r.expected, r.std_error, r.z_score);
    if (r.checked) printf(", bins within %.3g of their bound", r.max_dev_over_bound);
    printf(", %.3g updates/s, %.3f s\n", r.updates_per_second, r.seconds);
    int rc = write_result(a, root);
    cJSON_Delete(root);
    if (!rc && !r.check_passed)
        rc = mct_cli_error("scatter: bin %lld deviates from the host reference by %.3g times its error bound",
                           (long long)r.worst_bin, r.max_dev_over_bound);
    return rc;
}

/* ---- phantom --------------------------------------------------------------- */

static cJSON* phantom_max_dose_json(const mct_phantom_params_t* p, const double* dose, const double* rel) {
    mct_phantom_voxel_t v;
    mct_phantom_max_voxel(p, dose, &v);
    cJSON* j = cJSON_CreateObject();
    cJSON_AddNumberToObject(j, "voxel", (double)v.voxel);
    cJSON* idx = cJSON_AddArrayToObject(j, "index_xyz");
    cJSON* c = cJSON_AddArrayToObject(j, "center_mm");
    for (int i = 0; i < 3; ++i) {
        cJSON_AddItemToArray(idx, cJSON_CreateNumber((double)v.index[i]));
        cJSON_AddItemToArray(c, cJSON_CreateNumber(v.center_mm[i]));
    }
    cJSON_AddNumberToObject(j, "dose_gy_per_history", v.value);
    cJSON_AddItemToObject(j, "rel_err", number_or_null(rel[v.voxel]));
    return j;
}

/* The standard errors a comparison with EGSnrc allows beyond its 2 % / 1 mm. */
#define PHANTOM_COMPARE_K 3.0

/* The head every comparison with a reference writes: what it was compared with, the test, its k. */
static cJSON* comparison_head(const char* reference, const char* test, double k) {
    cJSON* j = cJSON_CreateObject();
    cJSON_AddStringToObject(j, "reference", reference);
    cJSON_AddStringToObject(j, "test", test);
    cJSON_AddNumberToObject(j, "k", k);
    return j;
}

static cJSON* phantom_comparison_json(const mct_phantom_comparison_t* c) {
    cJSON* j = comparison_head(c->name,
                               "2 % of the maximum or 1 mm, plus k standard errors of the difference, at every "
                               "common slab with >= 5 % of the maximum",
                               c->k);
    cJSON_AddNumberToObject(j, "points", c->points);
    cJSON_AddNumberToObject(j, "passed", c->passed);
    cJSON_AddNumberToObject(j, "worst_dose_difference", c->worst_diff);
    cJSON_AddNumberToObject(j, "worst_depth_cm", c->worst_depth_cm);
    if (c->ranges) {
        const char* keys[] = {"r50", "rp", "r80"};
        const double run[] = {c->run.r50_cm, c->run.rp_cm, c->run.r80_cm}, ref[] = {c->ref.r50_cm, c->ref.rp_cm, c->ref.r80_cm};
        const double erun[] = {c->run.r50_err_cm, c->run.rp_err_cm, c->run.r80_err_cm};
        const double eref[] = {c->ref.r50_err_cm, c->ref.rp_err_cm, c->ref.r80_err_cm};
        for (int i = 0; i < 3; ++i) {
            cJSON* o = cJSON_AddObjectToObject(j, keys[i]);
            cJSON_AddNumberToObject(o, "run_cm", run[i]);
            cJSON_AddNumberToObject(o, "egsnrc_cm", ref[i]);
            cJSON_AddNumberToObject(o, "rel_diff", run[i] / ref[i] - 1.0);
            cJSON_AddNumberToObject(o, "rel_err", sqrt(erun[i] * erun[i] + eref[i] * eref[i]) / ref[i]);
        }
        cJSON* o = cJSON_AddObjectToObject(j, "surface_ratio");
        cJSON_AddNumberToObject(o, "run", c->run.surface_ratio);
        cJSON_AddNumberToObject(o, "egsnrc", c->ref.surface_ratio);
    }
    return j;
}

/* The slab of a lateral comparison to name in its summary: the worst of those that failed, else of all. */
static const mct_phantom_lateral_slab_t* lateral_worst(const mct_phantom_lateral_t* c) {
    const mct_phantom_lateral_slab_t* w = &c->slab[0];
    for (int i = 1; i < c->slabs; ++i) {
        const mct_phantom_lateral_slab_t* s = &c->slab[i];
        if (w->pass != s->pass ? !s->pass : s->worst_diff > w->worst_diff) w = s;
    }
    return w;
}

static cJSON* phantom_lateral_json(const mct_phantom_lateral_t* c) {
    cJSON* j = comparison_head(c->name,
                               "in every annulus of a slab with >= 5 % of the slab's maximum: 2 % of that maximum or "
                               "1 mm radially, plus k standard errors of the difference",
                               c->k);
    cJSON_AddStringToObject(j, "normalisation",
                            c->absolute ? "absolute: the reference's dose times scale against the run's, MeV/g per "
                                          "incident particle"
                                        : "integral: the run's doses times scale, so that its energy in the zones of "
                                          "the compared slabs is the reference's");
    cJSON_AddNumberToObject(j, "scale", c->scale);
    cJSON_AddStringToObject(j, "run_error_method",
                            c->batch_errors ? "batch: each zone's energy added up batch by batch (its voxels weighted "
                                              "by their share of the zone), the error from the spread of the batches, "
                                              "so the covariance of the voxels a track deposits in is included; "
                                              "integral: on the zone's share of the compared zones' energy"
                                            : "independent voxels: the voxels' errors propagated as if uncorrelated");
    if (c->batch_errors) cJSON_AddNumberToObject(j, "run_error_batches", (double)c->batches);
    if (c->absolute) {
        cJSON_AddItemToObject(j, "run_over_reference", number_or_null(c->ratio));
        cJSON_AddItemToObject(j, "run_over_reference_err", number_or_null(c->ratio_err));
    }
    cJSON_AddNumberToObject(j, "points", c->points);
    cJSON_AddNumberToObject(j, "passed", c->passed);
    cJSON_AddBoolToObject(j, "pass", c->pass);
    cJSON* depths = cJSON_AddArrayToObject(j, "depths");
    for (int i = 0; i < c->slabs; ++i) {
        const mct_phantom_lateral_slab_t* s = &c->slab[i];
        cJSON* o = cJSON_CreateObject();
        cJSON_AddNumberToObject(o, "z_lo_cm", s->z_lo_cm);
        cJSON_AddNumberToObject(o, "z_hi_cm", s->z_hi_cm);
        cJSON_AddNumberToObject(o, "zones", s->zones);
        cJSON_AddNumberToObject(o, "points", s->points);
        cJSON_AddNumberToObject(o, "passed", s->passed);
        cJSON_AddNumberToObject(o, "worst_dose_difference", s->worst_diff);
        cJSON_AddNumberToObject(o, "worst_r_lo_cm", s->worst_r_lo_cm);
        cJSON_AddNumberToObject(o, "worst_r_hi_cm", s->worst_r_hi_cm);
        cJSON_AddNumberToObject(o, "reference_max_dose", s->ref_max);
        cJSON_AddBoolToObject(o, "pass", s->pass);
        /* The profiles, annulus by annulus: what a plot of the comparison needs. */
        cJSON* prof = cJSON_AddObjectToObject(o, "profile");
        const char* keys[] = {"r_lo_cm", "r_hi_cm", "run", "run_err", "run_err_independent", "reference",
                              "reference_err"};
        for (int f = 0; f < 7; ++f) {
            cJSON* arr = cJSON_AddArrayToObject(prof, keys[f]);
            for (int z = s->first; z < s->first + s->zones; ++z) {
                const mct_phantom_lateral_zone_t* q = &c->zone[z];
                const double v[] = {q->r_lo_cm, q->r_hi_cm, q->run, q->run_err, q->run_err_independent, q->ref,
                                    q->ref_err};
                cJSON_AddItemToArray(arr, number_or_null(v[f]));
            }
        }
        cJSON* res = cJSON_AddArrayToObject(prof, "result");
        for (int z = s->first; z < s->first + s->zones; ++z)
            cJSON_AddItemToArray(res, cJSON_CreateString(!c->zone[z].compared ? "below 5 %"
                                                         : c->zone[z].passed  ? "pass"
                                                                              : "fail"));
        cJSON_AddItemToArray(depths, o);
    }
    return j;
}

static cJSON* phantom_json(const mct_phantom_params_t* p, const mct_phantom_result_t* r, const double* dose,
                           const double* rel, const mct_phantom_ranges_t* rg, int have_ranges,
                           const mct_phantom_comparison_t* cmp, const char* cmp_key, const mct_phantom_lateral_t* lat) {
    cJSON* j = cJSON_CreateObject();
    if (p->geometry) {
        const mct_phantom_geometry_t* g = p->geometry;
        cJSON* geo = cJSON_AddObjectToObject(j, "geometry");
        cJSON* dims = cJSON_AddArrayToObject(geo, "voxels_xyz");
        cJSON* mm = cJSON_AddArrayToObject(geo, "voxel_mm_xyz");
        const int n[3] = {g->nx, g->ny, g->nz};
        const double d[3] = {g->dx_cm, g->dy_cm, g->dz_cm};
        for (int i = 0; i < 3; ++i) {
            cJSON_AddItemToArray(dims, cJSON_CreateNumber(n[i]));
            cJSON_AddItemToArray(mm, cJSON_CreateNumber(10.0 * d[i]));
        }
        cJSON* mats = cJSON_AddArrayToObject(geo, "materials");
        for (int i = 0; i < g->materials; ++i) cJSON_AddItemToArray(mats, cJSON_CreateString(g->material[i].name));
        cJSON_AddStringToObject(geo, "dose", "to the medium: each voxel's energy over its mass (density x volume)");
    } else {
        const double dx = p->size_cm / p->voxels;
        cJSON_AddNumberToObject(j, "size_cm", p->size_cm);
        cJSON_AddNumberToObject(j, "voxels", p->voxels);
        cJSON_AddNumberToObject(j, "voxel_mm", 10.0 * dx);
    }
    cJSON_AddNumberToObject(j, "energy_MeV", p->energy_MeV);
    cJSON_AddStringToObject(j, "particle", p->particle == MCT_PHANTOM_PHOTON ? "photon" : "electron");
    cJSON_AddStringToObject(j, "transport", r->transport == MCT_PHANTOM_TRANSPORT_F32 ? "f32" : "f64");
    cJSON_AddStringToObject(j, "mcs", "transport");
    cJSON_AddStringToObject(j, "deposit", sim_deposit_name(p->deposit));
    cJSON_AddNumberToObject(j, "electron_cutoff_MeV", p->electron_cutoff_MeV);
    cJSON_AddNumberToObject(j, "photon_cutoff_MeV", p->photon_cutoff_MeV);
    cJSON_AddNumberToObject(j, "delta_threshold_MeV", r->delta_threshold_MeV);
    cJSON_AddNumberToObject(j, "brems_threshold_MeV", r->brems_threshold_MeV);
    cJSON_AddNumberToObject(j, "step_fraction", p->step_fraction);
    cJSON_AddNumberToObject(j, "max_step_g_cm2", p->max_step_g_cm2);
    cJSON_AddNumberToObject(j, "block_size", p->block_size);
    cJSON_AddNumberToObject(j, "incident_MeV", r->incident_MeV);
    cJSON_AddNumberToObject(j, "deposited_MeV", r->deposited_MeV);
    cJSON_AddItemToObject(j, "deposited_rel_err", number_or_null(r->deposited_rel_err));
    cJSON_AddNumberToObject(j, "escaped_MeV", r->escaped_MeV);
    cJSON_AddNumberToObject(j, "energy_balance_rel", r->energy_balance_rel);
    cJSON_AddNumberToObject(j, "scored_MeV", r->scored_MeV);
    cJSON_AddNumberToObject(j, "tally_vs_scored_rel", r->tally_vs_scored_rel);
    cJSON_AddNumberToObject(j, "adds", r->adds);
    cJSON_AddNumberToObject(j, "adds_per_history", r->adds / (double)p->histories);
    cJSON_AddNumberToObject(j, "max_stack", r->max_stack);
    cJSON_AddNumberToObject(j, "transport_seconds", r->kernel_seconds);
    cJSON_AddNumberToObject(j, "histories_per_second", (double)p->histories / r->kernel_seconds);
    if (p->particle == MCT_PHANTOM_ELECTRON) {
        cJSON_AddNumberToObject(j, "primary_path_mean_cm", r->primary_path_mean_cm);
        cJSON_AddNumberToObject(j, "primary_path_max_cm", r->primary_path_max_cm);
        cJSON_AddNumberToObject(j, "estar_csda_range_cm", mct_phantom_estar_csda_cm(p->energy_MeV));
    } else {
        cJSON_AddNumberToObject(j, "uncollided_fraction", r->uncollided_fraction);
        cJSON_AddNumberToObject(j, "uncollided_expected", r->uncollided_expected);
        cJSON_AddNumberToObject(j, "mu_per_cm_xcom_without_coherent", r->mu_per_cm);
    }
    cJSON_AddItemToObject(j, "max_dose", phantom_max_dose_json(p, dose, rel));
    cJSON* dd = cJSON_AddObjectToObject(j, "depth_dose");
    if (have_ranges) {
        cJSON_AddNumberToObject(dd, "r50_cm", rg->r50_cm);
        cJSON_AddNumberToObject(dd, "r50_err_cm", rg->r50_err_cm);
        cJSON_AddNumberToObject(dd, "rp_cm", rg->rp_cm);
        cJSON_AddNumberToObject(dd, "rp_err_cm", rg->rp_err_cm);
        cJSON_AddNumberToObject(dd, "r80_cm", rg->r80_cm);
        cJSON_AddNumberToObject(dd, "r80_err_cm", rg->r80_err_cm);
        cJSON_AddNumberToObject(dd, "dmax_depth_cm", rg->dmax_depth_cm);
        cJSON_AddNumberToObject(dd, "dmax_mev_per_history", rg->dmax_mev);
        cJSON_AddNumberToObject(dd, "dmax_err_mev", rg->dmax_err_mev);
        cJSON_AddNumberToObject(dd, "surface_dose_ratio", rg->surface_ratio);
        cJSON_AddNumberToObject(dd, "surface_dose_ratio_err", rg->surface_ratio_err);
        cJSON_AddNumberToObject(dd, "bremsstrahlung_background", rg->background);
    } else {
        cJSON_AddStringToObject(dd, "note", p->geometry ? "R50 and Rp are given for the water cube only (no geometry)"
                                                        : "R50 and Rp need the fall-off resolved by the depth slabs "
                                                          "(electron beam, fine voxels)");
    }
    if (cmp) cJSON_AddItemToObject(dd, cmp_key, phantom_comparison_json(cmp));
    if (lat) cJSON_AddItemToObject(j, "lateral", phantom_lateral_json(lat));
    cJSON* files = cJSON_AddArrayToObject(j, "files");
    const char* names[] = {"dose.mhd",       "dose.raw",       "dose_rel_err.mhd", "dose_rel_err.raw",
                           "depth_dose.csv", "depth_dose.png", "dose_slice.png"};
    for (size_t i = 0; i < sizeof names / sizeof *names; ++i) cJSON_AddItemToArray(files, cJSON_CreateString(names[i]));
    return j;
}

/* The grids (MetaImage), the depth dose (CSV and PNG), the dose's central
 * plane (PNG) and the R50/Rp analysis. */
static int phantom_files(const run_args_t* a, const mct_phantom_params_t* p, const mct_phantom_result_t* r,
                         const double* dose, const double* rel, mct_phantom_ranges_t* rg, int* have_ranges,
                         mct_phantom_comparison_t* cmp, int* have_cmp) {
    const char* dir = a->out_dir;
    sim_out_set_t* set = a->outputs;
    if (make_out_dir(dir)) return 1;
    if (mct_phantom_write_mhd(set, dir, "dose", p, dose) || mct_phantom_write_mhd(set, dir, "dose_rel_err", p, rel))
        return mct_cli_error("%s", set->error[0] ? set->error : "cannot write the dose grids");
    mct_phantom_depth_dose_t dd;
    if (mct_phantom_depth_dose(p, r, &dd)) return mct_cli_error("phantom: cannot compute the depth dose");
    /* R50 and Rp are ranges in the water cube: with a geometry the energy per slab follows the densities. */
    *have_ranges = p->particle == MCT_PHANTOM_ELECTRON && !p->geometry && p->source == MCT_PHANTOM_SOURCE_BEAM &&
                   mct_phantom_ranges(&dd, rg) == MCT_STATUS_SUCCESS;
    if (a->reference) { /* the problem file's reference, in place of the built-in ones */
        const mct_status_t st = mct_phantom_compare_reference(p, &dd, a->cfg.phantom_geometry.reference, a->reference,
                                                              a->reference_rows, PHANTOM_COMPARE_K, cmp);
        if (st == MCT_STATUS_INVALID_VALUE) {
            mct_phantom_depth_dose_free(&dd);
            return mct_cli_error("phantom: reference %s: slabs out of order, overlapping or before the entry face, "
                                 "or errors negative", a->cfg.phantom_geometry.reference);
        }
        if (st == MCT_STATUS_NOT_SUPPORTED) {
            mct_phantom_depth_dose_free(&dd);
            return mct_cli_error("phantom: reference %s: its slabs and the run's share fewer than 10 boundaries",
                                 a->cfg.phantom_geometry.reference);
        }
        *have_cmp = st == MCT_STATUS_SUCCESS;
    } else {
        *have_cmp = mct_phantom_egsnrc_compare(p, &dd, PHANTOM_COMPARE_K, cmp) == MCT_STATUS_SUCCESS;
    }
    char path[4096];
    int rc = 0;
    snprintf(path, sizeof path, "%s/depth_dose.csv", dir);
    if (mct_phantom_write_depth_csv(set, path, &dd))
        rc = mct_cli_error("%s", set->error[0] ? set->error : "cannot write the depth dose");
    snprintf(path, sizeof path, "%s/depth_dose.png", dir);
    if (!rc && mct_phantom_write_depth_png(set, path, &dd, *have_ranges ? rg : NULL))
        rc = mct_cli_error("%s", set->error[0] ? set->error : "cannot write the depth-dose plot");
    snprintf(path, sizeof path, "%s/dose_slice.png", dir);
    if (!rc && mct_phantom_write_slice_png(set, path, p, dose))
        rc = mct_cli_error("%s", set->error[0] ? set->error : "cannot write the dose slice");
    mct_phantom_depth_dose_free(&dd);
    return rc;
}

static int phantom_status(mct_status_t st, const run_args_t* a) {
    if (st == MCT_STATUS_NOT_SUPPORTED && a->cfg.dtype != MCT_DTYPE_F32 && a->cfg.dtype != MCT_DTYPE_F64)
        return mct_cli_error("phantom: dose needs a float tally (--dtype f32 or f64), not %s", mct_dtype_name(a->cfg.dtype));
    if (st == MCT_STATUS_NOT_SUPPORTED && a->cfg.method == MCT_METHOD_SHARED)
        return mct_cli_error("phantom: %lld bins of %s do not fit in a block's 48 KiB of shared memory (method shared)",
                             (long long)mct_phantom_voxel_count(&a->cfg.phantom), mct_dtype_name(a->cfg.dtype));
    if (st == MCT_STATUS_INVALID_VALUE)
        return mct_cli_error("phantom: parameters out of range (energy above the cut-offs and <= 1000 MeV, see README)");
    if (st == MCT_STATUS_OVERFLOW)
        return mct_cli_error("phantom: a particle stack or the sort_reduce pair buffer overflowed; the run is not valid");
    return report_status(st, a, "phantom");
}

static int run_phantom(const run_args_t* a, mct_tally_t tally) {
    mct_phantom_params_t p = a->cfg.phantom;
    p.ranks = a->ranks ? a->ranks->sim : NULL;
    p.checkpoint = &a->cp;
    mct_status_t st = mct_phantom_check(&p, tally);
    if (st) return phantom_status(st, a);
    mct_phantom_result_t r;
    st = mct_phantom_run(&p, tally, &r);
    if (st) {
        if (st == MCT_STATUS_OVERFLOW) mct_phantom_result_free(&r);
        return phantom_status(st, a);
    }
    rank_report_t rep;
    const int ranked = ranks_report(a, tally, &rep);
    if (ranked) {
        mct_phantom_result_free(&r);
        return ranked == 2 ? 0 : 1;
    }
    const int64_t bins = mct_phantom_voxel_count(&p);
    double* mean = malloc((size_t)bins * sizeof *mean);
    double* rel = malloc((size_t)bins * sizeof *rel);
    int rc = 0;
    if (!mean || !rel || mct_tally_results(tally, mean, rel)) rc = mct_cli_error("phantom: cannot read the tally's results");
    mct_phantom_ranges_t rg = {0};
    mct_phantom_comparison_t cmp;
    mct_phantom_lateral_t lat = {0};
    int have_ranges = 0, have_cmp = 0, have_lat = 0;
    if (!rc && a->lateral) { /* on the tally's energies, before they become doses */
        const mct_cli_geometry_t* k = &a->cfg.phantom_geometry;
        char err[1200];
        if (mct_phantom_lateral_compare(&p, &r, mean, rel, k->lateral_reference, a->lateral, a->lateral_rows,
                                        k->lateral_depths, k->nlateral_depths, k->lateral_scale, k->lateral_k, &lat,
                                        err, sizeof err))
            rc = mct_cli_error("phantom: lateral_reference %s", err);
        else
            have_lat = 1;
    }
    if (!rc) {
        mct_phantom_dose_gy(&p, mean, mean, bins);
        rc = phantom_files(a, &p, &r, mean, rel, &rg, &have_ranges, &cmp, &have_cmp);
    }
    if (!rc) {
        mct_tally_desc_t d;
        char device[256];
        cJSON* root =
            result_header(a, &rep, tally, "phantom", p.histories, p.seed, p.batches, r.seconds, &d, device, sizeof device);
        /* Per-voxel values are in the MetaImage files, not here (10^6 bins). */
        cJSON* t = cJSON_CreateObject();
        cJSON_AddStringToObject(t, "name", "dose");
        cJSON_AddNumberToObject(t, "bins", (double)bins);
        cJSON_AddNumberToObject(t, "total", r.deposited_MeV);
        cJSON_AddItemToObject(t, "total_rel_err", number_or_null(r.deposited_rel_err));
        cJSON_AddStringToObject(t, "unit", "MeV (total); dose.mhd: Gy per history");
        cJSON* tf = cJSON_AddArrayToObject(t, "files");
        cJSON_AddItemToArray(tf, cJSON_CreateString("dose.mhd"));
        cJSON_AddItemToArray(tf, cJSON_CreateString("dose_rel_err.mhd"));
        add_run_tally(a, root, tally, t, "dose");
        cJSON_AddItemToObject(root, "phantom", phantom_json(&p, &r, mean, rel, &rg, have_ranges, have_cmp ? &cmp : NULL,
                                                          a->reference ? "reference" : "egsnrc",
                                                          have_lat ? &lat : NULL));
        print_run_head(a, "phantom", &d, device);
        printf(", %s transport: deposited %.6g + escaped %.6g = incident %.6g MeV (balance %.1e)",
               r.transport == MCT_PHANTOM_TRANSPORT_F32 ? "f32" : "f64", r.deposited_MeV, r.escaped_MeV, r.incident_MeV,
               r.energy_balance_rel);
        if (have_ranges) printf(", R50 %.2f +- %.2f cm, Rp %.2f +- %.2f cm", rg.r50_cm, rg.r50_err_cm, rg.rp_cm, rg.rp_err_cm);
        printf(", %.3f s\n", r.seconds);
        if (have_cmp) {
            printf("phantom: against %s (%s): %d of %d depths within 2 %%/1 mm (+ %.0f sigma), worst dose "
                   "difference %.2f %% of the maximum at %.2f cm",
                   a->reference ? "the reference" : "EGSnrc",
                   cmp.name, cmp.passed, cmp.points, cmp.k, 100.0 * cmp.worst_diff, cmp.worst_depth_cm);
            if (cmp.ranges)
                printf("; R50 %.3f vs %.3f cm (%+.2f %%), Rp %.3f vs %.3f cm (%+.2f %%), surface dose %.3f vs %.3f",
                       cmp.run.r50_cm, cmp.ref.r50_cm, 100.0 * (cmp.run.r50_cm / cmp.ref.r50_cm - 1.0), cmp.run.rp_cm,
                       cmp.ref.rp_cm, 100.0 * (cmp.run.rp_cm / cmp.ref.rp_cm - 1.0), cmp.run.surface_ratio,
                       cmp.ref.surface_ratio);
            printf("\n");
        }
        if (have_lat) {
            const mct_phantom_lateral_slab_t* w = lateral_worst(&lat);
            int slabs_passed = 0;
            for (int i = 0; i < lat.slabs; ++i) slabs_passed += lat.slab[i].pass;
            printf("phantom: lateral against %s (%s): %d of %d depths pass, %d of %d zones within 2 %%/1 mm (+ %g "
                   "sigma), worst dose difference %.2f %% of the slab's maximum at %.2f-%.2f cm, r %.2f-%.2f cm",
                   lat.name, lat.absolute ? "absolute" : "integral", slabs_passed, lat.slabs, lat.passed, lat.points,
                   lat.k, 100.0 * w->worst_diff, w->z_lo_cm, w->z_hi_cm, w->worst_r_lo_cm, w->worst_r_hi_cm);
            if (lat.absolute) printf("; run / reference %.4f +- %.4f", lat.ratio, lat.ratio_err);
            printf("\n");
        }
        rc = write_result(a, root);
        cJSON_Delete(root);
    }
    free(mean), free(rel);
    mct_phantom_lateral_free(&lat);
    mct_phantom_result_free(&r);
    return rc;
}

int mct_cli_run_desc(const run_args_t* ap, mct_tally_desc_t* dp) {
    const run_args_t a = *ap;
    mct_tally_desc_t d;
    mct_tally_desc_init(&d);
    d.bins = 1;
    const int phantom = !strcmp(a.cfg.type, "phantom");
    if (phantom) {
        d.bins = mct_phantom_voxel_count(&a.cfg.phantom);
        int64_t fit = 0;
        if (a.cfg.method == MCT_METHOD_SORT_REDUCE &&
            mct_phantom_sort_reduce_pairs(&a.cfg.phantom, &d.pair_capacity, &fit) == MCT_STATUS_TOO_LARGE)
            return mct_cli_error("phantom: sort_reduce would keep about %.2g deposits of a batch in memory; use "
                                 "more batches (about %lld histories per batch fit)",
                                 (double)d.pair_capacity, (long long)fit);
    }
    const int tally_only = !strcmp(a.cfg.type, "tally_only"), scatter = !strcmp(a.cfg.type, "scatter");
    const int pet = !strcmp(a.cfg.type, "pet");
    if (tally_only) d.bins = a.cfg.tally_only.bins;
    if (pet) {
        /* auto: the full map first (mct_cli_pet_create falls back). */
        const mct_status_t st = mct_pet_bins(&a.cfg.pet, a.cfg.pet.index, &d.bins);
        if (st == MCT_STATUS_TOO_LARGE && a.cfg.pet.index != MCT_PET_INDEX_AUTO)
            return mct_cli_error("pet: the %s LOR index has %lld bins, more than the 2^31 of a tally; use a smaller "
                                 "scanner or index = compressed", mct_pet_index_name(a.cfg.pet.index),
                                 (long long)d.bins);
        if (st == MCT_STATUS_TOO_LARGE) d.bins = 1; /* replaced by the compressed index's */
    }
    if (scatter) {
        if (a.cfg.scatter.bins > (INT64_C(1) << 31) / a.cfg.scatter.width)
            return mct_cli_error("scatter: bins x width = %lld x %d exceeds the 2^31 bins of a tally",
                                 (long long)a.cfg.scatter.bins, a.cfg.scatter.width);
        d.bins = a.cfg.scatter.bins * a.cfg.scatter.width;
    }
    d.dtype = a.cfg.dtype;
    d.method = a.cfg.method;
    d.backend = a.backend;
    d.determinism = a.cfg.determinism;
    d.plan_mode = a.cfg.plan_mode;
    /* What the planner knows of each problem's adds: the scatter adds arrays of
     * a known pattern and width; the others add from their own kernels, and the
     * escape kernel implements Bossler's five methods only. */
    d.adds = scatter ? MCT_ADDS_ARRAYS : MCT_ADDS_KERNEL;
    if (scatter) {
        d.width = a.cfg.scatter.width;
        d.key_pattern = a.cfg.scatter.pattern == MCT_SCATTER_SORTED ? MCT_PATTERN_SORTED
                        : a.cfg.scatter.pattern == MCT_SCATTER_HOT  ? MCT_PATTERN_HOT
                                                                    : MCT_PATTERN_UNIFORM;
    }
    if (!phantom && !tally_only && !scatter && !pet) d.method_mask = (1u << (MCT_METHOD_REPLICATED + 1)) - 1u;
    if (phantom && d.method == MCT_METHOD_AUTO) {
        /* sort_reduce is a candidate only where a batch's deposits fit its pairs. */
        int64_t fit = 0;
        if (mct_phantom_sort_reduce_pairs(&a.cfg.phantom, &d.pair_capacity, &fit) != MCT_STATUS_SUCCESS) {
            d.pair_capacity = INT64_C(1) << 24;
            d.method_mask = ((1u << MCT_METHOD_COUNT) - 1u) & ~(1u << MCT_METHOD_SORT_REDUCE);
        }
    }
    *dp = d;
    return 0;
}

/* A step that can fail on one rank alone (its own files, memory, device),
 * agreed by every rank so that none goes on to a collective the others have
 * left. rc: this rank's result (non-zero: it printed why). Returns non-zero
 * on every rank when any failed; a rank that did not fail says which did. */
static int agree_step(const run_args_t* a, int rc, const char* what) {
    if (!a->ranks) return rc;
    const mct_status_t st = a->ranks->agree(a->ranks, rc ? MCT_STATUS_INVALID_STATE : MCT_STATUS_SUCCESS);
    if (!st) return 0;
    if (!rc) {
        int failed = -1;
        mct_status_t why = MCT_STATUS_SUCCESS;
        a->ranks->failure(a->ranks, &failed, &why);
        if (st == MCT_STATUS_COMM_ERROR) return report_status(st, a, what);
        mct_cli_error("%s: rank %d of %d stops: rank %d failed (its message says why)", what, a->ranks->rank,
                      a->ranks->size, failed);
    }
    return 1;
}

/* Checks before anything is made: the options that go together, and that no
 * output is an input or a file that cannot be replaced. */
static int run_prepare(run_args_t* a) {
    const int checkpointed = a->checkpoint || a->resume;
    if (checkpointed && a->ranks)
        return mct_cli_error("run: --checkpoint and --resume need a run of one process, not %d MPI ranks",
                             a->ranks->size);
    if (checkpointed && strcmp(a->cfg.type, "escape") && strcmp(a->cfg.type, "phantom"))
        return mct_cli_error("run: --checkpoint and --resume serve the escape and phantom problems, not %s", a->cfg.type);
    if (a->checkpoint_every && !a->checkpoint) return mct_cli_error("run: --checkpoint-every needs --checkpoint FILE");
    if (!a->checkpoint_every) a->checkpoint_every = 1;
    /* Inputs are never outputs (compared by device and inode): the problem
     * file, and the checkpoint resumed from unless the new checkpoints replace
     * it (they are complete before they do). The wisdom file is read and
     * written back by design. */
    sim_out_install_signals();
    if (sim_out_protect(a->file)) return mct_cli_error("run: too many inputs");
    if (a->checkpoint && mct_cli_checkpoint_check_path(a->checkpoint)) return 1;
    if (a->resume && (!a->checkpoint || strcmp(a->resume, a->checkpoint)) && sim_out_protect(a->resume))
        return mct_cli_error("run: too many inputs");
    char path[4200];
    snprintf(path, sizeof path, "%s/result.json", a->out_dir);
    if (a->checkpoint && !strcmp(path, a->checkpoint))
        return mct_cli_error("--checkpoint '%s' is the run's result file", a->checkpoint);
    struct stat st_dir;
    if (stat(a->out_dir, &st_dir) == 0 && mct_cli_check_out_file(path)) return 1;
    return 0;
}

/* Every rank runs rank 0's problem: the same parameters, histories, batches,
 * seed, backend and method (mct_cli_run_identity); an MPMD launch could give
 * them others. Collective; 1 on every rank when one differs. */
static int same_run(const run_args_t* a, mct_tally_t tally) {
    mct_cli_config_t* cfg = malloc(sizeof *cfg);
    char* id = NULL;
    if (cfg) {
        *cfg = a->cfg;
        cfg->pet.index = a->pet_index; /* the one made, where rank 0's file said auto */
        id = mct_cli_run_identity(a->cfg.type, cfg, tally, a->loss_sample_log2);
    }
    free(cfg);
    uint64_t h = UINT64_C(0xcbf29ce484222325);
    for (const char* c = id ? id : ""; *c; ++c) h = (h ^ (unsigned char)*c) * UINT64_C(0x100000001b3);
    const int have_id = id != NULL;
    free(id);
    int64_t root_h = (int64_t)(h >> 1);
    if (a->ranks->broadcast(a->ranks, &root_h)) return report_status(MCT_STATUS_COMM_ERROR, a, "run");
    int rc = 0;
    if (!have_id)
        rc = mct_cli_error("out of memory");
    else if (root_h != (int64_t)(h >> 1))
        rc = mct_cli_error("run: rank %d of %d runs another problem than rank 0 (its parameters, histories, batches, "
                           "seed, backend or method differ)", a->ranks->rank, a->ranks->size);
    return agree_step(a, rc, "run");
}

/* Creates the run's tally (*tally NULL after a failure, with a message).
 * With ranks: each rank takes the GPU of its place on its machine, rank 0
 * alone plans (and reads and writes the wisdom file) and the others create
 * the method it chose, so that every rank runs the same kernels; then the
 * tallies are attached to each other (shapes compared). Collective. */
/* The tally of the run's problem: pet chooses its LOR index
 * (mct_cli_pet_create, which says why it fails: *said). */
static mct_status_t create_tally(run_args_t* a, mct_tally_desc_t* d, mct_tally_t* tally, int* said) {
    *said = 0;
    if (strcmp(a->cfg.type, "pet")) return mct_tally_create(tally, d);
    mct_status_t st = MCT_STATUS_SUCCESS;
    *tally = mct_cli_pet_create(a, d, &st);
    *said = st && st != MCT_STATUS_UNSATISFIABLE;
    return st;
}

static int run_tally(run_args_t* a, mct_tally_desc_t* d, mct_wisdom_t* wisdom, mct_tally_t* tally) {
    const int root = !a->ranks || a->ranks->rank == 0;
    *tally = NULL;
    int rc = mct_cli_run_desc(a, d);
    if (!rc && root && mct_cli_wisdom_open(a->cfg.wisdom, wisdom)) rc = 1;
    d->wisdom = *wisdom;
    if (!rc && a->ranks) {
        int devices = 0;
        if (!mct_backend_devices(d->backend, &devices) && devices > 0) d->device = a->ranks->local_rank % devices;
    }
    mct_status_t st = MCT_STATUS_SUCCESS;
    int said = 0;
    if (!rc && root) st = create_tally(a, d, tally, &said);
    if (a->ranks) {
        /* Rank 0's method, and the LOR index a pet run chose. */
        mct_tally_desc_t made;
        int64_t method = *tally && !mct_tally_get_desc(*tally, &made) ? (int64_t)made.method : -1;
        int64_t index = a->pet_index;
        if (a->ranks->broadcast(a->ranks, &method) || a->ranks->broadcast(a->ranks, &index))
            return report_status(MCT_STATUS_COMM_ERROR, a, "run");
        if (!rc && !root && method >= 0) {
            d->method = (mct_method_t)method;
            a->cfg.pet.index = (mct_pet_index_t)index;
            st = create_tally(a, d, tally, &said);
        }
        if (!rc && !root && method < 0) st = MCT_STATUS_PEER_FAILED;
    }
    mct_plan_info_t why;
    if (rc || st == MCT_STATUS_PEER_FAILED) {
        /* said already, or rank 0 says it */
    } else if (st == MCT_STATUS_UNSATISFIABLE && (d->wisdom = NULL, mct_plan(d, &why) == MCT_STATUS_UNSATISFIABLE)) {
        rc = mct_cli_error("cannot create the tally: %s", why.reason);
    } else if (st) {
        rc = said ? 1 : report_status(st, a, "cannot create the tally");
    } else if (root) {
        mct_plan_info_t plan;
        mct_tally_plan_info(*tally, &plan);
        if (plan.source != MCT_PLAN_SOURCE_EXPLICIT)
            printf("plan: %s (%s, %.2g s) -- %s\n", mct_method_name(plan.method), mct_plan_source_name(plan.source),
                   plan.seconds, plan.reason);
    }
    if (st == MCT_STATUS_PEER_FAILED) rc = 1;
    /* Float tallies estimate their rounding loss unless asked not to (the
     * estimate needs float values: not fixed, not integer types). */
    mct_tally_desc_t got;
    if (!rc && !mct_tally_get_desc(*tally, &got) && a->loss_sample_log2 >= 0 &&
        (got.dtype == MCT_DTYPE_F32 || got.dtype == MCT_DTYPE_F64) && got.method != MCT_METHOD_FIXED &&
        (st = mct_tally_enable_rounding_loss(*tally, a->loss_sample_log2)))
        rc = report_status(st, a, "cannot enable the rounding-loss estimate");
    if (a->ranks) {
        /* A rank that failed after rank 0 succeeded names itself; rank 0's
         * failure was reported by rank 0. */
        if (agree_step(a, rc && st != MCT_STATUS_PEER_FAILED, "run") || rc) rc = 1;
        /* Every rank runs rank 0's problem: the same parameters, histories,
         * batches, seed, backend and method (an MPMD launch could differ). */
        if (!rc) rc = same_run(a, *tally);
        if (!rc && (st = a->ranks->attach(a->ranks, *tally, a->reduce))) {
            if (st == MCT_STATUS_SHAPE_MISMATCH)
                rc = mct_cli_error("run: rank %d of %d: the ranks' tallies differ in shape (bins, type, method "
                                   "family, fraction bits or rounding-loss sample): run the same problem on every rank",
                                   a->ranks->rank, a->ranks->size);
            else if (st == MCT_STATUS_NOT_SUPPORTED)
                rc = mct_cli_error("run: --reduce nccl needs a float tally (not kahan, fixed or integer) on its own "
                                   "GPU on every rank, and a build with NCCL (MCTALLY_NCCL)");
            else
                rc = report_status(st, a, "run");
        }
    }
    if (rc) {
        mct_tally_destroy(*tally);
        *tally = NULL;
    }
    return rc;
}

/* The problem's run on this process (with checkpoints when asked for). */
static int run_problem(run_args_t* a, mct_tally_t tally) {
    int rc = 0;
    mct_cli_checkpoint_t ckpt = {NULL, NULL, NULL};
    void* resume_state = NULL;
    if (a->checkpoint || a->resume) {
        mct_tally_desc_t got;
        mct_tally_get_desc(tally, &got);
        const int loss = a->loss_sample_log2 >= 0 && (got.dtype == MCT_DTYPE_F32 || got.dtype == MCT_DTYPE_F64) &&
                         got.method != MCT_METHOD_FIXED;
        ckpt.path = a->checkpoint;
        ckpt.tally = tally;
        ckpt.identity = mct_cli_run_identity(a->cfg.type, &a->cfg, tally, loss ? a->loss_sample_log2 : -1);
        if (!ckpt.identity) rc = mct_cli_error("out of memory");
        if (!rc && a->resume) rc = mct_cli_checkpoint_resume(a->resume, ckpt.identity, tally, &resume_state, &a->cp.resume_bytes);
        if (!rc && a->resume) {
            int64_t done = 0;
            mct_tally_counts(tally, &done, NULL);
            printf("resume: %s at batch %lld of %lld\n", a->resume, (long long)done, (long long)a->cfg.batches);
        }
        a->cp.resume = resume_state;
        a->cp.every = a->checkpoint_every;
        a->cp.save = a->checkpoint ? mct_cli_checkpoint_save : NULL;
        a->cp.ctx = &ckpt;
    }
    if (!rc) {
        const char* type = a->cfg.type;
        rc = !strcmp(type, "phantom")      ? run_phantom(a, tally)
             : !strcmp(type, "tally_only") ? run_tally_only(a, tally)
             : !strcmp(type, "scatter")    ? run_scatter(a, tally)
             : !strcmp(type, "pet")        ? mct_cli_run_pet(a, tally)
                                           : run_escape(a, tally);
    }
    free(ckpt.identity);
    free(resume_state);
    return rc;
}

int mct_cli_run(int argc, char** argv, mct_cli_ranks_t* ranks) {
    run_args_t a;
    const int parsed = mct_cli_run_parse(argc, argv, &a);
    a.ranks = ranks;
    if (ranks && agree_step(&a, parsed == 1, "run")) return 1;
    if (parsed) return parsed == 2 ? 0 : 1;
    if (ranks && ranks->rank != 0)
        a.cfg.escape.progress = a.cfg.phantom.progress = a.cfg.tally_only.progress = a.cfg.scatter.progress =
            a.cfg.pet.progress = NULL;
    if (agree_step(&a, run_prepare(&a), "run")) return 1;
    /* The phantom's geometry: read and checked before anything is made. */
    if (agree_step(&a, mct_cli_geometry_build(&a), "run")) return 1;
    sim_out_set_t* outputs = malloc(sizeof *outputs);
    if (outputs) sim_out_init(outputs);
    a.outputs = outputs;
    if (agree_step(&a, outputs ? 0 : mct_cli_error("out of memory"), "run")) {
        free(outputs);
        mct_cli_geometry_free(&a);
        return 1;
    }
    mct_tally_desc_t d;
    mct_wisdom_t wisdom = NULL;
    mct_tally_t tally = NULL;
    int rc = run_tally(&a, &d, &wisdom, &tally);
    if (!rc) rc = run_problem(&a, tally);
    mct_tally_destroy(tally);
    sim_out_abort(outputs); /* after a failure: the temporaries of an uncommitted set */
    free(outputs);
    mct_cli_geometry_free(&a);
    if (wisdom && mct_cli_wisdom_close(a.cfg.wisdom, wisdom)) rc = 1;
    /* Rank 0 alone wrote the results: every rank exits as it did. A failure
     * all ranks agreed on before was reported by each already. */
    if (ranks) {
        const int failed_all = rc;
        const mct_status_t st = ranks->agree(ranks, rc ? MCT_STATUS_IO_ERROR : MCT_STATUS_SUCCESS);
        if (st && !failed_all) {
            int failed = -1;
            mct_status_t why;
            ranks->failure(ranks, &failed, &why);
            rc = mct_cli_error("run: rank %d of %d: rank %d failed at the end of the run (its message says why)",
                               ranks->rank, ranks->size, failed);
        }
    }
    return rc;
}


/* ---- For the problems' runners in other files (cli.h) ---- */

int mct_cli_ranks_report(const run_args_t* a, mct_tally_t tally, mct_cli_rank_report_t* rep) {
    return ranks_report(a, tally, rep);
}

cJSON* mct_cli_result_header(const run_args_t* a, const mct_cli_rank_report_t* rep, mct_tally_t tally,
                             const char* problem, int64_t histories, uint64_t seed, int64_t batches, double seconds,
                             mct_tally_desc_t* d, char* device, size_t device_size) {
    return result_header(a, rep, tally, problem, histories, seed, batches, seconds, d, device, device_size);
}

void mct_cli_print_run_head(const run_args_t* a, const char* problem, const mct_tally_desc_t* d, const char* device) {
    print_run_head(a, problem, d, device);
}

int mct_cli_write_result(const run_args_t* a, cJSON* root) { return write_result(a, root); }

int mct_cli_make_out_dir(const char* dir) { return make_out_dir(dir); }

int mct_cli_report_status(mct_status_t st, const run_args_t* a, const char* what) { return report_status(st, a, what); }
