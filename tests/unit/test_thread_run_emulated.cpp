/* SPDX-License-Identifier: BSD-3-Clause */
/** @file test_thread_run_emulated.cpp  test_thread_run.cu on the CPU, under the CUDA
 * emulation. */
#include "test_thread_run.cu"
