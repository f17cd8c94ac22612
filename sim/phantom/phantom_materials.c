/* SPDX-License-Identifier: BSD-3-Clause */
/** @file phantom_materials.c  The built-in materials and the material list
 * file reader (see phantom_materials.h and data/materials/README.md). */
#include "phantom_materials.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "phantom_tables.h"
#include "sim_table.h"

/* The compiled-in tables of data/materials (csv_to_c.cmake). */
extern const int sim_bone_xcom_rows, sim_bone_estar_rows, sim_lung_xcom_rows, sim_lung_estar_rows;
extern const int sim_air_xcom_rows, sim_air_estar_rows, sim_tissue_xcom_rows, sim_tissue_estar_rows;
extern const double sim_bone_xcom[], sim_bone_estar[], sim_lung_xcom[], sim_lung_estar[];
extern const double sim_air_xcom[], sim_air_estar[], sim_tissue_xcom[], sim_tissue_estar[];

/* Compositions (mass fractions), nominal densities and I-values of EGSnrc's
 * 521icru.pegs4dat media H2O521ICRU, ICRPBONE521ICRU, LUNG521ICRU,
 * AIR521ICRU and ICRUTISSUE521ICRU (its RHOZ normalised to 1; I from the
 * ESTAR density-effect files those media name), as tools/materials prints them. */
typedef struct {
    const char* name;
    double density, i_ev;
    int elements;
    int z[9];
    double w[9];
} builtin_t;

static const builtin_t builtins[] = {
    {"water", 1.0, 75.0, 2, {1, 8}, {0.111901, 0.888099}},
    {"bone", 1.85, 106.414, 9, {1, 6, 7, 8, 12, 15, 16, 20, 30},
     {0.047234, 0.144330, 0.041990, 0.446096, 0.002200, 0.104970, 0.003150, 0.209930, 0.000100}},
    {"lung", 0.26, 75.166, 9, {1, 6, 7, 8, 11, 15, 16, 17, 19},
     {0.103000, 0.105000, 0.031000, 0.749000, 0.002000, 0.002000, 0.003000, 0.003000, 0.002000}},
    {"air", 1.2048e-3, 85.666, 4, {6, 7, 8, 18}, {0.000124, 0.755235, 0.231811, 0.012831}},
    {"tissue", 1.0, 74.852, 4, {1, 6, 7, 8}, {0.101172, 0.111000, 0.026000, 0.761828}},
};

mct_status_t mct_phantom_material_builtin(const char* name, mct_phantom_material_t* out) {
    if (!name || !out) return MCT_STATUS_NULL_POINTER;
    const double* xcom[] = {sim_water_xcom, sim_bone_xcom, sim_lung_xcom, sim_air_xcom, sim_tissue_xcom};
    const double* estar[] = {sim_water_estar, sim_bone_estar, sim_lung_estar, sim_air_estar, sim_tissue_estar};
    const int xrows[] = {sim_water_xcom_rows, sim_bone_xcom_rows, sim_lung_xcom_rows, sim_air_xcom_rows,
                         sim_tissue_xcom_rows};
    const int erows[] = {sim_water_estar_rows, sim_bone_estar_rows, sim_lung_estar_rows, sim_air_estar_rows,
                         sim_tissue_estar_rows};
    for (size_t k = 0; k < sizeof builtins / sizeof builtins[0]; ++k) {
        const builtin_t* b = &builtins[k];
        if (strcmp(name, b->name) != 0) continue;
        mct_phantom_material_t m;
        memset(&m, 0, sizeof m);
        strcpy(m.name, b->name);
        m.density_g_cm3 = b->density;
        m.i_eV = b->i_ev;
        m.elements = b->elements;
        for (int i = 0; i < b->elements; ++i) {
            m.z[i] = b->z[i];
            m.w[i] = b->w[i];
        }
        m.xcom = xcom[k];
        m.xcom_rows = xrows[k];
        m.estar = estar[k];
        m.estar_rows = erows[k];
        *out = m;
        return MCT_STATUS_SUCCESS;
    }
    return MCT_STATUS_INVALID_VALUE;
}

/* ---- The material list file ---------------------------------------------- */


/* Fewer rows cannot follow the curves to the 1e-3 that the tables'
 * log-log interpolation between NIST's points assumes (NIST's tables have 80). */
