/* SPDX-License-Identifier: BSD-3-Clause */
/** @file test_plan_wisdom.c  Wisdom and measure mode: plans saved and reused
 * (string and file round trips, atomic writes), corrupt, truncated and stale
 * wisdom ignored with a warning and never a crash, and never written over a
 * file that is not wisdom; measure mode on the cpu and
 * emulated backends returns an admissible method within its time budget, and
 * a budget bounded by the announced batch measures only what it can afford. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mctally/mct.h"
#include "test_assert.h"

static void desc_for(mct_tally_desc_t* d, mct_backend_t b, mct_wisdom_t w, mct_plan_mode_t mode) {
    mct_tally_desc_init(d);
    d->bins = 512;
    d->backend = b;
    d->wisdom = w;
    d->plan_mode = mode;
    d->plan_budget_s = 0.5;
    d->key_pattern = MCT_PATTERN_UNIFORM;
}

static void check_measure(mct_backend_t b) {
    for (int det = MCT_NOT_GUARANTEED; det <= MCT_BITWISE; ++det) {
        mct_tally_desc_t d;
        desc_for(&d, b, NULL, MCT_PLAN_MEASURE);
        d.determinism = (mct_determinism_t)det;
        d.plan_budget_s = 0.3;
        mct_tally_t t = NULL;
        ASSERT_STATUS(mct_tally_create(&t, &d), MCT_STATUS_SUCCESS);
        mct_plan_info_t info;
        ASSERT_STATUS(mct_tally_plan_info(t, &info), MCT_STATUS_SUCCESS);
        ASSERT_EQ_I64(info.source, MCT_PLAN_SOURCE_MEASURE);
        ASSERT_TRUE(mct_method_determinism(info.method, MCT_DTYPE_F64) >= (mct_determinism_t)det);
        ASSERT_STATUS(mct_method_supports(info.method, MCT_DTYPE_F64, b), MCT_STATUS_SUCCESS);
        ASSERT_TRUE(info.ranking[0].seconds_per_update > 0.0);
        ASSERT_TRUE(strstr(info.ranking[0].why, "; measured x") != NULL);
        /* The budget bounds the timing; one candidate's warm-up may pass it. */
        if (info.seconds > d.plan_budget_s + 0.5)
            TEST_FAIL("%s: measure took %.3f s for a %.2f s budget", mct_backend_name(b), info.seconds, d.plan_budget_s);
        for (int i = 1; i < info.nentries; ++i)
            if (info.ranking[i].admissible && strstr(info.ranking[i].why, "; measured x"))
                /* First: the fastest measured, or one within 5 % of it ahead of it in the estimate. */
                ASSERT_LE_F64(info.ranking[0].seconds_per_update, 1.05 * info.ranking[i].seconds_per_update);
        mct_tally_destroy(t);
    }
}

/* An announced batch bounds the budget to 2 % of its predicted time: a batch
 * too small for one measurement keeps the estimate and says so (and saves
 * nothing as wisdom); a large one is measured within that share. */
static void check_measure_batch_share(mct_backend_t b) {
    mct_wisdom_t w = NULL;
    ASSERT_STATUS(mct_wisdom_create(&w), MCT_STATUS_SUCCESS);
    mct_tally_desc_t d;
    desc_for(&d, b, w, MCT_PLAN_MEASURE);
    d.adds_per_bin = 1.0; /* 512 updates: far below one measurement */
    mct_plan_info_t info, est;
    ASSERT_STATUS(mct_plan(&d, &info), MCT_STATUS_SUCCESS);
    ASSERT_EQ_I64(info.source, MCT_PLAN_SOURCE_ESTIMATE);
    ASSERT_TRUE(strstr(info.reason, "not measured: the budget") != NULL);
    ASSERT_TRUE(strstr(info.reason, "2 % of the announced batch") != NULL);
    ASSERT_EQ_I64(mct_wisdom_count(w), 0);
    mct_tally_desc_t de = d;
    de.plan_mode = MCT_PLAN_ESTIMATE;
    de.wisdom = NULL;
    ASSERT_STATUS(mct_plan(&de, &est), MCT_STATUS_SUCCESS);
    ASSERT_EQ_I64(info.method, est.method);
    /* 2 % of a batch of 1e11 updates (~1e2 s) is well above the explicit
     * budget, which then bounds it. */
    d.adds_per_bin = 2e8;
    ASSERT_STATUS(mct_plan(&d, &info), MCT_STATUS_SUCCESS);
    ASSERT_EQ_I64(info.source, MCT_PLAN_SOURCE_MEASURE);
    ASSERT_TRUE(strstr(info.reason, "budget 0.5 s") != NULL);
    mct_wisdom_destroy(w);
}

