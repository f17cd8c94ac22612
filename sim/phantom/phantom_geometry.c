/* SPDX-License-Identifier: BSD-3-Clause */
/** @file phantom_geometry.c  The phantom's inputs: the cube, slab and image
 * builders of a geometry (phantom_geometry.h), the MetaImage reader and the
 * Hounsfield-unit calibration. Every bad input is one line in the caller's
 * err buffer and a zeroed geometry. */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "phantom_geometry.h"
#include "sim_common.h"
#include "sim_table.h"

/* The largest MetaImage header or calibration file read (bytes). */
#define TEXT_MAX (1 << 20)

/* Splits s in place into blank-separated words; the count, at most max (max + 1: more). */
static int split_words(char* s, char** word, int max) {
    int n = 0;
    for (s += strspn(s, " \t\r\n"); *s; s += strspn(s, " \t\r\n")) {
        if (n == max) return max + 1;
        word[n++] = s;
        s += strcspn(s, " \t\r\n");
        if (*s) *s++ = '\0';
    }
    return n;
}

static const mct_phantom_material_t* find_material(const mct_phantom_material_t* known, int count, const char* name) {
    for (int i = 0; known && i < count; ++i)
        if (!strcmp(known[i].name, name)) return &known[i];
    return NULL;
}

static void known_names(const mct_phantom_material_t* known, int count, char* buf, size_t size) {
    buf[0] = '\0';
    for (int i = 0; known && i < count; ++i)
        snprintf(buf + strlen(buf), size - strlen(buf), "%s%s", i ? ", " : "", known[i].name);
}

/* Adds material `name` to g's list (once) and gives its index; -1 after a message. */
static int use_material(mct_phantom_geometry_t* g, const char* name, const mct_phantom_material_t* known, int count,
                        char* err, size_t errlen) {
    for (int i = 0; i < g->materials; ++i)
        if (!strcmp(g->material[i].name, name)) return i;
    const mct_phantom_material_t* m = find_material(known, count, name);
    if (!m) {
        char list[512];
        known_names(known, count, list, sizeof list);
        sim_fail(err, errlen, MCT_STATUS_INVALID_VALUE, "unknown material '%s' (known: %s)", name, list);
        return -1;
    }
    if (g->materials == MCT_PHANTOM_MAX_MATERIALS) {
        sim_fail(err, errlen, MCT_STATUS_TOO_LARGE, "more than %d materials (a geometry holds at most %d)",
                 MCT_PHANTOM_MAX_MATERIALS, MCT_PHANTOM_MAX_MATERIALS);
        return -1;
    }
    g->material[g->materials] = *m;
    return g->materials++;
}

static int density_ok(double d) { return isfinite(d) && d > 0.0; }

/* Sets the grid and allocates the voxels; a status after a message. */
static mct_status_t grid_alloc(mct_phantom_geometry_t* g, int nx, int ny, int nz, double dx, double dy, double dz,
                               char* err, size_t errlen) {
    if (nx < 1 || ny < 1 || nz < 1)
        return sim_fail(err, errlen, MCT_STATUS_INVALID_VALUE, "voxel counts %d x %d x %d: each must be >= 1", nx, ny,
                        nz);
    if (!(isfinite(dx) && dx > 0.0 && isfinite(dy) && dy > 0.0 && isfinite(dz) && dz > 0.0))
        return sim_fail(err, errlen, MCT_STATUS_INVALID_VALUE,
                        "voxel size %g x %g x %g cm: each must be > 0 and finite", dx, dy, dz);
    const int64_t n = (int64_t)nx * ny * nz;
    if (n > MCT_PHANTOM_MAX_VOXELS)
        return sim_fail(err, errlen, MCT_STATUS_TOO_LARGE,
                        "%d x %d x %d = %lld voxels: the tally's bins hold at most %lld", nx, ny, nz, (long long)n,
                        (long long)MCT_PHANTOM_MAX_VOXELS);
    g->nx = nx, g->ny = ny, g->nz = nz;
    g->dx_cm = dx, g->dy_cm = dy, g->dz_cm = dz;
    g->mat = malloc((size_t)n);
    g->density = malloc((size_t)n * sizeof(float));
    if (!g->mat || !g->density)
        return sim_fail(err, errlen, MCT_STATUS_OUT_OF_MEMORY, "out of memory for %lld voxels", (long long)n);
    return MCT_STATUS_SUCCESS;
}

