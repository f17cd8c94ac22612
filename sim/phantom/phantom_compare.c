/* SPDX-License-Identifier: BSD-3-Clause */
/** @file phantom_compare.c  A run's laterally integrated depth dose against
 * the EGSnrc references compiled in from data/reference/egsnrc or a file's
 * (see mct_phantom_comparison_t in phantom.h for the test), and its dose in
 * the zones of a lateral reference (slabs x annuli) against the reference's
 * (mct_phantom_lateral_t). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "phantom.h"
#include "phantom_refs.h"
#include "sim_common.h"

/* Slab boundaries closer than this (cm) are the same boundary. */
#define SAME_CM 1e-6

/* The test of both comparisons (mct_phantom_comparison_t and
 * mct_phantom_lateral_t, phantom.h): points whose reference dose is at least
 * TEST_LOW of the reference maximum are compared, at TEST_DOSE of that
 * maximum or a distance to agreement of TEST_DTA_CM. */
#define TEST_LOW 0.05
#define TEST_DOSE 0.02
#define TEST_DTA_CM 0.1

/* Whether point i of the run's curve (doses d at positions x, n points)
 * passes against the reference dose dr there, dmax the reference's maximum
 * and sig the allowance of k standard errors: the doses differ by at most
 * TEST_DOSE dmax + sig, or the run's curve between the positions of its
 * neighbours within TEST_DTA_CM reaches dr (distance to agreement). */
static int point_passes(const double* x, const double* d, int n, int i, double dr, double dmax, double sig) {
    if (fabs(d[i] - dr) <= TEST_DOSE * dmax + sig) return 1;
    double lo = d[i], hi = d[i];
    for (int j = i - 1; j <= i + 1; j += 2) {
        if (j < 0 || j >= n || fabs(x[j] - x[i]) > TEST_DTA_CM + SAME_CM) continue;
        lo = d[j] < lo ? d[j] : lo;
        hi = d[j] > hi ? d[j] : hi;
    }
    return dr >= lo - sig && dr <= hi + sig;
}

/* A curve on the common slabs: lower edge, width, energy, variance and mass
 * thickness (g/cm2: the width in water at 1 g/cm3). */
typedef struct {
    int n;
    double *lo, *w, *e, *var, *mass;
} merged_t;

static void merged_free(merged_t* m) {
    free(m->lo), free(m->w), free(m->e), free(m->var), free(m->mass);
    memset(m, 0, sizeof *m);
}

/* Walks both grids (run: slabs of dz from 0; reference: its rows) and sums
 * each into the slabs between the boundaries both have, up to the end of the
 * shorter. */
static int merge(const mct_phantom_depth_dose_t* dd, const double* rows, int nr, const double* rho, merged_t* a,
                 merged_t* b) {
    const int nd = dd->n;
    const double dz = 2.0 * dd->depth_cm[0];
    const int cap = nr < nd ? nr : nd;
    merged_t* m[2] = {a, b};
    for (int k = 0; k < 2; ++k) {
        m[k]->n = 0;
        m[k]->lo = malloc((size_t)cap * sizeof(double));
        m[k]->w = malloc((size_t)cap * sizeof(double));
        m[k]->e = malloc((size_t)cap * sizeof(double));
        m[k]->var = malloc((size_t)cap * sizeof(double));
        m[k]->mass = malloc((size_t)cap * sizeof(double));
        if (!m[k]->lo || !m[k]->w || !m[k]->e || !m[k]->var || !m[k]->mass) return 0;
    }
    int i = 0, j = 0; /* next run slab, next reference slab */
    double start = 0.0, ea = 0.0, va = 0.0, eb = 0.0, vb = 0.0, mass = 0.0;
    while (i < nd && j < nr) {
        const double* r = rows + 4 * (size_t)j;
        const double run_hi = (i + 1) * dz, ref_hi = r[0] + 0.5 * r[1];
        if (run_hi <= ref_hi + SAME_CM) {
            ea += dd->mev[i], va += dd->err[i] * dd->err[i];
            mass += dz * (rho ? rho[i] : 1.0);
            ++i;
        }
        if (ref_hi <= run_hi + SAME_CM) {
            eb += r[2], vb += r[3] * r[3];
            ++j;
        }
        if (fabs(run_hi - ref_hi) <= SAME_CM) { /* a common boundary */
            const int n = a->n;
            a->lo[n] = b->lo[n] = start;
            a->w[n] = b->w[n] = ref_hi - start;
            a->e[n] = ea, a->var[n] = va, b->e[n] = eb, b->var[n] = vb;
            a->mass[n] = b->mass[n] = mass;
            a->n = b->n = n + 1;
            start = ref_hi;
            ea = va = eb = vb = mass = 0.0;
        }
    }
    return 1;
}

static double max_dose(const merged_t* m) {
    double d = 0.0;
    for (int i = 0; i < m->n; ++i)
        if (m->e[i] / m->mass[i] > d) d = m->e[i] / m->mass[i];
    return d;
}

/* A uniform-slab curve as a depth dose, for mct_phantom_ranges. */
static mct_status_t ranges_of(const merged_t* m, mct_phantom_ranges_t* out) {
    for (int i = 1; i < m->n; ++i)
        if (fabs(m->w[i] - m->w[0]) > SAME_CM) return MCT_STATUS_INVALID_STATE;
    mct_phantom_depth_dose_t dd = {m->n, NULL, NULL, NULL};
    dd.depth_cm = malloc((size_t)m->n * sizeof(double));
    dd.err = malloc((size_t)m->n * sizeof(double));
    mct_status_t st = MCT_STATUS_OUT_OF_MEMORY;
    if (dd.depth_cm && dd.err) {
        for (int i = 0; i < m->n; ++i) dd.depth_cm[i] = m->lo[i] + 0.5 * m->w[i], dd.err[i] = sqrt(m->var[i]);
        dd.mev = m->e;
        st = mct_phantom_ranges(&dd, out);
    }
    free(dd.depth_cm), free(dd.err);
    return st;
}

