/* SPDX-License-Identifier: BSD-3-Clause */
/** @file test_api_take_sums_emulated.cpp  test_api_take_sums.cu on the CPU, under
 * the CUDA emulation. */
#include "test_api_take_sums.cu"