#define LOAD_MIN_ROWS 20
#define LOAD_MAX_ROWS 100000
/* The energies the engine's grids span (phantom_tables.c): a table must reach them. */
#define XCOM_E_LO 1.0e-3
#define ESTAR_E_LO 1.25e-2
#define TABLE_E_HI 1.0e3

static const char xcom_header[] = "energy_MeV,coherent_cm2_g,incoherent_cm2_g,photoelectric_cm2_g,pair_nuclear_cm2_g,"
                                  "pair_electron_cm2_g,total_with_coherent_cm2_g,total_without_coherent_cm2_g";
static const char estar_header[] = "energy_MeV,collision_stopping_MeV_cm2_g,radiative_stopping_MeV_cm2_g,"
                                   "total_stopping_MeV_cm2_g,csda_range_g_cm2,radiation_yield,density_effect_delta";

typedef struct {
    char* err;
    size_t errlen;
    int failed;
    int io; /**< the failure was a file that could not be opened or read */
} errbuf_t;

static void fail(errbuf_t* e, const char* fmt, ...) {
    if (e->failed) return;
    e->failed = 1;
    if (!e->err || !e->errlen) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(e->err, e->errlen, fmt, ap);
    va_end(ap);
}

static char* trim(char* s) {
    while (isspace((unsigned char)*s)) ++s;
    char* end = s + strlen(s);
    while (end > s && isspace((unsigned char)end[-1])) *--end = '\0';
    return s;
}

/* Reads a CSV table of `cols` columns with this header into a new array
 * (*rows rows) through the one table reader (sim_table.h), then checks the
 * values (>= 0, energies > 0 and rising) and the span. */
static double* read_table(const char* path, const char* header, int cols, double e_lo, int* rows, errbuf_t* e) {
    double* t = NULL;
    int n = 0;
    const mct_status_t st = mct_sim_table_read(path, header, cols, LOAD_MIN_ROWS, LOAD_MAX_ROWS, &t, &n, e->err,
                                               e->errlen);
    if (st) {
        e->failed = 1;
        e->io = st == MCT_STATUS_IO_ERROR;
        return NULL;
    }
    for (int i = 0; i < n && !e->failed; ++i) {
        const double* r = t + (size_t)i * cols;
        for (int c = 0; c < cols && !e->failed; ++c)
            if (r[c] < 0.0 || (c == 0 && r[c] <= 0.0))
                fail(e, "%s: row %d: column %d: %g is %s", path, i + 1, c + 1, r[c], c == 0 ? "not positive" : "negative");
        if (!e->failed && i > 0 && !(r[0] > r[-cols]))
            fail(e, "%s: row %d: energy %g does not rise above the row before's %g", path, i + 1, r[0], r[-cols]);
    }
    if (!e->failed && (t[0] > e_lo * (1.0 + 1e-9) || t[(size_t)(n - 1) * cols] < TABLE_E_HI * (1.0 - 1e-9)))
        fail(e, "%s: energies %g to %g MeV do not span %g to %g MeV", path, t[0], t[(size_t)(n - 1) * cols], e_lo,
             TABLE_E_HI);
    if (e->failed) {
        free(t);
        return NULL;
    }
    *rows = n;
    return t;
}

/* One section of the list while it is read. */
typedef struct {
    mct_phantom_material_t m;
    int line;
    int have_density, have_i, have_comp;
    char xcom_path[1024], estar_path[1024];
    double *xcom, *estar;
} entry_t;

