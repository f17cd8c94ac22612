/* SPDX-License-Identifier: BSD-3-Clause */
/** @file phantom_transport.h  The phantom's history loop in both precisions
 * (mct_ph_history_f64 and mct_ph_history_f32), for an engine that has defined
 * MCT_PH_FN, MCT_PH_FN_COLD, MCT_PH_SINK_T and MCT_PH_SCORE (see
 * phantom_transport.inc). Include it once per translation unit. */
#ifndef MCT_SIM_PHANTOM_TRANSPORT_H
#define MCT_SIM_PHANTOM_TRANSPORT_H

#if !defined(MCT_PH_FN) || !defined(MCT_PH_FN_COLD) || !defined(MCT_PH_SINK_T) || !defined(MCT_PH_SCORE)
#error "define MCT_PH_FN, MCT_PH_FN_COLD, MCT_PH_SINK_T and MCT_PH_SCORE before including phantom_transport.h"
#endif

#include "phantom_physics.h"

#define MCT_PH_BODY "phantom_transport.inc"
#include "phantom_instantiate.h"

#endif /* MCT_SIM_PHANTOM_TRANSPORT_H */
