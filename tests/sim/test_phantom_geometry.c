/* SPDX-License-Identifier: BSD-3-Clause */
/** @file test_phantom_geometry.c  The phantom's inputs and outputs on
 * heterogeneous grids (phantom_geometry.h, phantom.h): the cube and slab
 * builders voxel by voxel, a Hounsfield-unit MetaImage written here and read
 * back through the default and a user calibration (every voxel's material
 * and density), the image pair of material indices and densities, one clear
 * error and a zeroed geometry for each bad input, and the outputs on an
 * nx x ny x nz grid: dose from each voxel's mass, the MetaImage header, and
 * the dose slice as a valid PNG of the size it states. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "phantom.h"
#include "phantom_geometry.h"
#include "sim_test_files.h"
#include "test_assert.h"

static char dir[256];
static mct_phantom_material_t known[5];
static const char* const names[5] = {"water", "bone", "lung", "air", "tissue"};


/* A MetaImage of `n` values as MET_SHORT or MET_FLOAT, little- or big-endian;
 * .mha (LOCAL) when raw is NULL. */
static void write_image(const char* name, const char* raw, const int dims[3], const double spacing[3], int is_float,
                        int msb, const double* v) {
    char header[1024], p[512];
    const int64_t n = (int64_t)dims[0] * dims[1] * dims[2];
    snprintf(header, sizeof header,
             "ObjectType = Image\nNDims = 3\nDimSize = %d %d %d\nElementSpacing = %.17g %.17g %.17g\n"
             "ElementType = %s\nElementByteOrderMSB = %s\nElementDataFile = %s\n",
             dims[0], dims[1], dims[2], spacing[0], spacing[1], spacing[2], is_float ? "MET_FLOAT" : "MET_SHORT",
             msb ? "True" : "False", raw ? raw : "LOCAL");
    sim_test_path(p, sizeof p, dir, name);
    FILE* f = fopen(p, "wb");
    ASSERT_TRUE(f != NULL);
    fputs(header, f);
    if (raw) {
        fclose(f);
        sim_test_path(p, sizeof p, dir, raw);
        f = fopen(p, "wb");
        ASSERT_TRUE(f != NULL);
    }
    for (int64_t k = 0; k < n; ++k) {
        unsigned char b[4];
        uint32_t u;
        int bytes;
        if (is_float) {
            const float x = (float)v[k];
            memcpy(&u, &x, 4);
            bytes = 4;
        } else {
            u = (uint16_t)(int16_t)v[k];
            bytes = 2;
        }
        for (int i = 0; i < bytes; ++i) b[msb ? bytes - 1 - i : i] = (unsigned char)(u >> (8 * i));
        fwrite(b, 1, (size_t)bytes, f);
    }
    fclose(f);
}

/* A bad input: the status, a message holding `want`, and a zeroed geometry. */
static void expect_error(mct_status_t st, mct_status_t want_st, const char* err, const char* want,
                         const mct_phantom_geometry_t* g) {
    if (st != want_st || !strstr(err, want)) {
        fprintf(stderr, "expected status %d and '%s', got %d and '%s'\n", (int)want_st, want, (int)st, err);
        ASSERT_TRUE(0);
    }
    ASSERT_TRUE(strchr(err, '\n') == NULL);
    ASSERT_TRUE(g->mat == NULL && g->density == NULL && g->nx == 0 && g->materials == 0);
}

