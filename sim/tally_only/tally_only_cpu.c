/* SPDX-License-Identifier: BSD-3-Clause */
/** @file tally_only_cpu.c  The tally-only problem on the CPU backend: OpenMP
 * threads make a chunk's deposits (the same numbers as the GPU kernels) into
 * host arrays, which go to the tally through mct_tally_add_device, so the
 * tally's own CPU method (atomic, replicated, kahan, fixed, sort_reduce) adds
 * them with the library's code. */
#include <stdlib.h>

#include "tally_only_engine.h"
#include "tally_only_physics.h"
#include "sim_common.h"

typedef struct {
    uint32_t* keys;
    double* values;
} tally_only_cpu_t;

static void cpu_destroy(void* ctx) {
    tally_only_cpu_t* c = ctx;
    if (!c) return;
    free(c->keys);
    free(c->values);
    free(c);
}

static mct_status_t cpu_create(void** ctx, const mct_tally_only_params_t* p, int64_t chunk, int device) {
    (void)device;
    tally_only_cpu_t* c = calloc(1, sizeof *c);
    *ctx = c;
    if (!c) return MCT_STATUS_OUT_OF_MEMORY;
    const size_t n = (size_t)chunk * (size_t)p->collisions;
    c->keys = malloc(n * sizeof *c->keys);
    c->values = malloc(n * sizeof *c->values);
    return c->keys && c->values ? MCT_STATUS_SUCCESS : MCT_STATUS_OUT_OF_MEMORY;
}

static int64_t cpu_tally_threads(void* ctx, const mct_tally_only_params_t* p) {
    (void)ctx, (void)p;
    return mct__sim_cpu_threads();
}

static mct_status_t cpu_run_chunk(void* ctx, const mct_tally_only_params_t* p, int64_t first, int64_t n,
                                  mct_tally_t tally) {
    tally_only_cpu_t* c = ctx;
    const int collisions = p->collisions;
    const uint32_t bins = (uint32_t)p->bins;
    const float mean = (float)p->mean_energy;
#pragma omp parallel for schedule(static)
    for (int64_t i = 0; i < n; ++i) {
        uint32_t* keys = c->keys + i * collisions;
        double* values = c->values + i * collisions;
        for (int j = 0; j < collisions; j += 2) {
            const mct_ctr4x32_t r = mct_tally_only_draw(p->seed, (uint64_t)(first + i), (uint32_t)(j / 2));
            keys[j] = mct_tally_only_bin(r.v[0], bins);
            values[j] = mct_tally_only_energy(r.v[1], mean);
            if (j + 1 == collisions) break;
            keys[j + 1] = mct_tally_only_bin(r.v[2], bins);
            values[j + 1] = mct_tally_only_energy(r.v[3], mean);
        }
    }
    return mct_tally_add_device(tally, c->keys, c->values, n * collisions);
}

const mct__tally_only_engine_t mct__tally_only_engine_cpu = {
    cpu_create, cpu_tally_threads, cpu_run_chunk, cpu_destroy,
};
