/* SPDX-License-Identifier: BSD-3-Clause */
/** @file sim_table.h  The one reader of decimal numbers and of CSV number
 * tables that every input of the problems and the CLI goes through (problem
 * files and flags, material tables, calibrations and MetaImage headers,
 * reference doses), so that each accepts the same numbers and refuses the
 * same mistakes with the same words. */
#ifndef MCT_SIM_TABLE_H
#define MCT_SIM_TABLE_H

#include <stddef.h>

#include "mctally/mct_status.h"

#ifdef __cplusplus
extern "C" {
#endif

/** 1 when s is, as a whole, a decimal number: [+-] digits [. digits]
 * [e [+-] digits] with a digit before or after the point (integer_only:
 * [+-] digits); no blanks, hex, "inf" or "nan". */
int mct_sim_decimal_syntax(const char* s, int integer_only);

/** Parses s, the whole of it a decimal number (mct_sim_decimal_syntax),
 * into a finite double: 0 on success, 1 for any other text or a value
 * beyond a double's range or so small that it underflows (*out unchanged). */
int mct_sim_parse_decimal(const char* s, double* out);

/** The longest line of a table, in bytes without its line end. */
#define MCT_SIM_TABLE_MAX_LINE 4094

/** Reads a CSV table of numbers: a first line that is `header` exactly
 * (blanks and the line end around it ignored), then rows of `cols` decimal
 * numbers separated by ',' (blanks around a number ignored; blank lines
 * skipped), at least min_rows and at most max_rows of them, each line at
 * most MCT_SIM_TABLE_MAX_LINE bytes. On success *out is a new array of
 * *rows x cols numbers (free() it). On failure *out is NULL, *rows 0, and err
 * holds one line naming the file and, where there is one, the line:
 * "PATH:LINE: column C: \"x\" is not a decimal number", "PATH:LINE: 3
 * columns, not 4", "PATH:1: the header is not \"...\"", "PATH: 1 row, fewer
 * than 2", "PATH: cannot open (...)". Returns IO_ERROR (cannot open or read),
 * PARSE_ERROR (the text), TOO_LARGE (more than max_rows), OUT_OF_MEMORY,
 * NULL_POINTER or INVALID_VALUE (cols < 1, min_rows > max_rows). */
mct_status_t mct_sim_table_read(const char* path, const char* header, int cols, int min_rows, int max_rows,
                                double** out, int* rows, char* err, size_t errlen);

#ifdef __cplusplus
}
#endif

#endif /* MCT_SIM_TABLE_H */
