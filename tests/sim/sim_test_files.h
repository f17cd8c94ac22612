/* SPDX-License-Identifier: BSD-3-Clause */
/** @file sim_test_files.h  The files the problem tests write: a scratch
 * directory of their own, paths in it and text files, each step checked. */
#ifndef MCT_SIM_TEST_FILES_H
#define MCT_SIM_TEST_FILES_H

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "test_assert.h"

/* A new directory NAME_XXXXXX (mkdtemp) under $TMPDIR, or /tmp. */
static inline void sim_test_dir_make(char* dir, size_t size, const char* name) {
    const char* tmp = getenv("TMPDIR");
    snprintf(dir, size, "%s/%s_XXXXXX", tmp && *tmp ? tmp : "/tmp", name);
    ASSERT_TRUE(mkdtemp(dir) != NULL);
}

/* Removes a sim_test_dir_make directory and what it holds. */
static inline void sim_test_dir_remove(const char* dir) {
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    ASSERT_TRUE(system(cmd) == 0);
}

/* out = dir/name. */
static inline void sim_test_path(char* out, size_t size, const char* dir, const char* name) {
    snprintf(out, size, "%s/%s", dir, name);
}

/* Writes `text` as the file dir/name. */
static inline void sim_test_write_text(const char* dir, const char* name, const char* text) {
    char p[512];
    sim_test_path(p, sizeof p, dir, name);
    FILE* f = fopen(p, "wb");
    ASSERT_TRUE(f != NULL);
    fputs(text, f);
    ASSERT_TRUE(fclose(f) == 0);
}

#endif /* MCT_SIM_TEST_FILES_H */
