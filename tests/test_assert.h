/* SPDX-License-Identifier: BSD-3-Clause */
/** @file test_assert.h  Typed assertions for mctally's tests: each failure prints
 * both operands, the file and the line, and exits non-zero so ctest marks it. */
#ifndef MCT_TEST_ASSERT_H
#define MCT_TEST_ASSERT_H

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TEST_FAIL(fmt, ...)                                                   \
    do {                                                                           \
        fprintf(stderr, "%s:%d: assertion failed: " fmt "\n", __FILE__, __LINE__,  \
                __VA_ARGS__);                                                      \
        exit(1);                                                                   \
    } while (0)

#define TEST_ASSERT_CMP(type, fmt, a, op, b)                                       \
    do {                                                                           \
        type ta_a = (type)(a), ta_b = (type)(b);                               \
        if (!(ta_a op ta_b))                                                   \
            TEST_FAIL("%s %s %s (%" fmt " vs %" fmt ")", #a, #op, #b, ta_a, \
                           ta_b);                                                \
    } while (0)

#define ASSERT_TRUE(c)                                                             \
    do {                                                                           \
        if (!(c)) TEST_FAIL("%s", #c);                                        \
    } while (0)
#define ASSERT_EQ_I64(a, b) TEST_ASSERT_CMP(int64_t, PRId64, a, ==, b)
#define ASSERT_NE_I64(a, b) TEST_ASSERT_CMP(int64_t, PRId64, a, !=, b)
#define ASSERT_LE_I64(a, b) TEST_ASSERT_CMP(int64_t, PRId64, a, <=, b)
#define ASSERT_EQ_U64(a, b) TEST_ASSERT_CMP(uint64_t, PRIu64, a, ==, b)
#define ASSERT_EQ_HEX32(a, b) TEST_ASSERT_CMP(uint32_t, "08" PRIx32, a, ==, b)
#define ASSERT_EQ_F64(a, b) TEST_ASSERT_CMP(double, ".17g", a, ==, b)
#define ASSERT_LE_F64(a, b) TEST_ASSERT_CMP(double, ".17g", a, <=, b)
#define ASSERT_LT_F64(a, b) TEST_ASSERT_CMP(double, ".17g", a, <, b)
/* |a - b| <= tol, printing all three. */
#define ASSERT_NEAR_F64(a, b, tol)                                                 \
    do {                                                                           \
        double ta_a = (a), ta_b = (b), ta_t = (tol);                         \
        if (!(fabs(ta_a - ta_b) <= ta_t))                                    \
            TEST_FAIL("|%s - %s| <= %s (%.17g vs %.17g, tol %.3g)", #a, #b,   \
                           #tol, ta_a, ta_b, ta_t);                          \
    } while (0)
#define ASSERT_STATUS(st, expected)                                                \
    do {                                                                           \
        int ta_s = (int)(st), ta_e = (int)(expected);                          \
        if (ta_s != ta_e)                                                      \
            TEST_FAIL("%s returned %d, expected %s (%d)", #st, ta_s,        \
                           #expected, ta_e);                                     \
    } while (0)
#define ASSERT_STR_EQ(a, b)                                                        \
    do {                                                                           \
        const char *ta_a = (a), *ta_b = (b);                                   \
        if (strcmp(ta_a, ta_b) != 0)                                           \
            TEST_FAIL("%s == %s (\"%s\" vs \"%s\")", #a, #b, ta_a, ta_b); \
    } while (0)

#endif /* MCT_TEST_ASSERT_H */
