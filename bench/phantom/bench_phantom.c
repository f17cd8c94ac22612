/* SPDX-License-Identifier: BSD-3-Clause */
/** @file bench_phantom.c  `mctally bench phantom`: Liu et al. 2018's tests 2-4
 * (Tables II and III) and the FP32 / KAS accuracy study (Table IV) on this GPU.
 *
 * Everything runs through the phantom's public API on the CUDA backend (one
 * persistent launch per batch, synchronized), so this file is host C: the
 * kernel is the one `mctally run` uses, not a copy.
 *
 * - table2: tests 2, 3, 4 (100^3, 10^3, 2^3 voxels) x every method that can
 *   tally a float, 4e6 histories, FP64 transport as in Liu's Table II (KAS:
 *   an f32 Kahan tally behind the FP64 transport). Beside each (test,
 *   method) the same launch (same kernel instance, method and tally type)
 *   with a tally that discards its input gives the tally overhead:
 *   time(real tally) / time(discarding tally).
 * - table3: the same with 4e7 histories for HB (atomic) and WIB (Table III).
 * - table4: test 3 with 4e6 ... 6.4e7 histories: FP64 engine (f64 transport,
 *   f64 atomic), FP32 engine (f32 transport, f32 atomic) and KAS engine (f32
 *   transport, kahan), one batch each as in the paper (the whole run in one
 *   tally array), and the f32 transport with an FP64 tally. Discrepancy of
 *   the total dose = (method - FP64) / FP64, as Liu defines it, against the
 *   FP64 engine and against the FP64 tally behind the same f32 transport
 *   (the tally's error alone), and the tally's own rounding error = (tally -
 *   exact double sum of the values it was given) / exact sum.
 * Times are the transport time of the run (kernel and its synchronization;
 * tables and set-up excluded), median of --reps runs after a warm-up. */
#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../common/bench_stamp.h"
#include "cli_flags.h"
#include "mctally/mct.h"
#include "phantom.h"

typedef struct {
    double scale;      /* multiplies every history count (quick runs) */
    double cap_s;      /* a case predicted to run longer than this is skipped */
    int table2_method[MCT_METHOD_COUNT]; /* Table II runs method m when set (all by default) */
    int reps;
    int tables[5];     /* tables[2..4]: run that table */
    const char* out;
    /* Every case's problem but its size, counts, engine and sink: the
     * problem's defaults, with --deposit, --delta-threshold,
     * --step-fraction and --max-step applied. */
    mct_phantom_params_t base;
} bench_args_t;

typedef struct {
    double seconds, total_mev, scored_mev, incident_mev, escaped_mev, predicted_s;
    int64_t batches;
    int ok;
    char error[96];
} bench_run_t;

static int cmp_double(const void* a, const void* b) {
    const double x = *(const double*)a, y = *(const double*)b;
    return (x > y) - (x < y);
}

/* One configuration, reps times after a probe run of 1/64 of the histories
 * (at least 2000, at most 1e6) that warms up (loads the module, builds the
 * tables) and predicts the time of a full run: a case predicted to take longer
 * than cap_s is not run (out.predicted_s says how long it would have taken). */
