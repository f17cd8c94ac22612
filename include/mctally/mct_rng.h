/* SPDX-License-Identifier: BSD-3-Clause */
/** @file mct_rng.h  Counter-based RNG (Philox4x32-10) for host and device code,
 * header-only, with a stream API bit-identical to cuRAND's Philox4_32_10.
 *
 * Overview
 * --------
 * mct_philox4x32_10() is a pure function: it maps a 128-bit counter and a
 * 64-bit key to 128 random bits, the Philox4x32 bijection of Salmon, Moraes,
 * Dror and Shaw ("Parallel random numbers: as easy as 1, 2, 3", SC'11) with
 * ten rounds. It keeps no state, so any thread can draw any number at any
 * time, and the same (counter, key) gives the same bits on every CPU and GPU.
 *
 * Recommended use: key = (seed, particle or stream id), counter = (event,
 * draw index). Each distinct (key, counter) pair yields four fresh 32-bit
 * words; never reuse a pair for two different purposes.
 *
 * mctally's own problems use
 *     key     = (seed & 0xffffffff, seed >> 32)            (mct_philox_key_from_seed)
 *     counter = (history & 0xffffffff, history >> 32, event, draw)
 *                                                          (mct_philox_ctr_history)
 * with draw = 0 unless one event needs more than four words.
 *
 * The stream API (mct_philox_stream_*) reproduces cuRAND's device API for
 * curandStatePhilox4_32_10_t exactly: after
 *     mct_philox_stream_init(&s, seed, subsequence, offset)
 * the sequences of mct_philox_stream_next_u32, _next4_u32, _uniform_f32,
 * _uniform_f64 and _uniform2_f64 are bit-identical to those of curand,
 * curand4, curand_uniform, curand_uniform_double and curand_uniform2_double
 * after curand_init(seed, subsequence, offset, &state), in any interleaving.
 * In cuRAND's layout the key is (seed low 32 bits, seed high 32 bits) and
 * the counter is (block low, block high, subsequence low, subsequence high),
 * where block = element position / 4 and each Philox call yields the four
 * elements 4*block .. 4*block+3. So curand_init(seed, sub, 0) starts at
 * mct_philox4x32_10({0, 0, sub_lo, sub_hi}, {seed_lo, seed_hi}).
 *
 * Determinism
 * -----------
 * Every function here is bitwise deterministic: the same arguments give the
 * same bits on the host (any C11 or C++ compiler with IEEE-754 binary32 and
 * binary64 arithmetic and round-to-nearest) and on every CUDA device. The
 * integer functions are exact; every floating-point conversion is either
 * exact or a single correctly rounded operation (products by powers of two
 * are exact, so contraction into FMA does not change the result).
 *
 * This file compiles as C11, as C++17 and under nvcc for host and
 * device. It holds our own code written from the published algorithm and
 * from cuRAND's documented behaviour.
 */
#ifndef MCT_RNG_H
#define MCT_RNG_H

#include <stdint.h>

#include "mctally/mct_config.h"

