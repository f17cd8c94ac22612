/* SPDX-License-Identifier: BSD-3-Clause */
/** @file bench_pet.c  `mctally bench pet`: the book's PET scanner (Ansorge 2022,
 * chapter 8) on this GPU, through the problem's public API on the CUDA backend
 * (host C: the kernels are the ones `mctally run` uses).
 *
 * - table8.2: the polar voxels of radial rings 0, 70 and 99 (fullsim; and
 *   fullsimdoi, BGO crystals of 10.4 mm attenuation length) into the full LOR
 *   map (6.55e8 i32 bins, 2.6 GB) with every integer method a map of that size
 *   admits, each beside the same kernel with a tally that discards its input:
 *   good events per second and the tally's overhead, against the book's good
 *   fractions and its RTX 2070's 2.3e9 (fullsim) and 1.8e9 (fullsimdoi) good
 *   events per second.
 * - index: ring 70 into the compressed index and into one bin (the total).
 * - matrix: the whole system matrix, 100 radial rings of `matrix_decays` each
 *   (mct_pet_matrix_build into the compressed index), wall time.
 * - mlem: the Derenzo phantom (rods on a quarter-activity background) into the
 *   compressed index, then MLEM with that matrix: seconds per iteration
 *   (book: 3.9 s on an RTX 2070), with the image written when --image-dir is
 *   given.
 * Times are the generation kernel's (synchronized), median of --reps runs
 * after a warm-up run; the matrix and MLEM are timed once. */
#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "../common/bench_stamp.h"
#include "cli_flags.h"
#include "mctally/mct.h"
#include "pet.h"
#include "pet_reco.h"
#include "sim_output.h"

typedef struct {
    double scale;  /* multiplies every decay count */
    int reps;
    int method[MCT_METHOD_COUNT]; /* table8.2 runs method m when set */
    int parts[4];  /* table8.2, index, matrix, mlem */
    int iterations;
    const char* out;
    const char* image_dir;
} bench_args_t;

static int cmp_double(const void* a, const void* b) {
    const double x = *(const double*)a, y = *(const double*)b;
    return (x > y) - (x < y);
}

static double median(double* x, int n) {
    qsort(x, (size_t)n, sizeof *x, cmp_double);
    return n % 2 ? x[n / 2] : 0.5 * (x[n / 2 - 1] + x[n / 2]);
}

static mct_tally_t make_tally(mct_method_t method, mct_dtype_t dtype, int64_t bins, char* error, size_t size) {
    mct_tally_desc_t d;
    mct_tally_desc_init(&d);
    d.backend = MCT_BACKEND_CUDA;
    d.method = method;
    d.dtype = dtype;
    d.bins = bins;
    d.adds = MCT_ADDS_KERNEL;
    mct_tally_t t = NULL;
    const mct_status_t st = mct_tally_create(&t, &d);
    if (st) snprintf(error, size, "%s", mct_status_name(st));
    return t;
}

typedef struct {
    double seconds, good, decays, efficiency, efficiency_err;
    int ok;
    char error[64];
} run_t;

/* p's run into t, reps times after a warm-up of 1/16 of the decays; the
 * median kernel time (batch ends untimed). Each run in the fewest batches
 * that t's type admits (an i32 tally: at most 2^31 - 1 decays a batch). */
static run_t timed(const mct_pet_params_t* p, mct_tally_t t, int reps) {
    run_t out;
    memset(&out, 0, sizeof out);
    double times[32];
    if (reps > 32) reps = 32;
    mct_tally_desc_t d;
    mct_status_t st = mct_tally_get_desc(t, &d);
    if (st) {
        snprintf(out.error, sizeof out.error, "%s", mct_status_name(st));
        return out;
    }
    for (int r = -1; r < reps; ++r) {
        mct_pet_params_t q = *p;
        if (r < 0) q.histories = p->histories / 16 > 0 ? p->histories / 16 : 1;
        q.batches = mct_pet_min_batches(q.histories, d.dtype);
        mct_pet_result_t res;
        st = mct_pet_run(&q, t, &res);
        if (st) {
            snprintf(out.error, sizeof out.error, "%s", mct_status_name(st));
            return out;
        }
        if (r < 0) continue;
        times[r] = res.engine_seconds;
        out.good = res.good, out.decays = res.decays, out.efficiency = res.efficiency, out.efficiency_err = res.efficiency_err;
    }
    out.seconds = median(times, reps);
    out.ok = 1;
    return out;
}