static bench_run_t run_case(const mct_phantom_params_t* base, int voxels, int64_t histories, mct_method_t method,
                            mct_dtype_t dtype, mct_phantom_transport_t transport, int discard, int64_t batches, int reps,
                            double cap_s) {
    bench_run_t out = {0};
    mct_phantom_params_t p = *base;
    p.voxels = voxels;
    p.histories = histories;
    p.batches = batches;
    p.transport = transport;
    p.discard = discard;
    double times[32];
    if (reps > 32) reps = 32;
    for (int r = -1; r < reps; ++r) {
        mct_tally_desc_t d;
        mct_tally_desc_init(&d);
        d.bins = (int64_t)voxels * voxels * voxels;
        d.dtype = dtype;
        d.method = method;
        d.backend = MCT_BACKEND_CUDA;
        /* sort_reduce keeps a batch's deposits (about 900 per history at 20 MeV). */
        if (method == MCT_METHOD_SORT_REDUCE) d.pair_capacity = (histories / batches + 1) * 1000;
        mct_tally_t t = NULL;
        mct_status_t st = mct_tally_create(&t, &d);
        mct_phantom_params_t q = p;
        if (r < 0) { /* the probe */
            q.histories = histories / 64 < 2000 ? (histories < 2000 ? histories : 2000) : histories / 64;
            if (q.histories > 1000000) q.histories = 1000000;
            q.batches = q.histories < batches ? 1 : batches;
        }
        mct_phantom_result_t res;
        if (!st) st = mct_phantom_run(&q, t, &res);
        mct_tally_destroy(t);
        if (st) {
            snprintf(out.error, sizeof out.error, "%s", mct_status_name(st));
            if (st == MCT_STATUS_OVERFLOW) mct_phantom_result_free(&res);
            return out;
        }
        if (r < 0) {
            out.predicted_s = res.kernel_seconds * (double)histories / (double)q.histories;
            if (out.predicted_s > cap_s) {
                snprintf(out.error, sizeof out.error, "slow (~%.0f s predicted)", out.predicted_s);
                mct_phantom_result_free(&res);
                return out;
            }
        } else {
            times[r] = res.kernel_seconds;
            out.total_mev = res.deposited_MeV;
            out.scored_mev = res.scored_MeV;
            out.incident_mev = res.incident_MeV;
            out.escaped_mev = res.escaped_MeV;
        }
        mct_phantom_result_free(&res);
    }
    qsort(times, (size_t)reps, sizeof *times, cmp_double);
    out.seconds = reps % 2 ? times[reps / 2] : 0.5 * (times[reps / 2 - 1] + times[reps / 2]);
    out.batches = batches;
    out.ok = 1;
    return out;
}

static cJSON* run_json(const char* table, int test, int voxels, int64_t histories, const char* engine,
                       mct_method_t method, mct_dtype_t dtype, const char* transport, const bench_run_t* r) {
    cJSON* j = cJSON_CreateObject();
    cJSON_AddStringToObject(j, "table", table);
    cJSON_AddNumberToObject(j, "test", test);
    cJSON_AddNumberToObject(j, "voxels", voxels);
    cJSON_AddNumberToObject(j, "histories", (double)histories);
    cJSON_AddStringToObject(j, "engine", engine);
    cJSON_AddStringToObject(j, "method", mct_method_name(method));
    cJSON_AddStringToObject(j, "dtype", mct_dtype_name(dtype));
    cJSON_AddStringToObject(j, "transport", transport);
    if (!r->ok) {
        cJSON_AddStringToObject(j, "error", r->error);
        if (r->predicted_s > 0) cJSON_AddNumberToObject(j, "predicted_seconds", r->predicted_s);
        return j;
    }
    cJSON_AddNumberToObject(j, "batches", (double)r->batches);
    cJSON_AddNumberToObject(j, "seconds", r->seconds);
    cJSON_AddNumberToObject(j, "histories_per_second", (double)histories / r->seconds);
    cJSON_AddNumberToObject(j, "total_MeV", r->total_mev);
    cJSON_AddNumberToObject(j, "scored_MeV", r->scored_mev);
    cJSON_AddNumberToObject(j, "tally_rounding_rel", (r->total_mev - r->scored_mev) / r->scored_mev);
    cJSON_AddNumberToObject(j, "energy_balance_rel", (r->total_mev + r->escaped_mev - r->incident_mev) / r->incident_mev);
    return j;
}

static const int test_voxels[5] = {0, 0, 100, 10, 2};

/* Tables II and III tally in f64, but Kahan pairs hold f32. */
static mct_dtype_t table2_dtype(mct_method_t m) {
    return m == MCT_METHOD_KAHAN || m == MCT_METHOD_KAHAN_NAIVE ? MCT_DTYPE_F32 : MCT_DTYPE_F64;
}

/* Table II / III rows: one test, the given methods, each beside the same
 * launch (same kernel instance, method and tally type) with a tally that
 * discards its input: their ratio is the method's tally overhead. */
