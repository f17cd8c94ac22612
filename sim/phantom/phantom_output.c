/* SPDX-License-Identifier: BSD-3-Clause */
/** @file phantom_output.c  The phantom's analysis and files: dose in Gy, the
 * laterally integrated depth dose with batch errors, R50 and Rp, MetaImage
 * grids (sim_mhd.h), the depth-dose CSV and its PNG plot (a small
 * rasterizer; sim_png.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "phantom.h"
#include "sim_common.h"
#include "sim_mhd.h"
#include "sim_png.h"

#define MEV_TO_J 1.602176634e-13

void mct_phantom_dose_gy(const mct_phantom_params_t* p, const double* mean_mev, double* dose_gy, int64_t nbins) {
    const double dx = p->size_cm / p->voxels;
    const double mass_kg = dx * dx * dx * 1.0e-3; /* water, 1 g/cm3 */
    for (int64_t k = 0; k < nbins; ++k) dose_gy[k] = mean_mev[k] * MEV_TO_J / mass_kg;
}

mct_status_t mct_phantom_max_voxel(const mct_phantom_params_t* p, const double* grid, mct_phantom_voxel_t* out) {
    if (!p || !grid || !out) return MCT_STATUS_NULL_POINTER;
    if (p->voxels < 1) return MCT_STATUS_INVALID_VALUE;
    const int64_t n = p->voxels, bins = n * n * n;
    int64_t k = 0;
    for (int64_t i = 1; i < bins; ++i)
        if (grid[i] > grid[k]) k = i;
    const int64_t ix = k % n, iy = k / n % n, iz = k / (n * n);
    const double dx_mm = 10.0 * p->size_cm / n;
    out->voxel = k;
    out->index[0] = ix, out->index[1] = iy, out->index[2] = iz;
    out->center_mm[0] = -5.0 * p->size_cm + (ix + 0.5) * dx_mm;
    out->center_mm[1] = -5.0 * p->size_cm + (iy + 0.5) * dx_mm;
    out->center_mm[2] = (iz + 0.5) * dx_mm;
    out->value = grid[k];
    return MCT_STATUS_SUCCESS;
}

/* ---- Depth dose ------------------------------------------------------------ */

void mct_phantom_depth_dose_free(mct_phantom_depth_dose_t* dd) {
    if (!dd) return;
    free(dd->depth_cm);
    free(dd->mev);
    free(dd->err);
    dd->depth_cm = dd->mev = dd->err = NULL;
}

mct_status_t mct_phantom_depth_dose(const mct_phantom_params_t* p, const mct_phantom_result_t* r,
                                    mct_phantom_depth_dose_t* out) {
    if (!p || !r || !out) return MCT_STATUS_NULL_POINTER;
    if (!r->slab_batch_mev || r->slabs != p->voxels || r->batches < 1) return MCT_STATUS_INVALID_STATE;
    const int n = r->slabs;
    const int64_t nb = r->batches;
    out->n = n;
    out->depth_cm = malloc((size_t)n * sizeof(double));
    out->mev = malloc((size_t)n * sizeof(double));
    out->err = malloc((size_t)n * sizeof(double));
    if (!out->depth_cm || !out->mev || !out->err) {
        mct_phantom_depth_dose_free(out);
        return MCT_STATUS_OUT_OF_MEMORY;
    }
    double total = 0.0;
    for (int64_t b = 0; b < nb; ++b) total += (double)r->batch_histories[b];
    const double dz = p->size_cm / n;
    for (int z = 0; z < n; ++z) {
        double sum = 0.0;
        for (int64_t b = 0; b < nb; ++b) sum += r->slab_batch_mev[b * n + z];
        out->depth_cm[z] = (z + 0.5) * dz;
        out->mev[z] = sum / total;
        out->err[z] = sim_batch_error(r->slab_batch_mev + z, n, r->batch_histories, nb, sum, total);
    }
    return MCT_STATUS_SUCCESS;
}

