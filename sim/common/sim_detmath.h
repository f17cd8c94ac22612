/* SPDX-License-Identifier: BSD-3-Clause */
/** @file sim_detmath.h  Internal: functions with the same bits on the CPU,
 * under the emulation and on every GPU, for problems whose results must not
 * depend on the backend (a count that a rounding difference would move from
 * one bin to the next; a dose that a `fixed` tally promises bit for bit).
 *
 * The library functions (log, exp, sin, atan2) of glibc and of CUDA differ in
 * their last bits, so a problem that needs the same bits everywhere computes
 * them here, from operations that are each correctly rounded on both: +, -,
 * *, / and sqrt (IEEE on x86-64 and on the GPU without fast-math), fmaf (one
 * rounding by definition) and bit manipulation. On the device the products
 * and sums are the _rn intrinsics, which nvcc never fuses into an FMA; host
 * code that includes this file is compiled without contraction
 * (-ffp-contract=off), and every constant has the type of its function, so no
 * float expression is evaluated in double.
 *
 * PET and tally_only: sim_logf within 2^-23 relative; sim_sincos_turn within
 * 8e-8 absolute; sim_atan2_turn within 1e-8 turns; sim_cbrtf within 2 ulp;
 * their coefficients are least-squares fits at Chebyshev nodes, computed for
 * this file. The phantom: sim_log, sim_exp, sim_expm1 and sim_sincospi in
 * double (_f64) and float (_f32), from the Taylor series of exp, atanh, sin
 * and cos after an exact argument reduction, and no fma (on a host it is a
 * call); each is within a few ulp (test_sim_detmath measures them against
 * long double). */
#ifndef MCT_SIM_DETMATH_H
#define MCT_SIM_DETMATH_H

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "mctally/mct_config.h"

/* One rounding each, never fused. */
#if defined(__CUDA_ARCH__)
#define SIM_DM_MUL(a, b) __fmul_rn((a), (b))
#define SIM_DM_ADD(a, b) __fadd_rn((a), (b))
#define SIM_DM_SUB(a, b) __fsub_rn((a), (b))
#define SIM_DM_DIV(a, b) __fdiv_rn((a), (b))
#define SIM_DM_SQRT(a) __fsqrt_rn(a)
#else
#define SIM_DM_MUL(a, b) ((a) * (b))
#define SIM_DM_ADD(a, b) ((a) + (b))
#define SIM_DM_SUB(a, b) ((a) - (b))
#define SIM_DM_DIV(a, b) ((a) / (b))
#define SIM_DM_SQRT(a) sqrtf(a)
#endif

/* The same in double. */
#if defined(__CUDA_ARCH__)
#define SIM_DM64_MUL(a, b) __dmul_rn((a), (b))
#define SIM_DM64_ADD(a, b) __dadd_rn((a), (b))
#define SIM_DM64_SUB(a, b) __dsub_rn((a), (b))
#define SIM_DM64_DIV(a, b) __ddiv_rn((a), (b))
#else
#define SIM_DM64_MUL(a, b) ((a) * (b))
#define SIM_DM64_ADD(a, b) ((a) + (b))
#define SIM_DM64_SUB(a, b) ((a) - (b))
#define SIM_DM64_DIV(a, b) ((a) / (b))
#endif

MCT_INLINE MCT_HD uint32_t sim_f32_bits(float x) {
#if defined(__CUDA_ARCH__)
    return (uint32_t)__float_as_uint(x);
#else
    uint32_t b;
    memcpy(&b, &x, sizeof b);
    return b;
#endif
}

MCT_INLINE MCT_HD float sim_bits_f32(uint32_t b) {
#if defined(__CUDA_ARCH__)
    return __uint_as_float(b);
#else
    float x;
    memcpy(&x, &b, sizeof x);
    return x;
#endif
}

/** The polynomial with coefficients c[0] (the highest degree's) .. c[n-1]
 * (the constant) at x, by Horner's rule: n - 1 fmaf, each rounded once. */
