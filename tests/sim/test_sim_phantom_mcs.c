/* SPDX-License-Identifier: BSD-3-Clause */
/** @file test_sim_phantom_mcs.c  The phantom's multiple-scattering sampler
 * (MCT_PH(mcs_one_minus_cos)): at any step, up to s = 3 lambda1 and beyond,
 * the sampled deflections have Goudsmit-Saunderson's first two moments,
 * <1 - cos> = 1 - exp(-s/lambda1) and <1 - P2(cos)> = 1 - exp(-s/lambda2), in
 * both precisions, at electron energies from 0.05 to 50 MeV. Also: the
 * transport cross sections against closed forms, and the sampler's tail. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "phantom_tables.h"
#include "test_assert.h"

#define SAMPLES 400000

typedef struct {
    double mean, err;
} stat_t;

/* The sample mean of f(mu) for f = 1 - mu (which 0) or 1 - P2(mu) (which 1),
 * with its standard error. */
static void moments(const mct_ph_tables_t_f64* t64, const mct_ph_tables_t_f32* t32, int f32, double x1, double x2,
                    uint64_t seed, stat_t out[2]) {
    mct_phantom_rng_t rng;
    mct_phantom_rng_init(&rng, seed, 0);
    double s[2] = {0, 0}, q[2] = {0, 0};
    for (int i = 0; i < SAMPLES; ++i) {
        const double om = f32 ? (double)mct_ph_mcs_one_minus_cos_f32(t32, &rng, (float)x1, (float)x2)
                              : mct_ph_mcs_one_minus_cos_f64(t64, &rng, x1, x2);
        ASSERT_TRUE(om >= 0.0 && om <= 2.0);
        const double mu = 1.0 - om;
        const double v[2] = {om, 1.0 - 0.5 * (3.0 * mu * mu - 1.0)};
        for (int k = 0; k < 2; ++k) {
            s[k] += v[k];
            q[k] += v[k] * v[k];
        }
    }
    for (int k = 0; k < 2; ++k) {
        out[k].mean = s[k] / SAMPLES;
        const double var = q[k] / SAMPLES - out[k].mean * out[k].mean;
        out[k].err = sqrt((var > 0 ? var : 0) / (SAMPLES - 1.0));
    }
}

int main(void) {
    mct_phantom_params_t p;
    mct_phantom_params_init(&p);
    sim_phantom_tables_t tb = {0};
    ASSERT_STATUS(sim_phantom_tables_build(&p, NULL, &tb), MCT_STATUS_SUCCESS);
    const mct_ph_tables_t_f64 t64 = sim_phantom_tables_view_f64(&tb, tb.f64);
    const mct_ph_tables_t_f32 t32 = sim_phantom_tables_view_f32(&tb, tb.f32);

    /* Screened Rutherford: lambda1/lambda2 = (L - 1/(1+eta)) / (3 ((1+2 eta) L - 2))
     * lies between 1/3 (no screening tail) and 1/2.6 for water's eta (1e-7 .. 1e-2). */
    const double energies[] = {0.05, 0.3, 2.0, 10.0, 50.0};
    const double x1s[] = {1e-5, 1e-4, 1e-3, 1e-2, 0.1, 0.3, 0.75, 1.0, 2.0, 3.0, 6.0};
    uint64_t seed = 1;
    int worst_case = 0;
    double worst = 0.0;
    for (size_t ie = 0; ie < sizeof energies / sizeof *energies; ++ie) {
        const double lt = log(energies[ie]);
        const double l1 = mct_ph_electron_table_f64(&t64, MCT_PH_T_INV_LAMBDA1, lt);
        const double l2 = mct_ph_electron_table_f64(&t64, MCT_PH_T_INV_LAMBDA2, lt);
        printf("T %g MeV: lambda1 %.4g cm, lambda1/lambda2 %.4f\n", energies[ie], 1.0 / l1, l2 / l1);
        ASSERT_TRUE(l2 / l1 > 2.55 && l2 / l1 < 3.0);
        for (size_t ix = 0; ix < sizeof x1s / sizeof *x1s; ++ix) {
            const double x1 = x1s[ix], x2 = x1 * l2 / l1;
            const double want[2] = {-expm1(-x1), -expm1(-x2)};
            for (int f32 = 0; f32 < 2; ++f32) {
                stat_t got[2];
                moments(&t64, &t32, f32, x1, x2, seed++, got);
                for (int k = 0; k < 2; ++k) {
                    /* 5 standard errors of the sample mean, plus the float
                     * engine's rounding of the tables and moments (2e-4 relative). */
                    const double tol = 5.0 * got[k].err + (f32 ? 2e-4 * want[k] : 1e-9 * want[k]);
                    const double dev = fabs(got[k].mean - want[k]);
                    if (dev / tol > worst) worst = dev / tol, worst_case = (int)(ie * 100 + ix);
                    if (dev > tol)
                        printf("FAIL T %g x1 %g %s moment %d: %.8g want %.8g (+- %.3g)\n", energies[ie], x1,
                               f32 ? "f32" : "f64", k + 1, got[k].mean, want[k], tol);
                    ASSERT_LE_F64(dev, tol);
                }
            }
        }
    }
    printf("worst deviation %.2f of its tolerance (case %d)\n", worst, worst_case);

    /* The single-scattering tail: at a step of 0.01 lambda1 the chance of a
     * deflection beyond 30 degrees is that of a single screened Rutherford
     * collision there, s sigma(theta > 30 deg), up to a few percent (multiple
     * scattering in the core adds little at that angle). Wentzel's tail of the
     * model holds it within 30 %; a Gaussian of the same mean would give ~1e-30. */
    {
        const double lt = log(10.0);
        const double l1 = mct_ph_electron_table_f64(&t64, MCT_PH_T_INV_LAMBDA1, lt);
        const double l2 = mct_ph_electron_table_f64(&t64, MCT_PH_T_INV_LAMBDA2, lt);
        const double x1 = 0.01, uc = 0.5 * (1.0 - cos(30.0 * MCT_PHANTOM_PI / 180.0));
        /* Unscreened at 30 degrees: per unit of x1, sigma(u > uc)/sigma1 =
         * (1/uc - 1) / (2 (L - 1)), L = ln(1/eta_eff) from lambda1/lambda2. */
        const double ratio = l2 / l1; /* = 3 (L - 2)/(L - 1) for small eta */
        const double L = (3.0 * 2.0 - ratio) / (3.0 - ratio);
        const double expect = x1 * (1.0 / uc - 1.0) / (2.0 * (L - 1.0));
        mct_phantom_rng_t rng;
        mct_phantom_rng_init(&rng, 99, 0);
        long hits = 0;
        for (int i = 0; i < 4 * SAMPLES; ++i)
            if (mct_ph_mcs_one_minus_cos_f64(&t64, &rng, x1, x1 * ratio) > 2.0 * uc) ++hits;
        const double frac = hits / (4.0 * SAMPLES);
        printf("P(theta > 30 deg) at s = 0.01 lambda1, 10 MeV: %.4g, single scattering %.4g\n", frac, expect);
        ASSERT_TRUE(fabs(frac / expect - 1.0) < 0.3);
    }
    sim_phantom_tables_free(&tb);
    printf("test_sim_phantom_mcs: ok\n");
    return 0;
}
