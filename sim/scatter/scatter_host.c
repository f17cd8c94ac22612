/* SPDX-License-Identifier: BSD-3-Clause */
/** @file scatter_host.c  The scatter workload's engine for the backends whose
 * memory is the host's (cpu and emulated): OpenMP loops write a chunk's keys
 * and values into host arrays, and mct_tally_add_device_grouped adds them
 * with the tally's method on its backend. */
#include "scatter_engine.h"

void sim_scatter_generate_host(const mct_scatter_params_t* p, int64_t first, int64_t n, uint32_t* keys,
                                double* values, int64_t stride) {
    const uint64_t bins = (uint64_t)p->bins, total = (uint64_t)p->n;
#pragma omp parallel for schedule(static)
    for (int64_t i = 0; i < n; ++i) {
        const uint64_t g = (uint64_t)(first + i);
        keys[i] = mct_scatter_key(p->pattern, bins, total, p->seed, g);
        for (int c = 0; c < p->width; ++c) values[c * stride + i] = mct_scatter_value(p->seed, g, (uint32_t)c);
    }
}

/* A chunk's keys (u32) and values (width doubles each) in buf[0] and buf[1]. */
static mct_status_t host_create(void** ctx, const sim_engine_args_t* a) {
    const size_t width = (size_t)((const mct_scatter_params_t*)a->problem)->width;
    return sim_host_buffers_create(ctx, a, sizeof(uint32_t), width * sizeof(double));
}

static mct_status_t host_run_chunk(void* ctx, int64_t first, int64_t n, mct_tally_t tally) {
    const sim_buffers_t* h = ctx;
    const mct_scatter_params_t* p = h->problem;
    sim_scatter_generate_host(p, first, n, h->buf[0], h->buf[1], h->chunk);
    return mct_tally_add_device_grouped(tally, h->buf[0], h->buf[1], n, p->width, h->chunk);
}

const sim_engine_t sim_scatter_engine_host = {host_create, NULL, host_run_chunk, NULL, sim_host_buffers_destroy, NULL};
