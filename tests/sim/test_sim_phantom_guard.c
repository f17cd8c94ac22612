/* SPDX-License-Identifier: BSD-3-Clause */
/** @file test_sim_phantom_guard.c  The transport's guard against a history
 * that does not end (MCT_PHANTOM_MAX_STEPS, MCT_PH(track_step)): built here
 * with a limit of 8 steps, which a 20 MeV electron's history far exceeds, so
 * every history is cut there. A cut history deposits the energy of all its
 * particles where they are and raises `overflow` (which the run reports as
 * MCT_STATUS_OVERFLOW); the energy still balances. */
#define MCT_PHANTOM_MAX_STEPS 8u
#include <stdlib.h>

#include "phantom_tables.h"
#include "test_assert.h"

#define MCT_PH_FN MCT_INLINE
#define MCT_PH_FN_COLD MCT_INLINE
#define MCT_PH_SINK_T double
#define MCT_PH_SCORE(sink, voxel, e) ((sink)[(voxel)] += (double)(e))
#include "phantom_transport.h"

int main(void) {
    mct_phantom_params_t p;
    mct_phantom_params_init(&p);
    p.voxels = 10; /* 20 MeV electrons into 40 cm of water, 4 cm voxels */
    sim_phantom_tables_t tb = {0};
    ASSERT_STATUS(sim_phantom_tables_build(&p, NULL, &tb), MCT_STATUS_SUCCESS);
    const mct_ph_tables_t_f64 t64 = sim_phantom_tables_view_f64(&tb, tb.f64);
    const mct_ph_geom_t_f64 g = sim_phantom_geom_f64(&p);
    const int voxels = g.n[0] * g.n[1] * g.n[2];
    double* dose = calloc((size_t)voxels, sizeof *dose);
    ASSERT_TRUE(dose != NULL);
    const int histories = 200;
    mct_phantom_counters_t c = {0};
    for (int h = 0; h < histories; ++h) mct_ph_history_f64(dose, &g, &t64, (uint64_t)h, &c);
    double sum = 0.0;
    for (int k = 0; k < voxels; ++k) sum += dose[k];
    const double incident = histories * p.energy_MeV;
    printf("cut after %u steps: overflow %u, scored %.6f + escaped %.6f MeV of %.1f\n", MCT_PHANTOM_MAX_STEPS, c.overflow,
           c.scored, c.escaped, incident);
    ASSERT_TRUE(c.overflow == 1u);
    ASSERT_NEAR_F64(c.scored + c.escaped, incident, 1e-9 * incident);
    ASSERT_NEAR_F64(sum, c.scored, 1e-9 * incident);
    /* Each history was cut: its mean path is at most 8 steps' worth, far
     * below the 9 cm the primary travels when it is not. */
    ASSERT_LT_F64(c.path_sum / histories, 4.0);
    free(dose);
    sim_phantom_tables_free(&tb);
    printf("test_sim_phantom_guard: ok\n");
    return 0;
}
