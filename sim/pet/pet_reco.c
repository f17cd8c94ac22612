/* SPDX-License-Identifier: BSD-3-Clause */
/** @file pet_reco.c  MLEM reconstruction (pet_reco.h): the driver (the
 * sensitivity, the iterations, the update), the matrix's entries, the
 * Cartesian grid and its files. The projections are the engines'
 * (pet_reco_cpu.c, pet_reco_device.cu). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pet_reco.h"
#include "pet_reco_engine.h"
#include "sim_common.h"
#include "sim_mhd.h"
#include "sim_png.h"

#define PET_PI 3.14159265358979323846

mct_pet_sm_entry_t* mct_pet_reco_entries(const mct_pet_params_t* p, const mct_pet_matrix_t* m) {
    mct_pet_params_t q = *p;
    q.source = MCT_PET_SOURCE_VOXEL;
    mct_pet_sm_entry_t* e = malloc((size_t)(m->entries ? m->entries : 1) * sizeof *e);
    if (!e || m->voxels > 65535) {
        free(e);
        return NULL;
    }
    const int dmin = q.crystals / 4;
    for (int r = 0; r < m->voxels; ++r)
        for (int64_t i = m->start[r]; i < m->start[r + 1]; ++i) {
            mct_pet_lor_t l;
            if (mct_pet_lor_of_key(&q, MCT_PET_INDEX_COMPRESSED, m->key[i], &l)) {
                free(e);
                return NULL;
            }
            e[i].p = (float)((double)m->count[i] / m->decays);
            e[i].c1 = (uint16_t)l.c1;
            e[i].dc = (uint16_t)((l.c2 - l.c1 + q.crystals) % q.crystals - dmin);
            e[i].zsm1 = (uint8_t)l.a;
            e[i].dz = (uint8_t)(l.a + l.b);
            e[i].ring = (uint16_t)r;
        }
    return e;
}

void mct_pet_reco_result_free(mct_pet_reco_result_t* r) {
    if (!r) return;
    free(r->activity), free(r->loglik), free(r->sensitivity);
    r->activity = r->loglik = r->sensitivity = NULL;
}

static const sim_pet_reco_engine_t* engine_for(mct_backend_t b) {
    switch (b) {
    case MCT_BACKEND_CPU: return &sim_pet_reco_engine_cpu;
    case MCT_BACKEND_EMULATED: return &sim_pet_reco_engine_emulated;
#if MCT_HAVE_CUDA
    case MCT_BACKEND_CUDA: return &sim_pet_reco_engine_cuda;
#endif
    default: return NULL;
    }
}

/* The entries' rings and slices inside the grid. */
static mct_status_t check_params(const mct_pet_reco_params_t* p) {
    if (!p->sm || !p->measured || p->entries < 1 || p->iterations < 1 || p->voxels < 1 || p->crystals < 8 ||
        p->rings < 1)
        return MCT_STATUS_INVALID_VALUE;
    const int ndc = p->crystals - 2 * (p->crystals / 4) + 1;
    if (p->lor_bins != (int64_t)p->rings * (p->rings + 1) / 2 * ndc * p->crystals) return MCT_STATUS_INVALID_VALUE;
    for (int64_t i = 0; i < p->entries; ++i) {
        const mct_pet_sm_entry_t* e = &p->sm[i];
        if (e->ring >= p->voxels || e->dz >= p->rings || e->zsm1 > e->dz || e->c1 >= p->crystals || e->dc >= ndc ||
            !(e->p >= 0.0f))
            return MCT_STATUS_INVALID_VALUE;
    }
    return MCT_STATUS_SUCCESS;
}

mct_status_t mct_pet_reco_run(const mct_pet_reco_params_t* p, const mct_tally_desc_t* desc,
                              mct_pet_reco_result_t* out) {
    if (!p || !desc || !out) return MCT_STATUS_NULL_POINTER;
    memset(out, 0, sizeof *out);
    mct_status_t st = check_params(p);
    if (st) return st;
    if (desc->dtype == MCT_DTYPE_I32 || desc->dtype == MCT_DTYPE_U64) return MCT_STATUS_NOT_SUPPORTED;
    const double t0 = sim_now_seconds();
    const int C = p->crystals, N = p->rings;
    const int64_t nv = (int64_t)p->voxels * N * C;
    mct_tally_desc_t d = *desc;
    d.bins = nv;
    d.dtype = desc->dtype == MCT_DTYPE_F32 ? MCT_DTYPE_F32 : MCT_DTYPE_F64;

    /* The sensitivity of slice z of ring r: the entries whose LOR fits the
     * scanner with the voxel there, zsm1 <= z <= N - 1 - zsm2. */
    out->activity = malloc((size_t)nv * sizeof *out->activity);
    out->loglik = calloc((size_t)p->iterations, sizeof *out->loglik);
    out->sensitivity = calloc((size_t)p->voxels * N, sizeof *out->sensitivity);
    double* bp = malloc((size_t)nv * sizeof *bp);
    if (!out->activity || !out->loglik || !out->sensitivity || !bp) {
        free(bp);
        mct_pet_reco_result_free(out);
        return MCT_STATUS_OUT_OF_MEMORY;
    }
    for (int64_t i = 0; i < p->entries; ++i) {
        const mct_pet_sm_entry_t* e = &p->sm[i];
        for (int z = e->zsm1; z <= N - 1 - (e->dz - e->zsm1); ++z) out->sensitivity[(int64_t)e->ring * N + z] += e->p;
    }
    /* Counts per voxel are decays up to the matrix's efficiency: a start of 1
     * where a voxel is seen. */
    for (int64_t v = 0; v < nv; ++v) out->activity[v] = out->sensitivity[v / C] > 0.0 ? 1.0 : 0.0;

    /* The backend: the tally's (a probe of one bin resolves AUTO). */
    mct_tally_t probe = NULL;
    mct_tally_desc_t pd = d;
    pd.bins = 1;
    if ((st = mct_tally_create(&probe, &pd)) == MCT_STATUS_SUCCESS) st = mct_tally_get_desc(probe, &pd);
    mct_tally_destroy(probe);
    const sim_pet_reco_engine_t* e = st ? NULL : engine_for(pd.backend);
    if (!st && !e) st = MCT_STATUS_BACKEND_UNAVAILABLE;
    void* ctx = NULL;
    if (!st) st = e->create(&ctx, p, d.device);
    for (int it = 0; !st && it < p->iterations; ++it) {
        double t = sim_now_seconds();
        st = e->forward(ctx, out->activity, &out->loglik[it]);
        out->forward_seconds += sim_now_seconds() - t;
        mct_tally_t tally = NULL;
        if (!st) st = mct_tally_create(&tally, &d);
        t = sim_now_seconds();
        if (!st) st = e->back(ctx, tally);
        if (!st) st = mct_tally_end_batch(tally, 1);
        out->back_seconds += sim_now_seconds() - t;
        if (!st) st = mct_tally_results(tally, bp, NULL);
        mct_tally_destroy(tally);
        if (st) break;
        for (int64_t v = 0; v < nv; ++v) {
            const double s = out->sensitivity[v / C];
            out->activity[v] = s > 0.0 ? out->activity[v] * bp[v] / s : 0.0;
        }
        out->iterations = it + 1;
        if (p->progress) p->progress(p->progress_ctx, it + 1, p->iterations);
    }
    if (e) e->destroy(ctx);
    free(bp);
    out->seconds = sim_now_seconds() - t0;
    if (st) mct_pet_reco_result_free(out);
    return st;
}

