/* SPDX-License-Identifier: BSD-3-Clause */
/** @file pet_cpu.c  The PET problem on the CPU backend (OpenMP): the decays of
 * a chunk in parallel, the same decay function and random numbers as the GPU
 * engine; the good events' keys then reach the tally through mct_tally_add,
 * the library's own checked adds with the tally's method. */
#include <stdlib.h>

#include "pet_engine.h"
#include "sim_common.h"

/* A key no index has: the decay is not in the tally. */
#define PET_NO_KEY UINT32_MAX

typedef struct {
    sim_buffers_t b;              /* buf[0]: a key per decay; buf[1]: the values (1.0) */
    sim_pet_counters_t counters;  /* the run's totals */
} pet_cpu_t;

static mct_status_t cpu_create(void** ctx, const sim_engine_args_t* a) {
    pet_cpu_t* c = calloc(1, sizeof *c);
    *ctx = c;
    if (!c) return MCT_STATUS_OUT_OF_MEMORY;
    void* inner = NULL;
    mct_status_t st = sim_host_buffers_create(&inner, a, sizeof(uint32_t), sizeof(double));
    if (inner) {
        c->b = *(sim_buffers_t*)inner;
        free(inner);
    }
    if (st) return st;
    double* ones = c->b.buf[1];
    for (int64_t i = 0; i < a->chunk; ++i) ones[i] = 1.0;
    return MCT_STATUS_SUCCESS;
}

static void cpu_destroy(void* ctx) {
    pet_cpu_t* c = ctx;
    if (!c) return;
    free(c->b.buf[0]);
    free(c->b.buf[1]);
    free(c);
}

static mct_status_t cpu_run_chunk(void* ctx, int64_t first, int64_t n, mct_tally_t tally) {
    pet_cpu_t* c = ctx;
    const sim_pet_problem_t* problem = c->b.problem;
    const mct_pet_geom_t* g = &problem->geom;
    const mct_pet_src_shape_t* shapes = problem->shapes;
    const mct_key2x32_t key2 = mct_philox_key_from_seed(problem->p->seed);
    const int discard = problem->p->discard;
    uint32_t* keys = c->b.buf[0];
    unsigned long long good = 0, outside = 0, checksum = 0;
#pragma omp parallel for schedule(static) reduction(+ : good, outside) reduction(^ : checksum)
    for (int64_t i = 0; i < n; ++i) {
        uint32_t key = PET_NO_KEY;
        const int r = mct_pet_decay(g, shapes, key2, (uint64_t)(first + i), &key);
        good += r != MCT_PET_MISSED;
        outside += r == MCT_PET_OUTSIDE;
        if (r != MCT_PET_GOOD) key = PET_NO_KEY;
        if (discard && r == MCT_PET_GOOD) checksum ^= key, key = PET_NO_KEY;
        keys[i] = key;
    }
    c->counters.good += good;
    c->counters.outside += outside;
    c->counters.checksum ^= checksum;
    /* The good events' keys, in decay order, to the tally. */
    int64_t m = 0;
    for (int64_t i = 0; i < n; ++i)
        if (keys[i] != PET_NO_KEY) keys[m++] = keys[i];
    return m ? mct_tally_add(tally, keys, c->b.buf[1], m) : MCT_STATUS_SUCCESS;
}

static mct_status_t cpu_finish(void* ctx, void* out) {
    *(sim_pet_counters_t*)out = ((const pet_cpu_t*)ctx)->counters;
    return MCT_STATUS_SUCCESS;
}

/* tally_threads: mct_tally_add reserves what its own adds need. */
const sim_engine_t sim_pet_engine_cpu = {cpu_create, NULL, cpu_run_chunk, cpu_finish, cpu_destroy, NULL};
