/* SPDX-License-Identifier: BSD-3-Clause */
/** @file thread_operators.cuh  The binary operators of the scan primitives (sum,
 * max, min) as functors usable on the host and the device, with their identities.
 *
 * Any functor `T op(const T& a, const T& b) const` that is associative may be given
 * to the warp, block and device scans instead; these three are the ones the C API
 * (mct_scan.h) names. Operators are applied with the earlier element on the left, so
 * non-commutative operators (function composition, matrix products) are supported. */
#ifndef MCT_THREAD_OPERATORS_CUH
#define MCT_THREAD_OPERATORS_CUH

#include <math.h>
#include <stdint.h>

#include "mctally/mct_config.h"

/** Smallest and largest values of the scan's value types, the identities of max and
 * min. A table rather than std::numeric_limits, which nvcc only allows in device
 * code with --expt-relaxed-constexpr. */
template <typename T>
struct mct_value_limits;
#define MCT__VALUE_LIMITS(T, LO, HI)                        \
    template <>                                             \
    struct mct_value_limits<T> {                            \
        static MCT_HD inline T lowest() { return LO; }      \
        static MCT_HD inline T highest() { return HI; }     \
    };
MCT__VALUE_LIMITS(int32_t, INT32_MIN, INT32_MAX)
MCT__VALUE_LIMITS(uint32_t, 0u, UINT32_MAX)
MCT__VALUE_LIMITS(int64_t, INT64_MIN, INT64_MAX)
MCT__VALUE_LIMITS(uint64_t, 0u, UINT64_MAX)
MCT__VALUE_LIMITS(float, -HUGE_VALF, HUGE_VALF)
MCT__VALUE_LIMITS(double, -HUGE_VAL, HUGE_VAL)
#undef MCT__VALUE_LIMITS

/* Signed integer sums wrap modulo 2^bits, as unsigned ones do: the addition is done
 * on the unsigned type, so that overflow is defined (it is undefined behaviour on
 * signed types in C and C++) and every backend gives the same bits. */
template <typename T>
MCT_HD inline T mct__wrap_add(T a, T b) { return a + b; }
MCT_HD inline int32_t mct__wrap_add(int32_t a, int32_t b) { return (int32_t)((uint32_t)a + (uint32_t)b); }
MCT_HD inline int64_t mct__wrap_add(int64_t a, int64_t b) { return (int64_t)((uint64_t)a + (uint64_t)b); }

/* Float max/min follow fmax/fmin: a NaN operand is ignored, so the result does not
 * depend on where a NaN sits in the sequence (a comparison `a < b ? b : a` would). */
template <typename T>
MCT_HD inline T mct__max(T a, T b) { return a < b ? b : a; }
template <typename T>
MCT_HD inline T mct__min(T a, T b) { return b < a ? b : a; }
MCT_HD inline float mct__max(float a, float b) { return fmaxf(a, b); }
MCT_HD inline double mct__max(double a, double b) { return fmax(a, b); }
MCT_HD inline float mct__min(float a, float b) { return fminf(a, b); }
MCT_HD inline double mct__min(double a, double b) { return fmin(a, b); }

/** a + b (integers wrap). Identity 0. */
template <typename T>
struct mct_op_sum {
    MCT_HD inline T operator()(const T& a, const T& b) const { return mct__wrap_add(a, b); }
    static MCT_HD inline T identity() { return T(0); }
};

/** max(a, b) (fmax for floats). Identity: the lowest value (-inf for floats). */
template <typename T>
struct mct_op_max {
    MCT_HD inline T operator()(const T& a, const T& b) const { return mct__max(a, b); }
    static MCT_HD inline T identity() { return mct_value_limits<T>::lowest(); }
};

/** min(a, b) (fmin for floats). Identity: the highest value (+inf for floats). */
template <typename T>
struct mct_op_min {
    MCT_HD inline T operator()(const T& a, const T& b) const { return mct__min(a, b); }
    static MCT_HD inline T identity() { return mct_value_limits<T>::highest(); }
};

#endif /* MCT_THREAD_OPERATORS_CUH */
