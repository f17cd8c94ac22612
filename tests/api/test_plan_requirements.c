/* SPDX-License-Identifier: BSD-3-Clause */
/** @file test_plan_requirements.c  The planner's requirements: method AUTO as a
 * value, the auto default, admissibility of the chosen method for every
 * determinism x type x backend (cpu, emulated), clear errors for impossible
 * needs, named methods held to the needs, and the f32 rounding-loss model
 * against an exact reference on the CPU. */
#include <math.h>
#include <string.h>

#include "mctally/mct.h"
#include "mctally/mct_arith.h"
#include "test_assert.h"

static void check_auto_value(void) {
    mct_method_t m;
    ASSERT_STATUS(mct_method_from_name("auto", &m), MCT_STATUS_SUCCESS);
    ASSERT_EQ_I64(m, MCT_METHOD_AUTO);
    ASSERT_STR_EQ(mct_method_name(MCT_METHOD_AUTO), "auto");
    ASSERT_TRUE(MCT_METHOD_AUTO >= MCT_METHOD_COUNT || (int)MCT_METHOD_AUTO < 0);
    mct_tally_desc_t d;
    mct_tally_desc_init(&d);
    ASSERT_EQ_I64(d.method, MCT_METHOD_AUTO);
}

/* Every determinism x type on cpu and emulated: the tally is created, its
 * resolved method is concrete, meets the need, serves the type, the view
 * carries it, and the plan says why. */
static void check_admissible_matrix(void) {
    const mct_backend_t backends[] = {MCT_BACKEND_CPU, MCT_BACKEND_EMULATED};
    for (int b = 0; b < 2; ++b)
        for (int dt = 0; dt < MCT_DTYPE_COUNT; ++dt)
            for (int det = MCT_NOT_GUARANTEED; det <= MCT_BITWISE; ++det) {
                mct_tally_desc_t d;
                mct_tally_desc_init(&d);
                d.bins = 100;
                d.dtype = (mct_dtype_t)dt;
                d.backend = backends[b];
                d.determinism = (mct_determinism_t)det;
                mct_tally_t t = NULL;
                ASSERT_STATUS(mct_tally_create(&t, &d), MCT_STATUS_SUCCESS);
                mct_tally_desc_t got;
                ASSERT_STATUS(mct_tally_get_desc(t, &got), MCT_STATUS_SUCCESS);
                ASSERT_TRUE((unsigned)got.method < MCT_METHOD_COUNT);
                ASSERT_TRUE(mct_method_determinism(got.method, got.dtype) >= (mct_determinism_t)det);
                ASSERT_STATUS(mct_method_supports(got.method, got.dtype, got.backend), MCT_STATUS_SUCCESS);
                mct_tally_view_t v;
                ASSERT_STATUS(mct_tally_view(t, &v), MCT_STATUS_SUCCESS);
                ASSERT_EQ_I64(v.method, got.method);
                mct_plan_info_t info;
                ASSERT_STATUS(mct_tally_plan_info(t, &info), MCT_STATUS_SUCCESS);
                ASSERT_EQ_I64(info.method, got.method);
                ASSERT_EQ_I64(info.source, MCT_PLAN_SOURCE_ESTIMATE);
                ASSERT_TRUE(info.reason[0] != '\0');
                ASSERT_EQ_I64(info.nentries, MCT_METHOD_COUNT);
                ASSERT_EQ_I64(info.ranking[0].method, got.method);
                /* Every admissible entry ranks before every inadmissible one, and
                 * each admissible one meets the need. */
                for (int i = 0; i < info.nentries; ++i) {
                    if (i > 0) ASSERT_TRUE(info.ranking[i - 1].admissible >= info.ranking[i].admissible);
                    if (info.ranking[i].admissible)
                        ASSERT_TRUE(mct_method_determinism(info.ranking[i].method, got.dtype) >= (mct_determinism_t)det);
                }
                /* The tally works: one add, one batch. */
                const uint32_t keys[3] = {0, 5, 99};
                const double values[3] = {1.0, 2.0, 3.0};
                ASSERT_STATUS(mct_tally_add(t, keys, values, 3), MCT_STATUS_SUCCESS);
                ASSERT_STATUS(mct_tally_end_batch(t, 1), MCT_STATUS_SUCCESS);
                double sums[100];
                ASSERT_STATUS(mct_tally_sums(t, sums), MCT_STATUS_SUCCESS);
                ASSERT_EQ_F64(sums[99], 3.0);
                mct_tally_destroy(t);
            }
}

