/* SPDX-License-Identifier: BSD-3-Clause */
/** @file test_phantom_hetero.c  The phantom's transport through voxels of
 * their own material and density (phantom_geometry.h): the Fano cavity test,
 * exact density scaling, the voxel path against the uniform-medium path in
 * water, the same histories on the CPU and emulated backends, and the
 * geometries the engine refuses. Counts are CI's (seconds on 2 cores); the
 * GPU suite runs the Fano test at 1e8 histories. */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mctally/mct.h"
#include "phantom.h"
#include "phantom_tables.h"
#include "phantom_test.h"
#include "test_assert.h"

static mct_tally_t make(const mct_phantom_params_t* p, mct_backend_t backend, mct_method_t method) {
    return sim_test_tally(backend, method, MCT_DTYPE_F64, mct_phantom_voxel_count(p), 0);
}

/* A geometry of one material (water's tables) on an nx x ny x nz grid, every
 * voxel at density 1 until the caller changes it. */
static mct_phantom_geometry_t water_grid(int nx, int ny, int nz, double dx, double dy, double dz) {
    mct_phantom_geometry_t g = phantom_test_grid(nx, ny, nz, dx, dy, dz);
    g.materials = 1;
    strcpy(g.material[0].name, "water");
    g.material[0].density_g_cm3 = 1.0;
    return g;
}

/* The Fano test (phantom_test_fano) in water: the cell is 3 x 3 x 3 voxels
 * of 1 mm at 1 g/cm3 holding a cavity at 0.001 (the centre) and voxels at
 * 0.01 and 0.1 beside it, repeated without end in every direction. With 20
 * batches the estimate of sigma is itself good to ~16 %, so a correct engine
 * fails one of these 27 voxels at 4.5 sigma about once in 2e3 runs. At CI's
 * counts sigma is 0.5 % in the dense voxels and a few % in the cavity; the
 * GPU suite's 1e8 histories bring the dense voxels to 0.05 %. Bounded regions
 * matter: in an infinite thin slab of low density an electron running along
 * it scores without bound, and the error estimate of so heavy a tail is not
 * to be trusted. */
static void fano(mct_backend_t backend, mct_phantom_transport_t transport, mct_phantom_particle_t particle,
                 double energy, int64_t histories, double step_fraction) {
    mct_phantom_geometry_t g = water_grid(3, 3, 3, 0.1, 0.1, 0.1);
    g.density[13] = 0.001f; /* (1, 1, 1) */
    g.density[4] = 0.01f;   /* (1, 1, 0) */
    g.density[10] = 0.1f;   /* (1, 0, 1) */
    mct_phantom_params_t p;
    mct_phantom_params_init(&p);
    p.geometry = &g;
    p.source = MCT_PHANTOM_SOURCE_FANO;
    p.particle = particle;
    p.energy_MeV = energy;
    p.transport = transport;
    p.histories = histories;
    p.batches = 20;
    p.seed = 5;
    if (step_fraction > 0.0) p.step_fraction = step_fraction;
    phantom_test_fano("fano", &p, backend, transport == MCT_PHANTOM_TRANSPORT_F32 ? 1e-5 : 1e-9);
    mct_phantom_geometry_free(&g);
}

/* Sums of each voxel's energy, run on `backend` with `method`. */
static double* sums_of(const mct_phantom_params_t* p, mct_backend_t backend, mct_method_t method) {
    mct_tally_t t = make(p, backend, method);
    mct_phantom_result_t r;
    ASSERT_STATUS(mct_phantom_run(p, t, &r), MCT_STATUS_SUCCESS);
    const int64_t n = mct_phantom_voxel_count(p);
    double* s = malloc((size_t)n * sizeof *s);
    ASSERT_TRUE(s != NULL);
    ASSERT_STATUS(mct_tally_sums(t, s), MCT_STATUS_SUCCESS);
    mct_phantom_result_free(&r);
    mct_tally_destroy(t);
    return s;
}

static mct_phantom_params_t beam(const mct_phantom_geometry_t* g, mct_phantom_particle_t particle, double energy,
                                 int64_t histories) {
    mct_phantom_params_t p;
    mct_phantom_params_init(&p);
    p.geometry = g;
    p.particle = particle;
    p.energy_MeV = energy;
    p.histories = histories;
    p.batches = 4;
    p.seed = 17;
    return p;
}

/* Scaling every density by 1/2 and every length by 2 leaves every mass
 * thickness, hence every history, the same: the transport multiplies and
 * divides by powers of two only, so the voxels' energies are identical bit
 * for bit (electrons with their delta rays and photons, FP64). */
