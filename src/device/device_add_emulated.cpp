/* SPDX-License-Identifier: BSD-3-Clause */
/** @file device_add_emulated.cpp  device_add.cu compiled for the host under the
 * CUDA emulation: the emulated backend's whole-array adds. */
#include "device_add.cu"
