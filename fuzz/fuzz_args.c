/* SPDX-License-Identifier: BSD-3-Clause */
/** @file fuzz_args.c  Harness of the argument parsers of `mctally run` and
 * `mctally accumulate`, up to the point where a problem would run or a tally
 * would be made: the first byte picks the command, the rest is argv, split at
 * NUL bytes; "@escape.ini", "@keys", "@fifo", "@dir", ... name fixture files
 * (fuzz_common.c). What is accepted must be in range. */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    if (size < 1 || size > 4096) return 0;
    char store[4096 + FUZZ_MAX_ARGS * 512];
    char* argv[FUZZ_MAX_ARGS + 1];
    const int argc = fuzz_split_args(data + 1, size - 1, store, sizeof store, argv);
    if (data[0] & 1) {
        mct_cli_acc_t a;
        const int rc = mct_cli_accumulate_prepare(argc, argv, &a);
        if (rc == 0) {
            if (a.bins < 1 || a.bins > (INT64_C(1) << 31) || a.n < 1 || !a.out) abort();
            for (int64_t i = 0; i < a.n; ++i)
                if ((int64_t)a.keys[i] >= a.bins || a.values[i] != a.values[i] || a.values[i] - a.values[i] != 0.0)
                    abort();
        }
        mct_cli_accumulate_free(&a);
    } else {
        mct_cli_run_args_t a;
        if (mct_cli_run_parse(argc, argv, &a) == 0) {
            if (a.cfg.histories < a.cfg.batches || a.cfg.batches < 1) abort();
            mct_tally_desc_t d;
            if (mct_cli_run_desc(&a, &d) == 0 && (d.bins < 1 || d.bins > (INT64_C(1) << 31))) abort();
        }
    }
    return 0;
}