mct_status_t mct_phantom_ranges(const mct_phantom_depth_dose_t* dd, mct_phantom_ranges_t* out) {
    if (!dd || !out) return MCT_STATUS_NULL_POINTER;
    const int n = dd->n;
    int imax = 0;
    for (int i = 1; i < n; ++i)
        if (dd->mev[i] > dd->mev[imax]) imax = i;
    const double dmax = dd->mev[imax];
    if (!(dmax > 0.0)) return MCT_STATUS_INVALID_STATE;
    int i50 = -1;
    for (int i = imax + 1; i < n; ++i)
        if (dd->mev[i] < 0.5 * dmax) {
            i50 = i;
            break;
        }
    /* The fall-off must be resolved: a few slabs between the maximum and R50. */
    if (i50 < 0 || i50 - imax < 3) return MCT_STATUS_INVALID_STATE;
    int i80 = imax + 1;
    while (dd->mev[i80] >= 0.8 * dmax) ++i80; /* stops at i50 at the latest */
    const double dz = dd->depth_cm[1] - dd->depth_cm[0];
    const double r0 = dd->mev[i50 - 1] / dmax, r1 = dd->mev[i50] / dmax;
    const double r50 = dd->depth_cm[i50 - 1] + dz * (r0 - 0.5) / (r0 - r1);
    const double q0 = dd->mev[i80 - 1] / dmax, q1 = dd->mev[i80] / dmax;
    const double r80 = dd->depth_cm[i80 - 1] + dz * (q0 - 0.8) / (q0 - q1);

    /* Slope of the fall-off: least squares over the slabs between 20 % and 80 %
     * beyond the maximum (at least the two around R50). */
    double sx = 0, sy = 0, sxx = 0, sxy = 0;
    int m = 0;
    for (int i = imax + 1; i < n; ++i) {
        const double rel = dd->mev[i] / dmax;
        if (rel < 0.2) break;
        if (rel > 0.8) continue;
        sx += dd->depth_cm[i], sy += rel, sxx += dd->depth_cm[i] * dd->depth_cm[i], sxy += dd->depth_cm[i] * rel;
        ++m;
    }
    double slope, slope_err = 0.0;
    if (m >= 3) {
        slope = (m * sxy - sx * sy) / (m * sxx - sx * sx);
        const double icpt = (sy - slope * sx) / m;
        double res = 0.0;
        for (int i = imax + 1; i < n; ++i) {
            const double rel = dd->mev[i] / dmax;
            if (rel < 0.2) break;
            if (rel > 0.8) continue;
            const double e = rel - (icpt + slope * dd->depth_cm[i]);
            res += e * e;
        }
        slope_err = sqrt(res / (m - 2) * m / (m * sxx - sx * sx));
    } else {
        slope = (r1 - r0) / dz;
    }
    if (!(slope < 0.0)) return MCT_STATUS_INVALID_STATE;

    /* Bremsstrahlung background: the mean relative dose between 1.3 and 1.5 R50
     * (beyond the electrons' reach for clinical energies), 0 when the phantom
     * ends first. */
    double bg = 0.0;
    int nbg = 0;
    for (int i = 0; i < n; ++i)
        if (dd->depth_cm[i] >= 1.3 * r50 && dd->depth_cm[i] <= 1.5 * r50) bg += dd->mev[i] / dmax, ++nbg;
    bg = nbg ? bg / nbg : 0.0;
    const double rp = r50 + (bg - 0.5) / slope;

    /* Errors: the dose error at R50 over the slope; Rp adds the slope's error. */
    const double e0 = dd->err[i50 - 1] / dmax, e1 = dd->err[i50] / dmax, emax = dd->err[imax] / dmax;
    const double erel = sqrt(0.25 * (e0 * e0 + e1 * e1) + 0.25 * emax * emax);
    const double f0 = dd->err[i80 - 1] / dmax, f1 = dd->err[i80] / dmax;
    out->r50_cm = r50;
    out->r50_err_cm = erel / fabs(slope);
    out->r80_cm = r80;
    out->r80_err_cm = sqrt(0.25 * (f0 * f0 + f1 * f1) + 0.64 * emax * emax) / fabs(slope);
    out->dmax_mev = dmax;
    out->dmax_err_mev = dd->err[imax];
    const double s0 = dd->mev[0] / dmax, es = dd->err[0] / dd->mev[0];
    out->surface_ratio = s0;
    out->surface_ratio_err = imax == 0 ? 0.0 : s0 * sqrt(es * es + emax * emax);
    out->rp_cm = rp;
    out->rp_err_cm = sqrt(out->r50_err_cm * out->r50_err_cm +
                          pow((0.5 - bg) / (slope * slope) * slope_err, 2.0));
    out->dmax_depth_cm = dd->depth_cm[imax];
    out->background = bg;
    return MCT_STATUS_SUCCESS;
}

