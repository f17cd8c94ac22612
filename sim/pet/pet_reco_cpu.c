/* SPDX-License-Identifier: BSD-3-Clause */
/** @file pet_reco_cpu.c  The MLEM projections on the CPU backend (OpenMP):
 * the forward projection with atomic adds into the LORs' sums, the back
 * projection through mct_tally_add (the tally's own adds and method), in
 * chunks of entries whose adds are gathered first. */
#include <math.h>
#include <stdlib.h>

#include "pet_reco_engine.h"
#include "sim_common.h"

/* Adds gathered for one mct_tally_add. */
#define RECO_CPU_ADDS (INT64_C(1) << 20)

typedef struct {
    const mct_pet_reco_params_t* p;
    const double* activity; /* the last forward projection's */
    double* fp;
    uint32_t* keys;
    double* values;
} reco_cpu_t;

static mct_status_t cpu_create(void** ctx, const mct_pet_reco_params_t* p, int device) {
    (void)device;
    reco_cpu_t* c = calloc(1, sizeof *c);
    *ctx = c;
    if (!c) return MCT_STATUS_OUT_OF_MEMORY;
    c->p = p;
    c->fp = malloc((size_t)p->lor_bins * sizeof *c->fp);
    c->keys = malloc((size_t)RECO_CPU_ADDS * sizeof *c->keys);
    c->values = malloc((size_t)RECO_CPU_ADDS * sizeof *c->values);
    return c->fp && c->keys && c->values ? MCT_STATUS_SUCCESS : MCT_STATUS_OUT_OF_MEMORY;
}

static void cpu_destroy(void* ctx) {
    reco_cpu_t* c = ctx;
    if (!c) return;
    free(c->fp), free(c->keys), free(c->values);
    free(c);
}

static mct_status_t cpu_forward(void* ctx, const double* activity, double* loglik) {
    reco_cpu_t* c = ctx;
    const mct_pet_reco_params_t* p = c->p;
    const int C = p->crystals, N = p->rings, ndc = C - 2 * (C / 4) + 1;
    const int64_t step = (int64_t)ndc * C, work = p->entries * C;
    c->activity = activity;
    double* fp = c->fp;
#pragma omp parallel for schedule(static)
    for (int64_t l = 0; l < p->lor_bins; ++l) fp[l] = 0.0;
#pragma omp parallel for schedule(static)
    for (int64_t i = 0; i < work; ++i) {
        const mct_pet_sm_entry_t* e = &p->sm[i / C];
        const int k = (int)(i % C);
        int64_t lor = sim_pet_reco_lor0(C, N, ndc, e, k), v = ((int64_t)e->ring * N + e->zsm1) * C + k;
        for (int z1 = 0; z1 < N - e->dz; ++z1, lor += step, v += C) {
            const double add = activity[v] * e->p;
#pragma omp atomic
            fp[lor] += add;
        }
    }
    double ll = 0.0;
#pragma omp parallel for schedule(static) reduction(+ : ll)
    for (int64_t l = 0; l < p->lor_bins; ++l)
        if (fp[l] > 0.0) ll += p->measured[l] * log(fp[l]) - fp[l];
    *loglik = ll;
    return MCT_STATUS_SUCCESS;
}

static mct_status_t cpu_back(void* ctx, mct_tally_t bp) {
    reco_cpu_t* c = ctx;
    const mct_pet_reco_params_t* p = c->p;
    const int C = p->crystals, N = p->rings, ndc = C - 2 * (C / 4) + 1;
    const int64_t step = (int64_t)ndc * C;
    /* Entries in chunks whose adds (at most N per entry and turn) fit the buffers. */
    const int64_t per = (int64_t)C * N, chunk = RECO_CPU_ADDS / per > 0 ? RECO_CPU_ADDS / per : 1;
    for (int64_t e0 = 0; e0 < p->entries; e0 += chunk) {
        const int64_t e1 = e0 + chunk < p->entries ? e0 + chunk : p->entries;
        /* Each (entry, turn) writes its adds at a fixed place; unused ones are dropped below. */
#pragma omp parallel for schedule(static)
        for (int64_t i = e0 * C; i < e1 * C; ++i) {
            const mct_pet_sm_entry_t* e = &p->sm[i / C];
            const int k = (int)(i % C);
            int64_t lor = sim_pet_reco_lor0(C, N, ndc, e, k), v = ((int64_t)e->ring * N + e->zsm1) * C + k;
            const int64_t at = (i - e0 * C) * N;
            for (int z1 = 0; z1 < N; ++z1) c->keys[at + z1] = UINT32_MAX;
            for (int z1 = 0; z1 < N - e->dz; ++z1, lor += step, v += C)
                if (c->fp[lor] > 0.0) {
                    c->keys[at + z1] = (uint32_t)v;
                    c->values[at + z1] = e->p * p->measured[lor] / c->fp[lor];
                }
        }
        int64_t m = 0;
        for (int64_t j = 0; j < (e1 - e0) * per; ++j)
            if (c->keys[j] != UINT32_MAX) c->keys[m] = c->keys[j], c->values[m++] = c->values[j];
        mct_status_t st = m ? mct_tally_add(bp, c->keys, c->values, m) : MCT_STATUS_SUCCESS;
        if (st) return st;
    }
    return MCT_STATUS_SUCCESS;
}

const sim_pet_reco_engine_t sim_pet_reco_engine_cpu = {cpu_create, cpu_forward, cpu_back, cpu_destroy};
