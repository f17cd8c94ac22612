/* SPDX-License-Identifier: BSD-3-Clause */
/** @file device_backend_emulated.cpp  The GPU backend's own source, compiled for
 * the host under the CUDA emulation: this is the `emulated` backend. */
#include "device_backend.cu"