/* ---- MetaImage --------------------------------------------------------------- */

mct_status_t mct_phantom_write_mhd(sim_out_set_t* set, const char* dir, const char* name, const mct_phantom_params_t* p,
                                   const double* grid) {
    const int n = p->voxels;
    const double dx_mm = 10.0 * p->size_cm / n;
    /* Offset: the centre of the first voxel, with the beam's entry point at
     * (0, 0, 0) on the front face. */
    const double x0 = -5.0 * p->size_cm + 0.5 * dx_mm;
    const int dims[3] = {n, n, n};
    const double spacing[3] = {dx_mm, dx_mm, dx_mm}, origin[3] = {x0, x0, 0.5 * dx_mm};
    return sim_mhd_write(set, dir, name, dims, spacing, origin, 1, grid);
}

mct_status_t mct_phantom_write_depth_csv(sim_out_set_t* set, const char* path, const mct_phantom_depth_dose_t* dd) {
    FILE* f = sim_out_begin(set, path);
    if (!f) return MCT_STATUS_IO_ERROR;
    double dmax = 0.0;
    for (int i = 0; i < dd->n; ++i)
        if (dd->mev[i] > dmax) dmax = dd->mev[i];
    int ok = fprintf(f, "depth_cm,mev_per_history,std_error_mev,relative_dose\n") > 0;
    for (int i = 0; i < dd->n && ok; ++i)
        ok = fprintf(f, "%.6g,%.10g,%.4g,%.8g\n", dd->depth_cm[i], dd->mev[i], dd->err[i],
                     dmax > 0.0 ? dd->mev[i] / dmax : 0.0) > 0;
    if (sim_out_end(set, f) != 0) ok = 0;
    return ok ? MCT_STATUS_SUCCESS : MCT_STATUS_IO_ERROR;
}

/* ---- PNG plot ---------------------------------------------------------------- */

typedef struct {
    int w, h;
    unsigned char* rgb;
} canvas_t;

static void put(canvas_t* c, int x, int y, const unsigned char col[3]) {
    if (x < 0 || y < 0 || x >= c->w || y >= c->h) return;
    memcpy(c->rgb + 3 * ((size_t)y * c->w + x), col, 3);
}

static void line(canvas_t* c, int x0, int y0, int x1, int y1, const unsigned char col[3], int dash) {
    const int dx = abs(x1 - x0), dy = -abs(y1 - y0), sx = x0 < x1 ? 1 : -1, sy = y0 < y1 ? 1 : -1;
    int err = dx + dy, k = 0;
    for (;;) {
        if (!dash || (k++ / dash) % 2 == 0) put(c, x0, y0, col);
        if (x0 == x1 && y0 == y1) return;
        const int e2 = 2 * err;
        if (e2 >= dy) err += dy, x0 += sx;
        if (e2 <= dx) err += dx, y0 += sy;
    }
}

