/* SPDX-License-Identifier: BSD-3-Clause */
/** @file cli_config.c  Problem files (INI, read with inih): keys, defaults and
 * validation, one clear message for the first problem found. */
#include <ctype.h>
#include <errno.h>
#include <ini.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "sim_table.h"

/* The problems and the sections of a problem file, for the messages. */
#define SIM_CLI_PROBLEMS "escape, phantom, tally_only, scatter, pet"
#define SIM_CLI_SECTIONS "problem, tally, escape, phantom, tally_only, scatter, pet"

typedef struct {
    mct_cli_config_t* cfg;
    const char* text; /* the whole file */
    size_t len, pos;  /* its length; where the next line starts */
    int lineno;       /* of the line read last */
    int error_line;   /* of the first error; its message in error */
    char error[1024];
    int have_type;
    char dir[4096]; /* the problem file's folder, "" for the current one: relative paths start there */
    const char* raw; /* the line just read as it is in the file (before inih drops an inline comment) */
    size_t raw_len;
} load_ctx_t;

/* Records an error of the line just read; returns NULL (the reader's stop). */
static char* line_error(load_ctx_t* c, const char* why) {
    snprintf(c->error, sizeof c->error, "%s", why);
    c->error_line = c->lineno;
    return NULL;
}

/* The numbers of problem files and flags are decimal (sim_table.h's one
 * parser): strtod alone would also take hex ("0x1p7"), "inf", "nan" and
 * leading blanks. */
int mct_cli_parse_f64(const char* text, double min, double* out) {
    double v;
    if (mct_sim_parse_decimal(text, &v) || v < min) return 1;
    *out = v;
    return 0;
}

int mct_cli_parse_i64(const char* text, int64_t min, int64_t max, int64_t* out) {
    if (!text) return 1;
    if (mct_sim_decimal_syntax(text, 1)) {
        char* end = NULL;
        errno = 0;
        long long v = strtoll(text, &end, 10);
        if (*end != '\0' || errno != 0 || v < min || v > max) return 1;
        *out = v;
        return 0;
    }
    /* "1e8": accepted when it is exactly a whole number in range. */
    double d;
    if (mct_cli_parse_f64(text, (double)min, &d) || d > (double)max || d != floor(d) || d > 9007199254740992.0)
        return 1;
    *out = (int64_t)d;
    return 0;
}

int mct_cli_flag_i64(const char* flag, const char* text, int64_t min, int64_t max, int64_t* out) {
    if (!mct_cli_parse_i64(text, min, max, out)) return 0;
    return mct_cli_error("%s %s: expected a whole number in %lld .. %lld", flag, text ? text : "(none)", (long long)min,
                         (long long)max);
}

int mct_cli_flag_f64(const char* flag, const char* text, double min, double* out) {
    if (!mct_cli_parse_f64(text, min, out)) return 0;
    return mct_cli_error("%s %s: expected a finite decimal number >= %g", flag, text ? text : "(none)", min);
}

int mct_cli_parse_u64(const char* text, uint64_t* out) {
    if (!text || !text[0] || strspn(text, "0123456789") != strlen(text)) return 1;
    char* end = NULL;
    errno = 0;
    unsigned long long v = strtoull(text, &end, 10);
    if (*end != '\0' || errno == ERANGE) return 1;
    *out = v;
    return 0;
}

/* A key's error: recorded with the line just read; 0 stops the parse. */
static int fail(load_ctx_t* c, const char* section, const char* key, const char* value, const char* why) {
    snprintf(c->error, sizeof c->error, "[%s] %s = %s: %s", section, key, value, why);
    c->error_line = c->lineno;
    return 0;
}

static int set_problem(load_ctx_t* c, const char* key, const char* value) {
    mct_cli_config_t* cfg = c->cfg;
    if (!strcmp(key, "type")) {
        if (strcmp(value, "escape") != 0 && strcmp(value, "phantom") != 0 && strcmp(value, "tally_only") != 0 &&
            strcmp(value, "scatter") != 0 && strcmp(value, "pet") != 0)
            return fail(c, "problem", key, value, "unknown problem (known: " SIM_CLI_PROBLEMS ")");
        snprintf(cfg->type, sizeof cfg->type, "%s", value);
        c->have_type = 1;
        return 1;
    }
    if (!strcmp(key, "histories"))
        return mct_cli_parse_i64(value, 1, INT64_MAX, &cfg->histories) ? fail(c, "problem", key, value, "expected a whole number >= 1") : 1;
    if (!strcmp(key, "batches"))
        return mct_cli_parse_i64(value, 1, INT64_MAX, &cfg->batches) ? fail(c, "problem", key, value, "expected a whole number >= 1") : 1;
    if (!strcmp(key, "seed"))
        return mct_cli_parse_u64(value, &cfg->seed) ? fail(c, "problem", key, value, "expected a whole number 0 .. 2^64-1") : 1;
    return fail(c, "problem", key, value, "unknown key (known: type, histories, seed, batches)");
}

