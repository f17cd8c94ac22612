/* SPDX-License-Identifier: BSD-3-Clause */
/** @file thread_checked.cuh  Integer adds that never wrap silently: every add
 * of an integer tally (into a bin, a shared-memory copy, a replica, or a
 * partial sum) goes through these, and an exact sum that leaves the type's
 * range raises MCT_TALLY_FLAG_OVERFLOW in the tally's flag word. The test is
 * mct_arith.h's (shared with the CPU backend), made on the old value an atomic
 * returns or on a partial sum's operands: a few register instructions and a
 * branch not taken, no memory traffic until an overflow happens. Float types
 * pass through to the plain adds. */
#ifndef MCT_THREAD_CHECKED_CUH
#define MCT_THREAD_CHECKED_CUH

#include <stdint.h>

#include <type_traits>

#include "mctally/device/mct_cuda.cuh"
#include "mctally/device/thread/thread_atomic.cuh"
#include "mctally/device/warp/warp_reduce.cuh"
#include "mctally/mct_arith.h"
#include "mctally/mct_tally.h"

/** Sets `bits` in a tally's flag word (rare events only: one atomicOr each). */
__device__ __forceinline__ void mct_tally_raise(unsigned int* flags, unsigned bits) {
    if (flags) atomicOr(flags, bits);
}

/** a + b and whether the exact sum left V's range (integers; 0 for floats). */
__device__ __forceinline__ int32_t mct__checked_add(int32_t a, int32_t b, int* o) { return mct_arith_add_i32(a, b, o); }
__device__ __forceinline__ uint64_t mct__checked_add(uint64_t a, uint64_t b, int* o) { return mct_arith_add_u64(a, b, o); }
__device__ __forceinline__ int64_t mct__checked_add(int64_t a, int64_t b, int* o) { return mct_fixed_add_wrapping(a, b, o); }
__device__ __forceinline__ float mct__checked_add(float a, float b, int* o) { *o = 0; return a + b; }
__device__ __forceinline__ double mct__checked_add(double a, double b, int* o) { *o = 0; return a + b; }

/** The combine of integer partial sums (warp and block reductions, register
 * and group sums): a + b, wrapping, raising OVERFLOW in `flags` itself when
 * the exact sum leaves the type's range, so the flag needs no reduction of its
 * own. For floats, a + b. */
struct mct_checked_plus {
    unsigned int* flags;
    template <typename V>
    __device__ __forceinline__ V operator()(V a, V b) const {
        if constexpr (std::is_integral<V>::value) {
            int overflow;
            const V r = mct__checked_add(a, b, &overflow);
            if (overflow) mct_tally_raise(flags, MCT_TALLY_FLAG_OVERFLOW);
            return r;
        } else {
            return a + b;
        }
    }
};

/** The same combine for a reduction whose caller raises the flag once at its
 * end: an overflow is OR-ed into *overflow (a register once inlined), so a
 * reduction step is the add and three test instructions, with no branch and no
 * reconvergence per step. A warp reduction needs no test per step at all
 * (mct__op_checked_sum in warp_reduce.cuh). */
struct mct_checked_plus_local {
    int* overflow;
    template <typename V>
    __device__ __forceinline__ V operator()(V a, V b) const {
        if constexpr (std::is_integral<V>::value) {
            int o;
            const V r = mct__checked_add(a, b, &o);
            *overflow |= o;
            return r;
        } else {
            return a + b;
        }
    }
    /** Records an overflow found by a reduction's own exact test. */
    __device__ __forceinline__ void note(int o) const { *overflow |= o; }
};
template <>
struct mct__op_checked_sum<mct_checked_plus_local> : std::true_type {};

/** *addr += v with one atomic; for the integer types, an overflow of the
 * bin is found from the old value the atomic returns and raised in `flags`. */
__device__ __forceinline__ void mct_atomic_add(int32_t* addr, int32_t v, unsigned int* flags) {
    const int32_t old = (int32_t)atomicAdd((int*)addr, (int)v);
    int overflow;
    (void)mct_arith_add_i32(old, v, &overflow);
    if (overflow) mct_tally_raise(flags, MCT_TALLY_FLAG_OVERFLOW);
}
__device__ __forceinline__ void mct_atomic_add(uint64_t* addr, uint64_t v, unsigned int* flags) {
    const uint64_t old = (uint64_t)atomicAdd((unsigned long long*)addr, (unsigned long long)v);
    int overflow;
    (void)mct_arith_add_u64(old, v, &overflow);
    if (overflow) mct_tally_raise(flags, MCT_TALLY_FLAG_OVERFLOW);
}
/* int64: the sums of fixed-point tallies (thread_fixed.cuh), in the bins and in a block's copy. */
__device__ __forceinline__ void mct_atomic_add(int64_t* addr, int64_t v, unsigned int* flags) {
    const int64_t old = (int64_t)atomicAdd((unsigned long long*)addr, (unsigned long long)v);
    int overflow;
    (void)mct_fixed_add_wrapping(old, v, &overflow);
    if (overflow) mct_tally_raise(flags, MCT_TALLY_FLAG_OVERFLOW);
}
__device__ __forceinline__ void mct_atomic_add(float* addr, float v, unsigned int*) { mct_atomic_add(addr, v); }
__device__ __forceinline__ void mct_atomic_add(double* addr, double v, unsigned int*) { mct_atomic_add(addr, v); }

/** *addr += v by a thread that owns *addr (a private replica): a plain
 * read-modify-write, the overflow test on the value it read. */
template <typename T>
__device__ __forceinline__ void mct_owned_add(T* addr, T v, unsigned int* flags) {
    *addr = mct_checked_plus{flags}(*addr, v);
}

#endif /* MCT_THREAD_CHECKED_CUH */