/* The slabs' densities on the beam axis (NULL for the water cube): what
 * turns energy per slab into dose to the medium. */
static double* axis_density(const mct_phantom_params_t* p, int slabs) {
    const mct_phantom_geometry_t* g = p->geometry;
    if (!g || g->nz != slabs) return NULL;
    double* rho = malloc((size_t)slabs * sizeof *rho);
    if (!rho) return NULL;
    const int64_t axis = (int64_t)(g->nx / 2) + (int64_t)g->nx * (g->ny / 2);
    for (int z = 0; z < slabs; ++z) rho[z] = g->density[axis + (int64_t)z * g->nx * g->ny];
    return rho;
}

/* The test of phantom.h's mct_phantom_comparison_t against a reference of
 * nr rows (depth_cm, width_cm, mev, err), doses per unit mass. */
static mct_status_t compare_rows(const mct_phantom_params_t* p, const mct_phantom_depth_dose_t* dd, const char* name,
                                 const double* rows, int nr, double k, mct_phantom_comparison_t* out) {
    if (dd->n < 2 || nr < 1) return MCT_STATUS_NOT_SUPPORTED;
    double* rho = NULL;
    if (p->geometry && !(rho = axis_density(p, dd->n))) return MCT_STATUS_OUT_OF_MEMORY;
    merged_t a = {0}, b = {0};
    const int merged = merge(dd, rows, nr, rho, &a, &b);
    free(rho);
    if (!merged) {
        merged_free(&a), merged_free(&b);
        return MCT_STATUS_OUT_OF_MEMORY;
    }
    if (a.n < 10) {
        merged_free(&a), merged_free(&b);
        return MCT_STATUS_NOT_SUPPORTED;
    }
    /* The same energy over the common slabs. The normalisation's own error
     * (the total's, far below a slab's) is left out. */
    double ta = 0.0, tb = 0.0;
    for (int i = 0; i < a.n; ++i) ta += a.e[i], tb += b.e[i];
    for (int i = 0; i < a.n; ++i) {
        const double f = tb / ta;
        a.e[i] *= f, a.var[i] *= f * f;
    }
    const double dmax = max_dose(&b);
    double* x = malloc((size_t)a.n * 2 * sizeof *x); /* the slabs' centres, then the run's doses */
    if (!x) {
        merged_free(&a), merged_free(&b);
        return MCT_STATUS_OUT_OF_MEMORY;
    }
    double* dm = x + a.n;
    for (int i = 0; i < a.n; ++i) x[i] = a.lo[i] + 0.5 * a.w[i], dm[i] = a.e[i] / a.mass[i];
    out->name = name;
    out->k = k;
    double worst_fail = -1.0, worst_all = 0.0, depth_fail = 0.0, depth_all = 0.0;
    for (int i = 0; i < a.n; ++i) {
        const double dr = b.e[i] / a.mass[i];
        if (dr < TEST_LOW * dmax) continue;
        const double sig = k * sqrt(a.var[i] + b.var[i]) / a.mass[i];
        const double diff = fabs(dm[i] - dr) / dmax;
        const int pass = point_passes(x, dm, a.n, i, dr, dmax, sig);
        ++out->points;
        out->passed += pass;
        if (!pass && diff > worst_fail) worst_fail = diff, depth_fail = x[i];
        if (diff > worst_all) worst_all = diff, depth_all = x[i];
    }
    free(x);
    out->worst_diff = worst_fail >= 0.0 ? worst_fail : worst_all;
    out->worst_depth_cm = worst_fail >= 0.0 ? depth_fail : depth_all;
    if (p->particle == MCT_PHANTOM_ELECTRON && !p->geometry) /* ranges in cm mean little across media */
        out->ranges = ranges_of(&a, &out->run) == MCT_STATUS_SUCCESS && ranges_of(&b, &out->ref) == MCT_STATUS_SUCCESS;
    merged_free(&a), merged_free(&b);
    return MCT_STATUS_SUCCESS;
}

mct_status_t mct_phantom_egsnrc_compare(const mct_phantom_params_t* p, const mct_phantom_depth_dose_t* dd, double k,
                                        mct_phantom_comparison_t* out) {
    if (!p || !dd || !out) return MCT_STATUS_NULL_POINTER;
    memset(out, 0, sizeof *out);
    const sim_phantom_ref_t* ref = NULL;
    for (int i = 0; i < sim_phantom_refs_n; ++i)
        if (sim_phantom_refs[i].particle == p->particle && fabs(sim_phantom_refs[i].energy_MeV - p->energy_MeV) < 1e-9)
            ref = &sim_phantom_refs[i];
    /* The references are of the water cube's pencil beam: a geometry or another source is another problem. */
    if (!ref || p->geometry || p->source != MCT_PHANTOM_SOURCE_BEAM || fabs(p->electron_cutoff_MeV - 0.2) > 1e-9 ||
        fabs(p->photon_cutoff_MeV - 0.01) > 1e-9)
        return MCT_STATUS_NOT_SUPPORTED;
    return compare_rows(p, dd, ref->name, ref->rows, *ref->n, k, out);
}