static void tests_2_to_4(cJSON* cases, const char* table, const mct_method_t* methods, int nmethods, int64_t histories,
                         const bench_args_t* a) {
    for (int test = 2; test <= 4; ++test) {
        const int n = test_voxels[test];
        for (int m = 0; m < nmethods; ++m) {
            const mct_method_t method = methods[m];
            const mct_dtype_t dt = table2_dtype(method);
            /* sort_reduce holds a batch's deposits: batches of at most 2^17 histories. */
            const int64_t batches = method == MCT_METHOD_SORT_REDUCE ? (histories + (1 << 17) - 1) >> 17 : 1;
            bench_run_t r = run_case(&a->base, n, histories, method, dt, MCT_PHANTOM_TRANSPORT_F64, 0, batches, a->reps, a->cap_s);
            cJSON* j = run_json(table, test, n, histories, "FP64 transport", method, dt, "f64", &r);
            double discard_s = NAN;
            if (r.ok) {
                const bench_run_t d =
                    run_case(&a->base, n, histories, method, dt, MCT_PHANTOM_TRANSPORT_F64, 1, batches, a->reps, a->cap_s);
                discard_s = d.ok ? d.seconds : NAN;
                if (d.ok) {
                    cJSON_AddNumberToObject(j, "discard_seconds", d.seconds);
                    cJSON_AddNumberToObject(j, "tally_overhead", r.seconds / d.seconds);
                }
            }
            cJSON_AddItemToArray(cases, j);
            fprintf(stderr, "  %s test %d: %-12s %s %.3f s (discarding %.3f s)%s%s\n", table, test,
                    mct_method_name(method), mct_dtype_name(dt), r.ok ? r.seconds : NAN, discard_s, r.ok ? "" : " ",
                    r.error);
        }
    }
}

/* Table IV's engines. The f32 transport with an FP64 tally runs the same
 * random walks as the FP32 and KAS engines (the transport does not depend on
 * the tally), so the difference from it is the tally's alone. */
static const struct {
    const char* name;
    mct_method_t method;
    mct_dtype_t dtype;
    mct_phantom_transport_t transport;
} table4_engines[] = {
    {"FP64", MCT_METHOD_ATOMIC, MCT_DTYPE_F64, MCT_PHANTOM_TRANSPORT_F64},
    {"FP32 atomic", MCT_METHOD_ATOMIC, MCT_DTYPE_F32, MCT_PHANTOM_TRANSPORT_F32},
    {"KAS", MCT_METHOD_KAHAN, MCT_DTYPE_F32, MCT_PHANTOM_TRANSPORT_F32},
    {"FP32 transport, FP64 tally", MCT_METHOD_ATOMIC, MCT_DTYPE_F64, MCT_PHANTOM_TRANSPORT_F32},
};
enum { T4_FP64, T4_FP32, T4_KAS, T4_F32_FP64, T4_ENGINES };

static void table4(cJSON* cases, const bench_args_t* a) {
    const double counts[] = {4e6, 8e6, 1.6e7, 3.2e7, 6.4e7};
    for (size_t i = 0; i < sizeof counts / sizeof *counts; ++i) {
        const int64_t h = (int64_t)(counts[i] * a->scale);
        bench_run_t runs[T4_ENGINES];
        for (int k = 0; k < T4_ENGINES; ++k)
            runs[k] = run_case(&a->base, 10, h, table4_engines[k].method, table4_engines[k].dtype,
                               table4_engines[k].transport, 0, 1, a->reps, a->cap_s);
        const bench_run_t *fp64 = &runs[T4_FP64], *f32_fp64 = &runs[T4_F32_FP64];
        for (int k = 0; k < T4_ENGINES; ++k) {
            const bench_run_t* r = &runs[k];
            const char* transport = table4_engines[k].transport == MCT_PHANTOM_TRANSPORT_F32 ? "f32" : "f64";
            cJSON* j = run_json("table4", 3, 10, h, table4_engines[k].name, table4_engines[k].method,
                                table4_engines[k].dtype, transport, r);
            if (r->ok && fp64->ok)
                cJSON_AddNumberToObject(j, "discrepancy_vs_fp64", (r->total_mev - fp64->total_mev) / fp64->total_mev);
            if (r->ok && f32_fp64->ok && (k == T4_FP32 || k == T4_KAS))
                cJSON_AddNumberToObject(j, "discrepancy_vs_fp64_tally",
                                        (r->total_mev - f32_fp64->total_mev) / f32_fp64->total_mev);
            cJSON_AddItemToArray(cases, j);
            fprintf(stderr, "  table4 %.3g histories %-26s %.3f s, vs FP64 %+.3e, vs FP64 tally %+.3e, tally rounding %+.3e\n",
                    (double)h, table4_engines[k].name, r->seconds, (r->total_mev - fp64->total_mev) / fp64->total_mev,
                    (r->total_mev - f32_fp64->total_mev) / f32_fp64->total_mev,
                    (r->total_mev - r->scored_mev) / r->scored_mev);
        }
    }
}

