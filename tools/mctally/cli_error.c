/* SPDX-License-Identifier: BSD-3-Clause */
/** @file cli_error.c  The tool's one error printer (a fuzzing harness links
 * its own, which keeps the messages off stderr). */
#include <stdarg.h>
#include <stdio.h>

#include "cli.h"

int mct_cli_error(const char* fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fputs("mctally: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    return 1;
}
