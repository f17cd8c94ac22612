/* SPDX-License-Identifier: BSD-3-Clause */
/** @file test_plan_explain.c  A tally plans without writing its reasons and
 * writes them when its plan is first read (mct_tally_plan_info). The plan read
 * must be the one mct_plan gives for the same descriptor, field for field and
 * reason for reason, across methods named and AUTO, types, determinism and
 * loss needs, method masks, key samples of each class and wisdom, also when
 * the caller has freed the key sample and destroyed the wisdom between the
 * tally's creation and the read; a plan that measures is explained when made. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mctally/mct.h"
#include "test_assert.h"

static void same_plan(const mct_plan_info_t* a, const mct_plan_info_t* b, const char* what) {
    if (a->method != b->method || a->source != b->source || a->pattern != b->pattern || a->nentries != b->nentries ||
        strcmp(a->reason, b->reason))
        TEST_FAIL("%s: plan read %s/%s/%s \"%s\", mct_plan %s/%s/%s \"%s\"", what, mct_method_name(a->method),
                  mct_plan_source_name(a->source), mct_key_pattern_name(a->pattern), a->reason, mct_method_name(b->method),
                  mct_plan_source_name(b->source), mct_key_pattern_name(b->pattern), b->reason);
    ASSERT_TRUE(a->reason[0] != 0);
    ASSERT_EQ_F64(a->distinct_per_warp, b->distinct_per_warp);
    ASSERT_EQ_F64(a->hot_share, b->hot_share);
    for (int i = 0; i < a->nentries; ++i) {
        const mct_plan_entry_t *x = &a->ranking[i], *y = &b->ranking[i];
        if (x->method != y->method || x->admissible != y->admissible || strcmp(x->why, y->why) ||
            x->seconds_per_update != y->seconds_per_update)
            TEST_FAIL("%s: entry %d: %s %d \"%s\" against %s %d \"%s\"", what, i, mct_method_name(x->method),
                      x->admissible, x->why, mct_method_name(y->method), y->admissible, y->why);
        ASSERT_TRUE(x->why[0] != 0);
    }
}

/* Keys of four classes over `cells` cells. */
static void keys_of(uint32_t* k, int n, int64_t cells, int kind) {
    uint64_t s = 0x2545F4914F6CDD1Dull;
    for (int i = 0; i < n; ++i) {
        s ^= s << 13, s ^= s >> 7, s ^= s << 17;
        const uint32_t r = (uint32_t)(s % (uint64_t)cells);
        k[i] = kind == 0 ? r : kind == 1 ? (uint32_t)((int64_t)i * cells / n) : kind == 2 ? ((s >> 40) & 1 ? 0u : r) : r % 3u;
    }
}

/* Creates the tally, frees the sample and the wisdom the descriptor points to,
 * then compares the tally's plan with mct_plan's (made before, with both). */
static void check(mct_tally_desc_t* d, uint32_t* sample, mct_wisdom_t* w, const char* what) {
    mct_plan_info_t want;
    const mct_status_t st = mct_plan(d, &want);
    mct_tally_t t = NULL;
    const mct_status_t ct = mct_tally_create(&t, d);
    if (st == MCT_STATUS_UNSATISFIABLE) {
        ASSERT_STATUS(ct, MCT_STATUS_UNSATISFIABLE);
        return;
    }
    ASSERT_STATUS(st, MCT_STATUS_SUCCESS);
    /* A named method is judged by mct_plan against the needs only; whether it
     * serves the type and backend is mct_tally_create's check. */
    if (d->method != MCT_METHOD_AUTO && mct_method_supports(d->method, d->dtype, d->backend)) {
        ASSERT_STATUS(ct, mct_method_supports(d->method, d->dtype, d->backend));
        return;
    }
    ASSERT_STATUS(ct, MCT_STATUS_SUCCESS);
    if (sample) memset(sample, 0xff, (size_t)d->key_sample_n * sizeof *sample);
    if (w && *w) mct_wisdom_destroy(*w), *w = NULL;
    d->key_sample = NULL, d->key_sample_n = 0, d->wisdom = NULL;
    mct_plan_info_t got, again;
    ASSERT_STATUS(mct_tally_plan_info(t, &got), MCT_STATUS_SUCCESS);
    ASSERT_STATUS(mct_tally_plan_info(t, &again), MCT_STATUS_SUCCESS);
    ASSERT_EQ_F64(got.seconds, again.seconds);
    same_plan(&got, &want, what);
    same_plan(&again, &want, what);
    mct_tally_destroy(t);
}