mct_status_t mct_phantom_compare_reference(const mct_phantom_params_t* p, const mct_phantom_depth_dose_t* dd,
                                           const char* name, const double* rows, int n, double k,
                                           mct_phantom_comparison_t* out) {
    if (!p || !dd || !rows || !out) return MCT_STATUS_NULL_POINTER;
    memset(out, 0, sizeof *out);
    for (int i = 0; i < n; ++i) {
        const double* r = rows + 4 * (size_t)i;
        const int ordered = i == 0 || r[0] - 0.5 * r[1] >= rows[4 * (size_t)(i - 1)] + 0.5 * rows[4 * (size_t)(i - 1) + 1] - SAME_CM;
        if (!(r[1] > 0.0) || !(r[0] - 0.5 * r[1] >= -SAME_CM) || !isfinite(r[2]) || !(r[3] >= 0.0) || !ordered)
            return MCT_STATUS_INVALID_VALUE;
    }
    return compare_rows(p, dd, name, rows, n, k, out);
}

/* ---- Lateral dose against a reference in slabs x annuli ------------------ */

/* Integral over [0, x] of sqrt(r^2 - t^2) dt, 0 <= x <= r. */
static double half_chord_integral(double r, double x) {
    const double s = x >= r ? 1.0 : x / r;
    return 0.5 * (x * sqrt(fmax(r * r - x * x, 0.0)) + r * r * asin(s));
}

/* The area the disc of radius r about the origin shares with [0, a] x [0, b], a, b >= 0. */
static double quadrant_area(double r, double a, double b) {
    a = fmin(a, r), b = fmin(b, r);
    if (a * a + b * b <= r * r) return a * b;
    /* The circle crosses y = b at xa <= a: below it the rectangle's top, beyond it the arc. */
    const double xa = sqrt(fmax(r * r - b * b, 0.0));
    return xa * b + half_chord_integral(r, a) - half_chord_integral(r, xa);
}

/* The signed area of the disc within the rectangle between the origin and (x, y). */
static double corner_area(double r, double x, double y) {
    const double a = quadrant_area(r, fabs(x), fabs(y));
    return (x < 0.0) != (y < 0.0) ? -a : a;
}

double mct_phantom_disc_rect_area(double r, double x0, double x1, double y0, double y1) {
    if (!(r > 0.0) || !(x1 > x0) || !(y1 > y0)) return 0.0;
    /* Nothing of the disc: the rectangle lies beyond r on one side. */
    if (x0 >= r || x1 <= -r || y0 >= r || y1 <= -r) return 0.0;
    const double a = corner_area(r, x1, y1) - corner_area(r, x0, y1) - corner_area(r, x1, y0) + corner_area(r, x0, y0);
    return a > 0.0 ? a : 0.0;
}

/* The first and last voxel index along an axis of n voxels of d (centred
 * on 0 laterally when centred, from 0 in depth otherwise) that [lo, hi] touches; 0 when none. */
static int voxel_span(double lo, double hi, int n, double d, int centred, int* first, int* last) {
    const double o = centred ? 0.5 * n * d : 0.0;
    const double a = floor((lo + o) / d), b = ceil((hi + o) / d) - 1.0;
    *first = a < 0.0 ? 0 : a > n - 1 ? n : (int)a;
    *last = b > n - 1 ? n - 1 : b < 0.0 ? -1 : (int)b;
    return *first <= *last;
}

static int zone_valid(const double* zone) {
    const double z0 = zone[0], z1 = zone[1], r0 = zone[2], r1 = zone[3];
    return z0 >= 0.0 && z1 > z0 && r0 >= 0.0 && r1 > r0 && isfinite(z1) && isfinite(r1);
}

/* The share of the rectangle [x0, x1] x [y0, y1] inside the annulus r0..r1
 * about the origin: 1 exactly when the rectangle lies wholly in it, 0 when
 * wholly outside, else the closed-form areas over the rectangle's. */
static double annulus_share(double r0, double r1, double x0, double x1, double y0, double y1, double area) {
    const double nx = x0 > 0.0 ? x0 : x1 < 0.0 ? -x1 : 0.0, ny = y0 > 0.0 ? y0 : y1 < 0.0 ? -y1 : 0.0;
    const double fx = fmax(fabs(x0), fabs(x1)), fy = fmax(fabs(y0), fabs(y1));
    const double near2 = nx * nx + ny * ny, far2 = fx * fx + fy * fy;
    if (near2 >= r1 * r1 || far2 <= r0 * r0) return 0.0;
    if (far2 <= r1 * r1 && near2 >= r0 * r0) return 1.0;
    double a = mct_phantom_disc_rect_area(r1, x0, x1, y0, y1);
    if (a > 0.0 && r0 > 0.0) a -= mct_phantom_disc_rect_area(r0, x0, x1, y0, y1);
    return a > 0.0 ? fmin(a / area, 1.0) : 0.0;
}

/* The voxels zone touches (a valid one) and their shares f_v, into voxel and
 * weight when they are not NULL; returns how many. */