MCT_INLINE MCT_HD float sim_horner(float x, const float* c, int n) {
    float p = c[0];
    MCT_UNROLL
    for (int i = 1; i < n; ++i) p = fmaf(p, x, c[i]);
    return p;
}

/** ln(u) for a normal float u > 0: u = 2^e m with m in [sqrt(1/2), sqrt(2)),
 * ln u = e ln 2 + ln(1 + f), f = m - 1 (exact), and ln(1 + f) = f - f^2/2 +
 * f^3 P(f) with P of degree 8 interpolating at the Chebyshev nodes of f's
 * range. ln 2 is split so that e * hi is exact. */
MCT_INLINE MCT_HD float sim_logf(float u) {
    const uint32_t bits = sim_f32_bits(u);
    int e = (int)(bits >> 23) - 127;
    uint32_t mbits = (bits & 0x007fffffu) | 0x3f800000u; /* m in [1, 2) */
    if (mbits > 0x3fb504f3u) {                           /* m > sqrt(2): halve it */
        mbits -= 0x00800000u;
        e += 1;
    }
    const float f = sim_bits_f32(mbits) - 1.0f; /* exact (Sterbenz) */
    const float pc[] = {0x1.1d8ea6p-4f, -0x1.d635bcp-4f, 0x1.dea282p-4f, -0x1.fcf4c6p-4f, 0x1.23d21ap-3f,
                        -0x1.555b4ap-3f, 0x1.999d5ap-3f, -0x1.fffffcp-3f, 0x1.555554p-2f};
    const float p = sim_horner(f, pc, 9);
    const float z = SIM_DM_MUL(f, f);
    const float tail = fmaf(SIM_DM_MUL(z, f), p, SIM_DM_MUL(-0.5f, z)); /* -f^2/2 + f^3 P */
    const float ef = (float)e;
    const float lo = fmaf(ef, -2.121944400546906e-4f, tail); /* ln 2 - 0.693359375 */
    return fmaf(ef, 0.693359375f, SIM_DM_ADD(f, lo));
}

/** sin and cos of the angle 2 pi t (t in turns, |t| < 2^22): t is reduced to
 * the nearest quarter turn k/4 (exactly: t - k/4 is a multiple of t's ulp),
 * the rest f in [-1/8, 1/8] goes into sin(2 pi f) = f S(f^2) and
 * cos(2 pi f) = C(f^2), and the quadrant k mod 4 swaps and negates them. */
MCT_INLINE MCT_HD void sim_sincos_turn(float t, float* s, float* c) {
    const float k = rintf(SIM_DM_MUL(t, 4.0f)); /* exact product, ties to even */
    const float f = SIM_DM_SUB(t, SIM_DM_MUL(k, 0.25f));
    const float z = SIM_DM_MUL(f, f);
    const float sc[] = {0x1.4bc87cp+5f, -0x1.32ca9ep+6f, 0x1.466bbap+6f, -0x1.4abbcep+5f, 0x1.921fb6p+2f};
    const float cc[] = {-0x1.a0ec7cp+4f, 0x1.e1e7c6p+5f, -0x1.55d3bap+6f, 0x1.03c1f0p+6f, -0x1.3bd3ccp+4f, 1.0f};
    const float sf = SIM_DM_MUL(f, sim_horner(z, sc, 5));
    const float cf = sim_horner(z, cc, 6);
    const int q = (int)((int64_t)k & 3);
    *s = q == 0 ? sf : q == 1 ? cf : q == 2 ? -sf : -cf;
    *c = q == 0 ? cf : q == 1 ? -sf : q == 2 ? -cf : sf;
}

/** atan(u) / (2 pi) for |u| <= tan(pi/8): u A(u^2). */
MCT_INLINE MCT_HD float sim_atan_turn_small(float u) {
    const float z = SIM_DM_MUL(u, u);
    const float c[] = {0x1.eb9546p-8f, -0x1.b92890p-7f, 0x1.1fe7eap-6f, -0x1.746842p-6f,
                       0x1.04c20ap-5f, -0x1.b2995ep-5f, 0x1.45f306p-3f};
    return SIM_DM_MUL(u, sim_horner(z, c, 7));
}