static void test_cube_and_slabs(void) {
    mct_phantom_geometry_t g;
    char err[512];
    ASSERT_STATUS(mct_phantom_geometry_cube(4, 2.0, "bone", 1.5, known, 5, &g, err, sizeof err), MCT_STATUS_SUCCESS);
    ASSERT_TRUE(g.nx == 4 && g.ny == 4 && g.nz == 4 && g.materials == 1 && !strcmp(g.material[0].name, "bone"));
    ASSERT_NEAR_F64(g.dz_cm, 0.5, 0.0);
    for (int k = 0; k < 64; ++k) ASSERT_TRUE(g.mat[k] == 0 && g.density[k] == 1.5f);
    mct_phantom_geometry_free(&g);

    /* The benchmark slabs: 30, 20, 70 and 180 layers of 1 mm. */
    const mct_phantom_slab_t slabs[4] = {{"water", 1.0, 3.0}, {"bone", 1.85, 2.0}, {"lung", 0.26, 7.0}, {"water", 1.0, 18.0}};
    ASSERT_STATUS(mct_phantom_geometry_slabs(slabs, 4, 5, 40.0, 0.1, known, 5, &g, err, sizeof err), MCT_STATUS_SUCCESS);
    ASSERT_TRUE(g.nx == 5 && g.ny == 5 && g.nz == 300 && g.materials == 3);
    ASSERT_NEAR_F64(g.dx_cm, 8.0, 0.0);
    ASSERT_NEAR_F64(g.dz_cm, 0.1, 0.0);
    for (int iz = 0; iz < 300; ++iz) {
        const int s = iz < 30 ? 0 : iz < 50 ? 1 : iz < 120 ? 2 : 3;
        for (int k = 0; k < 25; ++k) {
            ASSERT_TRUE(!strcmp(g.material[g.mat[iz * 25 + k]].name, slabs[s].material));
            ASSERT_TRUE(g.density[iz * 25 + k] == (float)slabs[s].density_g_cm3);
        }
    }
    mct_phantom_geometry_free(&g);

    mct_phantom_slab_t bad[2] = {{"water", 1.0, 3.0}, {"bone", 1.85, 0.25}};
    expect_error(mct_phantom_geometry_slabs(bad, 2, 5, 40.0, 0.1, known, 5, &g, err, sizeof err),
                 MCT_STATUS_INVALID_VALUE, err, "not a whole number of depth voxels", &g);
    bad[1] = (mct_phantom_slab_t){"unobtainium", 1.0, 1.0};
    expect_error(mct_phantom_geometry_slabs(bad, 2, 5, 40.0, 0.1, known, 5, &g, err, sizeof err),
                 MCT_STATUS_INVALID_VALUE, err, "unknown material 'unobtainium'", &g);
    bad[1] = (mct_phantom_slab_t){"bone", -1.0, 1.0};
    expect_error(mct_phantom_geometry_slabs(bad, 2, 5, 40.0, 0.1, known, 5, &g, err, sizeof err),
                 MCT_STATUS_INVALID_VALUE, err, "density -1 g/cm3 must be > 0", &g);
    bad[1] = (mct_phantom_slab_t){"bone", NAN, 1.0};
    expect_error(mct_phantom_geometry_slabs(bad, 2, 5, 40.0, 0.1, known, 5, &g, err, sizeof err),
                 MCT_STATUS_INVALID_VALUE, err, "must be > 0 and finite", &g);
    expect_error(mct_phantom_geometry_cube(4, 2.0, "water", 0.0, known, 5, &g, err, sizeof err),
                 MCT_STATUS_INVALID_VALUE, err, "density 0 g/cm3", &g);
    /* 1300 x 1300 x 1300 voxels: more bins than a tally holds. */
    const mct_phantom_slab_t deep = {"water", 1.0, 1300.0};
    expect_error(mct_phantom_geometry_slabs(&deep, 1, 1300, 1300.0, 1.0, known, 5, &g, err, sizeof err),
                 MCT_STATUS_TOO_LARGE, err, "the tally's bins hold at most", &g);
}

/* The documented default ramp, stated again here: HU -> (material, density). */
static void ramp(double hu, const char** m, double* d) {
    static const double lo[] = {-1024, -974, -724, 101}, hi[] = {-974, -724, 101, 1976};
    static const double dlo[] = {0.001, 0.044, 0.302, 1.101}, dhi[] = {0.044, 0.302, 1.101, 2.088};
    static const char* const mat[] = {"air", "lung", "tissue", "bone"};
    for (int i = 0; i < 4; ++i)
        if (hu >= lo[i] && (hu < hi[i] || (i == 3 && hu == hi[i]))) {
            *m = mat[i];
            *d = dlo[i] + (hu - lo[i]) / (hi[i] - lo[i]) * (dhi[i] - dlo[i]);
            return;
        }
    *m = NULL;
}

