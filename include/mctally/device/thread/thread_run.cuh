/* SPDX-License-Identifier: BSD-3-Clause */
/** @file thread_run.cuh  One thread's run of adds into one bin, summed where the
 * thread keeps it (a register, or its own slot of shared memory) and handed to
 * the tally once, when the bin changes and at flush().
 *
 * A transport thread deposits in runs: a track's steps keep depositing into
 * the voxel they cross until they leave it, and a secondary starts where its
 * parent is, so a run costs the tally one add where its deposits would cost
 * many, the more the larger the voxels (the counts for Liu's electron beam on
 * water: bench/results/2026-11-23-h100-phantom-r5.md). Warp
 * aggregation cannot see this: it is one lane's sequence in time, not the
 * warp's lanes at one instant.
 *
 *     mct_thread_run<double> run;
 *     for (each deposit) run.add(voxel, e, [&](int64_t b, double s) { tally.add(b, s); });
 *     run.flush([&](int64_t b, double s) { tally.add(b, s); });   // before tally.flush()
 *
 * The run's sum is in T, so the tally receives the same values regrouped: for
 * a float tally whose order of addition is free anyway, only the rounding
 * changes; mct_method_accepts_runs() (mct_types.h) says for which methods that
 * holds (the others should be given each value directly). Any bin, in range or
 * not, and any value (NaN, Inf) passes through unchanged to the add, whose
 * rules apply. */
#ifndef MCT_THREAD_RUN_CUH
#define MCT_THREAD_RUN_CUH

#include <stdint.h>

#include "mctally/device/warp/warp_segmented_reduce.cuh" /* mct_plus */

/** The run's open flag, where it has one (mct_thread_run without NONNEG). */
template <bool HAS_FLAG>
struct mct__run_flag {
    bool open = false;
};
template <>
struct mct__run_flag<false> {};

/** NONNEG: the caller's bins are never negative (a voxel index, say). A
 * negative bin then marks "no run open", and the run is a bin and a sum, with
 * no flag to read at every add of a transport's deposit site (16 bytes for an
 * int bin and a double sum, where the flagged form takes 24). Passing a negative bin
 * breaks that promise (its value is then lost). Bin: the bins' type; a caller
 * whose bins stay below 2^31 passes int32_t and compares and moves one
 * register where int64_t takes two. */
template <typename T, bool NONNEG = false, typename Bin = int64_t>
struct mct_thread_run : mct__run_flag<!NONNEG> {
    Bin bin = -1; /* the run's bin, when open (NONNEG: >= 0 exactly when open) */
    T sum = T(0); /* and its sum so far */

    MCT_HD bool is_open(void) const {
        if constexpr (NONNEG)
            return bin >= 0;
        else
            return this->open;
    }

    /** bin b += v: into the run when b is its bin (returns false); otherwise
     * a new run starts with (b, v), and the run it ends, if any, is handed
     * back in (b, v) to be added (returns true). The caller's add then has one
     * call site, which keeps a kernel's code small. One store of the sum on
     * either path, and one result: the compiler predicates the short paths
     * anyway, and this way they share their instructions. */
    __device__ __forceinline__ bool exchange(Bin& b, T& v) {
        const Bin eb = bin;
        const T es = sum;
        const bool was_open = is_open();
        const bool same = b == eb && (NONNEG || was_open); /* NONNEG: b >= 0, so bin is open */
        sum = same ? mct_plus{}(es, v) : v;
        if (!same) {
            bin = b;
            if constexpr (!NONNEG) this->open = true;
            b = eb;
            v = es;
        }
        return !same && was_open;
    }

    /** The same through a callback: out(bin, sum) for the run that ends. */
    template <typename Out>
    __device__ __forceinline__ void add(Bin b, T v, Out&& out) {
        if (exchange(b, v)) out(b, v);
    }

    /** Ends the open run, if any (out(bin, sum)). */
    template <typename Out>
    __device__ __forceinline__ void flush(Out&& out) {
        if (is_open()) out(bin, sum);
        if constexpr (NONNEG)
            bin = -1;
        else
            this->open = false;
    }
};

#endif /* MCT_THREAD_RUN_CUH */
