/* SPDX-License-Identifier: BSD-3-Clause */
/** @file bench_tally_only.cu  `mctally bench tally_only`: Liu et al. 2018's
 * test 1 (T1 of Tables II and III) on this GPU. 10 collisions per particle,
 * 8 bins, exponential deposits of mean 0.1 MeV; 1e7 particles (Table II) and
 * 3e9 (Table III); Liu's launch (1024 blocks x 64 threads) and a full-GPU one;
 * every method that serves f64, plus f32 atomic and f32 kahan (Liu's KAS).
 *
 * Timed with CUDA events: the kernel (the problem's own, sim/tally_only),
 * plus the replica reduction (replicated) or the sort-and-sum passes
 * (sort_reduce, one per chunk of 2^26 deposits); median of the repetitions
 * after one warm-up. Floor: the same kernel with the deposits summed in a
 * register and discarded, i.e. the cost of the random numbers alone.
 *
 * Checks: the f64 fixed-point total (bitwise deterministic) is the reference:
 * it must lie within 5 standard errors of particles x 10 x mean and be the
 * same bits for both launches; every other case must lie within its type's
 * and method's error bound of it (mct_scatter_bin_bound, summed over bins).
 * f32 atomic has a bound far above its total at these sizes: its discrepancy
 * is reported, as Liu's Table IV reports it. */
#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <vector>

#include "../common/bench_common.cuh"
#include "cli_flags.h"
#include "scatter.h"
#include "tally_only_kernels.cuh"

typedef struct {
    int64_t particles[2]; /* Table II, Table III */
    int tables;           /* bit 0: Table II, bit 1: Table III */
    int reps, warmup;
    double case_seconds;  /* a case whose warm-up takes longer is timed once */
    double max_case_seconds; /* Table III cases projected above this are skipped */
    double budget_seconds;   /* Table III cases are skipped once the suite has run this long */
    const char* out;
    mct_sim_deposit_t deposit; /* direct adds, a deposit buffer, or per method (sim_deposit.h) */
} bench_args_t;

#define TALLY_ONLY_COLLISIONS 10
#define TALLY_ONLY_BINS 8
#define TALLY_ONLY_MEAN 0.1f
#define TALLY_ONLY_SEED 2018u
/* sort_reduce keeps a chunk's deposits as 16-byte pairs: 1 GiB of them. */
#define TALLY_ONLY_PAIRS (INT64_C(1) << 26)