static int64_t zone_voxels(const mct_phantom_grid_t* g, const double* zone, int64_t* voxel, double* weight) {
    const double z0 = zone[0], z1 = zone[1], r0 = zone[2], r1 = zone[3];
    const double hx = 0.5 * g->nx * g->dx_cm, hy = 0.5 * g->ny * g->dy_cm, area = g->dx_cm * g->dy_cm;
    int ix0, ix1, iy0, iy1, iz0, iz1;
    int64_t count = 0;
    if (!voxel_span(-r1, r1, g->nx, g->dx_cm, 1, &ix0, &ix1) || !voxel_span(-r1, r1, g->ny, g->dy_cm, 1, &iy0, &iy1) ||
        !voxel_span(z0, z1, g->nz, g->dz_cm, 0, &iz0, &iz1))
        return 0;
    for (int iz = iz0; iz <= iz1; ++iz) {
        const double lo = iz * g->dz_cm, hi = (iz + 1) * g->dz_cm;
        /* The share of the voxel's depth inside the slab: 1 exactly when it lies wholly inside. */
        const double fz = z0 <= lo && hi <= z1 ? 1.0 : (fmin(z1, hi) - fmax(z0, lo)) / g->dz_cm;
        if (!(fz > 0.0)) continue;
        for (int iy = iy0; iy <= iy1; ++iy) {
            const double y0 = iy * g->dy_cm - hy, y1 = y0 + g->dy_cm;
            for (int ix = ix0; ix <= ix1; ++ix) {
                const double x0 = ix * g->dx_cm - hx, x1 = x0 + g->dx_cm;
                const double fxy = annulus_share(r0, r1, x0, x1, y0, y1, area);
                if (!(fxy > 0.0)) continue;
                if (voxel) {
                    voxel[count] = ix + (int64_t)g->nx * (iy + (int64_t)g->ny * iz);
                    weight[count] = fxy * fz;
                }
                ++count;
            }
        }
    }
    return count;
}

void mct_phantom_zone_map_free(mct_phantom_zone_map_t* m) {
    if (!m) return;
    free(m->start), free(m->voxel), free(m->weight);
    memset(m, 0, sizeof *m);
}

mct_status_t mct_phantom_zone_map(const mct_phantom_params_t* p, const double* zones, int n,
                                  mct_phantom_zone_map_t* out) {
    if (!out) return MCT_STATUS_NULL_POINTER;
    memset(out, 0, sizeof *out);
    if (!p || (n > 0 && !zones)) return MCT_STATUS_NULL_POINTER;
    if (n < 0) return MCT_STATUS_INVALID_VALUE;
    for (int j = 0; j < n; ++j)
        if (!zone_valid(zones + (size_t)MCT_PHANTOM_ZONE_COLUMNS * j)) return MCT_STATUS_INVALID_VALUE;
    mct_phantom_grid_t g;
    mct_phantom_grid(p, &g);
    out->zones = n;
    out->start = malloc(((size_t)n + 1) * sizeof *out->start);
    if (!out->start) return MCT_STATUS_OUT_OF_MEMORY;
    out->start[0] = 0;
    for (int j = 0; j < n; ++j)
        out->start[j + 1] = out->start[j] + zone_voxels(&g, zones + (size_t)MCT_PHANTOM_ZONE_COLUMNS * j, NULL, NULL);
    const size_t total = (size_t)out->start[n];
    out->voxel = malloc((total ? total : 1) * sizeof *out->voxel);
    out->weight = malloc((total ? total : 1) * sizeof *out->weight);
    if (!out->voxel || !out->weight) {
        mct_phantom_zone_map_free(out);
        return MCT_STATUS_OUT_OF_MEMORY;
    }
    for (int j = 0; j < n; ++j)
        zone_voxels(&g, zones + (size_t)MCT_PHANTOM_ZONE_COLUMNS * j, out->voxel + out->start[j],
                    out->weight + out->start[j]);
    return MCT_STATUS_SUCCESS;
}

void mct_phantom_zone_sums(const mct_phantom_zone_map_t* m, const double* e, double* out) {
    for (int j = 0; j < m->zones; ++j) {
        double sum = 0.0;
        for (int64_t i = m->start[j]; i < m->start[j + 1]; ++i) sum += m->weight[i] * e[m->voxel[i]];
        out[j] = sum;
    }
}

/* Zone j of map m: its mass inside p's grid (g), its energy per history
 * (MeV) from the voxels' means, and the variance of that energy with the
 * voxels' errors (rel_err; NULL: NaN) taken as independent. */
static void zone_totals(const mct_phantom_params_t* p, const mct_phantom_zone_map_t* m, int j, const double* mean_mev,
                        const double* rel_err, double* mass_g, double* energy_mev, double* var_mev2) {
    mct_phantom_grid_t g;
    mct_phantom_grid(p, &g);
    const float* rho = p->geometry ? p->geometry->density : NULL;
    const double vol = g.dx_cm * g.dy_cm * g.dz_cm;
    double mass = 0.0, energy = 0.0, var = 0.0;
    for (int64_t i = m->start[j]; i < m->start[j + 1]; ++i) {
        const int64_t k = m->voxel[i];
        const double f = m->weight[i], e = mean_mev[k];
        const double s = !rel_err ? NAN : e == 0.0 && rel_err[k] == 0.0 ? 0.0 : rel_err[k] * fabs(e);
        energy += f * e;
        mass += f * (rho ? (double)rho[k] : 1.0) * vol;
        var += f * f * s * s;
    }
    *mass_g = mass, *energy_mev = energy, *var_mev2 = var;
}

mct_status_t mct_phantom_zone_energy(const mct_phantom_params_t* p, const double* mean_mev, const double* rel_err,
                                     const double zone[4], double* mass_g, double* energy_mev, double* err_mev) {
    if (!p || !mean_mev || !zone || !mass_g || !energy_mev || !err_mev) return MCT_STATUS_NULL_POINTER;
    mct_phantom_zone_map_t m;
    const mct_status_t st = mct_phantom_zone_map(p, zone, 1, &m);
    if (st) return st;
    double var;
    zone_totals(p, &m, 0, mean_mev, rel_err, mass_g, energy_mev, &var);
    *err_mev = sqrt(var);
    mct_phantom_zone_map_free(&m);
    return MCT_STATUS_SUCCESS;
}

