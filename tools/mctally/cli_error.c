/* SPDX-License-Identifier: BSD-3-Clause */
/** @file cli_error.c  The tool's one error printer (a fuzzing harness links
 * its own, which keeps the messages off stderr). A message is written with
 * one call, so that the lines of ranks sharing a terminal (mpirun) do not
 * interleave. */
#include <stdarg.h>
#include <stdio.h>

#include "cli.h"

int mct_cli_error(const char* fmt, ...) {
    char line[8192];
    va_list ap;
    va_start(ap, fmt);
    const int n = snprintf(line, sizeof line, "mctally: ");
    const int m = vsnprintf(line + n, sizeof line - (size_t)n - 1, fmt, ap);
    va_end(ap);
    size_t end = (size_t)n + (m < 0 ? 0 : (size_t)m);
    if (end > sizeof line - 2) end = sizeof line - 2;
    line[end] = '\n';
    line[end + 1] = '\0';
    fputs(line, stderr);
    return 1;
}
