/* SPDX-License-Identifier: BSD-3-Clause */
/** @file cli.h  Internal interfaces of the mctally command-line tool. */
#ifndef MCT_CLI_H
#define MCT_CLI_H

#include <stdint.h>

#include "escape.h"
#include "phantom.h"
#include "scatter.h"
#include "sim_output.h"
#include "tally_only.h"
#include "mctally/mct.h"

/** A problem file after parsing, before command-line overrides. */
typedef struct {
    char type[32];
    int64_t histories;
    uint64_t seed;
    int64_t batches;
    mct_method_t method;           /* AUTO unless the file or a flag names one */
    mct_dtype_t dtype;
    mct_determinism_t determinism; /* what the planner must meet */
    mct_plan_mode_t plan_mode;
    char wisdom[4096];             /* wisdom file; "" none */
    mct_escape_params_t escape;
    mct_phantom_params_t phantom;
    mct_tally_only_params_t tally_only;
    mct_scatter_params_t scatter;
} mct_cli_config_t;

/** Prints "mctally: <message>" to stderr; returns 1 (the exit code of errors). */
int mct_cli_error(const char* fmt, ...);

/** Before a run: `dir` is a writable directory or can be made in one; `path` can be
 * written as a file (sim_out_check: absent or a regular file that is no input,
 * in a writable directory). Print one clear message and return 1 otherwise. */
int mct_cli_check_out_dir(const char* dir);
int mct_cli_check_out_file(const char* path);

/** Reads and checks a problem file; prints one clear message and returns
 * non-zero on the first problem found. */
int mct_cli_config_load(const char* path, mct_cli_config_t* cfg);

/** Parses whole numbers: a decimal integer or an exactly integral value in
 * scientific notation ("1e8"); 0 on success. */
int mct_cli_parse_i64(const char* text, int64_t min, int64_t max, int64_t* out);
int mct_cli_parse_u64(const char* text, uint64_t* out);
int mct_cli_parse_f64(const char* text, double min, double* out);

/** A run's checkpoint file (cli_checkpoint.c): where, and what identifies the run. */
typedef struct {
    const char* path;
    mct_tally_t tally;
    char* identity; /**< mct_cli_run_identity */
} mct_cli_checkpoint_t;

/** The run's identity as JSON text (malloc'd): version, problem, resolved
 * backend and method, type, bins, seed, histories, batches, the loss sample
 * and every parameter of the problem. */
char* mct_cli_run_identity(const char* problem, const mct_cli_config_t* cfg, mct_tally_t tally, int loss_sample_log2);
/** 1 after a message when `path` cannot take a checkpoint. */
int mct_cli_checkpoint_check_path(const char* path);
/** mct_sim_checkpoint_t.save: writes the file atomically (ctx: mct_cli_checkpoint_t). */
mct_status_t mct_cli_checkpoint_save(void* ctx, int64_t done, const void* state, size_t bytes);
/** Reads a checkpoint: refuses (1, after a message naming the reason) a file
 * that is not one, is corrupt or truncated, or is of another run than
 * `identity`; else loads the tally's state and returns the problem's state
 * (malloc'd) in *state. */
int mct_cli_checkpoint_resume(const char* path, const char* identity, mct_tally_t tally, void** state, size_t* bytes);

int mct_cli_run(int argc, char** argv);
int mct_cli_methods(int argc, char** argv);
int mct_cli_bench(int argc, char** argv);
int mct_cli_accumulate(int argc, char** argv);
int mct_cli_plan(int argc, char** argv);

struct cJSON;
/** The plan as a JSON object (method, source, mode, pattern, reason, seconds, ranking). */
struct cJSON* mct_cli_plan_json(const mct_plan_info_t* plan);
/** Prints the plan's ranking as a table. */
void mct_cli_print_plan(const mct_plan_info_t* plan);
/** Wisdom file: open reads `path` into a new handle (*out NULL when path is NULL
 * or empty; a missing file is empty, an unreadable one a warning); returns 1
 * after a message when `path` cannot be written later. close writes it back
 * atomically and frees it. */
int mct_cli_wisdom_open(const char* path, mct_wisdom_t* out);
int mct_cli_wisdom_close(const char* path, mct_wisdom_t w);

#endif /* MCT_CLI_H */