static int parse_args(int argc, char** argv, bench_args_t* a) {
    a->scale = 1.0;
    a->cap_s = 60.0;
    for (int m = 0; m < MCT_METHOD_COUNT; ++m) a->table2_method[m] = 1;
    a->reps = 3;
    a->tables[2] = a->tables[3] = a->tables[4] = 1;
    a->out = NULL;
    mct_phantom_params_init(&a->base);
    a->base.seed = 2018;
    for (int i = 0; i < argc; ++i) {
        if (!strcmp(argv[i], "--help")) {
            puts("usage: mctally bench phantom [--tables 2,3,4] [--scale F] [--reps R] [--methods a,b,...]\n"
                 "                             [--cap SECONDS] [--deposit auto|direct|buffered] [--delta-threshold MEV]\n"
                 "                             [--step-fraction F] [--max-step G_CM2] [--out FILE.json]\n"
                 "  --deposit: how the kernel hands deposits to the tally (sim_deposit.h; default auto)\n"
                 "  --delta-threshold MEV: Moller delta rays made above it (default: the problem's, 0.0125;\n"
                 "            0.2 = the electron cut-off, the transport Liu's tables were run with before)\n"
                 "  --step-fraction F, --max-step G_CM2: the electron steps' largest fractional energy loss and\n"
                 "            length (default: the problem's, 0.12 and 0.4 g/cm2)\n"
                 "  table 2: tests 2-4 x every float method, 4e6 histories, and the tally overhead\n"
                 "  table 3: tests 2-4, atomic (HB) and wib, 4e7 histories\n"
                 "  table 4: test 3, FP64 / FP32 atomic / KAS engines, 4e6 ... 6.4e7 histories\n"
                 "  --scale multiplies every history count (0.01 for a quick check)\n"
                 "  --methods limits table 2 to these methods\n"
                 "  --cap skips a case predicted (from 1/64 of its histories) to take longer (default 60 s)");
            exit(0);
        }
        if (i + 1 >= argc) return fprintf(stderr, "mctally: bench phantom: %s needs a value\n", argv[i]), 1;
        if (!strcmp(argv[i], "--scale")) {
            MCT_CLI_FLAG_F64(a->scale, "bench phantom --scale", argv[++i], 0.0);
            if (!(a->scale > 0.0)) return fprintf(stderr, "mctally: bench phantom: --scale must be > 0\n"), 1;
        } else if (!strcmp(argv[i], "--reps")) {
            MCT_CLI_FLAG_INT(a->reps, "bench phantom --reps", argv[++i], 1, 32);
            if (a->reps < 1 || a->reps > 32) return fprintf(stderr, "mctally: bench phantom: --reps 1 .. 32\n"), 1;
        } else if (!strcmp(argv[i], "--tables")) {
            const char* s = argv[++i];
            a->tables[2] = strchr(s, '2') != NULL, a->tables[3] = strchr(s, '3') != NULL, a->tables[4] = strchr(s, '4') != NULL;
        } else if (!strcmp(argv[i], "--methods")) {
            const char* list = argv[++i];
            for (int m = 0; m < MCT_METHOD_COUNT; ++m) a->table2_method[m] = 0;
            for (const char* m = list; m; m = strchr(m, ',') ? strchr(m, ',') + 1 : NULL) {
                mct_method_t parsed;
                char name[32];
                const size_t len = strcspn(m, ",");
                snprintf(name, sizeof name, "%.*s", (int)(len < 31 ? len : 31), m);
                if (mct_method_from_name(name, &parsed) != MCT_STATUS_SUCCESS)
                    return fprintf(stderr, "mctally: bench phantom: unknown method '%s' in --methods\n", name), 1;
                a->table2_method[parsed] = 1;
            }
        } else if (!strcmp(argv[i], "--cap")) {
            MCT_CLI_FLAG_F64(a->cap_s, "bench phantom --cap", argv[++i], 0.0);
            if (!(a->cap_s > 0.0)) return fprintf(stderr, "mctally: bench phantom: --cap must be > 0\n"), 1;
        } else if (!strcmp(argv[i], "--delta-threshold")) {
            MCT_CLI_FLAG_F64(a->base.delta_threshold_MeV, "bench phantom --delta-threshold", argv[++i], 0.0125);
        } else if (!strcmp(argv[i], "--step-fraction")) {
            MCT_CLI_FLAG_F64(a->base.step_fraction, "bench phantom --step-fraction", argv[++i], 1e-3);
        } else if (!strcmp(argv[i], "--max-step")) {
            MCT_CLI_FLAG_F64(a->base.max_step_g_cm2, "bench phantom --max-step", argv[++i], 1e-3);
        } else if (!strcmp(argv[i], "--deposit")) {
            const char* v = argv[++i];
            if (!strcmp(v, "auto")) a->base.deposit = MCT_SIM_DEPOSIT_AUTO;
            else if (!strcmp(v, "direct")) a->base.deposit = MCT_SIM_DEPOSIT_DIRECT;
            else if (!strcmp(v, "buffered")) a->base.deposit = MCT_SIM_DEPOSIT_BUFFERED;
            else return fprintf(stderr, "mctally: bench phantom: --deposit must be auto, direct or buffered\n"), 1;
        } else if (!strcmp(argv[i], "--out")) {
            a->out = argv[++i];
        } else {
            return fprintf(stderr, "mctally: bench phantom: unknown option '%s'\n", argv[i]), 1;
        }
    }
    return 0;
}