static cJSON* run_json(const char* part, const char* program, int ring, const char* index, mct_method_t method,
                       const run_t* r, const run_t* discard) {
    cJSON* j = cJSON_CreateObject();
    cJSON_AddStringToObject(j, "part", part);
    cJSON_AddStringToObject(j, "program", program);
    cJSON_AddNumberToObject(j, "ring", ring);
    cJSON_AddStringToObject(j, "index", index);
    cJSON_AddStringToObject(j, "method", mct_method_name(method));
    if (!r->ok) {
        cJSON_AddStringToObject(j, "error", r->error);
        return j;
    }
    cJSON_AddNumberToObject(j, "decays", r->decays);
    cJSON_AddNumberToObject(j, "good_events", r->good);
    cJSON_AddNumberToObject(j, "efficiency", r->efficiency);
    cJSON_AddNumberToObject(j, "efficiency_err", r->efficiency_err);
    cJSON_AddNumberToObject(j, "seconds", r->seconds);
    cJSON_AddNumberToObject(j, "good_events_per_second", r->good / r->seconds);
    cJSON_AddNumberToObject(j, "decays_per_second", r->decays / r->seconds);
    if (discard && discard->ok) {
        cJSON_AddNumberToObject(j, "discard_seconds", discard->seconds);
        cJSON_AddNumberToObject(j, "tally_overhead", r->seconds / discard->seconds);
    }
    return j;
}

static void voxel_params(mct_pet_params_t* p, int ring, int doi, int64_t decays) {
    mct_pet_params_init(p);
    p->source = MCT_PET_SOURCE_VOXEL;
    p->voxel_r = ring;
    p->doi = doi;
    p->attenuation_mm = 10.4; /* the book's BGO */
    p->histories = decays;
    p->seed = 2022;
}

/* Table 8.2: every ring and program with each method into the full map, the
 * discarding launch beside each. One tally per method, its batches reused. */
static void table_8_2(cJSON* cases, const bench_args_t* a) {
    static const mct_method_t methods[] = {MCT_METHOD_ATOMIC,      MCT_METHOD_WIB,         MCT_METHOD_WAG_MATCH,
                                           MCT_METHOD_WAG,         MCT_METHOD_BLOCK_REDUCE, MCT_METHOD_WARP_REDUCE,
                                           MCT_METHOD_REPLICATED,  MCT_METHOD_SHARED};
    static const int rings[3] = {0, 70, 99};
    const int64_t decays = (int64_t)(4e9 * a->scale);
    mct_pet_params_t p;
    voxel_params(&p, 0, 0, decays);
    p.index = MCT_PET_INDEX_FULL;
    int64_t bins = 0;
    mct_pet_bins(&p, p.index, &bins);
    for (size_t m = 0; m < sizeof methods / sizeof *methods; ++m) {
        if (!a->method[methods[m]]) continue;
        char error[64] = "";
        mct_tally_t t = make_tally(methods[m], MCT_DTYPE_I32, bins, error, sizeof error);
        for (int doi = 0; doi < 2; ++doi)
            for (int i = 0; i < 3; ++i) {
                voxel_params(&p, rings[i], doi, decays);
                p.index = MCT_PET_INDEX_FULL;
                run_t r, d;
                memset(&r, 0, sizeof r), memset(&d, 0, sizeof d);
                if (t) {
                    r = timed(&p, t, a->reps);
                    p.discard = 1;
                    if (r.ok) d = timed(&p, t, a->reps);
                } else {
                    snprintf(r.error, sizeof r.error, "%s", error);
                }
                cJSON_AddItemToArray(cases, run_json("table8.2", doi ? "fullsimdoi" : "fullsim", rings[i], "full",
                                                     methods[m], &r, &d));
                fprintf(stderr, "  %-10s ring %2d %-12s %s %.4f, %.3g good events/s, overhead %.3f\n",
                        doi ? "fullsimdoi" : "fullsim", rings[i], mct_method_name(methods[m]), r.ok ? "" : r.error,
                        r.efficiency, r.ok ? r.good / r.seconds : 0.0, d.ok ? r.seconds / d.seconds : NAN);
            }
        mct_tally_destroy(t);
    }
}

/* Ring 70 into the compressed index (atomic) and into one bin (block_reduce:
 * register sums). */
