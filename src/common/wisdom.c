/* SPDX-License-Identifier: BSD-3-Clause */
/** @file wisdom.c  Saved plans (mct_wisdom_t): a list of (key, plan) held by a
 * handle, read from and written to JSON text with a format version, through
 * the library's own strict reader (json.h). */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "json.h"
#include "plan.h"

typedef struct {
    mct__wisdom_key_t key;
    mct_plan_mode_t mode;
    mct_method_t method;
    double seconds_per_update;
} wisdom_entry_t;

struct mct_wisdom_s {
    wisdom_entry_t* entries;
    int64_t count, capacity;
    char message[256];
};

mct_status_t mct_wisdom_create(mct_wisdom_t* out) {
    if (!out) return MCT_STATUS_NULL_POINTER;
    *out = calloc(1, sizeof **out);
    return *out ? MCT_STATUS_SUCCESS : MCT_STATUS_OUT_OF_MEMORY;
}

void mct_wisdom_destroy(mct_wisdom_t w) {
    if (!w) return;
    free(w->entries);
    free(w);
}

int64_t mct_wisdom_count(mct_wisdom_t w) { return w ? w->count : 0; }

const char* mct_wisdom_message(mct_wisdom_t w) { return w ? w->message : ""; }

static int same_key(const mct__wisdom_key_t* a, const mct__wisdom_key_t* b) {
    return !strcmp(a->device, b->device) && a->cc == b->cc && a->backend == b->backend && a->dtype == b->dtype &&
           a->bins_log2 == b->bins_log2 && a->width == b->width && a->adds == b->adds &&
           a->determinism == b->determinism && a->max_rel_loss == b->max_rel_loss && a->adds_log2 == b->adds_log2 &&
           a->pattern == b->pattern && a->method_mask == b->method_mask && a->fixed_frac_bits == b->fixed_frac_bits;
}

mct_status_t mct__wisdom_lookup(mct_wisdom_t w, const mct__wisdom_key_t* key, mct_plan_mode_t mode,
                                mct_method_t* method, double* seconds_per_update) {
    for (int64_t i = 0; w && i < w->count; ++i)
        if (same_key(&w->entries[i].key, key) && w->entries[i].mode >= mode) {
            *method = w->entries[i].method;
            *seconds_per_update = w->entries[i].seconds_per_update;
            return MCT_STATUS_SUCCESS;
        }
    return MCT_STATUS_NOT_SUPPORTED;
}

/* A plan replaces the one of the same key unless that one was more thorough. */
static mct_status_t store(mct_wisdom_t w, const wisdom_entry_t* e) {
    for (int64_t i = 0; i < w->count; ++i)
        if (same_key(&w->entries[i].key, &e->key)) {
            if (w->entries[i].mode <= e->mode) w->entries[i] = *e;
            return MCT_STATUS_SUCCESS;
        }
    if (w->count == w->capacity) {
        const int64_t cap = w->capacity ? 2 * w->capacity : 16;
        wisdom_entry_t* p = realloc(w->entries, (size_t)cap * sizeof *p);
        if (!p) return MCT_STATUS_OUT_OF_MEMORY;
        w->entries = p;
        w->capacity = cap;
    }
    w->entries[w->count++] = *e;
    return MCT_STATUS_SUCCESS;
}

mct_status_t mct__wisdom_store(mct_wisdom_t w, const mct__wisdom_key_t* key, mct_plan_mode_t mode, mct_method_t method,
                               double seconds_per_update) {
    if (!w || !key) return MCT_STATUS_NULL_POINTER;
    wisdom_entry_t e = {*key, mode, method, seconds_per_update};
    return store(w, &e);
}

/* ---- Text ------------------------------------------------------------------------ */

static const char format_name[] = "mctally-wisdom";

static void add_key(mct__json_out_t* o, const char* name, int first) {
    mct__json_raw(o, first ? "\n    {\n      " : ",\n      ");
    mct__json_string(o, name);
    mct__json_raw(o, ": ");
}

static void add_str(mct__json_out_t* o, const char* name, const char* v, int first) {
    add_key(o, name, first);
    mct__json_string(o, v);
}

static void add_num(mct__json_out_t* o, const char* name, double v) {
    add_key(o, name, 0);
    mct__json_number(o, v);
}