static int set_tally(load_ctx_t* c, const char* key, const char* value) {
    if (!strcmp(key, "method"))
        return mct_method_from_name(value, &c->cfg->method) ? fail(c, "tally", key, value, "unknown method (see: mctally methods)") : 1;
    if (!strcmp(key, "dtype"))
        return mct_dtype_from_name(value, &c->cfg->dtype) ? fail(c, "tally", key, value, "unknown type (known: i32, u64, f32, f64)") : 1;
    if (!strcmp(key, "determinism"))
        return mct_determinism_from_name(value, &c->cfg->determinism)
                   ? fail(c, "tally", key, value, "expected not_guaranteed, run_to_run or bitwise")
                   : 1;
    if (!strcmp(key, "plan"))
        return mct_plan_mode_from_name(value, &c->cfg->plan_mode) ? fail(c, "tally", key, value, "expected estimate or measure") : 1;
    if (!strcmp(key, "wisdom")) {
        if (!value[0] || strlen(value) >= sizeof c->cfg->wisdom) return fail(c, "tally", key, value, "expected a file name");
        snprintf(c->cfg->wisdom, sizeof c->cfg->wisdom, "%s", value);
        return 1;
    }
    return fail(c, "tally", key, value, "unknown key (known: method, dtype, determinism, plan, wisdom)");
}

/* ---- The problems' sections ---------------------------------------------------
 * A numeric key is a parameter of the problem's table (sim_params.h) marked
 * as a problem file's: parsed as its field's type, refused outside its range
 * with the range in the message. A key that names a choice is listed here. */

/** A key whose value is one of a few names, stored in an enum field. */
typedef struct {
    const char* key;
    size_t offset;          /* of the field in the problem's params struct */
    const char* names[4];   /* NULL-terminated */
    int values[4];          /* the field's value for each name */
    const char* why;        /* the message for another value; NULL: "expected a, b or c" */
} choice_key_t;

/** A problem's section: its params struct inside the config, its numeric
 * keys (the table's) and its choices. */
typedef struct {
    const char* name;
    size_t params; /* offset of the params struct in mct_cli_config_t */
    const mct_sim_param_table_t* table;
    const choice_key_t* choices;
    /* Keys of the section that are neither (lines that repeat): 1 when
     * stored, 0 after a message, -1 when the key is not one of them; NULL:
     * none. Their names, for the list of known keys. */
    int (*more)(load_ctx_t* c, const char* key, const char* value, void* params);
    const char* more_keys;
} section_t;

/* A choice is stored through an int. */
_Static_assert(sizeof(mct_escape_launch_t) == sizeof(int) && sizeof(mct_tally_only_launch_t) == sizeof(int) &&
                   sizeof(mct_phantom_particle_t) == sizeof(int) && sizeof(mct_phantom_mcs_t) == sizeof(int) &&
                   sizeof(mct_phantom_transport_t) == sizeof(int) && sizeof(mct_phantom_source_t) == sizeof(int) &&
                   sizeof(mct_scatter_pattern_t) == sizeof(int) &&
                   sizeof(mct_scatter_check_t) == sizeof(int) && sizeof(mct_pet_source_t) == sizeof(int) &&
                   sizeof(mct_pet_index_t) == sizeof(int) && sizeof(mct_sim_deposit_t) == sizeof(int),
               "the problems' enumerations have the size of an int");

static const choice_key_t escape_choices[] = {
    {"launch", offsetof(mct_escape_params_t, launch), {"paper", "full"},
     {MCT_ESCAPE_LAUNCH_PAPER, MCT_ESCAPE_LAUNCH_FULL}, NULL},
    {NULL, 0, {NULL}, {0}, NULL}};
static const choice_key_t phantom_choices[] = {
    {"particle", offsetof(mct_phantom_params_t, particle), {"electron", "photon"},
     {MCT_PHANTOM_ELECTRON, MCT_PHANTOM_PHOTON}, NULL},
    {"mcs", offsetof(mct_phantom_params_t, mcs), {"transport"}, {MCT_PHANTOM_MCS_TRANSPORT},
     "the only multiple-scattering model is transport (highland was removed: its depth doses were not step-size "
     "converged)"},
    {"transport", offsetof(mct_phantom_params_t, transport), {"auto", "f64", "f32"},
     {MCT_PHANTOM_TRANSPORT_AUTO, MCT_PHANTOM_TRANSPORT_F64, MCT_PHANTOM_TRANSPORT_F32}, NULL},
    {"deposit", offsetof(mct_phantom_params_t, deposit), {"auto", "direct", "buffered"},
     {MCT_SIM_DEPOSIT_AUTO, MCT_SIM_DEPOSIT_DIRECT, MCT_SIM_DEPOSIT_BUFFERED}, NULL},
    {"source", offsetof(mct_phantom_params_t, source), {"beam", "fano"},
     {MCT_PHANTOM_SOURCE_BEAM, MCT_PHANTOM_SOURCE_FANO}, NULL},
    {NULL, 0, {NULL}, {0}, NULL}};