int mct_bench_phantom(int argc, char** argv) {
    bench_args_t a;
    if (parse_args(argc, argv, &a)) return 1;
    cJSON* root = cJSON_CreateObject();
    cJSON_AddStringToObject(root, "suite", "phantom");
    char device[256] = "unknown";
    mct_tally_desc_t d;
    mct_tally_desc_init(&d);
    d.backend = MCT_BACKEND_CUDA;
    mct_tally_t probe = NULL;
    if (mct_tally_create(&probe, &d) == MCT_STATUS_SUCCESS) mct_tally_device_name(probe, device, sizeof device);
    mct_tally_destroy(probe);
    cJSON_AddStringToObject(root, "device", device);
    mct_bench_stamp(root);
    cJSON_AddNumberToObject(root, "scale", a.scale);
    cJSON_AddNumberToObject(root, "reps", a.reps);
    cJSON_AddStringToObject(root, "deposit", sim_deposit_name(a.base.deposit));
    char beam[160];
    snprintf(beam, sizeof beam, "%g MeV electrons, %g cm water cube, cut-offs %g / %g MeV, steps of %g %% and <= %g cm",
             a.base.energy_MeV, a.base.size_cm, a.base.electron_cutoff_MeV, a.base.photon_cutoff_MeV,
             100.0 * a.base.step_fraction, a.base.max_step_g_cm2);
    cJSON_AddStringToObject(root, "beam", beam);
    cJSON_AddNumberToObject(root, "delta_threshold_MeV",
                            a.base.delta_threshold_MeV > 0.0 ? a.base.delta_threshold_MeV : MCT_PHANTOM_DELTA_DEFAULT_MEV);
    cJSON_AddNumberToObject(root, "step_fraction", a.base.step_fraction);
    cJSON_AddNumberToObject(root, "max_step_g_cm2", a.base.max_step_g_cm2);
    cJSON* cases = cJSON_AddArrayToObject(root, "cases");
    if (a.tables[2]) {
        mct_method_t all[MCT_METHOD_COUNT];
        int n = 0;
        for (int m = 0; m < MCT_METHOD_COUNT; ++m) {
            if (!a.table2_method[m]) continue;
            if (mct_method_supports((mct_method_t)m, table2_dtype((mct_method_t)m), MCT_BACKEND_CUDA) == MCT_STATUS_SUCCESS)
                all[n++] = (mct_method_t)m;
        }
        tests_2_to_4(cases, "table2", all, n, (int64_t)(4e6 * a.scale), &a);
    }
    if (a.tables[3]) {
        const mct_method_t hb_wib[2] = {MCT_METHOD_ATOMIC, MCT_METHOD_WIB};
        tests_2_to_4(cases, "table3", hb_wib, 2, (int64_t)(4e7 * a.scale), &a);
    }
    if (a.tables[4]) table4(cases, &a);
    char* text = cJSON_Print(root);
    int rc = 0;
    if (a.out) {
        FILE* f = fopen(a.out, "w");
        rc = !(f && fputs(text, f) >= 0 && fclose(f) == 0);
        if (rc) fprintf(stderr, "mctally: bench phantom: cannot write '%s'\n", a.out);
        else printf("wrote %s\n", a.out);
    } else {
        puts(text);
    }
    free(text);
    cJSON_Delete(root);
    return rc;
}