static void check_hu(const mct_phantom_geometry_t* g, const double* hu, int64_t n) {
    for (int64_t k = 0; k < n; ++k) {
        const char* m;
        double d;
        ramp(hu[k], &m, &d);
        ASSERT_TRUE(m != NULL && !strcmp(g->material[g->mat[k]].name, m));
        ASSERT_TRUE(g->density[k] == (float)d);
    }
}

/* The HU reader, with the default calibration, refuses dir/name with status
 * `st` and a message holding `want`. */
static void expect_bad_hu(const char* name, mct_status_t st, const char* want) {
    char p[512], err[512];
    mct_phantom_geometry_t g;
    memset(&g, 0, sizeof g);
    sim_test_path(p, sizeof p, dir, name);
    expect_error(mct_phantom_geometry_hu_image(p, NULL, known, 5, &g, err, sizeof err), st, err, want, &g);
}

static void test_hu_images(void) {
    /* Every whole HU from -1024 to 1976, then 1976 to fill the grid. */
    const int dims[3] = {61, 10, 5};
    const double spacing[3] = {1.5, 1.5, 2.5};
    const int64_t n = 61 * 10 * 5;
    double* hu = malloc((size_t)n * sizeof(double));
    for (int64_t k = 0; k < n; ++k) hu[k] = k <= 3000 ? -1024.0 + (double)k : 1976.0;
    mct_phantom_geometry_t g;
    char err[512], p[512], q[512];
    for (int form = 0; form < 3; ++form) {
        /* .mhd + .raw MET_SHORT little-endian; .mha MET_SHORT big-endian; .mhd MET_FLOAT big-endian. */
        write_image(form == 1 ? "hu.mha" : "hu.mhd", form == 1 ? NULL : "hu.raw", dims, spacing, form == 2, form > 0, hu);
        sim_test_path(p, sizeof p, dir, form == 1 ? "hu.mha" : "hu.mhd");
        ASSERT_STATUS(mct_phantom_geometry_hu_image(p, NULL, known, 5, &g, err, sizeof err), MCT_STATUS_SUCCESS);
        ASSERT_TRUE(g.nx == 61 && g.ny == 10 && g.nz == 5 && g.materials == 4);
        ASSERT_NEAR_F64(g.dx_cm, 0.15, 1e-15);
        ASSERT_NEAR_F64(g.dz_cm, 0.25, 1e-15);
        check_hu(&g, hu, n);
        mct_phantom_geometry_free(&g);
    }

    /* A user calibration: water above -100 HU at 1 + HU / 1000. */
    sim_test_write_text(dir, "cal.txt", "# hu_lo hu_hi material density_lo density_hi\n-1024 -100 lung 0.001 0.9\n"
                                        "-100 2000 water 0.9 3.0   # linear\n");
    sim_test_path(q, sizeof q, dir, "cal.txt");
    mct_phantom_calibration_t cal;
    ASSERT_STATUS(mct_phantom_calibration_load(q, &cal, err, sizeof err), MCT_STATUS_SUCCESS);
    ASSERT_TRUE(cal.segments == 2);
    ASSERT_STATUS(mct_phantom_geometry_hu_image(p, &cal, known, 5, &g, err, sizeof err), MCT_STATUS_SUCCESS);
    ASSERT_TRUE(g.materials == 2);
    for (int64_t k = 0; k < n; ++k) {
        const int w = hu[k] >= -100.0;
        const double d = w ? 0.9 + (hu[k] + 100.0) / 2100.0 * 2.1 : 0.001 + (hu[k] + 1024.0) / 924.0 * 0.899;
        ASSERT_TRUE(!strcmp(g.material[g.mat[k]].name, w ? "water" : "lung") && g.density[k] == (float)d);
    }
    mct_phantom_geometry_free(&g);

    /* Bad inputs, one clear error each. */
    hu[7] = -1025.0;
    write_image("out.mhd", "out.raw", dims, spacing, 0, 0, hu);
    expect_bad_hu("out.mhd", MCT_STATUS_INVALID_VALUE, "-1025 HU at voxel (7, 0, 0) is outside the calibration");
    hu[7] = 0.0;
    sim_test_write_text(dir, "short.mhd",
                        "NDims = 3\nDimSize = 61 10 6\nElementSpacing = 1.5 1.5 2.5\nElementType = MET_SHORT\n"
                        "ElementDataFile = out.raw\n");
    expect_bad_hu("short.mhd", MCT_STATUS_INVALID_VALUE,
                  "holds 6100 bytes of voxels, but 61 x 10 x 6 MET_SHORT voxels need 7320");
    sim_test_write_text(dir, "dims.mhd",
                        "NDims = 3\nDimSize = 61 10\nElementSpacing = 1.5 1.5 2.5\nElementType = MET_SHORT\n"
                        "ElementDataFile = hu.raw\n");
    expect_bad_hu("dims.mhd", MCT_STATUS_INVALID_VALUE, "DimSize needs 3 whole numbers");
    sim_test_write_text(dir, "spacing.mhd",
                        "NDims = 3\nDimSize = 61 10 5\nElementSpacing = 1.5 1.5\nElementType = MET_SHORT\n"
                        "ElementDataFile = hu.raw\n");
    expect_bad_hu("spacing.mhd", MCT_STATUS_INVALID_VALUE, "ElementSpacing needs 3 numbers > 0");
    sim_test_write_text(dir, "big.mhd",
                        "NDims = 3\nDimSize = 2000 2000 1000\nElementSpacing = 1 1 1\nElementType = MET_SHORT\n"
                        "ElementDataFile = hu.raw\n");
    expect_bad_hu("big.mhd", MCT_STATUS_TOO_LARGE, "more than the 2147483647 a tally's bins hold");
    sim_test_write_text(dir, "cal_bad.txt", "-1024 2000 kryptonite 0.001 3\n");
    sim_test_path(q, sizeof q, dir, "cal_bad.txt");
    ASSERT_STATUS(mct_phantom_calibration_load(q, &cal, err, sizeof err), MCT_STATUS_SUCCESS);
    sim_test_path(p, sizeof p, dir, "hu.mhd");
    write_image("hu.mhd", "hu.raw", dims, spacing, 0, 0, hu);
    expect_error(mct_phantom_geometry_hu_image(p, &cal, known, 5, &g, err, sizeof err), MCT_STATUS_INVALID_VALUE, err,
                 "unknown material 'kryptonite'", &g);
    sim_test_write_text(dir, "cal_bad.txt", "-1000 0 water 1 1\n-10 20 water 1 1\n");
    ASSERT_STATUS(mct_phantom_calibration_load(q, &cal, err, sizeof err), MCT_STATUS_INVALID_VALUE);
    ASSERT_TRUE(strstr(err, "cal_bad.txt:2: segment starts at -10 HU, below the previous one's end 0") != NULL);
    sim_test_write_text(dir, "cal_bad.txt", "-1000 0 water -1 1\n");
    ASSERT_STATUS(mct_phantom_calibration_load(q, &cal, err, sizeof err), MCT_STATUS_INVALID_VALUE);
    ASSERT_TRUE(strstr(err, "densities -1 and 1 g/cm3 must be > 0") != NULL);
    free(hu);
}