static const choice_key_t tally_only_choices[] = {
    {"launch", offsetof(mct_tally_only_params_t, launch), {"paper", "full"},
     {MCT_TALLY_ONLY_LAUNCH_PAPER, MCT_TALLY_ONLY_LAUNCH_FULL}, NULL},
    {"deposit", offsetof(mct_tally_only_params_t, deposit), {"auto", "direct", "buffered"},
     {MCT_SIM_DEPOSIT_AUTO, MCT_SIM_DEPOSIT_DIRECT, MCT_SIM_DEPOSIT_BUFFERED}, NULL},
    {NULL, 0, {NULL}, {0}, NULL}};
static const choice_key_t scatter_choices[] = {
    {"pattern", offsetof(mct_scatter_params_t, pattern), {"uniform", "sorted", "hot"},
     {MCT_SCATTER_UNIFORM, MCT_SCATTER_SORTED, MCT_SCATTER_HOT}, "unknown pattern (known: uniform, sorted, hot)"},
    {"check", offsetof(mct_scatter_params_t, check), {"auto", "yes", "no"},
     {MCT_SCATTER_CHECK_AUTO, MCT_SCATTER_CHECK_ALWAYS, MCT_SCATTER_CHECK_NEVER}, NULL},
    {NULL, 0, {NULL}, {0}, NULL}};

static const choice_key_t pet_choices[] = {
    {"source", offsetof(mct_pet_params_t, source), {"voxel", "point", "derenzo", "shapes"},
     {MCT_PET_SOURCE_VOXEL, MCT_PET_SOURCE_POINT, MCT_PET_SOURCE_DERENZO, MCT_PET_SOURCE_SHAPES}, NULL},
    {"index", offsetof(mct_pet_params_t, index), {"auto", "full", "compressed", "total"},
     {MCT_PET_INDEX_AUTO, MCT_PET_INDEX_FULL, MCT_PET_INDEX_COMPRESSED, MCT_PET_INDEX_TOTAL}, NULL},
    {"doi", offsetof(mct_pet_params_t, doi), {"off", "on"}, {0, 1}, NULL},
    {"deposit", offsetof(mct_pet_params_t, deposit), {"auto", "direct", "buffered"},
     {MCT_SIM_DEPOSIT_AUTO, MCT_SIM_DEPOSIT_DIRECT, MCT_SIM_DEPOSIT_BUFFERED}, NULL},
    {NULL, 0, {NULL}, {0}, NULL}};

/* [pet] cylinder = x y z length radius activity and ellipsoid = x y z ax ay
 * az activity (mm from the scanner's centre; activity per volume, relative):
 * one shape of the `shapes` source per line. */
static int pet_shape(load_ctx_t* c, const char* key, const char* value, void* params) {
    const int cyl = !strcmp(key, "cylinder");
    if (!cyl && strcmp(key, "ellipsoid")) return -1;
    mct_pet_params_t* p = params;
    if (p->nshapes >= MCT_PET_MAX_SHAPES) return fail(c, "pet", key, value, "too many shapes (at most 128)");
    double v[7];
    const int want = cyl ? 6 : 7;
    int n = 0;
    for (const char* at = value + strspn(value, " \t"); *at; at += strspn(at, " \t")) {
        const size_t len = strcspn(at, " \t");
        char tok[MCT_CLI_INI_MAX_LINE + 1];
        snprintf(tok, sizeof tok, "%.*s", (int)len, at);
        at += len;
        if (n == want || mct_cli_parse_f64(tok, -HUGE_VAL, &v[n]))
            return fail(c, "pet", key, value,
                        cyl ? "expected 6 numbers: x y z length radius activity (mm from the centre)"
                            : "expected 7 numbers: x y z ax ay az activity (mm from the centre)");
        ++n;
    }
    if (n != want)
        return fail(c, "pet", key, value,
                    cyl ? "expected 6 numbers: x y z length radius activity (mm from the centre)"
                        : "expected 7 numbers: x y z ax ay az activity (mm from the centre)");
    for (int i = 3; i < want; ++i)
        if (v[i] < 0.0) return fail(c, "pet", key, value, "sizes and activity must be >= 0");
    mct_pet_shape_t* s = &p->shapes[p->nshapes++];
    memset(s, 0, sizeof *s);
    s->kind = cyl ? MCT_PET_CYLINDER : MCT_PET_ELLIPSOID;
    s->centre[0] = v[0], s->centre[1] = v[1], s->centre[2] = v[2];
    if (cyl)
        s->size[0] = v[4], s->size[2] = v[3], s->activity = v[5];
    else
        s->size[0] = v[3], s->size[1] = v[4], s->size[2] = v[5], s->activity = v[6];
    return 1;
}