static void test_density_scaling(void) {
    for (int photon = 0; photon < 2; ++photon) {
        mct_phantom_geometry_t a = water_grid(9, 9, 12, 0.5, 0.5, 0.25), b = water_grid(9, 9, 12, 1.0, 1.0, 0.5);
        for (size_t k = 0; k < (size_t)9 * 9 * 12; ++k) {
            const float r = (k / 81) % 3 == 1 ? 0.25f : ((k / 81) % 3 == 2 ? 2.0f : 1.0f);
            a.density[k] = r;
            b.density[k] = 0.5f * r;
        }
        const mct_phantom_particle_t kind = photon ? MCT_PHANTOM_PHOTON : MCT_PHANTOM_ELECTRON;
        mct_phantom_params_t pa = beam(&a, kind, photon ? 6.0 : 10.0, 200), pb = beam(&b, kind, photon ? 6.0 : 10.0, 200);
        double *sa = sums_of(&pa, MCT_BACKEND_CPU, MCT_METHOD_FIXED), *sb = sums_of(&pb, MCT_BACKEND_CPU, MCT_METHOD_FIXED);
        double total = 0.0;
        for (int64_t k = 0; k < 9 * 9 * 12; ++k) {
            ASSERT_EQ_F64(sa[k], sb[k]);
            total += sa[k];
        }
        printf("density scaling (%s): %.6g MeV, bitwise equal\n", photon ? "photons" : "electrons", total);
        ASSERT_TRUE(total > 0.0);
        free(sa), free(sb);
        mct_phantom_geometry_free(&a), mct_phantom_geometry_free(&b);
    }
}

/* The same histories on the CPU and emulated (GPU code) backends: `fixed`
 * sums are bitwise the same whatever the order of the adds. */
static void test_backends_agree(void) {
    mct_phantom_geometry_t g = water_grid(7, 5, 20, 0.6, 0.8, 0.3);
    for (size_t k = 0; k < (size_t)7 * 5 * 20; ++k) g.density[k] = k % 7 == 3 ? 0.3f : (k % 5 == 1 ? 1.8f : 1.0f);
    for (int f32 = 0; f32 < 2; ++f32) {
        mct_phantom_params_t p = beam(&g, MCT_PHANTOM_ELECTRON, 8.0, 60);
        p.transport = f32 ? MCT_PHANTOM_TRANSPORT_F32 : MCT_PHANTOM_TRANSPORT_F64;
        double *c = sums_of(&p, MCT_BACKEND_CPU, MCT_METHOD_FIXED), *e = sums_of(&p, MCT_BACKEND_EMULATED, MCT_METHOD_FIXED);
        for (int64_t k = 0; k < 7 * 5 * 20; ++k) ASSERT_EQ_F64(c[k], e[k]);
        printf("cpu and emulated agree bitwise (%s transport)\n", f32 ? "f32" : "f64");
        free(c), free(e);
    }
    mct_phantom_geometry_free(&g);
}

/* Water at density 1 given as voxels against the uniform-medium path: the
 * voxel path cuts steps only where the medium changes, and here it changes
 * only at the surface, so both make the same steps from the same numbers and
 * the voxels' energies agree bit for bit in FP64, to the rounding of the
 * segments that leave in FP32 (electrons and photons, an odd grid whose faces
 * the beam starts between and an even one whose faces it starts on). */
static void test_voxels_match_uniform(void) {
    /* FP32: the one difference is a segment that leaves the phantom. The
     * voxel path's walk splits its loss as it goes and stops at the surface;
     * the uniform path first finds the exit distance, then splits the loss up
     * to it. The pieces of such a segment then differ by a few float roundings
     * of its loss (< the beam's 10 MeV), in the few voxels it crosses last. */
    const double f32_leave_tol = 16.0 * FLT_EPSILON * 10.0;
    for (int n = 9; n <= 10; ++n) {
        mct_phantom_geometry_t g = water_grid(n, n, n, 1.0, 1.0, 1.0);
        for (int kind = 0; kind < 4; ++kind) {
            mct_phantom_params_t pv = beam(&g, kind & 1 ? MCT_PHANTOM_PHOTON : MCT_PHANTOM_ELECTRON, 10.0, 100);
            pv.transport = kind & 2 ? MCT_PHANTOM_TRANSPORT_F32 : MCT_PHANTOM_TRANSPORT_F64;
            mct_phantom_params_t pu = pv;
            pu.geometry = NULL;
            pu.voxels = n, pu.size_cm = n;
            double *v = sums_of(&pv, MCT_BACKEND_CPU, MCT_METHOD_FIXED), *u = sums_of(&pu, MCT_BACKEND_CPU, MCT_METHOD_FIXED);
            double total = 0.0;
            for (int64_t k = 0; k < (int64_t)n * n * n; ++k) {
                if (kind & 2)
                    ASSERT_NEAR_F64(v[k], u[k], f32_leave_tol);
                else
                    ASSERT_EQ_F64(v[k], u[k]);
                total += v[k];
            }
            ASSERT_TRUE(total > 0.0);
            free(v), free(u);
        }
        mct_phantom_geometry_free(&g);
    }
    printf("water as voxels = the uniform path (bitwise in FP64)\n");
}