static int parse_composition(char* s, mct_phantom_material_t* m, const char* where, errbuf_t* e) {
    int n = 0;
    double sum = 0.0;
    /* Tokens between spaces, tabs and commas (by hand: strtok keeps hidden state). */
    for (char* next = s;;) {
        next += strspn(next, " \t,");
        if (!*next) break;
        char* tok = next;
        next += strcspn(next, " \t,");
        if (*next) *next++ = '\0';
        char* colon = strchr(tok, ':');
        double z, w;
        if (!colon) {
            fail(e, "%s: composition: \"%s\" is not Z:mass-fraction", where, tok);
            return 0;
        }
        *colon = '\0';
        if (mct_sim_parse_decimal(tok, &z) || !(z >= 1.0 && z <= 92.0) || z != floor(z) ||
            mct_phantom_atomic_weight((int)z) == 0.0) {
            fail(e, "%s: composition: unknown element Z = \"%s\" (1 to 92)", where, tok);
            return 0;
        }
        if (mct_sim_parse_decimal(colon + 1, &w) || !(w > 0.0 && w <= 1.0)) {
            fail(e, "%s: composition: mass fraction \"%s\" of Z = %d is not in (0, 1]", where, colon + 1, (int)z);
            return 0;
        }
        if (n == MCT_PHANTOM_MAX_ELEMENTS) {
            fail(e, "%s: composition: more than %d elements", where, MCT_PHANTOM_MAX_ELEMENTS);
            return 0;
        }
        for (int i = 0; i < n; ++i)
            if (m->z[i] == (int)z) {
                fail(e, "%s: composition: Z = %d twice", where, (int)z);
                return 0;
            }
        m->z[n] = (int)z;
        m->w[n] = w;
        sum += w;
        ++n;
    }
    if (n == 0) {
        fail(e, "%s: composition: no elements", where);
        return 0;
    }
    if (fabs(sum - 1.0) > 1e-3) {
        fail(e, "%s: composition: mass fractions sum to %.6g, not 1 within 1e-3", where, sum);
        return 0;
    }
    for (int i = 0; i < n; ++i) m->w[i] /= sum;
    m->elements = n;
    return 1;
}

/* dir of the list file + rel, or rel when it is absolute. */
static int join_path(char* out, size_t len, const char* list, const char* rel) {
    if (rel[0] == '/') return snprintf(out, len, "%s", rel) < (int)len;
    const char* slash = strrchr(list, '/');
    const int dir = slash ? (int)(slash - list + 1) : 0;
    return snprintf(out, len, "%.*s%s", dir, list, rel) < (int)len;
}