/** atan(q) / (2 pi) for q in [0, 1]: above tan(pi/8), 1/8 turn plus the
 * turn of (q - 1) / (q + 1). */
MCT_INLINE MCT_HD float sim_atan_turn01(float q) {
    if (q > 0x1.a827ap-2f) /* tan(pi/8) */
        return SIM_DM_ADD(0.125f, sim_atan_turn_small(SIM_DM_DIV(SIM_DM_SUB(q, 1.0f), SIM_DM_ADD(q, 1.0f))));
    return sim_atan_turn_small(q);
}

/** The direction of (x, y) in turns, clockwise from +y (the PET convention:
 * atan2(x, y) / (2 pi)), in [0, 1]: 1 only for a point a rounding below a
 * full turn. (0, 0) gives 0. */
MCT_INLINE MCT_HD float sim_atan2_turn(float x, float y) {
    const float ax = fabsf(x), ay = fabsf(y);
    if (ax == 0.0f && ay == 0.0f) return 0.0f;
    /* a: the angle of (ax, ay) from the +y axis, in [0, 1/4]. */
    const float a = ax <= ay ? sim_atan_turn01(SIM_DM_DIV(ax, ay))
                             : SIM_DM_SUB(0.25f, sim_atan_turn01(SIM_DM_DIV(ay, ax)));
    if (x >= 0.0f) return y >= 0.0f ? a : SIM_DM_SUB(0.5f, a);
    return y < 0.0f ? SIM_DM_ADD(0.5f, a) : SIM_DM_SUB(1.0f, a);
}

/** The cube root of x in (0, 1]: a first guess from the exponent bits, then
 * three Newton steps y <- (2y + x / y^2) / 3. */
MCT_INLINE MCT_HD float sim_cbrtf(float x) {
    float y = sim_bits_f32(sim_f32_bits(x) / 3u + 0x2a5137a0u);
    for (int i = 0; i < 3; ++i)
        y = SIM_DM_MUL(SIM_DM_ADD(SIM_DM_ADD(y, y), SIM_DM_DIV(x, SIM_DM_MUL(y, y))), 0x1.555556p-2f);
    return y;
}

/* ---- The phantom's functions, in double and in float ----------------------- */

MCT_INLINE MCT_HD uint64_t sim_f64_bits(double x) {
#if defined(__CUDA_ARCH__)
    return (uint64_t)__double_as_longlong(x);
#else
    uint64_t b;
    memcpy(&b, &x, sizeof b);
    return b;
#endif
}

MCT_INLINE MCT_HD double sim_bits_f64(uint64_t b) {
#if defined(__CUDA_ARCH__)
    return __longlong_as_double((long long)b);
#else
    double x;
    memcpy(&x, &b, sizeof x);
    return x;
#endif
}

/** x rounded to the nearest integer, ties to even, for |x| < 2^51: the sum
 * with 1.5 * 2^52 rounds away the fraction (plain operations, where rint is a
 * call on a host without SSE4.1). */
MCT_INLINE MCT_HD double sim_rint_f64(double x) {
    return SIM_DM64_SUB(SIM_DM64_ADD(x, 0x1.8p52), 0x1.8p52);
}
/** The same in float, for |x| < 2^22. */
MCT_INLINE MCT_HD float sim_rint_f32(float x) { return SIM_DM_SUB(SIM_DM_ADD(x, 0x1.8p23f), 0x1.8p23f); }

/** x 2^k for an integer k of [-2044, 2046] (double) or [-252, 254] (float),
 * by two exact powers of two: the first product is exact, the second rounds
 * once where the result is subnormal (and overflows to inf past the range). */
MCT_INLINE MCT_HD double sim_scale_f64(double x, int k) {
    const int k1 = k / 2, k2 = k - k1;
    return SIM_DM64_MUL(SIM_DM64_MUL(x, sim_bits_f64((uint64_t)(k1 + 1023) << 52)),
                        sim_bits_f64((uint64_t)(k2 + 1023) << 52));
}
MCT_INLINE MCT_HD float sim_scale_f32(float x, int k) {
    const int k1 = k / 2, k2 = k - k1;
    return SIM_DM_MUL(SIM_DM_MUL(x, sim_bits_f32((uint32_t)(k1 + 127) << 23)), sim_bits_f32((uint32_t)(k2 + 127) << 23));
}