static void entry_json(mct__json_out_t* o, const wisdom_entry_t* e) {
    const mct__wisdom_key_t* k = &e->key;
    add_str(o, "device", k->device, 1);
    add_num(o, "cc", k->cc);
    add_str(o, "backend", mct_backend_name(k->backend), 0);
    add_str(o, "dtype", mct_dtype_name(k->dtype), 0);
    add_num(o, "bins_log2", k->bins_log2);
    add_num(o, "width", k->width);
    add_str(o, "adds", mct_adds_name(k->adds), 0);
    add_str(o, "determinism", mct_determinism_name(k->determinism), 0);
    add_num(o, "max_rel_loss", k->max_rel_loss);
    add_num(o, "adds_log2", k->adds_log2);
    add_str(o, "pattern", mct_key_pattern_name(k->pattern), 0);
    add_num(o, "method_mask", (double)k->method_mask);
    add_num(o, "fixed_frac_bits", k->fixed_frac_bits);
    add_str(o, "mode", mct_plan_mode_name(e->mode), 0);
    add_str(o, "method", mct_method_name(e->method), 0);
    add_num(o, "seconds_per_update", e->seconds_per_update);
    mct__json_raw(o, "\n    }");
}

mct_status_t mct_wisdom_export_string(mct_wisdom_t w, char** text) {
    if (!w || !text) return MCT_STATUS_NULL_POINTER;
    *text = NULL;
    mct__json_out_t o = {0};
    mct__json_raw(&o, "{\n  \"format\": ");
    mct__json_string(&o, format_name);
    mct__json_raw(&o, ",\n  \"version\": ");
    mct__json_number(&o, MCT__WISDOM_VERSION);
    mct__json_raw(&o, ",\n  \"plans\": [");
    for (int64_t i = 0; i < w->count; ++i) {
        if (i) mct__json_raw(&o, ",");
        entry_json(&o, &w->entries[i]);
    }
    mct__json_raw(&o, w->count ? "\n  ]\n}" : "]\n}");
    if (o.failed) {
        free(o.text);
        return MCT_STATUS_OUT_OF_MEMORY;
    }
    *text = o.text;
    return MCT_STATUS_SUCCESS;
}

void mct_wisdom_free_string(char* text) { free(text); }

static const char* get_string(const mct__json_t* o, const char* name) {
    const mct__json_t* v = mct__json_get(o, name);
    return v && v->kind == MCT__JSON_STRING ? v->string : NULL;
}

static int get_number(const mct__json_t* o, const char* name, double* out) {
    const mct__json_t* v = mct__json_get(o, name);
    if (!v || v->kind != MCT__JSON_NUMBER) return 0;
    *out = v->number;
    return 1;
}

/* A whole number in [lo, hi] into *out; 0 when missing or out of range. */
static int get_int(const mct__json_t* o, const char* name, double lo, double hi, double* out) {
    double v;
    if (!get_number(o, name, &v) || !(v >= lo && v <= hi) || v != (double)(int64_t)v) return 0;
    *out = v;
    return 1;
}

static int parse_entry(const mct__json_t* j, wisdom_entry_t* e) {
    memset(e, 0, sizeof *e);
    mct__wisdom_key_t* k = &e->key;
    const char *device = get_string(j, "device"), *backend = get_string(j, "backend"), *dtype = get_string(j, "dtype"),
               *adds = get_string(j, "adds"), *det = get_string(j, "determinism"), *pattern = get_string(j, "pattern"),
               *mode = get_string(j, "mode"), *method = get_string(j, "method");
    double cc, bins_log2, width, adds_log2, mask, frac, loss, spu;
    if (!device || strlen(device) >= sizeof k->device || !backend || !dtype || !adds || !det || !pattern || !mode ||
        !method || !get_number(j, "max_rel_loss", &loss) || !(loss >= 0.0) ||
        !get_number(j, "seconds_per_update", &spu) || !get_int(j, "cc", 0, 10000, &cc) ||
        !get_int(j, "bins_log2", 0, 31, &bins_log2) || !get_int(j, "width", 1, 1 << 20, &width) ||
        !get_int(j, "adds_log2", -1, 64, &adds_log2) || !get_int(j, "method_mask", 0, 4294967295.0, &mask) ||
        !get_int(j, "fixed_frac_bits", MCT_FIXED_FRAC_BITS_MIN, MCT_FIXED_FRAC_BITS_MAX, &frac))
        return 0;
    snprintf(k->device, sizeof k->device, "%s", device);
    k->cc = (int)cc, k->bins_log2 = (int)bins_log2, k->width = (int)width, k->adds_log2 = (int)adds_log2;
    k->method_mask = (uint32_t)mask, k->fixed_frac_bits = (int)frac, k->max_rel_loss = loss;
    e->seconds_per_update = spu;
    mct_adds_t a = strcmp(adds, "arrays") == 0 ? MCT_ADDS_ARRAYS : MCT_ADDS_KERNEL;
    if (strcmp(adds, "arrays") && strcmp(adds, "kernel")) return 0;
    k->adds = a;
    return !mct_backend_from_name(backend, &k->backend) && k->backend != MCT_BACKEND_AUTO &&
           !mct_dtype_from_name(dtype, &k->dtype) && !mct_determinism_from_name(det, &k->determinism) &&
           !mct_key_pattern_from_name(pattern, &k->pattern) && !mct_plan_mode_from_name(mode, &e->mode) &&
           !mct_method_from_name(method, &e->method) && e->method != MCT_METHOD_AUTO;
}

