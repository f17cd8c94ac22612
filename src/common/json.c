/* SPDX-License-Identifier: BSD-3-Clause */
/** @file json.c  A strict JSON reader (RFC 8259) into a small tree, and the
 * writing helpers for the wisdom files. Strict: no comments, no trailing
 * commas, no leading zeros, no bare control characters in strings, nothing
 * after the value but white space. */
#include "json.h"

#include <locale.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { MAX_DEPTH = 64 };

typedef struct {
    const char* p;
} reader_t;

static void skip_ws(reader_t* r) {
    while (*r->p == ' ' || *r->p == '\t' || *r->p == '\n' || *r->p == '\r') ++r->p;
}

static int hex4(const char* s, unsigned* out) {
    unsigned v = 0;
    for (int i = 0; i < 4; ++i) {
        const char c = s[i];
        v <<= 4;
        if (c >= '0' && c <= '9') v |= (unsigned)(c - '0');
        else if (c >= 'a' && c <= 'f') v |= (unsigned)(c - 'a' + 10);
        else if (c >= 'A' && c <= 'F') v |= (unsigned)(c - 'A' + 10);
        else return 0;
    }
    *out = v;
    return 1;
}

static size_t put_utf8(char* d, unsigned cp) {
    if (cp < 0x80) return d[0] = (char)cp, 1;
    if (cp < 0x800) return d[0] = (char)(0xC0 | (cp >> 6)), d[1] = (char)(0x80 | (cp & 0x3F)), 2;
    if (cp < 0x10000)
        return d[0] = (char)(0xE0 | (cp >> 12)), d[1] = (char)(0x80 | ((cp >> 6) & 0x3F)),
               d[2] = (char)(0x80 | (cp & 0x3F)), 3;
    d[0] = (char)(0xF0 | (cp >> 18)), d[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
    d[2] = (char)(0x80 | ((cp >> 6) & 0x3F)), d[3] = (char)(0x80 | (cp & 0x3F));
    return 4;
}

/* A string literal at r->p (on the opening quote) into a new NUL-terminated
 * buffer; escapes decoded, surrogate pairs joined. NULL when malformed. */
static char* parse_string(reader_t* r) {
    const char* s = ++r->p;
    size_t n = 0;
    while (s[n] && s[n] != '"') n += (s[n] == '\\' && s[n + 1]) ? 2 : 1;
    if (s[n] != '"') return NULL;
    char* out = malloc(n + 1); /* decoding never grows the text */
    if (!out) return NULL;
    size_t k = 0;
    for (const char* q = s; q < s + n;) {
        const unsigned char c = (unsigned char)*q;
        if (c < 0x20) goto bad;
        if (c != '\\') {
            out[k++] = (char)c, ++q;
            continue;
        }
        const char e = q[1];
        q += 2;
        switch (e) {
        case '"': out[k++] = '"'; break;
        case '\\': out[k++] = '\\'; break;
        case '/': out[k++] = '/'; break;
        case 'b': out[k++] = '\b'; break;
        case 'f': out[k++] = '\f'; break;
        case 'n': out[k++] = '\n'; break;
        case 'r': out[k++] = '\r'; break;
        case 't': out[k++] = '\t'; break;
        case 'u': {
            unsigned cp, lo;
            if (q + 4 > s + n || !hex4(q, &cp)) goto bad;
            q += 4;
            if (cp >= 0xD800 && cp < 0xDC00) {
                if (q + 6 > s + n || q[0] != '\\' || q[1] != 'u' || !hex4(q + 2, &lo) || lo < 0xDC00 || lo >= 0xE000)
                    goto bad;
                q += 6;
                cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
            } else if (cp >= 0xDC00 && cp < 0xE000) {
                goto bad;
            }
            if (cp == 0) goto bad;
            k += put_utf8(out + k, cp);
            break;
        }
        default: goto bad;
        }
    }
    out[k] = '\0';
    r->p = s + n + 1;
    return out;
bad:
    free(out);
    return NULL;
}

/* A number in JSON's grammar, read in the C locale whatever the process's is. */
static int parse_number(reader_t* r, double* out) {
    const char* s = r->p;
    const char* q = s;
    if (*q == '-') ++q;
    if (*q == '0') ++q;
    else if (*q >= '1' && *q <= '9') while (*q >= '0' && *q <= '9') ++q;
    else return 0;
    if (*q == '.') {
        ++q;
        if (!(*q >= '0' && *q <= '9')) return 0;
        while (*q >= '0' && *q <= '9') ++q;
    }
    if (*q == 'e' || *q == 'E') {
        ++q;
        if (*q == '+' || *q == '-') ++q;
        if (!(*q >= '0' && *q <= '9')) return 0;
        while (*q >= '0' && *q <= '9') ++q;
    }
    const size_t n = (size_t)(q - s);
    char buf[128];
    if (n >= sizeof buf) return 0;
    memcpy(buf, s, n);
    buf[n] = '\0';
    const char point = localeconv()->decimal_point[0];
    for (size_t i = 0; i < n; ++i)
        if (buf[i] == '.') buf[i] = point;
    char* end;
    *out = strtod(buf, &end);
    if (end != buf + n || !isfinite(*out)) return 0;
    r->p = q;
    return 1;
}

static int parse_value(reader_t* r, mct__json_t* v, int depth);

static int push(mct__json_t* v, int64_t* cap, mct__json_t** slot) {
    if (v->count == *cap) {
        const int64_t c = *cap ? 2 * *cap : 4;
        mct__json_t* p = realloc(v->items, (size_t)c * sizeof *p);
        if (!p) return 0;
        v->items = p, *cap = c;
    }
    *slot = &v->items[v->count];
    memset(*slot, 0, sizeof **slot);
    return 1;
}

static int parse_container(reader_t* r, mct__json_t* v, int depth) {
    const int object = *r->p == '{';
    const char close = object ? '}' : ']';
    v->kind = object ? MCT__JSON_OBJECT : MCT__JSON_ARRAY;
    ++r->p;
    skip_ws(r);
    if (*r->p == close) return ++r->p, 1;
    for (int64_t cap = 0;;) {
        mct__json_t* item;
        if (!push(v, &cap, &item)) return 0;
        if (object) {
            skip_ws(r);
            if (*r->p != '"' || !(item->key = parse_string(r))) return 0;
            ++v->count; /* owned from here on, freed with v */
            skip_ws(r);
            if (*r->p++ != ':') return 0;
            if (!parse_value(r, item, depth + 1)) return 0;
        } else {
            ++v->count;
            if (!parse_value(r, item, depth + 1)) return 0;
        }
        skip_ws(r);
        if (*r->p == ',') {
            ++r->p;
            continue;
        }
        if (*r->p == close) return ++r->p, 1;
        return 0;
    }
}

static int parse_value(reader_t* r, mct__json_t* v, int depth) {
    if (depth > MAX_DEPTH) return 0;
    skip_ws(r);
    switch (*r->p) {
    case '{':
    case '[': return parse_container(r, v, depth);
    case '"': return v->kind = MCT__JSON_STRING, (v->string = parse_string(r)) != NULL;
    case 't':
        if (strncmp(r->p, "true", 4)) return 0;
        return r->p += 4, v->kind = MCT__JSON_BOOL, v->number = 1, 1;
    case 'f':
        if (strncmp(r->p, "false", 5)) return 0;
        return r->p += 5, v->kind = MCT__JSON_BOOL, v->number = 0, 1;
    case 'n':
        if (strncmp(r->p, "null", 4)) return 0;
        return r->p += 4, v->kind = MCT__JSON_NULL, 1;
    default: return v->kind = MCT__JSON_NUMBER, parse_number(r, &v->number);
    }
}

static void free_members(mct__json_t* v) {
    for (int64_t i = 0; i < v->count; ++i) free_members(&v->items[i]);
    free(v->items);
    free(v->string);
    free(v->key);
}

void mct__json_free(mct__json_t* v) {
    if (!v) return;
    free_members(v);
    free(v);
}

mct__json_t* mct__json_parse(const char* text) {
    if (!text) return NULL;
    mct__json_t* v = calloc(1, sizeof *v);
    if (!v) return NULL;
    reader_t r = {text};
    const int ok = parse_value(&r, v, 0);
    if (ok) skip_ws(&r);
    if (!ok || *r.p != '\0') {
        mct__json_free(v);
        return NULL;
    }
    return v;
}

const mct__json_t* mct__json_get(const mct__json_t* v, const char* name) {
    if (!v || v->kind != MCT__JSON_OBJECT) return NULL;
    for (int64_t i = 0; i < v->count; ++i)
        if (!strcmp(v->items[i].key, name)) return &v->items[i];
    return NULL;
}

/* ---- Writing --------------------------------------------------------------------- */

void mct__json_raw(mct__json_out_t* o, const char* s) {
    if (o->failed) return;
    const size_t n = strlen(s);
    if (o->len + n + 1 > o->cap) {
        size_t c = o->cap ? o->cap : 256;
        while (c < o->len + n + 1) c *= 2;
        char* p = realloc(o->text, c);
        if (!p) {
            o->failed = 1;
            return;
        }
        o->text = p, o->cap = c;
    }
    memcpy(o->text + o->len, s, n + 1);
    o->len += n;
}

void mct__json_string(mct__json_out_t* o, const char* s) {
    mct__json_raw(o, "\"");
    char buf[8];
    for (const unsigned char* q = (const unsigned char*)s; *q; ++q) {
        if (*q == '"' || *q == '\\') snprintf(buf, sizeof buf, "\\%c", *q);
        else if (*q < 0x20) snprintf(buf, sizeof buf, "\\u%04x", *q);
        else buf[0] = (char)*q, buf[1] = '\0';
        mct__json_raw(o, buf);
    }
    mct__json_raw(o, "\"");
}

void mct__json_number(mct__json_out_t* o, double x) {
    if (!isfinite(x)) {
        mct__json_raw(o, "null");
        return;
    }
    char buf[40];
    snprintf(buf, sizeof buf, "%.15g", x);
    if (strtod(buf, NULL) != x) snprintf(buf, sizeof buf, "%.17g", x);
    const char point = localeconv()->decimal_point[0];
    for (char* q = buf; *q; ++q)
        if (*q == point) *q = '.';
    mct__json_raw(o, buf);
}