/* Hands a finished geometry over, or frees a failed one; *out is zeroed on failure. */
static mct_status_t finish(mct_status_t st, mct_phantom_geometry_t* g, mct_phantom_geometry_t* out) {
    if (st == MCT_STATUS_SUCCESS) {
        *out = *g;
    } else {
        mct_phantom_geometry_free(g);
        memset(out, 0, sizeof *out);
    }
    return st;
}

/* ---- Cube and slabs ------------------------------------------------------------ */

mct_status_t mct_phantom_geometry_cube(int n, double size_cm, const char* material, double density_g_cm3,
                                       const mct_phantom_material_t* known, int count, mct_phantom_geometry_t* out,
                                       char* err, size_t errlen) {
    if (!out || !material) return sim_fail(err, errlen, MCT_STATUS_NULL_POINTER, "cube: no material or output given");
    mct_phantom_geometry_t g;
    memset(&g, 0, sizeof g);
    mct_status_t st;
    if (!density_ok(density_g_cm3))
        st = sim_fail(err, errlen, MCT_STATUS_INVALID_VALUE, "density %g g/cm3 of %s: must be > 0 and finite",
                      density_g_cm3, material);
    else if (!(isfinite(size_cm) && size_cm > 0.0) || n < 1)
        st = sim_fail(err, errlen, MCT_STATUS_INVALID_VALUE, "cube of %d voxels over %g cm: both must be > 0", n,
                      size_cm);
    else if (use_material(&g, material, known, count, err, errlen) < 0)
        st = MCT_STATUS_INVALID_VALUE;
    else
        st = grid_alloc(&g, n, n, n, size_cm / n, size_cm / n, size_cm / n, err, errlen);
    if (!st) {
        const int64_t v = (int64_t)n * n * n;
        memset(g.mat, 0, (size_t)v);
        for (int64_t k = 0; k < v; ++k) g.density[k] = (float)density_g_cm3;
    }
    return finish(st, &g, out);
}

mct_status_t mct_phantom_geometry_slabs(const mct_phantom_slab_t* slabs, int nslabs, int n, double lateral_cm,
                                        double dz_cm, const mct_phantom_material_t* known, int count,
                                        mct_phantom_geometry_t* out, char* err, size_t errlen) {
    if (!out || (!slabs && nslabs))
        return sim_fail(err, errlen, MCT_STATUS_NULL_POINTER, "slabs: no slabs or output given");
    mct_phantom_geometry_t g;
    memset(&g, 0, sizeof g);
    if (nslabs < 1) return finish(sim_fail(err, errlen, MCT_STATUS_INVALID_VALUE, "slabs: none given"), &g, out);
    if (!(isfinite(dz_cm) && dz_cm > 0.0))
        return finish(
            sim_fail(err, errlen, MCT_STATUS_INVALID_VALUE, "slabs: depth voxel %g cm must be > 0 and finite", dz_cm),
            &g, out);
    if (!(isfinite(lateral_cm) && lateral_cm > 0.0) || n < 1)
        return finish(sim_fail(err, errlen, MCT_STATUS_INVALID_VALUE,
                               "slabs: %d lateral voxels over %g cm: both must be > 0", n, lateral_cm),
                      &g, out);
    int64_t nz = 0;
    int idx[256];
    if (nslabs > (int)(sizeof idx / sizeof *idx))
        return finish(sim_fail(err, errlen, MCT_STATUS_TOO_LARGE, "slabs: %d given, at most %d", nslabs,
                               (int)(sizeof idx / sizeof *idx)),
                      &g, out);
    for (int i = 0; i < nslabs; ++i) {
        const mct_phantom_slab_t* s = &slabs[i];
        if (!density_ok(s->density_g_cm3))
            return finish(sim_fail(err, errlen, MCT_STATUS_INVALID_VALUE,
                                   "slab %d (%s): density %g g/cm3 must be > 0 and finite", i + 1, s->material,
                                   s->density_g_cm3),
                          &g, out);
        if (!(isfinite(s->thickness_cm) && s->thickness_cm > 0.0))
            return finish(sim_fail(err, errlen, MCT_STATUS_INVALID_VALUE,
                                   "slab %d (%s): thickness %g cm must be > 0 and finite", i + 1, s->material,
                                   s->thickness_cm),
                          &g, out);
        const double q = s->thickness_cm / dz_cm, r = nearbyint(q);
        if (r < 1.0 || fabs(q - r) > 1e-9 * q || r > (double)MCT_PHANTOM_MAX_VOXELS)
            return finish(sim_fail(err, errlen, MCT_STATUS_INVALID_VALUE,
                                   "slab %d (%s): thickness %g cm is not a whole number of depth voxels of %g cm",
                                   i + 1, s->material, s->thickness_cm, dz_cm),
                          &g, out);
        nz += (int64_t)r;
        if (nz > 2147483647)
            return finish(sim_fail(err, errlen, MCT_STATUS_TOO_LARGE, "slabs: more than 2^31 depth voxels"), &g, out);
        idx[i] = use_material(&g, s->material, known, count, err, errlen);
        if (idx[i] < 0) return finish(MCT_STATUS_INVALID_VALUE, &g, out);
    }
    const double d = lateral_cm / n;
    mct_status_t st = grid_alloc(&g, n, n, (int)nz, d, d, dz_cm, err, errlen);
    if (st) return finish(st, &g, out);
    const int64_t plane = (int64_t)n * n;
    int64_t z = 0;
    for (int i = 0; i < nslabs; ++i) {
        const int64_t layers = (int64_t)nearbyint(slabs[i].thickness_cm / dz_cm);
        for (int64_t l = 0; l < layers; ++l, ++z) {
            memset(g.mat + z * plane, idx[i], (size_t)plane);
            for (int64_t k = 0; k < plane; ++k) g.density[z * plane + k] = (float)slabs[i].density_g_cm3;
        }
    }
    return finish(MCT_STATUS_SUCCESS, &g, out);
}

