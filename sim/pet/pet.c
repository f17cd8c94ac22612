/* SPDX-License-Identifier: BSD-3-Clause */
/** @file pet.c  The PET problem's driver: parameters, the source's shapes,
 * the decay's geometry, the LOR indices, batches and results. The per-backend
 * work is in the engines (pet_cpu.c, pet_device.cu). */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pet.h"
#include "pet_engine.h"
#include "sim_common.h"

#define PET_PI 3.14159265358979323846

#define PET_PARAM(type, key, field) key, MCT_SIM_PARAM_##type, offsetof(mct_pet_params_t, field)
#define PET_FILE MCT_SIM_PARAM_FILE
#define PET_OPEN (MCT_SIM_PARAM_FILE | MCT_SIM_PARAM_MIN_OPEN)
#define PET_UNSET (MCT_SIM_PARAM_FILE | MCT_SIM_PARAM_ZERO_UNSET)

static const mct_sim_param_t pet_params[] = {
    {PET_PARAM(INT, "crystals", crystals), 8.0, 512.0, PET_FILE, 400.0, "crystals per ring"},
    {PET_PARAM(INT, "rings", rings), 1.0, 128.0, PET_FILE, 64.0, "detector rings"},
    {PET_PARAM(F64, "crystal_mm", crystal_mm), 0.0, 100.0, PET_OPEN, 4.0, "mm, crystal face"},
    {PET_PARAM(F64, "depth_mm", depth_mm), 0.0, 1000.0, PET_OPEN, 20.0, "mm, crystal depth"},
    {PET_PARAM(F64, "attenuation_mm", attenuation_mm), 0.0, 1e4, PET_OPEN, 11.4, "mm, with doi"},
    {PET_PARAM(INT, "max_ring_diff", max_ring_diff), 1.0, 127.0, PET_UNSET, 0.0, "rings"},
    {PET_PARAM(INT, "voxel_r", voxel_r), 0.0, 65535.0, PET_FILE, 0.0, "radial voxels from the axis"},
    {PET_PARAM(INT, "voxel_c", voxel_c), 0.0, 511.0, PET_FILE, 0.0, "angular voxel, below crystals"},
    {PET_PARAM(F64, "radial_step_mm", radial_step_mm), 0.0, 1e4, PET_OPEN, 2.0, "mm"},
    {PET_PARAM(F64, "point_x_mm", point_mm[0]), -1e4, 1e4, PET_FILE, 0.0, "mm from the axis"},
    {PET_PARAM(F64, "point_y_mm", point_mm[1]), -1e4, 1e4, PET_FILE, 0.0, "mm from the axis"},
    {PET_PARAM(F64, "point_z_mm", point_mm[2]), -1e4, 1e4, PET_FILE, 0.0, "mm from the scanner's centre"},
    {PET_PARAM(F64, "derenzo_scale", derenzo_scale), 0.0, 10.0, PET_OPEN, 1.0, "times the book's sizes"},
    {PET_PARAM(F64, "derenzo_background", derenzo_background), 0.0, 1e6, PET_FILE, 0.0, "activity per rod activity"},
    {PET_PARAM(I64, "histories", histories), 1.0, INFINITY, 0, 1e7, NULL},
    {PET_PARAM(I64, "batches", batches), 1.0, INFINITY, 0, 2.0, NULL},
    {PET_PARAM(U64, "seed", seed), 0.0, 0x1p64, 0, 1.0, NULL},
    {PET_PARAM(INT, "block_size", block_size), 32.0, 1024.0, PET_FILE, 256.0, "threads per block"},
    {PET_PARAM(INT, "grid_blocks", grid_blocks), 1.0, 2147483647.0, MCT_SIM_PARAM_ZERO_UNSET, 0.0, "blocks"},
};

MCT_SIM_PARAM_TABLE(mct_pet_param_table, "pet", pet_params);