/* A zone of a lateral reference, with its row (0-based) in the file. */
typedef struct {
    double z0, z1, r0, r1, dose, err;
    int row;
} zone_t;

/* A slab: zones [first, first + count) of the sorted zones, by rising r. */
typedef struct {
    int first, count;
} slab_t;

typedef struct {
    zone_t* zone; /* sorted by slab, then by r */
    slab_t* slab; /* every slab of the file, by depth */
    int nslabs;
    int* use;     /* the slabs compared, by depth (indices into slab) */
    int nuse;
} lateral_plan_t;

static void plan_free(lateral_plan_t* q) {
    free(q->zone), free(q->slab), free(q->use);
    memset(q, 0, sizeof *q);
}

static int by_z_then_r(const void* a, const void* b) {
    const zone_t *x = a, *y = b;
    if (x->z0 != y->z0) return x->z0 < y->z0 ? -1 : 1;
    if (x->r0 != y->r0) return x->r0 < y->r0 ? -1 : 1;
    return x->row - y->row;
}

static int by_r(const void* a, const void* b) {
    const zone_t *x = a, *y = b;
    if (x->r0 != y->r0) return x->r0 < y->r0 ? -1 : 1;
    return x->row - y->row;
}

#define lat_fail(err, errlen, ...) sim_fail(err, errlen, MCT_STATUS_INVALID_VALUE, __VA_ARGS__)

#define ZONE_FMT "row %d (z %g-%g cm, r %g-%g cm)"
#define ZONE_ARGS(z) (z)->row + 1, (z)->z0, (z)->z1, (z)->r0, (z)->r1

/* Checks the rows and sorts them into slabs: SUCCESS, or INVALID_VALUE /
 * OUT_OF_MEMORY with err. */
static mct_status_t plan_zones(const char* name, const double* rows, int n, lateral_plan_t* q, char* err, size_t errlen) {
    if (n < 1) return lat_fail(err, errlen, "%s: no zones", name);
    q->zone = malloc((size_t)n * sizeof *q->zone);
    q->slab = malloc((size_t)n * sizeof *q->slab);
    if (!q->zone || !q->slab) return MCT_STATUS_OUT_OF_MEMORY;
    for (int i = 0; i < n; ++i) {
        const double* r = rows + (size_t)MCT_PHANTOM_LATERAL_COLUMNS * i;
        zone_t* z = &q->zone[i];
        *z = (zone_t){r[0], r[1], r[2], r[3], r[4], r[5], i};
        for (int c = 0; c < MCT_PHANTOM_LATERAL_COLUMNS; ++c)
            if (!isfinite(r[c])) return lat_fail(err, errlen, "%s: row %d: column %d is not a finite number", name, i + 1, c + 1);
        if (!(z->z0 >= 0.0)) return lat_fail(err, errlen, "%s: " ZONE_FMT ": z_lo_cm is before the entry face", name, ZONE_ARGS(z));
        if (!(z->z1 > z->z0)) return lat_fail(err, errlen, "%s: " ZONE_FMT ": z_hi_cm is not above z_lo_cm", name, ZONE_ARGS(z));
        if (!(z->r0 >= 0.0)) return lat_fail(err, errlen, "%s: " ZONE_FMT ": r_lo_cm is negative", name, ZONE_ARGS(z));
        if (!(z->r1 > z->r0)) return lat_fail(err, errlen, "%s: " ZONE_FMT ": r_hi_cm is not above r_lo_cm", name, ZONE_ARGS(z));
        if (!(z->dose >= 0.0)) return lat_fail(err, errlen, "%s: " ZONE_FMT ": the dose %g is negative", name, ZONE_ARGS(z), z->dose);
        if (!(z->err >= 0.0)) return lat_fail(err, errlen, "%s: " ZONE_FMT ": the error %g is negative", name, ZONE_ARGS(z), z->err);
    }
    qsort(q->zone, (size_t)n, sizeof *q->zone, by_z_then_r);
    q->nslabs = 0;
    for (int i = 0; i < n;) {
        const zone_t* a = &q->zone[i];
        int j = i + 1;
        while (j < n && q->zone[j].z0 <= a->z0 + SAME_CM) ++j;
        for (int t = i + 1; t < j; ++t)
            if (fabs(q->zone[t].z1 - a->z1) > SAME_CM)
                return lat_fail(err, errlen, "%s: " ZONE_FMT " and " ZONE_FMT ": their slabs overlap", name, ZONE_ARGS(a),
                                ZONE_ARGS(&q->zone[t]));
        if (q->nslabs > 0) {
            const zone_t* prev = &q->zone[q->slab[q->nslabs - 1].first];
            if (a->z0 < prev->z1 - SAME_CM)
                return lat_fail(err, errlen, "%s: " ZONE_FMT " and " ZONE_FMT ": their slabs overlap", name,
                                ZONE_ARGS(prev), ZONE_ARGS(a));
        }
        qsort(q->zone + i, (size_t)(j - i), sizeof *q->zone, by_r);
        for (int t = i + 1; t < j; ++t)
            if (q->zone[t].r0 < q->zone[t - 1].r1 - SAME_CM)
                return lat_fail(err, errlen, "%s: " ZONE_FMT " and " ZONE_FMT ": their annuli overlap", name,
                                ZONE_ARGS(&q->zone[t - 1]), ZONE_ARGS(&q->zone[t]));
        q->slab[q->nslabs++] = (slab_t){i, j - i};
        i = j;
    }
    return MCT_STATUS_SUCCESS;
}

