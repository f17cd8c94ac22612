/* SPDX-License-Identifier: BSD-3-Clause */
/** @file bench_escape.cu  `mctally bench escape`: Bossler 2018's Table V on this
 * GPU. Every method x type x scenario, paper launch (one history per thread,
 * 128 threads per block) and a full-GPU launch; only the tally (the tally
 * kernel, plus the replica reduction for `replicated`) is timed, with CUDA
 * events, median of the repetitions. CUB DeviceReduce counts the same flags as
 * the exact reference and as a peer. The floor is one read of the flags at the
 * measured device copy bandwidth. */
#include <cjson/cJSON.h>
#include <cub/device/device_reduce.cuh>
#include <algorithm>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <vector>

#include "../common/bench_common.cuh"
#include "cli_flags.h"
#include "escape_kernels.cuh"

typedef struct {
    int64_t histories;
    int reps, warmup;
    const char* out;
} bench_args_t;

/* Exact count of escapes by CUB, timed as a peer. */
static int64_t cub_count(const int32_t* events, int64_t n, const bench_args_t* a, double* ms_out) {
    int* d_out;
    void* temp = NULL;
    size_t temp_bytes = 0;
    BENCH_CHECK(cudaMalloc(&d_out, sizeof(int)));
    BENCH_CHECK(cub::DeviceReduce::Sum(temp, temp_bytes, events, d_out, n));
    BENCH_CHECK(cudaMalloc(&temp, temp_bytes));
    cudaEvent_t t0, t1;
    cudaEventCreate(&t0), cudaEventCreate(&t1);
    std::vector<double> ms;
    for (int r = 0; r < a->warmup + a->reps; ++r) {
        cudaEventRecord(t0);
        BENCH_CHECK(cub::DeviceReduce::Sum(temp, temp_bytes, events, d_out, n));
        cudaEventRecord(t1);
        cudaEventSynchronize(t1);
        float m;
        cudaEventElapsedTime(&m, t0, t1);
        if (r >= a->warmup) ms.push_back(m);
    }
    int count = 0;
    BENCH_CHECK(cudaMemcpy(&count, d_out, sizeof count, cudaMemcpyDeviceToHost));
    cudaFree(temp), cudaFree(d_out);
    cudaEventDestroy(t0), cudaEventDestroy(t1);
    *ms_out = mct_bench_median(ms);
    return count;
}

static double read_bin(const void* bins, mct_dtype_t dtype) {
    union { int32_t i; uint64_t u; float f; double d; } v;
    BENCH_CHECK(cudaMemcpy(&v, bins, mct_dtype_size(dtype), cudaMemcpyDeviceToHost));
    switch (dtype) {
    case MCT_DTYPE_I32: return v.i;
    case MCT_DTYPE_U64: return (double)v.u;
    case MCT_DTYPE_F32: return v.f;
    default: return v.d;
    }
}

typedef struct {
    double median_ms, min_ms, max_ms, value;
} case_result_t;

