/* SPDX-License-Identifier: BSD-3-Clause */
/** @file bench_scan.cu  `mctally bench scan`: the device-wide prefix scan (decoupled
 * look-back and the seed's chained design) beside CUB DeviceScan::InclusiveSum and
 * ExclusiveSum in the same run, for 2^20 ... 2^30 elements of i32 and f64.
 *
 * Protocol: fresh non-zero inputs per size, outputs poisoned
 * before every run, CUDA events around the scan call only, warm-up runs then the
 * median of >= 5, every output checked against CUB's (integers exactly; f64 within
 * twice the derived float bound). GB/s counts the bytes read plus the bytes written
 * (2 n sizeof(T)); ratios are to CUB's figure for the same case and to the device's
 * copy bandwidth (cudaMemcpy device to device, also read plus written), the floor.
 * A tuning section sweeps look-back delays, tile shapes and tile-state layouts
 * (mctally/device/scan/scan_tuning.cuh) at 2^28 (i32) and 2^27 (f64), inclusive, with the default policy and
 * the reference layouts among them, so the default and a new GPU's best policy can be
 * read off one run. */
#include <cjson/cJSON.h>
#include <cub/device/device_scan.cuh>
#include <algorithm>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <vector>

#include "../common/bench_common.cuh"
#include "cli_flags.h"
#include "mctally/device/scan/scan_dispatch.cuh"
#include "mctally/device/thread/thread_operators.cuh"
#include "mctally/mct_scan.h"

typedef struct {
    int min_log2, max_log2, reps, warmup, tuning, chained;
    const char* out;
} bench_args_t;

typedef struct {
    double median_ms, min_ms, max_ms;
    long long mismatches;
} timing_t;

/* Non-zero inputs from a counter hash: i32 in [-1000, 1000] \ {0}, f64 in (0, 1]
 * (positive, so each prefix is its own sum of absolute values). */
static __device__ __forceinline__ uint64_t bench_hash(uint64_t x) {
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}
static __global__ void fill_i32(int32_t* p, int64_t n, uint64_t seed) {
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x) {
        const int v = (int)(bench_hash(seed ^ (uint64_t)i) % 2000u) - 1000;
        p[i] = v >= 0 ? v + 1 : v;
    }
}
static __global__ void fill_f64(double* p, int64_t n, uint64_t seed) {
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x)
        p[i] = ((double)(bench_hash(seed ^ (uint64_t)i) >> 11) + 1.0) * 0x1.0p-53;
}
static void fill(int32_t* p, int64_t n, uint64_t seed) { fill_i32<<<1024, 256>>>(p, n, seed); }
static void fill(double* p, int64_t n, uint64_t seed) { fill_f64<<<1024, 256>>>(p, n, seed); }

/* Counts elements of `got` differing from `ref` by more than rel_tol * |ref| (0 for
 * exact equality; a NaN left by the poison always counts). */
template <typename T>
static __global__ void count_mismatches(const T* got, const T* ref, int64_t n, double rel_tol,
                                        unsigned long long* bad) {
    unsigned long long local = 0;
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x) {
        const double g = (double)got[i], r = (double)ref[i];
        local += rel_tol == 0.0 ? (got[i] != ref[i]) : !(fabs(g - r) <= rel_tol * fabs(r));
    }
    if (local) atomicAdd(bad, local);
}

/* Relative tolerance between two scans of positive f64 values, each within
 * gamma_k of the exact prefix, k <= tiles + 64 (mct_scan.h); CUB's tiles are bigger
 * than 1024 items, so k = n / 1024 + 128 bounds both. 0 for integers. */
template <typename T>
static double tolerance(int64_t n) {
    if (T(0.5) == T(0)) return 0.0;
    const double k = (double)n / 1024.0 + 128.0, u = 0x1.0p-53;
    return 2.0 * k * u / (1.0 - k * u);
}

/** Times `run` (one enqueue of the scan) reps times after warm-up, poisoning `out`
 * before each run, then checks the last output against `ref` (skipped when NULL). */
