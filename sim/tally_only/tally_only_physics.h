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
 * with the polynomial logarithm of sim_detmath.h (relative error below 2^-23
 * for every u this generator yields, checked over all 2^23 of them; the mean
 * of -ln u over them is 1 - 4e-8, from the discrete u), whose operations are
 * each correctly rounded, so the energy has the same bits on the CPU, under
 * the emulation and on every GPU: a `fixed` tally then gives bitwise equal
 * totals on every backend. */
#ifndef MCT_SIM_TALLY_ONLY_PHYSICS_H
#define MCT_SIM_TALLY_ONLY_PHYSICS_H

#include <stdint.h>

#include "mctally/mct_config.h"
#include "mctally/mct_rng.h"
#include "sim_detmath.h"

/** ln(u) with the same bits on every backend (sim_detmath.h). */
MCT_INLINE MCT_HD float mct_tally_only_logf(float u) { return sim_logf(u); }

/** Bin of one collision: floor(w * bins / 2^32), uniform for bins <= 2^32
 * (exactly uniform when bins is a power of two). */
MCT_INLINE MCT_HD uint32_t mct_tally_only_bin(uint32_t w, uint32_t bins) {
    return (uint32_t)(((uint64_t)w * bins) >> 32);
}

/** Energy of one collision: -mean ln u with u = (k + 1/2) 2^-23 for k the top
 * 23 bits of w (never 0 nor 1), as one float product. */
MCT_INLINE MCT_HD float mct_tally_only_energy(uint32_t w, float mean) {
    return SIM_DM_MUL(mean, -mct_tally_only_logf(mct_u01_open_open_f32(w)));
}

/** The random words of collisions 2k and 2k + 1 of a particle. */
MCT_INLINE MCT_HD mct_ctr4x32_t mct_tally_only_draw(uint64_t seed, uint64_t particle, uint32_t k) {
    return mct_philox4x32_10(mct_philox_ctr_history(particle, k, 0u), mct_philox_key_from_seed(seed));
}

#endif /* MCT_SIM_TALLY_ONLY_PHYSICS_H */