static double now_seconds(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

typedef struct {
    double median_ms, min_ms, max_ms;
    int reps_done;
    double total;         /* of the last repetition */
    double first_total;   /* of the warm-up: every repetition must give the same for fixed */
    double projected_s;   /* from a prefix of the particles; skipped when above --max-case-s */
    int skipped;
    mct_status_t status;
} case_result_t;

/* One timed repetition: the chunks' launches, the deferred sums, then the
 * batch closed and its total read back (outside the timed region). */
static mct_status_t time_rep(mct_tally_t tally, sim_tally_only_args_t a,
                             int64_t particles, int64_t chunk, int64_t grid, int block, double* ms, double* total,
                             double* running, double* sums) {
    mct_tally_view_t view; /* valid until the batch's end */
    mct_status_t st = mct_tally_view(tally, &view);
    if (st) return st;
    cudaEvent_t t0, t1;
    cudaEventCreate(&t0), cudaEventCreate(&t1);
    cudaEventRecord(t0);
    for (int64_t done = 0; done < particles && !st; done += chunk) {
        a.first = (uint64_t)done;
        a.n = particles - done < chunk ? particles - done : chunk;
        sim_tally_only_launch(view, a, grid, block, 0);
        if (view.method == MCT_METHOD_SORT_REDUCE) st = mct_tally_flush(tally);
    }
    if (!st && view.method == MCT_METHOD_REPLICATED) st = mct_tally_flush(tally);
    cudaEventRecord(t1);
    BENCH_CHECK(cudaEventSynchronize(t1));
    BENCH_CHECK(cudaGetLastError());
    float m = 0.0f;
    cudaEventElapsedTime(&m, t0, t1);
    cudaEventDestroy(t0), cudaEventDestroy(t1);
    *ms = m;
    if (!st) st = mct_tally_end_batch(tally, particles);
    if (!st) st = mct_tally_sums(tally, sums);
    double after = 0.0;
    for (int k = 0; k < TALLY_ONLY_BINS; ++k) after += sums[k];
    *total = after - *running;
    *running = after;
    return st;
}

/* Times one method x type x launch: warm-up, then reps (or only the warm-up
 * when it already took longer than case_seconds). */
static void time_case(int64_t particles, mct_method_t method, mct_dtype_t dtype, mct_tally_only_launch_t launch,
                      int sms, const bench_args_t* args, case_result_t* out) {
    *out = case_result_t{};
    mct_tally_desc_t d;
    mct_tally_desc_init(&d);
    d.method = method, d.dtype = dtype, d.backend = MCT_BACKEND_CUDA, d.bins = TALLY_ONLY_BINS;
    d.pair_capacity = TALLY_ONLY_PAIRS;
    mct_tally_t tally;
    if ((out->status = mct_tally_create(&tally, &d))) return;
    const int64_t chunk = method == MCT_METHOD_SORT_REDUCE ? TALLY_ONLY_PAIRS / TALLY_ONLY_COLLISIONS : particles;
    const int block = sim_tally_only_block(launch);
    const int64_t grid = sim_tally_only_grid(launch, chunk, sms);
    if (method == MCT_METHOD_REPLICATED && (out->status = mct_tally_reserve_replicas(tally, grid * block))) {
        mct_tally_destroy(tally);
        return;
    }
    sim_tally_only_args_t a = {TALLY_ONLY_SEED, 0, 0, TALLY_ONLY_COLLISIONS, TALLY_ONLY_BINS, TALLY_ONLY_MEAN, 0};
    mct_tally_view_t shape = {};
    shape.method = method, shape.dtype = dtype, shape.nbins = TALLY_ONLY_BINS;
    a.buffered = sim_tally_only_buffers(args->deposit, shape);
    std::vector<double> ms;
    double running = 0.0, sums[TALLY_ONLY_BINS];
    /* A prefix of the particles predicts the case: one that would pass
     * --max-case-s is not run (the CAS methods on 8 hot bins take minutes for
     * Table II alone). The prefix grows 8-fold from 2^16 particles up to 1/64 of
     * them, and a case is dropped once a prefix of at least 20 ms (shorter ones
     * are mostly fixed costs) or the 1/64 projects it past the limit: a fixed
     * 1/64 of Table III's 3e9 particles is 4.7e8 deposits, minutes for a CAS loop
     * on 8 bins. The reference case always runs. */
    if (!(method == MCT_METHOD_FIXED && dtype == MCT_DTYPE_F64)) {
        const int64_t most = particles / 64 > 0 ? particles / 64 : 1;
        for (int64_t probe = most < 65536 ? most : 65536;; probe = probe * 8 < most ? probe * 8 : most) {
            double m = 0.0, total = 0.0;
            out->status = time_rep(tally, a, probe, chunk < probe ? chunk : probe, grid, block, &m, &total, &running,
                                   sums);
            out->projected_s = m * 1e-3 * (double)particles / (double)probe;
            if (!out->status && out->projected_s > args->max_case_seconds && (m >= 20.0 || probe == most)) {
                out->skipped = 1;
                mct_tally_destroy(tally);
                return;
            }
            if (out->status || probe == most) break;
        }
    }
    for (int r = 0; r < args->warmup + args->reps && !out->status; ++r) {
        double m = 0.0, total = 0.0;
        out->status = time_rep(tally, a, particles, chunk, grid, block, &m, &total, &running, sums);
        if (r == 0) out->first_total = total;
        out->total = total;
        /* A long case: its warm-up is its only measurement. */
        if (r == 0 && m > 1e3 * args->case_seconds) {
            ms.push_back(m);
            break;
        }
        if (r >= args->warmup) ms.push_back(m);
    }
    mct_tally_destroy(tally);
    if (out->status || ms.empty()) return;
    out->reps_done = (int)ms.size();
    out->median_ms = mct_bench_median(ms);
    out->min_ms = *std::min_element(ms.begin(), ms.end());
    out->max_ms = *std::max_element(ms.begin(), ms.end());
}

/* The floor: the same deposits, summed in a register and written only under a
 * condition the compiler cannot decide, so nothing is optimized away. */
struct bench_discard_sink {
    double sum;
    __device__ __forceinline__ void add(uint32_t bin, double v) { sum += v * (double)(bin + 1u); }
};

static __global__ void mct_tally_only_floor_kernel(sim_tally_only_args_t a, double* out) {
    bench_discard_sink s = {0.0};
    sim_tally_only_deposits<double>(s, a);
    if (s.sum == -1.0) out[0] = s.sum;
}

static double time_floor(int64_t particles, mct_tally_only_launch_t launch, int sms, const bench_args_t* args) {
    double* out;
    BENCH_CHECK(cudaMalloc((void**)&out, sizeof(double)));
    const sim_tally_only_args_t a = {TALLY_ONLY_SEED, 0, particles, TALLY_ONLY_COLLISIONS, TALLY_ONLY_BINS,
                                      TALLY_ONLY_MEAN};
    const int block = sim_tally_only_block(launch);
    const int64_t grid = sim_tally_only_grid(launch, particles, sms);
    cudaEvent_t t0, t1;
    cudaEventCreate(&t0), cudaEventCreate(&t1);
    std::vector<double> ms;
    for (int r = 0; r < args->warmup + args->reps; ++r) {
        cudaEventRecord(t0);
        mct_tally_only_floor_kernel<<<(unsigned)grid, block>>>(a, out);
        cudaEventRecord(t1);
        BENCH_CHECK(cudaEventSynchronize(t1));
        BENCH_CHECK(cudaGetLastError());
        float m;
        cudaEventElapsedTime(&m, t0, t1);
        if (r >= args->warmup) ms.push_back(m);
    }
    cudaEventDestroy(t0), cudaEventDestroy(t1);
    cudaFree(out);
    return mct_bench_median(ms);
}

/* The cases: every method serving f64 on the GPU, then f32 atomic and kahan.
 * f64 fixed comes first: it is the reference of the others. */
static std::vector<std::pair<mct_method_t, mct_dtype_t> > case_list(void) {
    std::vector<std::pair<mct_method_t, mct_dtype_t> > v;
    v.push_back({MCT_METHOD_FIXED, MCT_DTYPE_F64});
    for (int m = 0; m < MCT_METHOD_COUNT; ++m)
        if (m != MCT_METHOD_FIXED && mct_method_supports((mct_method_t)m, MCT_DTYPE_F64, MCT_BACKEND_CUDA) == MCT_STATUS_SUCCESS)
            v.push_back({(mct_method_t)m, MCT_DTYPE_F64});
    v.push_back({MCT_METHOD_ATOMIC, MCT_DTYPE_F32});
    v.push_back({MCT_METHOD_KAHAN, MCT_DTYPE_F32});
    return v;
}

/* Error bound of a case's total against the reference: the bin bound summed
 * over the bins (linear in the sum, increasing in the count), the 8-term sum
 * of the bins, the running sums' differences over the repetitions, and the
 * reference's own quantization (2^-33 per deposit at 32 fraction bits). */
static double total_bound(mct_method_t method, mct_dtype_t dtype, double deposits, double reference, int reps) {
    mct_tally_desc_t d;
    mct_tally_desc_init(&d);
    d.method = method, d.dtype = dtype;
    const double u = 0x1p-53;
    return mct_scatter_bin_bound(&d, (int64_t)deposits, reference, reps + 1) + (8.0 + 2.0 * reps) * u * reference +
           deposits * 0x1p-33;
}

typedef struct {
    int table;
    int64_t particles;
    double reference[2]; /* fixed f64 total per launch */
    double table2_ms[2][MCT_METHOD_COUNT][MCT_DTYPE_COUNT]; /* for Table III projections */
} suite_state_t;

static cJSON* case_json(int table, int64_t particles, mct_tally_only_launch_t launch, mct_method_t m, mct_dtype_t t) {
    cJSON* c = cJSON_CreateObject();
    cJSON_AddNumberToObject(c, "table", table);
    cJSON_AddNumberToObject(c, "particles", (double)particles);
    cJSON_AddStringToObject(c, "launch", launch == MCT_TALLY_ONLY_LAUNCH_FULL ? "full" : "paper");
    cJSON_AddStringToObject(c, "method", mct_method_name(m));
    cJSON_AddStringToObject(c, "dtype", mct_dtype_name(t));
    return c;
}

/* Whether two batch totals of the fixed tally agree. The tally's batches are
 * bitwise reproducible (checked across backends by the suite's
 * cross_backend_tally_only step), but a batch total here is read as the
 * difference of two running double sums over every batch so far, each bin
 * rounded once per batch: each within (batches + 8) u of the running total. */
static bool same_batch_total(double x, double y, const bench_args_t* a) {
    const double batches = (double)(a->warmup + a->reps + 1), u = 0x1p-53;
    return fabs(x - y) <= 2.0 * (batches + 8.0) * u * batches * fabs(y); /* both differences */
}

/* Runs and checks one case; returns 1 when it failed. */
static int run_case(suite_state_t* s, int l, mct_method_t m, mct_dtype_t t, int sms, const bench_args_t* a,
                    double t_start, cJSON* cases) {
    const mct_tally_only_launch_t launch = (mct_tally_only_launch_t)l;
    const double deposits = (double)s->particles * TALLY_ONLY_COLLISIONS;
    cJSON* c = case_json(s->table, s->particles, launch, m, t);
    cJSON_AddItemToArray(cases, c);
    const int reference_case = m == MCT_METHOD_FIXED && t == MCT_DTYPE_F64;
    if (s->table == 3 && !reference_case) { /* long: skip what would not finish in reason */
        /* Time scales with the particles: Table II's median projects Table III's. */
        const double t2 = s->table2_ms[l][m][t] * 1e-3 * (double)s->particles / (double)a->particles[0];
        const char* why = t2 > a->max_case_seconds ? "projected above --max-case-s"
                          : now_seconds() - t_start > a->budget_seconds ? "suite budget (--budget-s) spent" : NULL;
        if (why) {
            cJSON_AddStringToObject(c, "skipped", why);
            if (t2 > 0.0) cJSON_AddNumberToObject(c, "projected_s", t2);
            printf("  %-5s %-3s %-12s skipped (%s, projected %.1f s)\n", l ? "full" : "paper", mct_dtype_name(t),
                   mct_method_name(m), why, t2);
            return 0;
        }
    }
    case_result_t r;
    time_case(s->particles, m, t, launch, sms, a, &r);
    if (r.skipped) {
        cJSON_AddStringToObject(c, "skipped", "projected above --max-case-s (from a prefix of the particles)");
        cJSON_AddNumberToObject(c, "projected_s", r.projected_s);
        printf("  %-5s %-3s %-12s skipped (projected %.1f s from a prefix of the particles)\n", l ? "full" : "paper",
               mct_dtype_name(t), mct_method_name(m), r.projected_s);
        fflush(stdout);
        return 0;
    }
    if (r.status) {
        cJSON_AddStringToObject(c, "error", mct_status_name(r.status));
        fprintf(stderr, "mctally bench: tally_only %s %s failed: %s\n", mct_method_name(m), mct_dtype_name(t),
                mct_status_string(r.status));
        return 1;
    }
    if (s->table == 2) s->table2_ms[l][m][t] = r.median_ms;
    if (reference_case) s->reference[l] = r.total;
    const double ref = s->reference[l], bound = total_bound(m, t, deposits, ref, a->warmup + a->reps);
    const double expected = deposits * (double)TALLY_ONLY_MEAN, se = (double)TALLY_ONLY_MEAN * sqrt(deposits);
    int ok = fabs(r.total - ref) <= bound;
    if (reference_case) /* statistics, reproducibility, and the same bits for both launches */
        ok = fabs(r.total - expected) < 5.0 * se && same_batch_total(r.total, r.first_total, a) &&
             (l == 0 || same_batch_total(ref, s->reference[0], a));
    cJSON_AddNumberToObject(c, "median_ms", r.median_ms);
    cJSON_AddNumberToObject(c, "min_ms", r.min_ms);
    cJSON_AddNumberToObject(c, "max_ms", r.max_ms);
    cJSON_AddNumberToObject(c, "reps_done", r.reps_done);
    cJSON_AddNumberToObject(c, "updates_per_second", deposits / (r.median_ms * 1e-3));
    cJSON_AddNumberToObject(c, "total", r.total);
    cJSON_AddNumberToObject(c, "relative_error", (r.total - ref) / ref);
    cJSON_AddNumberToObject(c, "bound_rel", bound / ref);
    if (reference_case) cJSON_AddNumberToObject(c, "z_score", (r.total - expected) / se);
    cJSON_AddBoolToObject(c, "ok", ok);
    printf("  %-5s %-3s %-12s %10.3f ms  %9.3g updates/s  rel. err. %9.2e (bound %.1e)%s\n", l ? "full" : "paper",
           mct_dtype_name(t), mct_method_name(m), r.median_ms, deposits / (r.median_ms * 1e-3), (r.total - ref) / ref,
           bound / ref, ok ? "" : "  WRONG TOTAL");
    fflush(stdout); /* progress survives a killed run */
    return !ok;
}

static int run_table(int table, const bench_args_t* a, int sms, suite_state_t* s, double t_start, cJSON* cases,
                     cJSON* floors) {
    s->table = table;
    s->particles = a->particles[table - 2];
    const double deposits = (double)s->particles * TALLY_ONLY_COLLISIONS;
    int failures = 0;
    printf("Table %s: %lld particles, %.3g deposits\n", table == 2 ? "II" : "III", (long long)s->particles, deposits);
    for (int l = 0; l < 2; ++l) {
        const double floor_ms = time_floor(s->particles, (mct_tally_only_launch_t)l, sms, a);
        cJSON* f = cJSON_CreateObject();
        cJSON_AddNumberToObject(f, "table", table);
        cJSON_AddStringToObject(f, "launch", l ? "full" : "paper");
        cJSON_AddNumberToObject(f, "median_ms", floor_ms);
        cJSON_AddNumberToObject(f, "updates_per_second", deposits / (floor_ms * 1e-3));
        cJSON_AddItemToArray(floors, f);
        printf("  %-5s floor (random numbers only) %.3f ms, %.3g updates/s\n", l ? "full" : "paper", floor_ms,
               deposits / (floor_ms * 1e-3));
        for (const auto& mt : case_list()) failures += run_case(s, l, mt.first, mt.second, sms, a, t_start, cases);
    }
    return failures;
}

static int parse_args(int argc, char** argv, bench_args_t* a) {
    a->particles[0] = 10000000;
    a->particles[1] = 3000000000LL;
    a->tables = 3;
    a->reps = 5;
    a->warmup = 1;
    a->case_seconds = 3.0;
    a->max_case_seconds = 30.0;
    a->budget_seconds = 300.0;
    a->out = "bench_tally_only.json";
    a->deposit = MCT_SIM_DEPOSIT_AUTO;
    double scale = 1.0;
    for (int i = 0; i < argc; ++i) {
        if (!strcmp(argv[i], "--help")) {
            puts("usage: mctally bench tally_only [--tables 2,3] [--scale F] [--reps R] [--case-s S] [--max-case-s S]\n"
                 "                                [--budget-s S] [--deposit auto|direct|buffered] [--out FILE.json]");
            exit(0);
        }
        if (i + 1 >= argc) return fprintf(stderr, "mctally: bench tally_only: %s needs a value\n", argv[i]), 1;
        const char* v = argv[++i];
        if (!strcmp(argv[i - 1], "--tables")) a->tables = (strchr(v, '2') ? 1 : 0) | (strchr(v, '3') ? 2 : 0);
        else if (!strcmp(argv[i - 1], "--scale")) MCT_CLI_FLAG_F64(scale, "bench tally_only --scale", v, 0.0);
        else if (!strcmp(argv[i - 1], "--reps")) MCT_CLI_FLAG_INT(a->reps, "bench tally_only --reps", v, 1, 1000);
        else if (!strcmp(argv[i - 1], "--case-s")) MCT_CLI_FLAG_F64(a->case_seconds, "bench tally_only --case-s", v, 0.0);
        else if (!strcmp(argv[i - 1], "--max-case-s")) MCT_CLI_FLAG_F64(a->max_case_seconds, "bench tally_only --max-case-s", v, 0.0);
        else if (!strcmp(argv[i - 1], "--budget-s")) MCT_CLI_FLAG_F64(a->budget_seconds, "bench tally_only --budget-s", v, 0.0);
        else if (!strcmp(argv[i - 1], "--out")) a->out = v;
        else if (!strcmp(argv[i - 1], "--deposit")) {
            if (!strcmp(v, "auto")) a->deposit = MCT_SIM_DEPOSIT_AUTO;
            else if (!strcmp(v, "direct")) a->deposit = MCT_SIM_DEPOSIT_DIRECT;
            else if (!strcmp(v, "buffered")) a->deposit = MCT_SIM_DEPOSIT_BUFFERED;
            else return fprintf(stderr, "mctally: bench tally_only: --deposit must be auto, direct or buffered\n"), 1;
        }
        else return fprintf(stderr, "mctally: bench tally_only: unknown option '%s'\n", argv[i - 1]), 1;
    }
    if (!(scale > 0.0 && scale <= 1.0) || a->reps < 5 || a->tables == 0 || !(a->case_seconds > 0.0))
        return fprintf(stderr, "mctally: bench tally_only: need 0 < scale <= 1, reps >= 5, --tables with 2 and/or 3\n"),
               1;
    for (int t = 0; t < 2; ++t) a->particles[t] = (int64_t)fmax(1.0, floor((double)a->particles[t] * scale));
    return 0;
}

extern "C" int mct_bench_tally_only(int argc, char** argv) {
    bench_args_t a;
    if (parse_args(argc, argv, &a)) return 1;
    cudaDeviceProp prop;
    cJSON* root = mct_bench_root("tally_only", &prop);
    const int sms = prop.multiProcessorCount;
    cJSON_AddNumberToObject(root, "collisions", TALLY_ONLY_COLLISIONS);
    cJSON_AddNumberToObject(root, "bins", TALLY_ONLY_BINS);
    cJSON_AddNumberToObject(root, "mean_energy_MeV", (double)TALLY_ONLY_MEAN);
    cJSON_AddNumberToObject(root, "reps", a.reps);
    cJSON_AddStringToObject(root, "deposit", sim_deposit_name(a.deposit));
    cJSON_AddNumberToObject(root, "paper_blocks", MCT_TALLY_ONLY_PAPER_BLOCKS);
    cJSON_AddNumberToObject(root, "paper_threads", MCT_TALLY_ONLY_PAPER_THREADS);
    cJSON_AddNumberToObject(root, "full_blocks", (double)sim_tally_only_grid(MCT_TALLY_ONLY_LAUNCH_FULL, INT64_MAX / 2, sms));
    cJSON_AddNumberToObject(root, "full_threads", sim_tally_only_block(MCT_TALLY_ONLY_LAUNCH_FULL));
    cJSON* cases = cJSON_AddArrayToObject(root, "cases");
    cJSON* floors = cJSON_AddArrayToObject(root, "floors");
    suite_state_t s;
    memset(&s, 0, sizeof s);
    const double t_start = now_seconds();
    int failures = 0;
    for (int table = 2; table <= 3; ++table)
        if (a.tables & (1 << (table - 2))) failures += run_table(table, &a, sms, &s, t_start, cases, floors);
    cJSON_AddNumberToObject(root, "suite_seconds", now_seconds() - t_start);
    return mct_bench_finish(root, a.out, failures);
}
