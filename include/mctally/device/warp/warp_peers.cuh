/* SPDX-License-Identifier: BSD-3-Clause */
/** @file warp_peers.cuh  Peer finding: which of the calling warp's active lanes
 * hold the same key (bin) as the calling lane.
 *
 * Both functions take `active`, the mask of lanes that call them together: in
 * an any-lane, any-time context it is one __activemask() read before the call
 * and handed down, so that every lane of the group uses the SAME mask (reading
 * __activemask() again inside a loop, as the published listings do, may give
 * different lanes different masks once the warp diverges). Lanes outside
 * `active` (exited, on the other side of a branch, beyond the block's partial
 * last warp) are never named and never read.
 *
 * The result is the mask of the calling lane's peers, itself included; every
 * lane of one peer group gets the same mask, and the groups partition `active`. */
#ifndef MCT_WARP_PEERS_CUH
#define MCT_WARP_PEERS_CUH

#include <stdint.h>

#include "mctally/device/mct_cuda.cuh"

/** Lanes strictly below the calling lane (PTX %lanemask_lt). */
__device__ __forceinline__ unsigned mct_lanemask_lt(void) { return (1u << mct_lane()) - 1u; }

/** Westphal's get_peers / Liu's WAG step 1. Each round the lowest unclaimed lane
 * broadcasts its key, the lanes holding it ballot, and those lanes are claimed.
 * `unclaimed` evolves identically in every lane, so all lanes of `active` run
 * the same number of rounds (one per distinct key) and every shuffle and ballot
 * names exactly `active`: nobody leaves the loop early. */
template <typename K>
__device__ __forceinline__ unsigned mct_warp_peers_ballot(unsigned active, K key) {
    unsigned unclaimed = active, peers = 0;
    while (unclaimed) {
        const int src = __ffs((int)unclaimed) - 1;
        const K other = __shfl_sync(active, key, src);
        const unsigned same = __ballot_sync(active, key == other);
        if (key == other) peers = same;
        unclaimed &= ~same;
    }
    return peers;
}

/** The same partition by one __match_any_sync (sm_70+): a single instruction,
 * whose cost grows with the number of distinct keys in the warp. */
template <typename K>
__device__ __forceinline__ unsigned mct_warp_peers_match(unsigned active, K key) {
    return __match_any_sync(active, key);
}

#endif /* MCT_WARP_PEERS_CUH */
