/* SPDX-License-Identifier: BSD-3-Clause */
/** @file device_scan_emulated.cpp  The device scan's own source, compiled for the host
 * under the CUDA emulation: the `emulated` backend of mct_scan_*. */
#include "device_scan.cu"