/* Times one method x type x launch on flags already in device memory. */
static int time_case(const int32_t* events, int64_t n, mct_method_t method, mct_dtype_t dtype,
                     mct_escape_launch_t launch, int sms, const bench_args_t* a, case_result_t* out) {
    mct_tally_desc_t d;
    mct_tally_desc_init(&d);
    d.method = method, d.dtype = dtype, d.backend = MCT_BACKEND_CUDA;
    mct_tally_t tally;
    if (mct_tally_create(&tally, &d)) return 1;
    const int block = 128;
    const int64_t grid = sim_escape_tally_grid(launch, n, block, sms);
    if (method == MCT_METHOD_REPLICATED && mct_tally_reserve_replicas(tally, grid * block)) {
        mct_tally_destroy(tally);
        return 1;
    }
    mct_tally_view_t view;
    mct_tally_view(tally, &view);
    cudaEvent_t t0, t1;
    cudaEventCreate(&t0), cudaEventCreate(&t1);
    std::vector<double> ms;
    int rc = 0;
    for (int r = 0; r < a->warmup + a->reps && !rc; ++r) {
        BENCH_CHECK(cudaMemset(view.bins, 0, mct_dtype_size(dtype)));
        BENCH_CHECK(cudaDeviceSynchronize());
        cudaEventRecord(t0);
        sim_escape_tally_launch(events, n, view, grid, block, 0);
        if (method == MCT_METHOD_REPLICATED)
            rc = mct_tally_flush(tally) != MCT_STATUS_SUCCESS;
        cudaEventRecord(t1);
        BENCH_CHECK(cudaEventSynchronize(t1));
        BENCH_CHECK(cudaGetLastError());
        float m;
        cudaEventElapsedTime(&m, t0, t1);
        if (r >= a->warmup) ms.push_back(m);
        out->value = read_bin(view.bins, dtype);
    }
    cudaEventDestroy(t0), cudaEventDestroy(t1);
    mct_tally_destroy(tally);
    if (rc) return rc;
    out->median_ms = mct_bench_median(ms);
    out->min_ms = *std::min_element(ms.begin(), ms.end());
    out->max_ms = *std::max_element(ms.begin(), ms.end());
    return 0;
}

static int parse_args(int argc, char** argv, bench_args_t* a) {
    a->histories = 100000000;
    a->reps = 7;
    a->warmup = 2;
    a->out = "bench_escape.json";
    for (int i = 0; i < argc; ++i) {
        if (!strcmp(argv[i], "--help")) {
            puts("usage: mctally bench escape [--histories N] [--reps R] [--out FILE.json]");
            exit(0);
        }
        if (i + 1 >= argc) return fprintf(stderr, "mctally: bench escape: %s needs a value\n", argv[i]), 1;
        if (!strcmp(argv[i], "--histories")) MCT_CLI_FLAG_INT(a->histories, "bench escape --histories", argv[++i], 1, INT32_MAX);
        else if (!strcmp(argv[i], "--reps")) MCT_CLI_FLAG_INT(a->reps, "bench escape --reps", argv[++i], 5, 1000);
        else if (!strcmp(argv[i], "--out")) a->out = argv[++i];
        else return fprintf(stderr, "mctally: bench escape: unknown option '%s'\n", argv[i]), 1;
    }
    if (a->histories < 1 || a->histories > INT32_MAX || a->reps < 5)
        return fprintf(stderr, "mctally: bench escape: need 1 <= histories < 2^31 and reps >= 5\n"), 1;
    return 0;
}