static void test_index_images(void) {
    const int dims[3] = {4, 3, 2};
    const double spacing[3] = {2.0, 2.0, 1.0}, other[3] = {2.0, 2.0, 1.5};
    double idx[24], den[24];
    for (int k = 0; k < 24; ++k) idx[k] = k % 3, den[k] = 0.5 + 0.125 * k;
    write_image("idx.mhd", "idx.raw", dims, spacing, 0, 0, idx);
    write_image("den.mhd", "den.raw", dims, spacing, 1, 0, den);
    char a[512], b[512], err[512];
    sim_test_path(a, sizeof a, dir, "idx.mhd");
    sim_test_path(b, sizeof b, dir, "den.mhd");
    const char* const mats[3] = {"tissue", "bone", "air"};
    mct_phantom_geometry_t g;
    ASSERT_STATUS(mct_phantom_geometry_index_images(a, b, mats, 3, known, 5, &g, err, sizeof err), MCT_STATUS_SUCCESS);
    ASSERT_TRUE(g.nx == 4 && g.ny == 3 && g.nz == 2 && g.materials == 3);
    for (int k = 0; k < 24; ++k)
        ASSERT_TRUE(!strcmp(g.material[g.mat[k]].name, mats[k % 3]) && g.density[k] == (float)den[k]);
    mct_phantom_geometry_free(&g);

    expect_error(mct_phantom_geometry_index_images(a, b, mats, 2, known, 5, &g, err, sizeof err),
                 MCT_STATUS_INVALID_VALUE, err, "material index 2 at voxel (2, 0, 0) is not one of 0 .. 1", &g);
    write_image("den2.mhd", "den2.raw", dims, other, 1, 0, den);
    sim_test_path(b, sizeof b, dir, "den2.mhd");
    expect_error(mct_phantom_geometry_index_images(a, b, mats, 3, known, 5, &g, err, sizeof err),
                 MCT_STATUS_INVALID_VALUE, err, "differ in ElementSpacing", &g);
    const int dims2[3] = {4, 3, 1};
    write_image("den3.mhd", "den3.raw", dims2, spacing, 1, 0, den);
    sim_test_path(b, sizeof b, dir, "den3.mhd");
    expect_error(mct_phantom_geometry_index_images(a, b, mats, 3, known, 5, &g, err, sizeof err),
                 MCT_STATUS_INVALID_VALUE, err, "differ in DimSize", &g);
    den[5] = -2.0;
    write_image("den4.mhd", "den4.raw", dims, spacing, 1, 0, den);
    sim_test_path(b, sizeof b, dir, "den4.mhd");
    expect_error(mct_phantom_geometry_index_images(a, b, mats, 3, known, 5, &g, err, sizeof err),
                 MCT_STATUS_INVALID_VALUE, err, "density -2 g/cm3 at voxel (1, 1, 0) must be > 0", &g);
    /* More materials than a geometry holds. */
    mct_phantom_material_t many[17];
    const char* many_names[17];
    char many_text[17][8];
    for (int i = 0; i < 17; ++i) {
        many[i] = known[0];
        snprintf(many_text[i], sizeof many_text[i], "m%d", i);
        snprintf(many[i].name, sizeof many[i].name, "%s", many_text[i]);
        many_names[i] = many_text[i];
    }
    sim_test_path(b, sizeof b, dir, "den.mhd");
    expect_error(mct_phantom_geometry_index_images(a, b, many_names, 17, many, 17, &g, err, sizeof err),
                 MCT_STATUS_TOO_LARGE, err, "17 materials named, at most 16", &g);
}

