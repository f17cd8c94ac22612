/* SPDX-License-Identifier: BSD-3-Clause */
/** @file test_block_scan_emulated.cpp  test_block_scan.cu on the CPU, under the CUDA
 * emulation. */
#include "test_block_scan.cu"
