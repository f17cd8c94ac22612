/* SPDX-License-Identifier: BSD-3-Clause */
/** @file tally_only_device_emulated.cpp  The tally-only GPU engine compiled for
 * the host under the CUDA emulation (backend `emulated`). */
#include "tally_only_device.cu"