/** The polynomial c[0] x^(n-1) + ... + c[n-1] (n >= 2) at x by Horner's
 * rule in x^2 on the even and the odd coefficients at once, a product and a
 * sum (each rounded) per coefficient: two independent chains of half the
 * length, since the series are bound by the latency of their steps; no fma,
 * whose call on a host would cost more than the series. */
MCT_INLINE MCT_HD double sim_horner64(double x, const double* c, int n) {
    const double x2 = SIM_DM64_MUL(x, x);
    double a = c[0], b = c[1]; /* a: c[0], c[2], ...; b: c[1], c[3], ... */
    MCT_UNROLL
    for (int i = 2; i + 1 < n; i += 2) {
        a = SIM_DM64_ADD(SIM_DM64_MUL(a, x2), c[i]);
        b = SIM_DM64_ADD(SIM_DM64_MUL(b, x2), c[i + 1]);
    }
    if (n & 1) /* a holds the even powers */
        return SIM_DM64_ADD(SIM_DM64_ADD(SIM_DM64_MUL(a, x2), c[n - 1]), SIM_DM64_MUL(x, b));
    return SIM_DM64_ADD(SIM_DM64_MUL(a, x), b); /* a holds the odd powers */
}
MCT_INLINE MCT_HD float sim_horner32(float x, const float* c, int n) {
    float p = c[0];
    MCT_UNROLL
    for (int i = 1; i < n; ++i) p = SIM_DM_ADD(SIM_DM_MUL(p, x), c[i]);
    return p;
}

/* ln 2 = SIM_LN2_HI + SIM_LN2_LO, the first with 32 significant bits, so that
 * k * SIM_LN2_HI is exact for every |k| < 2^21; in float, 9 bits. */
#define SIM_LN2_HI 0x1.62e42fee00000p-1
#define SIM_LN2_LO 0x1.a39ef35793c76p-33
#define SIM_LN2_HI_F 0x1.63p-1f
#define SIM_LN2_LO_F -0x1.bd0106p-13f

/** ln x. x = 2^e m with m in [sqrt(1/2), sqrt(2)) from the bits (subnormals
 * scaled first), f = m - 1 (exact), s = f / (2 + f), and ln(1 + f) = 2 atanh(s)
 * = f - f^2/2 + s (f^2/2 + R), R = sum 2 s^(2k) / (2k + 1), k = 1..10 (|s| <=
 * 0.172: the first term left out is below 2^-60 of the result). x = 0 gives
 * -inf, x < 0 NaN, +inf and NaN themselves. */
MCT_INLINE MCT_HD double sim_log_f64(double x) {
    if (!(x > 0.0) || x == INFINITY) return x == 0.0 ? -INFINITY : x < 0.0 ? NAN : x;
    int e = -1023;
    if (x < 0x1p-1022) { /* subnormal */
        x = SIM_DM64_MUL(x, 0x1p54);
        e -= 54;
    }
    const uint64_t b = sim_f64_bits(x);
    uint64_t mb = (b & 0x000fffffffffffffull) | 0x3ff0000000000000ull; /* m in [1, 2) */
    e += (int)(b >> 52);
    if (mb > 0x3ff6a09e667f3bcdull) { /* m > sqrt(2): halve it */
        mb -= 0x0010000000000000ull;
        e += 1;
    }
    const double f = SIM_DM64_SUB(sim_bits_f64(mb), 1.0);
    const double s = SIM_DM64_DIV(f, SIM_DM64_ADD(2.0, f)), z = SIM_DM64_MUL(s, s);
    const double rc[] = {0x1.8618618618618p-4, 0x1.af286bca1af28p-4, 0x1.e1e1e1e1e1e1ep-4, 0x1.1111111111111p-3,
                         0x1.3b13b13b13b14p-3, 0x1.745d1745d1746p-3, 0x1.c71c71c71c71cp-3, 0x1.2492492492492p-2,
                         0x1.999999999999ap-2, 0x1.5555555555555p-1}; /* 2/21 .. 2/3 */
    const double r = SIM_DM64_MUL(z, sim_horner64(z, rc, 10));
    const double hfsq = SIM_DM64_MUL(SIM_DM64_MUL(0.5, f), f);
    const double l1p = SIM_DM64_SUB(f, SIM_DM64_SUB(hfsq, SIM_DM64_MUL(s, SIM_DM64_ADD(hfsq, r))));
    const double k = (double)e;
    return SIM_DM64_ADD(SIM_DM64_MUL(k, SIM_LN2_HI), SIM_DM64_ADD(l1p, SIM_DM64_MUL(k, SIM_LN2_LO)));
}

