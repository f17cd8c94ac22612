/* SPDX-License-Identifier: BSD-3-Clause */
/** @file tally_only_physics.h  The deposits of the tally-only problem, written
 * once for host and device code: which bin collision j of particle p scores
 * in, and how much energy.
 *
 * Random numbers: key = seed, counter = (particle, j / 2, 0); one Philox4x32-10
 * call feeds two collisions, words (0, 1) the even one and (2, 3) the odd one.
 * The first word of a pair picks the bin, the second the energy. A deposit
 * therefore depends only on (seed, particle, collision), never on the launch
 * shape or the backend.
 *
 * Energy: exponential with mean `mean`, E = -mean ln u, u uniform on (0, 1).
 * It is an input the problem samples, not a result, so it is computed in float
 * with a short polynomial logarithm (relative error below 2^-23 for every u
 * this generator yields, checked over all 2^23 of them; the mean of -ln u
 * over them is 1 - 4e-8, from the discrete u). Each operation is a
 * single correctly rounded float operation (explicit fmaf, and products and
 * sums the compiler may not contract on the device), so the energy has the
 * same bits on the CPU, under the emulation and on every GPU: a `fixed` tally
 * then gives bitwise equal totals on every backend. */
#ifndef MCT_SIM_TALLY_ONLY_PHYSICS_H
#define MCT_SIM_TALLY_ONLY_PHYSICS_H

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "mctally/mct_config.h"
#include "mctally/mct_rng.h"

/* Single roundings that nvcc must not fuse into an FMA (it contracts a*b + c
 * by default); host compilers for the baseline x86-64 and the emulation never
 * contract, so plain operators are the same roundings there. */
#if defined(__CUDA_ARCH__)
#define SIM_TO_MUL(a, b) __fmul_rn((a), (b))
#define SIM_TO_ADD(a, b) __fadd_rn((a), (b))
#else
#define SIM_TO_MUL(a, b) ((a) * (b))
#define SIM_TO_ADD(a, b) ((a) + (b))
#endif

MCT_INLINE MCT_HD uint32_t sim_tally_only_f32_bits(float x) {
#if defined(__CUDA_ARCH__)
    return (uint32_t)__float_as_uint(x);
#else
    uint32_t b;
    memcpy(&b, &x, sizeof b);
    return b;
#endif
}

MCT_INLINE MCT_HD float sim_tally_only_bits_f32(uint32_t b) {
#if defined(__CUDA_ARCH__)
    return __uint_as_float(b);
#else
    float x;
    memcpy(&x, &b, sizeof x);
    return x;
#endif
}

/** ln(u) for a normal float u > 0: u = 2^e m with m in [sqrt(1/2), sqrt(2)),
 * ln u = e ln 2 + ln(1 + f), f = m - 1 (exact), and ln(1 + f) = f - f^2/2 +
 * f^3 P(f) with P of degree 8 interpolating at the Chebyshev nodes of f's
 * range (coefficients computed for this file). ln 2 is split so that e * hi
 * is exact. */
MCT_INLINE MCT_HD float mct_tally_only_logf(float u) {
    const uint32_t bits = sim_tally_only_f32_bits(u);
    int e = (int)(bits >> 23) - 127;
    uint32_t mbits = (bits & 0x007fffffu) | 0x3f800000u; /* m in [1, 2) */
    if (mbits > 0x3fb504f3u) {                           /* m > sqrt(2): halve it */
        mbits -= 0x00800000u;
        e += 1;
    }
    const float f = sim_tally_only_bits_f32(mbits) - 1.0f; /* exact (Sterbenz) */
    float p = 0x1.1d8ea6p-4f;
    p = fmaf(p, f, -0x1.d635bcp-4f);
    p = fmaf(p, f, 0x1.dea282p-4f);
    p = fmaf(p, f, -0x1.fcf4c6p-4f);
    p = fmaf(p, f, 0x1.23d21ap-3f);
    p = fmaf(p, f, -0x1.555b4ap-3f);
    p = fmaf(p, f, 0x1.999d5ap-3f);
    p = fmaf(p, f, -0x1.fffffcp-3f);
    p = fmaf(p, f, 0x1.555554p-2f);
    const float z = SIM_TO_MUL(f, f);
    const float tail = fmaf(SIM_TO_MUL(z, f), p, SIM_TO_MUL(-0.5f, z)); /* -f^2/2 + f^3 P */
    const float ef = (float)e;
    const float lo = fmaf(ef, -2.121944400546906e-4f, tail); /* ln 2 - 0.693359375 */
    return fmaf(ef, 0.693359375f, SIM_TO_ADD(f, lo));
}

/** Bin of one collision: floor(w * bins / 2^32), uniform for bins <= 2^32
 * (exactly uniform when bins is a power of two). */
MCT_INLINE MCT_HD uint32_t mct_tally_only_bin(uint32_t w, uint32_t bins) {
    return (uint32_t)(((uint64_t)w * bins) >> 32);
}

/** Energy of one collision: -mean ln u with u = (k + 1/2) 2^-23 for k the top
 * 23 bits of w (never 0 nor 1), as one float product. */
MCT_INLINE MCT_HD float mct_tally_only_energy(uint32_t w, float mean) {
    return SIM_TO_MUL(mean, -mct_tally_only_logf(mct_u01_open_open_f32(w)));
}

/** The random words of collisions 2k and 2k + 1 of a particle. */
MCT_INLINE MCT_HD mct_ctr4x32_t mct_tally_only_draw(uint64_t seed, uint64_t particle, uint32_t k) {
    return mct_philox4x32_10(mct_philox_ctr_history(particle, k, 0u), mct_philox_key_from_seed(seed));
}

#endif /* MCT_SIM_TALLY_ONLY_PHYSICS_H */