/* Photons through a stack of slabs whose central column's voxels each have a
 * density of their own, some above their material's nominal one, some below:
 * the primaries that leave without interacting are exp(-sum mu_k rho_k dz) of
 * the beam, mu_k the mass attenuation of voxel k's material at the beam's
 * energy as the engine's tables give it. So the photons' flights through
 * voxels (delta tracking against each material's densest voxel) place the
 * interactions by mass, material by material. Binomial error, 4.5 sigma;
 * cut-offs just under the beam, so that what interacts stops at once. FP64
 * and FP32 transport. */
static void attenuation(const mct_phantom_slab_t* slabs, int nslabs, double energy, int64_t histories) {
    const char* names[4] = {"water", "bone", "lung", "air"};
    mct_phantom_material_t known[4];
    for (int i = 0; i < 4; ++i) ASSERT_STATUS(mct_phantom_material_builtin(names[i], &known[i]), MCT_STATUS_SUCCESS);
    mct_phantom_geometry_t g;
    char err[256];
    ASSERT_STATUS(mct_phantom_geometry_slabs(slabs, nslabs, 3, 6.0, 0.25, known, 4, &g, err, sizeof err),
                  MCT_STATUS_SUCCESS);
    for (int iz = 0; iz < g.nz; ++iz) /* the column the beam runs along: 0.3 .. 2 x nominal */
        g.density[1 + 3 * (1 + 3 * (int64_t)iz)] *= (float)(0.3 + 0.17 * (double)((iz * 7) % 11));
    for (int transport = 0; transport < 2; ++transport) {
        mct_phantom_params_t p = beam(&g, MCT_PHANTOM_PHOTON, energy, histories);
        p.electron_cutoff_MeV = p.photon_cutoff_MeV = 0.9 * energy;
        p.transport = transport ? MCT_PHANTOM_TRANSPORT_F32 : MCT_PHANTOM_TRANSPORT_F64;
        double mu[MCT_PHANTOM_MAX_MATERIALS];
        for (int m = 0; m < g.materials; ++m) {
            sim_phantom_tables_t t;
            ASSERT_STATUS(sim_phantom_tables_build(&p, &g.material[m], &t), MCT_STATUS_SUCCESS);
            const mct_ph_tables_t_f64 v = sim_phantom_tables_view_f64(&t, t.f64);
            mu[m] = mct_ph_photon_table_f64(&v, MCT_PH_T_MU, log(p.energy_MeV));
            sim_phantom_tables_free(&t);
        }
        double mu_l = 0.0;
        for (int iz = 0; iz < g.nz; ++iz) {
            const int64_t k = 1 + 3 * (1 + 3 * (int64_t)iz);
            mu_l += mu[g.mat[k]] * (double)g.density[k] * g.dz_cm;
        }
        mct_tally_t tally = make(&p, MCT_BACKEND_CPU, MCT_METHOD_ATOMIC);
        mct_phantom_result_t r;
        ASSERT_STATUS(mct_phantom_run(&p, tally, &r), MCT_STATUS_SUCCESS);
        const double want = exp(-mu_l), sd = sqrt(want * (1.0 - want) / (double)p.histories);
        printf("%g MeV photons through %d slabs (%s): uncollided %.5f, exp(-mu L) %.5f +- %.5f\n", energy, nslabs,
               transport ? "f32" : "f64", r.uncollided_fraction, want, sd);
        ASSERT_NEAR_F64(r.uncollided_fraction, want, 4.5 * sd);
        mct_phantom_result_free(&r);
        mct_tally_destroy(tally);
    }
    mct_phantom_geometry_free(&g);
}

/* 1 MeV through water, bone, lung and air, where flights end within a few
 * fictitious collisions; 30 keV through bone and then 10 cm of air, where
 * they take dozens, a bone majorant's mean free path apart. */
