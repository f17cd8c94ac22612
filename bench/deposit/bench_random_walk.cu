/* SPDX-License-Identifier: BSD-3-Clause */
/** @file bench_random_walk.cu  The random-walk user kernel
 * (deposit_random_walk.cuh) on the GPU: walkers into 1e5 bins, every method,
 * direct (mct_add), buffered (mct_deposit_buffer) and the discarding launch
 * (the walk alone), median of --reps timed launches after a warm-up, written
 * as JSON (bench/deposit/table.py turns it and bench phantom's into Markdown).
 *
 *     bench_random_walk [--walkers N] [--bins B] [--reps R] [--out FILE.json] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <algorithm>
#include <vector>

#include "deposit_random_walk.cuh"
#include "mctally/mct.h"

#define CHECK(x)                                                                                  \
    do {                                                                                          \
        const cudaError_t e_ = (x);                                                               \
        if (e_ != cudaSuccess) {                                                                  \
            fprintf(stderr, "bench_random_walk: %s: %s\n", #x, cudaGetErrorString(e_));           \
            exit(1);                                                                              \
        }                                                                                         \
    } while (0)

/** Seconds of one launch of form F (median of reps) into a tally of method m. */
template <typename T, int F>
static double time_form(mct_tally_t tally, uint64_t walkers, int grid, int block, int reps) {
    mct_tally_view_t view;
    if (mct_tally_view(tally, &view)) return -1.0;
    unsigned long long* steps;
    CHECK(cudaMalloc((void**)&steps, sizeof *steps));
    cudaEvent_t a, b;
    CHECK(cudaEventCreate(&a));
    CHECK(cudaEventCreate(&b));
    std::vector<double> t;
    for (int r = 0; r <= reps; ++r) { /* r == 0: the warm-up */
        CHECK(cudaEventRecord(a));
        rw_kernel<T, MCT_METHOD_FROM_VIEW, F><<<grid, block, rw_smem<T>(view, F, block)>>>(view, walkers, 2024, steps);
        CHECK(cudaGetLastError());
        CHECK(cudaEventRecord(b));
        CHECK(cudaEventSynchronize(b));
        float ms = 0;
        CHECK(cudaEventElapsedTime(&ms, a, b));
        if (r) t.push_back(ms * 1e-3);
        if (view.method == MCT_METHOD_SORT_REDUCE || F != RW_DISCARD) mct_tally_end_batch(tally, (int64_t)walkers);
        mct_tally_view(tally, &view);
    }
    cudaFree(steps);
    cudaEventDestroy(a);
    cudaEventDestroy(b);
    std::sort(t.begin(), t.end());
    return t[t.size() / 2];
}

int main(int argc, char** argv) {
    uint64_t walkers = 1u << 22;
    int64_t bins = 100000;
    int reps = 5;
    const char* out = NULL;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--walkers")) walkers = strtoull(argv[i + 1], NULL, 10);
        else if (!strcmp(argv[i], "--bins")) bins = strtoll(argv[i + 1], NULL, 10);
        else if (!strcmp(argv[i], "--reps")) reps = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--out")) out = argv[i + 1];
        else return fprintf(stderr, "bench_random_walk: unknown option '%s'\n", argv[i]), 1;
    }
    if (walkers < 1 || bins < 1 || bins > 2147483647 || reps < 1)
        return fprintf(stderr, "bench_random_walk: --walkers, --bins and --reps must be >= 1\n"), 1;
    int sms = 1;
    CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    const int block = 128, grid = sms * 8;
    FILE* f = out ? fopen(out, "w") : stdout;
    if (!f) return fprintf(stderr, "bench_random_walk: cannot write '%s'\n", out), 1;
    cudaDeviceProp prop;
    CHECK(cudaGetDeviceProperties(&prop, 0));
    char date[32];
    const time_t now = time(NULL);
    strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
    const char* commit = getenv("MCT_COMMIT");
    fprintf(f, "{\"suite\": \"deposit_random_walk\", \"device\": \"%s\", \"date\": \"%s\", \"commit\": \"%s\", "
               "\"walkers\": %llu, \"bins\": %lld, \"grid\": %d, \"block\": %d, \"reps\": %d, \"cases\": [\n",
            prop.name, date, commit ? commit : "unknown", (unsigned long long)walkers, (long long)bins, grid, block, reps);
    int first = 1;
    for (int m = 0; m < MCT_METHOD_COUNT; ++m) {
        const mct_dtype_t dt = (m == MCT_METHOD_KAHAN || m == MCT_METHOD_KAHAN_NAIVE) ? MCT_DTYPE_F32 : MCT_DTYPE_F64;
        mct_tally_desc_t d;
        mct_tally_desc_init(&d);
        d.backend = MCT_BACKEND_CUDA, d.bins = bins, d.dtype = dt, d.method = (mct_method_t)m;
        if (m == MCT_METHOD_SORT_REDUCE) d.pair_capacity = (int64_t)walkers * 40;
        mct_tally_t t;
        if (mct_tally_create(&t, &d) != MCT_STATUS_SUCCESS) continue;
        if (m == MCT_METHOD_REPLICATED) mct_tally_reserve_replicas(t, (int64_t)grid * block);
        double s[3];
        for (int form = 0; form < 3; ++form)
            s[form] = dt == MCT_DTYPE_F32 ? (form == 0   ? time_form<float, RW_DIRECT>(t, walkers, grid, block, reps)
                                             : form == 1 ? time_form<float, RW_BUFFERED>(t, walkers, grid, block, reps)
                                                         : time_form<float, RW_DISCARD>(t, walkers, grid, block, reps))
                                          : (form == 0   ? time_form<double, RW_DIRECT>(t, walkers, grid, block, reps)
                                             : form == 1 ? time_form<double, RW_BUFFERED>(t, walkers, grid, block, reps)
                                                         : time_form<double, RW_DISCARD>(t, walkers, grid, block, reps));
        fprintf(f, "%s  {\"method\": \"%s\", \"dtype\": \"%s\", \"direct_seconds\": %.6g, \"buffered_seconds\": %.6g, "
                   "\"discard_seconds\": %.6g}",
                first ? "" : ",\n", mct_method_name((mct_method_t)m), mct_dtype_name(dt), s[0], s[1], s[2]);
        first = 0;
        mct_tally_destroy(t);
    }
    fprintf(f, "\n]}\n");
    if (out && fclose(f) != 0) return fprintf(stderr, "bench_random_walk: cannot write '%s'\n", out), 1;
    return 0;
}