extern "C" int mct_bench_escape(int argc, char** argv) {
    bench_args_t a;
    if (parse_args(argc, argv, &a)) return 1;
    cudaDeviceProp prop;
    cJSON* root = mct_bench_root("escape", &prop);
    const int sms = prop.multiProcessorCount;
    const int64_t n = a.histories;
    const double bw = mct_bench_copy_bandwidth(a.reps, a.warmup);
    cJSON_AddNumberToObject(root, "histories", (double)n);
    cJSON_AddNumberToObject(root, "reps", a.reps);
    cJSON_AddNumberToObject(root, "copy_bandwidth_GBps", bw * 1e-9);
    const double floor_ms = (double)n * sizeof(int32_t) / bw * 1e3;
    cJSON_AddNumberToObject(root, "floor_ms", floor_ms);

    mct_escape_photon_t* photons;
    int32_t* events;
    BENCH_CHECK(cudaMalloc((void**)&photons, (size_t)n * sizeof *photons));
    BENCH_CHECK(cudaMalloc((void**)&events, (size_t)n * sizeof *events));
    const double thickness[3] = {0.0, 100.0, 10000.0};
    const mct_escape_launch_t launches[2] = {MCT_ESCAPE_LAUNCH_PAPER, MCT_ESCAPE_LAUNCH_FULL};
    cJSON* cases = cJSON_AddArrayToObject(root, "cases");
    int failures = 0;
    printf("copy bandwidth %.0f GB/s, floor %.4f ms for %lld flags\n", bw * 1e-9, floor_ms, (long long)n);
    for (int s = 0; s < 3; ++s) {
        const double p_escape = exp(-MCT_ESCAPE_SIGMA_HELIUM * thickness[s]);
        const unsigned grid = (unsigned)sim_escape_tally_grid(MCT_ESCAPE_LAUNCH_FULL, n, 256, sms);
        mct_escape_source_kernel<<<grid, 256>>>(photons, n, 0);
        mct_escape_transport_kernel<<<grid, 256>>>(photons, events, n, 12345u, p_escape);
        BENCH_CHECK(cudaDeviceSynchronize());
        double cub_ms = 0;
        const int64_t exact = cub_count(events, n, &a, &cub_ms);
        printf("scenario %d (x = %g m): %lld escapes; CUB DeviceReduce %.4f ms\n", s + 1, thickness[s],
               (long long)exact, cub_ms);
        cJSON* peer = cJSON_CreateObject();
        cJSON_AddNumberToObject(peer, "scenario", s + 1);
        cJSON_AddStringToObject(peer, "peer", "cub_device_reduce_i32");
        cJSON_AddNumberToObject(peer, "median_ms", cub_ms);
        cJSON_AddNumberToObject(peer, "escapes", (double)exact);
        cJSON_AddItemToArray(cases, peer);
        for (int l = 0; l < 2; ++l)
            for (int d = 0; d < MCT_DTYPE_COUNT; ++d)
                for (int m = 0; m <= MCT_METHOD_REPLICATED; ++m) { /* Bossler's five */
                    case_result_t r;
                    if (time_case(events, n, (mct_method_t)m, (mct_dtype_t)d, launches[l], sms, &a, &r)) {
                        fprintf(stderr, "mctally bench: case %s %s failed\n", mct_method_name((mct_method_t)m),
                                mct_dtype_name((mct_dtype_t)d));
                        ++failures;
                        continue;
                    }
                    /* Integer and f64 counts must be exact; f32 may round past 2^24 and is reported. */
                    const int exact_type = d != MCT_DTYPE_F32;
                    const int ok = !exact_type || r.value == (double)exact;
                    failures += !ok;
                    cJSON* c = cJSON_CreateObject();
                    cJSON_AddNumberToObject(c, "scenario", s + 1);
                    cJSON_AddNumberToObject(c, "thickness_m", thickness[s]);
                    cJSON_AddStringToObject(c, "launch", l ? "full" : "paper");
                    cJSON_AddStringToObject(c, "method", mct_method_name((mct_method_t)m));
                    cJSON_AddStringToObject(c, "dtype", mct_dtype_name((mct_dtype_t)d));
                    cJSON_AddNumberToObject(c, "median_ms", r.median_ms);
                    cJSON_AddNumberToObject(c, "min_ms", r.min_ms);
                    cJSON_AddNumberToObject(c, "max_ms", r.max_ms);
                    cJSON_AddNumberToObject(c, "over_floor", r.median_ms / floor_ms);
                    cJSON_AddNumberToObject(c, "count", r.value);
                    cJSON_AddNumberToObject(c, "relative_error", exact ? (r.value - (double)exact) / (double)exact : r.value);
                    cJSON_AddBoolToObject(c, "exact", r.value == (double)exact);
                    cJSON_AddItemToArray(cases, c);
                    printf("  %-5s %-3s %-12s %9.4f ms (%6.2fx floor)%s\n", l ? "full" : "paper",
                           mct_dtype_name((mct_dtype_t)d), mct_method_name((mct_method_t)m), r.median_ms,
                           r.median_ms / floor_ms, ok ? (r.value == (double)exact ? "" : "  (f32 rounded)") : "  WRONG COUNT");
                }
    }
    cudaFree(photons), cudaFree(events);
    return mct_bench_finish(root, a.out, failures);
}
