/* SPDX-License-Identifier: BSD-3-Clause */
/** @file test_cpu_scan.c  The CPU backend of mct_scan_*: every type x operator x
 * inclusive/exclusive at sizes around its 65536-element chunks, in place, the
 * two-phase contract, and results independent of the number of OpenMP threads.
 *
 * Integers and float max/min must be exact. Float sums must satisfy
 * |out[i] - exact| <= gamma_k * S_i (gamma_k = k u / (1 - k u), S_i the sum of the
 * absolute values of out[i]'s inputs and init; Higham eq. 4.4), where k bounds the
 * depth of the addition tree: element j of chunk c is ((P_c + x) + ...) + x_j, with
 * P_c = P_{c-1} + A_{c-1} and A a sequential chunk sum, so k <= C + c + j <= i + 1
 * for c >= 1 and k <= j + 1 for c = 0, plus 1 for init: k = i + 2. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <omp.h>

#include "mctally/mct.h"
#include "test_assert.h"
#include "test_random.h"


static double uniform_pm1(uint64_t* s) {
    const double v = 2.0 * ((double)(test_splitmix64(s) >> 11) * 0x1.0p-53) - 1.0;
    return v == 0.0 ? 0.5 : v;
}

static void fill(void* p, mct_scan_type_t t, int64_t n, uint64_t* s) {
    for (int64_t i = 0; i < n; ++i) {
        const uint64_t r = test_splitmix64(s);
        switch (t) {
        case MCT_SCAN_I32: ((int32_t*)p)[i] = (int32_t)(uint32_t)r; break;
        case MCT_SCAN_U32: ((uint32_t*)p)[i] = (uint32_t)r; break;
        case MCT_SCAN_I64: ((int64_t*)p)[i] = (int64_t)r; break;
        case MCT_SCAN_U64: ((uint64_t*)p)[i] = r; break;
        case MCT_SCAN_F32: ((float*)p)[i] = (float)uniform_pm1(s); break;
        default: ((double*)p)[i] = uniform_pm1(s); break;
        }
    }
}

/* Element i as a long double (floats) or as 64 raw bits (integers). */
static long double get_f(const void* p, mct_scan_type_t t, int64_t i) {
    return t == MCT_SCAN_F32 ? (long double)((const float*)p)[i] : (long double)((const double*)p)[i];
}
static uint64_t get_u(const void* p, mct_scan_type_t t, int64_t i) {
    switch (t) {
    case MCT_SCAN_I32: return (uint64_t)(int64_t)((const int32_t*)p)[i];
    case MCT_SCAN_U32: return ((const uint32_t*)p)[i];
    default: return ((const uint64_t*)p)[i];
    }
}

/* Applies op on integers of type t held in 64 bits (sign-extended for i32). */
static uint64_t int_op(mct_scan_type_t t, mct_scan_op_t op, uint64_t a, uint64_t b) {
    const int is_signed = t == MCT_SCAN_I32 || t == MCT_SCAN_I64;
    if (op == MCT_SCAN_SUM) {
        uint64_t s = a + b;
        if (t == MCT_SCAN_I32) s = (uint64_t)(int64_t)(int32_t)(uint32_t)s;
        if (t == MCT_SCAN_U32) s = (uint32_t)s;
        return s;
    }
    const int less = is_signed ? (int64_t)a < (int64_t)b : a < b;
    return op == MCT_SCAN_MAX ? (less ? b : a) : (less ? a : b);
}

static long double float_op(mct_scan_op_t op, mct_scan_type_t t, long double a, long double b) {
    /* max/min are exact; sums are not checked with this. */
    (void)t;
    return op == MCT_SCAN_MAX ? fmaxl(a, b) : fminl(a, b);
}

