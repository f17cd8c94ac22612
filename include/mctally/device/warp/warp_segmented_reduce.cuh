/* SPDX-License-Identifier: BSD-3-Clause */
/** @file warp_segmented_reduce.cuh  Sum of each peer group's values in a
 * divergent warp, delivered to the group's lowest lane (its leader), in
 * sub-trees (Westphal's add_peers, Liu's WAG step 2).
 *
 * A lane of rank r in its group (r = number of peers below it) holds a partial
 * sum. In round i (i = 0, 1, ...) the lanes whose rank is a multiple of 2^(i+1)
 * add the partial of the peer of rank r + 2^i, if there is one; the peers of
 * odd rank at that level are then spent. After ceil(log2(group size)) rounds
 * the leader (rank 0) holds the group's sum, added in a fixed tree order.
 *
 * Validity by CUDA's rules: every shuffle names `active` and reads a lane
 * inside it. The partner is the lowest still-live peer above the calling lane
 * (an __ffs on the live-peers mask); a lane without one shuffles from itself
 * and keeps its value, instead of the published code's read of lane -1. The
 * live mask shrinks by a ballot of the spent lanes, and the loop ends by
 * __any_sync over `active`, so all lanes of `active` run the same rounds.
 *
 * Peers that are runs of consecutive lanes reduce in fixed steps instead
 * (mct_warp_run_reduce). */
#ifndef MCT_WARP_SEGMENTED_REDUCE_CUH
#define MCT_WARP_SEGMENTED_REDUCE_CUH

#include <type_traits>

#include "mctally/device/warp/warp_peers.cuh"

/** The default combine: a + b, wrapping for signed integers (as the integer
 * atomics do) instead of C++'s undefined signed overflow. */
struct mct_plus {
    template <typename V>
    __device__ __forceinline__ V operator()(V a, V b) const {
        if constexpr (std::is_integral<V>::value && std::is_signed<V>::value) {
            using U = typename std::make_unsigned<V>::type;
            return (V)((U)a + (U)b);
        } else {
            return a + b;
        }
    }
};

/** Combines `v` over each peer group of `active` (groups given by `peers`, as
 * from warp_peers.cuh) with `op` (associative; applied in a fixed tree order);
 * the group's total is returned in its lowest lane, other lanes get partials.
 * Every lane of `active` must call it with the same `active`. */
template <typename V, typename Op = mct_plus>
__device__ __forceinline__ V mct_warp_segmented_reduce(unsigned active, unsigned peers, V v, Op op = Op()) {
    const int lane = mct_lane();
    unsigned rank = (unsigned)__popc(peers & mct_lanemask_lt());
    unsigned above = peers & ~((2u << lane) - 1u); /* live peers above me; (2u << 31) wraps to 0 */
    while (__any_sync(active, above != 0)) {
        const int next = __ffs((int)above) - 1;
        const V other = __shfl_sync(active, v, next >= 0 ? next : lane);
        const bool spent = rank & 1u; /* my partial goes to a lower peer this round */
        if (next >= 0 && !spent) v = op(v, other);
        above &= ~__ballot_sync(active, spent);
        if (spent) above = 0;
        rank >>= 1;
    }
    return v;
}

/** Combines `v` over runs of consecutive lanes (sorted or clustered keys), all 32
 * lanes converged: `last` is the highest lane of the caller's run. Each lane ends
 * with op over its own lane up to `last`, so a run's first lane holds the run's
 * total. Five fixed shuffle steps (lane l adds lane l + 2^i while that is still in
 * its run), against mct_warp_segmented_reduce's ballot per round: the cheaper form
 * where peers are known to be contiguous. */
template <typename V, typename Op = mct_plus>
__device__ __forceinline__ V mct_warp_run_reduce(V v, int last, Op op = Op()) {
    const int lane = mct_lane();
MCT_UNROLL
    for (int off = 1; off < 32; off <<= 1) {
        const V other = __shfl_down_sync(0xffffffffu, v, (unsigned)off);
        if (lane + off <= last) v = op(v, other);
    }
    return v;
}

/** Whether a peer group (peers as from warp_peers.cuh) is one run of consecutive lanes. */
__device__ __forceinline__ bool mct_warp_peers_contiguous(unsigned peers) {
    const unsigned low = peers & (0u - peers); /* the lowest peer's bit */
    return ((peers + low) & peers) == 0u;      /* adding it carries through a contiguous run only */
}

/** The lowest lane of a peer group: the one that does the group's global update. */
__device__ __forceinline__ bool mct_warp_is_leader(unsigned peers) { return (peers & mct_lanemask_lt()) == 0; }

#endif /* MCT_WARP_SEGMENTED_REDUCE_CUH */