template <typename T, typename F>
static timing_t time_scan(F run, T* out, const T* ref, int64_t n, const bench_args_t* a) {
    cudaEvent_t t0, t1;
    BENCH_CHECK(cudaEventCreate(&t0));
    BENCH_CHECK(cudaEventCreate(&t1));
    std::vector<double> ms;
    for (int r = 0; r < a->warmup + a->reps; ++r) {
        BENCH_CHECK(cudaMemsetAsync(out, 0xff, (size_t)n * sizeof(T)));
        BENCH_CHECK(cudaEventRecord(t0));
        run();
        BENCH_CHECK(cudaEventRecord(t1));
        BENCH_CHECK(cudaEventSynchronize(t1));
        BENCH_CHECK(cudaGetLastError());
        float m = 0;
        BENCH_CHECK(cudaEventElapsedTime(&m, t0, t1));
        if (r >= a->warmup) ms.push_back(m);
    }
    cudaEventDestroy(t0), cudaEventDestroy(t1);
    timing_t t = {mct_bench_median(ms), *std::min_element(ms.begin(), ms.end()), *std::max_element(ms.begin(), ms.end()), 0};
    if (ref) {
        unsigned long long* bad;
        BENCH_CHECK(cudaMalloc((void**)&bad, sizeof *bad));
        BENCH_CHECK(cudaMemset(bad, 0, sizeof *bad));
        count_mismatches<T><<<1024, 256>>>(out, ref, n, tolerance<T>(n), bad);
        unsigned long long h = 0;
        BENCH_CHECK(cudaMemcpy(&h, bad, sizeof h, cudaMemcpyDeviceToHost));
        cudaFree(bad);
        t.mismatches = (long long)h;
    }
    return t;
}

static cJSON* case_json(const char* impl, const char* type, int64_t n, bool exclusive, size_t elem, const timing_t& t,
                        double cub_gbps, double copy_gbps) {
    const double gbps = 2.0 * (double)n * (double)elem / (t.median_ms * 1e-3) * 1e-9;
    cJSON* c = cJSON_CreateObject();
    cJSON_AddStringToObject(c, "impl", impl);
    cJSON_AddStringToObject(c, "type", type);
    cJSON_AddStringToObject(c, "kind", exclusive ? "exclusive" : "inclusive");
    cJSON_AddNumberToObject(c, "n", (double)n);
    cJSON_AddNumberToObject(c, "log2n", log2((double)n));
    cJSON_AddNumberToObject(c, "median_ms", t.median_ms);
    cJSON_AddNumberToObject(c, "min_ms", t.min_ms);
    cJSON_AddNumberToObject(c, "max_ms", t.max_ms);
    cJSON_AddNumberToObject(c, "GBps", gbps);
    cJSON_AddNumberToObject(c, "ratio_cub", cub_gbps > 0 ? gbps / cub_gbps : 1.0);
    cJSON_AddNumberToObject(c, "ratio_copy", gbps / (copy_gbps * 1e-9));
    cJSON_AddNumberToObject(c, "mismatches", (double)t.mismatches);
    cJSON_AddBoolToObject(c, "verified", t.mismatches == 0);
    printf("  %-5s 2^%-2d %-9s %-20s %9.4f ms %7.1f GB/s  %5.3fx CUB  %5.1f%% copy%s\n", type,
           (int)lround(log2((double)n)), exclusive ? "exclusive" : "inclusive", impl, t.median_ms, gbps,
           cub_gbps > 0 ? gbps / cub_gbps : 1.0, 100.0 * gbps / (copy_gbps * 1e-9),
           t.mismatches ? "  MISMATCH" : "");
    return c;
}

static mct_scan_type_t scan_type(int32_t*) { return MCT_SCAN_I32; }
static mct_scan_type_t scan_type(double*) { return MCT_SCAN_F64; }

/** CUB's time for one case; leaves its output in `ref`. */
template <typename T>
static timing_t run_cub(const T* in, T* ref, int64_t n, bool exclusive, const bench_args_t* a) {
    size_t bytes = 0;
    void* temp = NULL;
    if (exclusive)
        BENCH_CHECK(cub::DeviceScan::ExclusiveSum(temp, bytes, in, ref, n));
    else
        BENCH_CHECK(cub::DeviceScan::InclusiveSum(temp, bytes, in, ref, n));
    BENCH_CHECK(cudaMalloc(&temp, bytes));
    const timing_t t = time_scan(
        [&] {
            if (exclusive)
                BENCH_CHECK(cub::DeviceScan::ExclusiveSum(temp, bytes, in, ref, n));
            else
                BENCH_CHECK(cub::DeviceScan::InclusiveSum(temp, bytes, in, ref, n));
        },
        ref, (const T*)NULL, n, a);
    cudaFree(temp);
    return t;
}

