/* SPDX-License-Identifier: BSD-3-Clause */
/** @file json.h  The library's own strict JSON reader and a growing text
 * buffer for writing it, so that libmctally needs no JSON library (the wisdom
 * files are its only JSON). Internal: no symbol here is exported. */
#ifndef MCT_COMMON_JSON_H
#define MCT_COMMON_JSON_H

#include <stddef.h>
#include <stdint.h>

typedef enum { MCT__JSON_NULL, MCT__JSON_BOOL, MCT__JSON_NUMBER, MCT__JSON_STRING, MCT__JSON_ARRAY, MCT__JSON_OBJECT } mct__json_kind_t;

/** One value. Arrays and objects hold their members in `items` (count of them);
 * an object's members carry their name in `key`. */
typedef struct mct__json_s {
    mct__json_kind_t kind;
    double number; /* NUMBER; BOOL as 0/1 */
    char* string;  /* STRING, NUL-terminated (a \u0000 escape is refused) */
    char* key;     /* the member's name inside an OBJECT */
    struct mct__json_s* items;
    int64_t count;
} mct__json_t;

/** Parses RFC 8259 JSON text, one value with only white space around it, at
 * most 64 levels deep. Returns NULL on any error (malformed, truncated,
 * invalid UTF-8 escapes, out of memory). Free with mct__json_free. */
mct__json_t* mct__json_parse(const char* text);
void mct__json_free(mct__json_t* v);
/** The member `name` of an object (the first, where repeated); NULL if absent
 * or if v is not an object. */
const mct__json_t* mct__json_get(const mct__json_t* v, const char* name);

/** A text buffer that grows as it is written; `failed` once memory ran out. */
typedef struct {
    char* text;
    size_t len, cap;
    int failed;
} mct__json_out_t;

void mct__json_raw(mct__json_out_t* o, const char* s);
/** A JSON string literal, escaped. */
void mct__json_string(mct__json_out_t* o, const char* s);
/** A number that reads back to the same double (finite values only; others as null). */
void mct__json_number(mct__json_out_t* o, double x);

#endif
