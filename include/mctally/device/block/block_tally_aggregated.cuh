/* SPDX-License-Identifier: BSD-3-Clause */
/** @file block_tally_aggregated.cuh  Warp aggregation with a cached bin, for
 * block_reduce and warp_reduce above the register bins: each warp keeps one
 * bin's running sum in registers (the cached bin, warp-uniform, each lane
 * holding its share). An add by the whole warp first lets the lanes whose bin
 * is the cached one add into their share (one ballot, no shuffle, no memory
 * traffic); then the lanes sharing the lowest remaining lane's bin are summed
 * and added with one atomic, and that bin becomes the cached one when more
 * lanes hit it than hit the cached bin; every other lane adds its own value.
 * The shares are summed (shuffles) only when the cached bin changes and at
 * flush(). So sorted keys and a hot bin cost a ballot per add, uniform keys two
 * ballots and a shuffle more than a plain atomic; the work is bounded (two
 * rounds, where the ballot loop of wag and wib runs one round per distinct
 * bin). A warp that adds with some lanes missing (divergent code) sums peers
 * found by __match_any_sync instead, in sub-trees, and leaves the cached bin
 * alone. The target is the block's shared copy or the global bins. */
#ifndef MCT_BLOCK_TALLY_AGGREGATED_CUH
#define MCT_BLOCK_TALLY_AGGREGATED_CUH

#include <stdint.h>

#include "mctally/device/mct_cuda.cuh"
#include "mctally/device/thread/thread_checked.cuh"
#include "mctally/device/warp/warp_peers.cuh"
#include "mctally/device/warp/warp_reduce.cuh"
#include "mctally/device/warp/warp_segmented_reduce.cuh"
#include "mctally/device/warp/warp_shfl.cuh"

template <typename T>
struct mct_warp_cached_bin {
    int64_t bin; /* the warp's cached bin (-1: none) */
    T sum;       /* this lane's share of its sum */
    unsigned int* flags; /* the tally's flag word: integer sums are checked (thread_checked.cuh) */

    __device__ __forceinline__ void reset(unsigned int* tally_flags) {
        bin = -1;
        sum = T(0);
        flags = tally_flags;
    }

    /** target[b] += value from any lanes, b < nbins (checked by the caller). */
    __device__ __forceinline__ void add(T* target, int64_t nbins, int64_t b, T value) {
        const unsigned active = __activemask();
        if (active != 0xffffffffu) {
            /* 32-bit keys where they suffice: the narrower match is the cheaper one. */
            const unsigned peers = nbins <= 0xffffffffll ? mct_warp_peers_match(active, (unsigned)b)
                                                         : mct_warp_peers_match(active, (unsigned long long)b);
            const T group = mct_warp_segmented_reduce(active, peers, value, mct_checked_plus{flags});
            if (mct_warp_is_leader(peers)) mct_atomic_add(target + b, group, flags);
            return;
        }
        const bool in_cache = b == bin;
        const unsigned cached = __ballot_sync(active, in_cache);
        if (in_cache) sum = mct_checked_plus{flags}(sum, value); /* each lane its own share */
        const unsigned left = ~cached;
        if (left == 0u) return;
        const int first = __ffs((int)left) - 1;
        const int64_t lead_bin = mct_shfl_idx(active, b, first);
        const bool in_lead = b == lead_bin; /* never a cached lane: lead_bin is not the cached bin */
        const unsigned lead = __ballot_sync(active, in_lead);
        if (__popc(lead) > 1) {
            if (__popc(lead) > __popc(cached)) { /* the busier bin takes the cache */
                flush(target);
                bin = lead_bin;
                sum = in_lead ? value : T(0);
            } else {
                const T s = mct_warp_reduce_sum(in_lead ? value : T(0), 32, mct_checked_plus{flags});
                if (mct_lane() == 0) mct_atomic_add(target + lead_bin, s, flags);
            }
            if (in_lead) return;
        }
        if (!in_cache) mct_atomic_add(target + b, value, flags);
    }

    /** The cached bin's sum (the lanes' shares, reduced) into target; a full
     * warp, converged. Only full warps ever cache a bin. A zero sum adds
     * nothing; a NaN is added. */
    __device__ __forceinline__ void flush(T* target) {
        if (bin < 0) return;
        const T s = mct_warp_reduce_sum(sum, 32, mct_checked_plus{flags});
        if (mct_lane() == 0 && (s != T(0) || s != s)) mct_atomic_add(target + bin, s, flags);
    }
};

#endif /* MCT_BLOCK_TALLY_AGGREGATED_CUH */
