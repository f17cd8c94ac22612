/* SPDX-License-Identifier: BSD-3-Clause */
/** @file test_device_add_emulated.cpp  test_device_add.cu on the CPU, under the
 * CUDA emulation (the emulated backend's entry points). */
#include "test_device_add.cu"
