/* SPDX-License-Identifier: BSD-3-Clause */
/** @file block_tally_kahan.cuh  A block-private copy of a kahan tally's
 * (sum, comp) pairs in shared storage: warp peers are summed in double, the
 * group's leader does kahan's compensated add on the shared pair
 * (thread_kahan.cuh), and flush() adds each pair's value (sum - comp, exact in
 * double) into the global pair with one compensated add per bin per block. A
 * hot bin's atomics then meet in shared memory among one block's warps instead
 * of in L2 among the whole GPU's; the error stays second order (each block's
 * pair is a compensated sum of its addends, then one more compensated add per
 * block). Peers are summed in divergent code too: lanes of one beam meet in
 * few bins, and without the sum their atomics on one shared pair would retry
 * each other. */
#ifndef MCT_BLOCK_TALLY_KAHAN_CUH
#define MCT_BLOCK_TALLY_KAHAN_CUH

#include <stdint.h>

#include "mctally/device/mct_cuda.cuh"
#include "mctally/device/thread/thread_kahan.cuh"
#include "mctally/device/warp/warp_peers.cuh"
#include "mctally/device/warp/warp_segmented_reduce.cuh"

/** pairs[bin] += value from any lanes (bin < 2^32, checked by the caller). */
__device__ __forceinline__ void mct_block_kahan_add(mct_kahan_pair_t* pairs, int64_t bin, float value) {
    const unsigned active = __activemask();
    const unsigned peers = mct_warp_peers_match(active, (unsigned)bin);
    const double group = mct_warp_segmented_reduce(active, peers, (double)value);
    if (mct_warp_is_leader(peers)) mct_atomic_add_compensated(pairs + bin, group);
}

/** Every thread of the block, converged, once: each pair's value into the
 * global pairs. The leading barrier waits for everyone's adds. */
__device__ __forceinline__ void mct_block_kahan_flush(const mct_kahan_pair_t* pairs, mct_kahan_pair_t* global,
                                                      int64_t nbins) {
    __syncthreads();
    for (int64_t k = mct_thread_rank(); k < nbins; k += mct_block_threads()) {
        const double v = (double)pairs[k].sum - (double)pairs[k].comp;
        if (v != 0.0 || v != v) mct_atomic_add_compensated(global + k, v);
    }
}

#endif /* MCT_BLOCK_TALLY_KAHAN_CUH */