/* Whether the slab of zone z holds the depth (cm). */
static int slab_holds(const zone_t* z, double depth) { return depth >= z->z0 - SAME_CM && depth < z->z1 - SAME_CM; }

/* The slabs to compare (q->use), each inside p's grid. */
static mct_status_t plan_slabs(const mct_phantom_params_t* p, const char* name, const double* depths, int nd,
                               lateral_plan_t* q, char* err, size_t errlen) {
    mct_phantom_grid_t g;
    mct_phantom_grid(p, &g);
    const double depth = g.nz * g.dz_cm;
    const double side = 0.5 * fmin(g.nx * g.dx_cm, g.ny * g.dy_cm);
    q->use = malloc((size_t)(nd > q->nslabs ? nd : q->nslabs) * sizeof *q->use);
    if (!q->use) return MCT_STATUS_OUT_OF_MEMORY;
    q->nuse = 0;
    for (int s = 0; s < q->nslabs; ++s) {
        const zone_t* z = &q->zone[q->slab[s].first];
        int wanted = nd == 0 && z->z1 <= depth + SAME_CM;
        for (int d = 0; d < nd; ++d) wanted |= slab_holds(z, depths[d]);
        if (wanted) q->use[q->nuse++] = s;
    }
    for (int d = 0; d < nd; ++d) {
        int found = 0;
        for (int u = 0; u < q->nuse && !found; ++u) {
            const zone_t* z = &q->zone[q->slab[q->use[u]].first];
            found = slab_holds(z, depths[d]);
        }
        if (!found)
            return lat_fail(err, errlen, "%s: no slab contains the depth %g cm (the slabs span %g to %g cm)", name,
                            depths[d], q->zone[0].z0, q->zone[q->slab[q->nslabs - 1].first].z1);
    }
    if (q->nuse == 0)
        return lat_fail(err, errlen, "%s: no slab lies inside the phantom (0 to %g cm deep; the slabs span %g to %g cm)",
                        name, depth, q->zone[0].z0, q->zone[q->slab[q->nslabs - 1].first].z1);
    for (int u = 0; u < q->nuse; ++u) {
        const slab_t* s = &q->slab[q->use[u]];
        for (int t = s->first; t < s->first + s->count; ++t) {
            const zone_t* z = &q->zone[t];
            if (z->z1 > depth + SAME_CM)
                return lat_fail(err, errlen, "%s: " ZONE_FMT ": the zone is outside the phantom (%g cm deep)", name,
                                ZONE_ARGS(z), depth);
            if (z->r1 > side + SAME_CM)
                return lat_fail(err, errlen, "%s: " ZONE_FMT ": the annulus reaches beyond the phantom's sides (%g cm "
                                "from the axis)", name, ZONE_ARGS(z), side);
        }
    }
    return MCT_STATUS_SUCCESS;
}

static mct_status_t lateral_plan(const mct_phantom_params_t* p, const char* name, const double* rows, int n,
                                 const double* depths, int nd, lateral_plan_t* q, char* err, size_t errlen) {
    memset(q, 0, sizeof *q);
    if (err && errlen) err[0] = '\0';
    if (!p || !name || !rows || (nd > 0 && !depths)) return MCT_STATUS_NULL_POINTER;
    if (p->source != MCT_PHANTOM_SOURCE_BEAM)
        return sim_fail(err, errlen, MCT_STATUS_NOT_SUPPORTED, "%s: a lateral profile is the pencil beam's", name);
    for (int d = 0; d < nd; ++d)
        if (!isfinite(depths[d]) || depths[d] < 0.0) return lat_fail(err, errlen, "%s: depth %g cm is not >= 0", name, depths[d]);
    mct_status_t st = plan_zones(name, rows, n, q, err, errlen);
    if (!st) st = plan_slabs(p, name, depths, nd, q, err, errlen);
    if (st) {
        if (st == MCT_STATUS_OUT_OF_MEMORY && err && errlen) snprintf(err, errlen, "%s: out of memory", name);
        plan_free(q);
    }
    return st;
}

mct_status_t mct_phantom_lateral_check(const mct_phantom_params_t* p, const char* name, const double* rows, int n,
                                       const double* depths_cm, int ndepths, char* err, size_t errlen) {
    lateral_plan_t q;
    const mct_status_t st = lateral_plan(p, name, rows, n, depths_cm, ndepths, &q, err, errlen);
    plan_free(&q);
    return st;
}

void mct_phantom_lateral_free(mct_phantom_lateral_t* out) {
    if (!out) return;
    free(out->slab);
    free(out->zone);
    memset(out, 0, sizeof *out);
}

/* One slab's test (mct_phantom_lateral_t): the run's doses d and errors s,
 * the reference's dr and sr, on one scale, for the slab's zones z by r, with
 * x room for their centres. */
