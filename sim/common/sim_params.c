/* SPDX-License-Identifier: BSD-3-Clause */
/** @file sim_params.c  The problems' parameter tables (sim_params.h). */
#include "sim_params.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

const mct_sim_param_t* mct_sim_param_find(const mct_sim_param_table_t* table, const char* key) {
    if (!table || !key) return NULL;
    for (int i = 0; i < table->count; ++i)
        if (!strcmp(table->params[i].key, key)) return &table->params[i];
    return NULL;
}

double mct_sim_param_get(const mct_sim_param_t* p, const void* params) {
    const char* field = (const char*)params + p->offset;
    switch (p->type) {
    case MCT_SIM_PARAM_INT: return (double)*(const int*)field;
    case MCT_SIM_PARAM_I64: return (double)*(const int64_t*)field;
    case MCT_SIM_PARAM_U64: return (double)*(const uint64_t*)field;
    default: return *(const double*)field;
    }
}

void mct_sim_param_set(const mct_sim_param_t* p, void* params, double v) {
    char* field = (char*)params + p->offset;
    switch (p->type) {
    case MCT_SIM_PARAM_INT: *(int*)field = (int)v; break;
    case MCT_SIM_PARAM_I64: *(int64_t*)field = (int64_t)v; break;
    case MCT_SIM_PARAM_U64: *(uint64_t*)field = (uint64_t)v; break;
    default: *(double*)field = v; break;
    }
}

void mct_sim_param_set_int(const mct_sim_param_t* p, void* params, int64_t v) {
    char* field = (char*)params + p->offset;
    if (p->type == MCT_SIM_PARAM_INT)
        *(int*)field = (int)v;
    else if (p->type == MCT_SIM_PARAM_I64)
        *(int64_t*)field = v;
    else if (p->type == MCT_SIM_PARAM_U64)
        *(uint64_t*)field = (uint64_t)v;
    else
        *(double*)field = (double)v;
}

int mct_sim_param_in_range(const mct_sim_param_t* p, double v) {
    if (!isfinite(v) || v > p->max) return 0;
    if ((p->flags & MCT_SIM_PARAM_MIN_OPEN) ? !(v > p->min) : !(v >= p->min)) return 0;
    return p->type == MCT_SIM_PARAM_F64 || v == floor(v);
}

int mct_sim_param_valid(const mct_sim_param_t* p, double v) {
    return ((p->flags & MCT_SIM_PARAM_ZERO_UNSET) && v == 0.0) || mct_sim_param_in_range(p, v);
}

mct_status_t mct_sim_params_check(const mct_sim_param_table_t* table, const void* params,
                                  const mct_sim_param_t** bad) {
    if (!table || !params) return MCT_STATUS_NULL_POINTER;
    for (int i = 0; i < table->count; ++i)
        if (!mct_sim_param_valid(&table->params[i], mct_sim_param_get(&table->params[i], params))) {
            if (bad) *bad = &table->params[i];
            return MCT_STATUS_INVALID_VALUE;
        }
    return MCT_STATUS_SUCCESS;
}

void mct_sim_params_defaults(const mct_sim_param_table_t* table, void* params, size_t size) {
    memset(params, 0, size);
    for (int i = 0; i < table->count; ++i) mct_sim_param_set(&table->params[i], params, table->params[i].value);
}

/* A bound as a reader writes it: whole numbers in full, powers of two from
 * 2^20 as 2^k, other reals in %g with the exponent's sign and zeros dropped
 * (1e30, not 1e+30). */
static void format_bound(char* buf, size_t size, double v, int whole) {
    int k;
    if (whole && v >= 0x1p20 && frexp(v, &k) == 0.5) {
        snprintf(buf, size, "2^%d", k - 1);
        return;
    }
    if (whole && fabs(v) < 0x1p53) {
        snprintf(buf, size, "%lld", (long long)v);
        return;
    }
    char g[40];
    snprintf(g, sizeof g, "%g", v);
    char* e = strchr(g, 'e');
    if (e) {
        char* digits = e + 1;
        const int negative = *digits == '-';
        if (*digits == '+' || *digits == '-') ++digits;
        while (digits[0] == '0' && digits[1]) ++digits;
        snprintf(e + 1, sizeof g - (size_t)(e + 1 - g), "%s%s", negative ? "-" : "", digits);
    }
    snprintf(buf, size, "%s", g);
}

const char* mct_sim_param_describe(const mct_sim_param_t* p, char* buf, size_t size) {
    const int whole = p->type != MCT_SIM_PARAM_F64, open = (p->flags & MCT_SIM_PARAM_MIN_OPEN) != 0;
    char lo[40], hi[40], range[120];
    format_bound(lo, sizeof lo, p->min, whole);
    format_bound(hi, sizeof hi, p->max, whole);
    const int unbounded = isinf(p->max) || (whole && p->max >= 0x1p63);
    if (unbounded)
        snprintf(range, sizeof range, "%s %s %s", whole ? "a whole number" : "a number", open ? ">" : ">=", lo);
    else if (whole)
        snprintf(range, sizeof range, "a whole number %s .. %s", lo, hi);
    else
        snprintf(range, sizeof range, "a number in %c%s, %s]", open ? '(' : '[', lo, hi);
    if (p->note)
        snprintf(buf, size, "%s (%s)", range, p->note);
    else
        snprintf(buf, size, "%s", range);
    return buf;
}