static uint32_t be32(const unsigned char* p) { return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3]; }

/* A PNG's chunks walked with their CRCs; its IHDR size and the inflated IDAT length. */
static void check_png(const char* path, int want_w, int want_h) {
    FILE* f = fopen(path, "rb");
    ASSERT_TRUE(f != NULL);
    static unsigned char buf[1 << 22];
    const size_t n = fread(buf, 1, sizeof buf, f);
    fclose(f);
    ASSERT_TRUE(n > 8 && n < sizeof buf && !memcmp(buf, "\x89PNG\r\n\x1a\n", 8));
    size_t at = 8, idat_len = 0;
    unsigned char* idat = malloc(n);
    int w = 0, h = 0, end = 0;
    while (at + 12 <= n && !end) {
        const uint32_t len = be32(buf + at);
        ASSERT_TRUE(at + 12 + len <= n);
        const unsigned char* type = buf + at + 4;
        ASSERT_EQ_HEX32((uint32_t)crc32(0, type, 4 + len), be32(buf + at + 8 + len));
        if (!memcmp(type, "IHDR", 4)) {
            w = (int)be32(type + 4), h = (int)be32(type + 8);
            ASSERT_TRUE(type[12] == 8 && type[13] == 2); /* 8-bit RGB */
        }
        if (!memcmp(type, "IDAT", 4)) memcpy(idat + idat_len, type + 4, len), idat_len += len;
        end = !memcmp(type, "IEND", 4);
        at += 12 + len;
    }
    ASSERT_TRUE(end && at == n);
    ASSERT_EQ_I64(w, want_w);
    ASSERT_EQ_I64(h, want_h);
    const uLongf want = (uLongf)h * (1 + 3 * (uLongf)w);
    uLongf got = want + 1;
    unsigned char* pix = malloc(got);
    ASSERT_TRUE(uncompress(pix, &got, idat, (uLong)idat_len) == Z_OK);
    ASSERT_EQ_I64((int64_t)got, (int64_t)want);
    free(pix), free(idat);
}

