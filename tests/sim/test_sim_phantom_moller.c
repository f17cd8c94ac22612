/* SPDX-License-Identifier: BSD-3-Clause */
/** @file test_sim_phantom_moller.c  The Moller collisions whose delta rays
 * stop at once (MCT_PH(local_moller)): over a step of sm g/cm2 at kinetic
 * energy T their energy has the mean sm times the band's loss rate and the
 * variance sm times its second moment (a compound Poisson sum), against the
 * Moller cross section integrated here from its formula, in both precisions,
 * from steps with a fraction of a collision to steps of tens of them. Also:
 * the band's cross section and the primary's deflection in it (the transport
 * cross sections the step's multiple scattering adds) in the tables. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "phantom_tables.h"
#include "test_assert.h"

#define SAMPLES 200000

/* Water's Moller cross section per gram, dsigma/deps at kinetic energy t. */
static double dsigma(double t, double eps) {
    const double m = MCT_PHANTOM_MEC2, tau = t / m, x = eps / t;
    const double beta2 = tau * (tau + 2.0) / ((tau + 1.0) * (tau + 1.0));
    const double r2 = (tau / (tau + 1.0)) * (tau / (tau + 1.0)), re2 = MCT_PHANTOM_RE_CM * MCT_PHANTOM_RE_CM;
    const double c = 2.0 * MCT_PHANTOM_PI * re2 * m * MCT_PHANTOM_ELECTRONS_PER_G / beta2;
    return c / (t * t) * (1.0 / (x * x) + 1.0 / ((1.0 - x) * (1.0 - x)) + r2 - (1.0 - r2) / (x * (1.0 - x)));
}

/* The primary's 1 - cos after giving eps: from cos^2 = (t - eps)(t + 2m) / (t (t - eps + 2m)). */
static double one_minus_cos(double t, double eps) {
    const double m = MCT_PHANTOM_MEC2, tp = t - eps;
    return 1.0 - sqrt(tp * (t + 2.0 * m) / (t * (tp + 2.0 * m)));
}

/* Integrals over eps in [lo, hi] of dsigma, eps dsigma, eps^2 dsigma,
 * (1 - cos) dsigma and (1 - P2(cos)) dsigma (Simpson in ln eps). */
static void band(double t, double lo, double hi, double out[5]) {
    const int n = 20000;
    const double l0 = log(lo), h = (log(hi) - l0) / n;
    for (int k = 0; k < 5; ++k) out[k] = 0.0;
    for (int i = 0; i <= n; ++i) {
        const double e = exp(l0 + i * h), w = (i == 0 || i == n ? 1.0 : (i % 2 ? 4.0 : 2.0)) * h / 3.0 * e;
        const double d = dsigma(t, e), c = 1.0 - one_minus_cos(t, e);
        out[0] += w * d, out[1] += w * d * e, out[2] += w * d * e * e;
        out[3] += w * d * (1.0 - c), out[4] += w * d * 1.5 * (1.0 - c * c);
    }
}