/* [phantom] geometry keys (mct_cli_geometry_t): the bits of `given`. */
enum {
    GEO_KIND = 1u << 0, GEO_MATERIAL = 1u << 1, GEO_DENSITY = 1u << 2, GEO_SLABS = 1u << 3, GEO_DEPTH = 1u << 4,
    GEO_IMAGE = 1u << 5, GEO_DENSITY_IMAGE = 1u << 6, GEO_IMAGE_MATERIALS = 1u << 7, GEO_CALIBRATION = 1u << 8,
    GEO_MATERIALS = 1u << 9, GEO_REFERENCE = 1u << 10, GEO_LATERAL = 1u << 11, GEO_LATERAL_DEPTHS = 1u << 12,
    GEO_LATERAL_SCALE = 1u << 13, GEO_LATERAL_K = 1u << 14
};
#define GEO_KEYS                                                                                                   \
    "geometry, material, density, slabs, depth_voxel_cm, image, density_image, image_materials, calibration, "   \
    "materials, reference, lateral_reference, lateral_depths, lateral_scale, lateral_k"

/* A material name: letters, digits, '_' and '-', 1 .. 31 of them. */
static int material_name_ok(const char* s, size_t n) {
    if (n == 0 || n > 31) return 0;
    for (size_t i = 0; i < n; ++i)
        if (!(isalnum((unsigned char)s[i]) || s[i] == '_' || s[i] == '-')) return 0;
    return 1;
}

/* A file key's value: the path, relative ones from the problem file's folder. */
static int geo_path(load_ctx_t* c, const char* key, const char* value, char* out, size_t size) {
    if (!value[0]) return fail(c, "phantom", key, value, "expected a file name");
    const int n = value[0] == '/' || !c->dir[0] ? snprintf(out, size, "%s", value)
                                                : snprintf(out, size, "%s/%s", c->dir, value);
    if (n < 0 || (size_t)n >= size) return fail(c, "phantom", key, value, "file name too long");
    return 1;
}

/* `slabs = material density thickness_cm; ...`: slabs front to back, each
 * line adding to those before; `,` separates them too (a `;` after a blank
 * starts an INI comment, so `;` is written right after the thickness). */
static int geo_slabs(load_ctx_t* c, mct_cli_geometry_t* g, const char* key, const char* value) {
    const char* why = "expected slabs 'material density_g_cm3 thickness_cm', separated by ';' or ','";
    /* inih drops " ; ..." as an inline comment: slabs there would be lost unseen. */
    size_t semis_raw = 0, semis = 0;
    for (size_t i = 0; c->raw && i < c->raw_len; ++i) semis_raw += c->raw[i] == ';';
    for (const char* q = value; *q; ++q) semis += *q == ';';
    if (semis_raw > semis)
        return fail(c, "phantom", key, value,
                    "a ';' after a blank starts an INI comment, and what follows it is dropped: write ';' right after "
                    "the thickness ('water 1.0 3; bone 1.85 2') or separate slabs with ','");
    const char* at = value;
    int added = 0;
    while (*at) {
        const size_t len = strcspn(at, ";,");
        char item[MCT_CLI_INI_MAX_LINE + 1], *w[4];
        snprintf(item, sizeof item, "%.*s", (int)len, at);
        at += len + (at[len] != '\0');
        int n = 0;
        for (char* t = item + strspn(item, " \t"); *t; t += strspn(t, " \t")) {
            if (n == 3) return fail(c, "phantom", key, value, why);
            w[n++] = t;
            t += strcspn(t, " \t");
            if (*t) *t++ = '\0';
        }
        if (n == 0 && !*at && added) break; /* a ';' closing the line */
        if (n != 3) return fail(c, "phantom", key, value, why);
        if (!material_name_ok(w[0], strlen(w[0])))
            return fail(c, "phantom", key, value, "a material name is 1 to 31 letters, digits, '_' or '-'");
        double d, t;
        if (mct_cli_parse_f64(w[1], -HUGE_VAL, &d) || !(d > 0.0))
            return fail(c, "phantom", key, value, "a slab's density (g/cm3) must be a decimal number > 0");
        if (mct_cli_parse_f64(w[2], -HUGE_VAL, &t) || !(t > 0.0))
            return fail(c, "phantom", key, value, "a slab's thickness (cm) must be a decimal number > 0");
        if (g->nslabs == MCT_CLI_MAX_SLABS) return fail(c, "phantom", key, value, "more than 64 slabs");
        mct_phantom_slab_t* s = &g->slab[g->nslabs++];
        snprintf(s->material, sizeof s->material, "%s", w[0]);
        s->density_g_cm3 = d;
        s->thickness_cm = t;
        ++added;
    }
    if (!added) return fail(c, "phantom", key, value, why);
    return 1;
}

