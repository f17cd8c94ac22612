/* SPDX-License-Identifier: BSD-3-Clause */
/** @file pet_physics.h  One decay of the PET problem, written once for the CPU
 * engine, the CUDA kernel and the emulated backend (pet.h says what it
 * simulates). Every floating-point operation here is float and single-rounded
 * through sim_detmath.h, so a decay's LOR has the same bits on every backend. */
#ifndef MCT_SIM_PET_PHYSICS_H
#define MCT_SIM_PET_PHYSICS_H

#include <stdint.h>

#include "mctally/mct_config.h"
#include "mctally/mct_rng.h"
#include "pet.h"
#include "sim_detmath.h"

/** What mct_pet_decay returns. */
#define MCT_PET_MISSED 0  /**< not a good event */
#define MCT_PET_GOOD 1    /**< a good event, *key its bin */
#define MCT_PET_OUTSIDE 2 /**< a good event without a bin in the index */

/** Modes of the decay's geometry. */
#define MCT_PET_MODE_PHYSICAL 0 /**< the real scanner, LOR (z1, c1, z2, c2), the C/4 cut */
#define MCT_PET_MODE_VOXEL 1    /**< the long scanner of 2N - 1 rings, LOR (zsm1, c1, zsm2, c2) */

/** A shape as the decay samples it: cylinders (an annular sector) and
 * ellipsoids, in mm with z from the simulated barrel's front end. */
typedef struct {
    uint64_t below;   /**< the shape is chosen when the first random word is < below (the last: 2^32) */
    int kind;         /**< MCT_PET_CYLINDER or MCT_PET_ELLIPSOID */
    float x, y, z;    /**< cylinder: axis at (x, y), start z; ellipsoid: centre */
    float p0, p1, p2; /**< cylinder: r1^2, r2^2 - r1^2, length; ellipsoid: semi-axes */
    float t0, dt;     /**< cylinder: the sector's first angle and width, in turns */
} mct_pet_src_shape_t;

/** The scanner and the acceptance, as the decay reads them. */
typedef struct {
    int crystals, rings;   /**< C, N */
    int barrel_rings;      /**< rings simulated: N, or 2N - 1 in voxel mode */
    int mode;              /**< MCT_PET_MODE_* */
    int index;             /**< mct_pet_index_t (FULL, COMPRESSED or TOTAL) */
    int max_ring_diff;     /**< rings; a large value when unset */
    int doi;
    int dc_min, dc_count;  /**< C/4 and C - 2 (C/4) + 1 */
    int nshapes;
    float radius2;         /**< R^2 */
    float outer2;          /**< (R + depth)^2 */
    float length;          /**< barrel_rings crystal_mm: both ends must lie in [0, length) */
    float separation;      /**< N crystal_mm: |z2 - z1| must be below it */
    float inv_face;        /**< 1 / crystal_mm */
    float attenuation;     /**< mm */
} mct_pet_geom_t;

/** A uniform float in (0, 1) from a random word: (k + 1/2) 2^-23, exact. */
MCT_INLINE MCT_HD float mct_pet_u01(uint32_t w) { return mct_u01_open_open_f32(w); }

/** The shape of the first random word: the first whose `below` exceeds it
 * (binary search over the cumulative table). */
MCT_INLINE MCT_HD int mct_pet_pick_shape(const mct_pet_src_shape_t* s, int n, uint32_t w) {
    int lo = 0, hi = n - 1;
    while (lo < hi) {
        const int mid = (lo + hi) >> 1;
        if ((uint64_t)w < s[mid].below)
            hi = mid;
        else
            lo = mid + 1;
    }
    return lo;
}

/** A point uniform in shape s from three random words. Cylinder: r =
 * sqrt(r1^2 + (r2^2 - r1^2) u) (uniform in the annulus), angle t0 + dt u,
 * z uniform. Ellipsoid: a point of the unit ball (radius u^(1/3), isotropic
 * direction) scaled by the semi-axes. */