void mct_pet_params_init(mct_pet_params_t* p) {
    if (!p) return;
    mct_sim_params_defaults(&mct_pet_param_table, p, sizeof *p);
    p->source = MCT_PET_SOURCE_VOXEL;
    p->index = MCT_PET_INDEX_COMPRESSED;
}

double mct_pet_radius_mm(const mct_pet_params_t* p) { return p->crystals * p->crystal_mm / (2.0 * PET_PI); }
double mct_pet_length_mm(const mct_pet_params_t* p) { return p->rings * p->crystal_mm; }

const char* mct_pet_source_name(mct_pet_source_t s) {
    switch (s) {
    case MCT_PET_SOURCE_VOXEL: return "voxel";
    case MCT_PET_SOURCE_POINT: return "point";
    case MCT_PET_SOURCE_DERENZO: return "derenzo";
    case MCT_PET_SOURCE_SHAPES: return "shapes";
    default: return "invalid";
    }
}

const char* mct_pet_index_name(mct_pet_index_t i) {
    switch (i) {
    case MCT_PET_INDEX_AUTO: return "auto";
    case MCT_PET_INDEX_FULL: return "full";
    case MCT_PET_INDEX_COMPRESSED: return "compressed";
    case MCT_PET_INDEX_TOTAL: return "total";
    default: return "invalid";
    }
}

/* ---- Sources ------------------------------------------------------------------ */

/* The book's rod diameters (Figure 8.6), one sector each. */
static const double derenzo_diameters_mm[5] = {24.5, 17.1, 9.8, 8.6, 6.1};
/* Rods lie within this radius (times the scale). */
#define DERENZO_RADIUS_MM 100.0

static int add_cylinder(mct_pet_shape_t* out, int n, double x, double y, double z, double radius, double length,
                        double activity) {
    if (n >= MCT_PET_MAX_SHAPES) return n + 1; /* counted, so that the caller sees the overflow */
    mct_pet_shape_t* s = &out[n];
    memset(s, 0, sizeof *s);
    s->kind = MCT_PET_CYLINDER;
    s->centre[0] = x, s->centre[1] = y, s->centre[2] = z;
    s->size[0] = radius, s->size[2] = length;
    s->activity = activity;
    return n + 1;
}

/* Five sectors of 72 degrees, sector k centred on the direction k/5 turns
 * (clockwise from +y). A sector's rods of diameter d sit on a triangular
 * lattice of spacing 2d: row j (0 at the apex, nearest the axis) holds j + 1
 * rods, the apex 1.5 d + 2 mm from the axis (its rod clears the sector's
 * edges), as many rows as keep every rod inside the phantom's radius. */
static int derenzo_shapes(const mct_pet_params_t* p, mct_pet_shape_t* out) {
    const double s = p->derenzo_scale, rmax = DERENZO_RADIUS_MM * s, L = mct_pet_length_mm(p);
    const double half = 0.25 * L; /* rods through the middle half of the scanner */
    int n = 0;
    if (p->derenzo_background > 0.0)
        n = add_cylinder(out, n, 0.0, 0.0, 0.0, rmax + 5.0 * s, 2.0 * half, p->derenzo_background);
    for (int k = 0; k < 5; ++k) {
        const double d = derenzo_diameters_mm[k] * s, pitch = 2.0 * d, u0 = 1.5 * d + 2.0 * s;
        const double phi = 2.0 * PET_PI * k / 5.0, eu[2] = {sin(phi), cos(phi)}, ev[2] = {cos(phi), -sin(phi)};
        for (int j = 0;; ++j) {
            const double u = u0 + j * pitch * 0.5 * sqrt(3.0), vmax = 0.5 * j * pitch;
            if (sqrt(u * u + vmax * vmax) + 0.5 * d > rmax) break;
            for (int i = 0; i <= j; ++i) {
                const double v = (i - 0.5 * j) * pitch;
                n = add_cylinder(out, n, u * eu[0] + v * ev[0], u * eu[1] + v * ev[1], 0.0, 0.5 * d, 2.0 * half, 1.0);
            }
        }
    }
    return n;
}

