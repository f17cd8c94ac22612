/* SPDX-License-Identifier: BSD-3-Clause */
/** @file phantom_cpu_bitwise.c  The CPU engine of bitwise tallies (`fixed`):
 * phantom_cpu.c with sim_detmath.h's functions (MCT_PH_BITWISE), whose dose
 * has the bits of the emulated and CUDA bitwise engines for the same seed. */
#define MCT_PH_BITWISE 1
#include "phantom_cpu.c"
