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

/* Voxel edges and the half widths of the grid in mm, per axis; the cube's
 * computed as 10 size_cm / n and 5 size_cm, as its files always were. */
static void grid_mm(const mct_phantom_params_t* p, const mct_phantom_grid_t* g, double d_mm[3], double half_mm[3]) {
    const int n[3] = {g->nx, g->ny, g->nz};
    const double d[3] = {g->dx_cm, g->dy_cm, g->dz_cm};
    for (int i = 0; i < 3; ++i) {
        d_mm[i] = p->geometry ? 10.0 * d[i] : 10.0 * p->size_cm / p->voxels;
        half_mm[i] = p->geometry ? 5.0 * n[i] * d[i] : 5.0 * p->size_cm;
    }
}

void mct_phantom_dose_gy(const mct_phantom_params_t* p, const double* mean_mev, double* dose_gy, int64_t nbins) {
    mct_phantom_grid_t g;
    mct_phantom_grid(p, &g);
    const double volume_cm3 = g.dx_cm * g.dy_cm * g.dz_cm;
    const float* density = p->geometry ? p->geometry->density : NULL;
    /* Dose to the medium: each voxel's energy over its own mass; the cube is water at 1 g/cm3. */
    for (int64_t k = 0; k < nbins; ++k) {
        const double mass_kg = (density ? (double)density[k] : 1.0) * volume_cm3 * 1.0e-3;
        dose_gy[k] = mean_mev[k] * MEV_TO_J / mass_kg;
    }
}

