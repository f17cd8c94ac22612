/* SPDX-License-Identifier: BSD-3-Clause */
/** @file pet_reco_device_emulated.cpp  The MLEM projections' GPU engine
 * compiled for the host under the CUDA emulation (backend `emulated`). */
#include "pet_reco_device.cu"