/* ---- Calibration --------------------------------------------------------------- */

void mct_phantom_calibration_default(mct_phantom_calibration_t* cal) {
    static const mct_phantom_hu_segment_t ramp[] = {
        {-1024.0, -974.0, "air", 0.001, 0.044},
        {-974.0, -724.0, "lung", 0.044, 0.302},
        {-724.0, 101.0, "tissue", 0.302, 1.101},
        {101.0, 1976.0, "bone", 1.101, 2.088},
    };
    memset(cal, 0, sizeof *cal);
    cal->segments = (int)(sizeof ramp / sizeof *ramp);
    memcpy(cal->segment, ramp, sizeof ramp);
}

mct_status_t mct_phantom_calibration_lookup(const mct_phantom_calibration_t* cal, double hu, int* segment,
                                            double* density_g_cm3) {
    for (int i = 0; i < cal->segments; ++i) {
        const mct_phantom_hu_segment_t* s = &cal->segment[i];
        const int last = i + 1 == cal->segments;
        if (hu >= s->hu_lo && (hu < s->hu_hi || (last && hu == s->hu_hi))) {
            *segment = i;
            *density_g_cm3 = s->density_lo + (hu - s->hu_lo) / (s->hu_hi - s->hu_lo) * (s->density_hi - s->density_lo);
            return MCT_STATUS_SUCCESS;
        }
    }
    return MCT_STATUS_INVALID_VALUE;
}

/* Reads a whole regular file of at most max bytes (NUL after it); a status after a message. */
static mct_status_t read_text(const char* path, const char* what, size_t max, char** text, size_t* len, char* err,
                              size_t errlen) {
    FILE* f = fopen(path, "rb");
    if (!f) return sim_fail(err, errlen, MCT_STATUS_IO_ERROR, "%s %s: cannot open (%s)", what, path, strerror(errno));
    char* buf = malloc(max + 1);
    if (!buf) {
        fclose(f);
        return sim_fail(err, errlen, MCT_STATUS_OUT_OF_MEMORY, "%s %s: out of memory", what, path);
    }
    const size_t n = fread(buf, 1, max + 1, f);
    const int bad = ferror(f);
    fclose(f);
    if (bad) {
        free(buf);
        return sim_fail(err, errlen, MCT_STATUS_IO_ERROR, "%s %s: cannot be read", what, path);
    }
    *text = buf;
    *len = n;
    if (n > max) buf[max] = '\0'; /* a caller that needs it whole checks len against max */
    else buf[n] = '\0';
    return MCT_STATUS_SUCCESS;
}

