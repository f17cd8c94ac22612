/* SPDX-License-Identifier: BSD-3-Clause */
/** @file bench_stamp.h  What every benchmark JSON records about its run
 * besides the device: the UTC date and the commit measured ($MCT_COMMIT,
 * which the caller sets where the checkout's HEAD may lag the tree built).
 * C and C++ (the CUDA benchmarks include it through bench_common.cuh). */
#ifndef MCT_BENCH_STAMP_H
#define MCT_BENCH_STAMP_H

#include <cjson/cJSON.h>
#include <stdlib.h>
#include <time.h>

/** Adds "date" (ISO 8601, UTC) and "commit" ("unknown" when unset) to root. */
static inline void mct_bench_stamp(cJSON* root) {
    char date[32];
    const time_t now = time(NULL);
    strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
    cJSON_AddStringToObject(root, "date", date);
    const char* commit = getenv("MCT_COMMIT");
    cJSON_AddStringToObject(root, "commit", commit ? commit : "unknown");
}

#endif /* MCT_BENCH_STAMP_H */
