/* SPDX-License-Identifier: BSD-3-Clause */
/** @file test_replica_reduce_emulated.cpp  test_replica_reduce.cu on the CPU,
 * under the CUDA emulation. */
#include "test_replica_reduce.cu"
