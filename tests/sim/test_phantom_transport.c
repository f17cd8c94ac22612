/* SPDX-License-Identifier: BSD-3-Clause */
/** @file test_phantom_transport.c  The split of a straight segment's deposit
 * over the voxels it crosses (MCT_PH(deposit_segment), phantom_transport.inc),
 * in both precisions, against each voxel's chord found independently by
 * clipping the segment to the voxel's box in double:
 *   - the uniform path: every voxel gets de times its share of the length,
 *     the pieces add up to de, whether the segment stays in its voxel (the
 *     walk's one-piece case), crosses faces, runs along an axis or is a point;
 *   - the voxel path (`stop`): the length is spent as mass (rho / ref of it
 *     per cm), the pieces go by mass, and the walk is cut at the first face
 *     into another material or at the phantom's surface, with the energy and
 *     the length left as the reference finds them.
 * The tolerance is rounding, not statistics: the walk's face distances come
 * from positions held in the transport's precision, off by a few units in the
 * last place of the largest coordinate, and a piece moves by that distance
 * over the segment's length. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "phantom_tables.h"
#include "test_assert.h"
#include "test_random.h"

#define MCT_PH_FN MCT_INLINE
#define MCT_PH_FN_COLD MCT_INLINE
#define MCT_PH_SINK_T double
#define MCT_PH_SCORE(sink, voxel, e) ((sink)[(voxel)] += (double)(e))
#include "phantom_transport.h"

#define NX 5
#define NY 4
#define NZ 6
#define VOXELS (NX * NY * NZ)
#define TRIALS 20000

static const int grid_n[3] = {NX, NY, NZ};
static const double grid_d[3] = {0.3, 0.5, 0.2}; /* not powers of two: faces are rounded */

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;
static double uniform(void) { return test_u01(&rng_state); }

/** A test segment: start, direction and length, in double (the transport's
 * particle gets them rounded to its precision; the reference uses those
 * rounded values, read back). */
typedef struct {
    double pos[3], dir[3];
} ray_t;

/** The part [t0, t1] of the ray's [0, tmax] inside voxel (i, j, k) of a grid
 * whose lower corner is lo; 0 when it misses. */
static int clip(const ray_t* r, const double lo[3], const int v[3], double tmax, double* t0, double* t1) {
    double a = 0.0, b = tmax;
    for (int ax = 0; ax < 3; ++ax) {
        const double s0 = lo[ax] + v[ax] * grid_d[ax], s1 = lo[ax] + (v[ax] + 1) * grid_d[ax];
        if (r->dir[ax] == 0.0) {
            if (r->pos[ax] < s0 || r->pos[ax] > s1) return 0;
            continue;
        }
        double e = (s0 - r->pos[ax]) / r->dir[ax], x = (s1 - r->pos[ax]) / r->dir[ax];
        if (e > x) {
            const double w = e;
            e = x;
            x = w;
        }
        if (e > a) a = e;
        if (x < b) b = x;
    }
    if (!(b > a)) return 0;
    *t0 = a;
    *t1 = b;
    return 1;
}

static void random_ray(ray_t* r, const double lo[3], const double hi[3]) {
    for (int a = 0; a < 3; ++a) r->pos[a] = lo[a] + (hi[a] - lo[a]) * uniform();
    const double c = 2.0 * uniform() - 1.0, phi = 2.0 * MCT_PHANTOM_PI * uniform(), s = sqrt(1.0 - c * c);
    r->dir[0] = s * cos(phi);
    r->dir[1] = s * sin(phi);
    r->dir[2] = c;
    const double kind = uniform();
    if (kind < 0.1) { /* along an axis */
        const int a = (int)(3.0 * uniform()) % 3;
        for (int b = 0; b < 3; ++b) r->dir[b] = b == a ? (uniform() < 0.5 ? -1.0 : 1.0) : 0.0;
    } else if (kind < 0.2) { /* in a plane of two axes */
        const int a = (int)(3.0 * uniform()) % 3;
        r->dir[a] = 0.0;
        const double n = sqrt(r->dir[0] * r->dir[0] + r->dir[1] * r->dir[1] + r->dir[2] * r->dir[2]);
        for (int b = 0; b < 3; ++b) r->dir[b] /= n;
    }
}

/** Distance from the ray's start to the box's surface. */
static double exit_of(const ray_t* r, const double lo[3], const double hi[3]) {
    double t = INFINITY;
    for (int a = 0; a < 3; ++a) {
        if (r->dir[a] == 0.0) continue;
        const double x = ((r->dir[a] > 0.0 ? hi[a] : lo[a]) - r->pos[a]) / r->dir[a];
        if (x < t) t = x;
    }
    return t > 0.0 ? t : 0.0;
}

static int voxel_index(const int v[3]) { return v[0] + NX * (v[1] + NY * v[2]); }

/** The voxel holding the ray's start (clamped, as MCT_PH(cell) does). */
static int start_voxel(const ray_t* r, const double lo[3]) {
    int v[3];
    for (int a = 0; a < 3; ++a) {
        int i = (int)floor((r->pos[a] - lo[a]) / grid_d[a]);
        v[a] = i < 0 ? 0 : (i >= grid_n[a] ? grid_n[a] - 1 : i);
    }
    return voxel_index(v);
}

/* The same checks in both precisions: the body below, included twice. */
#define SUFFIX f64
#define NAME "f64"
#define REAL double
#define ULP 0x1.0p-52
#include "test_phantom_transport_body.h"
#undef SUFFIX
#undef NAME
#undef REAL
#undef ULP
#define SUFFIX f32
#define NAME "f32"
#define REAL float
#define ULP 0x1.0p-23
#include "test_phantom_transport_body.h"

int main(void) {
    run_uniform_f64();
    run_uniform_f32();
    run_stop_f64();
    run_stop_f32();
    printf("test_phantom_transport: ok\n");
    return 0;
}