static void test_outputs(void) {
    const mct_phantom_slab_t slabs[3] = {{"water", 1.0, 1.0}, {"bone", 2.0, 0.5}, {"lung", 0.25, 2.5}};
    mct_phantom_geometry_t g;
    char err[512];
    ASSERT_STATUS(mct_phantom_geometry_slabs(slabs, 3, 6, 3.0, 0.25, known, 5, &g, err, sizeof err), MCT_STATUS_SUCCESS);
    mct_phantom_params_t p;
    mct_phantom_params_init(&p);
    p.geometry = &g;
    const int64_t n = mct_phantom_voxel_count(&p);
    ASSERT_EQ_I64(n, 6 * 6 * 16);
    double* mev = malloc((size_t)n * sizeof(double));
    double* gy = malloc((size_t)n * sizeof(double));
    for (int64_t k = 0; k < n; ++k) mev[k] = 1.0 + (double)(k % 7);
    /* Dose to the medium: MeV over each voxel's mass, 0.5 x 0.5 x 0.25 cm3 at its density. */
    mct_phantom_dose_gy(&p, mev, gy, n);
    for (int64_t k = 0; k < n; ++k) {
        const double mass_kg = (double)g.density[k] * 0.5 * 0.5 * 0.25 * 1e-3;
        ASSERT_NEAR_F64(gy[k], mev[k] * 1.602176634e-13 / mass_kg, 1e-15 * gy[k]);
    }
    mct_phantom_voxel_t v;
    mev[5 + 6 * (2 + 6 * 9)] = 100.0;
    ASSERT_STATUS(mct_phantom_max_voxel(&p, mev, &v), MCT_STATUS_SUCCESS);
    ASSERT_TRUE(v.index[0] == 5 && v.index[1] == 2 && v.index[2] == 9);
    ASSERT_NEAR_F64(v.center_mm[0], 12.5, 1e-12);
    ASSERT_NEAR_F64(v.center_mm[1], -2.5, 1e-12);
    ASSERT_NEAR_F64(v.center_mm[2], 23.75, 1e-12);

    sim_out_set_t set;
    sim_out_init(&set);
    char png[512], mhd[512];
    sim_test_path(png, sizeof png, dir, "slice.png");
    ASSERT_STATUS(mct_phantom_write_slice_png(&set, png, &p, gy), MCT_STATUS_SUCCESS);
    ASSERT_STATUS(mct_phantom_write_mhd(&set, dir, "dose", &p, gy), MCT_STATUS_SUCCESS);
    ASSERT_TRUE(sim_out_commit(&set, NULL, 0) == 0);
    int w, h;
    mct_phantom_slice_png_size(&p, &w, &h);
    /* Depth 4 cm on 720 pixels, width 3 cm on 540, plus the margins. */
    ASSERT_EQ_I64(w, 80 + 720 + 130);
    ASSERT_EQ_I64(h, 50 + 540 + 70);
    check_png(png, w, h);
    sim_test_path(mhd, sizeof mhd, dir, "dose.mhd");
    FILE* f = fopen(mhd, "r");
    ASSERT_TRUE(f != NULL);
    char text[2048];
    const size_t len = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[len] = '\0';
    ASSERT_TRUE(strstr(text, "DimSize = 6 6 16") != NULL);
    ASSERT_TRUE(strstr(text, "ElementSpacing = 5 5 2.5") != NULL);
    free(mev), free(gy);
    mct_phantom_geometry_free(&g);
}

int main(void) {
    sim_test_dir_make(dir, sizeof dir, "test_phantom_geometry");
    for (int i = 0; i < 5; ++i) ASSERT_STATUS(mct_phantom_material_builtin(names[i], &known[i]), MCT_STATUS_SUCCESS);
    test_cube_and_slabs();
    test_hu_images();
    test_index_images();
    test_outputs();
    sim_test_dir_remove(dir);
    printf("test_phantom_geometry: all passed\n");
    return 0;
}