static void index_part(cJSON* cases, const bench_args_t* a) {
    const struct {
        mct_pet_index_t index;
        mct_method_t method;
    } rows[3] = {{MCT_PET_INDEX_COMPRESSED, MCT_METHOD_ATOMIC},
                 {MCT_PET_INDEX_TOTAL, MCT_METHOD_BLOCK_REDUCE},
                 {MCT_PET_INDEX_TOTAL, MCT_METHOD_ATOMIC}};
    for (int i = 0; i < 3; ++i) {
        mct_pet_params_t p;
        voxel_params(&p, 70, 0, (int64_t)(4e9 * a->scale));
        p.index = rows[i].index;
        int64_t bins = 0;
        mct_pet_bins(&p, p.index, &bins);
        char error[64] = "";
        mct_tally_t t = make_tally(rows[i].method, MCT_DTYPE_U64, bins, error, sizeof error);
        run_t r, d;
        memset(&r, 0, sizeof r), memset(&d, 0, sizeof d);
        if (t) {
            r = timed(&p, t, a->reps);
            p.discard = 1;
            if (r.ok) d = timed(&p, t, a->reps);
        } else {
            snprintf(r.error, sizeof r.error, "%s", error);
        }
        mct_tally_destroy(t);
        cJSON_AddItemToArray(cases, run_json("index", "fullsim", 70, mct_pet_index_name(rows[i].index), rows[i].method, &r, &d));
        fprintf(stderr, "  index %-10s %-12s %.3g good events/s\n", mct_pet_index_name(rows[i].index),
                mct_method_name(rows[i].method), r.ok ? r.good / r.seconds : 0.0);
    }
}

/* The system matrix of the book's grid (100 rings of 2 mm), each ring's
 * decays into the compressed index, the book's 3 % spot cut; then the Derenzo
 * phantom and MLEM with it. */
