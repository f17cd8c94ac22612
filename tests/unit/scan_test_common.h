/* SPDX-License-Identifier: BSD-3-Clause */
/** @file scan_test_common.h  Shared pieces of the scan tests (C++, host side): a
 * seeded generator, random values of every scan type, a non-commutative user operator,
 * and bit-exact comparison. Compiled by nvcc and, under the emulation, by g++. */
#ifndef MCT_SCAN_TEST_COMMON_H
#define MCT_SCAN_TEST_COMMON_H

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "mctally/device/thread/thread_operators.cuh"
#include "test_assert.h"
#include "test_device.h"
#include "test_random.h"

/** Random values: full-range integers (sums wrap), or small integers stored in a
 * float type when `exact_float` (so every order of additions is exact), else
 * non-zero floats uniform in [-1, 1]. */
template <typename T>
static inline T test_value(uint64_t* s, bool exact_float) {
    const uint64_t r = test_splitmix64(s);
    if (T(0.5) == T(0)) return (T)r; /* integer types: all bits random */
    if (exact_float) return (T)((int)(r % 2001) - 1000);
    const double u = (double)(r >> 11) * 0x1.0p-53; /* [0, 1) */
    const double v = 2.0 * u - 1.0;
    return (T)(v == 0.0 ? 0.5 : v);
}

/** A non-commutative, associative user operator with exact integer arithmetic: affine
 * maps x -> a x + b mod 2^32, composed as "apply the earlier one first". */
struct test_affine {
    uint32_t a, b;
};
struct test_op_compose {
    MCT_HD inline test_affine operator()(const test_affine& f, const test_affine& g) const {
        test_affine h;
        h.a = g.a * f.a;
        h.b = g.a * f.b + g.b;
        return h;
    }
};
static inline test_affine test_affine_value(uint64_t* s) {
    const uint64_t r = test_splitmix64(s);
    test_affine f;
    f.a = (uint32_t)r | 1u;
    f.b = (uint32_t)(r >> 32);
    return f;
}

template <typename T>
static inline bool test_same_bits(const T& a, const T& b) {
    return memcmp(&a, &b, sizeof(T)) == 0;
}

#endif /* MCT_SCAN_TEST_COMMON_H */
