/* SPDX-License-Identifier: BSD-3-Clause */
/** @file test_example_voxel_emulated.cpp  The voxel-dose example on the CPU,
 * under the CUDA emulation. */
#include "test_example_voxel.cu"
