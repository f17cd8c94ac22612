/* SPDX-License-Identifier: BSD-3-Clause */
/** @file test_deposit_buffer_emulated.cpp  The deposit buffer's tests on the
 * CPU, under the CUDA emulation. */
#include "test_deposit_buffer.cu"
