/* SPDX-License-Identifier: BSD-3-Clause */
/** @file test_phantom_lateral.c  The lateral comparison of phantom.h: the
 * disc-rectangle areas against closed forms and a quadrature, the zone
 * averages of voxel fields against exact annulus means (constant and
 * piecewise constant fields, densities, errors) and a polar quadrature, the
 * test itself (dose difference, distance to agreement, the 5 % cut, both
 * normalisations) on synthetic references, and the refusals of bad ones. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "phantom.h"
#include "phantom_test.h"
#include "test_assert.h"

static const double pi = 3.14159265358979323846;

/* ---- Disc and rectangle --------------------------------------------------- */

/* The area by the midpoint rule on m x m points over the rectangle. */
static double area_quadrature(double r, double x0, double x1, double y0, double y1, int m) {
    double hits = 0.0;
    for (int i = 0; i < m; ++i) {
        const double x = x0 + (i + 0.5) * (x1 - x0) / m;
        for (int j = 0; j < m; ++j) {
            const double y = y0 + (j + 0.5) * (y1 - y0) / m;
            hits += x * x + y * y <= r * r;
        }
    }
    return hits * (x1 - x0) * (y1 - y0) / ((double)m * m);
}

static void test_disc_rect_area(void) {
    /* Closed forms: a square inside, the disc inside, a quarter, a half, a segment, nothing. */
    ASSERT_NEAR_F64(mct_phantom_disc_rect_area(1.0, -0.5, 0.5, -0.5, 0.5), 1.0, 1e-15);
    ASSERT_NEAR_F64(mct_phantom_disc_rect_area(0.3, -1.0, 1.0, -1.0, 1.0), pi * 0.09, 1e-15);
    ASSERT_NEAR_F64(mct_phantom_disc_rect_area(1.0, 0.0, 2.0, 0.0, 2.0), pi / 4.0, 1e-15);
    ASSERT_NEAR_F64(mct_phantom_disc_rect_area(1.0, 0.0, 1.0, -1.0, 1.0), pi / 2.0, 1e-15);
    ASSERT_NEAR_F64(mct_phantom_disc_rect_area(1.0, 0.5, 2.0, -2.0, 2.0), acos(0.5) - 0.5 * sqrt(0.75), 1e-15);
    ASSERT_NEAR_F64(mct_phantom_disc_rect_area(1.0, -3.0, -0.5, -2.0, 2.0), acos(0.5) - 0.5 * sqrt(0.75), 1e-15);
    ASSERT_EQ_F64(mct_phantom_disc_rect_area(1.0, 1.0, 2.0, 1.0, 2.0), 0.0);
    ASSERT_EQ_F64(mct_phantom_disc_rect_area(1.0, 0.8, 2.0, 0.8, 2.0), 0.0); /* the corner is at 1.13 */
    ASSERT_EQ_F64(mct_phantom_disc_rect_area(0.0, -1.0, 1.0, -1.0, 1.0), 0.0);
    /* Any grid of cells covering the disc, the axis on a corner, a centre
     * or neither: the cells' areas add up to pi r^2. */
    const double offsets[] = {0.0, 0.5, 0.137};
    for (int o = 0; o < 3; ++o)
        for (int n = 1; n <= 40; n += 13) {
            const double r = 0.73, d = 2.0 * r / n * 1.07;
            double sum = 0.0;
            for (int i = -n - 1; i <= n; ++i)
                for (int j = -n - 1; j <= n; ++j)
                    sum += mct_phantom_disc_rect_area(r, (i + offsets[o]) * d, (i + 1 + offsets[o]) * d,
                                                      (j + offsets[o]) * d, (j + 1 + offsets[o]) * d);
            ASSERT_NEAR_F64(sum, pi * r * r, 1e-13);
        }
    /* Rectangles cut by the circle anywhere: the midpoint rule on m x m
     * points (m = 2000) errs by at most the cells the circle crosses, fewer
     * than 4 (m + m) of them, each of area w h / m^2. */
    uint64_t s = 12345;
    double worst = 0.0;
    for (int t = 0; t < 40; ++t) {
        double v[4];
        for (int k = 0; k < 4; ++k) {
            s = s * 6364136223846793005ull + 1442695040888963407ull;
            v[k] = ((double)(s >> 11) / 9007199254740992.0) * 2.4 - 1.2;
        }
        const double x0 = fmin(v[0], v[1]), x1 = fmax(v[0], v[1]) + 0.01;
        const double y0 = fmin(v[2], v[3]), y1 = fmax(v[2], v[3]) + 0.01;
        const double exact = mct_phantom_disc_rect_area(1.0, x0, x1, y0, y1);
        const double quad = area_quadrature(1.0, x0, x1, y0, y1, 2000);
        ASSERT_NEAR_F64(exact, quad, 8.0 * (x1 - x0) * (y1 - y0) / 2000.0);
        worst = fmax(worst, fabs(exact - quad));
    }
    printf("disc and rectangles: largest difference from the quadrature %.2e cm2\n", worst);
}