int mct_pet_source_shapes(const mct_pet_params_t* p, mct_pet_shape_t* out) {
    switch (p->source) {
    case MCT_PET_SOURCE_POINT: return add_cylinder(out, 0, p->point_mm[0], p->point_mm[1], p->point_mm[2], 0.0, 0.0, 1.0);
    case MCT_PET_SOURCE_DERENZO: {
        const int n = derenzo_shapes(p, out);
        return n <= MCT_PET_MAX_SHAPES ? n : 0;
    }
    case MCT_PET_SOURCE_SHAPES:
        if (p->nshapes < 1 || p->nshapes > MCT_PET_MAX_SHAPES) return 0;
        memcpy(out, p->shapes, (size_t)p->nshapes * sizeof *out);
        return p->nshapes;
    case MCT_PET_SOURCE_VOXEL: {
        /* The voxel as a cylinder shape at the long barrel's centre (the real
         * scanner's last ring); its sector is set in the geometry
         * (sim_pet_problem). */
        const double r0 = p->voxel_r * p->radial_step_mm;
        const int n = add_cylinder(out, 0, 0.0, 0.0, 0.0, r0 + p->radial_step_mm, p->crystal_mm, 1.0);
        out[0].size[1] = r0; /* inner radius */
        return n;
    }
    default: return 0;
    }
}

static double shape_volume(const mct_pet_shape_t* s) {
    if (s->kind == MCT_PET_ELLIPSOID) return 4.0 / 3.0 * PET_PI * s->size[0] * s->size[1] * s->size[2];
    return PET_PI * s->size[0] * s->size[0] * s->size[2];
}

/* ---- Checks ------------------------------------------------------------------- */

/* INVALID_VALUE, with the reason (printf format) in why. */
#define invalid(why, size, ...) sim_fail(why, size, MCT_STATUS_INVALID_VALUE, __VA_ARGS__)

/* A shape inside the scanner: radially within R, axially within [-L/2, L/2]. */
static mct_status_t check_shape(const mct_pet_shape_t* s, int i, double R, double L, char* why, size_t size) {
    const char* kind = s->kind == MCT_PET_ELLIPSOID ? "ellipsoid" : "cylinder";
    const double rho = hypot(s->centre[0], s->centre[1]);
    double rext = s->size[0], zext = 0.5 * s->size[2];
    if (s->kind == MCT_PET_ELLIPSOID) rext = fmax(s->size[0], s->size[1]), zext = s->size[2];
    for (int k = 0; k < 3; ++k)
        if (!isfinite(s->centre[k]) || !isfinite(s->size[k]) || s->size[k] < 0.0)
            return invalid(why, size, "shape %d (%s): its position and sizes must be finite, its sizes >= 0", i + 1, kind);
    if (!(s->activity >= 0.0) || !isfinite(s->activity))
        return invalid(why, size, "shape %d (%s): activity must be finite and >= 0 (got %g)", i + 1, kind, s->activity);
    if (rho + rext > R)
        return invalid(why, size,
                       "source outside the scanner: shape %d (%s) reaches %g mm from the axis, beyond the detector "
                       "radius %g mm", i + 1, kind, rho + rext, R);
    if (fabs(s->centre[2]) + zext > 0.5 * L)
        return invalid(why, size,
                       "source outside the scanner: shape %d (%s) reaches %g mm from the centre along the axis, "
                       "beyond the half length %g mm", i + 1, kind, fabs(s->centre[2]) + zext, 0.5 * L);
    return MCT_STATUS_SUCCESS;
}

