/* SPDX-License-Identifier: BSD-3-Clause */
/** @file main.c  Entry point of the `mctally` command: dispatches sub-commands. */
#include <stdio.h>
#include <string.h>

#include "cli.h"

static const char usage[] =
    "usage: mctally <command> [options]\n"
    "\n"
    "commands:\n"
    "  run FILE.ini [--backend auto|cpu|cuda|emulated] [--method M|auto] [--dtype T]\n"
    "               [--histories N] [--seed S] [--batches B] [--out DIR]\n"
    "               [--determinism D] [--plan estimate|measure] [--wisdom FILE]\n"
    "                       run a Monte Carlo problem, write DIR/result.json\n"
    "                       (mpirun -n R mctally run ...: R ranks share it)\n"
    "  accumulate --bins B --keys FILE --values FILE --out FILE [--method M]\n"
    "             [--backend B] [--dtype T] [--frac-bits N]\n"
    "                       tally user data (u32 keys, f64 values) into B bins\n"
    "  methods              list tally methods, their types, determinism and backends\n"
    "  plan --bins B [--dtype T] [--determinism D] [--keys FILE] [--mode estimate|measure]\n"
    "       [--backend X] [--wisdom FILE] ...\n"
    "                       the method auto picks for a tally, and the ranking it considered\n"
    "  pet-matrix FILE.ini [--voxels R] [--out FILE] ...\n"
    "                       the PET system matrix from one voxel run per radial ring\n"
    "  pet-reco --matrix FILE --lors FILE [--iterations N] [--out DIR] ...\n"
    "                       MLEM reconstruction of a pet run's LORs (MetaImage + PNG)\n"
    "  bench SUITE [--out FILE.json] [options]\n"
    "                       run a benchmark suite on the GPU (suites: escape, scan, phantom,\n"
    "                       tally_only, scatter, mpc, accuracy, pet)\n"
    "\n"
    "  --help               this text (also after a command: mctally run --help)\n"
    "  --version            print the version\n";

int main(int argc, char** argv) {
    if (argc < 2) {
        fputs(usage, stderr);
        return 1;
    }
    const char* cmd = argv[1];
    if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h") || !strcmp(cmd, "help")) {
        fputs(usage, stdout);
        return 0;
    }
    if (!strcmp(cmd, "--version")) {
        printf("mctally %s\n", mct_version());
        return 0;
    }
    if (!strcmp(cmd, "run")) {
        /* Under mpirun the ranks share the run (cli_ranks.c). */
        mct_cli_ranks_t* ranks = NULL;
        if (mct_cli_ranks_start(&argc, &argv, &ranks)) return 1;
        const int rc = mct_cli_run(argc - 2, argv + 2, ranks);
        mct_cli_ranks_stop(ranks);
        return rc;
    }
    if (!strcmp(cmd, "methods")) return mct_cli_methods(argc - 2, argv + 2);
    if (!strcmp(cmd, "bench")) return mct_cli_bench(argc - 2, argv + 2);
    if (!strcmp(cmd, "accumulate")) return mct_cli_accumulate(argc - 2, argv + 2);
    if (!strcmp(cmd, "plan")) return mct_cli_plan(argc - 2, argv + 2);
    if (!strcmp(cmd, "pet-matrix")) return mct_cli_pet_matrix(argc - 2, argv + 2);
    if (!strcmp(cmd, "pet-reco")) return mct_cli_pet_reco(argc - 2, argv + 2);
    mct_cli_error("unknown command '%s' (try: mctally --help)", cmd);
    return 1;
}
