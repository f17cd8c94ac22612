/* SPDX-License-Identifier: BSD-3-Clause */
/** @file test_warp_segmented_reduce_emulated.cpp  test_warp_segmented_reduce.cu on the
 * CPU, under the CUDA emulation. */
#include "test_warp_segmented_reduce.cu"