int main(void) {
    static const mct_dtype_t dtypes[] = {MCT_DTYPE_F32, MCT_DTYPE_F64, MCT_DTYPE_I32, MCT_DTYPE_U64};
    static const int64_t bins[] = {1, 8, 1000, 100000};
    static const mct_backend_t backends[] = {MCT_BACKEND_CPU, MCT_BACKEND_EMULATED};
    uint32_t* sample = malloc(4096 * sizeof *sample);
    ASSERT_TRUE(sample != NULL);
    int cases = 0;
    char what[256];
    for (int b = 0; b < 2; ++b)
        for (int ti = 0; ti < 4; ++ti)
            for (int bi = 0; bi < 4; ++bi)
                for (int det = MCT_NOT_GUARANTEED; det <= MCT_BITWISE; ++det)
                    for (int v = 0; v < 8; ++v) {
                        mct_tally_desc_t d;
                        mct_tally_desc_init(&d);
                        d.backend = backends[b];
                        d.dtype = dtypes[ti];
                        d.bins = bins[bi];
                        d.determinism = (mct_determinism_t)det;
                        mct_wisdom_t w = NULL;
                        switch (v) {
                        case 0: break; /* AUTO, nothing known */
                        case 1: d.method = MCT_METHOD_ATOMIC; break;
                        case 2: d.method = MCT_METHOD_FIXED; d.fixed_bound = 1e6; break;
                        case 3: d.max_rel_loss = 1e-6, d.adds_per_bin = 1e7; break;
                        case 4: d.method_mask = (1u << MCT_METHOD_ATOMIC) | (1u << MCT_METHOD_SORT_REDUCE); break;
                        case 5: d.key_pattern = MCT_PATTERN_SORTED; break;
                        default: /* a sample of each class; 7: from wisdom saved by a first plan */
                            d.key_sample_n = v == 6 ? 4096 : 700;
                            keys_of(sample, (int)d.key_sample_n, d.bins, (bi + det + ti) % 4);
                            d.key_sample = sample;
                            if (v == 7) {
                                ASSERT_STATUS(mct_wisdom_create(&w), MCT_STATUS_SUCCESS);
                                d.wisdom = w;
                                mct_plan_info_t first;
                                const mct_status_t st = mct_plan(&d, &first);
                                if (!st) ASSERT_EQ_I64(mct_wisdom_count(w), 1);
                            }
                        }
                        snprintf(what, sizeof what, "%s %s %lld bins, %s, variant %d", mct_backend_name(d.backend),
                                 mct_dtype_name(d.dtype), (long long)d.bins, mct_determinism_name(d.determinism), v);
                        check(&d, v >= 6 ? sample : NULL, &w, what);
                        if (w) mct_wisdom_destroy(w);
                        ++cases;
                    }
    /* Measure mode: a plan that measures writes its reasons when it is made
     * (it cannot be made again); one whose announced batch is too small to
     * measure, or that finds its plan in the wisdom, is made again like an
     * estimate. */
    for (int b = 0; b < 2; ++b) {
        mct_tally_desc_t d;
        mct_tally_desc_init(&d);
        d.backend = backends[b];
        d.bins = 1000;
        d.plan_mode = MCT_PLAN_MEASURE;
        d.plan_budget_s = 0.05;
        mct_wisdom_t w = NULL;
        ASSERT_STATUS(mct_wisdom_create(&w), MCT_STATUS_SUCCESS);
        d.wisdom = w;
        mct_tally_t t = NULL;
        ASSERT_STATUS(mct_tally_create(&t, &d), MCT_STATUS_SUCCESS);
        mct_plan_info_t got;
        ASSERT_STATUS(mct_tally_plan_info(t, &got), MCT_STATUS_SUCCESS);
        mct_tally_destroy(t);
        ASSERT_EQ_I64(got.source, MCT_PLAN_SOURCE_MEASURE);
        ASSERT_TRUE(strstr(got.reason, "fastest measured") != NULL);
        for (int i = 0; i < got.nentries; ++i) ASSERT_TRUE(got.ranking[i].why[0] != 0);
        ASSERT_TRUE(strstr(got.ranking[0].why, "; measured x") != NULL);
        ASSERT_EQ_I64(mct_wisdom_count(w), 1);
        snprintf(what, sizeof what, "%s measure, from wisdom", mct_backend_name(d.backend));
        check(&d, NULL, &w, what); /* destroys the wisdom */
        d.wisdom = NULL;
        d.adds_per_bin = 1.0; /* a batch of 1000 adds: 2 % of it measures nothing */
        snprintf(what, sizeof what, "%s measure, batch too small", mct_backend_name(d.backend));
        mct_plan_info_t est;
        ASSERT_STATUS(mct_plan(&d, &est), MCT_STATUS_SUCCESS);
        ASSERT_TRUE(strstr(est.reason, "not measured") != NULL);
        check(&d, NULL, NULL, what);
        cases += 3;
    }
    free(sample);
    printf("test_plan_explain: %d descriptors, every tally plan read equals mct_plan's\n", cases);
    return 0;
}
