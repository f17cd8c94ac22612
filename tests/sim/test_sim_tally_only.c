/* SPDX-License-Identifier: BSD-3-Clause */
/** @file test_sim_tally_only.c  Liu's tally-only problem end to end: the total
 * against N x collisions x mean within statistics, every bin against an
 * independent serial sum in long double within the error bound of the tally's
 * type and method, on every method the cpu and emulated backends serve and
 * both launch shapes; fixed-point totals bitwise equal on every backend; bad
 * parameters refused with the right status. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "mctally/mct.h"
#include "scatter.h"
#include "tally_only.h"
#include "tally_only_physics.h"
#include "sim_test_tally.h"
#include "test_assert.h"

static int runs_checked;

/* sort_reduce's pair buffer: many flushes per batch. */
static mct_tally_t make(mct_backend_t backend, mct_method_t method, mct_dtype_t dtype, int64_t bins) {
    return sim_test_tally(backend, method, dtype, bins, 1000);
}

/* Per-bin sums and counts straight from the physics functions, serially in
 * long double: the reference the tallies are held to. */
typedef struct {
    long double* sums;
    int64_t* counts;
} reference_t;

static reference_t reference(const mct_tally_only_params_t* p) {
    reference_t r = {calloc((size_t)p->bins, sizeof(long double)), calloc((size_t)p->bins, sizeof(int64_t))};
    ASSERT_TRUE(r.sums && r.counts);
    for (int64_t i = 0; i < p->particles; ++i)
        for (int j = 0; j < p->collisions; ++j) {
            const mct_ctr4x32_t w = mct_tally_only_draw(p->seed, (uint64_t)i, (uint32_t)(j / 2));
            const uint32_t bin = mct_tally_only_bin(j % 2 ? w.v[2] : w.v[0], (uint32_t)p->bins);
            r.sums[bin] += mct_tally_only_energy(j % 2 ? w.v[3] : w.v[1], (float)p->mean_energy);
            r.counts[bin] += 1;
        }
    return r;
}

/* Runs the problem and holds every bin to the reference within the bound of
 * the tally's type and method (mct_scatter_bin_bound: deposits are positive,
 * so the bin's exact sum is its sum of magnitudes). Returns the total. */
static double run_checked(mct_backend_t backend, mct_method_t method, mct_dtype_t dtype,
                          const mct_tally_only_params_t* p, const reference_t* ref, double* bins_out) {
    mct_tally_t t = make(backend, method, dtype, p->bins);
    mct_tally_only_result_t r;
    mct_status_t st = mct_tally_only_run(p, t, &r);
    if (st) fprintf(stderr, "%s %s %s: %s\n", mct_backend_name(backend), mct_method_name(method), mct_dtype_name(dtype),
                    mct_status_name(st));
    ASSERT_STATUS(st, MCT_STATUS_SUCCESS);
    mct_tally_desc_t d;
    mct_tally_get_desc(t, &d);
    double* sums = malloc((size_t)p->bins * sizeof *sums);
    ASSERT_TRUE(sums);
    ASSERT_STATUS(mct_tally_sums(t, sums), MCT_STATUS_SUCCESS);
    for (int64_t k = 0; k < p->bins; ++k) {
        const double exact = (double)ref->sums[k];
        const double bound = mct_scatter_bin_bound(&d, ref->counts[k], exact, p->batches);
        const double dev = fabs((double)((long double)sums[k] - ref->sums[k]));
        if (!(dev <= bound))
            fprintf(stderr, "%s %s %s launch %d bin %lld: %.17g vs %.17g (bound %.3g)\n", mct_backend_name(backend),
                    mct_method_name(method), mct_dtype_name(dtype), (int)p->launch, (long long)k, sums[k], exact,
                    bound);
        ASSERT_LE_F64(dev, bound);
        if (bins_out) bins_out[k] = sums[k];
    }
    ASSERT_EQ_I64(r.updates, p->particles * p->collisions);
    ++runs_checked;
    free(sums);
    mct_tally_destroy(t);
    return r.total;
}

/* Large enough for the statistics to mean something; the CPU does it in a
 * fraction of a second. The total is a sum of D independent exponential
 * deposits, so z = (total - D m) / (m sqrt(D)) is standard normal to a good
 * approximation: |z| < 5 fails by chance with probability 6e-7. The same
 * holds for each bin's own z (8 bins: 5e-6). The batch estimate of the
 * standard error, from 20 batches, has a relative spread of 1/sqrt(38) = 0.16:
 * within 0.5 of the analytic one except with probability below 1e-3 (a
 * chi distribution with 19 degrees of freedom), and the seed is fixed. */
