/* SPDX-License-Identifier: BSD-3-Clause */
/** @file phantom_device_emulated_bitwise.cpp  The GPU engine of bitwise
 * tallies (phantom_device_bitwise.cu) compiled for the host under the CUDA
 * emulation (backend `emulated`). */
#define MCT_PH_BITWISE 1
#include "phantom_device.cu"
