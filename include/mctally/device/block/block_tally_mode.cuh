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

/** The mode of method m on nbins bins of elem-byte values. Only the methods
 * that keep a block's contributions have modes besides PER_LANE: `shared` always
 * keeps a shared copy (the caller checks it fits); `block_reduce` and
 * `warp_reduce` keep register sums up to MCT_BLOCK_TALLY_REGISTER_BINS bins,
 * then aggregate warps (block_reduce into a shared copy while it fits); `kahan`
 * keeps shared pairs while they fit. */
MCT_HD constexpr mct_block_mode_t mct_block_mode_of(mct_method_t m, int64_t nbins, size_t elem) {
    return m == MCT_METHOD_SHARED ? MCT_BLOCK_MODE_SHARED
           : m == MCT_METHOD_KAHAN && (size_t)nbins * sizeof(mct_kahan_pair_t) <= MCT_BLOCK_TALLY_SMEM_LIMIT
               ? MCT_BLOCK_MODE_KAHAN
           : (m == MCT_METHOD_BLOCK_REDUCE || m == MCT_METHOD_WARP_REDUCE) && nbins <= MCT_BLOCK_TALLY_REGISTER_BINS
               ? MCT_BLOCK_MODE_REGISTERS
           : m == MCT_METHOD_BLOCK_REDUCE && (size_t)nbins * elem <= MCT_BLOCK_TALLY_SMEM_LIMIT
               ? MCT_BLOCK_MODE_AGGREGATED
           : m == MCT_METHOD_BLOCK_REDUCE || m == MCT_METHOD_WARP_REDUCE ? MCT_BLOCK_MODE_AGGREGATED_GLOBAL
                                                                         : MCT_BLOCK_MODE_PER_LANE;
}

/** Bytes of shared storage a block tally of method m on nbins bins of
 * elem-byte values needs (the caller provides them, 16-byte aligned): the bins'
 * copy, block_reduce's table of warp sums (32 warps x B), or the Kahan pairs;
 * 0 for the other modes. */
MCT_HD constexpr size_t mct_block_tally_storage_bytes(mct_method_t m, int64_t nbins, size_t elem) {
    return mct_block_mode_of(m, nbins, elem) == MCT_BLOCK_MODE_SHARED ||
                   mct_block_mode_of(m, nbins, elem) == MCT_BLOCK_MODE_AGGREGATED
               ? (size_t)nbins * elem
           : mct_block_mode_of(m, nbins, elem) == MCT_BLOCK_MODE_REGISTERS && m == MCT_METHOD_BLOCK_REDUCE
               ? 32 * (size_t)nbins * elem
           : mct_block_mode_of(m, nbins, elem) == MCT_BLOCK_MODE_KAHAN ? (size_t)nbins * sizeof(mct_kahan_pair_t)
                                                                        : 0;
}

#endif /* MCT_BLOCK_TALLY_MODE_CUH */
