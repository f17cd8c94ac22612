/* SPDX-License-Identifier: BSD-3-Clause */
/** @file test_warp_reduce_checked_emulated.cpp  test_warp_reduce_checked.cu on
 * the CPU, under the CUDA emulation. */
#include "test_warp_reduce_checked.cu"