static void test_slab(const zone_t* z, int n, const double* d, const double* s, const double* dr, const double* sr,
                      double k, double* x, mct_phantom_lateral_slab_t* o, mct_phantom_lateral_zone_t* oz) {
    o->z_lo_cm = z[0].z0, o->z_hi_cm = z[0].z1;
    o->zones = n;
    for (int i = 0; i < n; ++i) oz[i] = (mct_phantom_lateral_zone_t){z[i].r0, z[i].r1, d[i], s[i], 0.0, dr[i], sr[i], 0, 0};
    double dmax = 0.0;
    for (int i = 0; i < n; ++i) dmax = fmax(dmax, dr[i]), x[i] = 0.5 * (z[i].r0 + z[i].r1);
    o->ref_max = dmax;
    double worst_fail = -1.0, worst_all = 0.0;
    int at_fail = 0, at_all = 0;
    for (int i = 0; i < n; ++i) {
        if (!(dr[i] >= TEST_LOW * dmax) || !(dmax > 0.0)) continue;
        const double sig = k * sqrt(s[i] * s[i] + sr[i] * sr[i]);
        const double diff = fabs(d[i] - dr[i]) / dmax;
        const int pass = point_passes(x, d, n, i, dr[i], dmax, sig);
        ++o->points;
        o->passed += pass;
        oz[i].compared = 1, oz[i].passed = pass;
        if (!pass && diff > worst_fail) worst_fail = diff, at_fail = i;
        if (diff > worst_all) worst_all = diff, at_all = i;
    }
    const int at = worst_fail >= 0.0 ? at_fail : at_all;
    o->worst_diff = worst_fail >= 0.0 ? worst_fail : worst_all;
    o->worst_r_lo_cm = z[at].r0, o->worst_r_hi_cm = z[at].r1;
    o->pass = o->points > 0 && o->passed == o->points;
}

/* The zones of the compared slabs of plan q, one after another (slab by
 * depth, each by rising r), MCT_PHANTOM_ZONE_COLUMNS doubles each, and their count. */
static double* plan_zone_list(const lateral_plan_t* q, int* nz) {
    int n = 0;
    for (int u = 0; u < q->nuse; ++u) n += q->slab[q->use[u]].count;
    *nz = n;
    double* zones = malloc((size_t)(n > 0 ? n : 1) * MCT_PHANTOM_ZONE_COLUMNS * sizeof *zones);
    if (!zones) return NULL;
    for (int u = 0, i = 0; u < q->nuse; ++u) {
        const slab_t* sl = &q->slab[q->use[u]];
        for (int t = sl->first; t < sl->first + sl->count; ++t, ++i) {
            const zone_t* z = &q->zone[t];
            double* o = zones + (size_t)MCT_PHANTOM_ZONE_COLUMNS * i;
            o[0] = z->z0, o[1] = z->z1, o[2] = z->r0, o[3] = z->r1;
        }
    }
    return zones;
}

mct_status_t mct_phantom_lateral_zones(const mct_phantom_params_t* p, const char* name, const double* rows, int n,
                                       const double* depths_cm, int ndepths, double** zones, int* nzones, char* err,
                                       size_t errlen) {
    if (!zones || !nzones) return MCT_STATUS_NULL_POINTER;
    *zones = NULL, *nzones = 0;
    lateral_plan_t q;
    const mct_status_t st = lateral_plan(p, name, rows, n, depths_cm, ndepths, &q, err, errlen);
    if (st) return st;
    *zones = plan_zone_list(&q, nzones);
    plan_free(&q);
    if (*zones) return MCT_STATUS_SUCCESS;
    *nzones = 0;
    return sim_fail(err, errlen, MCT_STATUS_OUT_OF_MEMORY, "%s: out of memory", name);
}

/* Whether r recorded exactly the nz zones of list (p->zones too) per batch, over >= 2 batches. */
static int batch_zones_match(const mct_phantom_params_t* p, const mct_phantom_result_t* r, const double* list, int nz) {
    if (!r->zone_batch_mev || !r->batch_histories || r->zones != nz || p->nzones != nz || !p->zones || r->batches < 2)
        return 0;
    return !memcmp(p->zones, list, (size_t)nz * MCT_PHANTOM_ZONE_COLUMNS * sizeof *list);
}

/* The batch standard errors of the run's energies per history in the nz
 * zones (MeV), from r's batch energies: se[j] of zone j's energy, or with
 * integral set, of its share of the energy of all nz zones (R_j = X_j / T,
 * to first order in the batches' deviations: the batch method on the
 * residuals x_jb - R_j t_b, over T / N), and *se_total of the energy of all
 * nz zones. tmp: room for 2 x batches doubles. */
static void batch_errors(const mct_phantom_result_t* r, int nz, int integral, double* se, double* se_total,
                         double* tmp) {
    const int64_t nb = r->batches;
    const double* x = r->zone_batch_mev;
    double* t = tmp;       /* each batch's energy in all zones */
    double* y = tmp + nb;  /* residuals */
    double n = 0.0, total = 0.0;
    for (int64_t b = 0; b < nb; ++b) {
        n += (double)r->batch_histories[b];
        t[b] = 0.0;
        for (int j = 0; j < nz; ++j) t[b] += x[b * nz + j];
        total += t[b];
    }
    *se_total = sim_batch_error(t, 1, r->batch_histories, nb, total, n);
    for (int j = 0; j < nz; ++j) {
        double xj = 0.0;
        for (int64_t b = 0; b < nb; ++b) xj += x[b * nz + j];
        if (!integral) {
            se[j] = sim_batch_error(x + j, nz, r->batch_histories, nb, xj, n);
            continue;
        }
        const double ratio = total != 0.0 ? xj / total : 0.0;
        for (int64_t b = 0; b < nb; ++b) y[b] = x[b * nz + j] - ratio * t[b];
        se[j] = total != 0.0 ? sim_batch_error(y, 1, r->batch_histories, nb, 0.0, n) / (total / n) : 0.0;
    }
}

