/* SPDX-License-Identifier: BSD-3-Clause */
/** @file test_sim_detmath.c  The functions of sim_detmath.h against long
 * double libm (64-bit significand: its own error, under 2^-63, is below a
 * thousandth of a double ulp), over dense samples of each range, with their
 * special values. The bounds are in units in the last place of the double
 * result: each function's analysis (sim_detmath.h) is a few roundings of its
 * reduction and its series, so 4 ulp leaves room without hiding a wrong term
 * (which costs far more: the series of exp without its x^10 term is off by
 * 2e4 ulp at e^0.35). That the device gives the same bits is
 * test_sim_detmath_cuda's. */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "sim_detmath.h"
#include "test_assert.h"
#include "test_random.h"

#define PI 3.14159265358979323846

/* The error of `got` against the exact `ref`, in ulp of ref rounded to double
 * (for a subnormal ref, of the smallest subnormal). */
static double ulps(double got, long double ref) {
    const double r = (double)ref;
    int e;
    frexp(r == 0.0 ? DBL_MIN : r, &e);
    const double ulp = fmax(ldexp(1.0, e - 53), ldexp(1.0, -1074));
    return (double)fabsl((long double)got - ref) / ulp;
}

static double uniform(uint64_t* s, double lo, double hi) { return lo + (hi - lo) * test_u01(s); }

static void test_log(void) {
    uint64_t s = 1;
    double worst = 0.0;
    for (int i = 0; i < 2000000; ++i) {
        /* Every positive double is equally likely by its bits (subnormals
         * included), then a dense sample around 1, where ln x is small. */
        double x;
        do {
            const uint64_t b = test_splitmix64(&s) >> 1;
            memcpy(&x, &b, sizeof x);
        } while (!(x > 0.0) || x == INFINITY);
        worst = fmax(worst, ulps(sim_log_f64(x), logl((long double)x)));
        const double y = uniform(&s, 0.5, 2.0);
        worst = fmax(worst, ulps(sim_log_f64(y), logl((long double)y)));
    }
    printf("log: %.3g ulp\n", worst);
    ASSERT_LE_F64(worst, 4.0);
    ASSERT_EQ_F64(sim_log_f64(1.0), 0.0);
    ASSERT_TRUE(sim_log_f64(0.0) == -INFINITY);
    ASSERT_TRUE(sim_log_f64(INFINITY) == INFINITY);
    ASSERT_TRUE(isnan(sim_log_f64(-1.0)));
    ASSERT_TRUE(isnan(sim_log_f64(NAN)));
    ASSERT_LE_F64(ulps(sim_log_f64(DBL_TRUE_MIN), logl((long double)DBL_TRUE_MIN)), 4.0);
    ASSERT_LE_F64(ulps(sim_log_f64(DBL_MAX), logl((long double)DBL_MAX)), 4.0);
}

static void test_exp(void) {
    uint64_t s = 2;
    double worst = 0.0, worst_m1 = 0.0;
    for (int i = 0; i < 2000000; ++i) {
        const double x = uniform(&s, -745.0, 709.7);
        worst = fmax(worst, ulps(sim_exp_f64(x), expl((long double)x)));
        /* expm1 over its two branches and near 0, where it matters. */
        const double y = i % 2 ? uniform(&s, -40.0, 40.0) : ldexp(uniform(&s, -1.0, 1.0), -(int)(test_splitmix64(&s) % 60));
        worst_m1 = fmax(worst_m1, ulps(sim_expm1_f64(y), expm1l((long double)y)));
    }
    printf("exp: %.3g ulp, expm1: %.3g ulp\n", worst, worst_m1);
    ASSERT_LE_F64(worst, 4.0);
    ASSERT_LE_F64(worst_m1, 4.0);
    ASSERT_EQ_F64(sim_exp_f64(0.0), 1.0);
    ASSERT_EQ_F64(sim_expm1_f64(0.0), 0.0);
    ASSERT_TRUE(sim_exp_f64(710.0) == INFINITY);
    ASSERT_EQ_F64(sim_exp_f64(-746.0), 0.0);
    ASSERT_EQ_F64(sim_exp_f64(-INFINITY), 0.0);
    ASSERT_TRUE(isnan(sim_exp_f64(NAN)));
    ASSERT_EQ_F64(sim_expm1_f64(-800.0), -1.0);
    /* The edges of the range: the largest finite result, the subnormals. */
    ASSERT_LE_F64(ulps(sim_exp_f64(709.78), expl((long double)709.78)), 4.0);
    ASSERT_LE_F64(ulps(sim_exp_f64(-740.0), expl(-740.0L)), 1.0);
    ASSERT_LE_F64(ulps(sim_exp_f64(-708.5), expl(-708.5L)), 4.0);
}