static void check(mct_scan_type_t t, mct_scan_op_t op, int exclusive, int64_t n, int in_place, uint64_t* seed) {
    const size_t es = mct_scan_type_size(t);
    void* in = malloc((size_t)(n ? n : 1) * es);
    void* out = in_place ? in : malloc((size_t)(n ? n : 1) * es);
    void* ref = malloc((size_t)(n ? n : 1) * es);
    fill(in, t, n, seed);
    memcpy(ref, in, (size_t)n * es);
    unsigned char init[8];
    fill(init, t, 1, seed);
    size_t bytes = 0;
    mct_status_t st = exclusive ? mct_scan_exclusive(MCT_BACKEND_CPU, NULL, &bytes, NULL, NULL, init, n, t, op,
                                                     MCT_SCAN_DECOUPLED_LOOKBACK, NULL)
                                : mct_scan_inclusive(MCT_BACKEND_CPU, NULL, &bytes, NULL, NULL, n, t, op,
                                                     MCT_SCAN_DECOUPLED_LOOKBACK, NULL);
    ASSERT_STATUS(st, MCT_STATUS_SUCCESS);
    ASSERT_TRUE(bytes > 0);
    void* temp = malloc(bytes);
    st = exclusive ? mct_scan_exclusive(MCT_BACKEND_CPU, temp, &bytes, in, out, init, n, t, op, MCT_SCAN_CHAINED, NULL)
                   : mct_scan_inclusive(MCT_BACKEND_CPU, temp, &bytes, in, out, n, t, op, MCT_SCAN_CHAINED, NULL);
    ASSERT_STATUS(st, MCT_STATUS_SUCCESS);
    const int is_float = t == MCT_SCAN_F32 || t == MCT_SCAN_F64;
    if (!is_float) {
        uint64_t run = get_u(init, t, 0);
        for (int64_t i = 0; i < n; ++i) {
            const uint64_t x = get_u(ref, t, i);
            const uint64_t expect = exclusive ? run : (i == 0 ? x : int_op(t, op, run, x));
            run = exclusive ? int_op(t, op, run, x) : expect;
            if (get_u(out, t, i) != expect) {
                fprintf(stderr, "%s %s n %lld out[%lld] wrong\n", mct_scan_type_name(t), mct_scan_op_name(op),
                        (long long)n, (long long)i);
                exit(1);
            }
        }
    } else if (op != MCT_SCAN_SUM) {
        long double run = get_f(init, t, 0);
        for (int64_t i = 0; i < n; ++i) {
            const long double x = get_f(ref, t, i);
            const long double expect = exclusive ? run : (i == 0 ? x : float_op(op, t, run, x));
            run = exclusive ? float_op(op, t, run, x) : expect;
            ASSERT_EQ_F64((double)get_f(out, t, i), (double)expect);
        }
    } else {
        const long double u = t == MCT_SCAN_F32 ? 0x1.0p-24L : 0x1.0p-53L;
        long double sum = exclusive ? get_f(init, t, 0) : 0.0L, comp = 0.0L;
        long double abs_sum = fabsl(sum);
        for (int64_t i = 0; i < n; ++i) {
            const long double x = get_f(ref, t, i);
            if (!exclusive) {
                const long double s2 = sum + x;
                comp += fabsl(sum) >= fabsl(x) ? (sum - s2) + x : (x - s2) + sum;
                sum = s2;
                abs_sum += fabsl(x);
            }
            const long double k = (long double)i + 2.0L, gamma = k * u / (1.0L - k * u);
            if (!(fabsl(get_f(out, t, i) - (sum + comp)) <= gamma * abs_sum)) {
                fprintf(stderr, "%s sum n %lld out[%lld] outside the bound\n", mct_scan_type_name(t), (long long)n,
                        (long long)i);
                exit(1);
            }
            if (exclusive) {
                const long double s2 = sum + x;
                comp += fabsl(sum) >= fabsl(x) ? (sum - s2) + x : (x - s2) + sum;
                sum = s2;
                abs_sum += fabsl(x);
            }
        }
    }
    free(temp);
    free(ref);
    if (!in_place) free(out);
    free(in);
}

/* The same f64 sum on 1 and on 4 threads gives the same bits. */
static void check_thread_independence(uint64_t* seed) {
    const int64_t n = 1000003;
    double* in = malloc(n * sizeof *in);
    double* a = malloc(n * sizeof *a);
    double* b = malloc(n * sizeof *b);
    fill(in, MCT_SCAN_F64, n, seed);
    size_t bytes = 0;
    ASSERT_STATUS(mct_scan_inclusive(MCT_BACKEND_CPU, NULL, &bytes, NULL, NULL, n, MCT_SCAN_F64, MCT_SCAN_SUM,
                                     MCT_SCAN_DECOUPLED_LOOKBACK, NULL),
                  MCT_STATUS_SUCCESS);
    void* temp = malloc(bytes);
    const int saved = omp_get_max_threads();
    omp_set_num_threads(1);
    ASSERT_STATUS(mct_scan_inclusive(MCT_BACKEND_CPU, temp, &bytes, in, a, n, MCT_SCAN_F64, MCT_SCAN_SUM,
                                     MCT_SCAN_DECOUPLED_LOOKBACK, NULL),
                  MCT_STATUS_SUCCESS);
    omp_set_num_threads(4);
    ASSERT_STATUS(mct_scan_inclusive(MCT_BACKEND_CPU, temp, &bytes, in, b, n, MCT_SCAN_F64, MCT_SCAN_SUM,
                                     MCT_SCAN_DECOUPLED_LOOKBACK, NULL),
                  MCT_STATUS_SUCCESS);
    omp_set_num_threads(saved);
    ASSERT_TRUE(memcmp(a, b, n * sizeof *a) == 0);
    free(temp), free(in), free(a), free(b);
}

