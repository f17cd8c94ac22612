/* SPDX-License-Identifier: BSD-3-Clause */
/** @file test_sim_phantom_brems.c  The phantom's bremsstrahlung spectrum
 * (MCT_PH(brems_shape), MCT_PH(brems)): the shape stays under the sampler's
 * bound, reaches the complete-screening value for soft photons and falls
 * below it at the hard end, and the sampled photon energies have the mean of
 * the shape, in both precisions. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "phantom_tables.h"
#include "test_assert.h"

#define SAMPLES 400000

int main(void) {
    const double m = MCT_PHANTOM_MEC2, kcut = 0.01;
    mct_phantom_params_t p;
    mct_phantom_params_init(&p);
    sim_phantom_tables_t tb = {0};
    ASSERT_STATUS(sim_phantom_tables_build(&p, NULL, &tb), MCT_STATUS_SUCCESS);
    const mct_ph_tables_t_f64 t64 = sim_phantom_tables_view_f64(&tb, tb.f64);
    const mct_ph_tables_t_f32 t32 = sim_phantom_tables_view_f32(&tb, tb.f32);
    const double energies[] = {0.05, 1.0, 10.0, 20.0, 200.0};
    /* Complete screening: per molecule, sum_i w_i [2 (phi1(0) - c_i) - 2/3 (phi2(0) - c_i)]. */
    const double soft = 4.0 * (2.0 * 20.867 - 2.0 / 3.0 * 20.029) +
                        72.0 * (2.0 * (20.867 - 2.7725887222397811) - 2.0 / 3.0 * (20.029 - 2.7725887222397811));
    for (size_t ie = 0; ie < sizeof energies / sizeof *energies; ++ie) {
        const double t = energies[ie], etot = t + m;
        double gmax = 0.0;
        for (int i = 0; i <= 20000; ++i) {
            const double g = mct_ph_brems_shape_f64(&t64, t / etot * i / 20000.0, etot);
            ASSERT_TRUE(g >= 0.0);
            if (g > gmax) gmax = g;
        }
        ASSERT_LE_F64(gmax, 2772.5);
        ASSERT_NEAR_F64(mct_ph_brems_shape_f64(&t64, 1e-9, etot), soft, 1e-6 * soft);
        /* The hard end: less than the complete-screening shape's 3/4 of its soft value. */
        ASSERT_LT_F64(mct_ph_brems_shape_f64(&t64, t / etot, etot), 0.75 * soft);
        if (t <= kcut) continue;
        /* The mean photon energy of the sampler against the shape's:
         * int g dk / int g/k dk over [kcut, t] (Simpson in ln k), within 5
         * standard errors of the sample mean. */
        const int n = 4000;
        const double l0 = log(kcut), h = (log(t) - l0) / n;
        double num = 0.0, den = 0.0;
        for (int i = 0; i <= n; ++i) {
            const double k = exp(l0 + i * h), w = i == 0 || i == n ? 1.0 : (i % 2 ? 4.0 : 2.0);
            const double g = mct_ph_brems_shape_f64(&t64, k / etot, etot);
            num += w * g * k, den += w * g;
        }
        const double want = num / den;
        for (int f32 = 0; f32 < 2; ++f32) {
            mct_phantom_rng_t rng;
            mct_phantom_rng_init(&rng, 7 + (uint64_t)f32, ie);
            double s = 0.0, q = 0.0;
            for (int i = 0; i < SAMPLES; ++i) {
                const double k = f32 ? (double)mct_ph_brems_f32(&t32, &rng, (float)t, (float)kcut) : mct_ph_brems_f64(&t64, &rng, t, kcut);
                ASSERT_TRUE(k > 0.999 * kcut && k <= t);
                s += k, q += k * k;
            }
            const double mean = s / SAMPLES, err = sqrt((q / SAMPLES - mean * mean) / (SAMPLES - 1.0));
            printf("T %g MeV %s: mean photon %.5g MeV, shape's %.5g (+- %.2g)\n", t, f32 ? "f32" : "f64", mean, want, err);
            ASSERT_NEAR_F64(mean, want, 5.0 * err + (f32 ? 1e-5 * want : 0.0));
        }
    }
    sim_phantom_tables_free(&tb);
    printf("test_sim_phantom_brems: ok\n");
    return 0;
}
