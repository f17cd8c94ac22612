/* SPDX-License-Identifier: BSD-3-Clause */
/** @file pet_matrix.c  The system matrix (pet.h): one voxel run per radial
 * ring into one tally, each ring's counts the difference of the tally's exact
 * sums before and after its batch, kept where non-zero; and its file. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pet.h"
#include "pet_files.h"
#include "sim_common.h"

void mct_pet_matrix_free(mct_pet_matrix_t* m) {
    if (!m) return;
    free(m->start), free(m->key), free(m->count), free(m->efficiency), free(m->outside);
    m->start = NULL, m->key = NULL, m->count = NULL, m->efficiency = NULL, m->outside = NULL;
}

/* The spot of a compressed voxel-index key: its first end (zsm1, c1), as
 * zsm1 * C + c1. */
static int64_t spot_of(int64_t key, int C, int ndc) {
    const int64_t c1 = key % C, s = key / C / ndc;
    int64_t dz = (int64_t)((sqrt(8.0 * (double)s + 1.0) - 1.0) / 2.0);
    while (dz * (dz + 1) / 2 > s) --dz;
    while ((dz + 1) * (dz + 2) / 2 <= s) ++dz;
    return (s - dz * (dz + 1) / 2) * C + c1;
}

/* Appends ring r's entries to m: the counts cur - prev that reach min_count
 * and min_fraction of the largest count of their spot (the LORs that share
 * the first end, zsm1 and c1); prev becomes cur, cur the ring's counts.
 * *dropped gets the counts left out. Three passes over the bins, each split
 * into one contiguous part per thread: the differences and each part's spot
 * maxima, the entries each part keeps, and their copy at the part's offset,
 * so that the entries stay in key order. */
static mct_status_t append_ring(mct_pet_matrix_t* m, const mct_pet_params_t* p, int r, int64_t* cur, int64_t* prev,
                                int64_t bins, int64_t min_count, double min_fraction, int64_t* cap, double* dropped) {
    const int C = p->crystals, ndc = C - 2 * (C / 4) + 1, parts = sim_cpu_threads();
    const int64_t spots = (int64_t)p->rings * C;
    int64_t* spot_max = calloc((size_t)spots * (size_t)parts, sizeof *spot_max);
    int64_t* kept = calloc((size_t)parts + 1, sizeof *kept);
    double* part_dropped = calloc((size_t)parts, sizeof *part_dropped);
    if (!spot_max || !kept || !part_dropped) {
        free(spot_max), free(kept), free(part_dropped);
        return MCT_STATUS_OUT_OF_MEMORY;
    }
#pragma omp parallel for schedule(static, 1)
    for (int t = 0; t < parts; ++t) {
        const int64_t lo = bins * t / parts, hi = bins * (t + 1) / parts;
        int64_t* mine = spot_max + (size_t)t * spots;
        for (int64_t k = lo; k < hi; ++k) {
            const int64_t c = cur[k] - prev[k];
            prev[k] = cur[k];
            cur[k] = c;
            if (c > 0 && min_fraction > 0.0) {
                const int64_t sp = spot_of(k, C, ndc);
                if (c > mine[sp]) mine[sp] = c;
            }
        }
    }
    for (int t = 1; t < parts; ++t)
        for (int64_t sp = 0; sp < spots; ++sp)
            if (spot_max[(size_t)t * spots + sp] > spot_max[sp]) spot_max[sp] = spot_max[(size_t)t * spots + sp];
#define PET_KEEP(c, k) ((c) >= min_count && (min_fraction <= 0.0 || (c) >= min_fraction * spot_max[spot_of((k), C, ndc)]))
#pragma omp parallel for schedule(static, 1)
    for (int t = 0; t < parts; ++t) {
        const int64_t lo = bins * t / parts, hi = bins * (t + 1) / parts;
        int64_t n = 0;
        double left = 0.0;
        for (int64_t k = lo; k < hi; ++k)
            if (cur[k] > 0) {
                if (PET_KEEP(cur[k], k))
                    ++n;
                else
                    left += (double)cur[k];
            }
        kept[t + 1] = n;
        part_dropped[t] = left;
    }
    for (int t = 0; t < parts; ++t) kept[t + 1] += kept[t], *dropped += part_dropped[t];
    const int64_t n = kept[parts];
    mct_status_t st = MCT_STATUS_SUCCESS;
    if (m->entries + n > *cap) {
        int64_t want = *cap ? *cap : 1 << 16;
        while (want < m->entries + n) want *= 2;
        uint32_t* key = realloc(m->key, (size_t)want * sizeof *key);
        if (key) m->key = key;
        uint64_t* count = realloc(m->count, (size_t)want * sizeof *count);
        if (count) m->count = count;
        if (key && count)
            *cap = want;
        else
            st = MCT_STATUS_OUT_OF_MEMORY;
    }
    if (!st) {
#pragma omp parallel for schedule(static, 1)
        for (int t = 0; t < parts; ++t) {
            const int64_t lo = bins * t / parts, hi = bins * (t + 1) / parts;
            int64_t at = m->entries + kept[t];
            for (int64_t k = lo; k < hi; ++k)
                if (cur[k] > 0 && PET_KEEP(cur[k], k)) m->key[at] = (uint32_t)k, m->count[at++] = (uint64_t)cur[k];
        }
        m->entries += n;
        m->start[r + 1] = m->entries;
    }
#undef PET_KEEP
    free(spot_max), free(kept), free(part_dropped);
    return st;
}

