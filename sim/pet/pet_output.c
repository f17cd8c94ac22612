/* SPDX-License-Identifier: BSD-3-Clause */
/** @file pet_output.c  The PET problem's files: the sparse LOR counts and the
 * sinogram picture. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pet.h"
#include "pet_files.h"
#include "sim_png.h"

/* ---- The MCTPET container ------------------------------------------------------ */

/* Little-endian bytes of v. */
static void put_le(unsigned char* b, uint64_t v, int bytes) {
    for (int i = 0; i < bytes; ++i) b[i] = (unsigned char)(v >> (8 * i));
}

int mct_pet_file_begin(FILE* f, const char* json) {
    /* The JSON text padded with blanks so that the records start 16-byte aligned. */
    const size_t len = strlen(json), head = MCT_PET_FILE_MAGIC_BYTES + 8;
    const size_t padded = (head + len + 1 + 15) / 16 * 16 - head;
    unsigned char h[8];
    put_le(h, padded, 8);
    if (fwrite(MCT_PET_FILE_MAGIC, 1, MCT_PET_FILE_MAGIC_BYTES, f) != MCT_PET_FILE_MAGIC_BYTES || fwrite(h, 1, 8, f) != 8 ||
        fwrite(json, 1, len, f) != len)
        return -1;
    for (size_t i = len; i + 1 < padded; ++i)
        if (fputc(' ', f) == EOF) return -1;
    return fputc('\n', f) == EOF ? -1 : 0;
}

int mct_pet_file_put(FILE* f, uint64_t a, int abytes, uint64_t b, int bbytes) {
    unsigned char r[16];
    put_le(r, a, abytes);
    put_le(r + abytes, b, bbytes);
    return fwrite(r, 1, (size_t)(abytes + bbytes), f) == (size_t)(abytes + bbytes) ? 0 : -1;
}

/* The scanner's part of a header, shared by the PET files. */
int mct_pet_json_scanner(char* buf, size_t size, const mct_pet_params_t* p) {
    return snprintf(buf, size,
                    "\"crystals\": %d, \"rings\": %d, \"crystal_mm\": %.17g, \"depth_mm\": %.17g, "
                    "\"radius_mm\": %.17g, \"doi\": %d, \"attenuation_mm\": %.17g, \"max_ring_diff\": %d",
                    p->crystals, p->rings, p->crystal_mm, p->depth_mm, mct_pet_radius_mm(p), p->doi,
                    p->attenuation_mm, p->max_ring_diff);
}

const char* mct_pet_key_formula(const mct_pet_params_t* p, mct_pet_index_t index) {
    if (index == MCT_PET_INDEX_TOTAL) return "0 (one bin: every good event)";
    if (index == MCT_PET_INDEX_FULL) return "((a * crystals + c1) * rings + b) * crystals + c2";
    if (p->source == MCT_PET_SOURCE_VOXEL)
        return "((s * n_dc + dc) * crystals + c1), s = dz (dz + 1) / 2 + a, dz = a + b < rings, "
               "dc = ((c2 - c1) mod crystals) - crystals / 4 < n_dc = crystals - 2 (crystals / 4) + 1";
    return "((s * n_dc + dc) * crystals + c1), s = a + T - (rings - dz) (rings - dz + 1) / 2, dz = b - a, "
           "T = rings (rings + 1) / 2, dc = ((c2 - c1) mod crystals) - crystals / 4 < n_dc = crystals - 2 "
           "(crystals / 4) + 1";
}

/* ---- The LOR file ---------------------------------------------------------------- */