MCT_INLINE MCT_HD void mct_pet_sample_point(const mct_pet_src_shape_t* s, uint32_t w0, uint32_t w1, uint32_t w2,
                                            float* x, float* y, float* z) {
    const float u0 = mct_pet_u01(w0), u1 = mct_pet_u01(w1), u2 = mct_pet_u01(w2);
    float sn, cs;
    if (s->kind == MCT_PET_CYLINDER) {
        const float r = SIM_DM_SQRT(SIM_DM_ADD(s->p0, SIM_DM_MUL(s->p1, u0)));
        sim_sincos_turn(SIM_DM_ADD(s->t0, SIM_DM_MUL(s->dt, u1)), &sn, &cs);
        *x = SIM_DM_ADD(s->x, SIM_DM_MUL(r, sn));
        *y = SIM_DM_ADD(s->y, SIM_DM_MUL(r, cs));
        *z = SIM_DM_ADD(s->z, SIM_DM_MUL(s->p2, u2));
    } else {
        const float r = sim_cbrtf(u0);
        const float ct = SIM_DM_SUB(1.0f, SIM_DM_MUL(2.0f, u1));
        const float st = SIM_DM_SQRT(SIM_DM_MUL(SIM_DM_SUB(1.0f, ct), SIM_DM_ADD(1.0f, ct)));
        sim_sincos_turn(u2, &sn, &cs);
        *x = SIM_DM_ADD(s->x, SIM_DM_MUL(SIM_DM_MUL(s->p0, r), SIM_DM_MUL(st, sn)));
        *y = SIM_DM_ADD(s->y, SIM_DM_MUL(SIM_DM_MUL(s->p1, r), SIM_DM_MUL(st, cs)));
        *z = SIM_DM_ADD(s->z, SIM_DM_MUL(SIM_DM_MUL(s->p2, r), ct));
    }
}

/** The crystal of the point (x, y) on or beyond the barrel: floor(C t) of its
 * direction t in turns, the last crystal for a t that rounds to 1. */
MCT_INLINE MCT_HD int mct_pet_crystal(float x, float y, int crystals) {
    const int c = (int)SIM_DM_MUL(sim_atan2_turn(x, y), (float)crystals);
    return c < crystals ? c : crystals - 1;
}

/** The ring of an axial position z in [0, length): floor(z / face), kept
 * below `rings` against the rounding of the product. */
MCT_INLINE MCT_HD int mct_pet_ring(float z, float inv_face, int rings) {
    const int r = (int)SIM_DM_MUL(z, inv_face);
    return r < rings ? r : rings - 1;
}

/** The bin of a LOR whose ends are rings a <= b (z1, z2; zsm1, zsm2 in voxel
 * mode) and crystals c1, c2 (pet.h: the indices); MCT_PET_OUTSIDE when the
 * compressed index has no bin for it. */
MCT_INLINE MCT_HD int mct_pet_key(const mct_pet_geom_t* g, int a, int c1, int b, int c2, uint32_t* key) {
    const uint32_t C = (uint32_t)g->crystals, N = (uint32_t)g->rings;
    if (g->index == MCT_PET_INDEX_FULL) {
        *key = (((uint32_t)a * C + (uint32_t)c1) * N + (uint32_t)b) * C + (uint32_t)c2;
        return MCT_PET_GOOD;
    }
    if (g->index == MCT_PET_INDEX_TOTAL) {
        *key = 0u;
        return MCT_PET_GOOD;
    }
    int dc = c2 - c1;
    if (dc < 0) dc += g->crystals;
    dc -= g->dc_min;
    if (dc < 0 || dc >= g->dc_count) return MCT_PET_OUTSIDE;
    uint32_t s;
    if (g->mode == MCT_PET_MODE_VOXEL) {
        const uint32_t dz = (uint32_t)(a + b);
        if (dz >= N) return MCT_PET_OUTSIDE;
        s = dz * (dz + 1u) / 2u + (uint32_t)a;
    } else {
        const uint32_t rest = N - (uint32_t)(b - a); /* N - dz */
        s = N * (N + 1u) / 2u - rest * (rest + 1u) / 2u + (uint32_t)a;
    }
    *key = (s * (uint32_t)g->dc_count + (uint32_t)dc) * C + (uint32_t)c1;
    return MCT_PET_GOOD;
}

/** Decay h: MCT_PET_GOOD with its LOR's bin in *key, MCT_PET_OUTSIDE, or
 * MCT_PET_MISSED. Random words: block 0 picks the shape (word 0) and the
 * point (1-3); block 1 the direction (0: cos theta = 1 - 2u, 1: the azimuth
 * in turns) and, with depth of interaction, the two paths in the crystals
 * (2, 3: -attenuation ln u). */