static int matrix_mlem(cJSON* root, const bench_args_t* a) {
    mct_pet_params_t p;
    mct_pet_params_init(&p);
    p.histories = (int64_t)(1e9 * a->scale);
    p.seed = 8;
    mct_pet_params_t q = p;
    q.source = MCT_PET_SOURCE_VOXEL;
    int64_t bins = 0;
    mct_pet_bins(&q, MCT_PET_INDEX_COMPRESSED, &bins);
    char error[64] = "";
    /* i32 while a ring's decays fit one (half the copy of each batch to the host). */
    mct_tally_t t = make_tally(MCT_METHOD_ATOMIC, p.histories > INT32_MAX ? MCT_DTYPE_U64 : MCT_DTYPE_I32, bins, error,
                               sizeof error);
    cJSON* j = cJSON_AddObjectToObject(root, "matrix");
    if (!t) {
        cJSON_AddStringToObject(j, "error", error);
        return 1;
    }
    mct_pet_matrix_t m;
    mct_status_t st = mct_pet_matrix_build(&p, 100, 1, 0.03, t, NULL, NULL, &m);
    mct_tally_destroy(t);
    if (st) {
        cJSON_AddStringToObject(j, "error", mct_status_name(st));
        return 1;
    }
    cJSON_AddNumberToObject(j, "voxels", m.voxels);
    cJSON_AddNumberToObject(j, "decays_per_voxel", m.decays);
    cJSON_AddNumberToObject(j, "min_fraction", 0.03);
    cJSON_AddNumberToObject(j, "entries", (double)m.entries);
    cJSON_AddNumberToObject(j, "dropped_fraction", m.dropped / m.stored);
    cJSON_AddNumberToObject(j, "generation_seconds", m.generation_seconds);
    cJSON_AddNumberToObject(j, "seconds", m.seconds);
    cJSON_AddNumberToObject(j, "good_events_per_second", m.stored / m.generation_seconds);
    cJSON* eff = cJSON_AddArrayToObject(j, "efficiency");
    for (int r = 0; r < m.voxels; ++r) cJSON_AddItemToArray(eff, cJSON_CreateNumber(m.efficiency[r]));
    fprintf(stderr, "  matrix: 100 rings x %.3g decays, %lld entries, %.3f s (generation %.3f s)\n", m.decays,
            (long long)m.entries, m.seconds, m.generation_seconds);
    int rc = 0;
    if (a->parts[3]) {
        cJSON* r = cJSON_AddObjectToObject(root, "mlem");
        mct_pet_sm_entry_t* entries = mct_pet_reco_entries(&p, &m);
        mct_pet_params_t ph;
        mct_pet_params_init(&ph);
        ph.source = MCT_PET_SOURCE_DERENZO;
        ph.derenzo_background = 0.25;
        ph.index = MCT_PET_INDEX_COMPRESSED;
        ph.histories = (int64_t)(2e9 * a->scale);
        ph.batches = 1;
        ph.seed = 9;
        int64_t lor_bins = 0;
        mct_pet_bins(&ph, ph.index, &lor_bins);
        mct_tally_t pt = make_tally(MCT_METHOD_ATOMIC, MCT_DTYPE_U64, lor_bins, error, sizeof error);
        int64_t* sums = malloc((size_t)lor_bins * sizeof *sums);
        float* measured = malloc((size_t)lor_bins * sizeof *measured);
        mct_pet_result_t res;
        st = !entries || !pt || !sums || !measured ? MCT_STATUS_OUT_OF_MEMORY : mct_pet_run(&ph, pt, &res);
        if (!st) st = mct_tally_sums_i64(pt, sums);
        mct_tally_destroy(pt);
        if (!st) {
            for (int64_t k = 0; k < lor_bins; ++k) measured[k] = (float)sums[k];
            cJSON_AddNumberToObject(r, "phantom_decays", res.decays);
            cJSON_AddNumberToObject(r, "phantom_events", res.stored);
            cJSON_AddNumberToObject(r, "phantom_good_events_per_second", res.good / res.engine_seconds);
            mct_pet_reco_params_t rp = {p.crystals, p.rings, m.voxels, p.radial_step_mm, p.crystal_mm, entries,
                                        m.entries, measured, lor_bins, a->iterations, NULL, NULL};
            mct_tally_desc_t d;
            mct_tally_desc_init(&d);
            d.backend = MCT_BACKEND_CUDA;
            d.method = MCT_METHOD_ATOMIC;
            d.dtype = MCT_DTYPE_F64;
            mct_pet_reco_result_t out;
            st = mct_pet_reco_run(&rp, &d, &out);
            if (!st) {
                cJSON_AddNumberToObject(r, "iterations", out.iterations);
                cJSON_AddNumberToObject(r, "seconds_per_iteration", out.seconds / out.iterations);
                cJSON_AddNumberToObject(r, "forward_seconds_per_iteration", out.forward_seconds / out.iterations);
                cJSON_AddNumberToObject(r, "back_seconds_per_iteration", out.back_seconds / out.iterations);
                cJSON* ll = cJSON_AddArrayToObject(r, "log_likelihood");
                for (int i = 0; i < out.iterations; ++i) cJSON_AddItemToArray(ll, cJSON_CreateNumber(out.loglik[i]));
                fprintf(stderr, "  mlem: %d iterations, %.3f s each\n", out.iterations, out.seconds / out.iterations);
                if (a->image_dir) {
                    mkdir(a->image_dir, 0777); /* an existing one is fine; the writer reports what fails */
                    int n = 0;
                    float* g = mct_pet_reco_cartesian(&rp, out.activity, &n);
                    sim_out_set_t* set = malloc(sizeof *set);
                    if (g && set) {
                        sim_out_init(set);
                        if (mct_pet_reco_write(set, a->image_dir, "reco", &rp, g, n) || sim_out_commit(set, NULL, 0)) {
                            fprintf(stderr, "mctally: bench pet: %s\n", set->error);
                            sim_out_abort(set);
                            rc = 1;
                        }
                    }
                    free(set), free(g);
                }
                mct_pet_reco_result_free(&out);
            }
        }
        if (st) cJSON_AddStringToObject(r, "error", mct_status_name(st)), rc = 1;
        free(sums), free(measured), free(entries);
    }
    mct_pet_matrix_free(&m);
    return rc;
}

