/* SPDX-License-Identifier: BSD-3-Clause */
/** @file block_tally_mode.cuh  Where a block keeps its contributions before
 * they reach a tally's bins (the mode of mct_block_tally), how the mode follows
 * from the method and the bin count, and how much shared memory it needs. Host
 * and device: a launcher picks its kernel instance and its shared memory with
 * the same functions the tally uses, so the two cannot disagree. */
#ifndef MCT_BLOCK_TALLY_MODE_CUH
#define MCT_BLOCK_TALLY_MODE_CUH

#include <stddef.h>
#include <stdint.h>

#include "mctally/mct_config.h"
#include "mctally/mct_tally.h"

/** The method argument of mct_block_tally that means "view.method, at run time". */
constexpr mct_method_t MCT_METHOD_FROM_VIEW = MCT_METHOD_COUNT;

/** Most bins a thread keeps in registers (block_reduce, warp_reduce). */
#define MCT_BLOCK_TALLY_REGISTER_BINS 8

/** Where a block keeps its contributions; one file under block/ each. */
enum mct_block_mode_t {
    MCT_BLOCK_MODE_PER_LANE,          /**< nowhere: every add() is mct_add (mct_add.cuh) */
    MCT_BLOCK_MODE_SHARED,            /**< a shared-memory copy, one shared atomic per add() (block_privatized.cuh) */
    MCT_BLOCK_MODE_AGGREGATED,        /**< a shared-memory copy, warp aggregation first (block_tally_aggregated.cuh) */
    MCT_BLOCK_MODE_AGGREGATED_GLOBAL, /**< warp aggregation into the global bins (block_tally_aggregated.cuh) */
    MCT_BLOCK_MODE_REGISTERS,         /**< per-thread sums in registers, reduced at flush() (block_tally_registers.cuh) */
    MCT_BLOCK_MODE_KAHAN,             /**< a shared-memory copy of Kahan pairs (block_tally_kahan.cuh) */
    MCT_BLOCK_MODE_ANY,               /**< template argument only: the mode is found at run time */
};

/** Bytes of one of a block's sums for method m on elem-byte values: fixed
 * sums its int64 fixed-point values (thread_fixed.cuh), whatever the values. */
MCT_HD constexpr size_t mct_block_sum_bytes(mct_method_t m, size_t elem) {
    return m == MCT_METHOD_FIXED ? sizeof(int64_t) : elem;
}

/** The mode of method m on nbins bins of elem-byte values. Only the methods
 * that keep a block's contributions have modes besides PER_LANE: `shared` always
 * keeps a shared copy (the caller checks it fits); `block_reduce` and
 * `warp_reduce` keep register sums up to MCT_BLOCK_TALLY_REGISTER_BINS bins,
 * then aggregate warps (block_reduce into a shared copy while it fits); `kahan`
 * keeps shared pairs while they fit; `fixed` keeps its int64 sums as
 * block_reduce does (register sums, a shared copy with warp aggregation while
 * it fits, then warp aggregation into the global bins): integer adds commute,
 * so its bits are the same in every mode. */
MCT_HD constexpr mct_block_mode_t mct_block_mode_of(mct_method_t m, int64_t nbins, size_t elem) {
    return m == MCT_METHOD_SHARED ? MCT_BLOCK_MODE_SHARED
           : m == MCT_METHOD_KAHAN && (size_t)nbins * sizeof(mct_kahan_pair_t) <= MCT_BLOCK_TALLY_SMEM_LIMIT
               ? MCT_BLOCK_MODE_KAHAN
           : (m == MCT_METHOD_BLOCK_REDUCE || m == MCT_METHOD_WARP_REDUCE || m == MCT_METHOD_FIXED) &&
                   nbins <= MCT_BLOCK_TALLY_REGISTER_BINS
               ? MCT_BLOCK_MODE_REGISTERS
           : (m == MCT_METHOD_BLOCK_REDUCE || m == MCT_METHOD_FIXED) &&
                   (size_t)nbins * mct_block_sum_bytes(m, elem) <= MCT_BLOCK_TALLY_SMEM_LIMIT
               ? MCT_BLOCK_MODE_AGGREGATED
           : m == MCT_METHOD_BLOCK_REDUCE || m == MCT_METHOD_WARP_REDUCE || m == MCT_METHOD_FIXED
               ? MCT_BLOCK_MODE_AGGREGATED_GLOBAL
               : MCT_BLOCK_MODE_PER_LANE;
}

/** The mode of the run-time form (mct_block_tally<T>, the method read from the
 * view): as mct_block_mode_of, except `fixed`, which runs per lane there (that
 * form keeps its block sums in the values' type, and fixed sums int64s). */
MCT_HD constexpr mct_block_mode_t mct_block_mode_of_view(mct_method_t m, int64_t nbins, size_t elem) {
    return m == MCT_METHOD_FIXED ? MCT_BLOCK_MODE_PER_LANE : mct_block_mode_of(m, nbins, elem);
}

/** Bytes of shared storage a block in mode `mode` of method m on nbins bins
 * of elem-byte values needs (the caller provides them, 16-byte aligned): the
 * bins' copy, the table of warp sums of block_reduce and fixed (32 warps x B),
 * or the Kahan pairs; 0 for the other modes. */
MCT_HD constexpr size_t mct_block_mode_storage_bytes(mct_block_mode_t mode, mct_method_t m, int64_t nbins,
                                                     size_t elem) {
    return mode == MCT_BLOCK_MODE_SHARED || mode == MCT_BLOCK_MODE_AGGREGATED
               ? (size_t)nbins * mct_block_sum_bytes(m, elem)
           : mode == MCT_BLOCK_MODE_REGISTERS && (m == MCT_METHOD_BLOCK_REDUCE || m == MCT_METHOD_FIXED)
               ? 32 * (size_t)nbins * mct_block_sum_bytes(m, elem)
           : mode == MCT_BLOCK_MODE_KAHAN ? (size_t)nbins * sizeof(mct_kahan_pair_t)
                                          : 0;
}

/** The same for the mode mct_block_mode_of gives. */
MCT_HD constexpr size_t mct_block_tally_storage_bytes(mct_method_t m, int64_t nbins, size_t elem) {
    return mct_block_mode_storage_bytes(mct_block_mode_of(m, nbins, elem), m, nbins, elem);
}

#endif /* MCT_BLOCK_TALLY_MODE_CUH */