static void check_wisdom_round_trip(const char* dir) {
    mct_wisdom_t w = NULL;
    ASSERT_STATUS(mct_wisdom_create(&w), MCT_STATUS_SUCCESS);
    ASSERT_EQ_I64(mct_wisdom_count(w), 0);
    /* A measured plan is recorded and then reused by measure and estimate alike. */
    mct_tally_desc_t d;
    desc_for(&d, MCT_BACKEND_CPU, w, MCT_PLAN_MEASURE);
    mct_plan_info_t first, again;
    ASSERT_STATUS(mct_plan(&d, &first), MCT_STATUS_SUCCESS);
    ASSERT_EQ_I64(first.source, MCT_PLAN_SOURCE_MEASURE);
    ASSERT_EQ_I64(mct_wisdom_count(w), 1);
    ASSERT_STATUS(mct_plan(&d, &again), MCT_STATUS_SUCCESS);
    ASSERT_EQ_I64(again.source, MCT_PLAN_SOURCE_WISDOM);
    ASSERT_EQ_I64(again.method, first.method);
    d.plan_mode = MCT_PLAN_ESTIMATE;
    ASSERT_STATUS(mct_plan(&d, &again), MCT_STATUS_SUCCESS);
    ASSERT_EQ_I64(again.source, MCT_PLAN_SOURCE_WISDOM);
    /* Another key (type, bins class, needs) is not served by it. */
    d.bins = 1 << 20;
    ASSERT_STATUS(mct_plan(&d, &again), MCT_STATUS_SUCCESS);
    ASSERT_EQ_I64(again.source, MCT_PLAN_SOURCE_ESTIMATE);
    ASSERT_EQ_I64(mct_wisdom_count(w), 2);
    /* An estimate is not reused by a measure. */
    d.plan_mode = MCT_PLAN_MEASURE;
    d.plan_budget_s = 0.2;
    ASSERT_STATUS(mct_plan(&d, &again), MCT_STATUS_SUCCESS);
    ASSERT_EQ_I64(again.source, MCT_PLAN_SOURCE_MEASURE);

    /* String round trip. */
    char* text = NULL;
    ASSERT_STATUS(mct_wisdom_export_string(w, &text), MCT_STATUS_SUCCESS);
    mct_wisdom_t w2 = NULL;
    ASSERT_STATUS(mct_wisdom_create(&w2), MCT_STATUS_SUCCESS);
    ASSERT_STATUS(mct_wisdom_import_string(w2, text), MCT_STATUS_SUCCESS);
    ASSERT_EQ_I64(mct_wisdom_count(w2), mct_wisdom_count(w));
    desc_for(&d, MCT_BACKEND_CPU, w2, MCT_PLAN_MEASURE);
    ASSERT_STATUS(mct_plan(&d, &again), MCT_STATUS_SUCCESS);
    ASSERT_EQ_I64(again.source, MCT_PLAN_SOURCE_WISDOM);
    ASSERT_EQ_I64(again.method, first.method);

    /* File round trip: written atomically (no temporary left), read back. */
    char path[512], path2[512];
    snprintf(path, sizeof path, "%s/wisdom.json", dir);
    ASSERT_STATUS(mct_wisdom_export_file(w, path), MCT_STATUS_SUCCESS);
    mct_wisdom_t w3 = NULL;
    ASSERT_STATUS(mct_wisdom_create(&w3), MCT_STATUS_SUCCESS);
    ASSERT_STATUS(mct_wisdom_import_file(w3, path), MCT_STATUS_SUCCESS);
    ASSERT_EQ_I64(mct_wisdom_count(w3), mct_wisdom_count(w));
    char* text3 = NULL;
    ASSERT_STATUS(mct_wisdom_export_string(w3, &text3), MCT_STATUS_SUCCESS);
    ASSERT_STR_EQ(text3, text);
    char cmd[1200];
    snprintf(cmd, sizeof cmd, "test -z \"$(ls '%s' | grep -v '^wisdom.json$')\"", dir);
    ASSERT_EQ_I64(system(cmd), 0);
    /* A write that cannot happen leaves the old file as it was. */
    snprintf(path2, sizeof path2, "%s/no_such_dir/wisdom.json", dir);
    ASSERT_STATUS(mct_wisdom_export_file(w, path2), MCT_STATUS_IO_ERROR);
    snprintf(path2, sizeof path2, "%s/missing.json", dir);
    ASSERT_STATUS(mct_wisdom_import_file(w3, path2), MCT_STATUS_IO_ERROR);

    /* Corrupt, truncated, stale, foreign: ignored whole, with a message. */
    const size_t len = strlen(text);
    char* cut = malloc(len + 1);
    ASSERT_TRUE(cut != NULL);
    for (size_t at = 0; at < len; at += len / 37 + 1) {
        memcpy(cut, text, at);
        cut[at] = '\0';
        mct_wisdom_t wc = NULL;
        ASSERT_STATUS(mct_wisdom_create(&wc), MCT_STATUS_SUCCESS);
        ASSERT_STATUS(mct_wisdom_import_string(wc, cut), MCT_STATUS_WISDOM_IGNORED);
        ASSERT_EQ_I64(mct_wisdom_count(wc), 0);
        ASSERT_TRUE(strstr(mct_wisdom_message(wc), "ignored") != NULL);
        mct_wisdom_destroy(wc);
    }
    free(cut);
    const char* bad[] = {
        "{\"format\": \"mctally-wisdom\", \"version\": 0, \"plans\": []}",
        "{\"format\": \"mctally-wisdom\", \"version\": 2, \"plans\": []}",
        "{\"format\": \"fftw\", \"version\": 1, \"plans\": []}",
        "{\"format\": \"mctally-wisdom\", \"version\": 1, \"plans\": [{\"device\": 3}]}",
        "{\"format\": \"mctally-wisdom\", \"version\": 1}",
        "[1, 2, 3]",
        "\x01\x02\xff garbage",
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; ++i) {
        ASSERT_STATUS(mct_wisdom_import_string(w3, bad[i]), MCT_STATUS_WISDOM_IGNORED);
        ASSERT_EQ_I64(mct_wisdom_count(w3), mct_wisdom_count(w));
    }
    ASSERT_TRUE(strstr(mct_wisdom_message(w3), "ignored") != NULL);
    /* A stale plan's method that is no longer admissible is not reused. */
    char* swapped = strdup(text);
    char* m = strstr(swapped, "\"method\":");
    ASSERT_TRUE(m != NULL);
    mct_wisdom_t w4 = NULL;
    ASSERT_STATUS(mct_wisdom_create(&w4), MCT_STATUS_SUCCESS);
    const char* gpu_only = "{\"format\": \"mctally-wisdom\", \"version\": 1, \"plans\": [{\"device\": \"%s\", \"cc\": 0, "
                           "\"backend\": \"cpu\", \"dtype\": \"f64\", \"bins_log2\": 9, \"width\": 1, \"adds\": "
                           "\"arrays\", \"determinism\": \"not_guaranteed\", \"max_rel_loss\": 0, \"adds_log2\": -1, "
                           "\"pattern\": \"uniform\", \"method_mask\": 0, \"fixed_frac_bits\": 32, \"mode\": "
                           "\"measure\", \"method\": \"wag\", \"seconds_per_update\": 1e-9}]}";
    char device[128], forged[1400];
    desc_for(&d, MCT_BACKEND_CPU, NULL, MCT_PLAN_ESTIMATE);
    mct_tally_t t = NULL;
    ASSERT_STATUS(mct_tally_create(&t, &d), MCT_STATUS_SUCCESS);
    ASSERT_STATUS(mct_tally_device_name(t, device, sizeof device), MCT_STATUS_SUCCESS);
    mct_tally_destroy(t);
    snprintf(forged, sizeof forged, gpu_only, device);
    ASSERT_STATUS(mct_wisdom_import_string(w4, forged), MCT_STATUS_SUCCESS);
    ASSERT_EQ_I64(mct_wisdom_count(w4), 1);
    desc_for(&d, MCT_BACKEND_CPU, w4, MCT_PLAN_ESTIMATE);
    ASSERT_STATUS(mct_plan(&d, &again), MCT_STATUS_SUCCESS);
    ASSERT_TRUE(again.source != MCT_PLAN_SOURCE_WISDOM);
    ASSERT_TRUE(again.method != MCT_METHOD_WAG);
    /* A corrupt file on disk is ignored too. */
    FILE* f = fopen(path, "wb");
    ASSERT_TRUE(f != NULL);
    fwrite(text, 1, len / 2, f);
    fclose(f);
    mct_wisdom_t w5 = NULL;
    ASSERT_STATUS(mct_wisdom_create(&w5), MCT_STATUS_SUCCESS);
    ASSERT_STATUS(mct_wisdom_import_file(w5, path), MCT_STATUS_WISDOM_IGNORED);
    ASSERT_EQ_I64(mct_wisdom_count(w5), 0);

    free(swapped);
    mct_wisdom_free_string(text);
    mct_wisdom_free_string(text3);
    mct_wisdom_destroy(w);
    mct_wisdom_destroy(w2);
    mct_wisdom_destroy(w3);
    mct_wisdom_destroy(w4);
    mct_wisdom_destroy(w5);
    mct_wisdom_destroy(NULL);
    ASSERT_STATUS(mct_wisdom_import_string(NULL, "{}"), MCT_STATUS_NULL_POINTER);
    remove(path);
}