/** ln x in float, as sim_log_f64 with R to k = 4 (the first term left out is
 * below 2^-27 of the result), and the same special values. */
MCT_INLINE MCT_HD float sim_log_f32(float x) {
    if (!(x > 0.0f) || x == INFINITY) return x == 0.0f ? -INFINITY : x < 0.0f ? NAN : x;
    int e = -127;
    if (x < 0x1p-126f) { /* subnormal */
        x = SIM_DM_MUL(x, 0x1p24f);
        e -= 24;
    }
    const uint32_t b = sim_f32_bits(x);
    uint32_t mb = (b & 0x007fffffu) | 0x3f800000u; /* m in [1, 2) */
    e += (int)(b >> 23);
    if (mb > 0x3fb504f3u) { /* m > sqrt(2): halve it */
        mb -= 0x00800000u;
        e += 1;
    }
    const float f = SIM_DM_SUB(sim_bits_f32(mb), 1.0f);
    const float s = SIM_DM_DIV(f, SIM_DM_ADD(2.0f, f)), z = SIM_DM_MUL(s, s);
    const float rc[] = {0x1.c71c72p-3f, 0x1.24924ap-2f, 0x1.99999ap-2f, 0x1.555556p-1f}; /* 2/9 .. 2/3 */
    const float r = SIM_DM_MUL(z, sim_horner32(z, rc, 4));
    const float hfsq = SIM_DM_MUL(SIM_DM_MUL(0.5f, f), f);
    const float l1p = SIM_DM_SUB(f, SIM_DM_SUB(hfsq, SIM_DM_MUL(s, SIM_DM_ADD(hfsq, r))));
    const float k = (float)e;
    return SIM_DM_ADD(SIM_DM_MUL(k, SIM_LN2_HI_F), SIM_DM_ADD(l1p, SIM_DM_MUL(k, SIM_LN2_LO_F)));
}

/** e^x - 1 - x for |x| <= ln(2)/2, as x^2 (1/2 + x/6 + ... + x^11/13!) in
 * double, x^2 (1/2 + ... + x^5/7!) in float: the first term left out is
 * below 2^-60 (2^-27) of the result. */
MCT_INLINE MCT_HD double sim_expm1_small_f64(double x) {
    const double c[] = {0x1.6124613a86d09p-33, 0x1.1eed8eff8d898p-29, 0x1.ae64567f544e4p-26, 0x1.27e4fb7789f5cp-22,
                        0x1.71de3a556c734p-19, 0x1.a01a01a01a01ap-16, 0x1.a01a01a01a01ap-13, 0x1.6c16c16c16c17p-10,
                        0x1.1111111111111p-7,  0x1.5555555555555p-5,  0x1.5555555555555p-3, 0x1.0000000000000p-1};
    return SIM_DM64_MUL(SIM_DM64_MUL(x, x), sim_horner64(x, c, 12));
}
MCT_INLINE MCT_HD float sim_expm1_small_f32(float x) {
    const float c[] = {0x1.a01a02p-13f, 0x1.6c16c2p-10f, 0x1.111112p-7f, 0x1.555556p-5f, 0x1.555556p-3f, 0x1.0p-1f};
    return SIM_DM_MUL(SIM_DM_MUL(x, x), sim_horner32(x, c, 6));
}

