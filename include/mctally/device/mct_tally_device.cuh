/* SPDX-License-Identifier: BSD-3-Clause */
/** @file mct_tally_device.cuh  Umbrella of the device API: include it in kernels
 * that add into an mctally tally (pass the tally's mct_tally_view_t by value). */
#ifndef MCT_TALLY_DEVICE_CUH
#define MCT_TALLY_DEVICE_CUH

#include "mctally/device/mct_cuda.cuh"
#include "mctally/device/thread/thread_atomic.cuh"
#include "mctally/device/warp/warp_reduce.cuh"
#include "mctally/device/block/block_reduce.cuh"
#include "mctally/device/block/block_counter.cuh"
#include "mctally/device/mct_add.cuh"
#include "mctally/device/block/block_tally.cuh"
#include "mctally/device/block/block_deposit_buffer.cuh"
#include "mctally/mct_rng.h"
#include "mctally/mct_tally.h"

#endif /* MCT_TALLY_DEVICE_CUH */
