/* SPDX-License-Identifier: BSD-3-Clause */
/** @file kernel_take_bins.cuh  mct_tally_take_sums on the device backends: the
 * open batch's bins checked, or read as float64 and zeroed, one thread per
 * bin over a grid-stride loop (take_bins.h holds the per-bin rule). */
#ifndef MCT_KERNEL_TAKE_BINS_CUH
#define MCT_KERNEL_TAKE_BINS_CUH

#include "../../common/take_bins.h"

#define MCT_TAKE_THREADS 256

/** dst NULL: ORs the bits of every bin's check into the flag word (one atomic
 * per thread that found one). dst: writes every bin's value to dst and zeroes
 * the bin (the flag word is zero already: the batch passed its check). */
static __global__ void mct_kernel_take_bins(mct_tally_view_t view, double* dst) {
    unsigned flags = 0;
    for (int64_t k = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; k < view.nbins;
         k += (int64_t)gridDim.x * blockDim.x) {
        double x;
        flags |= mct__take_bin(&view, k, &x);
        if (dst) {
            dst[k] = x;
            mct__zero_bin(&view, k);
        }
    }
    if (!dst && flags) atomicOr(view.flags, flags);
}

#endif /* MCT_KERNEL_TAKE_BINS_CUH */