/* Needs no method can meet: a clear status, no tally, a reason that names them. */
static void check_impossible(void) {
    mct_tally_desc_t d;
    mct_tally_desc_init(&d);
    d.bins = 10;
    d.dtype = MCT_DTYPE_F32;
    d.backend = MCT_BACKEND_CPU;
    d.determinism = MCT_BITWISE;
    d.max_rel_loss = 1e-12; /* below fixed point's 2^-33 */
    d.adds_per_bin = 1e3;
    mct_tally_t t = (mct_tally_t)&d;
    ASSERT_STATUS(mct_tally_create(&t, &d), MCT_STATUS_UNSATISFIABLE);
    ASSERT_TRUE(t == NULL);
    mct_plan_info_t info;
    ASSERT_STATUS(mct_plan(&d, &info), MCT_STATUS_UNSATISFIABLE);
    ASSERT_TRUE(strstr(info.reason, "bitwise") != NULL);
    for (int i = 0; i < info.nentries; ++i) ASSERT_TRUE(!info.ranking[i].admissible);

    /* bitwise among a mask without fixed, f64 */
    mct_tally_desc_init(&d);
    d.backend = MCT_BACKEND_EMULATED;
    d.determinism = MCT_BITWISE;
    d.method_mask = (1u << MCT_METHOD_ATOMIC) | (1u << MCT_METHOD_BLOCK_REDUCE);
    ASSERT_STATUS(mct_tally_create(&t, &d), MCT_STATUS_UNSATISFIABLE);
    ASSERT_STATUS(mct_plan(&d, &info), MCT_STATUS_UNSATISFIABLE);
    ASSERT_TRUE(strstr(info.reason, "mask") != NULL);

    /* A named method is held to the needs. */
    mct_tally_desc_init(&d);
    d.backend = MCT_BACKEND_CPU;
    d.method = MCT_METHOD_ATOMIC;
    d.determinism = MCT_RUN_TO_RUN;
    ASSERT_STATUS(mct_tally_create(&t, &d), MCT_STATUS_UNSATISFIABLE);
    d.dtype = MCT_DTYPE_U64; /* integers are bitwise with every method */
    ASSERT_STATUS(mct_tally_create(&t, &d), MCT_STATUS_SUCCESS);
    ASSERT_STATUS(mct_tally_plan_info(t, &info), MCT_STATUS_SUCCESS);
    ASSERT_EQ_I64(info.source, MCT_PLAN_SOURCE_EXPLICIT);
    ASSERT_EQ_I64(info.method, MCT_METHOD_ATOMIC);
    mct_tally_destroy(t);

    /* Bad planning fields. */
    mct_tally_desc_init(&d);
    d.max_rel_loss = -1.0;
    ASSERT_STATUS(mct_tally_create(&t, &d), MCT_STATUS_INVALID_VALUE);
    mct_tally_desc_init(&d);
    d.key_sample_n = 5;
    ASSERT_STATUS(mct_tally_create(&t, &d), MCT_STATUS_INVALID_VALUE);
    mct_tally_desc_init(&d);
    d.method = (mct_method_t)40;
    ASSERT_STATUS(mct_tally_create(&t, &d), MCT_STATUS_UNKNOWN_METHOD);
}

/* An f32 tally whose predicted loss exceeds the bound gets kahan (or fixed),
 * never a plain f32 method; a bound plain f32 meets keeps the fast methods. */