mct_status_t mct_pet_matrix_build(const mct_pet_params_t* p, int voxels, int64_t min_count, double min_fraction,
                                  mct_tally_t tally,
                                  void (*progress)(void* ctx, int ring, int voxels), void* progress_ctx,
                                  mct_pet_matrix_t* out) {
    if (!p || !tally || !out) return MCT_STATUS_NULL_POINTER;
    memset(out, 0, sizeof *out);
    if (voxels < 1 || min_count < 1 || !(min_fraction >= 0.0 && min_fraction < 1.0)) return MCT_STATUS_INVALID_VALUE;
    const double t0 = sim_now_seconds();
    mct_pet_params_t q = *p;
    q.source = MCT_PET_SOURCE_VOXEL;
    q.index = MCT_PET_INDEX_COMPRESSED;
    q.voxel_c = 0;
    q.batches = 1;
    q.voxel_r = voxels - 1; /* the outermost ring must lie inside the scanner */
    mct_status_t st = mct_pet_check(&q, tally);
    if (st) return st;
    int64_t bins = 0;
    mct_pet_bins(&q, q.index, &bins);
    out->voxels = voxels;
    out->decays = (double)q.histories;
    out->min_count = min_count;
    out->min_fraction = min_fraction;
    out->start = calloc((size_t)voxels + 1, sizeof *out->start);
    out->efficiency = calloc((size_t)voxels, sizeof *out->efficiency);
    out->outside = calloc((size_t)voxels, sizeof *out->outside);
    int64_t* cur = malloc((size_t)bins * sizeof *cur);
    int64_t* prev = malloc((size_t)bins * sizeof *prev);
    int64_t cap = 0, batches = 0;
    if (!out->start || !out->efficiency || !out->outside || !cur || !prev) st = MCT_STATUS_OUT_OF_MEMORY;
    /* The sums the tally holds already (batches of an earlier use) are the
     * first ring's baseline. */
    if (!st && !mct_tally_counts(tally, &batches, NULL) && batches > 0)
        st = mct_tally_sums_i64(tally, prev);
    else if (!st)
        memset(prev, 0, (size_t)bins * sizeof *prev);
    for (int r = 0; !st && r < voxels; ++r) {
        q.voxel_r = r;
        q.seed = p->seed + (uint64_t)r;
        mct_pet_result_t res;
        if ((st = mct_pet_run(&q, tally, &res))) break;
        out->efficiency[r] = res.efficiency;
        out->outside[r] = res.outside_index / res.decays;
        out->stored += res.stored;
        out->generation_seconds += res.engine_seconds;
        if ((st = mct_tally_sums_i64(tally, cur))) break;
        if ((st = append_ring(out, &q, r, cur, prev, bins, min_count, min_fraction, &cap, &out->dropped))) break;
        if (progress) progress(progress_ctx, r + 1, voxels);
    }
    free(cur), free(prev);
    out->seconds = sim_now_seconds() - t0;
    if (st) mct_pet_matrix_free(out);
    return st;
}

