/* SPDX-License-Identifier: BSD-3-Clause */
/** @file sim_test_tally.h  The tally the problem tests run into: created or
 * the test fails. */
#ifndef MCT_SIM_TEST_TALLY_H
#define MCT_SIM_TEST_TALLY_H

#include "mctally/mct.h"
#include "test_assert.h"

/* pair_capacity: sort_reduce's buffer, small so that a batch needs flushes. */
static inline mct_tally_t sim_test_tally(mct_backend_t backend, mct_method_t method, mct_dtype_t dtype, int64_t bins,
                                         int64_t pair_capacity) {
    mct_tally_desc_t d;
    mct_tally_desc_init(&d);
    d.backend = backend, d.method = method, d.dtype = dtype, d.bins = bins;
    d.pair_capacity = pair_capacity;
    mct_tally_t t = NULL;
    ASSERT_STATUS(mct_tally_create(&t, &d), MCT_STATUS_SUCCESS);
    return t;
}

#endif /* MCT_SIM_TEST_TALLY_H */
