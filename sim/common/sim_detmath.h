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
 * double (_f64) and float (_f32), one source for both (sim_detmath_body.inc),
 * from the Taylor series of exp, atanh, sin and cos after an exact argument
 * reduction, and no fma (on a host it is a call); each is within a few ulp
 * (test_sim_detmath measures them against long double). */
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

/* The bits of a float or a double and back: the device's reinterpreting
 * intrinsics, memcpy on the host. */
#if defined(__CUDA_ARCH__)
#define SIM_DM_BIT_CAST(name, To, From, device_cast) \
    MCT_INLINE MCT_HD To name(From x) { return (To)device_cast(x); }
#else
#define SIM_DM_BIT_CAST(name, To, From, device_cast) \
    MCT_INLINE MCT_HD To name(From x) {              \
        To y;                                        \
        memcpy(&y, &x, sizeof y);                    \
        return y;                                    \
    }
#endif
SIM_DM_BIT_CAST(sim_f32_bits, uint32_t, float, __float_as_uint)
SIM_DM_BIT_CAST(sim_bits_f32, float, uint32_t, __uint_as_float)
SIM_DM_BIT_CAST(sim_f64_bits, uint64_t, double, __double_as_longlong)
SIM_DM_BIT_CAST(sim_bits_f64, double, uint64_t, __longlong_as_double)
#undef SIM_DM_BIT_CAST

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

/* sim_log, sim_exp, sim_expm1 and sim_sincospi (and their helpers) in double
 * (_f64) and float (_f32), from one source. */
#define SIM_DM_F32 0
#include "sim_detmath_body.inc"
#undef SIM_DM_F32
#define SIM_DM_F32 1
#include "sim_detmath_body.inc"
#undef SIM_DM_F32

#endif /* MCT_SIM_DETMATH_H */