mct_status_t mct_pet_matrix_write(sim_out_set_t* set, const char* path, const mct_pet_params_t* p,
                                  const mct_pet_matrix_t* m) {
    uint64_t max = 0;
    for (int64_t i = 0; i < m->entries; ++i)
        if (m->count[i] > max) max = m->count[i];
    const int count_bytes = max > UINT32_MAX ? 8 : 4;
    /* The header: its fixed part, then the per-ring arrays. */
    const size_t size = 4096 + (size_t)m->voxels * 96;
    char* json = malloc(size);
    if (!json) return MCT_STATUS_OUT_OF_MEMORY;
    mct_pet_params_t q = *p;
    q.source = MCT_PET_SOURCE_VOXEL;
    int64_t bins = 0;
    mct_pet_bins(&q, MCT_PET_INDEX_COMPRESSED, &bins);
    char scanner[512];
    mct_pet_json_scanner(scanner, sizeof scanner, p);
    size_t n = (size_t)snprintf(
        json, size,
        "{\"format\": \"mctally PET system matrix\", \"version\": 1, %s, \"radial_step_mm\": %.17g, \"voxels\": %d, "
        "\"voxel_c\": 0, \"decays_per_voxel\": %.0f, \"seed\": %llu, \"seeds\": \"seed + r for ring r\", "
        "\"lor\": \"a = zsm1, c1, b = zsm2, c2: the LOR (z - zsm1, c1, z + zsm2, c2) of a decay in voxel (r, 0, z)\", "
        "\"index\": \"compressed\", \"bins\": %lld, \"key\": \"%s\", "
        "\"value\": \"count / decays_per_voxel: the probability of the LOR for a decay in the voxel; turning the voxel "
        "and both crystals by k crystals and moving z gives every other voxel's\", "
        "\"min_count\": %lld, \"min_fraction\": %.17g, \"stored_events\": %.0f, \"dropped_events\": %.0f, "
        "\"generation_seconds\": %.6g, \"seconds\": %.6g, \"entries\": %lld, "
        "\"record\": [\"key\", \"uint32\", \"count\", \"%s\"], \"order\": \"ring, then key ascending\"",
        scanner, p->radial_step_mm, m->voxels, m->decays, (unsigned long long)p->seed, (long long)bins,
        mct_pet_key_formula(&q, MCT_PET_INDEX_COMPRESSED), (long long)m->min_count, m->min_fraction, m->stored,
        m->dropped, m->generation_seconds, m->seconds, (long long)m->entries,
        count_bytes == 8 ? "uint64" : "uint32");
    const char* names[3] = {"ring_start", "efficiency", "outside_index"};
    for (int a = 0; a < 3 && n < size; ++a) {
        n += (size_t)snprintf(json + n, size - n, ", \"%s\": [", names[a]);
        const int count = a == 0 ? m->voxels + 1 : m->voxels;
        for (int r = 0; r < count && n < size; ++r) {
            if (a == 0)
                n += (size_t)snprintf(json + n, size - n, "%s%lld", r ? ", " : "", (long long)m->start[r]);
            else
                n += (size_t)snprintf(json + n, size - n, "%s%.9g", r ? ", " : "", a == 1 ? m->efficiency[r] : m->outside[r]);
        }
        if (n < size) n += (size_t)snprintf(json + n, size - n, "]");
    }
    if (n < size) n += (size_t)snprintf(json + n, size - n, "}");
    if (n >= size) {
        free(json);
        return MCT_STATUS_OUT_OF_MEMORY;
    }
    FILE* f = sim_out_begin(set, path);
    int ok = f && mct_pet_file_begin(f, json) == 0;
    free(json);
    for (int64_t i = 0; ok && i < m->entries; ++i) ok = mct_pet_file_put(f, m->key[i], 4, m->count[i], count_bytes) == 0;
    if (f && sim_out_end(set, f) != 0) ok = 0;
    return ok ? MCT_STATUS_SUCCESS : MCT_STATUS_IO_ERROR;
}