int main(void) {
    mct_phantom_params_t p;
    mct_phantom_params_init(&p); /* delta threshold 12.5 keV, electron cut-off 0.2 MeV */
    sim_phantom_tables_t tb = {0};
    ASSERT_STATUS(sim_phantom_tables_build(&p, NULL, &tb), MCT_STATUS_SUCCESS);
    const mct_ph_tables_t_f64 t64 = sim_phantom_tables_view_f64(&tb, tb.f64);
    const mct_ph_tables_t_f32 t32 = sim_phantom_tables_view_f32(&tb, tb.f32);
    const mct_ph_geom_t_f64 g64 = sim_phantom_geom_f64(&p);
    const mct_ph_geom_t_f32 g32 = sim_phantom_geom_f32(&p);
    ASSERT_NEAR_F64(g64.dcut, 0.0125, 1e-12);
    ASSERT_NEAR_F64(g64.hcut, 0.2, 1e-12);
    const double energies[] = {0.1, 0.3, 1.0, 5.0, 20.0};
    const double steps[] = {0.003, 0.05, 0.5, 4.0}; /* g/cm2: mean numbers from ~0.03 to ~40 */
    for (size_t ie = 0; ie < sizeof energies / sizeof *energies; ++ie) {
        const double t = energies[ie], hi = t / 2.0 < 0.2 ? t / 2.0 : 0.2;
        double b[5];
        band(t, 0.0125, hi, b);
        /* The tables' band: the closed form and the deflection's integrals, interpolated (1e-3). */
        const double lt = log(t), sig = mct_ph_electron_table_f64(&t64, MCT_PH_T_SIG_LOCAL, lt);
        const double l1 = mct_ph_electron_table_f64(&t64, MCT_PH_T_LOCAL_INV_LAMBDA1, lt);
        const double l2 = mct_ph_electron_table_f64(&t64, MCT_PH_T_LOCAL_INV_LAMBDA2, lt);
        printf("T %g MeV: local Moller sigma %.6g cm2/g (integral %.6g), loss %.5g MeV cm2/g, 1/lambda1 %.5g (%.5g), "
               "1/lambda2 %.5g (%.5g), elastic 1/lambda1 %.5g\n",
               t, sig, b[0], b[1], l1, b[3], l2, b[4], mct_ph_electron_table_f64(&t64, MCT_PH_T_INV_LAMBDA1, lt));
        ASSERT_NEAR_F64(sig, b[0], 1e-3 * b[0]);
        ASSERT_NEAR_F64(l1, b[3], 1e-3 * b[3]);
        ASSERT_NEAR_F64(l2, b[4], 1e-3 * b[4]);
        for (size_t is = 0; is < sizeof steps / sizeof *steps; ++is)
            for (int f32 = 0; f32 < 2; ++f32) {
                const double sm = steps[is];
                mct_phantom_rng_t rng;
                mct_phantom_rng_init(&rng, 31 + (uint64_t)f32, ie * 16 + is);
                double sq = 0.0, qq = 0.0, q4 = 0.0;
                for (int i = 0; i < SAMPLES; ++i) {
                    const double q =
                        f32 ? (double)mct_ph_local_moller_f32(&t32, &g32, &rng, (float)sm, (float)t, logf((float)t))
                            : mct_ph_local_moller_f64(&t64, &g64, &rng, sm, t, lt);
                    ASSERT_TRUE(q >= 0.0);
                    sq += q, qq += q * q, q4 += q * q * q * q;
                }
                /* Mean and variance of a compound Poisson sum: sm int eps dsigma
                 * and sm int eps^2 dsigma; the variance's own standard error from
                 * the fourth moment. The table's interpolation (1e-3 of sigma)
                 * and float's rounding of the transfers (1e-5) come on top. */
                const double mq = sq / SAMPLES, vq = qq / SAMPLES - mq * mq;
                const double eq = sqrt(vq / (SAMPLES - 1.0));
                const double ev = sqrt((q4 / SAMPLES - (qq / SAMPLES) * (qq / SAMPLES)) / SAMPLES);
                const double want_q = sm * b[1], want_v = sm * b[2];
                printf("  %s sm %g: mean energy %.6g MeV (want %.6g +- %.2g), variance %.5g (want %.5g +- %.2g)\n",
                       f32 ? "f32" : "f64", sm, mq, want_q, eq, vq, want_v, ev);
                ASSERT_NEAR_F64(mq, want_q, 5.0 * eq + 1e-3 * want_q + (f32 ? 1e-5 * want_q : 0.0));
                ASSERT_NEAR_F64(vq, want_v, 5.0 * ev + 2e-3 * want_v + (f32 ? 1e-5 * want_v : 0.0));
            }
    }
    /* No band when the cut-off is at or below the delta threshold: the
     * collisions are all hard events then, and the step has none of these. */
    p.electron_cutoff_MeV = 0.0125;
    const mct_ph_geom_t_f64 same = sim_phantom_geom_f64(&p);
    mct_phantom_rng_t rng;
    mct_phantom_rng_init(&rng, 1, 0);
    ASSERT_EQ_F64(mct_ph_local_moller_f64(&t64, &same, &rng, 1.0, 5.0, log(5.0)), 0.0);
    sim_phantom_tables_free(&tb);
    printf("test_sim_phantom_moller: ok\n");
    return 0;
}
