/* SPDX-License-Identifier: BSD-3-Clause */
/** @file test_common_status.c  Status names and messages, and the name tables. */
#include "mctally/mct.h"
#include "test_assert.h"

int main(void) {
    ASSERT_STR_EQ(mct_status_name(MCT_STATUS_SUCCESS), "SUCCESS");
    ASSERT_STR_EQ(mct_status_name(MCT_STATUS_OVERFLOW), "OVERFLOW");
    ASSERT_STR_EQ(mct_status_name((mct_status_t)12345), "UNKNOWN_STATUS");
    ASSERT_STR_EQ(mct_status_string(MCT_STATUS_NOT_SUPPORTED), "the method cannot serve this value type or backend");
    ASSERT_EQ_I64(MCT_STATUS_CUDA_ERROR, 202);

    mct_method_t m;
    mct_dtype_t d;
    mct_backend_t b;
    ASSERT_STATUS(mct_method_from_name("block_reduce", &m), MCT_STATUS_SUCCESS);
    ASSERT_EQ_I64(m, MCT_METHOD_BLOCK_REDUCE);
    ASSERT_STATUS(mct_method_from_name("blockreduce", &m), MCT_STATUS_UNKNOWN_METHOD);
    ASSERT_STATUS(mct_dtype_from_name("u64", &d), MCT_STATUS_SUCCESS);
    ASSERT_EQ_I64(d, MCT_DTYPE_U64);
    ASSERT_STATUS(mct_dtype_from_name("f16", &d), MCT_STATUS_UNKNOWN_DTYPE);
    ASSERT_STATUS(mct_backend_from_name("emulated", &b), MCT_STATUS_SUCCESS);
    ASSERT_STATUS(mct_backend_from_name(NULL, &b), MCT_STATUS_NULL_POINTER);
    for (int i = 0; i < MCT_METHOD_COUNT; ++i) {
        ASSERT_STATUS(mct_method_from_name(mct_method_name((mct_method_t)i), &m), MCT_STATUS_SUCCESS);
        ASSERT_EQ_I64(m, i);
    }
    /* The CPU has no warps or shared memory. */
    ASSERT_STATUS(mct_method_supports(MCT_METHOD_WARP_REDUCE, MCT_DTYPE_F64, MCT_BACKEND_CPU), MCT_STATUS_NOT_SUPPORTED);
    ASSERT_STATUS(mct_method_supports(MCT_METHOD_WARP_REDUCE, MCT_DTYPE_F64, MCT_BACKEND_EMULATED), MCT_STATUS_SUCCESS);
    ASSERT_STATUS(mct_method_supports(MCT_METHOD_REPLICATED, MCT_DTYPE_I32, MCT_BACKEND_CPU), MCT_STATUS_SUCCESS);
    ASSERT_EQ_I64(mct_method_determinism(MCT_METHOD_ATOMIC, MCT_DTYPE_I32), MCT_BITWISE);
    ASSERT_EQ_I64(mct_method_determinism(MCT_METHOD_ATOMIC, MCT_DTYPE_F32), MCT_NOT_GUARANTEED);
    ASSERT_EQ_I64(mct_method_determinism(MCT_METHOD_REPLICATED, MCT_DTYPE_F64), MCT_RUN_TO_RUN);
    return 0;
}