/* A 5x7 font for the labels: each glyph is 7 rows of 5 bits, top row first. */
static const struct {
    char ch;
    unsigned char rows[7];
} font[] = {
    {'0', {14, 17, 19, 21, 25, 17, 14}}, {'1', {4, 12, 4, 4, 4, 4, 14}},   {'2', {14, 17, 1, 2, 4, 8, 31}},
    {'3', {31, 2, 4, 2, 1, 17, 14}},     {'4', {2, 6, 10, 18, 31, 2, 2}},  {'5', {31, 16, 30, 1, 1, 17, 14}},
    {'6', {6, 8, 16, 30, 17, 17, 14}},   {'7', {31, 1, 2, 4, 8, 8, 8}},    {'8', {14, 17, 17, 14, 17, 17, 14}},
    {'9', {14, 17, 17, 15, 1, 2, 12}},   {'.', {0, 0, 0, 0, 0, 12, 12}},   {'(', {2, 4, 8, 8, 8, 4, 2}},
    {')', {8, 4, 2, 2, 2, 4, 8}},        {'%', {24, 25, 2, 4, 8, 19, 3}},  {'=', {0, 0, 31, 0, 31, 0, 0}},
    {'R', {30, 17, 17, 30, 20, 18, 17}}, {'D', {28, 18, 17, 17, 17, 18, 28}}, {'M', {17, 27, 21, 21, 17, 17, 17}},
    {'V', {17, 17, 17, 17, 17, 10, 4}},  {'a', {0, 0, 14, 1, 15, 17, 15}}, {'c', {0, 0, 14, 16, 16, 17, 14}},
    {'d', {1, 1, 13, 19, 17, 17, 15}},   {'e', {0, 0, 14, 17, 31, 16, 14}}, {'h', {16, 16, 22, 25, 17, 17, 17}},
    {'i', {4, 0, 12, 4, 4, 4, 14}},      {'l', {12, 4, 4, 4, 4, 4, 14}},   {'m', {0, 0, 26, 21, 21, 17, 17}},
    {'o', {0, 0, 14, 17, 17, 17, 14}},   {'p', {0, 0, 30, 17, 30, 16, 16}}, {'r', {0, 0, 22, 25, 16, 16, 16}},
    {'s', {0, 0, 14, 16, 14, 1, 30}},    {'t', {8, 8, 28, 8, 8, 9, 6}},    {'v', {0, 0, 17, 17, 17, 10, 4}},
    {'n', {0, 0, 22, 25, 17, 17, 17}},   {'g', {0, 15, 17, 17, 15, 1, 14}}, {'y', {0, 0, 17, 17, 15, 1, 14}},
    {'k', {16, 16, 18, 20, 24, 20, 18}}, {',', {0, 0, 0, 0, 12, 4, 8}},    {'-', {0, 0, 0, 31, 0, 0, 0}},
    {'/', {1, 1, 2, 4, 8, 16, 16}},      {'+', {0, 4, 4, 31, 4, 4, 0}},
};

/* Draws text at (x, y) (top left), each font pixel as a s x s square. */
static void text(canvas_t* c, int x, int y, const char* s, const unsigned char col[3], int scale) {
    for (; *s; ++s, x += 6 * scale) {
        for (size_t g = 0; g < sizeof font / sizeof *font; ++g) {
            if (font[g].ch != *s) continue;
            for (int r = 0; r < 7; ++r)
                for (int b = 0; b < 5; ++b)
                    if (font[g].rows[r] & (16 >> b))
                        for (int i = 0; i < scale; ++i)
                            for (int j = 0; j < scale; ++j) put(c, x + b * scale + i, y + r * scale + j, col);
            break;
        }
    }
}

/* An 8-bit RGB PNG of the canvas. */
static mct_status_t write_png(sim_out_set_t* set, const char* path, const canvas_t* c) {
    return sim_png_write_rgb(set, path, c->w, c->h, c->rgb);
}