mct_status_t mct_phantom_calibration_load(const char* path, mct_phantom_calibration_t* cal, char* err, size_t errlen) {
    if (!path || !cal) return sim_fail(err, errlen, MCT_STATUS_NULL_POINTER, "calibration: no file given");
    char* text;
    size_t len;
    mct_status_t st = read_text(path, "calibration", TEXT_MAX, &text, &len, err, errlen);
    if (st) return st;
    mct_phantom_calibration_t c;
    memset(&c, 0, sizeof c);
    if (len > TEXT_MAX)
        st = sim_fail(err, errlen, MCT_STATUS_INVALID_VALUE, "calibration %s: larger than %d bytes", path, TEXT_MAX);
    else if (memchr(text, '\0', len))
        st = sim_fail(err, errlen, MCT_STATUS_INVALID_VALUE, "calibration %s: not a text file", path);
    int lineno = 0;
    for (char* line = text; !st && line && *line;) {
        char* nl = strchr(line, '\n');
        if (nl) *nl = '\0';
        ++lineno;
        char* hash = strchr(line, '#');
        if (hash) *hash = '\0';
        char* w[6];
        const int n = split_words(line, w, 5);
        if (n == 0) {
            line = nl ? nl + 1 : NULL;
            continue;
        }
        double v[4];
        if (n != 5 || mct_sim_parse_decimal(w[0], &v[0]) || mct_sim_parse_decimal(w[1], &v[1]) || mct_sim_parse_decimal(w[3], &v[2]) ||
            mct_sim_parse_decimal(w[4], &v[3])) {
            st = sim_fail(err, errlen, MCT_STATUS_PARSE_ERROR,
                          "calibration %s:%d: expected hu_lo hu_hi material density_lo density_hi", path, lineno);
        } else if (!(v[0] < v[1])) {
            st = sim_fail(err, errlen, MCT_STATUS_INVALID_VALUE, "calibration %s:%d: hu_lo %g must be below hu_hi %g",
                          path, lineno, v[0], v[1]);
        } else if (!density_ok(v[2]) || !density_ok(v[3])) {
            st = sim_fail(err, errlen, MCT_STATUS_INVALID_VALUE,
                          "calibration %s:%d: densities %g and %g g/cm3 must be > 0 and finite", path, lineno, v[2],
                          v[3]);
        } else if (strlen(w[2]) >= sizeof c.segment[0].material) {
            st = sim_fail(err, errlen, MCT_STATUS_INVALID_VALUE, "calibration %s:%d: material name '%s' is too long",
                          path, lineno, w[2]);
        } else if (c.segments && v[0] < c.segment[c.segments - 1].hu_hi) {
            st = sim_fail(
                err, errlen, MCT_STATUS_INVALID_VALUE,
                "calibration %s:%d: segment starts at %g HU, below the previous one's end %g (segments rise and "
                "do not overlap)",
                path, lineno, v[0], c.segment[c.segments - 1].hu_hi);
        } else if (c.segments == MCT_PHANTOM_MAX_HU_SEGMENTS) {
            st = sim_fail(err, errlen, MCT_STATUS_TOO_LARGE, "calibration %s:%d: more than %d segments", path, lineno,
                          MCT_PHANTOM_MAX_HU_SEGMENTS);
        } else {
            mct_phantom_hu_segment_t* s = &c.segment[c.segments++];
            s->hu_lo = v[0], s->hu_hi = v[1], s->density_lo = v[2], s->density_hi = v[3];
            snprintf(s->material, sizeof s->material, "%s", w[2]);
        }
        line = nl ? nl + 1 : NULL;
    }
    free(text);
    if (!st && c.segments == 0)
        st = sim_fail(err, errlen, MCT_STATUS_INVALID_VALUE, "calibration %s: no segments", path);
    if (!st) *cal = c;
    return st;
}

/* ---- MetaImage ------------------------------------------------------------------ */

typedef struct {
    const char* name;
    int bytes;
} element_type_t;

static const element_type_t element_types[] = {
    {"MET_CHAR", 1},      {"MET_UCHAR", 1},      {"MET_SHORT", 2},  {"MET_USHORT", 2},  {"MET_INT", 4},
    {"MET_UINT", 4},      {"MET_LONG_LONG", 8},  {"MET_ULONG_LONG", 8}, {"MET_FLOAT", 4}, {"MET_DOUBLE", 8},
};

/* Converts one element (bytes in file order) to double. */
static double element_value(int type, const unsigned char* src, int msb) {
    unsigned char b[8];
    const int n = element_types[type].bytes;
    /* To little-endian, then assembled arithmetically: any host order. */
    for (int i = 0; i < n; ++i) b[i] = msb ? src[n - 1 - i] : src[i];
    uint64_t u = 0;
    for (int i = n - 1; i >= 0; --i) u = u << 8 | b[i];
    switch (type) {
    case 0: return (double)(int8_t)u;
    case 1: return (double)(uint8_t)u;
    case 2: return (double)(int16_t)u;
    case 3: return (double)(uint16_t)u;
    case 4: return (double)(int32_t)u;
    case 5: return (double)(uint32_t)u;
    case 6: return (double)(int64_t)u;
    case 7: return (double)u;
    case 8: {
        const uint32_t w = (uint32_t)u;
        float f;
        memcpy(&f, &w, sizeof f);
        return f;
    }
    default: {
        double d;
        memcpy(&d, &u, sizeof d);
        return d;
    }
    }
}