static void test_sincospi(void) {
    uint64_t s = 3;
    double worst = 0.0;
    for (int i = 0; i < 2000000; ++i) {
        /* The azimuths of the transport (0 to 3) and beyond, both signs. */
        const double x = uniform(&s, -8.0, 8.0);
        double sp, cp;
        sim_sincospi_f64(x, &sp, &cp);
        /* The reference works near the zeros, where long double's pi * x
         * would lose the result's digits: x - n (n the nearest integer) and
         * 1/2 - |x - n| (for |x - n| >= 1/4) are exact, and the sine of each
         * is taken where it is small. */
        const double n = rint(x), f = x - n;
        const long double sg = fmod(n, 2.0) != 0.0 ? -1.0L : 1.0L;
        const long double pi = 3.141592653589793238462643383279502884L;
        const long double cref = fabs(f) >= 0.25 ? sinl(pi * (long double)(0.5 - fabs(f))) : cosl(pi * (long double)f);
        worst = fmax(worst, fmax(ulps(sp, sg * sinl(pi * (long double)f)), ulps(cp, sg * cref)));
    }
    printf("sincospi: %.3g ulp\n", worst);
    ASSERT_LE_F64(worst, 4.0);
    /* Multiples of 1/2: exact zeros and ones. */
    for (int k = -8; k <= 8; ++k) {
        double sp, cp;
        sim_sincospi_f64(0.5 * k, &sp, &cp);
        ASSERT_EQ_F64(fabs(sp), (double)(k % 2 != 0));
        ASSERT_EQ_F64(fabs(cp), (double)(k % 2 == 0));
        ASSERT_EQ_F64(sp + cp, (k % 4 == 0 || k % 4 == 1 || k % 4 == -3) ? 1.0 : -1.0);
    }
}

/* The error of the float `got` against ref, in ulp of ref rounded to float. */
static double ulps32(float got, double ref) {
    const float r = (float)ref;
    int e;
    frexpf(r == 0.0f ? FLT_MIN : r, &e);
    const double ulp = fmax(ldexp(1.0, e - 24), ldexp(1.0, -149));
    return fabs((double)got - ref) / ulp;
}

/* The phantom's float engine: the same functions in float, against double
 * libm (exact enough at float's scale: its error is 2^-29 of a float ulp). */