mct_status_t mct_phantom_write_depth_png(sim_out_set_t* set, const char* path, const mct_phantom_depth_dose_t* dd,
                                         const mct_phantom_ranges_t* ranges) {
    static const unsigned char black[3] = {0, 0, 0}, grey[3] = {170, 170, 170}, red[3] = {200, 30, 30},
                               blue[3] = {30, 60, 200}, light[3] = {225, 225, 225};
    canvas_t c = {900, 560, NULL};
    c.rgb = malloc((size_t)c.w * c.h * 3);
    if (!c.rgb) return MCT_STATUS_OUT_OF_MEMORY;
    memset(c.rgb, 255, (size_t)c.w * c.h * 3);
    const int left = 80, right = c.w - 30, top = 50, bottom = c.h - 70;
    double zmax = dd->depth_cm[dd->n - 1] + 0.5 * (dd->depth_cm[1 < dd->n ? 1 : 0] - dd->depth_cm[0]);
    if (!(zmax > 0.0)) zmax = 1.0;
    double dmax = 0.0;
    for (int i = 0; i < dd->n; ++i)
        if (dd->mev[i] > dmax) dmax = dd->mev[i];
    if (!(dmax > 0.0)) dmax = 1.0;
#define PX(z) (left + (int)lround((z) / zmax * (right - left)))
#define PY(r) (bottom - (int)lround((r) / 1.1 * (bottom - top)))
    /* Grid and axes: ticks every 5 cm (every 1 cm marked short), every 10 %. */
    char label[32];
    for (int k = 0; k <= (int)zmax; ++k) {
        const int x = PX((double)k);
        if (k % 5 == 0) {
            line(&c, x, top, x, bottom, light, 0);
            line(&c, x, bottom, x, bottom + 8, black, 0);
            snprintf(label, sizeof label, "%d", k);
            text(&c, x - 3 * (int)strlen(label) * 2, bottom + 14, label, black, 2);
        } else {
            line(&c, x, bottom, x, bottom + 4, black, 0);
        }
    }
    for (int k = 0; k <= 100; k += 10) {
        const int y = PY(k / 100.0);
        line(&c, left, y, right, y, light, 0);
        line(&c, left - 8, y, left, y, black, 0);
        snprintf(label, sizeof label, "%d", k);
        text(&c, left - 14 - 12 * (int)strlen(label), y - 7, label, black, 2);
    }
    line(&c, left, top, left, bottom, black, 0);
    line(&c, left, bottom, right, bottom, black, 0);
    line(&c, left, PY(0.5), right, PY(0.5), grey, 4);
    text(&c, (left + right) / 2 - 60, c.h - 30, "depth (cm)", black, 2);
    text(&c, 10, 14, "relative dose (%)", black, 2);

    if (ranges) {
        line(&c, PX(ranges->r50_cm), top, PX(ranges->r50_cm), bottom, red, 0);
        line(&c, PX(ranges->rp_cm), top, PX(ranges->rp_cm), bottom, blue, 0);
        snprintf(label, sizeof label, "R50 = %.2f cm", ranges->r50_cm);
        text(&c, right - 230, top + 10, label, red, 2);
        snprintf(label, sizeof label, "Rp = %.2f cm", ranges->rp_cm);
        text(&c, right - 230, top + 36, label, blue, 2);
    }
    /* The curve through the slab centres, drawn 2 pixels thick. */
    for (int i = 0; i + 1 < dd->n; ++i)
        for (int t = 0; t < 2; ++t)
            line(&c, PX(dd->depth_cm[i]), PY(dd->mev[i] / dmax) + t, PX(dd->depth_cm[i + 1]),
                 PY(dd->mev[i + 1] / dmax) + t, black, 0);
    if (dd->n == 1) text(&c, PX(dd->depth_cm[0]) - 3, PY(1.0) - 3, "+", black, 1);
#undef PX
#undef PY
    mct_status_t st = write_png(set, path, &c);
    free(c.rgb);
    return st;
}