mct_status_t mct_phantom_lateral_compare(const mct_phantom_params_t* p, const mct_phantom_result_t* r,
                                         const double* mean_mev, const double* rel_err, const char* name,
                                         const double* rows, int n, const double* depths_cm, int ndepths, double scale,
                                         double k, mct_phantom_lateral_t* out, char* err, size_t errlen) {
    if (!out || !mean_mev || !rel_err) return MCT_STATUS_NULL_POINTER;
    memset(out, 0, sizeof *out);
    if (!(isfinite(scale) && scale >= 0.0) || !(isfinite(k) && k >= 0.0))
        return lat_fail(err, errlen, "%s: the scale and k must be finite and >= 0", name ? name : "lateral");
    lateral_plan_t q;
    mct_status_t st = lateral_plan(p, name, rows, n, depths_cm, ndepths, &q, err, errlen);
    if (st) return st;
    /* The zones of the compared slabs, one after another: the run's and the reference's dose, error and mass, the
     * independent error, the batch error, and room for their centres and the batch method's sums. */
    int nz = 0;
    double* list = plan_zone_list(&q, &nz);
    if (list && r && !batch_zones_match(p, r, list, nz)) {
        free(list);
        plan_free(&q);
        return lat_fail(err, errlen, "%s: the run did not record the %d compared zones over 2 or more batches", name, nz);
    }
    mct_phantom_zone_map_t map = {0};
    double* buf = malloc(((size_t)nz * 8 + 2 * (size_t)(r ? r->batches : 0)) * sizeof *buf);
    out->slab = calloc((size_t)q.nuse, sizeof *out->slab);
    out->zone = calloc((size_t)nz, sizeof *out->zone);
    if (!list || !buf || !out->slab || !out->zone || mct_phantom_zone_map(p, list, nz, &map)) {
        free(list), free(buf);
        plan_free(&q);
        mct_phantom_lateral_free(out);
        return sim_fail(err, errlen, MCT_STATUS_OUT_OF_MEMORY, "%s: out of memory", name);
    }
    double *d = buf, *s = buf + nz, *dr = buf + 2 * (size_t)nz, *sr = buf + 3 * (size_t)nz, *m = buf + 4 * (size_t)nz;
    double *centre = buf + 5 * (size_t)nz, *si = buf + 6 * (size_t)nz, *sb = buf + 7 * (size_t)nz;
    double e_run = 0.0, v_run = 0.0, e_ref = 0.0, v_ref = 0.0, se_total = 0.0;
    const double ref_scale = scale > 0.0 ? scale : 1.0;
    if (r) batch_errors(r, nz, !(scale > 0.0), sb, &se_total, buf + 8 * (size_t)nz);
    for (int u = 0, i = 0; u < q.nuse; ++u) {
        const slab_t* sl = &q.slab[q.use[u]];
        for (int t = sl->first; t < sl->first + sl->count; ++t, ++i) {
            const zone_t* z = &q.zone[t];
            double e, var;
            zone_totals(p, &map, i, mean_mev, rel_err, &m[i], &e, &var);
            d[i] = m[i] > 0.0 ? e / m[i] : 0.0;
            si[i] = m[i] > 0.0 ? sqrt(var) / m[i] : 0.0;
            dr[i] = z->dose * ref_scale, sr[i] = z->err * ref_scale;
            e_run += e, v_run += var;
            e_ref += dr[i] * m[i], v_ref += sr[i] * m[i] * sr[i] * m[i];
        }
    }
    if (r) v_run = se_total * se_total;
    if (scale > 0.0) {
        out->absolute = 1;
        out->scale = scale;
        out->ratio = e_ref > 0.0 ? e_run / e_ref : NAN;
        out->ratio_err = out->ratio * sqrt(v_run / (e_run * e_run) + v_ref / (e_ref * e_ref));
        for (int i = 0; i < nz; ++i) s[i] = r ? (m[i] > 0.0 ? sb[i] / m[i] : 0.0) : si[i];
    } else if (!(e_run > 0.0 && e_ref > 0.0)) {
        st = lat_fail(err, errlen, "%s: no energy in the compared zones (run %g, reference %g): nothing to normalise",
                      name, e_run, e_ref);
    } else {
        out->scale = e_ref / e_run;
        out->ratio = 1.0, out->ratio_err = 0.0;
        /* Batch: zone j's dose is R_j e_ref / m_j, R_j its share of the run's energy in the zones. */
        for (int i = 0; i < nz; ++i) {
            d[i] *= out->scale, si[i] *= out->scale;
            s[i] = r ? (m[i] > 0.0 ? sb[i] * e_ref / m[i] : 0.0) : si[i];
        }
    }
    if (!st) {
        out->name = name;
        out->k = k;
        out->slabs = q.nuse;
        out->batch_errors = r != NULL;
        out->batches = r ? r->batches : 0;
        out->pass = 1;
        for (int u = 0, i = 0; u < q.nuse; ++u) {
            const slab_t* sl = &q.slab[q.use[u]];
            mct_phantom_lateral_slab_t* o = &out->slab[u];
            o->first = i;
            test_slab(&q.zone[sl->first], sl->count, d + i, s + i, dr + i, sr + i, k, centre + i, o, out->zone + i);
            for (int t = 0; t < sl->count; ++t) out->zone[i + t].run_err_independent = si[i + t];
            out->points += o->points;
            out->passed += o->passed;
            out->pass &= o->pass;
            i += sl->count;
        }
    }
    free(list), free(buf);
    plan_free(&q);
    mct_phantom_zone_map_free(&map);
    if (st) mct_phantom_lateral_free(out);
    return st;
}