static int is_true(const char* v) { return !strcmp(v, "True") || !strcmp(v, "true") || !strcmp(v, "TRUE") || !strcmp(v, "1"); }
static int is_false(const char* v) { return !strcmp(v, "False") || !strcmp(v, "false") || !strcmp(v, "FALSE") || !strcmp(v, "0"); }

/* Three numbers of a header value; 0 on success. */
static int three_numbers(char* value, double v[3]) {
    char* w[4];
    if (split_words(value, w, 3) != 3) return 1;
    for (int i = 0; i < 3; ++i)
        if (mct_sim_parse_decimal(w[i], &v[i])) return 1;
    return 0;
}

static int key_is(const char* a, const char* b) {
    for (; *a && *b; ++a, ++b)
        if (tolower((unsigned char)*a) != tolower((unsigned char)*b)) return 0;
    return *a == *b;
}

mct_status_t mct_phantom_image_read(const char* path, mct_phantom_image_t* out, char* err, size_t errlen) {
    if (!path || !out) return sim_fail(err, errlen, MCT_STATUS_NULL_POINTER, "image: no file given");
    memset(out, 0, sizeof *out);
    char* text;
    size_t len;
    /* The header: the first TEXT_MAX bytes hold it (a .mha's data follow it). */
    mct_status_t st = read_text(path, "image", TEXT_MAX, &text, &len, err, errlen);
    if (st) return st;
    int ndims = 0, have_dims = 0, have_spacing = 0, type = -1, msb = 0, have_file = 0, local = 0;
    long long header_size = 0;
    double dims[3] = {0}, spacing[3] = {0};
    char datafile[4096] = "";
    size_t data_offset = 0; /* .mha: where the data start */
    int lineno = 0;
    char* line = text;
    while (!st && line < text + (len > TEXT_MAX ? TEXT_MAX : len) && !have_file) {
        char* nl = memchr(line, '\n', (size_t)(text + (len > TEXT_MAX ? TEXT_MAX : len) - line));
        if (!nl) nl = text + (len > TEXT_MAX ? TEXT_MAX : len);
        *nl = '\0';
        ++lineno;
        char* next = nl + 1;
        if (nl > line && nl[-1] == '\r') nl[-1] = '\0';
        char* eq = strchr(line, '=');
        char* key = line + strspn(line, " \t");
        if (!*key) {
            line = next;
            continue;
        }
        if (!eq) {
            st = sim_fail(err, errlen, MCT_STATUS_PARSE_ERROR, "image %s:%d: expected Key = Value", path, lineno);
            break;
        }
        char* kend = eq;
        while (kend > key && (kend[-1] == ' ' || kend[-1] == '\t')) --kend;
        *kend = '\0';
        char* value = eq + 1;
        value += strspn(value, " \t");
        for (char* e = value + strlen(value); e > value && (e[-1] == ' ' || e[-1] == '\t'); --e) e[-1] = '\0';
        double v3[3];
        if (key_is(key, "NDims")) {
            double d;
            if (mct_sim_parse_decimal(value, &d) || d != 3.0)
                st = sim_fail(err, errlen, MCT_STATUS_INVALID_VALUE, "image %s: NDims = %s, expected 3", path, value);
            ndims = 3;
        } else if (key_is(key, "DimSize")) {
            if (three_numbers(value, v3))
                st = sim_fail(err, errlen, MCT_STATUS_INVALID_VALUE, "image %s: DimSize needs 3 whole numbers >= 1",
                              path);
            for (int i = 0; !st && i < 3; ++i) {
                if (!(v3[i] >= 1.0 && v3[i] <= 2147483647.0 && v3[i] == floor(v3[i])))
                    st = sim_fail(err, errlen, MCT_STATUS_INVALID_VALUE, "image %s: DimSize needs 3 whole numbers >= 1",
                                  path);
                dims[i] = v3[i];
            }
            have_dims = 1;
        } else if (key_is(key, "ElementSpacing") || (key_is(key, "ElementSize") && !have_spacing)) {
            if (three_numbers(value, v3) || !(v3[0] > 0.0 && v3[1] > 0.0 && v3[2] > 0.0))
                st = sim_fail(err, errlen, MCT_STATUS_INVALID_VALUE,
                              "image %s: %s needs 3 numbers > 0 (mm), one per dimension", path, key);
            memcpy(spacing, v3, sizeof spacing);
            have_spacing = 1;
        } else if (key_is(key, "ElementType")) {
            for (int i = 0; i < (int)(sizeof element_types / sizeof *element_types); ++i)
                if (!strcmp(value, element_types[i].name)) type = i;
            if (type < 0)
                st = sim_fail(err, errlen, MCT_STATUS_NOT_SUPPORTED,
                              "image %s: ElementType %s not read (known: MET_CHAR, MET_UCHAR, MET_SHORT, MET_USHORT, "
                              "MET_INT, MET_UINT, MET_LONG_LONG, MET_ULONG_LONG, MET_FLOAT, MET_DOUBLE)",
                              path, value);
        } else if (key_is(key, "ElementByteOrderMSB") || key_is(key, "BinaryDataByteOrderMSB")) {
            if (is_true(value)) msb = 1;
            else if (is_false(value)) msb = 0;
            else
                st = sim_fail(err, errlen, MCT_STATUS_INVALID_VALUE, "image %s: %s = %s, expected True or False", path,
                              key, value);
        } else if (key_is(key, "CompressedData")) {
            if (!is_false(value))
                st = sim_fail(err, errlen, MCT_STATUS_NOT_SUPPORTED,
                              "image %s: compressed data are not read (write it uncompressed)", path);
        } else if (key_is(key, "ElementNumberOfChannels")) {
            if (strcmp(value, "1"))
                st = sim_fail(err, errlen, MCT_STATUS_NOT_SUPPORTED, "image %s: %s channels per voxel, expected 1",
                              path, value);
        } else if (key_is(key, "HeaderSize")) {
            double d;
            if (mct_sim_parse_decimal(value, &d) || d != floor(d) || d < -1.0 || d > 1e15)
                st = sim_fail(err, errlen, MCT_STATUS_INVALID_VALUE,
                              "image %s: HeaderSize = %s, expected -1 or a byte count", path, value);
            header_size = (long long)d;
        } else if (key_is(key, "ElementDataFile")) {
            have_file = 1;
            if (!strcmp(value, "LOCAL")) {
                local = 1;
                data_offset = (size_t)(next - text);
            } else if (!strcmp(value, "LIST") || strchr(value, '%') || strchr(value, ' ')) {
                st = sim_fail(err, errlen, MCT_STATUS_NOT_SUPPORTED,
                              "image %s: ElementDataFile %s: one data file expected", path, value);
            } else if (!value[0]) {
                st = sim_fail(err, errlen, MCT_STATUS_INVALID_VALUE, "image %s: ElementDataFile is empty", path);
            } else if (value[0] == '/') {
                snprintf(datafile, sizeof datafile, "%s", value);
            } else {
                const char* slash = strrchr(path, '/');
                const int dirlen = slash ? (int)(slash - path + 1) : 0;
                snprintf(datafile, sizeof datafile, "%.*s%s", dirlen, path, value);
            }
        }
        /* Other keys (ObjectType, Offset, TransformMatrix, ...) do not change the voxels. */
        line = next;
    }
    free(text);
    if (st) return st;
    if (!have_file)
        return sim_fail(err, errlen, MCT_STATUS_INVALID_VALUE, "image %s: no ElementDataFile (not a MetaImage?)", path);
    if (ndims != 3)
        return sim_fail(err, errlen, MCT_STATUS_INVALID_VALUE,
                        "image %s: NDims missing before ElementDataFile (3 expected)", path);
    if (!have_dims) return sim_fail(err, errlen, MCT_STATUS_INVALID_VALUE, "image %s: no DimSize", path);
    if (!have_spacing) return sim_fail(err, errlen, MCT_STATUS_INVALID_VALUE, "image %s: no ElementSpacing", path);
    if (type < 0) return sim_fail(err, errlen, MCT_STATUS_INVALID_VALUE, "image %s: no ElementType", path);
    const int64_t n = (int64_t)dims[0] * (int64_t)dims[1] * (int64_t)dims[2];
    if (n > MCT_PHANTOM_MAX_VOXELS)
        return sim_fail(err, errlen, MCT_STATUS_TOO_LARGE,
                        "image %s: %.0f x %.0f x %.0f voxels, more than the %lld a tally's bins hold", path, dims[0],
                        dims[1], dims[2], (long long)MCT_PHANTOM_MAX_VOXELS);
    const int bytes = element_types[type].bytes;
    const long long want = (long long)n * bytes;

    const char* data_path = local ? path : datafile;
    FILE* f = fopen(data_path, "rb");
    if (!f)
        return sim_fail(err, errlen, MCT_STATUS_IO_ERROR, "image %s: data file %s: cannot open (%s)", path, data_path,
                        strerror(errno));
    long long size = -1;
    if (fseek(f, 0, SEEK_END) == 0) size = (long long)ftell(f);
    long long start = local ? (long long)data_offset : 0;
    if (!local && header_size > 0) start = header_size;
    if (!local && header_size == -1) start = size - want;
    if (size < 0 || size - start != want || start < 0) {
        fclose(f);
        return sim_fail(err, errlen, MCT_STATUS_INVALID_VALUE,
                        "image %s: data file %s holds %lld bytes of voxels, but %.0f x %.0f x %.0f %s voxels need %lld",
                        path, data_path, size < 0 ? -1LL : size - start, dims[0], dims[1], dims[2],
                        element_types[type].name, want);
    }
    unsigned char* raw = malloc((size_t)want ? (size_t)want : 1);
    double* vox = malloc((size_t)n * sizeof(double));
    if (!raw || !vox) {
        fclose(f), free(raw), free(vox);
        return sim_fail(err, errlen, MCT_STATUS_OUT_OF_MEMORY, "image %s: out of memory for %lld voxels", path,
                        (long long)n);
    }
    const int ok = fseek(f, (long)start, SEEK_SET) == 0 && fread(raw, 1, (size_t)want, f) == (size_t)want;
    fclose(f);
    if (!ok) {
        free(raw), free(vox);
        return sim_fail(err, errlen, MCT_STATUS_IO_ERROR, "image %s: data file %s cannot be read", path, data_path);
    }
    for (int64_t k = 0; k < n; ++k) vox[k] = element_value(type, raw + k * bytes, msb);
    free(raw);
    for (int i = 0; i < 3; ++i) out->dims[i] = (int)dims[i], out->spacing_mm[i] = spacing[i];
    out->voxel = vox;
    return MCT_STATUS_SUCCESS;
}