mct_status_t mct_phantom_materials_load(const char* path, mct_phantom_material_t* out, int max, int* count,
                                        void** storage, char* err, size_t errlen) {
    if (err && errlen) err[0] = '\0';
    if (!path || !out || !count || !storage) return MCT_STATUS_NULL_POINTER;
    *count = 0;
    *storage = NULL;
    errbuf_t e = {err, errlen, 0, 0};
    mct_status_t st = MCT_STATUS_PARSE_ERROR;
    if (max < 1) {
        fail(&e, "%s: room for %d materials", path, max);
        return MCT_STATUS_INVALID_VALUE;
    }
    entry_t* ent = calloc((size_t)max, sizeof *ent);
    if (!ent) {
        fail(&e, "%s: out of memory", path);
        return MCT_STATUS_OUT_OF_MEMORY;
    }
    int n = 0;
    FILE* f = fopen(path, "r");
    if (!f) {
        fail(&e, "%s: cannot open (%s)", path, strerror(errno));
        free(ent);
        return MCT_STATUS_IO_ERROR;
    }
    char line[4096];
    int lineno = 0;
    entry_t* cur = NULL;
    while (!e.failed && fgets(line, sizeof line, f)) {
        ++lineno;
        if (!strchr(line, '\n') && !feof(f)) {
            fail(&e, "%s:%d: line too long", path, lineno);
            break;
        }
        char* s = trim(line);
        if (!*s || *s == '#' || *s == ';') continue;
        if (*s == '[') {
            char* close = strchr(s, ']');
            if (!close || *trim(close + 1)) {
                fail(&e, "%s:%d: a section header is [name]", path, lineno);
                break;
            }
            *close = '\0';
            char* name = trim(s + 1);
            const size_t len = strlen(name);
            int ok = len > 0 && len < sizeof ent[0].m.name;
            for (size_t i = 0; ok && i < len; ++i)
                ok = isalnum((unsigned char)name[i]) || name[i] == '_' || name[i] == '-' || name[i] == '.';
            if (!ok) {
                fail(&e, "%s:%d: material name \"%s\": 1 to %d letters, digits, '_', '-' or '.'", path, lineno, name,
                     (int)sizeof ent[0].m.name - 1);
                break;
            }
            for (int i = 0; i < n; ++i)
                if (strcmp(ent[i].m.name, name) == 0) {
                    fail(&e, "%s:%d: material [%s] twice", path, lineno, name);
                    break;
                }
            if (e.failed) break;
            if (n == max) {
                fail(&e, "%s:%d: more than %d materials", path, lineno, max);
                st = MCT_STATUS_TOO_LARGE;
                break;
            }
            cur = &ent[n++];
            strcpy(cur->m.name, name);
            cur->line = lineno;
            continue;
        }
        char* eq = strchr(s, '=');
        if (!eq) {
            fail(&e, "%s:%d: expected [name] or key = value", path, lineno);
            break;
        }
        *eq = '\0';
        char *key = trim(s), *val = trim(eq + 1);
        char where[1200];
        snprintf(where, sizeof where, "%s:%d", path, lineno);
        if (!cur) {
            fail(&e, "%s: \"%s\" before the first [material]", where, key);
            break;
        }
        double v;
        if (strcmp(key, "density") == 0 || strcmp(key, "I") == 0) {
            const int is_i = key[0] == 'I';
            if ((is_i ? cur->have_i : cur->have_density)) {
                fail(&e, "%s: %s given twice in [%s]", where, key, cur->m.name);
            } else if (mct_sim_parse_decimal(val, &v) || !(v > 0.0)) {
                fail(&e, "%s: %s \"%s\" is not a positive number", where, key, val);
            } else if (is_i) {
                cur->m.i_eV = v, cur->have_i = 1;
            } else {
                cur->m.density_g_cm3 = v, cur->have_density = 1;
            }
        } else if (strcmp(key, "composition") == 0) {
            if (cur->have_comp)
                fail(&e, "%s: composition given twice in [%s]", where, cur->m.name);
            else
                cur->have_comp = parse_composition(val, &cur->m, where, &e);
        } else if (strcmp(key, "xcom") == 0 || strcmp(key, "estar") == 0) {
            char* dst = key[0] == 'x' ? cur->xcom_path : cur->estar_path;
            if (dst[0])
                fail(&e, "%s: %s given twice in [%s]", where, key, cur->m.name);
            else if (!*val || !join_path(dst, sizeof cur->xcom_path, path, val))
                fail(&e, "%s: %s: bad path \"%s\"", where, key, val);
        } else {
            fail(&e, "%s: unknown key \"%s\" (density, I, composition, xcom, estar)", where, key);
        }
    }
    if (!e.failed && ferror(f)) {
        fail(&e, "%s: read error", path);
        st = MCT_STATUS_IO_ERROR;
    }
    fclose(f);
    if (!e.failed && n == 0) fail(&e, "%s: no [material] section", path);
    for (int i = 0; i < n && !e.failed; ++i) {
        entry_t* m = &ent[i];
        const char* missing = !m->have_density ? "density" : !m->have_i ? "I" : !m->have_comp ? "composition"
                              : !m->xcom_path[0] ? "xcom" : !m->estar_path[0] ? "estar" : NULL;
        if (missing) {
            fail(&e, "%s:%d: [%s] has no %s", path, m->line, m->m.name, missing);
            break;
        }
        m->xcom = read_table(m->xcom_path, xcom_header, 8, XCOM_E_LO, &m->m.xcom_rows, &e);
        if (m->xcom) m->estar = read_table(m->estar_path, estar_header, 7, ESTAR_E_LO, &m->m.estar_rows, &e);
    }
    double* block = NULL;
    if (!e.failed) {
        size_t total = 0;
        for (int i = 0; i < n; ++i) total += (size_t)ent[i].m.xcom_rows * 8 + (size_t)ent[i].m.estar_rows * 7;
        block = malloc(total * sizeof *block);
        if (!block) {
            fail(&e, "%s: out of memory", path);
            st = MCT_STATUS_OUT_OF_MEMORY;
        }
    }
    if (!e.failed) {
        double* p = block;
        for (int i = 0; i < n; ++i) {
            const size_t nx = (size_t)ent[i].m.xcom_rows * 8, ne = (size_t)ent[i].m.estar_rows * 7;
            memcpy(p, ent[i].xcom, nx * sizeof *p);
            ent[i].m.xcom = p;
            p += nx;
            memcpy(p, ent[i].estar, ne * sizeof *p);
            ent[i].m.estar = p;
            p += ne;
        }
        for (int i = 0; i < n; ++i) out[i] = ent[i].m;
        *count = n;
        *storage = block;
        st = MCT_STATUS_SUCCESS;
    } else if (e.io) {
        st = MCT_STATUS_IO_ERROR;
    }
    for (int i = 0; i < n; ++i) {
        free(ent[i].xcom);
        free(ent[i].estar);
    }
    free(ent);
    return st;
}
