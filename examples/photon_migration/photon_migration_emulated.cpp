/* SPDX-License-Identifier: BSD-3-Clause */
/** @file photon_migration_emulated.cpp  The example compiled as C++ under the
 * CUDA emulation (MCT_EMULATED): the same source on the CPU. */
#include "photon_migration.cu"
