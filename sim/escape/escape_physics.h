/* SPDX-License-Identifier: BSD-3-Clause */
/** @file escape_physics.h  The transport step of the escape problem, written once
 * for host and device code. */
#ifndef MCT_SIM_ESCAPE_PHYSICS_H
#define MCT_SIM_ESCAPE_PHYSICS_H

#include <stdint.h>

#include "mctally/mct_config.h"
#include "mctally/mct_rng.h"

/** Event flags written by the transport kernel. */
#define MCT_ESCAPE_COLLIDED 0
#define MCT_ESCAPE_ESCAPED 1

/** A source photon: at depth x (m) on the slab's front face, direction cosine mu. */
typedef struct {
    double x;
    double mu;
    uint64_t history;
} mct_escape_photon_t;

MCT_INLINE MCT_HD mct_escape_photon_t mct_escape_source(uint64_t history) {
    mct_escape_photon_t p = {0.0, 1.0, history};
    return p;
}

/** Flight of one photon. The free path s = -ln(u)/sigma reaches beyond the slab
 * exactly when u < exp(-sigma (x_slab - x)/mu); the caller computes that
 * probability once on the host and passes it as `p_escape`, so the decision
 * involves no transcendental function on the device and is bit-identical on
 * every backend. Key = seed, counter = (history, event 0). */
MCT_INLINE MCT_HD int32_t mct_escape_transport(uint64_t seed, mct_escape_photon_t p, double p_escape) {
    mct_ctr4x32_t ctr = {{(uint32_t)p.history, (uint32_t)(p.history >> 32), 0u, 0u}};
    mct_key2x32_t key = {{(uint32_t)seed, (uint32_t)(seed >> 32)}};
    mct_ctr4x32_t r = mct_philox4x32_10(ctr, key);
    double u = mct_u01_open_open_f64(r.v[0], r.v[1]);
    return u < p_escape ? MCT_ESCAPE_ESCAPED : MCT_ESCAPE_COLLIDED;
}

#endif /* MCT_SIM_ESCAPE_PHYSICS_H */
