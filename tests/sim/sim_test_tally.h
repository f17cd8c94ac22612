/* SPDX-License-Identifier: BSD-3-Clause */
/** @file sim_test_tally.h  The tally the problem tests run into: created or
 * the test fails; and whether the CUDA backend is there to test. */
#ifndef MCT_SIM_TEST_TALLY_H
#define MCT_SIM_TEST_TALLY_H

#include <stdio.h>

#include "mctally/mct.h"
#include "test_assert.h"

/* pair_capacity: sort_reduce's buffer, small so that a batch needs flushes;
 * the other methods ignore it (0 will do). */
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

/* Whether a CUDA tally can be made here; says so and returns 0 when not. */
static inline int sim_test_have_cuda(void) {
    mct_tally_desc_t d;
    mct_tally_desc_init(&d);
    d.backend = MCT_BACKEND_CUDA;
    mct_tally_t probe = NULL;
    if (mct_tally_create(&probe, &d) != MCT_STATUS_SUCCESS) {
        printf("cuda: no GPU here, skipped\n");
        return 0;
    }
    mct_tally_destroy(probe);
    return 1;
}

#endif /* MCT_SIM_TEST_TALLY_H */