/** x = k ln 2 + r with k = rint(x / ln 2) and r = (x - k SIM_LN2_HI) -
 * k SIM_LN2_LO, |r| <= ln(2)/2 (for |x| < 2^20; 2^8 in float): returns
 * e^r - 1 and k. */
MCT_INLINE MCT_HD double sim_exp_reduce_f64(double x, int* k) {
    const double kd = sim_rint_f64(SIM_DM64_MUL(x, 0x1.71547652b82fep+0)); /* 1/ln 2 */
    const double r = SIM_DM64_SUB(SIM_DM64_SUB(x, SIM_DM64_MUL(kd, SIM_LN2_HI)), SIM_DM64_MUL(kd, SIM_LN2_LO));
    *k = (int)kd;
    return SIM_DM64_ADD(r, sim_expm1_small_f64(r));
}
MCT_INLINE MCT_HD float sim_exp_reduce_f32(float x, int* k) {
    const float kf = sim_rint_f32(SIM_DM_MUL(x, 0x1.715476p+0f));
    const float r = SIM_DM_SUB(SIM_DM_SUB(x, SIM_DM_MUL(kf, SIM_LN2_HI_F)), SIM_DM_MUL(kf, SIM_LN2_LO_F));
    *k = (int)kf;
    return SIM_DM_ADD(r, sim_expm1_small_f32(r));
}

/** e^x = 2^k (1 + (e^r - 1)) (sim_exp_reduce_*), scaled exactly (or with
 * one rounding into the subnormals). Past the range: +inf above ln(DBL_MAX)
 * (ln(FLT_MAX)), 0 below ln(2^-1075) (ln(2^-150)); NaN gives NaN. */
MCT_INLINE MCT_HD double sim_exp_f64(double x) {
    if (!(x == x)) return x;
    if (x > 0x1.62e42fefa39efp+9) return INFINITY;
    if (x < -0x1.74910d52d3052p+9) return 0.0;
    int k;
    const double p = sim_exp_reduce_f64(x, &k);
    return sim_scale_f64(SIM_DM64_ADD(1.0, p), k);
}
MCT_INLINE MCT_HD float sim_exp_f32(float x) {
    if (!(x == x)) return x;
    if (x > 0x1.62e430p+6f) return INFINITY;
    if (x < -0x1.9fe368p+6f) return 0.0f;
    int k;
    const float p = sim_exp_reduce_f32(x, &k);
    return sim_scale_f32(SIM_DM_ADD(1.0f, p), k);
}

/** e^x - 1, accurate near 0: the series for |x| <= ln(2)/2; beyond, with
 * p = e^r - 1, 2^k (p + (1 - 2^-k)) for k in [1, 52] ([1, 23] in float) and
 * (p - 1) / 2 for k = -1 (one rounding where e^x - 1 would lose up to two bits
 * to the subtraction), e^x - 1 elsewhere (its result at least 0.65 from 0, or
 * e^x past 2^53). Below -40 (-18 in float) it is -1. */
MCT_INLINE MCT_HD double sim_expm1_f64(double x) {
    if (x >= -0x1.62e42fefa39efp-2 && x <= 0x1.62e42fefa39efp-2) return SIM_DM64_ADD(x, sim_expm1_small_f64(x));
    if (!(x == x) || x > 0x1.62e42fefa39efp+9) return x == x ? INFINITY : x;
    if (x < -40.0) return -1.0;
    int k;
    const double p = sim_exp_reduce_f64(x, &k);
    if (k == -1) return SIM_DM64_MUL(SIM_DM64_SUB(p, 1.0), 0.5);
    if (k >= 1 && k <= 52) return sim_scale_f64(SIM_DM64_ADD(p, SIM_DM64_SUB(1.0, sim_scale_f64(1.0, -k))), k);
    return SIM_DM64_SUB(sim_scale_f64(SIM_DM64_ADD(1.0, p), k), 1.0);
}
MCT_INLINE MCT_HD float sim_expm1_f32(float x) {
    if (x >= -0x1.62e430p-2f && x <= 0x1.62e430p-2f) return SIM_DM_ADD(x, sim_expm1_small_f32(x));
    if (!(x == x) || x > 0x1.62e430p+6f) return x == x ? INFINITY : x;
    if (x < -18.0f) return -1.0f;
    int k;
    const float p = sim_exp_reduce_f32(x, &k);
    if (k == -1) return SIM_DM_MUL(SIM_DM_SUB(p, 1.0f), 0.5f);
    if (k >= 1 && k <= 23) return sim_scale_f32(SIM_DM_ADD(p, SIM_DM_SUB(1.0f, sim_scale_f32(1.0f, -k))), k);
    return SIM_DM_SUB(sim_scale_f32(SIM_DM_ADD(1.0f, p), k), 1.0f);
}