/* ---- Image geometries ------------------------------------------------------------ */

/* The voxel (ix, iy, iz) of index k of dims. */
static void voxel_xyz(const int dims[3], int64_t k, int64_t xyz[3]) {
    xyz[0] = k % dims[0];
    xyz[1] = k / dims[0] % dims[1];
    xyz[2] = k / ((int64_t)dims[0] * dims[1]);
}

mct_status_t mct_phantom_geometry_hu_image(const char* path, const mct_phantom_calibration_t* cal,
                                           const mct_phantom_material_t* known, int count,
                                           mct_phantom_geometry_t* out, char* err, size_t errlen) {
    if (!out) return sim_fail(err, errlen, MCT_STATUS_NULL_POINTER, "image: no output given");
    mct_phantom_calibration_t def;
    if (!cal) mct_phantom_calibration_default(&def), cal = &def;
    mct_phantom_geometry_t g;
    memset(&g, 0, sizeof g);
    mct_phantom_image_t im;
    mct_status_t st = mct_phantom_image_read(path, &im, err, errlen);
    if (st) return finish(st, &g, out);
    st = grid_alloc(&g, im.dims[0], im.dims[1], im.dims[2], im.spacing_mm[0] / 10.0, im.spacing_mm[1] / 10.0,
                    im.spacing_mm[2] / 10.0, err, errlen);
    /* Each segment's material index in the geometry, made when first used. */
    int seg_mat[MCT_PHANTOM_MAX_HU_SEGMENTS];
    for (int i = 0; i < MCT_PHANTOM_MAX_HU_SEGMENTS; ++i) seg_mat[i] = -1;
    const int64_t n = (int64_t)im.dims[0] * im.dims[1] * im.dims[2];
    for (int64_t k = 0; !st && k < n; ++k) {
        int s;
        double d;
        if (mct_phantom_calibration_lookup(cal, im.voxel[k], &s, &d)) {
            int64_t xyz[3];
            voxel_xyz(im.dims, k, xyz);
            int gaps = 0;
            for (int i = 1; i < cal->segments; ++i) gaps |= cal->segment[i].hu_lo > cal->segment[i - 1].hu_hi;
            st =
                sim_fail(err, errlen, MCT_STATUS_INVALID_VALUE,
                         "image %s: %g HU at voxel (%lld, %lld, %lld) is outside the calibration (%g .. %g HU%s)", path,
                         im.voxel[k], (long long)xyz[0], (long long)xyz[1], (long long)xyz[2], cal->segment[0].hu_lo,
                         cal->segment[cal->segments - 1].hu_hi, gaps ? ", or in a gap between its segments" : "");
            break;
        }
        if (seg_mat[s] < 0) {
            seg_mat[s] = use_material(&g, cal->segment[s].material, known, count, err, errlen);
            if (seg_mat[s] < 0) {
                char msg[600];
                snprintf(msg, sizeof msg, "%s", err ? err : "");
                st = sim_fail(err, errlen, MCT_STATUS_INVALID_VALUE, "calibration segment %g .. %g HU: %s",
                              cal->segment[s].hu_lo, cal->segment[s].hu_hi, msg);
                break;
            }
        }
        g.mat[k] = (uint8_t)seg_mat[s];
        g.density[k] = (float)d;
    }
    free(im.voxel);
    return finish(st, &g, out);
}

