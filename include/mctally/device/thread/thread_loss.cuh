/* SPDX-License-Identifier: BSD-3-Clause */
/** @file thread_loss.cuh  The device side of the rounding-loss estimate
 * (mctally/mct_rounding.h): a contribution in the sampled subset
 * (mct_loss_sampled, keyed by the adding thread) also goes into the view's
 * f64 shadow. mct_add and mct_block_tally call it once per contribution, before
 * any aggregation, and only when view.loss_shadow is set; mct_block_counter
 * records each thread's partial sum at its flush. */
#ifndef MCT_THREAD_LOSS_CUH
#define MCT_THREAD_LOSS_CUH

#include <stdint.h>

#include <type_traits>

#include "mctally/device/mct_cuda.cuh"
#include "mctally/mct_arith.h"
#include "mctally/mct_tally.h"

/** Records `value` for bin `bin` (in range) in the shadow when it is sampled.
 * The key holds the thread, the view's salt and the clock, so that one thread
 * adding the same value many times (a history's deterministic first steps)
 * does not have all of those adds in or all out. Takes the view's fields by
 * value so that the call does not need the view in memory. */
__device__ __forceinline__ void mct_loss_record(double* shadow, uint32_t mask, uint32_t salt_word, int64_t bin,
                                                        double value) {
    const uint64_t block = blockIdx.x + (uint64_t)gridDim.x * (blockIdx.y + (uint64_t)gridDim.y * blockIdx.z);
    const uint64_t thread = block * (uint64_t)mct_block_threads() + (uint64_t)mct_thread_rank();
    const uint64_t salt = thread ^ ((uint64_t)salt_word << 40) ^ ((uint64_t)clock64() << 20);
    if (mct_loss_sampled(bin, value, salt, mask)) {
        double* const s = shadow + MCT_LOSS_SHADOW_WORDS * bin;
        atomicAdd(s, value);
        atomicAdd(s + 1, value * value);
    }
}

/** Whether an adding path records into the shadow. FROM_VIEW (the default of
 * every adding path): when view.loss_shadow is set, one test of a kernel
 * parameter per add when it is not. NONE: never, with no code for it; for a
 * kernel instance that its host launches only for views without a shadow
 * (mct_loss_hook_for), so that the test and the recording path cost the hot
 * code neither instructions nor registers. */
enum mct_loss_hook_t { MCT_LOSS_FROM_VIEW = 0, MCT_LOSS_NONE = 1 };

/** The hook instance a host launches for `view`: NONE when it has no shadow. */
static MCT_HD inline mct_loss_hook_t mct_loss_hook_for(const mct_tally_view_t& view) {
    return view.loss_shadow != NULL ? MCT_LOSS_FROM_VIEW : MCT_LOSS_NONE;
}

/** The hook the adding paths call, once per contribution. */
template <mct_loss_hook_t H, typename T>
__device__ __forceinline__ void mct_loss_hook(const mct_tally_view_t& view, int64_t bin, T value) {
    if constexpr (H == MCT_LOSS_FROM_VIEW && std::is_floating_point<T>::value) {
        if (view.loss_shadow != NULL)
            mct_loss_record(view.loss_shadow, view.loss_mask, view.loss_salt, bin, (double)value);
    }
}

#endif /* MCT_THREAD_LOSS_CUH */