/** sin(pi x) and cos(pi x), |x| < 2^50 (2^21 in float): x is reduced to the
 * nearest half q/2 (exactly: x - q/2 is a multiple of x's ulp), the rest f in
 * [-1/4, 1/4] goes into sin(pi f) = f S(f^2) and cos(pi f) = C(f^2), the
 * Taylor series to f^19 and f^20 (f^9 and f^10 in float), and the quadrant
 * q mod 4 swaps and negates them. Multiples of 1/2 give exact 0 and +-1. */
MCT_INLINE MCT_HD void sim_sincospi_f64(double x, double* s, double* c) {
    const double q = sim_rint_f64(SIM_DM64_MUL(x, 2.0));
    const double f = SIM_DM64_SUB(x, SIM_DM64_MUL(q, 0.5)), z = SIM_DM64_MUL(f, f);
    const double sc[] = {-0x1.8a404211f9547p-26, 0x1.aaec32af93359p-21, -0x1.6fadb9f155744p-16, 0x1.e8f434d018d63p-12,
                         -0x1.e3074fde8871fp-8,  0x1.50783487ee782p-4,  -0x1.32d2cce62bd86p-1,  0x1.466bc6775aae2p+1,
                         -0x1.4abbce625be53p+2,  0x1.921fb54442d18p+1};
    const double cc[] = {0x1.ef6e308d6d1c4p-29, -0x1.2a0c591af8314p-23, 0x1.20c62c2f2d7f5p-18, -0x1.b6e24f44b128fp-14,
                         0x1.f9d38a3763cc3p-10, -0x1.a6d1f2a204a8cp-6,  0x1.e1f506891babbp-3,  -0x1.55d3c7e3cbffap+0,
                         0x1.03c1f081b5ac4p+2,  -0x1.3bd3cc9be45dep+2,  0x1.0p+0};
    const double sf = SIM_DM64_MUL(f, sim_horner64(z, sc, 10));
    const double cf = sim_horner64(z, cc, 11);
    const int n = (int)((int64_t)q & 3);
    *s = n == 0 ? sf : n == 1 ? cf : n == 2 ? -sf : -cf;
    *c = n == 0 ? cf : n == 1 ? -sf : n == 2 ? -cf : sf;
}
MCT_INLINE MCT_HD void sim_sincospi_f32(float x, float* s, float* c) {
    const float q = sim_rint_f32(SIM_DM_MUL(x, 2.0f));
    const float f = SIM_DM_SUB(x, SIM_DM_MUL(q, 0.5f)), z = SIM_DM_MUL(f, f);
    const float sc[] = {0x1.507834p-4f, -0x1.32d2ccp-1f, 0x1.466bc6p+1f, -0x1.4abbcep+2f, 0x1.921fb6p+1f};
    const float cc[] = {-0x1.a6d1f2p-6f, 0x1.e1f506p-3f, -0x1.55d3c8p+0f, 0x1.03c1f0p+2f, -0x1.3bd3ccp+2f, 1.0f};
    const float sf = SIM_DM_MUL(f, sim_horner32(z, sc, 5));
    const float cf = sim_horner32(z, cc, 6);
    const int n = (int)((int32_t)q & 3);
    *s = n == 0 ? sf : n == 1 ? cf : n == 2 ? -sf : -cf;
    *c = n == 0 ? cf : n == 1 ? -sf : n == 2 ? -cf : sf;
}

#endif /* MCT_SIM_DETMATH_H */
