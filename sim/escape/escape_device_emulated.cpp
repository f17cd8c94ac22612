/* SPDX-License-Identifier: BSD-3-Clause */
/** @file escape_device_emulated.cpp  The escape GPU engine compiled for the host
 * under the CUDA emulation (backend `emulated`). */
#include "escape_device.cu"