static mct_status_t ignored(mct_wisdom_t w, const char* why) {
    snprintf(w->message, sizeof w->message, "wisdom ignored: %s", why);
    return MCT_STATUS_WISDOM_IGNORED;
}

mct_status_t mct_wisdom_import_string(mct_wisdom_t w, const char* text) {
    if (!w || !text) return MCT_STATUS_NULL_POINTER;
    w->message[0] = '\0';
    mct__json_t* root = mct__json_parse(text);
    if (!root) return ignored(w, "not valid JSON (corrupt or truncated)");
    const char* format = get_string(root, "format");
    const mct__json_t* plans = mct__json_get(root, "plans");
    double version = -1.0;
    const int has_version = get_number(root, "version", &version);
    mct_status_t st = MCT_STATUS_SUCCESS;
    if (!format || strcmp(format, format_name) != 0)
        st = ignored(w, "not mctally wisdom (no \"format\": \"mctally-wisdom\")");
    else if (!has_version || version != MCT__WISDOM_VERSION) {
        char why[128];
        snprintf(why, sizeof why, "format version %g, this library reads version %d (stale)", has_version ? version : -1.0,
                 MCT__WISDOM_VERSION);
        st = ignored(w, why);
    } else if (!plans || plans->kind != MCT__JSON_ARRAY) {
        st = ignored(w, "no \"plans\" list");
    }
    /* All or nothing: every plan is checked before any is kept. */
    const int64_t n = st ? 0 : plans->count;
    wisdom_entry_t* parsed = n > 0 ? malloc((size_t)n * sizeof *parsed) : NULL;
    if (n > 0 && !parsed) st = MCT_STATUS_OUT_OF_MEMORY;
    for (int64_t i = 0; !st && i < n; ++i)
        if (!parse_entry(&plans->items[i], &parsed[i])) {
            char why[64];
            snprintf(why, sizeof why, "plan %lld is malformed", (long long)i);
            st = ignored(w, why);
        }
    for (int64_t i = 0; !st && i < n; ++i) st = store(w, &parsed[i]);
    free(parsed);
    mct__json_free(root);
    return st;
}

/* A file's text, NUL-terminated, at most 64 MB: SUCCESS, IO_ERROR (errno
 * kept), TOO_LARGE, OUT_OF_MEMORY, or PARSE_ERROR when it holds NUL bytes. */
static mct_status_t read_text(const char* path, char** out) {
    *out = NULL;
    struct stat s;
    if (stat(path, &s) == 0 && !S_ISREG(s.st_mode)) { /* a FIFO would block the read */
        errno = EINVAL;
        return MCT_STATUS_IO_ERROR;
    }
    FILE* f = fopen(path, "rb");
    if (!f) return MCT_STATUS_IO_ERROR;
    size_t cap = 4096, len = 0;
    char* text = malloc(cap);
    mct_status_t st = text ? MCT_STATUS_SUCCESS : MCT_STATUS_OUT_OF_MEMORY;
    for (size_t got; !st && (got = fread(text + len, 1, cap - len - 1, f)) > 0;) {
        len += got;
        if (len + 1 == cap) {
            char* p = len < ((size_t)64 << 20) ? realloc(text, cap *= 2) : NULL;
            if (!p) st = len < ((size_t)64 << 20) ? MCT_STATUS_OUT_OF_MEMORY : MCT_STATUS_TOO_LARGE;
            else text = p;
        }
    }
    if (!st && ferror(f)) st = MCT_STATUS_IO_ERROR;
    fclose(f);
    if (!st) {
        text[len] = '\0';
        if (strlen(text) != len) st = MCT_STATUS_PARSE_ERROR;
    }
    if (st) free(text);
    else *out = text;
    return st;
}