mct_status_t mct_pet_validate(const mct_pet_params_t* p, char* why, size_t size) {
    if (why && size) why[0] = '\0';
    if (!p) return MCT_STATUS_NULL_POINTER;
    const mct_sim_param_t* bad = NULL;
    if (mct_sim_params_check(&mct_pet_param_table, p, &bad)) {
        char range[160];
        return invalid(why, size, "%s = %g: expected %s", bad->key, mct_sim_param_get(bad, p),
                       mct_sim_param_describe(bad, range, sizeof range));
    }
    if (p->histories < p->batches)
        return invalid(why, size, "histories (%lld) must be at least batches (%lld)", (long long)p->histories,
                       (long long)p->batches);
    if (p->doi != 0 && p->doi != 1) return invalid(why, size, "doi must be 0 or 1 (got %d)", p->doi);
    if ((unsigned)p->source > MCT_PET_SOURCE_SHAPES) return invalid(why, size, "unknown source %d", (int)p->source);
    if ((unsigned)p->index > MCT_PET_INDEX_TOTAL) return invalid(why, size, "unknown LOR index %d", (int)p->index);
    if (p->max_ring_diff > p->rings - 1 && p->source != MCT_PET_SOURCE_VOXEL)
        return invalid(why, size, "max_ring_diff = %d: expected at most rings - 1 = %d", p->max_ring_diff, p->rings - 1);
    if (p->voxel_c >= p->crystals)
        return invalid(why, size, "voxel_c = %d: expected below crystals (%d)", p->voxel_c, p->crystals);
    const double R = mct_pet_radius_mm(p), L = mct_pet_length_mm(p);
    if (p->source == MCT_PET_SOURCE_VOXEL) {
        const double outer = (p->voxel_r + 1.0) * p->radial_step_mm;
        if (outer > R)
            return invalid(why, size,
                           "source outside the scanner: voxel ring %d reaches %g mm from the axis, beyond the "
                           "detector radius %g mm", p->voxel_r, outer, R);
        return MCT_STATUS_SUCCESS;
    }
    if (p->source == MCT_PET_SOURCE_POINT) {
        const double rho = hypot(p->point_mm[0], p->point_mm[1]);
        if (!(rho < R))
            return invalid(why, size,
                           "source outside the scanner: the point is %g mm from the axis, the detector radius is %g mm",
                           rho, R);
        if (fabs(p->point_mm[2]) > 0.5 * L)
            return invalid(why, size,
                           "source outside the scanner: the point is %g mm from the centre along the axis, the half "
                           "length is %g mm", fabs(p->point_mm[2]), 0.5 * L);
        return MCT_STATUS_SUCCESS;
    }
    if (p->source == MCT_PET_SOURCE_SHAPES && (p->nshapes < 1 || p->nshapes > MCT_PET_MAX_SHAPES))
        return invalid(why, size, "source shapes: expected 1 .. %d cylinder or ellipsoid lines (got %d)",
                       MCT_PET_MAX_SHAPES, p->nshapes);
    mct_pet_shape_t shapes[MCT_PET_MAX_SHAPES];
    const int n = mct_pet_source_shapes(p, shapes);
    if (n < 1) return invalid(why, size, "the source has more than %d shapes", MCT_PET_MAX_SHAPES);
    double weight = 0.0;
    for (int i = 0; i < n; ++i) {
        mct_status_t st = check_shape(&shapes[i], i, R, L, why, size);
        if (st) return st;
        weight += shapes[i].activity * shape_volume(&shapes[i]);
    }
    if (!(weight > 0.0) && n > 1) return invalid(why, size, "the source's shapes have no activity (activity x volume is 0)");
    return MCT_STATUS_SUCCESS;
}

/* ---- Indices ------------------------------------------------------------------ */

static int64_t ring_pairs(const mct_pet_params_t* p) { return (int64_t)p->rings * (p->rings + 1) / 2; }
static int dc_min(const mct_pet_params_t* p) { return p->crystals / 4; }
static int dc_count(const mct_pet_params_t* p) { return p->crystals - 2 * (p->crystals / 4) + 1; }

