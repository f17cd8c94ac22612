/* SPDX-License-Identifier: BSD-3-Clause */
/** @file test_random.h  Reproducible test inputs: splitmix64, whose sequence
 * from a seed is the same on every platform and compiler (C, C++, the host
 * side of CUDA sources). */
#ifndef MCT_TEST_RANDOM_H
#define MCT_TEST_RANDOM_H

#include <stdint.h>

/** The next 64 random bits of the stream whose state is *s. */
static inline uint64_t test_splitmix64(uint64_t* s) {
    uint64_t z = (*s += UINT64_C(0x9e3779b97f4a7c15));
    z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
    return z ^ (z >> 31);
}

/** A double uniform in [0, 1) from the next 53 bits. */
static inline double test_u01(uint64_t* s) { return (double)(test_splitmix64(s) >> 11) * 0x1p-53; }

#endif /* MCT_TEST_RANDOM_H */