mct_status_t mct_wisdom_import_file(mct_wisdom_t w, const char* path) {
    if (!w || !path) return MCT_STATUS_NULL_POINTER;
    char* text = NULL;
    const mct_status_t rs = read_text(path, &text);
    if (rs == MCT_STATUS_IO_ERROR) {
        const int err = errno;
        snprintf(w->message, sizeof w->message, "cannot read wisdom '%s': %s", path, strerror(err));
        errno = err;
        return MCT_STATUS_IO_ERROR;
    }
    if (rs == MCT_STATUS_PARSE_ERROR) return ignored(w, "the file holds NUL bytes (corrupt)");
    if (rs) return ignored(w, "file too large or out of memory");
    mct_status_t st = mct_wisdom_import_string(w, text);
    free(text);
    return st;
}

/* Wisdom is only ever written over wisdom: a path that names anything else
 * (another program's JSON, notes, a device) is left as it is. */
mct_status_t mct_wisdom_file_writable(const char* path) {
    if (!path) return MCT_STATUS_NULL_POINTER;
    struct stat s;
    if (stat(path, &s) != 0) return errno == ENOENT ? MCT_STATUS_SUCCESS : MCT_STATUS_IO_ERROR;
    if (!S_ISREG(s.st_mode)) return MCT_STATUS_INVALID_VALUE;
    if (s.st_size == 0) return MCT_STATUS_SUCCESS;
    char* text = NULL;
    const mct_status_t rs = read_text(path, &text);
    if (rs == MCT_STATUS_IO_ERROR || rs == MCT_STATUS_OUT_OF_MEMORY) return rs;
    mct__json_t* root = rs ? NULL : mct__json_parse(text);
    const char* format = root ? get_string(root, "format") : NULL;
    int ours = format && !strcmp(format, format_name);
    if (!root && text) {
        /* Not JSON: ours when it is damaged wisdom, whose head (as
         * export_string writes it) names the format in its first line. */
        text[strnlen(text, 256)] = '\0'; /* the head only; text is freed below */
        const char* key = strstr(text, "\"format\"");
        ours = key && strstr(key, "\"mctally-wisdom\"") != NULL;
    }
    mct__json_free(root);
    free(text);
    return ours ? MCT_STATUS_SUCCESS : MCT_STATUS_INVALID_VALUE;
}

mct_status_t mct_wisdom_export_file(mct_wisdom_t w, const char* path) {
    if (!w || !path) return MCT_STATUS_NULL_POINTER;
    mct_status_t st = mct_wisdom_file_writable(path);
    if (st) {
        snprintf(w->message, sizeof w->message, "'%s' %s: left as it is", path,
                 st == MCT_STATUS_INVALID_VALUE ? "holds something other than mctally wisdom" : "cannot be read");
        return st;
    }
    char* text = NULL;
    st = mct_wisdom_export_string(w, &text);
    if (st) return st;
    const size_t plen = strlen(path);
    char* tmp = malloc(plen + 32);
    if (!tmp) {
        mct_wisdom_free_string(text);
        return MCT_STATUS_OUT_OF_MEMORY;
    }
    /* The temporary file sits beside the target, so the rename stays on one
     * file system and replaces the target in one step. */
    snprintf(tmp, plen + 32, "%s.tmp.%ld", path, (long)getpid());
    FILE* f = fopen(tmp, "wb");
    int ok = f && fputs(text, f) >= 0 && fputc('\n', f) != EOF && fflush(f) == 0 && fsync(fileno(f)) == 0;
    if (f && fclose(f) != 0) ok = 0;
    mct_wisdom_free_string(text);
    if (!ok || rename(tmp, path) != 0) {
        snprintf(w->message, sizeof w->message, "cannot write '%s': %s", path, strerror(errno));
        remove(tmp);
        free(tmp);
        return MCT_STATUS_IO_ERROR;
    }
    free(tmp);
    return MCT_STATUS_SUCCESS;
}