static void test_phantom_f32(void) {
    uint64_t s = 4;
    double w_log = 0.0, w_exp = 0.0, w_m1 = 0.0, w_sc = 0.0;
    for (int i = 0; i < 2000000; ++i) {
        float x;
        do {
            const uint32_t b = (uint32_t)(test_splitmix64(&s) >> 33);
            memcpy(&x, &b, sizeof x);
        } while (!(x > 0.0f) || x == INFINITY);
        w_log = fmax(w_log, ulps32(sim_log_f32(x), log((double)x)));
        const float y = (float)uniform(&s, -103.9, 88.7);
        w_exp = fmax(w_exp, ulps32(sim_exp_f32(y), exp((double)y)));
        const float m = i % 2 ? (float)uniform(&s, -20.0, 20.0) : (float)ldexp(uniform(&s, -1.0, 1.0), -(int)(test_splitmix64(&s) % 30));
        w_m1 = fmax(w_m1, ulps32(sim_expm1_f32(m), expm1((double)m)));
        const float t = (float)uniform(&s, -8.0, 8.0);
        float sp, cp;
        sim_sincospi_f32(t, &sp, &cp);
        const double n = rint((double)t), f = (double)t - n, sg = fmod(n, 2.0) != 0.0 ? -1.0 : 1.0;
        const double cref = fabs(f) >= 0.25 ? sin(PI * (0.5 - fabs(f))) : cos(PI * f);
        w_sc = fmax(w_sc, fmax(ulps32(sp, sg * sin(PI * f)), ulps32(cp, sg * cref)));
    }
    printf("float: log %.3g, exp %.3g, expm1 %.3g, sincospi %.3g ulp\n", w_log, w_exp, w_m1, w_sc);
    ASSERT_LE_F64(w_log, 4.0);
    ASSERT_LE_F64(w_exp, 4.0);
    ASSERT_LE_F64(w_m1, 4.0);
    ASSERT_LE_F64(w_sc, 4.0);
    ASSERT_EQ_F64(sim_log_f32(1.0f), 0.0);
    ASSERT_TRUE(sim_log_f32(0.0f) == -INFINITY);
    ASSERT_TRUE(isnan(sim_log_f32(-1.0f)));
    ASSERT_EQ_F64(sim_exp_f32(0.0f), 1.0);
    ASSERT_TRUE(sim_exp_f32(89.0f) == INFINITY);
    ASSERT_EQ_F64(sim_exp_f32(-104.0f), 0.0);
    ASSERT_EQ_F64(sim_expm1_f32(-30.0f), -1.0);
    ASSERT_LE_F64(ulps32(sim_exp_f32(-100.0f), exp(-100.0)), 1.0); /* subnormal */
    ASSERT_LE_F64(ulps32(sim_exp_f32(88.7f), exp((double)88.7f)), 4.0);
    for (int k = -8; k <= 8; ++k) {
        float sp, cp;
        sim_sincospi_f32(0.5f * (float)k, &sp, &cp);
        ASSERT_EQ_F64(fabsf(sp), (double)(k % 2 != 0));
        ASSERT_EQ_F64(fabsf(cp), (double)(k % 2 == 0));
    }
}

/* ---- Float functions (PET, tally_only) ------------------------------------------ */

static void test_float(void) {
    double worst_sc = 0.0, worst_at = 0.0, worst_cb = 0.0, worst_log = 0.0;
    for (int i = -400000; i <= 800000; ++i) {
        const float t = (float)i / 400000.0f + 1e-7f * (float)(i % 7);
        float s, c;
        sim_sincos_turn(t, &s, &c);
        worst_sc = fmax(worst_sc, fmax(fabs(s - sin(2.0 * PI * t)), fabs(c - cos(2.0 * PI * t))));
        /* The direction of a point at angle t back from its coordinates. */
        const float x = (float)(3.0 * sin(2.0 * PI * t)), y = (float)(3.0 * cos(2.0 * PI * t));
        double ref = atan2((double)x, (double)y) / (2.0 * PI);
        if (ref < 0.0) ref += 1.0;
        double d = fabs(sim_atan2_turn(x, y) - ref);
        worst_at = fmax(worst_at, fmin(d, fabs(d - 1.0))); /* 0 and 1 are the same direction */
    }
    for (int i = 1; i <= 1000000; ++i) {
        const float u = (float)i / 1000000.0f;
        worst_cb = fmax(worst_cb, fabs(sim_cbrtf(u) - cbrt((double)u)) / cbrt((double)u));
        const double l = log((double)u);
        if (u != 1.0f) worst_log = fmax(worst_log, fabs(sim_logf(u) - l) / fabs(l));
    }
    printf("float: sincos %.3g, atan2 %.3g turns, cbrt %.3g relative, log %.3g relative\n", worst_sc, worst_at,
           worst_cb, worst_log);
    ASSERT_LE_F64(worst_sc, 1.5e-7);
    ASSERT_LE_F64(worst_at, 1.2e-7); /* 1e-8 of the polynomial, a float ulp of a result near 1 */
    ASSERT_LE_F64(worst_cb, 2.5e-7);
    ASSERT_LE_F64(worst_log, 2.4e-7); /* 2^-23 and the rounding of the result */
    ASSERT_EQ_F64(sim_atan2_turn(0.0f, 1.0f), 0.0);
    ASSERT_EQ_F64(sim_atan2_turn(1.0f, 0.0f), 0.25);
    ASSERT_EQ_F64(sim_atan2_turn(0.0f, -1.0f), 0.5);
    ASSERT_EQ_F64(sim_atan2_turn(-1.0f, 0.0f), 0.75);
}

int main(void) {
    test_log();
    test_exp();
    test_sincospi();
    test_phantom_f32();
    test_float();
    printf("test_sim_detmath: ok\n");
    return 0;
}