/** mctally's scan through the C API. */
template <typename T>
static timing_t run_mct(const T* in, T* out, const T* ref, int64_t n, bool exclusive, mct_scan_algo_t algo,
                        const bench_args_t* a) {
    size_t bytes = 0;
    void* temp = NULL;
    const mct_scan_type_t type = scan_type((T*)NULL);
    auto call = [&] {
        const mct_status_t st =
            exclusive ? mct_scan_exclusive(MCT_BACKEND_CUDA, temp, &bytes, in, out, NULL, n, type, MCT_SCAN_SUM, algo, NULL)
                      : mct_scan_inclusive(MCT_BACKEND_CUDA, temp, &bytes, in, out, n, type, MCT_SCAN_SUM, algo, NULL);
        if (st) {
            fprintf(stderr, "mctally bench scan: %s\n", mct_status_string(st));
            exit(1);
        }
    };
    call(); /* size query */
    BENCH_CHECK(cudaMalloc(&temp, bytes));
    const timing_t t = time_scan(call, out, ref, n, a);
    cudaFree(temp);
    return t;
}

/** Short name of a policy's tile-state layout (scan_tuning.cuh), for the sweep's labels. */
static const char* state_name(int st) { return st == MCT_SCAN_STATE_SPLIT ? "split" : "packed"; }

/** One policy and delay setting of the tuning sweep, inclusive sum. `tag` marks the
 * default ("default") and the reference without the packed 16-byte state ("old default"). */
template <typename Policy, typename T>
static void tune_one(cJSON* arr, const T* in, T* out, const T* ref, int64_t n, mct_scan_delays_t d, double cub_gbps,
                     double copy_gbps, const bench_args_t* a, const char* tag = "") {
    size_t bytes = 0;
    void* temp = NULL;
    auto call = [&] {
        if (mct_dispatch_scan_variant<Policy, T, mct_op_sum<T>, false, MCT_SCAN_DECOUPLED_LOOKBACK>(
                temp, &bytes, in, out, n, T(0), mct_op_sum<T>(), d, 0)) {
            fprintf(stderr, "mctally bench scan: tuning launch failed\n");
            exit(1);
        }
    };
    call();
    BENCH_CHECK(cudaMalloc(&temp, bytes));
    const timing_t t = time_scan(call, out, ref, n, a);
    cudaFree(temp);
    char name[160];
    snprintf(name, sizeof name, "lookback %dx%d %s d%u/%u%s%s", Policy::threads, Policy::items,
             state_name(Policy::state), d.first_poll_ns, d.poll_ns, *tag ? " " : "", tag);
    cJSON* c = case_json(name, mct_scan_type_name(scan_type((T*)NULL)), n, false, sizeof(T), t, cub_gbps, copy_gbps);
    cJSON_AddNumberToObject(c, "threads", Policy::threads);
    cJSON_AddNumberToObject(c, "items", Policy::items);
    cJSON_AddStringToObject(c, "state", state_name(Policy::state));
    cJSON_AddStringToObject(c, "tag", tag);
    cJSON_AddNumberToObject(c, "first_poll_ns", d.first_poll_ns);
    cJSON_AddNumberToObject(c, "poll_ns", d.poll_ns);
    cJSON_AddItemToArray(arr, c);
}

/* Shorthands for the sweep's tile-state layouts. */
enum { PK = MCT_SCAN_STATE_PACKED, SP = MCT_SCAN_STATE_SPLIT };

/** The sweep: delays on the default policy, then shapes and layouts at the default
 * delays. The entry tagged "old default" (8-byte values) is the reference policy
 * without the packed 16-byte state (128x15 with the split state), so the two are
 * compared in one run. */