static void write_file(const char* path, const char* text) {
    FILE* f = fopen(path, "wb");
    ASSERT_TRUE(f != NULL);
    ASSERT_TRUE(fputs(text, f) >= 0);
    ASSERT_TRUE(fclose(f) == 0);
}

static int file_is(const char* path, const char* text) {
    char buf[512] = "";
    FILE* f = fopen(path, "rb");
    if (!f) return 0;
    const size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = 0;
    return strcmp(buf, text) == 0;
}

/* Wisdom is written only over wisdom: another program's JSON, notes, a
 * directory or a FIFO named as the wisdom file are left as they are (and a
 * FIFO is never opened, so nothing blocks); a missing, empty, stale or damaged
 * wisdom file is replaced. */
static void check_wisdom_never_clobbers(const char* dir) {
    mct_wisdom_t w = NULL;
    ASSERT_STATUS(mct_wisdom_create(&w), MCT_STATUS_SUCCESS);
    char path[512];
    const char* foreign[] = {"{\"problem\": \"escape\", \"histories\": 7}\n", "my notes\nsecond line\n",
                             "[1, 2, 3]\n", "{\"format\": \"other\", \"note\": \"mctally-wisdom\"}\n"};
    for (int i = 0; i < (int)(sizeof foreign / sizeof *foreign); ++i) {
        snprintf(path, sizeof path, "%s/foreign%d.json", dir, i);
        write_file(path, foreign[i]);
        ASSERT_STATUS(mct_wisdom_file_writable(path), MCT_STATUS_INVALID_VALUE);
        ASSERT_STATUS(mct_wisdom_export_file(w, path), MCT_STATUS_INVALID_VALUE);
        ASSERT_TRUE(strstr(mct_wisdom_message(w), "other than mctally wisdom") != NULL);
        ASSERT_TRUE(file_is(path, foreign[i]));
        remove(path);
    }
    ASSERT_STATUS(mct_wisdom_file_writable(dir), MCT_STATUS_INVALID_VALUE);
    ASSERT_STATUS(mct_wisdom_export_file(w, dir), MCT_STATUS_INVALID_VALUE);
    snprintf(path, sizeof path, "%s/fifo", dir);
    ASSERT_TRUE(mkfifo(path, 0600) == 0);
    ASSERT_STATUS(mct_wisdom_file_writable(path), MCT_STATUS_INVALID_VALUE);
    ASSERT_STATUS(mct_wisdom_import_file(w, path), MCT_STATUS_IO_ERROR);
    ASSERT_STATUS(mct_wisdom_export_file(w, path), MCT_STATUS_INVALID_VALUE);
    remove(path);
    /* Replaced: missing, empty, stale (another format version), damaged. */
    char* text = NULL;
    ASSERT_STATUS(mct_wisdom_export_string(w, &text), MCT_STATUS_SUCCESS);
    char damaged[48];
    snprintf(damaged, sizeof damaged, "%.40s", text);
    const char* ours[] = {NULL, "", "{\"format\": \"mctally-wisdom\", \"version\": 0, \"plans\": []}\n", damaged};
    for (int i = 0; i < 4; ++i) {
        snprintf(path, sizeof path, "%s/ours%d.json", dir, i);
        if (ours[i]) write_file(path, ours[i]);
        ASSERT_STATUS(mct_wisdom_file_writable(path), MCT_STATUS_SUCCESS);
        ASSERT_STATUS(mct_wisdom_export_file(w, path), MCT_STATUS_SUCCESS);
        ASSERT_STATUS(mct_wisdom_import_file(w, path), MCT_STATUS_SUCCESS);
        remove(path);
    }
    ASSERT_STATUS(mct_wisdom_file_writable(NULL), MCT_STATUS_NULL_POINTER);
    mct_wisdom_free_string(text);
    mct_wisdom_destroy(w);
}

int main(void) {
    char dir[] = "/tmp/mct_wisdom_XXXXXX";
    ASSERT_TRUE(mkdtemp(dir) != NULL);
    check_measure(MCT_BACKEND_CPU);
    check_measure(MCT_BACKEND_EMULATED);
    check_measure_batch_share(MCT_BACKEND_CPU);
    check_measure_batch_share(MCT_BACKEND_EMULATED);
    check_wisdom_round_trip(dir);
    check_wisdom_never_clobbers(dir);
    rmdir(dir);
    return 0;
}
