/* SPDX-License-Identifier: BSD-3-Clause */
/** @file bench_common.cuh  What every GPU benchmark of mctally shares: the error
 * check, the median, the copy-bandwidth floor, the JSON header (device, date,
 * commit) and writing the JSON file. */
#ifndef MCT_BENCH_COMMON_CUH
#define MCT_BENCH_COMMON_CUH

#include <cjson/cJSON.h>
#include <algorithm>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <vector>

#include "bench_stamp.h"

#define BENCH_CHECK(call)                                                                     \
    do {                                                                                      \
        cudaError_t e_ = (call);                                                              \
        if (e_ != cudaSuccess) {                                                              \
            fprintf(stderr, "mctally bench: %s failed: %s\n", #call, cudaGetErrorString(e_)); \
            exit(1);                                                                          \
        }                                                                                     \
    } while (0)

static inline double mct_bench_median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    const size_t n = v.size();
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* Device-to-device copy of 1 GiB, bytes read plus written per second: the
 * memory floor the benchmarks report against. Median of reps after warmup. */
static inline double mct_bench_copy_bandwidth(int reps, int warmup) {
    const size_t bytes = (size_t)1 << 30;
    void *src, *dst;
    BENCH_CHECK(cudaMalloc(&src, bytes));
    BENCH_CHECK(cudaMalloc(&dst, bytes));
    BENCH_CHECK(cudaMemset(src, 1, bytes));
    cudaEvent_t t0, t1;
    cudaEventCreate(&t0), cudaEventCreate(&t1);
    std::vector<double> ms;
    for (int r = 0; r < warmup + reps; ++r) {
        cudaEventRecord(t0);
        BENCH_CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice));
        cudaEventRecord(t1);
        BENCH_CHECK(cudaEventSynchronize(t1));
        float m;
        cudaEventElapsedTime(&m, t0, t1);
        if (r >= warmup) ms.push_back(m);
    }
    cudaFree(src), cudaFree(dst);
    cudaEventDestroy(t0), cudaEventDestroy(t1);
    return 2.0 * (double)bytes / (mct_bench_median(ms) * 1e-3);
}

/* The root object of a suite's JSON: suite, device (name, SMs, compute
 * capability, CUDA driver and runtime versions), UTC date, commit ($MCT_COMMIT). */
static inline cJSON* mct_bench_root(const char* suite, cudaDeviceProp* prop) {
    int driver = 0, runtime = 0;
    BENCH_CHECK(cudaGetDeviceProperties(prop, 0));
    cudaDriverGetVersion(&driver);
    cudaRuntimeGetVersion(&runtime);
    cJSON* root = cJSON_CreateObject();
    cJSON_AddStringToObject(root, "suite", suite);
    cJSON* dev = cJSON_AddObjectToObject(root, "device");
    cJSON_AddStringToObject(dev, "name", prop->name);
    cJSON_AddNumberToObject(dev, "sms", prop->multiProcessorCount);
    cJSON_AddNumberToObject(dev, "cc", prop->major * 10 + prop->minor);
    cJSON_AddNumberToObject(dev, "cuda_driver", driver);
    cJSON_AddNumberToObject(dev, "cuda_runtime", runtime);
    mct_bench_stamp(root);
    return root;
}

/* Adds the failure count, writes `root` to `path` and frees it. Returns the
 * exit status: 1 when the file cannot be written or any case failed. */
static inline int mct_bench_finish(cJSON* root, const char* path, int failures) {
    cJSON_AddNumberToObject(root, "failures", failures);
    char* text = cJSON_Print(root);
    cJSON_Delete(root);
    FILE* f = fopen(path, "w");
    int ok = text && f && fputs(text, f) >= 0;
    if (f && fclose(f) != 0) ok = 0;
    free(text);
    if (!ok) {
        fprintf(stderr, "mctally: cannot write %s\n", path);
        return 1;
    }
    printf("wrote %s (%d failures)\n", path, failures);
    return failures ? 1 : 0;
}

#endif /* MCT_BENCH_COMMON_CUH */