template <typename T>
static void tuning_sweep(cJSON* arr, const T* in, T* out, const T* ref, int64_t n, double cub_gbps, double copy_gbps,
                         const bench_args_t* a) {
    using dflt_policy = mct_scan_default_policy<sizeof(T)>;
    const mct_scan_delays_t dflt = mct_scan_default_delays();
    /* Delays on both sides of the default, so a GPU that wants shorter or longer
     * waits shows it. */
    const mct_scan_delays_t delays[] = {{1200, 350}, {1800, 500}, {2400, 700}, {3600, 1000}, {4800, 1400}};
    for (const mct_scan_delays_t& d : delays)
        tune_one<dflt_policy>(arr, in, out, ref, n, d, cub_gbps, copy_gbps, a,
                              d.first_poll_ns == dflt.first_poll_ns && d.poll_ns == dflt.poll_ns ? "default" : "");
    auto one = [&](auto policy, const char* tag = "") {
        tune_one<decltype(policy)>(arr, in, out, ref, n, dflt, cub_gbps, copy_gbps, a, tag);
    };
    if constexpr (sizeof(T) == 4) {
        one(mct_scan_policy<128, 23, PK>());
        one(mct_scan_policy<256, 31, PK>());
        one(mct_scan_policy<384, 23, PK>());
        one(mct_scan_policy<256, 15, PK>());
    } else {
        one(mct_scan_policy<128, 15, SP>(), "old default");
        one(mct_scan_policy<256, 15, SP>());
        one(mct_scan_policy<224, 23, SP>());
        one(mct_scan_policy<128, 15, PK>());
        one(mct_scan_policy<256, 15, PK>());
        one(mct_scan_policy<256, 23, PK>());
        one(mct_scan_policy<160, 23, PK>());
        one(mct_scan_policy<128, 23, PK>());
    }
}

template <typename T>
static int bench_type(cJSON* cases, cJSON* tuning, double copy_gbps, const bench_args_t* a) {
    const char* tname = mct_scan_type_name(scan_type((T*)NULL));
    const int64_t nmax = INT64_C(1) << a->max_log2;
    T *in, *out, *ref;
    BENCH_CHECK(cudaMalloc((void**)&in, (size_t)nmax * sizeof(T)));
    BENCH_CHECK(cudaMalloc((void**)&out, (size_t)nmax * sizeof(T)));
    BENCH_CHECK(cudaMalloc((void**)&ref, (size_t)nmax * sizeof(T)));
    int failures = 0;
    const int tune_log2 = sizeof(T) == 4 ? 28 : 27;
    for (int lg = a->min_log2; lg <= a->max_log2; ++lg) {
        const int64_t n = INT64_C(1) << lg;
        fill(in, n, 0x5ca7ull * (uint64_t)lg + sizeof(T));
        BENCH_CHECK(cudaDeviceSynchronize());
        for (int ex = 0; ex < 2; ++ex) {
            const timing_t cub = run_cub(in, ref, n, ex != 0, a);
            const double cub_gbps = 2.0 * (double)n * sizeof(T) / (cub.median_ms * 1e-3) * 1e-9;
            cJSON_AddItemToArray(cases, case_json("cub", tname, n, ex != 0, sizeof(T), cub, 0.0, copy_gbps));
            const timing_t lb = run_mct(in, out, ref, n, ex != 0, MCT_SCAN_DECOUPLED_LOOKBACK, a);
            cJSON_AddItemToArray(cases, case_json("mct_decoupled_lookback", tname, n, ex != 0, sizeof(T), lb, cub_gbps,
                                                  copy_gbps));
            failures += lb.mismatches != 0;
            if (a->chained) {
                const timing_t ch = run_mct(in, out, ref, n, ex != 0, MCT_SCAN_CHAINED, a);
                cJSON_AddItemToArray(cases, case_json("mct_chained", tname, n, ex != 0, sizeof(T), ch, cub_gbps,
                                                      copy_gbps));
                failures += ch.mismatches != 0;
            }
            if (a->tuning && lg == tune_log2 && !ex) {
                const int before = cJSON_GetArraySize(tuning);
                tuning_sweep(tuning, in, out, ref, n, cub_gbps, copy_gbps, a);
                for (int i = before; i < cJSON_GetArraySize(tuning); ++i)
                    failures += !cJSON_IsTrue(cJSON_GetObjectItem(cJSON_GetArrayItem(tuning, i), "verified"));
            }
        }
    }
    cudaFree(in), cudaFree(out), cudaFree(ref);
    return failures;
}