mct_status_t mct_pet_bins(const mct_pet_params_t* p, mct_pet_index_t index, int64_t* bins) {
    if (!p || !bins) return MCT_STATUS_NULL_POINTER;
    const int64_t C = p->crystals, N = p->rings;
    switch (index) {
    case MCT_PET_INDEX_AUTO:
    case MCT_PET_INDEX_FULL: *bins = N * N * C * C; break;
    case MCT_PET_INDEX_COMPRESSED: *bins = ring_pairs(p) * dc_count(p) * C; break;
    case MCT_PET_INDEX_TOTAL: *bins = 1; break;
    default: return MCT_STATUS_INVALID_VALUE;
    }
    return *bins > MCT_PET_MAX_BINS ? MCT_STATUS_TOO_LARGE : MCT_STATUS_SUCCESS;
}

int64_t mct_pet_key_of_lor(const mct_pet_params_t* p, mct_pet_index_t index, const mct_pet_lor_t* l) {
    const int C = p->crystals, N = p->rings;
    if (l->a < 0 || l->b < 0 || l->a >= N || l->b >= N || l->c1 < 0 || l->c2 < 0 || l->c1 >= C || l->c2 >= C) return -1;
    if (index == MCT_PET_INDEX_TOTAL) return 0;
    if (index == MCT_PET_INDEX_FULL) return (((int64_t)l->a * C + l->c1) * N + l->b) * C + l->c2;
    if (index != MCT_PET_INDEX_COMPRESSED) return -1;
    int dc = l->c2 - l->c1;
    if (dc < 0) dc += C;
    dc -= dc_min(p);
    if (dc < 0 || dc >= dc_count(p)) return -1;
    int64_t s;
    if (p->source == MCT_PET_SOURCE_VOXEL) {
        const int64_t dz = l->a + l->b;
        if (dz >= N) return -1;
        s = dz * (dz + 1) / 2 + l->a;
    } else {
        if (l->a > l->b) return -1;
        const int64_t rest = N - (l->b - l->a);
        s = ring_pairs(p) - rest * (rest + 1) / 2 + l->a;
    }
    return (s * dc_count(p) + dc) * C + l->c1;
}

mct_status_t mct_pet_lor_of_key(const mct_pet_params_t* p, mct_pet_index_t index, int64_t key, mct_pet_lor_t* l) {
    if (!p || !l) return MCT_STATUS_NULL_POINTER;
    int64_t bins = 0;
    mct_status_t st = mct_pet_bins(p, index, &bins);
    if (st && st != MCT_STATUS_TOO_LARGE) return st;
    if (index == MCT_PET_INDEX_TOTAL || index == MCT_PET_INDEX_AUTO || key < 0 || key >= bins) return MCT_STATUS_INVALID_VALUE;
    const int64_t C = p->crystals, N = p->rings;
    if (index == MCT_PET_INDEX_FULL) {
        l->c2 = (int)(key % C), key /= C;
        l->b = (int)(key % N), key /= N;
        l->c1 = (int)(key % C), key /= C;
        l->a = (int)key;
        return MCT_STATUS_SUCCESS;
    }
    l->c1 = (int)(key % C), key /= C;
    const int dc = (int)(key % dc_count(p)) + dc_min(p);
    int64_t s = key / dc_count(p);
    l->c2 = (int)((l->c1 + dc) % C);
    if (p->source == MCT_PET_SOURCE_VOXEL) {
        int64_t dz = 0;
        while ((dz + 1) * (dz + 2) / 2 <= s) ++dz;
        l->a = (int)(s - dz * (dz + 1) / 2);
        l->b = (int)(dz - l->a);
    } else {
        int64_t dz = 0, start = 0; /* the ring pairs of dz start at T - (N - dz)(N - dz + 1)/2 */
        while (dz + 1 < N && ring_pairs(p) - (N - dz - 1) * (N - dz) / 2 <= s) ++dz;
        start = ring_pairs(p) - (N - dz) * (N - dz + 1) / 2;
        l->a = (int)(s - start);
        l->b = (int)(l->a + dz);
    }
    return MCT_STATUS_SUCCESS;
}