/* The [phantom] keys of the geometry: 1 when stored, 0 after a message, -1 for another key. */
static int phantom_geometry_key(load_ctx_t* c, const char* key, const char* value, void* params) {
    (void)params;
    mct_cli_geometry_t* g = &c->cfg->phantom_geometry;
    unsigned bit;
    if (!strcmp(key, "geometry")) {
        bit = GEO_KIND;
        if (!strcmp(value, "cube")) g->kind = MCT_CLI_GEOMETRY_CUBE;
        else if (!strcmp(value, "slabs")) g->kind = MCT_CLI_GEOMETRY_SLABS;
        else if (!strcmp(value, "image")) g->kind = MCT_CLI_GEOMETRY_IMAGE;
        else return fail(c, "phantom", key, value, "expected cube, slabs or image");
    } else if (!strcmp(key, "material")) {
        bit = GEO_MATERIAL;
        if (!material_name_ok(value, strlen(value)))
            return fail(c, "phantom", key, value, "a material name is 1 to 31 letters, digits, '_' or '-'");
        snprintf(g->material, sizeof g->material, "%s", value);
    } else if (!strcmp(key, "density")) {
        bit = GEO_DENSITY;
        if (mct_cli_parse_f64(value, -HUGE_VAL, &g->density) || !(g->density > 0.0))
            return fail(c, "phantom", key, value, "expected a density in g/cm3, a decimal number > 0");
    } else if (!strcmp(key, "slabs")) {
        bit = GEO_SLABS;
        if (!geo_slabs(c, g, key, value)) return 0;
    } else if (!strcmp(key, "depth_voxel_cm")) {
        bit = GEO_DEPTH;
        if (mct_cli_parse_f64(value, -HUGE_VAL, &g->depth_voxel_cm) || !(g->depth_voxel_cm > 0.0))
            return fail(c, "phantom", key, value, "expected a depth voxel in cm, a decimal number > 0");
    } else if (!strcmp(key, "image")) {
        bit = GEO_IMAGE;
        if (!geo_path(c, key, value, g->image, sizeof g->image)) return 0;
    } else if (!strcmp(key, "density_image")) {
        bit = GEO_DENSITY_IMAGE;
        if (!geo_path(c, key, value, g->density_image, sizeof g->density_image)) return 0;
    } else if (!strcmp(key, "calibration")) {
        bit = GEO_CALIBRATION;
        if (!geo_path(c, key, value, g->calibration, sizeof g->calibration)) return 0;
    } else if (!strcmp(key, "materials")) {
        bit = GEO_MATERIALS;
        if (!geo_path(c, key, value, g->materials, sizeof g->materials)) return 0;
    } else if (!strcmp(key, "reference")) {
        bit = GEO_REFERENCE;
        if (!geo_path(c, key, value, g->reference, sizeof g->reference)) return 0;
    } else if (!strcmp(key, "lateral_reference")) {
        bit = GEO_LATERAL;
        if (!geo_path(c, key, value, g->lateral_reference, sizeof g->lateral_reference)) return 0;
    } else if (!strcmp(key, "lateral_depths")) {
        bit = GEO_LATERAL_DEPTHS;
        const char* why = "expected depths in cm (decimal numbers >= 0, separated by blanks or ',')";
        g->nlateral_depths = 0;
        for (const char* at = value + strspn(value, " \t,"); *at; at += strspn(at, " \t,")) {
            const size_t len = strcspn(at, " \t,");
            char tok[MCT_CLI_INI_MAX_LINE + 1];
            snprintf(tok, sizeof tok, "%.*s", (int)len, at);
            at += len;
            if (g->nlateral_depths == MCT_CLI_MAX_LATERAL_DEPTHS) return fail(c, "phantom", key, value, "more than 32 depths");
            if (mct_cli_parse_f64(tok, 0.0, &g->lateral_depths[g->nlateral_depths++]))
                return fail(c, "phantom", key, value, why);
        }
        if (!g->nlateral_depths) return fail(c, "phantom", key, value, why);
    } else if (!strcmp(key, "lateral_scale")) {
        bit = GEO_LATERAL_SCALE;
        if (mct_cli_parse_f64(value, -HUGE_VAL, &g->lateral_scale) || !(g->lateral_scale > 0.0))
            return fail(c, "phantom", key, value,
                        "expected the factor from the file's dose to MeV/g per incident particle, a decimal number > 0");
    } else if (!strcmp(key, "lateral_k")) {
        bit = GEO_LATERAL_K;
        if (mct_cli_parse_f64(value, 0.0, &g->lateral_k))
            return fail(c, "phantom", key, value, "expected the standard errors allowed, a decimal number >= 0");
    } else if (!strcmp(key, "image_materials")) {
        bit = GEO_IMAGE_MATERIALS;
        g->nimage_materials = 0;
        for (const char* at = value + strspn(value, " \t,"); *at; at += strspn(at, " \t,")) {
            const size_t len = strcspn(at, " \t,");
            if (!material_name_ok(at, len))
                return fail(c, "phantom", key, value, "a material name is 1 to 31 letters, digits, '_' or '-'");
            if (g->nimage_materials == MCT_PHANTOM_MAX_MATERIALS)
                return fail(c, "phantom", key, value, "more than 16 materials");
            snprintf(g->image_materials[g->nimage_materials++], sizeof g->image_materials[0], "%.*s", (int)len, at);
            at += len;
        }
        if (!g->nimage_materials)
            return fail(c, "phantom", key, value, "expected the materials of indices 0, 1, ... (names separated by blanks or ',')");
    } else {
        return -1;
    }
    if ((g->given & bit) && bit != GEO_SLABS) return fail(c, "phantom", key, value, "given twice");
    g->given |= bit;
    return 1;
}

