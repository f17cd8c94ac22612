/* SPDX-License-Identifier: BSD-3-Clause */
/** @file replay_main.c  Runs a harness without libFuzzer: every file named,
 * and every file of every directory named, once, as one input. A crash found
 * by fuzzing is kept under fuzz/regressions/<target>/ and replayed by ctest
 * with this program (built by the normal compiler, sanitizers or not). */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz_common.h"

static int replay_file(const char* path) {
    FILE* f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "replay: cannot open '%s'\n", path);
        return 1;
    }
    size_t cap = 4096, n = 0;
    uint8_t* buf = malloc(cap);
    size_t got;
    while (buf && (got = fread(buf + n, 1, cap - n, f)) > 0) {
        n += got;
        if (n == cap) {
            uint8_t* grown = realloc(buf, cap *= 2);
            if (!grown) free(buf);
            buf = grown;
        }
    }
    fclose(f);
    if (!buf) return 1;
    /* An exact-size copy, so that a read past the input is caught. */
    uint8_t* exact = malloc(n ? n : 1);
    if (!exact) return 1;
    memcpy(exact, buf, n);
    free(buf);
    LLVMFuzzerTestOneInput(exact, n);
    free(exact);
    return 0;
}

static int cmp_names(const void* a, const void* b) { return strcmp(*(char* const*)a, *(char* const*)b); }

int main(int argc, char** argv) {
    int inputs = 0, rc = 0;
    for (int i = 1; i < argc; ++i) {
        struct stat st;
        if (stat(argv[i], &st) != 0) {
            fprintf(stderr, "replay: no such file or directory '%s'\n", argv[i]);
            return 1;
        }
        if (!S_ISDIR(st.st_mode)) {
            rc |= replay_file(argv[i]);
            ++inputs;
            continue;
        }
        DIR* d = opendir(argv[i]);
        if (!d) return 1;
        char** names = NULL;
        size_t count = 0;
        for (struct dirent* e; (e = readdir(d));) {
            if (e->d_name[0] == '.') continue;
            char** grown = realloc(names, (count + 1) * sizeof *names);
            if (!grown) return 1;
            names = grown;
            names[count] = malloc(strlen(argv[i]) + strlen(e->d_name) + 2);
            sprintf(names[count++], "%s/%s", argv[i], e->d_name);
        }
        closedir(d);
        qsort(names, count, sizeof *names, cmp_names);
        for (size_t k = 0; k < count; ++k) {
            rc |= replay_file(names[k]);
            ++inputs;
            free(names[k]);
        }
        free(names);
    }
    printf("replay: %d inputs ran\n", inputs);
    return rc || inputs == 0;
}
