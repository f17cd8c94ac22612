/* SPDX-License-Identifier: BSD-3-Clause */
/** @file fuzz_accumulate.c  Harness of `mctally accumulate`'s file readers:
 * the input is the keys file and the values file, written to disk and read
 * through the CLI's own reader. Byte 0 picks the bins (1 .. 256), bytes 1-2
 * (little-endian) where the keys file ends. Accepted data must hold keys in
 * range and finite values, as many of each. */
#include <stdio.h>
#include <stdlib.h>

#include "cli.h"
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    if (size < 3 || size > (1u << 16)) return 0;
    const int bins = 1 + data[0];
    size_t split = (size_t)data[1] | (size_t)data[2] << 8;
    data += 3, size -= 3;
    if (split > size) split = size;
    char keys[512], values[512], nbins[16];
    snprintf(keys, sizeof keys, "%s", fuzz_fixture("k.bin"));
    snprintf(values, sizeof values, "%s", fuzz_fixture("v.bin"));
    snprintf(nbins, sizeof nbins, "%d", bins);
    fuzz_write_file(keys, data, split);
    fuzz_write_file(values, data + split, size - split);
    char* argv[] = {"--bins", nbins, "--keys", keys, "--values", values, "--out", "fuzz-accumulate.out", NULL};
    mct_cli_acc_t a;
    if (mct_cli_accumulate_prepare(8, argv, &a) == 0) {
        if (a.n < 1 || (size_t)a.n * 4 != split || (size_t)a.n * 8 != size - split) abort();
        for (int64_t i = 0; i < a.n; ++i)
            if ((int64_t)a.keys[i] >= bins || a.values[i] != a.values[i] || a.values[i] - a.values[i] != 0.0) abort();
    }
    mct_cli_accumulate_free(&a);
    remove(keys);
    remove(values);
    return 0;
}
