/* SPDX-License-Identifier: BSD-3-Clause */
/** @file test_api_adopt_emulated.cpp  test_api_adopt.cu on the CPU, under the
 * CUDA emulation. */
#include "test_api_adopt.cu"
