/* SPDX-License-Identifier: BSD-3-Clause */
/** @file fuzz_wisdom.c  Harness of the library's wisdom reader, which reads
 * files a user names (--wisdom, Tally(wisdom=)): any bytes as wisdom text and
 * as a wisdom file. Import is all or nothing (ignored: no plan kept); accepted
 * wisdom exports to text that imports again to the same text, a plan made with
 * it succeeds, and its file is one export_file may replace; a file that is not
 * wisdom is never replaced. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_common.h"
#include "mctally/mct.h"

static char* read_all(const char* path, size_t* size) {
    FILE* f = fopen(path, "rb");
    if (!f) return NULL;
    char* buf = malloc((1u << 16) + 1);
    *size = buf ? fread(buf, 1, 1u << 16, f) : 0;
    fclose(f);
    return buf;
}

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    if (size > (1u << 16)) return 0;
    char* text = malloc(size + 1);
    if (!text) return 0;
    memcpy(text, data, size);
    text[size] = '\0';
    mct_wisdom_t w = NULL;
    if (mct_wisdom_create(&w)) abort();
    const mct_status_t st = mct_wisdom_import_string(w, text);
    if (st != MCT_STATUS_SUCCESS && st != MCT_STATUS_WISDOM_IGNORED) abort();
    if (st == MCT_STATUS_WISDOM_IGNORED && (mct_wisdom_count(w) != 0 || !mct_wisdom_message(w)[0])) abort();
    if (st == MCT_STATUS_SUCCESS) {
        char *out = NULL, *again = NULL;
        mct_wisdom_t w2 = NULL;
        if (mct_wisdom_export_string(w, &out) || mct_wisdom_create(&w2) || mct_wisdom_import_string(w2, out) ||
            mct_wisdom_count(w2) != mct_wisdom_count(w) || mct_wisdom_export_string(w2, &again) || strcmp(out, again))
            abort();
        mct_wisdom_free_string(out);
        mct_wisdom_free_string(again);
        mct_wisdom_destroy(w2);
        /* Planning with it: wisdom can name a method, never break the plan. */
        mct_tally_desc_t d;
        mct_tally_desc_init(&d);
        d.backend = MCT_BACKEND_CPU;
        d.bins = 1000;
        d.wisdom = w;
        mct_plan_info_t info;
        if (mct_plan(&d, &info) != MCT_STATUS_SUCCESS || info.method == MCT_METHOD_AUTO) abort();
    }
    /* The same bytes as a file: read as the string was (up to a NUL byte),
     * and replaced by export_file only when they are wisdom. */
    const char* path = fuzz_fixture("wisdom.json");
    fuzz_write_file(path, data, size);
    mct_wisdom_t wf = NULL;
    if (mct_wisdom_create(&wf)) abort();
    const mct_status_t fs = mct_wisdom_import_file(wf, path);
    const int nul = memchr(data, 0, size) != NULL;
    if (!nul && fs != st) abort();
    const mct_status_t ws = mct_wisdom_file_writable(path);
    if (ws != MCT_STATUS_SUCCESS && ws != MCT_STATUS_INVALID_VALUE) abort();
    if (!nul && st == MCT_STATUS_SUCCESS && ws != MCT_STATUS_SUCCESS) abort();
    const mct_status_t es = mct_wisdom_export_file(wf, path);
    if (es != ws) abort();
    if (es) { /* refused: the file as it was */
        size_t n = 0;
        char* back = read_all(path, &n);
        if (!back || n != size || memcmp(back, data, size)) abort();
        free(back);
    }
    remove(path);
    mct_wisdom_destroy(wf);
    mct_wisdom_destroy(w);
    free(text);
    return 0;
}
