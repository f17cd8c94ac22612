/* SPDX-License-Identifier: BSD-3-Clause */
/** @file cli_bench.c  `mctally bench SUITE`: benchmark suites run on a GPU. */
#include <stdio.h>
#include <string.h>

#include "cli.h"

#if MCT_HAVE_CUDA
int mct_bench_escape(int argc, char** argv);
#endif

int mct_cli_bench(int argc, char** argv) {
    if (argc < 1 || !strcmp(argv[0], "--help") || !strcmp(argv[0], "-h")) {
        puts("usage: mctally bench SUITE [options]\nsuites: escape (Bossler 2018 Table V on this GPU)\n"
             "options of escape: --histories N (1e8) --reps R (7) --out FILE.json");
        return argc < 1 ? 1 : 0;
    }
    if (strcmp(argv[0], "escape") != 0) return mct_cli_error("bench: unknown suite '%s' (known: escape)", argv[0]);
#if MCT_HAVE_CUDA
    mct_tally_t probe = NULL;
    mct_tally_desc_t d;
    mct_tally_desc_init(&d);
    d.backend = MCT_BACKEND_CUDA;
    if (mct_tally_create(&probe, &d) != MCT_STATUS_SUCCESS)
        return mct_cli_error("bench: no usable CUDA device; benchmarks run on a GPU only");
    mct_tally_destroy(probe);
    return mct_bench_escape(argc - 1, argv + 1);
#else
    return mct_cli_error("bench: this build has no CUDA backend; benchmarks run on a GPU only");
#endif
}