mct_status_t mct_phantom_geometry_index_images(const char* index_path, const char* density_path,
                                               const char* const* names, int nnames,
                                               const mct_phantom_material_t* known, int count,
                                               mct_phantom_geometry_t* out, char* err, size_t errlen) {
    if (!out || !index_path || !density_path || (!names && nnames))
        return sim_fail(err, errlen, MCT_STATUS_NULL_POINTER,
                        "image: the two images and the material names are needed");
    mct_phantom_geometry_t g;
    memset(&g, 0, sizeof g);
    if (nnames < 1)
        return finish(
            sim_fail(err, errlen, MCT_STATUS_INVALID_VALUE, "image %s: no material names for its indices", index_path),
            &g, out);
    if (nnames > MCT_PHANTOM_MAX_MATERIALS)
        return finish(sim_fail(err, errlen, MCT_STATUS_TOO_LARGE, "%d materials named, at most %d", nnames,
                               MCT_PHANTOM_MAX_MATERIALS),
                      &g, out);
    for (int i = 0; i < nnames; ++i) {
        for (int j = 0; j < i; ++j)
            if (!strcmp(names[i], names[j]))
                return finish(sim_fail(err, errlen, MCT_STATUS_INVALID_VALUE, "material %s named twice", names[i]), &g,
                              out);
        if (use_material(&g, names[i], known, count, err, errlen) < 0) return finish(MCT_STATUS_INVALID_VALUE, &g, out);
    }
    mct_phantom_image_t a, b;
    mct_status_t st = mct_phantom_image_read(index_path, &a, err, errlen);
    if (st) return finish(st, &g, out);
    st = mct_phantom_image_read(density_path, &b, err, errlen);
    if (st) {
        free(a.voxel);
        return finish(st, &g, out);
    }
    if (a.dims[0] != b.dims[0] || a.dims[1] != b.dims[1] || a.dims[2] != b.dims[2])
        st = sim_fail(err, errlen, MCT_STATUS_INVALID_VALUE,
                      "images %s (%d x %d x %d) and %s (%d x %d x %d) differ in DimSize", index_path, a.dims[0],
                      a.dims[1], a.dims[2], density_path, b.dims[0], b.dims[1], b.dims[2]);
    for (int i = 0; !st && i < 3; ++i)
        if (fabs(a.spacing_mm[i] - b.spacing_mm[i]) > 1e-6 * a.spacing_mm[i])
            st = sim_fail(err, errlen, MCT_STATUS_INVALID_VALUE,
                          "images %s and %s differ in ElementSpacing (%g and %g mm along axis %d)", index_path,
                          density_path, a.spacing_mm[i], b.spacing_mm[i], i);
    if (!st)
        st = grid_alloc(&g, a.dims[0], a.dims[1], a.dims[2], a.spacing_mm[0] / 10.0, a.spacing_mm[1] / 10.0,
                        a.spacing_mm[2] / 10.0, err, errlen);
    const int64_t n = st ? 0 : (int64_t)a.dims[0] * a.dims[1] * a.dims[2];
    for (int64_t k = 0; k < n; ++k) {
        const double m = a.voxel[k], d = b.voxel[k];
        int64_t xyz[3];
        if (!(m >= 0.0 && m < nnames && m == floor(m))) {
            voxel_xyz(a.dims, k, xyz);
            st = sim_fail(err, errlen, MCT_STATUS_INVALID_VALUE,
                          "image %s: material index %g at voxel (%lld, %lld, %lld) is not one of 0 .. %d", index_path,
                          m, (long long)xyz[0], (long long)xyz[1], (long long)xyz[2], nnames - 1);
            break;
        }
        if (!density_ok(d) || !isfinite((float)d) || !((float)d > 0.0f)) {
            voxel_xyz(a.dims, k, xyz);
            st = sim_fail(err, errlen, MCT_STATUS_INVALID_VALUE,
                          "image %s: density %g g/cm3 at voxel (%lld, %lld, %lld) must be > 0 and finite", density_path,
                          d, (long long)xyz[0], (long long)xyz[1], (long long)xyz[2]);
            break;
        }
        g.mat[k] = (uint8_t)m;
        g.density[k] = (float)d;
    }
    free(a.voxel), free(b.voxel);
    return finish(st, &g, out);
}
