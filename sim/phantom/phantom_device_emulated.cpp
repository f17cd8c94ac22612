/* SPDX-License-Identifier: BSD-3-Clause */
/** @file phantom_device_emulated.cpp  The phantom's GPU engine compiled for the
 * host under the CUDA emulation (backend `emulated`). */
#include "phantom_device.cu"
