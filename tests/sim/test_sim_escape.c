/* SPDX-License-Identifier: BSD-3-Clause */
/** @file test_sim_escape.c  The escape problem end to end: the fraction against
 * exp(-sigma x) within 4 binomial standard errors for several thicknesses, and
 * exact integer counts equal across methods, types, launch shapes, block sizes
 * and the cpu and emulated backends. */
#include <math.h>
#include <stdio.h>

#include "escape.h"
#include "escape_physics.h"
#include "mctally/mct.h"
#include "sim_test_tally.h"
#include "test_assert.h"

static mct_tally_t make(mct_backend_t backend, mct_method_t method, mct_dtype_t dtype) {
    return sim_test_tally(backend, method, dtype, 1, 0);
}

static mct_escape_result_t run(mct_backend_t backend, mct_method_t method, mct_dtype_t dtype,
                               const mct_escape_params_t* p) {
    mct_tally_t t = make(backend, method, dtype);
    mct_escape_result_t r;
    ASSERT_STATUS(mct_escape_run(p, t, &r), MCT_STATUS_SUCCESS);
    mct_tally_destroy(t);
    return r;
}

/* Independent serial count straight from the generator. */
static double reference_count(const mct_escape_params_t* p) {
    const double p_escape = exp(-p->sigma_per_m * p->thickness_m);
    double count = 0;
    for (int64_t h = 0; h < p->histories; ++h) {
        mct_ctr4x32_t c = {{(uint32_t)h, (uint32_t)((uint64_t)h >> 32), 0, 0}};
        mct_key2x32_t k = {{(uint32_t)p->seed, (uint32_t)(p->seed >> 32)}};
        mct_ctr4x32_t r = mct_philox4x32_10(c, k);
        count += mct_u01_open_open_f64(r.v[0], r.v[1]) < p_escape;
    }
    return count;
}

static void test_fraction_matches_analytic(void) {
    const double thickness[] = {0.0, 1.0, 100.0, 250.0, 10000.0};
    for (size_t i = 0; i < sizeof thickness / sizeof *thickness; ++i) {
        mct_escape_params_t p;
        mct_escape_params_init(&p);
        p.thickness_m = thickness[i];
        p.histories = 200000;
        p.seed = 7 + i;
        mct_escape_result_t r = run(MCT_BACKEND_CPU, MCT_METHOD_ATOMIC, MCT_DTYPE_F64, &p);
        const double sd = sqrt(r.analytic * (1.0 - r.analytic) / (double)p.histories);
        ASSERT_NEAR_F64(r.fraction, r.analytic, 4.0 * sd);
        ASSERT_EQ_F64(r.escapes, reference_count(&p));
        if (r.analytic > 0.01 && r.analytic < 0.99) /* batch SE near the binomial one */
            ASSERT_NEAR_F64(r.std_error, sd, 0.6 * sd);
    }
}

static void test_counts_agree_everywhere(void) {
    mct_escape_params_t p;
    mct_escape_params_init(&p);
    p.histories = 3001;
    p.batches = 3;
    p.seed = 99;
    const double expected = reference_count(&p);
    for (int d = 0; d < MCT_DTYPE_COUNT; ++d) {
        ASSERT_EQ_F64(run(MCT_BACKEND_CPU, MCT_METHOD_ATOMIC, (mct_dtype_t)d, &p).escapes, expected);
        ASSERT_EQ_F64(run(MCT_BACKEND_CPU, MCT_METHOD_REPLICATED, (mct_dtype_t)d, &p).escapes, expected);
    }
    const int blocks[] = {1, 7, 32, 65, 128};
    for (int m = 0; m <= MCT_METHOD_REPLICATED; ++m)
        for (int d = 0; d < MCT_DTYPE_COUNT; ++d)
            for (size_t b = 0; b < sizeof blocks / sizeof *blocks; ++b)
                for (int launch = 0; launch < 2; ++launch) {
                    p.block_size = blocks[b];
                    p.launch = (mct_escape_launch_t)launch;
                    p.chunk = launch ? 500 : 0; /* several chunks per batch too */
                    mct_escape_result_t r = run(MCT_BACKEND_EMULATED, (mct_method_t)m, (mct_dtype_t)d, &p);
                    if (r.escapes != expected)
                        fprintf(stderr, "emulated %s %s block %d launch %d\n", mct_method_name((mct_method_t)m),
                                mct_dtype_name((mct_dtype_t)d), blocks[b], launch);
                    ASSERT_EQ_F64(r.escapes, expected);
                }
}

static void test_bad_parameters(void) {
    mct_tally_t t = make(MCT_BACKEND_CPU, MCT_METHOD_ATOMIC, MCT_DTYPE_I32);
    mct_escape_params_t p;
    mct_escape_result_t r;
    mct_escape_params_init(&p);
    p.thickness_m = -1.0;
    ASSERT_STATUS(mct_escape_run(&p, t, &r), MCT_STATUS_INVALID_VALUE);
    mct_escape_params_init(&p);
    p.sigma_per_m = 0.0;
    ASSERT_STATUS(mct_escape_run(&p, t, &r), MCT_STATUS_INVALID_VALUE);
    mct_escape_params_init(&p);
    p.batches = 0;
    ASSERT_STATUS(mct_escape_run(&p, t, &r), MCT_STATUS_INVALID_VALUE);
    mct_escape_params_init(&p);
    p.histories = 5, p.batches = 6;
    ASSERT_STATUS(mct_escape_run(&p, t, &r), MCT_STATUS_INVALID_VALUE);
    mct_escape_params_init(&p);
    p.thickness_m = NAN;
    ASSERT_STATUS(mct_escape_run(&p, t, &r), MCT_STATUS_INVALID_VALUE);
    /* An i32 bin cannot hold a batch of 2^31 escapes: refused before running. */
    mct_escape_params_init(&p);
    p.histories = INT64_C(3) << 31, p.batches = 1;
    ASSERT_STATUS(mct_escape_run(&p, t, &r), MCT_STATUS_OVERFLOW);
    mct_tally_destroy(t);
    /* Methods beyond Bossler's five are refused, not silently skipped. */
    t = make(MCT_BACKEND_CPU, MCT_METHOD_FIXED, MCT_DTYPE_F64);
    mct_escape_params_init(&p);
    ASSERT_STATUS(mct_escape_run(&p, t, &r), MCT_STATUS_NOT_SUPPORTED);
    mct_tally_destroy(t);
}

int main(void) {
    test_bad_parameters();
    test_fraction_matches_analytic();
    test_counts_agree_everywhere();
    return 0;
}