/* ---- Zone averages --------------------------------------------------------- */

static double zone_dose(const mct_phantom_params_t* p, const double* e, const double* rel, double z0, double z1,
                        double r0, double r1, double* mass, double* err) {
    const double zone[4] = {z0, z1, r0, r1};
    double m, en, se;
    ASSERT_STATUS(mct_phantom_zone_energy(p, e, rel, zone, &m, &en, &se), MCT_STATUS_SUCCESS);
    if (mass) *mass = m;
    if (err) *err = se / m;
    return en / m;
}

static void test_zone_constant(void) {
    /* A uniform dose: every zone inside gets it exactly, and its mass is the
     * annulus's volume at 1 g/cm3, whatever the zone's place among the voxels. */
    const int n = 30;
    const mct_phantom_params_t p = phantom_test_cube(n, 6.0); /* 2 mm voxels */
    double* e = malloc((size_t)n * n * n * sizeof *e);
    for (int i = 0; i < n * n * n; ++i) e[i] = 0.7 * 0.008; /* 0.7 MeV/g in 0.008 g */
    const double zones[][4] = {{0.0, 0.1, 0.0, 0.1}, {1.03, 1.31, 0.27, 0.5}, {2.0, 2.1, 1.0, 2.9}, {5.8, 6.0, 0.0, 3.0}};
    for (int z = 0; z < 4; ++z) {
        const double* q = zones[z];
        double mass;
        const double d = zone_dose(&p, e, NULL, q[0], q[1], q[2], q[3], &mass, NULL);
        ASSERT_NEAR_F64(d, 0.7, 1e-13);
        ASSERT_NEAR_F64(mass, pi * (q[3] * q[3] - q[2] * q[2]) * (q[1] - q[0]), 1e-13 * mass);
    }
    free(e);
}

static void test_zone_piecewise(void) {
    /* 2 x 2 x 2 voxels of 1 cm: the disc of 0.5 cm about the axis takes a
     * quarter disc of each of the four voxels of a layer, so its dose is
     * their mean; an annulus too; a slab across both layers weighs them by
     * the depth in each. */
    mct_phantom_params_t p = phantom_test_cube(2, 2.0);
    const double e[8] = {1.0, 2.0, 3.0, 6.0, 10.0, 20.0, 30.0, 60.0};
    const double rel[8] = {0.1, 0.1, 0.1, 0.1, 0.2, 0.2, 0.2, 0.2};
    double err;
    ASSERT_NEAR_F64(zone_dose(&p, e, rel, 0.0, 1.0, 0.0, 0.5, NULL, &err), 3.0, 1e-14);
    /* Each voxel shares f = (pi / 16) of its 1 cm3: err = sqrt(sum (f E r)^2) / (4 f). */
    ASSERT_NEAR_F64(err, sqrt(0.01 + 0.04 + 0.09 + 0.36) / 4.0, 1e-14);
    ASSERT_NEAR_F64(zone_dose(&p, e, rel, 1.0, 2.0, 0.2, 0.9, NULL, NULL), 30.0, 1e-13);
    ASSERT_NEAR_F64(zone_dose(&p, e, rel, 0.75, 1.5, 0.0, 0.5, NULL, NULL), (0.25 * 3.0 + 0.5 * 30.0) / 0.75, 1e-13);
    /* Three voxels per edge: the disc of 0.5 cm is inside the central voxel. */
    p = phantom_test_cube(3, 3.0);
    double e27[27];
    for (int i = 0; i < 27; ++i) e27[i] = i;
    ASSERT_NEAR_F64(zone_dose(&p, e27, NULL, 1.2, 1.7, 0.0, 0.5, NULL, NULL), 13.0, 1e-14);
    /* Densities: a geometry whose right-hand voxels (x > 0) are twice as
     * dense: the zone's dose is its energy over its mass. */
    mct_phantom_geometry_t g;
    memset(&g, 0, sizeof g);
    g.nx = g.ny = g.nz = 2;
    g.dx_cm = g.dy_cm = g.dz_cm = 1.0;
    float rho[8];
    for (int i = 0; i < 8; ++i) rho[i] = i % 2 ? 2.0f : 1.0f;
    g.density = rho;
    p = phantom_test_cube(2, 2.0);
    p.geometry = &g;
    ASSERT_NEAR_F64(zone_dose(&p, e, rel, 0.0, 1.0, 0.0, 0.5, NULL, NULL), (1.0 + 2.0 + 3.0 + 6.0) / 6.0, 1e-14);
}

