/* SPDX-License-Identifier: BSD-3-Clause */
/** @file phantom_device_bitwise.cu  The GPU engine of bitwise tallies
 * (`fixed`): phantom_device.cu with sim_detmath.h's functions
 * (MCT_PH_BITWISE), compiled without FMAD, whose dose has the bits of the CPU
 * bitwise engine for the same seed. Its kernels are `fixed`'s instances only. */
#define MCT_PH_BITWISE 1
#include "phantom_device.cu"