static void check_accuracy_need(void) {
    const mct_backend_t backends[] = {MCT_BACKEND_CPU, MCT_BACKEND_EMULATED, MCT_BACKEND_CUDA};
    for (int b = 0; b < 3; ++b) {
        mct_tally_desc_t d;
        mct_tally_desc_init(&d);
        d.bins = 1000;
        d.dtype = MCT_DTYPE_F32;
        d.backend = backends[b];
        d.max_rel_loss = 1e-5;
        d.adds_per_bin = 1e5; /* plain f32: ~6e-3 */
        mct_plan_info_t info;
        ASSERT_STATUS(mct_plan(&d, &info), MCT_STATUS_SUCCESS);
        ASSERT_TRUE(info.method == MCT_METHOD_KAHAN || info.method == MCT_METHOD_KAHAN_NAIVE ||
                    info.method == MCT_METHOD_FIXED);
        ASSERT_TRUE(mct_plan_rounding_loss(MCT_DTYPE_F32, info.method, 1e5, 32) <= 1e-5);
        d.adds_per_bin = 10.0; /* plain f32: ~6e-7 */
        ASSERT_STATUS(mct_plan(&d, &info), MCT_STATUS_SUCCESS);
        ASSERT_TRUE(mct_plan_rounding_loss(MCT_DTYPE_F32, info.method, 10.0, 32) <= 1e-5);
    }
}

/* The loss model is conservative against an exact reference: f32 sums of n
 * values in [0.5, 1.5) in one order (as one thread's atomics would), and
 * pairs through the library's own updates (Kahan's step for kahan_naive, the
 * compensated add for kahan), against a double sum (exact
 * here: the values have 10 significant bits). In stagnation the model is at
 * most 2x the loss it predicts. */
static void check_loss_model(void) {
    uint64_t s = 12345;
    const double ns[] = {10, 1e3, 1e5, 1e6, 2e7, 8e7};
    for (size_t k = 0; k < sizeof ns / sizeof *ns; ++k) {
        const int64_t n = (int64_t)ns[k];
        float f = 0.0f;
        mct_kahan_pair_t p = {0.0f, 0.0f}, c = {0.0f, 0.0f};
        double exact = 0.0;
        for (int64_t i = 0; i < n; ++i) {
            s = s * 6364136223846793005ull + 1442695040888963407ull;
            const double v = 0.5 + (double)(s >> 54) / 1024.0;
            f += (float)v;
            if (n <= 1e6) p = mct_kahan_add_value(p, v), c = mct_compensated_add_value(c, v);
            exact += v;
        }
        const double loss = fabs((double)f - exact) / exact;
        const double predicted = mct_plan_rounding_loss(MCT_DTYPE_F32, MCT_METHOD_ATOMIC, (double)n, 32);
        ASSERT_LE_F64(loss, predicted);
        if (n >= 8e7) ASSERT_LE_F64(predicted, 2.0 * loss); /* stagnation: the sum stops near 2^25 */
        if (n <= 1e6) {
            const double kloss = fabs(((double)p.sum - (double)p.comp) - exact) / exact;
            ASSERT_LE_F64(kloss, mct_plan_rounding_loss(MCT_DTYPE_F32, MCT_METHOD_KAHAN_NAIVE, (double)n, 32));
            const double closs = fabs(((double)c.sum - (double)c.comp) - exact) / exact;
            ASSERT_LE_F64(closs, mct_plan_rounding_loss(MCT_DTYPE_F32, MCT_METHOD_KAHAN, (double)n, 32));
        }
    }
    ASSERT_EQ_F64(mct_plan_rounding_loss(MCT_DTYPE_U64, MCT_METHOD_ATOMIC, 1e12, 32), 0.0);
    ASSERT_EQ_F64(mct_plan_rounding_loss(MCT_DTYPE_F32, MCT_METHOD_ATOMIC, 1e12, 32), 1.0);
    ASSERT_TRUE(mct_plan_rounding_loss(MCT_DTYPE_F64, MCT_METHOD_ATOMIC, 1e9, 32) < 1e-6);
}

int main(void) {
    check_auto_value();
    check_admissible_matrix();
    check_impossible();
    check_accuracy_need();
    check_loss_model();
    return 0;
}
