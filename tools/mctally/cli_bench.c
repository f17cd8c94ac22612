/* SPDX-License-Identifier: BSD-3-Clause */
/** @file cli_bench.c  `mctally bench SUITE`: benchmark suites run on a GPU. */
#include <stdio.h>
#include <string.h>

#include "cli.h"

#if MCT_HAVE_CUDA
int mct_bench_escape(int argc, char** argv);
int mct_bench_scan(int argc, char** argv);
int mct_bench_tally_only(int argc, char** argv); /* bench/tally_only/bench_tally_only.cu */
int mct_bench_scatter(int argc, char** argv); /* bench/scatter/bench_scatter.cu */
int mct_bench_mpc(int argc, char** argv);
int mct_bench_accuracy(int argc, char** argv); /* bench/accuracy/bench_accuracy.cu */
#endif
/* Host C on the phantom's public API (bench/phantom/bench_phantom.c). */
int mct_bench_phantom(int argc, char** argv);
/* Host C on the PET problem's API (bench/pet/bench_pet.c). */
int mct_bench_pet(int argc, char** argv);

int mct_cli_bench(int argc, char** argv) {
    if (argc < 1 || !strcmp(argv[0], "--help") || !strcmp(argv[0], "-h")) {
        puts("usage: mctally bench SUITE [options]\nsuites: escape (Bossler 2018 Table V on this GPU)\n"
             "        scan (device-wide prefix scan beside CUB DeviceScan, 2^20..2^30 i32 and f64)\n"
             "        scatter (bin[key] += value from GPU arrays, f64: every method beside CUB, B = 1..1e6)\n"
             "        mpc (Westphal's MPC workload: 1e7 particles, 1e6 cells, 9 f64 components)\n"
             "        accuracy (f32 atomic / kahan / fixed / f64 error vs additions, 1e5..1e9, 1 and 8 bins)\n"
             "        tally_only (Liu 2018 test 1, T1 of Tables II and III: 1e7 and 3e9 particles, every f64 method)\n"
             "        phantom (Liu 2018 Tables II-IV: water phantom tests 2-4, tally overhead, FP32/KAS accuracy)\n"
             "        pet (Ansorge 2022 Table 8.2: PET LORs into the full map per method, tally overhead, system\n"
             "             matrix, MLEM iteration)\n"
             "options of escape: --histories N (1e8) --reps R (7) --out FILE.json\n"
             "options of scan: --min-log2 K (20) --max-log2 K (30) --reps R (9) --no-tuning --no-chained "
             "--out FILE.json\n"
             "options of scatter and mpc: --n N (1e8 / 1e7) --reps R (7) --case-seconds S (0.5) --methods a,b,... (all) "
             "--out FILE.json\n"
             "options of accuracy: --max-log10 N (9) --reps R (3) --cap-s S (30) --budget-s S (100) --out FILE.json\n"
             "options of tally_only: --tables 2,3 --scale F (1) --reps R (5) --case-s S (3) --max-case-s S (30) "
             "--budget-s S (300) --out FILE.json\n"
             "options of phantom: --tables 2,3,4 --scale F (1) --reps R (3) --out FILE.json\n"
             "options of pet: --parts table8.2,index,matrix,mlem --scale F (1) --reps R (3) --methods a,b,... "
             "--iterations N (5) --image-dir DIR --out FILE.json");
        return argc < 1 ? 1 : 0;
    }
    const int scan = !strcmp(argv[0], "scan");
    const int phantom = !strcmp(argv[0], "phantom");
    const int scatter = !strcmp(argv[0], "scatter"), mpc = !strcmp(argv[0], "mpc");
    const int accuracy = !strcmp(argv[0], "accuracy");
    const int tally_only = !strcmp(argv[0], "tally_only");
    const int pet = !strcmp(argv[0], "pet");
    if (strcmp(argv[0], "escape") != 0 && !scan && !phantom && !scatter && !mpc && !accuracy && !tally_only && !pet)
        return mct_cli_error("bench: unknown suite '%s' (known: escape, scan, scatter, mpc, accuracy, tally_only, phantom, pet)", argv[0]);
    for (int i = 1; i + 1 < argc; ++i) /* before the device and the runs */
        if (!strcmp(argv[i], "--out") && mct_cli_check_out_file(argv[i + 1])) return 1;
#if MCT_HAVE_CUDA
    mct_tally_t probe = NULL;
    mct_tally_desc_t d;
    mct_tally_desc_init(&d);
    d.backend = MCT_BACKEND_CUDA;
    if (mct_tally_create(&probe, &d) != MCT_STATUS_SUCCESS)
        return mct_cli_error("bench: no usable CUDA device; benchmarks run on a GPU only");
    mct_tally_destroy(probe);
    if (phantom) return mct_bench_phantom(argc - 1, argv + 1);
    if (pet) return mct_bench_pet(argc - 1, argv + 1);
    if (scatter) return mct_bench_scatter(argc - 1, argv + 1);
    if (mpc) return mct_bench_mpc(argc - 1, argv + 1);
    if (accuracy) return mct_bench_accuracy(argc - 1, argv + 1);
    if (tally_only) return mct_bench_tally_only(argc - 1, argv + 1);
    return scan ? mct_bench_scan(argc - 1, argv + 1) : mct_bench_escape(argc - 1, argv + 1);
#else
    (void)scan, (void)phantom, (void)scatter, (void)mpc, (void)accuracy, (void)tally_only, (void)pet;
    return mct_cli_error("bench: this build has no CUDA backend; benchmarks run on a GPU only");
#endif
}
