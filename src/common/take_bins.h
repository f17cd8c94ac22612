/* SPDX-License-Identifier: BSD-3-Clause */
/** @file take_bins.h  One bin of an open batch read as float64 and checked, for
 * mct_tally_take_sums: written once for the CPU backend (C) and the device
 * backends (CUDA C and the emulation), so that every backend converts a bin
 * and finds a bad one alike, and as mct_tally_end_batch and
 * mct_tally_copy_sums do on the host. */
#ifndef MCT_TAKE_BINS_H
#define MCT_TAKE_BINS_H

#include <stdint.h>

#include "mctally/mct_arith.h"
#include "mctally/mct_combine.h"
#include "mctally/mct_config.h"
#include "mctally/mct_tally.h"

/** A bit outside the public MCT_TALLY_FLAG_* set, raised in the flag word by
 * take_sums's check alone: a float bin holds NaN or an infinity. The batch
 * end reports it as NONFINITE_VALUE without adding it to the flags seen, as
 * mct_tally_end_batch does; the word is zeroed before anything else reads it. */
#define MCT__FLAG_BIN_NONFINITE (1u << 8)

/** Bin k of the view's storage as float64 in *out (the method's storage:
 * fixed's int64 scaled by 2^-frac_bits, exactly; Kahan's sum minus its
 * compensation; the value type otherwise), and the flag bits its check
 * raises: MCT_TALLY_FLAG_OVERFLOW for an exact bin that has no int64 value
 * (fixed's overflow mark, a u64 bin past INT64_MAX), MCT__FLAG_BIN_NONFINITE
 * for a float bin that is not finite. */
MCT_INLINE MCT_HD unsigned mct__take_bin(const mct_tally_view_t* v, int64_t k, double* out) {
    if (v->method == MCT_METHOD_FIXED) {
        const int64_t x = ((const int64_t*)v->bins)[k];
        *out = (double)x / v->fixed_scale; /* a power of two: exact division */
        return x == MCT_BATCH_EXACT_OVERFLOW ? MCT_TALLY_FLAG_OVERFLOW : 0u;
    }
    double x;
    if (v->method == MCT_METHOD_KAHAN || v->method == MCT_METHOD_KAHAN_NAIVE) {
        const mct_kahan_pair_t p = ((const mct_kahan_pair_t*)v->bins)[k];
        x = (double)p.sum - (double)p.comp;
    } else {
        switch (v->dtype) {
        case MCT_DTYPE_I32: *out = (double)((const int32_t*)v->bins)[k]; return 0u;
        case MCT_DTYPE_U64: {
            const uint64_t u = ((const uint64_t*)v->bins)[k];
            *out = (double)u;
            return u > (uint64_t)INT64_MAX ? MCT_TALLY_FLAG_OVERFLOW : 0u;
        }
        case MCT_DTYPE_F32: x = (double)((const float*)v->bins)[k]; break;
        default: x = ((const double*)v->bins)[k]; break;
        }
    }
    *out = x;
    return mct_arith_is_finite(x) ? 0u : MCT__FLAG_BIN_NONFINITE;
}

/** Sets bin k of the view's storage to zero (a Kahan pair's sum and compensation both). */
MCT_INLINE MCT_HD void mct__zero_bin(const mct_tally_view_t* v, int64_t k) {
    if (v->method == MCT_METHOD_FIXED) {
        ((int64_t*)v->bins)[k] = 0;
    } else if (v->method == MCT_METHOD_KAHAN || v->method == MCT_METHOD_KAHAN_NAIVE) {
        mct_kahan_pair_t* p = (mct_kahan_pair_t*)v->bins + k;
        p->sum = 0.0f;
        p->comp = 0.0f;
    } else {
        switch (v->dtype) {
        case MCT_DTYPE_I32: ((int32_t*)v->bins)[k] = 0; break;
        case MCT_DTYPE_U64: ((uint64_t*)v->bins)[k] = 0; break;
        case MCT_DTYPE_F32: ((float*)v->bins)[k] = 0.0f; break;
        default: ((double*)v->bins)[k] = 0.0; break;
        }
    }
}

#endif /* MCT_TAKE_BINS_H */
