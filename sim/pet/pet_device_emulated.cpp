/* SPDX-License-Identifier: BSD-3-Clause */
/** @file pet_device_emulated.cpp  The PET GPU engine compiled for the host
 * under the CUDA emulation (backend `emulated`). */
#include "pet_device.cu"