/* The geometry keys that go together; 0, or 1 after a message. */
static int check_geometry(const char* name, const mct_cli_geometry_t* g) {
    static const struct {
        unsigned bit;
        const char* key;
        unsigned kinds; /* bit per mct_cli_geometry_kind_t it serves */
    } keys[] = {
        {GEO_MATERIAL, "material", 1u << MCT_CLI_GEOMETRY_CUBE},
        {GEO_DENSITY, "density", 1u << MCT_CLI_GEOMETRY_CUBE},
        {GEO_SLABS, "slabs", 1u << MCT_CLI_GEOMETRY_SLABS},
        {GEO_DEPTH, "depth_voxel_cm", 1u << MCT_CLI_GEOMETRY_SLABS},
        {GEO_IMAGE, "image", 1u << MCT_CLI_GEOMETRY_IMAGE},
        {GEO_DENSITY_IMAGE, "density_image", 1u << MCT_CLI_GEOMETRY_IMAGE},
        {GEO_IMAGE_MATERIALS, "image_materials", 1u << MCT_CLI_GEOMETRY_IMAGE},
        {GEO_CALIBRATION, "calibration", 1u << MCT_CLI_GEOMETRY_IMAGE},
    };
    static const char* const kind[] = {"cube", "slabs", "image"};
    for (size_t i = 0; i < sizeof keys / sizeof *keys; ++i)
        if ((g->given & keys[i].bit) && !(keys[i].kinds & (1u << g->kind)))
            return mct_cli_error("%s: [phantom] %s does not apply to geometry = %s", name, keys[i].key, kind[g->kind]);
    if ((g->given & (GEO_LATERAL_DEPTHS | GEO_LATERAL_SCALE | GEO_LATERAL_K)) && !(g->given & GEO_LATERAL))
        return mct_cli_error("%s: [phantom] lateral_depths, lateral_scale and lateral_k need lateral_reference = FILE.csv",
                             name);
    if (g->kind == MCT_CLI_GEOMETRY_SLABS && !g->nslabs)
        return mct_cli_error("%s: [phantom] geometry = slabs needs slabs = material density_g_cm3 thickness_cm; ...", name);
    if (g->kind == MCT_CLI_GEOMETRY_IMAGE && !(g->given & GEO_IMAGE))
        return mct_cli_error("%s: [phantom] geometry = image needs image = FILE.mhd", name);
    const int pair = (g->given & GEO_DENSITY_IMAGE) != 0;
    if (pair && (g->given & GEO_CALIBRATION))
        return mct_cli_error("%s: [phantom] calibration maps Hounsfield units; with density_image the image holds "
                             "material indices", name);
    if (pair != ((g->given & GEO_IMAGE_MATERIALS) != 0))
        return mct_cli_error("%s: [phantom] density_image and image_materials go together (an image of material "
                             "indices, their names, and the densities)", name);
    return 0;
}

static const section_t sections[] = {
    /* Bossler's photon escape (sim/escape/escape.h). */
    {"escape", offsetof(mct_cli_config_t, escape), &mct_escape_param_table, escape_choices, NULL, NULL},
    /* Liu 2018's water phantom (sim/phantom/phantom.h). */
    {"phantom", offsetof(mct_cli_config_t, phantom), &mct_phantom_param_table, phantom_choices, phantom_geometry_key,
     GEO_KEYS},
    /* Liu 2018's test 1 (sim/tally_only/tally_only.h). */
    {"tally_only", offsetof(mct_cli_config_t, tally_only), &mct_tally_only_param_table, tally_only_choices, NULL, NULL},
    /* Westphal's workload (sim/scatter/scatter.h). */
    {"scatter", offsetof(mct_cli_config_t, scatter), &mct_scatter_param_table, scatter_choices, NULL, NULL},
    /* The PET scanner (sim/pet/pet.h). */
    {"pet", offsetof(mct_cli_config_t, pet), &mct_pet_param_table, pet_choices, pet_shape, "cylinder, ellipsoid"},
};

