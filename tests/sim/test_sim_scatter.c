/* SPDX-License-Identifier: BSD-3-Clause */
/** @file test_sim_scatter.c  Westphal's scatter workload end to end: every
 * method the cpu and emulated backends serve, every key pattern, widths 1 and
 * 9; every bin within the bound of its type and method from the host
 * reference in long double; the total within statistics of n x width / 2;
 * fixed-point bins bitwise equal on every backend; bad parameters refused
 * with the right status. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mctally/mct.h"
#include "scatter.h"
#include "sim_test_tally.h"
#include "test_assert.h"

static int runs_checked;
static double worst_over_bound;

/* sort_reduce's pair buffer: several flushes per batch. */
static mct_tally_t make(mct_backend_t backend, mct_method_t method, mct_dtype_t dtype, int64_t bins) {
    return sim_test_tally(backend, method, dtype, bins, 5000);
}

/* Runs with the bin-by-bin check and returns the result; the bins go to
 * `sums` when it is not NULL. The total is a sum of n x width independent
 * U(0, 1] values: z is standard normal to a good approximation, and |z| < 5
 * fails by chance with probability 6e-7. */
static mct_scatter_result_t run_checked(mct_backend_t backend, mct_method_t method, mct_dtype_t dtype,
                                        const mct_scatter_params_t* p, double* sums) {
    mct_tally_t t = make(backend, method, dtype, p->bins * p->width);
    mct_scatter_result_t r;
    mct_status_t st = mct_scatter_run(p, t, &r);
    if (st || !r.check_passed)
        fprintf(stderr, "%s %s %s %s width %d: %s, worst bin %lld at %.3g x its bound (rel. dev. %.3g)\n",
                mct_backend_name(backend), mct_method_name(method), mct_dtype_name(dtype),
                mct_scatter_pattern_name(p->pattern), p->width, mct_status_name(st), (long long)r.worst_bin,
                r.max_dev_over_bound, r.max_rel_dev);
    ASSERT_STATUS(st, MCT_STATUS_SUCCESS);
    ASSERT_TRUE(r.checked);
    ASSERT_TRUE(r.check_passed);
    ASSERT_LE_F64(r.max_dev_over_bound, 1.0);
    ASSERT_EQ_I64(r.updates, p->n * p->width);
    ASSERT_EQ_F64(r.expected, 0.5 * (double)p->n * p->width);
    ASSERT_LT_F64(fabs(r.z_score), 5.0);
    if (sums) ASSERT_STATUS(mct_tally_sums(t, sums), MCT_STATUS_SUCCESS);
    mct_tally_destroy(t);
    ++runs_checked;
    if (r.max_dev_over_bound > worst_over_bound) worst_over_bound = r.max_dev_over_bound;
    return r;
}

static void params(mct_scatter_params_t* p, int64_t n, int64_t bins, int width, mct_scatter_pattern_t pattern) {
    mct_scatter_params_init(p);
    p->n = n, p->bins = bins, p->width = width, p->pattern = pattern;
    p->batches = 3;
    p->seed = 5 + (uint64_t)pattern;
    p->check = MCT_SCATTER_CHECK_ALWAYS;
}

/* Every method of the cpu and emulated backends, each pattern, width 1 and 9,
 * several chunks per batch; the fixed bins equal bit for bit. */
static void test_methods_patterns_widths(void) {
    const int widths[2] = {1, 9};
    const mct_dtype_t dtypes[2] = {MCT_DTYPE_F32, MCT_DTYPE_F64};
    for (int pat = 0; pat < MCT_SCATTER_PATTERN_COUNT; ++pat)
        for (int w = 0; w < 2; ++w) {
            mct_scatter_params_t p;
            params(&p, 1500, 40, widths[w], (mct_scatter_pattern_t)pat);
            p.chunk = 400;
            const int64_t nbins = p.bins * p.width;
            double* fixed_cpu = malloc((size_t)nbins * sizeof(double));
            double* fixed_emu = malloc((size_t)nbins * sizeof(double));
            ASSERT_TRUE(fixed_cpu && fixed_emu);
            for (int d = 0; d < 2; ++d)
                for (int m = 0; m < MCT_METHOD_COUNT; ++m) {
                    const mct_method_t method = (mct_method_t)m;
                    if (mct_method_supports(method, dtypes[d], MCT_BACKEND_CPU) == MCT_STATUS_SUCCESS)
                        run_checked(MCT_BACKEND_CPU, method, dtypes[d], &p, m == MCT_METHOD_FIXED ? fixed_cpu : NULL);
                    if (mct_method_supports(method, dtypes[d], MCT_BACKEND_EMULATED) == MCT_STATUS_SUCCESS)
                        run_checked(MCT_BACKEND_EMULATED, method, dtypes[d], &p, m == MCT_METHOD_FIXED ? fixed_emu : NULL);
                    if (m == MCT_METHOD_FIXED) ASSERT_TRUE(memcmp(fixed_cpu, fixed_emu, (size_t)nbins * sizeof(double)) == 0);
                }
            free(fixed_cpu);
            free(fixed_emu);
        }
}