/* ---- The Cartesian grid and its files --------------------------------------------- */

double mct_pet_reco_voxel_mm3(const mct_pet_reco_params_t* p, int r) {
    return PET_PI * (2.0 * r + 1.0) * p->radial_step_mm * p->radial_step_mm * p->crystal_mm / p->crystals;
}

float* mct_pet_reco_cartesian(const mct_pet_reco_params_t* p, const double* activity, int* n_out) {
    const int n = 2 * p->voxels, C = p->crystals, N = p->rings, sub = 4;
    const double h = p->radial_step_mm;
    float* g = calloc((size_t)n * n * N, sizeof *g);
    if (!g) return NULL;
    for (int iy = 0; iy < n; ++iy)
        for (int ix = 0; ix < n; ++ix) {
            /* The pixel's sub-points and the polar voxels they fall in. */
            int cnt = 0, r[16], c[16];
            for (int sy = 0; sy < sub; ++sy)
                for (int sx = 0; sx < sub; ++sx) {
                    const double x = (ix - p->voxels + (sx + 0.5) / sub) * h, y = (iy - p->voxels + (sy + 0.5) / sub) * h;
                    const int ri = (int)(sqrt(x * x + y * y) / h);
                    if (ri >= p->voxels) continue;
                    double t = atan2(x, y) / (2.0 * PET_PI); /* clockwise from +y, the scanner's convention */
                    if (t < 0.0) t += 1.0;
                    int ci = (int)(t * C);
                    if (ci >= C) ci = C - 1;
                    r[cnt] = ri, c[cnt++] = ci;
                }
            /* Decays per mm^3: a voxel's decays over its volume, pi (2r + 1) h^2 f / C. */
            for (int z = 0; z < N; ++z) {
                double sum = 0.0;
                for (int k = 0; k < cnt; ++k)
                    sum += activity[((int64_t)r[k] * N + z) * C + c[k]] / mct_pet_reco_voxel_mm3(p, r[k]);
                g[((size_t)z * n + iy) * n + ix] = (float)(sum / (sub * sub));
            }
        }
    *n_out = n;
    return g;
}

mct_status_t mct_pet_reco_write(sim_out_set_t* set, const char* dir, const char* name, const mct_pet_reco_params_t* p,
                                const float* grid, int n) {
    const double h = p->radial_step_mm;
    const int dims[3] = {n, n, p->rings};
    const double spacing[3] = {h, h, p->crystal_mm};
    const double origin[3] = {(0.5 - p->voxels) * h, (0.5 - p->voxels) * h, 0.5 * p->crystal_mm};
    mct_status_t st = sim_mhd_write(set, dir, name, dims, spacing, origin, 0, grid);
    if (st) return st;
    /* The middle slice, y up, each pixel a square of s screen pixels. */
    const float* slice = grid + (size_t)(p->rings / 2) * n * n;
    float max = 0.0f;
    for (int i = 0; i < n * n; ++i)
        if (slice[i] > max) max = slice[i];
    const int s = n >= 400 ? 1 : (400 + n - 1) / n, w = n * s;
    unsigned char* rgb = malloc((size_t)w * w * 3);
    if (!rgb) return MCT_STATUS_OUT_OF_MEMORY;
    for (int y = 0; y < w; ++y)
        for (int x = 0; x < w; ++x) {
            const float v = slice[(size_t)(n - 1 - y / s) * n + x / s];
            memset(rgb + 3 * ((size_t)y * w + x), (int)lroundf(max > 0.0f ? 255.0f * fmaxf(v, 0.0f) / max : 0.0f), 3);
        }
    char path[SIM_OUT_PATH];
    snprintf(path, sizeof path, "%s/%s.png", dir, name);
    st = sim_png_write_rgb(set, path, w, w, rgb);
    free(rgb);
    return st;
}