/* A numeric key: 1 when stored, 0 after a message. */
static int set_number(load_ctx_t* c, const section_t* sec, const mct_sim_param_t* p, const char* value,
                      void* params) {
    int ok;
    if (p->type == MCT_SIM_PARAM_F64) {
        double v = 0.0;
        ok = !mct_cli_parse_f64(value, -HUGE_VAL, &v) && mct_sim_param_in_range(p, v);
        if (ok) mct_sim_param_set(p, params, v);
    } else {
        const int64_t lo = (int64_t)p->min, hi = p->max >= 0x1p63 ? INT64_MAX : (int64_t)p->max;
        int64_t v = 0;
        ok = !mct_cli_parse_i64(value, lo, hi, &v) && mct_sim_param_in_range(p, (double)v);
        if (ok) mct_sim_param_set_int(p, params, v);
    }
    if (ok) return 1;
    char range[160], why[200];
    snprintf(why, sizeof why, "expected %s", mct_sim_param_describe(p, range, sizeof range));
    return fail(c, sec->name, p->key, value, why);
}

/* A choice: 1 when stored, 0 after a message ("expected a, b or c"). */
static int set_choice(load_ctx_t* c, const section_t* sec, const choice_key_t* k, const char* value, void* params) {
    int n = 0;
    for (; n < 4 && k->names[n]; ++n)
        if (!strcmp(value, k->names[n])) {
            *(int*)((char*)params + k->offset) = k->values[n];
            return 1;
        }
    if (k->why) return fail(c, sec->name, k->key, value, k->why);
    char why[200] = "expected ";
    for (int i = 0; i < n; ++i) {
        const char* sep = i == 0 ? "" : i + 1 == n ? " or " : ", ";
        snprintf(why + strlen(why), sizeof why - strlen(why), "%s%s", sep, k->names[i]);
    }
    return fail(c, sec->name, k->key, value, why);
}

static int set_section(load_ctx_t* c, const section_t* sec, const char* key, const char* value) {
    void* params = (char*)c->cfg + sec->params;
    const mct_sim_param_t* p = mct_sim_param_find(sec->table, key);
    if (p && (p->flags & MCT_SIM_PARAM_FILE)) return set_number(c, sec, p, value, params);
    for (const choice_key_t* k = sec->choices; k->key; ++k)
        if (!strcmp(key, k->key)) return set_choice(c, sec, k, value, params);
    const int more = sec->more ? sec->more(c, key, value, params) : -1;
    if (more >= 0) return more;
    /* The known keys: the table's for a problem file, then the choices. */
    char why[800] = "unknown key (known: ";
    const char* sep = "";
    for (int i = 0; i < sec->table->count; ++i)
        if (sec->table->params[i].flags & MCT_SIM_PARAM_FILE) {
            snprintf(why + strlen(why), sizeof why - strlen(why), "%s%s", sep, sec->table->params[i].key);
            sep = ", ";
        }
    for (const choice_key_t* k = sec->choices; k->key; ++k, sep = ", ")
        snprintf(why + strlen(why), sizeof why - strlen(why), "%s%s", sep, k->key);
    if (sec->more_keys) snprintf(why + strlen(why), sizeof why - strlen(why), "%s%s", sep, sec->more_keys);
    snprintf(why + strlen(why), sizeof why - strlen(why), ")");
    return fail(c, sec->name, key, value, why);
}

static int on_key(void* user, const char* section, const char* key, const char* value) {
    load_ctx_t* c = user;
    if (c->error[0]) return 0;
    if (!strcmp(section, "problem")) return set_problem(c, key, value);
    if (!strcmp(section, "tally")) return set_tally(c, key, value);
    for (size_t i = 0; i < sizeof sections / sizeof *sections; ++i)
        if (!strcmp(section, sections[i].name)) return set_section(c, &sections[i], key, value);
    if (!section[0]) return fail(c, "", key, value, "key outside any section");
    snprintf(c->error, sizeof c->error, "unknown section [%s] (known: " SIM_CLI_SECTIONS ")", section);
    c->error_line = c->lineno;
    return 0;
}

/* The known section names. */
static int known_section(const char* name) {
    static const char* const names[] = {"problem", "tally", "escape", "phantom", "tally_only", "scatter", "pet"};
    for (size_t i = 0; i < sizeof names / sizeof *names; ++i)
        if (!strcmp(name, names[i])) return 1;
    return 0;
}

/* Lines reach inih through this reader, one at a time, so that the line
 * numbers of every message are the reader's and each line is seen whole:
 * a line longer than inih's buffer would otherwise be split and its tail read
 * as a line of its own (a comment's tail as a key). The reader refuses such a
 * line, a NUL byte and an unknown or unclosed section header (inih reports
 * sections only through their keys, so an empty unknown section would pass
 * unseen), and stops at the first error of any kind. Leading blanks are
 * dropped, so an indented line is a line like any other (inih may read it as
 * a continuation otherwise). */