mct_status_t mct_pet_write_lors(sim_out_set_t* set, const char* path, const mct_pet_params_t* p,
                                mct_pet_index_t index, const int64_t* counts, int64_t bins,
                                const mct_pet_result_t* r, int64_t* entries) {
    int64_t n = 0, max = 0;
    for (int64_t k = 0; k < bins; ++k)
        if (counts[k] != 0) {
            ++n;
            if (counts[k] > max) max = counts[k];
        }
    const int count_bytes = max > (int64_t)UINT32_MAX ? 8 : 4;
    char scanner[512], *json = malloc(4096);
    if (!json) return MCT_STATUS_OUT_OF_MEMORY;
    mct_pet_json_scanner(scanner, sizeof scanner, p);
    snprintf(json, 4096,
             "{\"format\": \"mctally PET LOR counts\", \"version\": 1, %s, \"source\": \"%s\", \"voxel_r\": %d, "
             "\"voxel_c\": %d, \"radial_step_mm\": %.17g, \"lor\": \"%s\", \"index\": \"%s\", \"bins\": %lld, "
             "\"key\": \"%s\", \"decays\": %.0f, \"good\": %.0f, \"stored\": %.0f, \"outside_index\": %.0f, "
             "\"entries\": %lld, \"record\": [\"key\", \"uint32\", \"count\", \"%s\"], \"order\": \"key ascending\"}",
             scanner, mct_pet_source_name(p->source), p->voxel_r, p->voxel_c, p->radial_step_mm,
             p->source == MCT_PET_SOURCE_VOXEL ? "a = zsm1, c1, b = zsm2, c2 (rings from the voxel's)"
                                               : "a = z1, c1, b = z2, c2 (z1 <= z2)",
             mct_pet_index_name(index), (long long)bins, mct_pet_key_formula(p, index), r->decays, r->good, r->stored,
             r->outside_index, (long long)n, count_bytes == 8 ? "uint64" : "uint32");
    FILE* f = sim_out_begin(set, path);
    int ok = f && mct_pet_file_begin(f, json) == 0;
    free(json);
    for (int64_t k = 0; ok && k < bins; ++k)
        if (counts[k] != 0) ok = mct_pet_file_put(f, (uint64_t)k, 4, (uint64_t)counts[k], count_bytes) == 0;
    if (f && sim_out_end(set, f) != 0) ok = 0;
    if (!ok) return MCT_STATUS_IO_ERROR;
    if (entries) *entries = n;
    return MCT_STATUS_SUCCESS;
}

/* ---- The sinogram ---------------------------------------------------------------- */

mct_status_t mct_pet_write_sinogram_png(sim_out_set_t* set, const char* path, const mct_pet_params_t* p,
                                        mct_pet_index_t index, const int64_t* counts, int64_t bins) {
    if (index != MCT_PET_INDEX_FULL && index != MCT_PET_INDEX_COMPRESSED) return MCT_STATUS_INVALID_VALUE;
    /* Rows: the direction of the midpoint of the arc from c1 clockwise to c2,
     * c1 + dc/2 crystals (2 c1 + dc half crystals), a full turn over the C
     * rows; a row holds two half-crystal steps, and so both parities of dc. */
    const int C = p->crystals, dmin = C / 4, ndc = C - 2 * (C / 4) + 1, rows = C;
    double* sino = calloc((size_t)rows * ndc, sizeof *sino);
    if (!sino) return MCT_STATUS_OUT_OF_MEMORY;
    for (int64_t k = 0; k < bins; ++k) {
        if (!counts[k]) continue;
        mct_pet_lor_t l;
        if (mct_pet_lor_of_key(p, index, k, &l)) continue;
        const int arc = (l.c2 - l.c1 + C) % C, dc = arc - dmin;
        if (dc < 0 || dc >= ndc) continue;
        sino[(size_t)((2 * l.c1 + arc) % (2 * C) / 2) * ndc + dc] += (double)counts[k];
    }
    double max = 0.0;
    for (size_t i = 0; i < (size_t)rows * ndc; ++i)
        if (sino[i] > max) max = sino[i];
    /* Each cell a square of `s` pixels, the picture at least 400 pixels high. */
    const int s = rows >= 400 ? 1 : (400 + rows - 1) / rows, w = ndc * s, h = rows * s;
    unsigned char* rgb = malloc((size_t)w * h * 3);
    if (!rgb) {
        free(sino);
        return MCT_STATUS_OUT_OF_MEMORY;
    }
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            const double v = max > 0.0 ? sino[(size_t)(y / s) * ndc + x / s] / max : 0.0;
            const unsigned char g = (unsigned char)lround(255.0 * v);
            memset(rgb + 3 * ((size_t)y * w + x), g, 3);
        }
    mct_status_t st = sim_png_write_rgb(set, path, w, h, rgb);
    free(rgb);
    free(sino);
    return st;
}
