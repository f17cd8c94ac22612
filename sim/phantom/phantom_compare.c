/* SPDX-License-Identifier: BSD-3-Clause */
/** @file phantom_compare.c  A run's laterally integrated depth dose against
 * the EGSnrc references compiled in from data/reference/egsnrc (see
 * mct_phantom_comparison_t in phantom.h for the test). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "phantom.h"

/* The compiled-in CSV files (csv_to_c.cmake): depth_cm, width_cm, mev, err. */
extern const int sim_egs_e10_rows, sim_egs_e20_rows, sim_egs_g1_25_rows, sim_egs_g6_rows;
extern const double sim_egs_e10[], sim_egs_e20[], sim_egs_g1_25[], sim_egs_g6[];

typedef struct {
    const char* name;
    mct_phantom_particle_t particle;
    double energy_MeV;
    const double* rows;
    const int* n;
} reference_t;

static const reference_t references[] = {
    {"egs_e10", MCT_PHANTOM_ELECTRON, 10.0, sim_egs_e10, &sim_egs_e10_rows},
    {"egs_e20", MCT_PHANTOM_ELECTRON, 20.0, sim_egs_e20, &sim_egs_e20_rows},
    {"egs_g1.25", MCT_PHANTOM_PHOTON, 1.25, sim_egs_g1_25, &sim_egs_g1_25_rows},
    {"egs_g6", MCT_PHANTOM_PHOTON, 6.0, sim_egs_g6, &sim_egs_g6_rows},
};

/* Slab boundaries closer than this (cm) are the same boundary. */
#define SAME_CM 1e-6

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
    out->name = name;
    out->k = k;
    double worst_fail = -1.0, worst_all = 0.0, depth_fail = 0.0, depth_all = 0.0;
    for (int i = 0; i < a.n; ++i) {
        const double w = a.w[i], dr = b.e[i] / a.mass[i], dm = a.e[i] / a.mass[i];
        if (dr < 0.05 * dmax) continue;
        const double sig = k * sqrt(a.var[i] + b.var[i]) / a.mass[i];
        const double diff = fabs(dm - dr) / dmax;
        int pass = fabs(dm - dr) <= 0.02 * dmax + sig;
        /* Distance to agreement: the run's curve between the centres of its
         * neighbours within 1 mm reaches the reference dose. */
        double lo = dm, hi = dm;
        for (int s = -1; s <= 1; s += 2) {
            const int j = i + s;
            if (j < 0 || j >= a.n) continue;
            const double dist = fabs((a.lo[j] + 0.5 * a.w[j]) - (a.lo[i] + 0.5 * w));
            if (dist > 0.1 + SAME_CM) continue;
            const double dj = a.e[j] / a.mass[j];
            lo = dj < lo ? dj : lo;
            hi = dj > hi ? dj : hi;
        }
        if (dr >= lo - sig && dr <= hi + sig) pass = 1;
        ++out->points;
        out->passed += pass;
        if (!pass && diff > worst_fail) worst_fail = diff, depth_fail = a.lo[i] + 0.5 * w;
        if (diff > worst_all) worst_all = diff, depth_all = a.lo[i] + 0.5 * w;
    }
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
    const reference_t* ref = NULL;
    for (size_t i = 0; i < sizeof references / sizeof *references; ++i)
        if (references[i].particle == p->particle && fabs(references[i].energy_MeV - p->energy_MeV) < 1e-9)
            ref = &references[i];
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
