/* SPDX-License-Identifier: BSD-3-Clause */
/** @file fuzz_common.c  The harnesses' shared parts (fuzz_common.h). */
#define _POSIX_C_SOURCE 200809L
#include "fuzz_common.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"

/* The CLI's messages are formatted (so that a bad format or argument still
 * shows up under the sanitizers) but not printed. */
int mct_cli_error(const char* fmt, ...) {
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    return 1;
}

static char fixture_dir[256];

static const char* const fixture_names[] = {"escape.ini", "phantom.ini", "tally_only.ini", "scatter.ini", "keys",
                                            "values", "fifo", "dir", "empty"};

static void remove_fixtures(void) {
    char path[512];
    for (size_t i = 0; i < sizeof fixture_names / sizeof *fixture_names; ++i) {
        snprintf(path, sizeof path, "%s/%s", fixture_dir, fixture_names[i]);
        if (remove(path) != 0) rmdir(path);
    }
    rmdir(fixture_dir);
}

static void make_fixtures(void) {
    const char* tmp = getenv("TMPDIR");
    snprintf(fixture_dir, sizeof fixture_dir, "%s/mctally-fuzz-XXXXXX", tmp && tmp[0] && strlen(tmp) < 200 ? tmp : "/tmp");
    if (!mkdtemp(fixture_dir)) abort();
    atexit(remove_fixtures);
    static const char escape[] = "[problem]\ntype = escape\nhistories = 1000\n[escape]\nthickness_m = 10\n";
    static const char phantom[] = "[problem]\ntype = phantom\nhistories = 100\n[phantom]\nvoxels = 10\nenergy_MeV = 5\n";
    static const char tally_only[] = "[problem]\ntype = tally_only\nhistories = 100\n[tally_only]\nbins = 8000\n";
    static const char scatter[] = "[problem]\ntype = scatter\nhistories = 1000\n[scatter]\nbins = 100\nwidth = 3\n";
    const uint32_t keys[4] = {0, 1, 2, 1};
    const double values[4] = {1.0, 0.5, 0.25, 4.9e-324};
    fuzz_write_file(fuzz_fixture("escape.ini"), escape, sizeof escape - 1);
    fuzz_write_file(fuzz_fixture("phantom.ini"), phantom, sizeof phantom - 1);
    fuzz_write_file(fuzz_fixture("tally_only.ini"), tally_only, sizeof tally_only - 1);
    fuzz_write_file(fuzz_fixture("scatter.ini"), scatter, sizeof scatter - 1);
    fuzz_write_file(fuzz_fixture("keys"), keys, sizeof keys);
    fuzz_write_file(fuzz_fixture("values"), values, sizeof values);
    fuzz_write_file(fuzz_fixture("empty"), "", 0);
    if (mkfifo(fuzz_fixture("fifo"), 0600) != 0 || mkdir(fuzz_fixture("dir"), 0700) != 0) abort();
}

const char* fuzz_fixture(const char* name) {
    static char path[512];
    if (!fixture_dir[0]) make_fixtures();
    snprintf(path, sizeof path, "%s/%s", fixture_dir, name);
    return path;
}

void fuzz_write_file(const char* path, const void* data, size_t size) {
    FILE* f = fopen(path, "wb");
    if (!f || (size && fwrite(data, 1, size, f) != size) || fclose(f) != 0) abort();
}

int fuzz_split_args(const uint8_t* data, size_t size, char* store, size_t store_size, char** argv) {
    int argc = 0;
    size_t used = 0, i = 0;
    while (i < size && argc < FUZZ_MAX_ARGS) {
        const uint8_t* end = memchr(data + i, '\0', size - i);
        const size_t n = end ? (size_t)(end - (data + i)) : size - i;
        char token[256];
        const char* text = NULL;
        size_t len = n;
        if (n > 1 && n < sizeof token && data[i] == '@') {
            memcpy(token, data + i + 1, n - 1);
            token[n - 1] = '\0';
            for (size_t f = 0; f < sizeof fixture_names / sizeof *fixture_names; ++f)
                if (!strcmp(token, fixture_names[f])) text = fuzz_fixture(token), len = strlen(text);
        }
        if (used + len + 1 > store_size) break;
        memcpy(store + used, text ? (const void*)text : (const void*)(data + i), len);
        store[used + len] = '\0';
        argv[argc++] = store + used;
        used += len + 1;
        i += n + 1;
    }
    argv[argc] = NULL;
    return argc;
}