mct_status_t mct_phantom_max_voxel(const mct_phantom_params_t* p, const double* grid, mct_phantom_voxel_t* out) {
    if (!p || !grid || !out) return MCT_STATUS_NULL_POINTER;
    if (!p->geometry && p->voxels < 1) return MCT_STATUS_INVALID_VALUE;
    mct_phantom_grid_t g;
    mct_phantom_grid(p, &g);
    if (g.nx < 1 || g.ny < 1 || g.nz < 1) return MCT_STATUS_INVALID_VALUE;
    const int64_t bins = (int64_t)g.nx * g.ny * g.nz;
    int64_t k = 0;
    for (int64_t i = 1; i < bins; ++i)
        if (grid[i] > grid[k]) k = i;
    const int64_t ix = k % g.nx, iy = k / g.nx % g.ny, iz = k / ((int64_t)g.nx * g.ny);
    out->voxel = k;
    out->index[0] = ix, out->index[1] = iy, out->index[2] = iz;
    double d_mm[3], half_mm[3];
    grid_mm(p, &g, d_mm, half_mm);
    out->center_mm[0] = -half_mm[0] + (ix + 0.5) * d_mm[0];
    out->center_mm[1] = -half_mm[1] + (iy + 0.5) * d_mm[1];
    out->center_mm[2] = (iz + 0.5) * d_mm[2];
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
    mct_phantom_grid_t g;
    mct_phantom_grid(p, &g);
    if (!r->slab_batch_mev || r->slabs != g.nz || r->batches < 1) return MCT_STATUS_INVALID_STATE;
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
    const double dz = g.dz_cm;
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
    mct_phantom_grid_t g;
    mct_phantom_grid(p, &g);
    const int dims[3] = {g.nx, g.ny, g.nz};
    double spacing[3], half_mm[3];
    grid_mm(p, &g, spacing, half_mm);
    /* Offset: the centre of the first voxel, with the beam's entry point at
     * (0, 0, 0) on the front face. */
    const double origin[3] = {-half_mm[0] + 0.5 * spacing[0], -half_mm[1] + 0.5 * spacing[1], 0.5 * spacing[2]};
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
    {'/', {1, 1, 2, 4, 8, 16, 16}},      {'+', {0, 4, 4, 31, 4, 4, 0}},   {'x', {0, 0, 17, 10, 4, 10, 17}},
    {'f', {6, 9, 8, 28, 8, 8, 8}},       {'b', {16, 16, 22, 25, 17, 17, 30}}, {'u', {0, 0, 17, 17, 17, 19, 13}},
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

/* ---- Dose slice -------------------------------------------------------------- */

/* The picture's frame: the plot's pixels per cm and its margins. */
#define SLICE_PLOT_PX 720
#define SLICE_LEFT 80
#define SLICE_RIGHT 130
#define SLICE_TOP 50
#define SLICE_BOTTOM 70
/* Voxels below this density (g/cm3: air, not lung) do not set the colour scale. */
#define SLICE_DENSE 0.05

/* The plot's size in pixels: the longer of depth (nz dz) and width (nx dx)
 * on SLICE_PLOT_PX pixels, the other to the same scale (at least 40). */
static void slice_plot(const mct_phantom_grid_t* g, int* pw, int* ph, double* px_per_cm) {
    const double lz = g->nz * g->dz_cm, lx = g->nx * g->dx_cm;
    const double s = SLICE_PLOT_PX / (lz > lx ? lz : lx);
    *pw = (int)lround(lz * s), *ph = (int)lround(lx * s);
    if (*pw < 40) *pw = 40;
    if (*ph < 40) *ph = 40;
    *px_per_cm = s;
}

void mct_phantom_slice_png_size(const mct_phantom_params_t* p, int* w, int* h) {
    mct_phantom_grid_t g;
    mct_phantom_grid(p, &g);
    int pw, ph;
    double s;
    slice_plot(&g, &pw, &ph, &s);
    *w = SLICE_LEFT + pw + SLICE_RIGHT;
    *h = SLICE_TOP + ph + SLICE_BOTTOM;
}

/* A perceptually ordered colour map (dark violet to yellow, as viridis),
 * linear between five stops; t in [0, 1]. */
static void colour(double t, unsigned char out[3]) {
    static const unsigned char stop[5][3] = {{68, 1, 84}, {59, 82, 139}, {33, 145, 140}, {94, 201, 98}, {253, 231, 37}};
    if (!(t > 0.0)) t = 0.0;
    if (t > 1.0) t = 1.0;
    const double x = t * 4.0;
    int i = (int)x;
    if (i > 3) i = 3;
    const double f = x - i;
    for (int c = 0; c < 3; ++c) out[c] = (unsigned char)lround(stop[i][c] + f * (stop[i + 1][c] - stop[i][c]));
}

/* The colour of a dose relative to the scale's top: logarithmic over
 * SLICE_DECADES decades (a pencil beam's dose spans several), 0 below. */
#define SLICE_DECADES 3
static double slice_level(double rel) {
    return rel > 0.0 ? 1.0 + log10(rel) / SLICE_DECADES : 0.0;
}

/* A tick spacing of 1, 2 or 5 times a power of ten giving at most about 8 ticks over len. */
static double tick_step(double len) {
    const double raw = len / 8.0, p10 = pow(10.0, floor(log10(raw)));
    return raw <= p10 ? p10 : raw <= 2.0 * p10 ? 2.0 * p10 : raw <= 5.0 * p10 ? 5.0 * p10 : 10.0 * p10;
}

mct_status_t mct_phantom_write_slice_png(sim_out_set_t* set, const char* path, const mct_phantom_params_t* p,
                                         const double* dose) {
    static const unsigned char black[3] = {0, 0, 0}, white[3] = {255, 255, 255};
    mct_phantom_grid_t g;
    mct_phantom_grid(p, &g);
    int pw, ph;
    double s;
    slice_plot(&g, &pw, &ph, &s);
    canvas_t c = {SLICE_LEFT + pw + SLICE_RIGHT, SLICE_TOP + ph + SLICE_BOTTOM, NULL};
    c.rgb = malloc((size_t)c.w * c.h * 3);
    double* plane = malloc((size_t)g.nx * g.nz * sizeof(double));
    if (!c.rgb || !plane) {
        free(c.rgb), free(plane);
        return MCT_STATUS_OUT_OF_MEMORY;
    }
    memset(c.rgb, 255, (size_t)c.w * c.h * 3);
    /* The plane y = 0 through the beam axis: the middle row of voxels, or
     * the mean of the two rows beside it when ny is even. */
    const int64_t nxy = (int64_t)g.nx * g.ny;
    const int y0 = (g.ny - 1) / 2, y1 = g.ny / 2;
    /* The colour scale's top: the plane's largest dose in voxels of at least
     * SLICE_DENSE g/cm3 (air's dose to the medium, over its small mass, can be
     * far above the body's: those voxels are clipped to the top colour), or
     * of all voxels when none is that dense. */
    const float* density = p->geometry ? p->geometry->density : NULL;
    double dmax = 0.0, dmax_all = 0.0;
    for (int iz = 0; iz < g.nz; ++iz)
        for (int ix = 0; ix < g.nx; ++ix) {
            const int64_t k0 = iz * nxy + (int64_t)y0 * g.nx + ix, k1 = iz * nxy + (int64_t)y1 * g.nx + ix;
            const double v = 0.5 * (dose[k0] + dose[k1]);
            plane[(int64_t)iz * g.nx + ix] = v;
            if (v > dmax_all) dmax_all = v;
            if ((!density || (density[k0] >= SLICE_DENSE && density[k1] >= SLICE_DENSE)) && v > dmax) dmax = v;
        }
    if (!(dmax > 0.0)) dmax = dmax_all;
    const uint8_t* mat = p->geometry ? p->geometry->mat : NULL;
    /* Depth runs to the right, x upwards (the top row is the largest x). */
    int* col_z = malloc((size_t)pw * sizeof(int));
    int* row_x = malloc((size_t)ph * sizeof(int));
    if (!col_z || !row_x) {
        free(c.rgb), free(plane), free(col_z), free(row_x);
        return MCT_STATUS_OUT_OF_MEMORY;
    }
    for (int i = 0; i < pw; ++i) {
        const int iz = (int)((i + 0.5) / pw * g.nz);
        col_z[i] = iz < g.nz ? iz : g.nz - 1;
    }
    for (int j = 0; j < ph; ++j) {
        const int ix = g.nx - 1 - (int)((j + 0.5) / ph * g.nx);
        row_x[j] = ix < 0 ? 0 : ix;
    }
    for (int j = 0; j < ph; ++j)
        for (int i = 0; i < pw; ++i) {
            const int iz = col_z[i], ix = row_x[j];
            unsigned char rgb[3];
            colour(slice_level(dmax > 0.0 ? plane[(int64_t)iz * g.nx + ix] / dmax : 0.0), rgb);
            /* Material boundaries: a white pixel where the next pixel right or
             * below lies in a voxel of another material (of the row y0). */
            if (mat) {
                const uint8_t m = mat[iz * nxy + (int64_t)y0 * g.nx + ix];
                const int right = i + 1 < pw && mat[col_z[i + 1] * nxy + (int64_t)y0 * g.nx + ix] != m;
                const int below = j + 1 < ph && mat[iz * nxy + (int64_t)y0 * g.nx + row_x[j + 1]] != m;
                if (right || below) memcpy(rgb, white, 3);
            }
            put(&c, SLICE_LEFT + i, SLICE_TOP + j, rgb);
        }
    free(plane), free(col_z), free(row_x);

    /* Frame, ticks and labels. */
    const int x0 = SLICE_LEFT, x1 = SLICE_LEFT + pw, yt = SLICE_TOP, yb = SLICE_TOP + ph;
    line(&c, x0 - 1, yt - 1, x1, yt - 1, black, 0);
    line(&c, x0 - 1, yb, x1, yb, black, 0);
    line(&c, x0 - 1, yt - 1, x0 - 1, yb, black, 0);
    line(&c, x1, yt - 1, x1, yb, black, 0);
    char label[48];
    const double lz = g.nz * g.dz_cm, hx = 0.5 * g.nx * g.dx_cm;
    const double sz = tick_step(lz), sx = tick_step(2.0 * hx);
    for (double z = 0.0; z <= lz * (1.0 + 1e-9); z += sz) {
        const int x = x0 + (int)lround(z / lz * pw);
        line(&c, x, yb, x, yb + 6, black, 0);
        snprintf(label, sizeof label, "%g", z);
        text(&c, x - 6 * (int)strlen(label), yb + 12, label, black, 2);
    }
    for (double xv = -floor(hx / sx) * sx; xv <= hx * (1.0 + 1e-9); xv += sx) {
        const int y = yt + (int)lround((hx - xv) / (2.0 * hx) * ph);
        line(&c, x0 - 7, y, x0 - 1, y, black, 0);
        snprintf(label, sizeof label, "%g", fabs(xv) < 1e-9 * sx ? 0.0 : xv);
        text(&c, x0 - 12 - 12 * (int)strlen(label), y - 7, label, black, 2);
    }
    text(&c, x0 + pw / 2 - 60, c.h - 28, "depth (cm)", black, 2);
    text(&c, 8, 14, "x (cm)", black, 2);
    text(&c, x0 + 120, 14, "dose (% of max, log), plane y = 0", black, 2);
    /* Colour bar: a decade per label, 100 % at the top. */
    const int bx = x1 + 30;
    for (int j = 0; j < ph; ++j) {
        unsigned char rgb[3];
        colour(1.0 - (j + 0.5) / ph, rgb);
        for (int i = 0; i < 20; ++i) put(&c, bx + i, yt + j, rgb);
    }
    static const char* const decade[] = {"100", "10", "1", "0.1"};
    for (int k = 0; k <= SLICE_DECADES; ++k) {
        const int y = yt + (int)lround((double)k / SLICE_DECADES * (ph - 1));
        line(&c, bx + 20, y, bx + 24, y, black, 0);
        text(&c, bx + 28, y - 7, decade[k], black, 2);
    }
    mct_status_t st = write_png(set, path, &c);
    free(c.rgb);
    return st;
}
