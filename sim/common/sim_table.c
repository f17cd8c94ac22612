/* SPDX-License-Identifier: BSD-3-Clause */
/** @file sim_table.c  Decimal numbers and CSV number tables (sim_table.h). */
#include "sim_table.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim_common.h"

int mct_sim_decimal_syntax(const char* s, int integer_only) {
    if (!s) return 0;
    if (*s == '+' || *s == '-') ++s;
    size_t digits = strspn(s, "0123456789");
    s += digits;
    if (!integer_only && *s == '.') {
        const size_t frac = strspn(s + 1, "0123456789");
        digits += frac;
        s += 1 + frac;
    }
    if (digits == 0) return 0;
    if (!integer_only && (*s == 'e' || *s == 'E')) {
        ++s;
        if (*s == '+' || *s == '-') ++s;
        const size_t exp = strspn(s, "0123456789");
        if (exp == 0) return 0;
        s += exp;
    }
    return *s == '\0';
}

int mct_sim_parse_decimal(const char* s, double* out) {
    if (!out || !mct_sim_decimal_syntax(s, 0)) return 1;
    char* end = NULL;
    errno = 0;
    const double v = strtod(s, &end);
    /* ERANGE: beyond the range of a double, or so small that it underflows. */
    if (end == s || *end != '\0' || errno == ERANGE || !isfinite(v)) return 1;
    *out = v;
    return 0;
}

/* s without the blanks (and a line end) around it, in place. */
static char* trim(char* s) {
    s += strspn(s, " \t");
    char* end = s + strlen(s);
    while (end > s && (end[-1] == ' ' || end[-1] == '\t' || end[-1] == '\r' || end[-1] == '\n')) *--end = '\0';
    return s;
}

/* One data line into cols numbers at v: SUCCESS or PARSE_ERROR with err. */
static mct_status_t parse_row(char* s, int cols, double* v, const char* path, int lineno, char* err, size_t errlen) {
    int c = 0;
    for (char* cell = s;; ++c) {
        char* comma = strchr(cell, ',');
        if (comma) *comma = '\0';
        if (c == cols) {
            /* Count them all for the message. */
            int n = c + 1;
            for (char* q = comma; q; q = strchr(q + 1, ',')) ++n;
            return sim_fail(err, errlen, MCT_STATUS_PARSE_ERROR, "%s:%d: %d columns, not %d", path, lineno, n, cols);
        }
        char* t = trim(cell);
        if (mct_sim_parse_decimal(t, &v[c]))
            return sim_fail(err, errlen, MCT_STATUS_PARSE_ERROR, "%s:%d: column %d: \"%s\" is not a decimal number",
                            path, lineno, c + 1, t);
        if (!comma) break;
        cell = comma + 1;
    }
    if (c + 1 != cols)
        return sim_fail(err, errlen, MCT_STATUS_PARSE_ERROR, "%s:%d: %d column%s, not %d", path, lineno, c + 1,
                        c ? "s" : "", cols);
    return MCT_STATUS_SUCCESS;
}

mct_status_t mct_sim_table_read(const char* path, const char* header, int cols, int min_rows, int max_rows,
                                double** out, int* rows, char* err, size_t errlen) {
    if (err && errlen) err[0] = '\0';
    if (!path || !header || !out || !rows) return MCT_STATUS_NULL_POINTER;
    *out = NULL;
    *rows = 0;
    if (cols < 1 || min_rows < 0 || min_rows > max_rows)
        return sim_fail(err, errlen, MCT_STATUS_INVALID_VALUE, "%s: %d columns, %d to %d rows asked", path, cols,
                        min_rows, max_rows);
    FILE* f = fopen(path, "r");
    if (!f) return sim_fail(err, errlen, MCT_STATUS_IO_ERROR, "%s: cannot open (%s)", path, strerror(errno));
    char line[MCT_SIM_TABLE_MAX_LINE + 2];
    double* t = NULL;
    size_t cap = 0;
    int n = 0, lineno = 0;
    mct_status_t st = MCT_STATUS_SUCCESS;
    while (!st && fgets(line, sizeof line, f)) {
        ++lineno;
        if (!strchr(line, '\n') && !feof(f)) {
            st = sim_fail(err, errlen, MCT_STATUS_PARSE_ERROR, "%s:%d: line longer than %d bytes", path, lineno,
                          MCT_SIM_TABLE_MAX_LINE);
            break;
        }
        char* s = trim(line);
        if (lineno == 1) {
            if (strcmp(s, header) != 0)
                st = sim_fail(err, errlen, MCT_STATUS_PARSE_ERROR, "%s:1: the header is not \"%s\"", path, header);
            continue;
        }
        if (!*s) continue;
        if (n == max_rows) {
            st = sim_fail(err, errlen, MCT_STATUS_TOO_LARGE, "%s:%d: more than %d rows", path, lineno, max_rows);
            break;
        }
        if ((size_t)(n + 1) * (size_t)cols > cap) {
            cap = cap ? 2 * cap : 256 * (size_t)cols;
            double* g = realloc(t, cap * sizeof *t);
            if (!g) {
                st = sim_fail(err, errlen, MCT_STATUS_OUT_OF_MEMORY, "%s: out of memory", path);
                break;
            }
            t = g;
        }
        st = parse_row(s, cols, t + (size_t)n * (size_t)cols, path, lineno, err, errlen);
        if (!st) ++n;
    }
    if (!st && ferror(f)) st = sim_fail(err, errlen, MCT_STATUS_IO_ERROR, "%s: read error", path);
    if (!st && lineno == 0)
        st = sim_fail(err, errlen, MCT_STATUS_PARSE_ERROR, "%s: empty: no header \"%s\"", path, header);
    if (!st && n < min_rows)
        st = sim_fail(err, errlen, MCT_STATUS_PARSE_ERROR, "%s: %d row%s, fewer than %d", path, n, n == 1 ? "" : "s",
                      min_rows);
    fclose(f);
    if (st) {
        free(t);
        return st;
    }
    *out = t;
    *rows = n;
    return MCT_STATUS_SUCCESS;
}