#ifdef __cplusplus
extern "C" {
#endif

/** A 128-bit Philox counter (or a block of four 32-bit outputs), v[0] first. */
typedef struct {
    uint32_t v[4];
} mct_ctr4x32_t;

/** A 64-bit Philox key, v[0] first. */
typedef struct {
    uint32_t v[2];
} mct_key2x32_t;

/* Philox4x32 constants: round multipliers and Weyl key increments. */
#define MCT_PHILOX_M4X32_0 UINT32_C(0xD2511F53)
#define MCT_PHILOX_M4X32_1 UINT32_C(0xCD9E8D57)
#define MCT_PHILOX_W32_0 UINT32_C(0x9E3779B9)
#define MCT_PHILOX_W32_1 UINT32_C(0xBB67AE85)

/* ------------------------------------------------------------------------- */
/* Small constructors                                                         */
/* ------------------------------------------------------------------------- */

/** Returns the counter (c0, c1, c2, c3). */
MCT_INLINE MCT_HD mct_ctr4x32_t mct_ctr4x32_make(uint32_t c0, uint32_t c1, uint32_t c2,
                                                 uint32_t c3)
{
    mct_ctr4x32_t c;
    c.v[0] = c0;
    c.v[1] = c1;
    c.v[2] = c2;
    c.v[3] = c3;
    return c;
}

/** Returns the key (k0, k1). */
MCT_INLINE MCT_HD mct_key2x32_t mct_key2x32_make(uint32_t k0, uint32_t k1)
{
    mct_key2x32_t k;
    k.v[0] = k0;
    k.v[1] = k1;
    return k;
}

/** Returns the key (seed low 32 bits, seed high 32 bits), the layout that both
 * cuRAND's curand_init and mctally's problems use. */
MCT_INLINE MCT_HD mct_key2x32_t mct_philox_key_from_seed(uint64_t seed)
{
    return mct_key2x32_make((uint32_t)seed, (uint32_t)(seed >> 32));
}

/** Returns mctally's counter for one draw of one history:
 * (history low 32 bits, history high 32 bits, event, draw). */
MCT_INLINE MCT_HD mct_ctr4x32_t mct_philox_ctr_history(uint64_t history, uint32_t event,
                                                       uint32_t draw)
{
    return mct_ctr4x32_make((uint32_t)history, (uint32_t)(history >> 32), event, draw);
}

/* ------------------------------------------------------------------------- */
/* The bijection                                                              */
/* ------------------------------------------------------------------------- */

/** Internal: the 64-bit product a*b split into its high and low halves. */
MCT_INLINE MCT_HD uint32_t mct__philox_mulhilo(uint32_t a, uint32_t b, uint32_t* hi)
{
#if defined(__CUDA_ARCH__)
    *hi = __umulhi(a, b);
    return a * b;
#else
    uint64_t p = (uint64_t)a * (uint64_t)b;
    *hi = (uint32_t)(p >> 32);
    return (uint32_t)p;
#endif
}

/** Internal: one Philox4x32 round with round key k. */
MCT_INLINE MCT_HD mct_ctr4x32_t mct__philox4x32_round(mct_ctr4x32_t x, mct_key2x32_t k)
{
    uint32_t hi0, hi1;
    uint32_t lo0 = mct__philox_mulhilo(MCT_PHILOX_M4X32_0, x.v[0], &hi0);
    uint32_t lo1 = mct__philox_mulhilo(MCT_PHILOX_M4X32_1, x.v[2], &hi1);
    return mct_ctr4x32_make(hi1 ^ x.v[1] ^ k.v[0], lo1, hi0 ^ x.v[3] ^ k.v[1], lo0);
}

/** Internal: the next round key (Weyl sequence). */
MCT_INLINE MCT_HD mct_key2x32_t mct__philox4x32_bump(mct_key2x32_t k)
{
    k.v[0] += MCT_PHILOX_W32_0;
    k.v[1] += MCT_PHILOX_W32_1;
    return k;
}

/** Returns Philox4x32 with 10 rounds applied to counter ctr under key key.
 *
 * The result equals Random123's philox4x32_10 and cuRAND's internal
 * curand_Philox4x32_10 for the same words, bit for bit, on host and device. */
MCT_INLINE MCT_HD mct_ctr4x32_t mct_philox4x32_10(mct_ctr4x32_t ctr, mct_key2x32_t key)
{
    ctr = mct__philox4x32_round(ctr, key); /* round 1 */
    key = mct__philox4x32_bump(key);
    ctr = mct__philox4x32_round(ctr, key); /* 2 */
    key = mct__philox4x32_bump(key);
    ctr = mct__philox4x32_round(ctr, key); /* 3 */
    key = mct__philox4x32_bump(key);
    ctr = mct__philox4x32_round(ctr, key); /* 4 */
    key = mct__philox4x32_bump(key);
    ctr = mct__philox4x32_round(ctr, key); /* 5 */
    key = mct__philox4x32_bump(key);
    ctr = mct__philox4x32_round(ctr, key); /* 6 */
    key = mct__philox4x32_bump(key);
    ctr = mct__philox4x32_round(ctr, key); /* 7 */
    key = mct__philox4x32_bump(key);
    ctr = mct__philox4x32_round(ctr, key); /* 8 */
    key = mct__philox4x32_bump(key);
    ctr = mct__philox4x32_round(ctr, key); /* 9 */
    key = mct__philox4x32_bump(key);
    return mct__philox4x32_round(ctr, key); /* 10 */
}

/* ------------------------------------------------------------------------- */
/* Conversions to the unit interval                                            */
/* ------------------------------------------------------------------------- */

/** Returns x * 2^-32 + 2^-33 in float: cuRAND's curand_uniform formula.
 * The result lies in (0, 1]; it is 1.0f for the top 128 inputs (rounding), and
 * is never denormal. Identical on host and device. */
MCT_INLINE MCT_HD float mct_u01_open_closed_f32(uint32_t x)
{
    return (float)x * 0x1p-32f + 0x1p-33f;
}

/** Returns (k + 1/2) * 2^-23 for k = the top 23 bits of x, in float: one of
 * 2^23 equally spaced values, all exact, strictly inside (0, 1): the least is
 * 2^-24 and the greatest 1 - 2^-24. Identical on host and device. */
MCT_INLINE MCT_HD float mct_u01_open_open_f32(uint32_t x)
{
    return (float)(x >> 9) * 0x1p-23f + 0x1p-24f;
}

/** Returns (x + 1) * 2^-32 in double, exactly: cuRAND's curand_uniform_double
 * formula for Philox4_32_10 (it uses one 32-bit word). The result lies in
 * (0, 1], with 1.0 for x = 0xffffffff. */
MCT_INLINE MCT_HD double mct_u01_open_closed_f64_32(uint32_t x)
{
    return (double)x * 0x1p-32 + 0x1p-32;
}

/** Returns z * 2^-53 + 2^-54 in double with z = x ^ (y << 21) (53 bits):
 * cuRAND's high-quality double formula, used by curand_uniform2_double. The
 * result lies in (0, 1]. For z >= 2^52 the sum is a tie and rounds to even,
 * so results in [1/2, 1] are multiples of 2^-52 and the largest z gives
 * exactly 1.0. Identical on host and device. */
MCT_INLINE MCT_HD double mct_u01_open_closed_f64_53(uint32_t x, uint32_t y)
{
    uint64_t z = (uint64_t)x ^ ((uint64_t)y << 21);
    return (double)z * 0x1p-53 + 0x1p-54;
}

/** Returns (2k + 1) * 2^-53 for k = the top 52 bits of the 64-bit word
 * (hi:lo): one of 2^52 equally spaced doubles, all exact, strictly inside
 * (0, 1), symmetric about 1/2: the least is 2^-53 and the greatest
 * 1 - 2^-53. Use it where log(u) or log(1 - u) must stay finite. */
MCT_INLINE MCT_HD double mct_u01_open_open_f64(uint32_t hi, uint32_t lo)
{
    uint64_t k = (((uint64_t)hi << 32) | lo) >> 12;
    return (double)(2u * k + 1u) * 0x1p-53;
}

/** Returns k * 2^-53 for k = the top 53 bits of the 64-bit word (hi:lo): one
 * of 2^53 equally spaced doubles, all exact, in [0, 1). */
MCT_INLINE MCT_HD double mct_u01_closed_open_f64(uint32_t hi, uint32_t lo)
{
    uint64_t k = (((uint64_t)hi << 32) | lo) >> 11;
    return (double)k * 0x1p-53;
}

/* ------------------------------------------------------------------------- */
/* cuRAND-compatible stream                                                    */
/* ------------------------------------------------------------------------- */

/** A Philox4x32-10 stream whose outputs are bit-identical to cuRAND's
 * curandStatePhilox4_32_10_t. Fields are private: use the functions below.
 * The invariant is output = mct_philox4x32_10(ctr, key) and output.v[idx] is
 * the next 32-bit word to return (idx in 0..3). The Box-Muller caches of
 * cuRAND's state are not reproduced (there are no normal draws here). */
typedef struct {
    mct_ctr4x32_t ctr;
    mct_ctr4x32_t output;
    mct_key2x32_t key;
    uint32_t idx;
} mct_philox_stream_t;

/** Internal: adds the 64-bit n to the 128-bit counter (v[0] least
 * significant), modulo 2^128. */
MCT_INLINE MCT_HD void mct__philox_ctr_add(mct_ctr4x32_t* c, uint64_t n)
{
    uint64_t lo = ((uint64_t)c->v[1] << 32) | c->v[0];
    uint64_t sum = lo + n;
    c->v[0] = (uint32_t)sum;
    c->v[1] = (uint32_t)(sum >> 32);
    if (sum < lo) { /* Carry into the upper 64 bits. */
        if (++c->v[2] == 0) ++c->v[3];
    }
}

/** Internal: adds the 64-bit n to the upper 64 bits (v[2], v[3]) of the
 * counter, modulo 2^64. */
MCT_INLINE MCT_HD void mct__philox_ctr_add_hi(mct_ctr4x32_t* c, uint64_t n)
{
    uint64_t hi = (((uint64_t)c->v[3] << 32) | c->v[2]) + n;
    c->v[2] = (uint32_t)hi;
    c->v[3] = (uint32_t)(hi >> 32);
}

/** Internal: returns w.v[i] for i in 0..3 without dynamic indexing, so that a
 * stream kept in registers on the GPU stays there. */
MCT_INLINE MCT_HD uint32_t mct__philox_lane(mct_ctr4x32_t w, uint32_t i)
{
    uint32_t a = (i & 1u) ? w.v[1] : w.v[0];
    uint32_t b = (i & 1u) ? w.v[3] : w.v[2];
    return (i & 2u) ? b : a;
}

/** Advances s by n 32-bit outputs, like cuRAND's skipahead(n, state).
 * All n are valid. The result equals n calls of mct_philox_stream_next_u32. */
MCT_INLINE MCT_HD void mct_philox_stream_skipahead(mct_philox_stream_t* s, uint64_t n)
{
    uint32_t idx = s->idx + (uint32_t)(n & 3u);
    uint64_t blocks = n >> 2;
    if (idx > 3u) {
        idx -= 4u;
        blocks += 1u;
    }
    s->idx = idx;
    mct__philox_ctr_add(&s->ctr, blocks);
    s->output = mct_philox4x32_10(s->ctr, s->key);
}

/** Advances s by n subsequences of 2^66 outputs each, like cuRAND's
 * skipahead_sequence(n, state). All n are valid. */
MCT_INLINE MCT_HD void mct_philox_stream_skipahead_sequence(mct_philox_stream_t* s,
                                                            uint64_t n)
{
    mct__philox_ctr_add_hi(&s->ctr, n);
    s->output = mct_philox4x32_10(s->ctr, s->key);
}

/** Initialises s as cuRAND's curand_init(seed, subsequence, offset, &state)
 * does for Philox4_32_10: key = (seed low, seed high), counter = 0, then skip
 * subsequence * 2^66 + offset outputs. All argument values are valid. */
MCT_INLINE MCT_HD void mct_philox_stream_init(mct_philox_stream_t* s, uint64_t seed,
                                              uint64_t subsequence, uint64_t offset)
{
    s->ctr = mct_ctr4x32_make(0u, 0u, 0u, 0u);
    s->key = mct_philox_key_from_seed(seed);
    s->idx = 0u;
    mct__philox_ctr_add_hi(&s->ctr, subsequence);
    mct_philox_stream_skipahead(s, offset);
}

/** Returns the next 32-bit output of s and advances it by one, bit-identical
 * to cuRAND's curand(&state). */
MCT_INLINE MCT_HD uint32_t mct_philox_stream_next_u32(mct_philox_stream_t* s)
{
    uint32_t r = mct__philox_lane(s->output, s->idx);
    if (++s->idx == 4u) {
        s->idx = 0u;
        mct__philox_ctr_add(&s->ctr, 1u);
        s->output = mct_philox4x32_10(s->ctr, s->key);
    }
    return r;
}

/** Returns the next four 32-bit outputs of s (v[0] first) and advances it by
 * four, bit-identical to cuRAND's curand4(&state), whatever the alignment. */
MCT_INLINE MCT_HD mct_ctr4x32_t mct_philox_stream_next4_u32(mct_philox_stream_t* s)
{
    mct_ctr4x32_t cur = s->output, r;
    uint32_t i = s->idx;
    mct__philox_ctr_add(&s->ctr, 1u);
    s->output = mct_philox4x32_10(s->ctr, s->key);
    if (i == 0u) return cur;
    r.v[0] = mct__philox_lane(cur, i);
    r.v[1] = i + 1u < 4u ? mct__philox_lane(cur, i + 1u) : s->output.v[0];
    r.v[2] = i + 2u < 4u ? mct__philox_lane(cur, i + 2u) : mct__philox_lane(s->output, i - 2u);
    r.v[3] = mct__philox_lane(s->output, i - 1u);
    return r;
}

/** Returns a float in (0, 1] from one 32-bit output, bit-identical to cuRAND's
 * curand_uniform(&state). */
MCT_INLINE MCT_HD float mct_philox_stream_uniform_f32(mct_philox_stream_t* s)
{
    return mct_u01_open_closed_f32(mct_philox_stream_next_u32(s));
}

/** Returns a double in (0, 1] from ONE 32-bit output, bit-identical to
 * cuRAND's curand_uniform_double(&state) for Philox4_32_10 (which, unlike
 * the XORWOW version, uses only 32 random bits: values are multiples of
 * 2^-32). Prefer mct_philox_stream_uniform2_f64 for 53-bit doubles. */
MCT_INLINE MCT_HD double mct_philox_stream_uniform_f64(mct_philox_stream_t* s)
{
    return mct_u01_open_closed_f64_32(mct_philox_stream_next_u32(s));
}

/** Writes two doubles in (0, 1] with 53 random bits each, from four 32-bit
 * outputs, bit-identical to cuRAND's curand_uniform2_double(&state)
 * (out[0] = .x, out[1] = .y). */
MCT_INLINE MCT_HD void mct_philox_stream_uniform2_f64(mct_philox_stream_t* s, double out[2])
{
    mct_ctr4x32_t w = mct_philox_stream_next4_u32(s);
    out[0] = mct_u01_open_closed_f64_53(w.v[0], w.v[1]);
    out[1] = mct_u01_open_closed_f64_53(w.v[2], w.v[3]);
}

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* MCT_RNG_H */