static void test_statistics(void) {
    mct_tally_only_params_t p;
    mct_tally_only_params_init(&p);
    p.particles = 400000;
    p.batches = 20;
    p.seed = 2018;
    mct_tally_t t = make(MCT_BACKEND_CPU, MCT_METHOD_ATOMIC, MCT_DTYPE_F64, 8);
    mct_tally_only_result_t r;
    ASSERT_STATUS(mct_tally_only_run(&p, t, &r), MCT_STATUS_SUCCESS);
    mct_tally_destroy(t);
    const double m = (double)(float)0.1, deposits = 4e6;
    ASSERT_EQ_F64(r.expected, deposits * m);
    ASSERT_NEAR_F64(r.std_error, m * sqrt(deposits), 1e-12);
    ASSERT_LT_F64(fabs(r.z_score), 5.0);
    ASSERT_NEAR_F64(r.total, r.expected, 5.0 * r.std_error);
    ASSERT_LT_F64(r.max_bin_z, 5.0);
    ASSERT_NEAR_F64(r.batch_std_error, r.std_error, 0.5 * r.std_error);
    ASSERT_TRUE(r.seconds > 0.0 && r.updates_per_second > 0.0);
    printf("statistics: total %.6f expected %.6f z %.2f, batch SE %.4f vs %.4f, max bin z %.2f\n", r.total,
           r.expected, r.z_score, r.batch_std_error, r.std_error, r.max_bin_z);
}

/* A biased deposit would be caught: the total of a run with another mean is
 * far outside the first run's statistics (the test of the test). */
static void test_wrong_mean_detected(void) {
    mct_tally_only_params_t p;
    mct_tally_only_params_init(&p);
    p.particles = 100000;
    mct_tally_t t = make(MCT_BACKEND_CPU, MCT_METHOD_ATOMIC, MCT_DTYPE_F64, 8);
    mct_tally_only_result_t r;
    p.mean_energy = 0.101; /* 1 % high: 10 standard errors at 1e6 deposits */
    ASSERT_STATUS(mct_tally_only_run(&p, t, &r), MCT_STATUS_SUCCESS);
    mct_tally_destroy(t);
    ASSERT_TRUE(fabs((r.total - 1e6 * 0.1) / (0.1 * 1e3)) > 5.0);
}

/* Every method of each backend, odd collisions and a bin count that is not a
 * power of two, several chunks and batches; fixed-point bins bitwise equal
 * everywhere. */
static void test_methods_and_backends(void) {
    mct_tally_only_params_t p;
    mct_tally_only_params_init(&p);
    p.particles = 2500;
    p.collisions = 7;
    p.bins = 5;
    p.batches = 3;
    p.seed = 77;
    reference_t ref = reference(&p);
    double fixed_cpu[5], fixed_other[5];
    const mct_dtype_t dtypes[2] = {MCT_DTYPE_F32, MCT_DTYPE_F64};
    for (int d = 0; d < 2; ++d) {
        p.chunk = 700;
        for (int m = 0; m < MCT_METHOD_COUNT; ++m)
            if (mct_method_supports((mct_method_t)m, dtypes[d], MCT_BACKEND_CPU) == MCT_STATUS_SUCCESS)
                run_checked(MCT_BACKEND_CPU, (mct_method_t)m, dtypes[d], &p, &ref, m == MCT_METHOD_FIXED ? fixed_cpu : NULL);
        for (int shape = 0; shape < 4; ++shape) { /* both launches, direct and buffered deposits */
            const int launch = shape & 1;
            p.launch = (mct_tally_only_launch_t)launch;
            p.deposit = shape < 2 ? MCT_SIM_DEPOSIT_DIRECT : MCT_SIM_DEPOSIT_BUFFERED;
            p.chunk = launch ? 0 : 900;
            for (int m = 0; m < MCT_METHOD_COUNT; ++m) {
                if (mct_method_supports((mct_method_t)m, dtypes[d], MCT_BACKEND_EMULATED) != MCT_STATUS_SUCCESS) continue;
                run_checked(MCT_BACKEND_EMULATED, (mct_method_t)m, dtypes[d], &p, &ref,
                            m == MCT_METHOD_FIXED ? fixed_other : NULL);
                if (m == MCT_METHOD_FIXED)
                    for (int k = 0; k < 5; ++k) ASSERT_EQ_F64(fixed_other[k], fixed_cpu[k]);
            }
        }
        p.deposit = MCT_SIM_DEPOSIT_AUTO;
    }
    free(ref.sums);
    free(ref.counts);
}

/* The same seed on the GPU, where there is one: fixed bins bitwise equal to
 * the CPU's. */
