/* SPDX-License-Identifier: BSD-3-Clause */
/** @file phantom_instantiate.h  Includes the body named by MCT_PH_BODY (a string)
 * twice: once in double (names *_f64) and once in float (names *_f32), so every
 * piece of the phantom's physics has one source for both precisions. No include
 * guard on purpose: each body is instantiated through it once. */
#ifndef MCT_PH_BODY
#error "define MCT_PH_BODY before including phantom_instantiate.h"
#endif

#define MCT_PH_REAL double
#define MCT_PH_F32 0
#define MCT_PH(name) mct_ph_##name##_f64
#include MCT_PH_BODY
#undef MCT_PH_REAL
#undef MCT_PH_F32
#undef MCT_PH

#define MCT_PH_REAL float
#define MCT_PH_F32 1
#define MCT_PH(name) mct_ph_##name##_f32
#include MCT_PH_BODY
#undef MCT_PH_REAL
#undef MCT_PH_F32
#undef MCT_PH

#undef MCT_PH_BODY