static char* read_line(char* str, int num, void* stream) {
    load_ctx_t* c = stream;
    if (c->error[0] || c->pos >= c->len) return NULL;
    const char* line = c->text + c->pos;
    const char* nl = memchr(line, '\n', c->len - c->pos);
    size_t n = nl ? (size_t)(nl - line) : c->len - c->pos;
    c->pos += n + (nl != NULL);
    ++c->lineno;
    if (memchr(line, '\0', n)) return line_error(c, "line holds a NUL byte (not a text file?)");
    if (n > 0 && line[n - 1] == '\r') --n;
    /* A UTF-8 byte-order mark before the first line. */
    if (c->lineno == 1 && n >= 3 && !memcmp(line, "\xEF\xBB\xBF", 3)) line += 3, n -= 3;
    const size_t limit = num - 1 < MCT_CLI_INI_MAX_LINE ? (size_t)(num - 1) : (size_t)MCT_CLI_INI_MAX_LINE;
    if (n > limit) {
        char why[160];
        snprintf(why, sizeof why, "line is %zu bytes long; a line of a problem file holds at most %zu", n, limit);
        return line_error(c, why);
    }
    while (n > 0 && (*line == ' ' || *line == '\t')) ++line, --n;
    c->raw = line, c->raw_len = n;
    memcpy(str, line, n);
    str[n] = '\0';
    if (str[0] == '[') {
        char* end = strchr(str, ']');
        if (!end) return line_error(c, "section header without ']'");
        char name[MCT_CLI_INI_MAX_LINE + 1];
        snprintf(name, sizeof name, "%.*s", (int)(end - str - 1), str + 1);
        if (!known_section(name)) {
            snprintf(c->error, sizeof c->error, "unknown section [%s] (known: " SIM_CLI_SECTIONS ")", name);
            c->error_line = c->lineno;
            return NULL;
        }
    }
    return str;
}

void mct_cli_config_defaults(mct_cli_config_t* cfg) {
    memset(cfg, 0, sizeof *cfg);
    cfg->histories = 1000000;
    cfg->seed = 1;
    cfg->batches = 10;
    cfg->method = MCT_METHOD_AUTO;
    cfg->dtype = MCT_DTYPE_F64;
    cfg->determinism = MCT_NOT_GUARANTEED;
    cfg->plan_mode = MCT_PLAN_ESTIMATE;
    mct_escape_params_init(&cfg->escape);
    mct_phantom_params_init(&cfg->phantom);
    snprintf(cfg->phantom_geometry.material, sizeof cfg->phantom_geometry.material, "water");
    cfg->phantom_geometry.depth_voxel_cm = 0.1;
    cfg->phantom_geometry.lateral_k = MCT_CLI_LATERAL_K;
    mct_tally_only_params_init(&cfg->tally_only);
    mct_scatter_params_init(&cfg->scatter);
    mct_pet_params_init(&cfg->pet);
    cfg->pet.index = MCT_PET_INDEX_AUTO; /* the full map where it fits (mct_cli_pet_create) */
}

int mct_cli_config_parse(const char* text, size_t len, const char* name, mct_cli_config_t* cfg) {
    mct_cli_config_defaults(cfg);
    load_ctx_t c;
    memset(&c, 0, sizeof c);
    c.cfg = cfg;
    c.text = text;
    c.len = len;
    const char* slash = name ? strrchr(name, '/') : NULL;
    if (slash) snprintf(c.dir, sizeof c.dir, "%.*s", slash == name ? 1 : (int)(slash - name), name);
    const int first = ini_parse_stream(read_line, &c, on_key, &c);
    /* inih returns the first line it found wrong, and goes on after its own
     * syntax errors; the reader stops at the first of ours. A syntax error
     * before ours is the first error. */
    if (first > 0 && (!c.error[0] || first < c.error_line))
        return mct_cli_error("%s:%d: not valid INI syntax (expected [section], key = value or a comment)", name, first);
    if (c.error[0]) return mct_cli_error("%s:%d: %s", name, c.error_line, c.error);
    if (first < 0) return mct_cli_error("%s: out of memory", name);
    if (!c.have_type) return mct_cli_error("%s: missing [problem] type (known: " SIM_CLI_PROBLEMS ")", name);
    return check_geometry(name, &cfg->phantom_geometry);
}

int mct_cli_config_load(const char* path, mct_cli_config_t* cfg) {
    mct_cli_config_defaults(cfg);
    char* text = NULL;
    size_t len = 0;
    if (mct_cli_read_file(path, "problem file", MCT_CLI_INI_MAX_BYTES, &text, &len)) return 1;
    const int rc = mct_cli_config_parse(text, len, path, cfg);
    free(text);
    return rc;
}