/* The check can fail: on a hot bin an f32 tally is off by far more than the
 * double bound (about 1e-16 relative) allows, while f64 stays within it. */
static void test_check_discriminates(void) {
    mct_scatter_params_t p;
    params(&p, 40000, 16, 1, MCT_SCATTER_HOT);
    p.batches = 1;
    const mct_scatter_result_t r32 = run_checked(MCT_BACKEND_CPU, MCT_METHOD_ATOMIC, MCT_DTYPE_F32, &p, NULL);
    const mct_scatter_result_t r64 = run_checked(MCT_BACKEND_CPU, MCT_METHOD_ATOMIC, MCT_DTYPE_F64, &p, NULL);
    ASSERT_TRUE(r32.max_rel_dev > 1e-9);
    ASSERT_LT_F64(r64.max_rel_dev, 1e-12);
    mct_tally_desc_t d64;
    mct_tally_desc_init(&d64);
    /* The hot bin holds about 20000 values summing to about 10000. */
    ASSERT_LT_F64(mct_scatter_bin_bound(&d64, 20000, 1e4, 1) / 1e4, 1e-11);
    ASSERT_TRUE(r32.max_rel_dev > mct_scatter_bin_bound(&d64, 30000, 1.0, 1));
}

/* AUTO compares bins for small n; NEVER does not. */
static void test_check_modes(void) {
    mct_scatter_params_t p;
    params(&p, 1000, 10, 2, MCT_SCATTER_UNIFORM);
    mct_tally_t t = make(MCT_BACKEND_CPU, MCT_METHOD_ATOMIC, MCT_DTYPE_F64, 20);
    mct_scatter_result_t r;
    p.check = MCT_SCATTER_CHECK_AUTO;
    ASSERT_STATUS(mct_scatter_run(&p, t, &r), MCT_STATUS_SUCCESS);
    ASSERT_TRUE(r.checked && r.check_passed);
    mct_tally_destroy(t);
    t = make(MCT_BACKEND_CPU, MCT_METHOD_ATOMIC, MCT_DTYPE_F64, 20);
    p.check = MCT_SCATTER_CHECK_NEVER;
    ASSERT_STATUS(mct_scatter_run(&p, t, &r), MCT_STATUS_SUCCESS);
    ASSERT_TRUE(!r.checked && r.check_passed);
    mct_tally_destroy(t);
}

/* The sorted pattern puts runs of n/B particles in ascending cells, so each
 * cell gets exactly n/B particles when B divides n. */
static void test_sorted_counts(void) {
    mct_scatter_params_t p;
    params(&p, 1200, 12, 1, MCT_SCATTER_SORTED);
    for (int64_t i = 0; i < p.n; ++i)
        ASSERT_EQ_I64(mct_scatter_key(MCT_SCATTER_SORTED, 12, 1200, p.seed, (uint64_t)i), i / 100);
}

static void test_cuda_when_present(void) {
    if (!sim_test_have_cuda()) return;
    for (int pat = 0; pat < MCT_SCATTER_PATTERN_COUNT; ++pat) {
        mct_scatter_params_t p;
        params(&p, 200000, 1000, 9, (mct_scatter_pattern_t)pat);
        double* cpu = malloc(9000 * sizeof(double));
        double* gpu = malloc(9000 * sizeof(double));
        ASSERT_TRUE(cpu && gpu);
        run_checked(MCT_BACKEND_CPU, MCT_METHOD_FIXED, MCT_DTYPE_F64, &p, cpu);
        for (int m = 0; m < MCT_METHOD_COUNT; ++m)
            for (int dt = MCT_DTYPE_F32; dt <= MCT_DTYPE_F64; ++dt) {
                if (mct_method_supports((mct_method_t)m, (mct_dtype_t)dt, MCT_BACKEND_CUDA) != MCT_STATUS_SUCCESS)
                    continue;
                /* 9000 f64 bins do not fit in shared memory: refused, not wrong. */
                if (m == MCT_METHOD_SHARED && dt == MCT_DTYPE_F64) {
                    mct_tally_t t = make(MCT_BACKEND_CUDA, MCT_METHOD_SHARED, MCT_DTYPE_F64, 9000);
                    ASSERT_STATUS(mct_scatter_check(&p, t), MCT_STATUS_NOT_SUPPORTED);
                    mct_tally_destroy(t);
                    continue;
                }
                run_checked(MCT_BACKEND_CUDA, (mct_method_t)m, (mct_dtype_t)dt, &p,
                            m == MCT_METHOD_FIXED && dt == MCT_DTYPE_F64 ? gpu : NULL);
            }
        ASSERT_TRUE(memcmp(cpu, gpu, 9000 * sizeof(double)) == 0);
        free(cpu);
        free(gpu);
    }
}