MCT_INLINE MCT_HD int mct_pet_decay(const mct_pet_geom_t* g, const mct_pet_src_shape_t* shapes, mct_key2x32_t key2,
                                    uint64_t h, uint32_t* key) {
    const mct_ctr4x32_t r0 = mct_philox4x32_10(mct_philox_ctr_history(h, 0u, 0u), key2);
    const mct_ctr4x32_t r1 = mct_philox4x32_10(mct_philox_ctr_history(h, 0u, 1u), key2);
    const mct_pet_src_shape_t* s = shapes + (g->nshapes > 1 ? mct_pet_pick_shape(shapes, g->nshapes, r0.v[0]) : 0);
    float ax, ay, az;
    mct_pet_sample_point(s, r0.v[1], r0.v[2], r0.v[3], &ax, &ay, &az);

    /* Back-to-back gammas along +-n, n isotropic. */
    const float ct = SIM_DM_SUB(1.0f, SIM_DM_MUL(2.0f, mct_pet_u01(r1.v[0])));
    const float st2 = SIM_DM_MUL(SIM_DM_SUB(1.0f, ct), SIM_DM_ADD(1.0f, ct));
    const float st = SIM_DM_SQRT(st2);
    float sp, cp;
    sim_sincos_turn(mct_pet_u01(r1.v[1]), &sp, &cp);
    const float nx = SIM_DM_MUL(st, sp), ny = SIM_DM_MUL(st, cp);

    /* |a + l n|_xy = R: A l^2 + 2 B l + C = 0 with A = nx^2 + ny^2 (> 0: the
     * generator never gives |cos theta| = 1), l1 >= 0 >= l2 from inside. */
    const float A = SIM_DM_ADD(SIM_DM_MUL(nx, nx), SIM_DM_MUL(ny, ny));
    const float B = SIM_DM_ADD(SIM_DM_MUL(ax, nx), SIM_DM_MUL(ay, ny));
    const float Cq = SIM_DM_SUB(SIM_DM_ADD(SIM_DM_MUL(ax, ax), SIM_DM_MUL(ay, ay)), g->radius2);
    const float D = SIM_DM_SUB(SIM_DM_MUL(B, B), SIM_DM_MUL(A, Cq));
    if (!(A > 0.0f) || !(D >= 0.0f)) return MCT_PET_MISSED;
    const float rad = SIM_DM_SQRT(D);
    float l1 = SIM_DM_DIV(SIM_DM_SUB(rad, B), A);
    float l2 = SIM_DM_DIV(SIM_DM_SUB(SIM_DM_SUB(0.0f, B), rad), A);
    if (g->doi) {
        /* Interaction after an exponential path in the crystal (Eq. 8.9); a
         * gamma that leaves the crystals' outer radius first is lost. */
        l1 = SIM_DM_ADD(l1, SIM_DM_MUL(g->attenuation, -sim_logf(mct_pet_u01(r1.v[2]))));
        l2 = SIM_DM_SUB(l2, SIM_DM_MUL(g->attenuation, -sim_logf(mct_pet_u01(r1.v[3]))));
    }
    const float x1 = SIM_DM_ADD(ax, SIM_DM_MUL(l1, nx)), y1 = SIM_DM_ADD(ay, SIM_DM_MUL(l1, ny));
    const float x2 = SIM_DM_ADD(ax, SIM_DM_MUL(l2, nx)), y2 = SIM_DM_ADD(ay, SIM_DM_MUL(l2, ny));
    if (g->doi && (SIM_DM_ADD(SIM_DM_MUL(x1, x1), SIM_DM_MUL(y1, y1)) > g->outer2 ||
                   SIM_DM_ADD(SIM_DM_MUL(x2, x2), SIM_DM_MUL(y2, y2)) > g->outer2))
        return MCT_PET_MISSED;
    const float z1 = SIM_DM_ADD(az, SIM_DM_MUL(l1, ct)), z2 = SIM_DM_ADD(az, SIM_DM_MUL(l2, ct));
    if (!(z1 >= 0.0f && z1 < g->length && z2 >= 0.0f && z2 < g->length)) return MCT_PET_MISSED;
    if (!(fabsf(SIM_DM_SUB(z2, z1)) < g->separation)) return MCT_PET_MISSED;

    int iz1 = mct_pet_ring(z1, g->inv_face, g->barrel_rings), iz2 = mct_pet_ring(z2, g->inv_face, g->barrel_rings);
    int c1 = mct_pet_crystal(x1, y1, g->crystals), c2 = mct_pet_crystal(x2, y2, g->crystals);
    if (iz1 > iz2) {
        const int tz = iz1, tc = c1;
        iz1 = iz2, c1 = c2;
        iz2 = tz, c2 = tc;
    }
    if (iz2 - iz1 > g->max_ring_diff) return MCT_PET_MISSED;
    if (g->mode == MCT_PET_MODE_VOXEL) {
        /* Rings counted from the voxel's (N - 1); a decay sampled on the
         * voxel's upper face can round into the next ring: it counts as the
         * voxel's own. */
        const int v = g->rings - 1;
        const int a = v - iz1 > 0 ? v - iz1 : 0, b = iz2 - v > 0 ? iz2 - v : 0;
        return mct_pet_key(g, a, c1, b, c2, key);
    }
    const int adc = c1 > c2 ? c1 - c2 : c2 - c1;
    if (adc < g->dc_min || adc > g->crystals - g->dc_min) return MCT_PET_MISSED;
    return mct_pet_key(g, iz1, c1, iz2, c2, key);
}

#endif /* MCT_SIM_PET_PHYSICS_H */