/* ---- The engines' problem ------------------------------------------------------ */

/* The decay's geometry and source from the parameters, once, in float. */
static void sim_pet_problem(const mct_pet_params_t* p, sim_pet_problem_t* out) {
    memset(out, 0, sizeof *out);
    out->p = p;
    mct_pet_geom_t* g = &out->geom;
    const int voxel = p->source == MCT_PET_SOURCE_VOXEL;
    const double R = mct_pet_radius_mm(p), f = p->crystal_mm;
    g->crystals = p->crystals;
    g->rings = p->rings;
    g->barrel_rings = voxel ? 2 * p->rings - 1 : p->rings;
    g->mode = voxel ? MCT_PET_MODE_VOXEL : MCT_PET_MODE_PHYSICAL;
    g->index = p->index;
    g->max_ring_diff = p->max_ring_diff > 0 ? p->max_ring_diff : 1 << 30;
    g->doi = p->doi;
    g->dc_min = dc_min(p);
    g->dc_count = dc_count(p);
    g->radius2 = (float)(R * R);
    g->outer2 = (float)((R + p->depth_mm) * (R + p->depth_mm));
    g->length = (float)(g->barrel_rings * f);
    g->separation = (float)(p->rings * f);
    g->inv_face = (float)(1.0 / f);
    g->attenuation = (float)p->attenuation_mm;

    mct_pet_shape_t shapes[MCT_PET_MAX_SHAPES];
    const int n = mct_pet_source_shapes(p, shapes);
    g->nshapes = n;
    /* z from the simulated barrel's front end: the real scanner's centre is
     * at L/2 (voxel mode: the long barrel's centre, the voxel's ring N - 1). */
    const double zc = voxel ? 0.5 * g->barrel_rings * f : 0.5 * mct_pet_length_mm(p);
    double total = 0.0, cum = 0.0;
    for (int i = 0; i < n; ++i) total += shapes[i].activity * shape_volume(&shapes[i]);
    for (int i = 0; i < n; ++i) {
        const mct_pet_shape_t* s = &shapes[i];
        mct_pet_src_shape_t* d = &out->shapes[i];
        d->kind = s->kind;
        d->x = (float)s->centre[0];
        d->y = (float)s->centre[1];
        if (s->kind == MCT_PET_ELLIPSOID) {
            d->z = (float)(zc + s->centre[2]);
            d->p0 = (float)s->size[0], d->p1 = (float)s->size[1], d->p2 = (float)s->size[2];
        } else {
            const double r1 = voxel ? s->size[1] : 0.0, r2 = s->size[0];
            d->z = (float)(zc + s->centre[2] - 0.5 * s->size[2]);
            d->p0 = (float)(r1 * r1);
            d->p1 = (float)(r2 * r2 - r1 * r1);
            d->p2 = (float)s->size[2];
            d->t0 = voxel ? (float)((double)p->voxel_c / p->crystals) : 0.0f;
            d->dt = voxel ? (float)(1.0 / p->crystals) : 1.0f;
        }
        cum += total > 0.0 ? s->activity * shape_volume(s) : 1.0;
        const double share = total > 0.0 ? cum / total : cum / n;
        d->below = i + 1 == n ? UINT64_C(1) << 32 : (uint64_t)llround(fmin(share, 1.0) * 0x1p32);
    }
}

/* ---- The run ------------------------------------------------------------------- */

