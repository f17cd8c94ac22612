/* SPDX-License-Identifier: BSD-3-Clause */
/** @file tally_only_cpu.c  The tally-only problem on the CPU backend: OpenMP
 * threads make a chunk's deposits (the same numbers as the GPU kernels) into
 * host arrays, which go to the tally through mct_tally_add_device, so the
 * tally's own CPU method (atomic, replicated, kahan, fixed, sort_reduce) adds
 * them with the library's code. */
#include "tally_only_engine.h"
#include "tally_only_physics.h"
#include "sim_common.h"

/* A chunk's bins (u32) and energies (double) in buf[0] and buf[1]. */
static mct_status_t cpu_create(void** ctx, const sim_engine_args_t* a) {
    const size_t collisions = (size_t)((const mct_tally_only_params_t*)a->problem)->collisions;
    return sim_host_buffers_create(ctx, a, collisions * sizeof(uint32_t), collisions * sizeof(double));
}

static mct_status_t cpu_run_chunk(void* ctx, int64_t first, int64_t n, mct_tally_t tally) {
    const sim_buffers_t* c = ctx;
    const mct_tally_only_params_t* p = c->problem;
    uint32_t* const all_keys = c->buf[0];
    double* const all_values = c->buf[1];
    const int collisions = p->collisions;
    const uint32_t bins = (uint32_t)p->bins;
    const float mean = (float)p->mean_energy;
#pragma omp parallel for schedule(static)
    for (int64_t i = 0; i < n; ++i) {
        uint32_t* keys = all_keys + i * collisions;
        double* values = all_values + i * collisions;
        for (int j = 0; j < collisions; j += 2) {
            const mct_ctr4x32_t r = mct_tally_only_draw(p->seed, (uint64_t)(first + i), (uint32_t)(j / 2));
            keys[j] = mct_tally_only_bin(r.v[0], bins);
            values[j] = mct_tally_only_energy(r.v[1], mean);
            if (j + 1 == collisions) break;
            keys[j + 1] = mct_tally_only_bin(r.v[2], bins);
            values[j + 1] = mct_tally_only_energy(r.v[3], mean);
        }
    }
    return mct_tally_add_device(tally, all_keys, all_values, n * collisions);
}

const sim_engine_t sim_tally_only_engine_cpu = {cpu_create, sim_cpu_tally_threads, cpu_run_chunk, NULL,
                                                 sim_host_buffers_destroy, NULL};
