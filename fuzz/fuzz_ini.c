/* SPDX-License-Identifier: BSD-3-Clause */
/** @file fuzz_ini.c  Harness of the problem-file reader: any bytes as a
 * problem file's text. A file that is accepted must give parameters that every
 * problem's table accepts, and a known problem. */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    if (size > MCT_CLI_INI_MAX_BYTES) return 0;
    /* A copy of exactly `size` bytes, without a NUL after them: the reader
     * must not read past the end. */
    char* text = malloc(size ? size : 1);
    if (!text) return 0;
    if (size) memcpy(text, data, size);
    mct_cli_config_t cfg;
    if (mct_cli_config_parse(text, size, "fuzz.ini", &cfg) == 0) {
        if (strcmp(cfg.type, "escape") && strcmp(cfg.type, "phantom") && strcmp(cfg.type, "tally_only") &&
            strcmp(cfg.type, "scatter") && strcmp(cfg.type, "pet"))
            abort();
        if (cfg.histories < 1 || cfg.batches < 1) abort();
        if (mct_sim_params_check(&mct_escape_param_table, &cfg.escape, NULL) ||
            mct_sim_params_check(&mct_phantom_param_table, &cfg.phantom, NULL) ||
            mct_sim_params_check(&mct_tally_only_param_table, &cfg.tally_only, NULL) ||
            mct_sim_params_check(&mct_scatter_param_table, &cfg.scatter, NULL) ||
            mct_sim_params_check(&mct_pet_param_table, &cfg.pet, NULL) || cfg.pet.nshapes > MCT_PET_MAX_SHAPES)
            abort();
    }
    free(text);
    return 0;
}
