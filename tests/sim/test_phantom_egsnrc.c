/* SPDX-License-Identifier: BSD-3-Clause */
/** @file test_phantom_egsnrc.c  The phantom's depth doses against EGSnrc
 * (DOSRZnrc, data/reference/egsnrc) at counts CI affords, on the CPU backend:
 * every reference compiled in (phantom_refs.h: electron pencil beams of 4, 6,
 * 10, 15, 20 and 25 MeV, photon beams of 0.5, 1.25, 6 and 15 MeV), every depth with >= 5 % of
 * the maximum within 2 %/1 mm, and the electrons' R50 and Rp within 1 %. The
 * statistical allowance is k = 3 standard errors of the difference of the two
 * curves, sqrt(s_run^2 + s_egs^2), added to the 2 % and to the 1 %
 * (mct_phantom_comparison_t; the run's errors are batch errors, the
 * reference's EGSnrc's own). Then R50 of the 10 MeV beam at step fractions
 * 0.01, 0.02, 0.04 and 0.08: each within 3 standard errors of the difference
 * from the finest. The GPU suite (stage phantom_physics) runs the same
 * comparisons at 1e7 histories. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "mctally/mct.h"
#include "phantom.h"
#include "phantom_refs.h"
#include "sim_test_tally.h"
#include "test_assert.h"

static void run(const mct_phantom_params_t* p, mct_phantom_depth_dose_t* dd) {
    mct_tally_t t = sim_test_tally(MCT_BACKEND_CPU, MCT_METHOD_ATOMIC, MCT_DTYPE_F64, mct_phantom_voxel_count(p), 0);
    mct_phantom_result_t r;
    ASSERT_STATUS(mct_phantom_run(p, t, &r), MCT_STATUS_SUCCESS);
    ASSERT_STATUS(mct_phantom_depth_dose(p, &r, dd), MCT_STATUS_SUCCESS);
    printf("  %lld histories in %.1f s\n", (long long)p->histories, r.seconds);
    mct_phantom_result_free(&r);
    mct_tally_destroy(t);
}

static mct_phantom_params_t beam(mct_phantom_particle_t particle, double energy, double size, int voxels,
                                 int64_t histories) {
    mct_phantom_params_t p;
    mct_phantom_params_init(&p);
    p.particle = particle;
    p.energy_MeV = energy;
    p.size_cm = size;
    p.voxels = voxels;
    p.histories = histories;
    p.batches = 10;
    p.seed = 22;
    return p;
}

static void check_range(const char* name, double run, double run_err, double ref, double ref_err) {
    const double tol = 0.01 * ref + 3.0 * sqrt(run_err * run_err + ref_err * ref_err);
    printf("  %s %.4f +- %.4f cm, EGSnrc %.4f +- %.4f cm: %+.2f %% (tolerance %.2f %%)\n", name, run, run_err, ref,
           ref_err, 100.0 * (run / ref - 1.0), 100.0 * tol / ref);
    ASSERT_NEAR_F64(run, ref, tol);
}

static void compare(const mct_phantom_params_t* p) {
    printf("%s %g MeV, %d slabs of %.2f cm:\n", p->particle == MCT_PHANTOM_PHOTON ? "photons" : "electrons",
           p->energy_MeV, p->voxels, p->size_cm / p->voxels);
    mct_phantom_depth_dose_t dd;
    run(p, &dd);
    mct_phantom_comparison_t c;
    ASSERT_STATUS(mct_phantom_egsnrc_compare(p, &dd, 3.0, &c), MCT_STATUS_SUCCESS);
    printf("  %s: %d of %d depths within 2 %%/1 mm + 3 sigma, worst difference %.2f %% of the maximum at %.2f cm\n",
           c.name, c.passed, c.points, 100.0 * c.worst_diff, c.worst_depth_cm);
    ASSERT_TRUE(c.points >= 15); /* 4 MeV: 1 mm slabs to 2 cm */
    ASSERT_EQ_I64(c.passed, c.points);
    if (p->particle == MCT_PHANTOM_ELECTRON) {
        ASSERT_TRUE(c.ranges);
        check_range("R50", c.run.r50_cm, c.run.r50_err_cm, c.ref.r50_cm, c.ref.r50_err_cm);
        check_range("Rp", c.run.rp_cm, c.run.rp_err_cm, c.ref.rp_cm, c.ref.rp_err_cm);
        printf("  surface dose %.3f +- %.3f, EGSnrc %.3f\n", c.run.surface_ratio, c.run.surface_ratio_err,
               c.ref.surface_ratio);
    }
    mct_phantom_depth_dose_free(&dd);
}

/* R50 must not depend on the step size: the condensed-history steps' angular
 * moments and random hinge are exact to the order that moves R50. */
static void step_independence(void) {
    const double fractions[] = {0.01, 0.02, 0.04, 0.08, 0.12};
    enum { N = sizeof fractions / sizeof *fractions };
    double r50[N], err[N];
    for (int i = 0; i < N; ++i) {
        mct_phantom_params_t p = beam(MCT_PHANTOM_ELECTRON, 10.0, 12.0, 120, 40000);
        p.step_fraction = fractions[i];
        p.seed = 100 + (uint64_t)i; /* independent runs: the errors add */
        printf("step fraction %.2f:\n", fractions[i]);
        mct_phantom_depth_dose_t dd;
        run(&p, &dd);
        mct_phantom_ranges_t rg;
        ASSERT_STATUS(mct_phantom_ranges(&dd, &rg), MCT_STATUS_SUCCESS);
        r50[i] = rg.r50_cm, err[i] = rg.r50_err_cm;
        printf("  R50 %.4f +- %.4f cm\n", r50[i], err[i]);
        mct_phantom_depth_dose_free(&dd);
    }
    for (int i = 1; i < N; ++i) ASSERT_NEAR_F64(r50[i], r50[0], 3.0 * sqrt(err[i] * err[i] + err[0] * err[0]));
}

int main(void) {
    /* Every reference the phantom compiles in (phantom_refs.h), so a new one
     * is tested as soon as it is listed: electrons in a cube about twice their
     * practical range deep and wide, E cm for E MeV (EGSnrc scores over a 20 cm
     * radius), in 1 mm slabs up to 20 cm and 2 mm beyond, 6e5/E histories
     * (about 1 s each on one core); photons in a 40 cm cube of 5 mm slabs. */
    for (int i = 0; i < sim_phantom_refs_n; ++i) {
        const sim_phantom_ref_t* ref = &sim_phantom_refs[i];
        const double e = ref->energy_MeV;
        mct_phantom_params_t p;
        if (ref->particle == MCT_PHANTOM_ELECTRON) {
            const double size = e < 4.5 ? 4.5 : e;
            p = beam(MCT_PHANTOM_ELECTRON, e, size, (int)lround(size / (size > 20.0 ? 0.2 : 0.1)),
                     (int64_t)llround(6e5 / e));
        } else {
            p = beam(MCT_PHANTOM_PHOTON, e, 40.0, 80, 200000);
        }
        compare(&p);
    }
    step_independence();
    puts("test_phantom_egsnrc: ok");
    return 0;
}
