/* SPDX-License-Identifier: BSD-3-Clause */
/** @file cli_flags.h  Numbers given to the tool's flags, for every command
 * (the benchmarks' included, compiled as C or CUDA C++): through the one
 * decimal parser of cli.h (mct_cli_parse_i64/f64), so "2e7" is twenty million
 * or an error, never 2. */
#ifndef MCT_CLI_FLAGS_H
#define MCT_CLI_FLAGS_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** A flag's value through the tool's number parser: 0, or 1 after a message naming
 * the command's flag ("bench escape --histories") and the range it needs. */
int mct_cli_flag_i64(const char* flag, const char* text, int64_t min, int64_t max, int64_t* out);
int mct_cli_flag_f64(const char* flag, const char* text, double min, double* out);
/** The same into an int field, returning 1 from the calling parser on error. */
#define MCT_CLI_FLAG_INT(dst, flag, text, min, max)                                  \
    do {                                                                             \
        int64_t mct_flag_v_;                                                         \
        if (mct_cli_flag_i64((flag), (text), (min), (max), &mct_flag_v_)) return 1; \
        (dst) = mct_flag_v_;                                                         \
    } while (0)
#define MCT_CLI_FLAG_F64(dst, flag, text, min)                                   \
    do {                                                                         \
        double mct_flag_v_;                                                      \
        if (mct_cli_flag_f64((flag), (text), (min), &mct_flag_v_)) return 1;   \
        (dst) = mct_flag_v_;                                                     \
    } while (0)

#ifdef __cplusplus
}
#endif

#endif /* MCT_CLI_FLAGS_H */
