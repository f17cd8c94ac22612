/* SPDX-License-Identifier: BSD-3-Clause */
/** @file test_plan_wisdom_json.c  The JSON the wisdom files are read with (the
 * library's own strict reader, src/common/json.c), through the public wisdom
 * calls: every JSON form a valid file may hold is accepted (unknown members of
 * any shape are skipped), every malformed text is refused whole, and numbers
 * and strings written read back to the same bits. */
#include <stdio.h>

#include "mctally/mct.h"
#include "test_assert.h"

/* One plan; %s is put in place of an extra member or the device name. */
static const char plan_fmt[] =
    "{\"format\": \"mctally-wisdom\", \"version\": 1, %s \"plans\": [{\"device\": \"%s\", \"cc\": 0, "
    "\"backend\": \"cpu\", \"dtype\": \"f64\", \"bins_log2\": 9, \"width\": 1, \"adds\": \"arrays\", "
    "\"determinism\": \"not_guaranteed\", \"max_rel_loss\": %s, \"adds_log2\": -1, \"pattern\": \"uniform\", "
    "\"method_mask\": 0, \"fixed_frac_bits\": 32, \"mode\": \"measure\", \"method\": \"atomic\", "
    "\"seconds_per_update\": %s}]}";

static mct_status_t import(const char* extra, const char* device, const char* loss, const char* spu, char** back) {
    char text[2048];
    snprintf(text, sizeof text, plan_fmt, extra, device, loss, spu);
    mct_wisdom_t w = NULL;
    ASSERT_STATUS(mct_wisdom_create(&w), MCT_STATUS_SUCCESS);
    const mct_status_t st = mct_wisdom_import_string(w, text);
    if (back) ASSERT_STATUS(mct_wisdom_export_string(w, back), MCT_STATUS_SUCCESS);
    if (st) ASSERT_EQ_I64(mct_wisdom_count(w), 0);
    mct_wisdom_destroy(w);
    return st;
}

int main(void) {
    /* Accepted: unknown members holding every JSON form, escapes, white space. */
    const char* good[] = {
        "",
        "\"x\": [1, -2.5e3, 0.5E+2, 1e-7, true, false, null, {}, [], {\"a\": [[{}]]}],",
        "\"s\": \"q\\\"\\\\\\/\\b\\f\\n\\r\\t\\u00e9\\ud83d\\ude00\",",
        "\n\t\r \"o\" \n:\n {\"k\": \"v\"} ,",
    };
    for (size_t i = 0; i < sizeof good / sizeof *good; ++i)
        if (import(good[i], "cpu", "0", "1e-9", NULL) != MCT_STATUS_SUCCESS) TEST_FAIL("refused valid JSON: %s", good[i]);

    /* Refused: not JSON, or JSON that is not strict. */
    const char* bad_extra[] = {
        "\"x\": [1,],", "\"x\": 01,", "\"x\": 1.,", "\"x\": .5,", "\"x\": +1,", "\"x\": 1e,", "'x': 1,",
        "\"x\": \"\t\",", "\"x\": \"\\x\",", "\"x\": \"\\ud800\",", "\"x\": \"\\u0000\",", "\"x\" 1,",
        "\"x\": NaN,", "\"x\": 1e999,", "\"x\": tru,", "/* c */", "\"x\": 1,,", "\"x\": {\"a\":1,},",
    };
    for (size_t i = 0; i < sizeof bad_extra / sizeof *bad_extra; ++i)
        if (import(bad_extra[i], "cpu", "0", "1e-9", NULL) != MCT_STATUS_WISDOM_IGNORED)
            TEST_FAIL("accepted malformed JSON: %s", bad_extra[i]);
    /* Nesting deeper than the reader's 64 levels is refused, not recursed into. */
    char deep[400] = "\"x\": ";
    for (int i = 0; i < 100; ++i) strcat(deep, "[");
    for (int i = 0; i < 100; ++i) strcat(deep, "]");
    strcat(deep, ",");
    ASSERT_STATUS(import(deep, "cpu", "0", "1e-9", NULL), MCT_STATUS_WISDOM_IGNORED);
    /* Trailing text after the value. */
    mct_wisdom_t w = NULL;
    ASSERT_STATUS(mct_wisdom_create(&w), MCT_STATUS_SUCCESS);
    ASSERT_STATUS(mct_wisdom_import_string(w, "{\"format\": \"mctally-wisdom\", \"version\": 1, \"plans\": []} x"),
                  MCT_STATUS_WISDOM_IGNORED);
    ASSERT_STATUS(mct_wisdom_import_string(w, "{\"format\": \"mctally-wisdom\", \"version\": 1, \"plans\": []} \n"),
                  MCT_STATUS_SUCCESS);
    mct_wisdom_destroy(w);

    /* Numbers and strings survive export and import bit for bit: the text
     * written from an import, imported again, is written the same. */
    const char* nums[] = {"0.1", "0.3333333333333333", "6.02214076e23", "4.9406564584124654e-324",
                          "1.7976931348623157e308", "123456789012345678"};
    const char* devices[] = {"GPU \\\"quoted\\\" \\\\ \\u0001", "caf\\u00e9"};
    for (size_t i = 0; i < sizeof nums / sizeof *nums; ++i)
        for (size_t j = 0; j < sizeof devices / sizeof *devices; ++j) {
            char *once = NULL, *twice = NULL;
            ASSERT_STATUS(import("", devices[j], nums[i], nums[i], &once), MCT_STATUS_SUCCESS);
            mct_wisdom_t w2 = NULL;
            ASSERT_STATUS(mct_wisdom_create(&w2), MCT_STATUS_SUCCESS);
            ASSERT_STATUS(mct_wisdom_import_string(w2, once), MCT_STATUS_SUCCESS);
            ASSERT_STATUS(mct_wisdom_export_string(w2, &twice), MCT_STATUS_SUCCESS);
            ASSERT_STR_EQ(twice, once);
            mct_wisdom_free_string(once);
            mct_wisdom_free_string(twice);
            mct_wisdom_destroy(w2);
        }
    puts("wisdom json: strict reader and writer ok");
    return 0;
}