int mct_bench_pet(int argc, char** argv) {
    bench_args_t a = {1.0, 3, {0}, {1, 1, 1, 1}, 5, NULL, NULL};
    /* Table 8.2's methods by default: those a map of 6.55e8 bins admits
     * (shared cannot hold it in a block, wag adds as wib does for integers). */
    a.method[MCT_METHOD_ATOMIC] = a.method[MCT_METHOD_WIB] = a.method[MCT_METHOD_WAG_MATCH] = 1;
    a.method[MCT_METHOD_BLOCK_REDUCE] = a.method[MCT_METHOD_WARP_REDUCE] = a.method[MCT_METHOD_REPLICATED] = 1;
    for (int i = 0; i < argc; ++i) {
        if (!strcmp(argv[i], "--help")) {
            puts("usage: mctally bench pet [--parts table8.2,index,matrix,mlem] [--scale F] [--reps R]\n"
                 "                         [--methods a,b,...] [--iterations N] [--image-dir DIR] [--out FILE.json]\n"
                 "  table8.2: rings 0, 70, 99 (fullsim, fullsimdoi) into the full LOR map, 4e9 decays, beside a\n"
                 "            discarding tally; the methods (default: atomic, wib, wag_match, block_reduce,\n"
                 "            warp_reduce, replicated; every integer method can be named)\n"
                 "  index: ring 70 into the compressed index and one bin\n"
                 "  matrix: the system matrix, 100 rings x 1e9 decays\n"
                 "  mlem: the Derenzo phantom (2e9 decays) and N MLEM iterations (default 5); --image-dir\n"
                 "        writes its reco.mhd/.raw/.png there\n"
                 "  --scale multiplies every decay count (0.01 for a quick check)");
            return 0;
        }
        if (i + 1 >= argc) return fprintf(stderr, "mctally: bench pet: %s needs a value\n", argv[i]), 1;
        if (!strcmp(argv[i], "--scale")) {
            MCT_CLI_FLAG_F64(a.scale, "bench pet --scale", argv[++i], 0.0);
            if (!(a.scale > 0.0)) return fprintf(stderr, "mctally: bench pet: --scale must be > 0\n"), 1;
        } else if (!strcmp(argv[i], "--reps")) {
            MCT_CLI_FLAG_INT(a.reps, "bench pet --reps", argv[++i], 1, 32);
        } else if (!strcmp(argv[i], "--iterations")) {
            MCT_CLI_FLAG_INT(a.iterations, "bench pet --iterations", argv[++i], 1, 1000);
        } else if (!strcmp(argv[i], "--parts")) {
            const char* s = argv[++i];
            a.parts[0] = strstr(s, "table8.2") != NULL, a.parts[1] = strstr(s, "index") != NULL;
            a.parts[2] = strstr(s, "matrix") != NULL, a.parts[3] = strstr(s, "mlem") != NULL;
            if (!a.parts[0] && !a.parts[1] && !a.parts[2] && !a.parts[3])
                return fprintf(stderr, "mctally: bench pet: --parts: expected table8.2, index, matrix, mlem\n"), 1;
        } else if (!strcmp(argv[i], "--methods")) {
            const char* list = argv[++i];
            for (int m = 0; m < MCT_METHOD_COUNT; ++m) a.method[m] = 0;
            for (const char* m = list; m; m = strchr(m, ',') ? strchr(m, ',') + 1 : NULL) {
                mct_method_t parsed;
                char name[32];
                const size_t len = strcspn(m, ",");
                snprintf(name, sizeof name, "%.*s", (int)(len < 31 ? len : 31), m);
                if (mct_method_from_name(name, &parsed) != MCT_STATUS_SUCCESS || parsed == MCT_METHOD_AUTO)
                    return fprintf(stderr, "mctally: bench pet: unknown method '%s' in --methods\n", name), 1;
                a.method[parsed] = 1;
            }
        } else if (!strcmp(argv[i], "--image-dir")) {
            a.image_dir = argv[++i];
        } else if (!strcmp(argv[i], "--out")) {
            a.out = argv[++i];
        } else {
            return fprintf(stderr, "mctally: bench pet: unknown option '%s'\n", argv[i]), 1;
        }
    }
    cJSON* root = cJSON_CreateObject();
    cJSON_AddStringToObject(root, "suite", "pet");
    char device[256] = "unknown", error[64];
    mct_tally_t probe = make_tally(MCT_METHOD_ATOMIC, MCT_DTYPE_I32, 1, error, sizeof error);
    if (probe) mct_tally_device_name(probe, device, sizeof device);
    mct_tally_destroy(probe);
    cJSON_AddStringToObject(root, "device", device);
    mct_bench_stamp(root);
    cJSON_AddNumberToObject(root, "scale", a.scale);
    cJSON_AddNumberToObject(root, "reps", a.reps);
    cJSON_AddStringToObject(root, "scanner", "400 crystals x 64 rings, 4 x 4 x 20 mm, R = 254.648 mm (the book's)");
    cJSON* cases = cJSON_AddArrayToObject(root, "cases");
    if (a.parts[0]) table_8_2(cases, &a);
    if (a.parts[1]) index_part(cases, &a);
    int rc = 0;
    if (a.parts[2] || a.parts[3]) rc = matrix_mlem(root, &a);
    char* text = cJSON_Print(root);
    if (a.out) {
        FILE* f = fopen(a.out, "w");
        if (!(f && fputs(text, f) >= 0 && fclose(f) == 0)) rc = 1, fprintf(stderr, "mctally: bench pet: cannot write '%s'\n", a.out);
        else printf("wrote %s\n", a.out);
    } else {
        puts(text);
    }
    free(text);
    cJSON_Delete(root);
    return rc;
}