mct_status_t mct_pet_check(const mct_pet_params_t* p, mct_tally_t tally) {
    if (!p || !tally) return MCT_STATUS_NULL_POINTER;
    if (mct_pet_validate(p, NULL, 0) || p->index == MCT_PET_INDEX_AUTO) return MCT_STATUS_INVALID_VALUE;
    mct_tally_desc_t d;
    mct_status_t st = mct_tally_get_desc(tally, &d);
    if (st) return st;
    int64_t bins = 0;
    if ((st = mct_pet_bins(p, p->index, &bins))) return st;
    if (d.bins != bins) return MCT_STATUS_INVALID_VALUE;
    if (d.dtype != MCT_DTYPE_I32 && d.dtype != MCT_DTYPE_U64) return MCT_STATUS_NOT_SUPPORTED;
    if (d.method == MCT_METHOD_SHARED && (size_t)d.bins * mct_dtype_size(d.dtype) > MCT_BLOCK_TALLY_SMEM_LIMIT)
        return MCT_STATUS_NOT_SUPPORTED;
    if (p->batches < mct_pet_min_batches(p->histories, d.dtype)) return MCT_STATUS_OVERFLOW;
    return MCT_STATUS_SUCCESS;
}

int64_t mct_pet_min_batches(int64_t histories, mct_dtype_t dtype) {
    /* A bin takes at most a batch's decays: b batches hold at most
     * ceil(histories / b) each, which is <= INT32_MAX exactly when
     * b >= ceil(histories / INT32_MAX). */
    if (dtype != MCT_DTYPE_I32 || histories <= INT32_MAX) return 1;
    return histories / INT32_MAX + (histories % INT32_MAX != 0);
}

/* Decays per engine call: the CPU engine keeps a key per decay (4 bytes) and
 * hands the good ones to mct_tally_add; the GPU runs a whole batch in one
 * persistent launch. */
static const sim_engine_set_t pet_engines = {
    &sim_pet_engine_cpu, INT64_C(1) << 20, &sim_pet_engine_emulated, INT64_C(1) << 16,
    SIM_CUDA_ENGINE(&sim_pet_engine_cuda, INT64_C(1) << 40)};

mct_status_t mct_pet_run(const mct_pet_params_t* p, mct_tally_t tally, mct_pet_result_t* out) {
    mct_tally_desc_t d;
    mct_status_t st = sim_run_start(out, mct_pet_check(p, tally), tally, &d);
    if (st) return st;
    memset(out, 0, sizeof *out);
    const double t0 = sim_now_seconds();
    sim_pet_problem_t* problem = malloc(sizeof *problem);
    if ((st = sim_ranks_agree(p->ranks, problem ? MCT_STATUS_SUCCESS : MCT_STATUS_OUT_OF_MEMORY))) {
        free(problem);
        return st;
    }
    sim_pet_problem(p, problem);
    sim_pet_counters_t counters = {0, 0, 0};
    sim_run_t run = {.engines = &pet_engines, .problem = problem, .tally = tally, .histories = p->histories,
                     .batches = p->batches, .replicas = SIM_REPLICAS_SHARE, .progress = p->progress,
                     .progress_ctx = p->progress_ctx, .finish_out = &counters, .ranks = p->ranks};
    st = sim_run(&run);
    free(problem);
    /* Every rank's counts of good events into everyone's; the discarding
     * launch's checksum is the XOR of every rank's. */
    if (!st && p->ranks) {
        uint64_t sums[2] = {counters.good, counters.outside};
        st = p->ranks->combine_u64(p->ranks->ctx, sums, 2, SIM_RANKS_SUM);
        if (!st) st = p->ranks->combine_u64(p->ranks->ctx, &counters.checksum, 1, SIM_RANKS_XOR);
        counters.good = sums[0], counters.outside = sums[1];
    }
    if (st) return st;
    const double n = (double)p->histories;
    out->decays = n;
    out->good = (double)counters.good;
    out->outside_index = (double)counters.outside;
    out->stored = out->good - out->outside_index;
    out->efficiency = out->good / n;
    out->efficiency_err = sqrt(out->efficiency * (1.0 - out->efficiency) / n);
    out->key_checksum = counters.checksum;
    out->engine_seconds = run.engine_seconds;
    out->seconds = sim_now_seconds() - t0;
    return MCT_STATUS_SUCCESS;
}
