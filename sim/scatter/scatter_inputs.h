/* SPDX-License-Identifier: BSD-3-Clause */
/** @file scatter_inputs.h  The inputs of the scatter workload, written once for
 * host and device code: the bin key and the values of update i depend only on
 * (seed, pattern, bins, n, i), so every backend, the benchmark and the CPU
 * reference see the same numbers.
 *
 * Key patterns over B bins and n updates:
 * - uniform: key uniform on [0, B) (Philox, one 32-bit draw, key = floor(u B / 2^32));
 * - sorted:  key = floor(i B / n), runs of n/B equal keys in ascending order
 *            (particles sorted by cell);
 * - hot:     with probability 1/2 the hot bin B/2, otherwise uniform.
 * Values: component c of update i is uniform on (0, 1] from the 53-bit draw
 * (mean 1/2), so an exact total has a known expectation n * width / 2. */
#ifndef MCT_SIM_SCATTER_INPUTS_H
#define MCT_SIM_SCATTER_INPUTS_H

#include <stdint.h>

#include "mctally/mct_config.h"
#include "mctally/mct_rng.h"

typedef enum {
    MCT_SCATTER_UNIFORM = 0,
    MCT_SCATTER_SORTED = 1,
    MCT_SCATTER_HOT = 2,
    MCT_SCATTER_PATTERN_COUNT
} mct_scatter_pattern_t;

/** Philox stream of update i: counter (i, event, draw), key = seed. Event 0
 * draws the key, event 1 + c/2 the values of components c, c+1. */
MCT_INLINE MCT_HD mct_ctr4x32_t sim_scatter_draw(uint64_t seed, uint64_t i, uint32_t event) {
    return mct_philox4x32_10(mct_philox_ctr_history(i, event, 0u), mct_philox_key_from_seed(seed));
}

/** Bin of update i (0 <= i < n, 1 <= bins <= 2^32; sorted needs n * bins < 2^64). */
MCT_INLINE MCT_HD uint32_t mct_scatter_key(mct_scatter_pattern_t pattern, uint64_t bins, uint64_t n, uint64_t seed,
                                           uint64_t i) {
    if (pattern == MCT_SCATTER_SORTED) {
        /* floor(i * bins / n) without 128-bit products: i < n, bins <= 2^32. */
        const double q = (double)i * (double)bins / (double)n;
        uint64_t k = (uint64_t)q;
        /* Correct the rare off-by-one of the double quotient exactly. */
        while (k > 0 && k * n > i * bins) --k;
        while ((k + 1) * n <= i * bins && k + 1 < bins) ++k;
        return (uint32_t)k;
    }
    const mct_ctr4x32_t r = sim_scatter_draw(seed, i, 0u);
    if (pattern == MCT_SCATTER_HOT && (r.v[1] & 1u)) return (uint32_t)(bins / 2);
    return (uint32_t)(((uint64_t)r.v[0] * bins) >> 32);
}

/** Component c (0 <= c) of update i, uniform on (0, 1]. */
MCT_INLINE MCT_HD double mct_scatter_value(uint64_t seed, uint64_t i, uint32_t c) {
    const mct_ctr4x32_t r = sim_scatter_draw(seed, i, 1u + c / 2u);
    return (c & 1u) ? mct_u01_open_closed_f64_53(r.v[2], r.v[3]) : mct_u01_open_closed_f64_53(r.v[0], r.v[1]);
}

#endif /* MCT_SIM_SCATTER_INPUTS_H */
