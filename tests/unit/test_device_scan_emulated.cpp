/* SPDX-License-Identifier: BSD-3-Clause */
/** @file test_device_scan_emulated.cpp  test_device_scan.cu on the CPU: the C API's
 * emulated backend runs the device scan kernels under the CUDA emulation. */
#include "test_device_scan.cu"
