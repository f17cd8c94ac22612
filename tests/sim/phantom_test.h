/* SPDX-License-Identifier: BSD-3-Clause */
/** @file phantom_test.h  What the phantom tests share: a voxel grid to fill
 * in, and the Fano cavity test (Kawrakow 2000) on a periodic cell of it. */
#ifndef MCT_PHANTOM_TEST_H
#define MCT_PHANTOM_TEST_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mctally/mct.h"
#include "phantom.h"
#include "sim_test_tally.h"
#include "test_assert.h"

/* The uniform water cube of n^3 voxels over size_cm, defaults otherwise. */
static inline mct_phantom_params_t phantom_test_cube(int n, double size_cm) {
    mct_phantom_params_t p;
    mct_phantom_params_init(&p);
    p.voxels = n;
    p.size_cm = size_cm;
    return p;
}

/* An nx x ny x nz grid of dx x dy x dz cm voxels, every voxel material 0 at
 * density 1 until the caller changes it; the caller names the materials. */
static inline mct_phantom_geometry_t phantom_test_grid(int nx, int ny, int nz, double dx, double dy, double dz) {
    mct_phantom_geometry_t g;
    memset(&g, 0, sizeof g);
    g.nx = nx, g.ny = ny, g.nz = nz;
    g.dx_cm = dx, g.dy_cm = dy, g.dz_cm = dz;
    const size_t n = (size_t)nx * ny * nz;
    g.mat = calloc(n, 1);
    g.density = malloc(n * sizeof *g.density);
    ASSERT_TRUE(g.mat && g.density);
    for (size_t k = 0; k < n; ++k) g.density[k] = 1.0f;
    return g;
}

/* The Fano test on p (a Fano source in p->geometry: one material whose
 * density varies between voxels, periodic faces) with `backend`: every
 * voxel's dose is then the same, E0 per history over the cell's mass, so the
 * energy per history in voxel k is E0 m_k / M. Checked per voxel against the
 * tally's own batch error: |ratio - 1| <= 4.5 sigma, sigma in (0, 0.25) (a
 * test with power); nothing escapes; the energy balance closes within
 * balance_tol. Prints `label` and the run, and the voxels whose density is
 * not the first voxel's, and the largest deviation in sigma. */
static inline void phantom_test_fano(const char* label, const mct_phantom_params_t* p, mct_backend_t backend,
                                     double balance_tol) {
    const mct_phantom_geometry_t* g = p->geometry;
    const int64_t n = mct_phantom_voxel_count(p);
    double mass = 0.0;
    for (int64_t k = 0; k < n; ++k) mass += g->density[k];
    mct_tally_t t = sim_test_tally(backend, MCT_METHOD_ATOMIC, MCT_DTYPE_F64, n, 0);
    mct_phantom_result_t r;
    ASSERT_STATUS(mct_phantom_run(p, t, &r), MCT_STATUS_SUCCESS);
    double* mean = malloc((size_t)n * sizeof *mean);
    double* err = malloc((size_t)n * sizeof *err);
    ASSERT_TRUE(mean && err);
    ASSERT_STATUS(mct_tally_results(t, mean, err), MCT_STATUS_SUCCESS);
    printf("%s %s %s %s %g MeV, %lld histories: escaped %.3g MeV, balance %.2e\n", label, mct_backend_name(backend),
           p->transport == MCT_PHANTOM_TRANSPORT_F32 ? "f32" : "f64",
           p->particle == MCT_PHANTOM_PHOTON ? "photons" : "electrons", p->energy_MeV, (long long)p->histories,
           r.escaped_MeV, r.energy_balance_rel);
    ASSERT_EQ_F64(r.escaped_MeV, 0.0); /* periodic: nothing leaves */
    ASSERT_LE_F64(fabs(r.energy_balance_rel), balance_tol);
    double worst = 0.0;
    for (int64_t k = 0; k < n; ++k) {
        const double expect = p->energy_MeV * g->density[k] / mass, ratio = mean[k] / expect;
        if (g->density[k] != g->density[0] || k == 0)
            printf("  voxel %2d density %-6g dose / expected %.5f +- %.5f\n", (int)k, g->density[k], ratio,
                   err[k] * ratio);
        ASSERT_TRUE(err[k] > 0.0 && err[k] < 0.25);
        ASSERT_LE_F64(fabs(ratio - 1.0), 4.5 * err[k] * ratio);
        if (fabs(ratio - 1.0) / (err[k] * ratio) > worst) worst = fabs(ratio - 1.0) / (err[k] * ratio);
    }
    printf("  largest deviation %.2f sigma\n", worst);
    free(mean);
    free(err);
    mct_phantom_result_free(&r);
    mct_tally_destroy(t);
}

#endif /* MCT_PHANTOM_TEST_H */