/* The voxel field v(ix, iy, iz) of test_zone_quadrature. */
static double field(int ix, int iy, int iz) {
    return 1.0 + ((ix * 7 + iy * 13 + iz * 5) % 11) + 0.25 * ix;
}

static void test_zone_quadrature(void) {
    /* Any voxel field: the zone's dose against a polar quadrature of the
     * same piecewise constant field over the annulus (2000 radii x 4000
     * angles, each point's value the voxel's that holds it). The quadrature
     * errs where the voxel edges cross its cells: a share of about
     * (edges crossed) / (cells) of the range of the field, well under 1e-3. */
    const int n = 12;
    const double size = 1.2, d = size / n;
    const mct_phantom_params_t p = phantom_test_cube(n, size);
    double* e = malloc((size_t)n * n * n * sizeof *e);
    for (int iz = 0; iz < n; ++iz)
        for (int iy = 0; iy < n; ++iy)
            for (int ix = 0; ix < n; ++ix) e[ix + n * (iy + n * iz)] = field(ix, iy, iz) * d * d * d;
    const double r0 = 0.13, r1 = 0.47;
    const int iz = 3;
    double sum = 0.0, w = 0.0;
    for (int i = 0; i < 2000; ++i) {
        const double r = r0 + (i + 0.5) * (r1 - r0) / 2000.0;
        for (int j = 0; j < 4000; ++j) {
            const double a = (j + 0.5) * 2.0 * pi / 4000.0;
            const int ix = (int)floor((r * cos(a) + 0.5 * size) / d), iy = (int)floor((r * sin(a) + 0.5 * size) / d);
            sum += field(ix, iy, iz) * r;
            w += r;
        }
    }
    const double got = zone_dose(&p, e, NULL, iz * d, (iz + 1) * d, r0, r1, NULL, NULL);
    printf("zone over a voxel field: %.9g, polar quadrature %.9g\n", got, sum / w);
    ASSERT_NEAR_F64(got, sum / w, 1e-3 * got);
    /* A dose linear in r, each voxel holding its centre's: the zone's dose is
     * the annulus mean of r, 2 (r1^3 - r0^3) / 3 (r1^2 - r0^2), to within
     * the farthest a voxel's points are from its centre (d / sqrt 2). */
    for (int iy = 0; iy < n; ++iy)
        for (int ix = 0; ix < n; ++ix) {
            const double x = (ix + 0.5) * d - 0.5 * size, y = (iy + 0.5) * d - 0.5 * size;
            for (int z = 0; z < n; ++z) e[ix + n * (iy + n * z)] = sqrt(x * x + y * y) * d * d * d;
        }
    const double lin = zone_dose(&p, e, NULL, 0.2, 0.3, r0, r1, NULL, NULL);
    const double mean_r = 2.0 * (r1 * r1 * r1 - r0 * r0 * r0) / (3.0 * (r1 * r1 - r0 * r0));
    printf("dose linear in r: zone %.6g, annulus mean %.6g (bound %.3g)\n", lin, mean_r, d / sqrt(2.0));
    ASSERT_NEAR_F64(lin, mean_r, d / sqrt(2.0));
    free(e);
}

/* ---- The comparison --------------------------------------------------------- */

/* A reference of the zones (slabs of dz from z0, annuli of dr) with the
 * doses of the field dose(r) (per slab, scaled by s[slab]) and errors 0. */
