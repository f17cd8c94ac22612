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

/** Bin k of the current batch as a double, read from the view's storage on
 * the device, for post-processing a batch in a kernel before
 * mct_tally_end_batch (which folds and zeroes the bins): the tally's type for
 * most methods; fixed's int64 scaled by 2^-fixed_frac_bits (exact: a power of
 * two); kahan's (sum, compensation) pair as sum - comp in double, as the host
 * folds it. Call mct_tally_flush first when the method defers adds
 * (replicated, sort_reduce), and read after the kernels that add have finished
 * (the tally's stream orders them). k must be in [0, view.nbins). */
static MCT_HD inline double mct_tally_bin_value(const mct_tally_view_t& view, int64_t k) {
    if (view.method == MCT_METHOD_FIXED) return (double)((const int64_t*)view.bins)[k] / view.fixed_scale;
    if (view.method == MCT_METHOD_KAHAN || view.method == MCT_METHOD_KAHAN_NAIVE) {
        const mct_kahan_pair_t p = ((const mct_kahan_pair_t*)view.bins)[k];
        return (double)p.sum - (double)p.comp;
    }
    switch (view.dtype) {
    case MCT_DTYPE_I32: return (double)((const int32_t*)view.bins)[k];
    case MCT_DTYPE_U64: return (double)((const uint64_t*)view.bins)[k];
    case MCT_DTYPE_F32: return (double)((const float*)view.bins)[k];
    default: return ((const double*)view.bins)[k];
    }
}

#endif /* MCT_TALLY_DEVICE_CUH */