static int parse_args(int argc, char** argv, bench_args_t* a) {
    a->min_log2 = 20, a->max_log2 = 30, a->reps = 9, a->warmup = 2, a->tuning = 1, a->chained = 1;
    a->out = "bench_scan.json";
    for (int i = 0; i < argc; ++i) {
        if (!strcmp(argv[i], "--help")) {
            puts("usage: mctally bench scan [--min-log2 K (20)] [--max-log2 K (30)] [--reps R (9)]\n"
                 "                          [--no-tuning] [--no-chained] [--out FILE.json]");
            exit(0);
        }
        if (!strcmp(argv[i], "--no-tuning")) { a->tuning = 0; continue; }
        if (!strcmp(argv[i], "--no-chained")) { a->chained = 0; continue; }
        if (i + 1 >= argc) return fprintf(stderr, "mctally: bench scan: %s needs a value\n", argv[i]), 1;
        if (!strcmp(argv[i], "--min-log2")) MCT_CLI_FLAG_INT(a->min_log2, "bench scan --min-log2", argv[++i], 0, 34);
        else if (!strcmp(argv[i], "--max-log2")) MCT_CLI_FLAG_INT(a->max_log2, "bench scan --max-log2", argv[++i], 0, 34);
        else if (!strcmp(argv[i], "--reps")) MCT_CLI_FLAG_INT(a->reps, "bench scan --reps", argv[++i], 1, 1000);
        else if (!strcmp(argv[i], "--out")) a->out = argv[++i];
        else return fprintf(stderr, "mctally: bench scan: unknown option '%s'\n", argv[i]), 1;
    }
    if (a->min_log2 < 1 || a->max_log2 > 32 || a->min_log2 > a->max_log2 || a->reps < 5)
        return fprintf(stderr, "mctally: bench scan: need 1 <= min-log2 <= max-log2 <= 32 and reps >= 5\n"), 1;
    return 0;
}

extern "C" int mct_bench_scan(int argc, char** argv) {
    bench_args_t a;
    if (parse_args(argc, argv, &a)) return 1;
    cudaDeviceProp prop;
    cJSON* root = mct_bench_root("scan", &prop);
    cJSON_AddNumberToObject(cJSON_GetObjectItem(root, "device"), "cub_version", CUB_VERSION);
    cJSON_AddNumberToObject(root, "reps", a.reps);
    cJSON_AddNumberToObject(root, "warmup", a.warmup);
    const double copy_gbps = mct_bench_copy_bandwidth(a.reps, a.warmup);
    cJSON_AddNumberToObject(root, "copy_bandwidth_GBps", copy_gbps * 1e-9);
    cJSON* policy = cJSON_AddObjectToObject(root, "default_policy");
    cJSON_AddNumberToObject(policy, "threads_4b", mct_scan_default_policy<4>::threads);
    cJSON_AddNumberToObject(policy, "items_4b", mct_scan_default_policy<4>::items);
    cJSON_AddNumberToObject(policy, "threads_8b", mct_scan_default_policy<8>::threads);
    cJSON_AddNumberToObject(policy, "items_8b", mct_scan_default_policy<8>::items);
    cJSON_AddStringToObject(policy, "state", state_name(mct_scan_default_policy<4>::state));
    cJSON_AddNumberToObject(policy, "first_poll_ns", mct_scan_default_delays().first_poll_ns);
    cJSON_AddNumberToObject(policy, "poll_ns", mct_scan_default_delays().poll_ns);
    printf("%s: copy bandwidth %.0f GB/s (read + write)\n", prop.name, copy_gbps * 1e-9);
    cJSON* cases = cJSON_AddArrayToObject(root, "cases");
    cJSON* tuning = cJSON_AddArrayToObject(root, "tuning");
    int failures = bench_type<int32_t>(cases, tuning, copy_gbps, &a);
    failures += bench_type<double>(cases, tuning, copy_gbps, &a);
    return mct_bench_finish(root, a.out, failures);
}
