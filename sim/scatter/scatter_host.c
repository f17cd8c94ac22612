/* SPDX-License-Identifier: BSD-3-Clause */
/** @file scatter_host.c  The scatter workload's engine for the backends whose
 * memory is the host's (cpu and emulated): OpenMP loops write a chunk's keys
 * and values into host arrays, and mct_tally_add_device_grouped adds them
 * with the tally's method on its backend. */
#include <stdlib.h>

#include "scatter_engine.h"

typedef struct {
    uint32_t* keys;
    double* values;
    int64_t chunk; /* the values' stride */
} scatter_host_t;

void mct__scatter_generate_host(const mct_scatter_params_t* p, int64_t first, int64_t n, uint32_t* keys,
                                double* values, int64_t stride) {
    const uint64_t bins = (uint64_t)p->bins, total = (uint64_t)p->n;
#pragma omp parallel for schedule(static)
    for (int64_t i = 0; i < n; ++i) {
        const uint64_t g = (uint64_t)(first + i);
        keys[i] = mct_scatter_key(p->pattern, bins, total, p->seed, g);
        for (int c = 0; c < p->width; ++c) values[c * stride + i] = mct_scatter_value(p->seed, g, (uint32_t)c);
    }
}

static void host_destroy(void* ctx) {
    scatter_host_t* h = ctx;
    if (!h) return;
    free(h->keys);
    free(h->values);
    free(h);
}

static mct_status_t host_create(void** ctx, int64_t chunk, int width, int device) {
    (void)device;
    scatter_host_t* h = calloc(1, sizeof *h);
    *ctx = h;
    if (!h) return MCT_STATUS_OUT_OF_MEMORY;
    h->chunk = chunk;
    h->keys = malloc((size_t)chunk * sizeof *h->keys);
    h->values = malloc((size_t)chunk * (size_t)width * sizeof *h->values);
    return h->keys && h->values ? MCT_STATUS_SUCCESS : MCT_STATUS_OUT_OF_MEMORY;
}

static mct_status_t host_run_chunk(void* ctx, const mct_scatter_params_t* p, int64_t first, int64_t n,
                                   mct_tally_t tally) {
    scatter_host_t* h = ctx;
    mct__scatter_generate_host(p, first, n, h->keys, h->values, h->chunk);
    return mct_tally_add_device_grouped(tally, h->keys, h->values, n, p->width, h->chunk);
}

const mct__scatter_engine_t mct__scatter_engine_host = {
    host_create, host_run_chunk, host_destroy,
};