static double* reference(int slabs, double z0, double dz, int annuli, double dr, double (*dose)(double), double scale,
                         int* n) {
    double* rows = malloc((size_t)slabs * annuli * MCT_PHANTOM_LATERAL_COLUMNS * sizeof *rows);
    int k = 0;
    for (int a = 0; a < annuli; ++a) /* annulus-major, as DOSRZnrc's listings */
        for (int s = 0; s < slabs; ++s, ++k) {
            double* r = rows + (size_t)MCT_PHANTOM_LATERAL_COLUMNS * k;
            r[0] = z0 + s * dz, r[1] = z0 + (s + 1) * dz, r[2] = a * dr, r[3] = (a + 1) * dr;
            r[4] = scale * dose(0.5 * (r[2] + r[3])), r[5] = 0.0;
        }
    *n = k;
    return rows;
}

static double flat(double r) { return r < 10.0 ? 1.0 : 0.0; }
/* A profile flat on the axis, falling from 1 to 0.1 at 1 cm, then 0.02. */
static double falling(double r) { return r < 1.0 ? 1.0 - 0.9 * r * r : 0.02; }

static void test_compare(void) {
    /* The run: a dose of 1 MeV/g per history everywhere in a cube of 40 x 1 mm. */
    const int n = 40;
    const mct_phantom_params_t p = phantom_test_cube(n, 4.0);
    double* e = malloc((size_t)n * n * n * sizeof *e);
    double* rel = malloc((size_t)n * n * n * sizeof *rel);
    for (int i = 0; i < n * n * n; ++i) e[i] = 1e-3, rel[i] = 0.0;
    char err[512];
    int nr;
    /* 5 slabs of 1 mm from 1 cm, 20 annuli of 1 mm: all within 2 % in absolute terms. */
    double* rows = reference(5, 1.0, 0.1, 20, 0.1, flat, 1.0, &nr);
    mct_phantom_lateral_t c;
    ASSERT_STATUS(mct_phantom_lateral_compare(&p, NULL, e, rel, "flat", rows, nr, NULL, 0, 1.0, 3.0, &c, err, sizeof err),
                  MCT_STATUS_SUCCESS);
    ASSERT_TRUE(c.absolute && c.slabs == 5 && c.points == 100 && c.passed == 100 && c.pass);
    ASSERT_NEAR_F64(c.ratio, 1.0, 1e-12);
    mct_phantom_lateral_free(&c);
    /* One zone 3 % high, no errors: it fails (its neighbours are flat, so no
     * distance to agreement saves it), and so does its slab. */
    rows[(size_t)MCT_PHANTOM_LATERAL_COLUMNS * (3 * 5 + 2) + 4] = 1.03;
    const double depth = 1.25;
    ASSERT_STATUS(mct_phantom_lateral_compare(&p, NULL, e, rel, "flat", rows, nr, &depth, 1, 1.0, 3.0, &c, err, sizeof err),
                  MCT_STATUS_SUCCESS);
    ASSERT_TRUE(c.slabs == 1 && c.points == 20 && c.passed == 19 && !c.pass && !c.slab[0].pass);
    ASSERT_NEAR_F64(c.slab[0].z_lo_cm, 1.2, 1e-12);
    ASSERT_NEAR_F64(c.slab[0].worst_diff, 0.03 / 1.03, 1e-9);
    ASSERT_NEAR_F64(c.slab[0].worst_r_lo_cm, 0.3, 1e-12);
    ASSERT_TRUE(c.zone[3].compared && !c.zone[3].passed && c.zone[2].passed);
    mct_phantom_lateral_free(&c);
    /* The same zone's error of 1 % at k = 3 lets it pass (|diff| 3 % <= 2 % + 3 %). */
    rows[(size_t)MCT_PHANTOM_LATERAL_COLUMNS * (3 * 5 + 2) + 5] = 0.01;
    ASSERT_STATUS(mct_phantom_lateral_compare(&p, NULL, e, rel, "flat", rows, nr, &depth, 1, 1.0, 3.0, &c, err, sizeof err),
                  MCT_STATUS_SUCCESS);
    ASSERT_TRUE(c.pass);
    mct_phantom_lateral_free(&c);
    /* ... and so does the run's own error of 1 % (rel 0.01 in every voxel of the zone's layer). */
    rows[(size_t)MCT_PHANTOM_LATERAL_COLUMNS * (3 * 5 + 2) + 5] = 0.0;
    for (int i = 12 * n * n; i < 13 * n * n; ++i) rel[i] = 0.05;
    ASSERT_STATUS(mct_phantom_lateral_compare(&p, NULL, e, rel, "flat", rows, nr, &depth, 1, 1.0, 3.0, &c, err, sizeof err),
                  MCT_STATUS_SUCCESS);
    ASSERT_TRUE(c.pass && c.zone[3].run_err > 0.005);
    mct_phantom_lateral_free(&c);
    for (int i = 12 * n * n; i < 13 * n * n; ++i) rel[i] = 0.0;
    /* Integral normalisation: the reference on a scale of 1000 passes, scaled back. */
    free(rows);
    rows = reference(5, 1.0, 0.1, 20, 0.1, flat, 1000.0, &nr);
    ASSERT_STATUS(mct_phantom_lateral_compare(&p, NULL, e, rel, "flat", rows, nr, NULL, 0, 0.0, 3.0, &c, err, sizeof err),
                  MCT_STATUS_SUCCESS);
    ASSERT_TRUE(!c.absolute && c.pass && c.points == 100);
    ASSERT_NEAR_F64(c.scale, 1000.0, 1e-9);
    ASSERT_NEAR_F64(c.zone[7].run, 1000.0, 1e-9);
    mct_phantom_lateral_free(&c);
    free(rows);

    /* A falling profile in the run (1 - 0.9 r^2 at each voxel centre),
     * against the same profile moved outwards by 0.6 mm: up to 10 % of the
     * maximum apart, yet within 1 mm (distance to agreement); moved by 1.4 mm
     * it fails. Below 5 % of the maximum (0.02 beyond 1 cm) nothing is
     * compared. */
    for (int iz = 0; iz < n; ++iz)
        for (int iy = 0; iy < n; ++iy)
            for (int ix = 0; ix < n; ++ix) {
                const double x = (ix + 0.5) * 0.1 - 2.0, y = (iy + 0.5) * 0.1 - 2.0;
                e[ix + n * (iy + n * iz)] = 1e-3 * falling(sqrt(x * x + y * y));
            }
    const double shifts[] = {0.06, 0.14};
    for (int t = 0; t < 2; ++t) {
        rows = reference(1, 2.0, 0.1, 20, 0.1, flat, 1.0, &nr);
        for (int i = 0; i < nr; ++i) {
            double* r = rows + (size_t)MCT_PHANTOM_LATERAL_COLUMNS * i;
            r[4] = falling(fmax(0.5 * (r[2] + r[3]) - shifts[t], 0.0)); /* the run's profile, moved out */
        }
        ASSERT_STATUS(mct_phantom_lateral_compare(&p, NULL, e, rel, "shifted", rows, nr, NULL, 0, 1.0, 3.0, &c, err, sizeof err),
                      MCT_STATUS_SUCCESS);
        printf("profile moved by %.1f mm: %d of %d zones pass, worst %.2f %%\n", 10 * shifts[t], c.passed, c.points,
               100 * c.slab[0].worst_diff);
        ASSERT_EQ_I64(c.points, 11); /* 0 .. 1.1 cm: the 0.02 beyond is below 5 % of 1 */
        ASSERT_TRUE(t == 0 ? c.pass : !c.pass);
        ASSERT_TRUE(c.slab[0].worst_diff > 0.05);
        mct_phantom_lateral_free(&c);
        free(rows);
    }
    free(e);
    free(rel);
}