static void check_contract(void) {
    size_t bytes = 0;
    ASSERT_STATUS(mct_scan_inclusive(MCT_BACKEND_CPU, NULL, &bytes, NULL, NULL, 0, MCT_SCAN_I32, MCT_SCAN_SUM,
                                     MCT_SCAN_DECOUPLED_LOOKBACK, NULL),
                  MCT_STATUS_SUCCESS);
    ASSERT_TRUE(bytes > 0);
    ASSERT_STATUS(mct_scan_inclusive(MCT_BACKEND_CPU, NULL, &bytes, NULL, NULL, 1 << 20, MCT_SCAN_I32, MCT_SCAN_SUM,
                                     MCT_SCAN_DECOUPLED_LOOKBACK, NULL),
                  MCT_STATUS_SUCCESS);
    void* temp = malloc(bytes);
    int32_t* buf = calloc(1 << 20, sizeof *buf);
    size_t small = bytes - 1;
    ASSERT_STATUS(mct_scan_inclusive(MCT_BACKEND_CPU, temp, &small, buf, buf, 1 << 20, MCT_SCAN_I32, MCT_SCAN_SUM,
                                     MCT_SCAN_DECOUPLED_LOOKBACK, NULL),
                  MCT_STATUS_INVALID_VALUE);
    ASSERT_STATUS(mct_scan_inclusive(MCT_BACKEND_CPU, temp, &bytes, NULL, buf, 1, MCT_SCAN_I32, MCT_SCAN_SUM,
                                     MCT_SCAN_DECOUPLED_LOOKBACK, NULL),
                  MCT_STATUS_NULL_POINTER);
    ASSERT_STATUS(mct_scan_inclusive(MCT_BACKEND_CPU, temp, &bytes, buf, buf, 1, MCT_SCAN_I32, MCT_SCAN_SUM,
                                     (mct_scan_algo_t)2, NULL),
                  MCT_STATUS_INVALID_VALUE);
#if !MCT_HAVE_CUDA
    ASSERT_STATUS(mct_scan_inclusive(MCT_BACKEND_CUDA, NULL, &bytes, NULL, NULL, 1, MCT_SCAN_I32, MCT_SCAN_SUM,
                                     MCT_SCAN_DECOUPLED_LOOKBACK, NULL),
                  MCT_STATUS_BACKEND_UNAVAILABLE);
#endif
    ASSERT_STR_EQ(mct_scan_algo_name(MCT_SCAN_DECOUPLED_LOOKBACK), "decoupled_lookback");
    ASSERT_STR_EQ(mct_scan_type_name(MCT_SCAN_U64), "u64");
    ASSERT_STR_EQ(mct_scan_op_name((mct_scan_op_t)7), "invalid");
    ASSERT_EQ_I64(mct_scan_determinism(MCT_BACKEND_CPU, MCT_SCAN_F64, MCT_SCAN_SUM, MCT_SCAN_DECOUPLED_LOOKBACK),
                  MCT_RUN_TO_RUN);
    ASSERT_EQ_I64(mct_scan_determinism(MCT_BACKEND_CPU, MCT_SCAN_I64, MCT_SCAN_SUM, MCT_SCAN_DECOUPLED_LOOKBACK),
                  MCT_BITWISE);
    free(temp);
    free(buf);
}

int main(void) {
    uint64_t seed = 42;
    const int64_t sizes[] = {0, 1, 31, 32, 33, 65535, 65536, 65537, 3 * 65536 + 1, 1000003};
    check_contract();
    for (int t = 0; t < MCT_SCAN_TYPE_COUNT; ++t)
        for (int op = 0; op < MCT_SCAN_OP_COUNT; ++op)
            for (int ex = 0; ex < 2; ++ex)
                for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; ++k)
                    check((mct_scan_type_t)t, (mct_scan_op_t)op, ex, sizes[k], k == 7, &seed);
    check_thread_independence(&seed);
    printf("cpu scan: all types, operators and sizes correct; independent of the thread count\n");
    return 0;
}