static void test_photon_attenuation(void) {
    const mct_phantom_slab_t mixed[4] = {{"water", 1.0, 4.0}, {"bone", 1.85, 2.0}, {"lung", 0.26, 6.0}, {"air", 0.0012, 2.0}};
    attenuation(mixed, 4, 1.0, 200000);
    const mct_phantom_slab_t gap[2] = {{"bone", 1.85, 0.5}, {"air", 0.0012, 10.0}};
    attenuation(gap, 2, 0.03, 100000);
}

/* Geometries the engine cannot run: refused before any transport. */
static void test_refused(void) {
    mct_phantom_geometry_t g = water_grid(4, 4, 4, 0.5, 0.5, 0.5);
    mct_phantom_params_t p = beam(&g, MCT_PHANTOM_ELECTRON, 5.0, 10);
    mct_tally_t t = make(&p, MCT_BACKEND_CPU, MCT_METHOD_ATOMIC);
    ASSERT_STATUS(mct_phantom_check(&p, t), MCT_STATUS_SUCCESS);
    g.density[5] = 0.0f;
    ASSERT_STATUS(mct_phantom_check(&p, t), MCT_STATUS_INVALID_VALUE);
    g.density[5] = NAN;
    ASSERT_STATUS(mct_phantom_check(&p, t), MCT_STATUS_INVALID_VALUE);
    g.density[5] = -1.0f;
    ASSERT_STATUS(mct_phantom_check(&p, t), MCT_STATUS_INVALID_VALUE);
    g.density[5] = 1.0f;
    g.mat[7] = 1; /* only material 0 exists */
    ASSERT_STATUS(mct_phantom_check(&p, t), MCT_STATUS_INVALID_VALUE);
    g.mat[7] = 0;
    g.dz_cm = 0.0;
    ASSERT_STATUS(mct_phantom_check(&p, t), MCT_STATUS_INVALID_VALUE);
    g.dz_cm = 0.5;
    g.nz = 5; /* the tally's bins no longer match the grid */
    ASSERT_TRUE(mct_phantom_check(&p, t) != MCT_STATUS_SUCCESS);
    g.nz = 4;
    p.source = (mct_phantom_source_t)7;
    ASSERT_STATUS(mct_phantom_check(&p, t), MCT_STATUS_INVALID_VALUE);
    mct_tally_destroy(t);
    mct_phantom_geometry_free(&g);
    printf("bad geometries refused\n");
}

/* `test_phantom_hetero fano BACKEND HISTORIES [f32|f64 [STEP_FRACTION]]`
 * runs the Fano test alone at a large count (the GPU suite: cuda, 1e8),
 * electrons then photons, with the default steps or those given. */
static int fano_only(int argc, char** argv) {
    mct_backend_t backend;
    if (argc < 4 || mct_backend_from_name(argv[2], &backend) != MCT_STATUS_SUCCESS) {
        fprintf(stderr, "usage: test_phantom_hetero fano BACKEND HISTORIES [f32|f64 [STEP_FRACTION]]\n");
        return 2;
    }
    const int64_t n = (int64_t)strtod(argv[3], NULL);
    const mct_phantom_transport_t tr =
        argc > 4 && strcmp(argv[4], "f32") == 0 ? MCT_PHANTOM_TRANSPORT_F32 : MCT_PHANTOM_TRANSPORT_F64;
    const double step = argc > 5 ? strtod(argv[5], NULL) : 0.0;
    if (argc > 5 && !(step >= 1e-3 && step <= 0.5)) {
        fprintf(stderr, "test_phantom_hetero fano: STEP_FRACTION must be in [0.001, 0.5]\n");
        return 2;
    }
    fano(backend, tr, MCT_PHANTOM_ELECTRON, 1.0, n, step);
    fano(backend, tr, MCT_PHANTOM_PHOTON, 2.0, n / 4, step);
    printf("test_phantom_hetero fano: OK\n");
    return 0;
}

int main(int argc, char** argv) {
    if (argc > 1 && strcmp(argv[1], "fano") == 0) return fano_only(argc, argv);
    test_refused();
    test_photon_attenuation();
    test_density_scaling();
    test_backends_agree();
    fano(MCT_BACKEND_CPU, MCT_PHANTOM_TRANSPORT_F64, MCT_PHANTOM_ELECTRON, 1.0, 100000, 0.0);
    fano(MCT_BACKEND_CPU, MCT_PHANTOM_TRANSPORT_F32, MCT_PHANTOM_ELECTRON, 1.0, 100000, 0.0);
    fano(MCT_BACKEND_CPU, MCT_PHANTOM_TRANSPORT_F64, MCT_PHANTOM_PHOTON, 2.0, 100000, 0.0);
    test_voxels_match_uniform();
    printf("test_phantom_hetero: OK\n");
    return 0;
}