/* One bad reference: INVALID_VALUE (or st) with `what` in the message, nothing filled. */
static void expect_bad(const mct_phantom_params_t* p, const double* rows, int n, const double* depths, int nd,
                       mct_status_t st, const char* what) {
    char err[512] = "";
    ASSERT_STATUS(mct_phantom_lateral_check(p, "ref.csv", rows, n, depths, nd, err, sizeof err), st);
    printf("refused: %s\n", err);
    ASSERT_TRUE(strstr(err, what) != NULL && strstr(err, "ref.csv") != NULL);
    const int cells = p->voxels * p->voxels * p->voxels;
    double* e = calloc((size_t)cells, sizeof *e);
    mct_phantom_lateral_t c;
    ASSERT_STATUS(mct_phantom_lateral_compare(p, NULL, e, e, "ref.csv", rows, n, depths, nd, 1.0, 3.0, &c, err, sizeof err), st);
    ASSERT_TRUE(c.slab == NULL && c.zone == NULL && c.points == 0);
    free(e);
}

static void test_bad_references(void) {
    const mct_phantom_params_t p = phantom_test_cube(20, 4.0); /* 4 cm deep, 2 cm from the axis to a side */
    int n;
    double* good = reference(3, 1.0, 0.1, 5, 0.1, flat, 1.0, &n);
    const size_t bytes = (size_t)n * MCT_PHANTOM_LATERAL_COLUMNS * sizeof *good;
    double* r = malloc(bytes);
    char err[512];
    ASSERT_STATUS(mct_phantom_lateral_check(&p, "ref.csv", good, n, NULL, 0, err, sizeof err), MCT_STATUS_SUCCESS);
#define BAD(row, col, value, what)                                                     \
    do {                                                                               \
        memcpy(r, good, bytes);                                                        \
        r[(size_t)MCT_PHANTOM_LATERAL_COLUMNS * (row) + (col)] = (value);              \
        expect_bad(&p, r, n, NULL, 0, MCT_STATUS_INVALID_VALUE, what);                 \
    } while (0)
    BAD(4, 4, NAN, "row 5: column 5 is not a finite number");
    BAD(4, 5, -1.0, "the error -1 is negative");
    BAD(4, 4, -1.0, "the dose -1 is negative");
    BAD(2, 1, 1.2, "row 3 (z 1.2-1.2 cm, r 0-0.1 cm): z_hi_cm is not above z_lo_cm");
    BAD(2, 3, 0.0, "r_hi_cm is not above r_lo_cm");
    BAD(2, 2, -0.1, "r_lo_cm is negative");
    BAD(0, 0, -0.1, "before the entry face");
    BAD(3, 3, 0.25, "their annuli overlap");
    BAD(3, 1, 1.15, "their slabs overlap");
    BAD(14, 3, 2.5, "beyond the phantom's sides");
#undef BAD
    /* Depths: one no slab holds; slabs behind the phantom, asked for or all there is. */
    const double nowhere = 0.5, inside = 1.1, behind = 4.05;
    expect_bad(&p, good, n, &nowhere, 1, MCT_STATUS_INVALID_VALUE, "no slab contains the depth 0.5 cm");
    double* deep = reference(3, 3.9, 0.1, 5, 0.1, flat, 1.0, &n); /* 3.9-4.0 inside, 4.0-4.2 behind */
    expect_bad(&p, deep, n, &behind, 1, MCT_STATUS_INVALID_VALUE, "outside the phantom (4 cm deep)");
    double* deeper = reference(3, 4.0, 0.1, 5, 0.1, flat, 1.0, &n);
    expect_bad(&p, deeper, n, NULL, 0, MCT_STATUS_INVALID_VALUE, "no slab lies inside the phantom");
    /* Without depths the slabs behind the phantom are left out; with them, those asked for are compared. */
    double* two = malloc(2 * bytes);
    memcpy(two, good, bytes);
    memcpy(two + (size_t)n * MCT_PHANTOM_LATERAL_COLUMNS, deeper, bytes);
    ASSERT_STATUS(mct_phantom_lateral_check(&p, "ref.csv", two, 2 * n, NULL, 0, err, sizeof err), MCT_STATUS_SUCCESS);
    ASSERT_STATUS(mct_phantom_lateral_check(&p, "ref.csv", two, 2 * n, &inside, 1, err, sizeof err), MCT_STATUS_SUCCESS);
    expect_bad(&p, two, 2 * n, &behind, 1, MCT_STATUS_INVALID_VALUE, "outside the phantom");
    /* Another source than the pencil beam. */
    mct_phantom_params_t fano = p;
    fano.source = MCT_PHANTOM_SOURCE_FANO;
    expect_bad(&fano, good, n, NULL, 0, MCT_STATUS_NOT_SUPPORTED, "pencil beam");
    free(deep), free(deeper), free(two), free(good), free(r);
}

int main(void) {
    test_disc_rect_area();
    test_zone_constant();
    test_zone_piecewise();
    test_zone_quadrature();
    test_compare();
    test_bad_references();
    printf("test_phantom_lateral: OK\n");
    return 0;
}
