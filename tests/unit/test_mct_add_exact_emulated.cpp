/* SPDX-License-Identifier: BSD-3-Clause */
/** @file test_mct_add_exact_emulated.cpp  test_mct_add_exact.cu on the CPU, under
 * the CUDA emulation. */
#include "test_mct_add_exact.cu"