static void test_pattern_names(void) {
    mct_scatter_pattern_t pat;
    for (int i = 0; i < MCT_SCATTER_PATTERN_COUNT; ++i) {
        ASSERT_STATUS(mct_scatter_pattern_from_name(mct_scatter_pattern_name((mct_scatter_pattern_t)i), &pat),
                      MCT_STATUS_SUCCESS);
        ASSERT_EQ_I64(pat, i);
    }
    ASSERT_STATUS(mct_scatter_pattern_from_name("zipf", &pat), MCT_STATUS_INVALID_VALUE);
    ASSERT_STATUS(mct_scatter_pattern_from_name(NULL, &pat), MCT_STATUS_NULL_POINTER);
    ASSERT_STR_EQ(mct_scatter_pattern_name(MCT_SCATTER_PATTERN_COUNT), "invalid");
}

static void expect_invalid(const mct_scatter_params_t* p, mct_tally_t t, const char* what) {
    mct_scatter_result_t r;
    if (mct_scatter_check(p, t) != MCT_STATUS_INVALID_VALUE) fprintf(stderr, "not refused: %s\n", what);
    ASSERT_STATUS(mct_scatter_run(p, t, &r), MCT_STATUS_INVALID_VALUE);
}

static void test_bad_parameters(void) {
    mct_tally_t t = make(MCT_BACKEND_CPU, MCT_METHOD_ATOMIC, MCT_DTYPE_F64, 1000);
    mct_scatter_params_t p;
    mct_scatter_result_t r;
    mct_scatter_params_init(&p);
    ASSERT_STATUS(mct_scatter_run(NULL, t, &r), MCT_STATUS_NULL_POINTER);
    ASSERT_STATUS(mct_scatter_run(&p, NULL, &r), MCT_STATUS_NULL_POINTER);
    ASSERT_STATUS(mct_scatter_run(&p, t, NULL), MCT_STATUS_NULL_POINTER);
    mct_scatter_params_init(&p), p.n = 5, p.batches = 6;
    expect_invalid(&p, t, "fewer particles than batches");
    mct_scatter_params_init(&p), p.batches = 0;
    expect_invalid(&p, t, "no batch");
    mct_scatter_params_init(&p), p.bins = 0;
    expect_invalid(&p, t, "no cell");
    mct_scatter_params_init(&p), p.width = 0;
    expect_invalid(&p, t, "width 0");
    mct_scatter_params_init(&p), p.width = MCT_SCATTER_MAX_WIDTH + 1, p.bins = 1;
    expect_invalid(&p, t, "width too large");
    mct_scatter_params_init(&p), p.bins = INT64_C(1) << 30, p.width = 4;
    expect_invalid(&p, t, "B x width above 2^31");
    mct_scatter_params_init(&p), p.pattern = MCT_SCATTER_PATTERN_COUNT;
    expect_invalid(&p, t, "unknown pattern");
    mct_scatter_params_init(&p), p.check = (mct_scatter_check_t)3;
    expect_invalid(&p, t, "unknown check mode");
    mct_scatter_params_init(&p), p.chunk = -1;
    expect_invalid(&p, t, "negative chunk");
    mct_scatter_params_init(&p), p.width = 2;
    expect_invalid(&p, t, "the tally has B bins, not 2B");
    mct_scatter_params_init(&p), p.pattern = MCT_SCATTER_SORTED, p.n = INT64_C(1) << 62, p.bins = 8, p.width = 125;
    expect_invalid(&p, t, "sorted keys: n x B above 2^64");
    mct_tally_destroy(t);
    /* The values are fractions: integer tallies are refused. */
    t = make(MCT_BACKEND_CPU, MCT_METHOD_ATOMIC, MCT_DTYPE_I32, 1000);
    mct_scatter_params_init(&p);
    ASSERT_STATUS(mct_scatter_run(&p, t, &r), MCT_STATUS_NOT_SUPPORTED);
    mct_tally_destroy(t);
    /* sort_reduce must hold one particle's values between flushes. */
    t = sim_test_tally(MCT_BACKEND_CPU, MCT_METHOD_SORT_REDUCE, MCT_DTYPE_F64, 9000, 8);
    mct_scatter_params_init(&p), p.width = 9;
    expect_invalid(&p, t, "pair buffer below one particle");
    mct_tally_destroy(t);
    /* shared holds the bins in a block's 48 KiB: 9000 doubles do not fit. */
    t = make(MCT_BACKEND_EMULATED, MCT_METHOD_SHARED, MCT_DTYPE_F64, 9000);
    ASSERT_STATUS(mct_scatter_run(&p, t, &r), MCT_STATUS_NOT_SUPPORTED);
    mct_tally_destroy(t);
}

int main(void) {
    test_pattern_names();
    test_bad_parameters();
    test_sorted_counts();
    test_check_modes();
    test_check_discriminates();
    test_methods_patterns_widths();
    test_cuda_when_present();
    printf("%d runs checked bin by bin; largest deviation %.3g of its bound\n", runs_checked, worst_over_bound);
    return 0;
}
