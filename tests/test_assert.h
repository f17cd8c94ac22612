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

#define MCT__TEST_FAIL(fmt, ...)                                                   \
    do {                                                                           \
        fprintf(stderr, "%s:%d: assertion failed: " fmt "\n", __FILE__, __LINE__,  \
                __VA_ARGS__);                                                      \
        exit(1);                                                                   \
    } while (0)

#define MCT__ASSERT_CMP(type, fmt, a, op, b)                                       \
    do {                                                                           \
        type mct__a = (type)(a), mct__b = (type)(b);                               \
        if (!(mct__a op mct__b))                                                   \
            MCT__TEST_FAIL("%s %s %s (%" fmt " vs %" fmt ")", #a, #op, #b, mct__a, \
                           mct__b);                                                \
    } while (0)

#define ASSERT_TRUE(c)                                                             \
    do {                                                                           \
        if (!(c)) MCT__TEST_FAIL("%s", #c);                                        \
    } while (0)
#define ASSERT_EQ_I64(a, b) MCT__ASSERT_CMP(int64_t, PRId64, a, ==, b)
#define ASSERT_NE_I64(a, b) MCT__ASSERT_CMP(int64_t, PRId64, a, !=, b)
#define ASSERT_LE_I64(a, b) MCT__ASSERT_CMP(int64_t, PRId64, a, <=, b)
#define ASSERT_EQ_U64(a, b) MCT__ASSERT_CMP(uint64_t, PRIu64, a, ==, b)
#define ASSERT_EQ_HEX32(a, b) MCT__ASSERT_CMP(uint32_t, "08" PRIx32, a, ==, b)
#define ASSERT_EQ_F64(a, b) MCT__ASSERT_CMP(double, ".17g", a, ==, b)
#define ASSERT_LE_F64(a, b) MCT__ASSERT_CMP(double, ".17g", a, <=, b)
#define ASSERT_LT_F64(a, b) MCT__ASSERT_CMP(double, ".17g", a, <, b)
/* |a - b| <= tol, printing all three. */
#define ASSERT_NEAR_F64(a, b, tol)                                                 \
    do {                                                                           \
        double mct__a = (a), mct__b = (b), mct__t = (tol);                         \
        if (!(fabs(mct__a - mct__b) <= mct__t))                                    \
            MCT__TEST_FAIL("|%s - %s| <= %s (%.17g vs %.17g, tol %.3g)", #a, #b,   \
                           #tol, mct__a, mct__b, mct__t);                          \
    } while (0)
#define ASSERT_STATUS(st, expected)                                                \
    do {                                                                           \
        int mct__s = (int)(st), mct__e = (int)(expected);                          \
        if (mct__s != mct__e)                                                      \
            MCT__TEST_FAIL("%s returned %d, expected %s (%d)", #st, mct__s,        \
                           #expected, mct__e);                                     \
    } while (0)
#define ASSERT_STR_EQ(a, b)                                                        \
    do {                                                                           \
        const char *mct__a = (a), *mct__b = (b);                                   \
        if (strcmp(mct__a, mct__b) != 0)                                           \
            MCT__TEST_FAIL("%s == %s (\"%s\" vs \"%s\")", #a, #b, mct__a, mct__b); \
    } while (0)

#endif /* MCT_TEST_ASSERT_H */
