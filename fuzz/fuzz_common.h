/* SPDX-License-Identifier: BSD-3-Clause */
/** @file fuzz_common.h  What the fuzzing harnesses share: the quiet error
 * printer, the fixture files an input can name, and argv from bytes. */
#ifndef MCT_FUZZ_COMMON_H
#define MCT_FUZZ_COMMON_H

#include <stddef.h>
#include <stdint.h>

/** The entry point libFuzzer calls (and replay_main.c, without libFuzzer). */
int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

/** The most argv entries an input becomes. */
#define FUZZ_MAX_ARGS 24

/** A directory of fixture files, made once per process and removed at exit:
 * the path of fixture `name` ("escape.ini", "keys", "fifo", ...) in *path. */
const char* fuzz_fixture(const char* name);

/** Splits `size` bytes into NUL-separated tokens (the last one may end without
 * a NUL), at most FUZZ_MAX_ARGS; a token "@name" becomes the path of the
 * fixture `name`. The tokens are copies in `store` (size + 1 bytes or more,
 * plus room for the fixture paths); returns the count. */
int fuzz_split_args(const uint8_t* data, size_t size, char* store, size_t store_size, char** argv);

/** Writes `size` bytes to the file `path`; aborts when it cannot (the harness
 * is broken then, not the code under test). */
void fuzz_write_file(const char* path, const void* data, size_t size);

#endif