static void test_cuda_when_present(void) {
    if (!sim_test_have_cuda()) return;
    mct_tally_only_params_t p;
    mct_tally_only_params_init(&p);
    p.particles = 300000;
    p.batches = 4;
    reference_t ref = reference(&p);
    double cpu[8], gpu[8];
    run_checked(MCT_BACKEND_CPU, MCT_METHOD_FIXED, MCT_DTYPE_F64, &p, &ref, cpu);
    for (int launch = 0; launch < 2; ++launch) {
        p.launch = (mct_tally_only_launch_t)launch;
        for (int m = 0; m < MCT_METHOD_COUNT; ++m)
            for (int dt = MCT_DTYPE_F32; dt <= MCT_DTYPE_F64; ++dt)
                if (mct_method_supports((mct_method_t)m, (mct_dtype_t)dt, MCT_BACKEND_CUDA) == MCT_STATUS_SUCCESS)
                    run_checked(MCT_BACKEND_CUDA, (mct_method_t)m, (mct_dtype_t)dt, &p, &ref,
                                m == MCT_METHOD_FIXED && dt == MCT_DTYPE_F64 ? gpu : NULL);
        for (int k = 0; k < 8; ++k) ASSERT_EQ_F64(gpu[k], cpu[k]);
    }
    free(ref.sums);
    free(ref.counts);
}

static void test_bad_parameters(void) {
    mct_tally_t t = make(MCT_BACKEND_CPU, MCT_METHOD_ATOMIC, MCT_DTYPE_F64, 8);
    mct_tally_only_params_t p;
    mct_tally_only_result_t r;
    mct_tally_only_params_init(&p);
    ASSERT_STATUS(mct_tally_only_run(NULL, t, &r), MCT_STATUS_NULL_POINTER);
    ASSERT_STATUS(mct_tally_only_run(&p, NULL, &r), MCT_STATUS_NULL_POINTER);
    ASSERT_STATUS(mct_tally_only_run(&p, t, NULL), MCT_STATUS_NULL_POINTER);
    const struct {
        int64_t particles, batches, bins;
        int collisions, launch;
        double mean;
    } bad[] = {
        {5, 6, 8, 10, 0, 0.1},         /* fewer particles than batches */
        {10, 0, 8, 10, 0, 0.1},        /* no batch */
        {10, 1, 8, 0, 0, 0.1},         /* no collision */
        {10, 1, 8, 1000001, 0, 0.1},   /* too many collisions */
        {10, 1, 9, 10, 0, 0.1},        /* the tally has 8 bins */
        {10, 1, 0, 10, 0, 0.1},        /* no bin */
        {10, 1, 8, 10, 0, 0.0},        /* mean energy 0 */
        {10, 1, 8, 10, 0, -0.1},       /* negative mean */
        {10, 1, 8, 10, 0, NAN},        /* not a number */
        {10, 1, 8, 10, 0, INFINITY},   /* infinite */
        {10, 1, 8, 10, 2, 0.1},        /* unknown launch */
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; ++i) {
        mct_tally_only_params_init(&p);
        p.particles = bad[i].particles, p.batches = bad[i].batches, p.bins = bad[i].bins;
        p.collisions = bad[i].collisions, p.launch = (mct_tally_only_launch_t)bad[i].launch, p.mean_energy = bad[i].mean;
        if (mct_tally_only_check(&p, t) != MCT_STATUS_INVALID_VALUE) fprintf(stderr, "bad case %zu\n", i);
        ASSERT_STATUS(mct_tally_only_run(&p, t, &r), MCT_STATUS_INVALID_VALUE);
    }
    mct_tally_only_params_init(&p);
    p.chunk = -1;
    ASSERT_STATUS(mct_tally_only_run(&p, t, &r), MCT_STATUS_INVALID_VALUE);
    mct_tally_destroy(t);
    /* Deposits are energies: integer tallies are refused, not rounded. */
    mct_tally_only_params_init(&p);
    t = make(MCT_BACKEND_CPU, MCT_METHOD_ATOMIC, MCT_DTYPE_U64, 8);
    ASSERT_STATUS(mct_tally_only_run(&p, t, &r), MCT_STATUS_NOT_SUPPORTED);
    mct_tally_destroy(t);
    /* sort_reduce must hold at least one particle's deposits between flushes. */
    t = sim_test_tally(MCT_BACKEND_CPU, MCT_METHOD_SORT_REDUCE, MCT_DTYPE_F64, 8, 9);
    ASSERT_STATUS(mct_tally_only_run(&p, t, &r), MCT_STATUS_INVALID_VALUE);
    mct_tally_destroy(t);
    /* shared holds the bins in a block's 48 KiB: 8192 doubles do not fit. */
    t = make(MCT_BACKEND_EMULATED, MCT_METHOD_SHARED, MCT_DTYPE_F64, 8192);
    p.bins = 8192;
    ASSERT_STATUS(mct_tally_only_run(&p, t, &r), MCT_STATUS_NOT_SUPPORTED);
    mct_tally_destroy(t);
}

int main(void) {
    test_bad_parameters();
    test_statistics();
    test_wrong_mean_detected();
    test_methods_and_backends();
    test_cuda_when_present();
    printf("%d runs checked bin by bin\n", runs_checked);
    return 0;
}
