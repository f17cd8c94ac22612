/* SPDX-License-Identifier: BSD-3-Clause */
/** @file test_phantom_materials.c  The phantom's materials
 * (phantom_materials.c) and their engine tables (phantom_tables.c):
 * - the built-in materials: names, compositions, table shapes;
 * - the material list reader: a good file reads back the tables bit for bit;
 *   every bad input gives a non-zero status, one message naming the problem,
 *   and nothing filled;
 * - each built-in material's engine tables against its own NIST columns and
 *   physical checks: photon attenuation against XCOM's total, the range table
 *   against ESTAR's CSDA range, the bremsstrahlung sampler times its cross
 *   section against ESTAR's radiative stopping power, Moller and multiple
 *   scattering scaling with the composition;
 * - water's tables (m NULL) unchanged: the values the engine always had;
 * - end to end: the Fano test in bone, and slabs of water, bone and lung. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mctally/mct.h"
#include "phantom.h"
#include "phantom_materials.h"
#include "phantom_tables.h"
#include "phantom_test.h"
#include "sim_test_files.h"
#include "test_assert.h"

static char dir[256];


/* A material's table as CSV (full precision); rows [0, rows) with row `swap`
 * exchanged with the next (-1: none), or `cols` columns of its own. */
static void write_table(const char* name, const char* header, const double* t, int rows, int cols, int swap) {
    char p[512];
    sim_test_path(p, sizeof p, dir, name);
    FILE* f = fopen(p, "w");
    ASSERT_TRUE(f != NULL);
    fprintf(f, "%s\n", header);
    for (int r = 0; r < rows; ++r) {
        const int src = r == swap ? r + 1 : (r == swap + 1 && swap >= 0 ? swap : r);
        for (int c = 0; c < cols; ++c) fprintf(f, "%s%.17g", c ? "," : "", t[(size_t)src * cols + c]);
        fputc('\n', f);
    }
    fclose(f);
}

static const char* XH = "energy_MeV,coherent_cm2_g,incoherent_cm2_g,photoelectric_cm2_g,pair_nuclear_cm2_g,"
                        "pair_electron_cm2_g,total_with_coherent_cm2_g,total_without_coherent_cm2_g";
static const char* EH = "energy_MeV,collision_stopping_MeV_cm2_g,radiative_stopping_MeV_cm2_g,"
                        "total_stopping_MeV_cm2_g,csda_range_g_cm2,radiation_yield,density_effect_delta";

static const char* NAMES[] = {"water", "bone", "lung", "air", "tissue"};
#define NMAT 5

/* A list file that must be refused: status non-zero, a message holding
 * `want`, nothing filled. */
static void expect_bad(const char* list_text, const char* want) {
    sim_test_write_text(dir, "list.ini", list_text);
    char p[512], err[512];
    sim_test_path(p, sizeof p, dir, "list.ini");
    mct_phantom_material_t out[4];
    memset(out, 0x5a, sizeof out);
    unsigned char before[sizeof out];
    memcpy(before, out, sizeof out);
    int count = 77;
    void* storage = (void*)&count;
    const mct_status_t st = mct_phantom_materials_load(p, out, 4, &count, &storage, err, sizeof err);
    printf("refused (%d): %s\n", (int)st, err);
    ASSERT_TRUE(st != MCT_STATUS_SUCCESS);
    ASSERT_TRUE(strstr(err, want) != NULL);
    ASSERT_TRUE(strchr(err, '\n') == NULL && strlen(err) > 0);
    ASSERT_TRUE(count == 0 && storage == NULL);
    ASSERT_TRUE(memcmp(before, out, sizeof out) == 0);
}

#define GOOD_HEAD "[bone2]\ndensity = 1.85\nI = 106.414\n"
#define GOOD_COMP                                                                                                  \
    "composition = 1:0.047234 6:0.144330 7:0.041990 8:0.446096 12:0.002200 15:0.104970 16:0.003150 20:0.209930 " \
    "30:0.000100\n"
#define GOOD_FILES "xcom = bone_x.csv\nestar = bone_e.csv\n"

static void test_loader(void) {
    mct_phantom_material_t bone, water;
    ASSERT_STATUS(mct_phantom_material_builtin("bone", &bone), MCT_STATUS_SUCCESS);
    ASSERT_STATUS(mct_phantom_material_builtin("water", &water), MCT_STATUS_SUCCESS);
    write_table("bone_x.csv", XH, bone.xcom, bone.xcom_rows, 8, -1);
    write_table("bone_e.csv", EH, bone.estar, bone.estar_rows, 7, -1);
    char abs_x[512], abs_e[512];
    write_table("sub_water_x.csv", XH, water.xcom, water.xcom_rows, 8, -1);
    write_table("sub_water_e.csv", EH, water.estar, water.estar_rows, 7, -1);
    sim_test_path(abs_x, sizeof abs_x, dir, "sub_water_x.csv");
    sim_test_path(abs_e, sizeof abs_e, dir, "sub_water_e.csv");

    /* Good: two materials, one with relative paths, one with absolute ones,
     * comments, blank lines, fractions summing to 1 within 1e-3. */
    char text[4096];
    snprintf(text, sizeof text,
             "# two materials\n\n" GOOD_HEAD GOOD_COMP GOOD_FILES "\n; water\n[water-2]\n  density=1.0\nI = 75\n"
             "composition = 1:0.1119, 8:0.8885\nxcom = %s\nestar = %s\n",
             abs_x, abs_e);
    sim_test_write_text(dir, "list.ini", text);
    char p[512], err[512];
    sim_test_path(p, sizeof p, dir, "list.ini");
    mct_phantom_material_t out[4];
    int count = 0;
    void* storage = NULL;
    ASSERT_STATUS(mct_phantom_materials_load(p, out, 4, &count, &storage, err, sizeof err), MCT_STATUS_SUCCESS);
    ASSERT_TRUE(count == 2 && storage != NULL);
    ASSERT_TRUE(strcmp(out[0].name, "bone2") == 0 && strcmp(out[1].name, "water-2") == 0);
    ASSERT_EQ_F64(out[0].density_g_cm3, 1.85);
    ASSERT_EQ_F64(out[0].i_eV, 106.414);
    ASSERT_TRUE(out[0].elements == 9 && out[0].z[8] == 30);
    ASSERT_TRUE(out[0].xcom_rows == bone.xcom_rows && out[0].estar_rows == bone.estar_rows);
    ASSERT_TRUE(memcmp(out[0].xcom, bone.xcom, sizeof(double) * 8 * bone.xcom_rows) == 0);
    ASSERT_TRUE(memcmp(out[0].estar, bone.estar, sizeof(double) * 7 * bone.estar_rows) == 0);
    ASSERT_TRUE(memcmp(out[1].xcom, water.xcom, sizeof(double) * 8 * water.xcom_rows) == 0);
    /* The fractions are normalised to 1. */
    ASSERT_NEAR_F64(out[1].w[0] + out[1].w[1], 1.0, 1e-15);
    ASSERT_NEAR_F64(out[1].w[0], 0.1119 / 1.0004, 1e-15);
    /* The loaded bone builds the same tables as the built-in one. */
    mct_phantom_params_t pp;
    mct_phantom_params_init(&pp);
    sim_phantom_tables_t ta = {0}, tb = {0};
    ASSERT_STATUS(sim_phantom_tables_build(&pp, &out[0], &ta), MCT_STATUS_SUCCESS);
    ASSERT_STATUS(sim_phantom_tables_build(&pp, &bone, &tb), MCT_STATUS_SUCCESS);
    ASSERT_TRUE(memcmp(ta.f64, tb.f64, sizeof(double) * MCT_PH_T_COUNT * ta.n) == 0);
    sim_phantom_tables_free(&ta);
    sim_phantom_tables_free(&tb);
    free(storage);

    /* Bad inputs, one message each, nothing filled. */
    char missing[600];
    snprintf(missing, sizeof missing, "%s/no_such_list.ini", dir);
    {
        mct_phantom_material_t o[1];
        int c = 5;
        void* s = (void*)&c;
        ASSERT_STATUS(mct_phantom_materials_load(missing, o, 1, &c, &s, err, sizeof err), MCT_STATUS_IO_ERROR);
        ASSERT_TRUE(strstr(err, "cannot open") != NULL && c == 0 && s == NULL);
    }
    expect_bad(GOOD_HEAD GOOD_COMP "xcom = nothere.csv\nestar = bone_e.csv\n", "nothere.csv: cannot open");
    expect_bad("[bone2]\ndensity = 1.8x5\nI = 106\n" GOOD_COMP GOOD_FILES, "density \"1.8x5\" is not a positive number");
    expect_bad("[bone2]\ndensity = -1\nI = 106\n" GOOD_COMP GOOD_FILES, "not a positive number");
    expect_bad(GOOD_HEAD "composition = 1:0.5 8:0.49\n" GOOD_FILES, "sum to 0.99");
    expect_bad(GOOD_HEAD "composition = 1:0.5 0:0.5\n" GOOD_FILES, "unknown element Z = \"0\"");
    expect_bad(GOOD_HEAD "composition = 1:0.5 93:0.5\n" GOOD_FILES, "unknown element Z = \"93\"");
    expect_bad(GOOD_HEAD "composition = 1:0.5 1e300:0.5\n" GOOD_FILES, "unknown element Z = \"1e300\"");
    expect_bad(GOOD_HEAD "composition = 1:0.5 7.5:0.5\n" GOOD_FILES, "unknown element Z = \"7.5\"");
    expect_bad(GOOD_HEAD "composition = 1:0.5 8:x\n" GOOD_FILES, "mass fraction \"x\"");
    expect_bad(GOOD_HEAD "composition = 1:0.5 1:0.5\n" GOOD_FILES, "Z = 1 twice");
    expect_bad(GOOD_HEAD
               "composition = 1:0.05 2:0.05 3:0.05 4:0.05 5:0.05 6:0.05 7:0.05 8:0.05 9:0.05 10:0.05 11:0.05 12:0.05 "
               "13:0.05 14:0.05 15:0.05 16:0.05 17:0.2\n" GOOD_FILES,
               "more than 16 elements");
    expect_bad(GOOD_HEAD GOOD_FILES, "has no composition");
    expect_bad(GOOD_HEAD GOOD_COMP GOOD_FILES "colour = red\n", "unknown key \"colour\"");
    expect_bad(GOOD_HEAD GOOD_COMP GOOD_FILES GOOD_HEAD GOOD_COMP GOOD_FILES, "[bone2] twice");
    expect_bad("density = 1\n", "before the first [material]");
    expect_bad("# nothing\n", "no [material] section");
    expect_bad("[a]\n[b]\n[c]\n[d]\n[e]\n", "more than 4 materials");
    expect_bad("[bad name]\n", "material name");
    /* Tables: non-rising energies, too few rows, a bad cell, a bad header,
     * a missing column, a span short of the engine's grid. */
    write_table("swap_x.csv", XH, bone.xcom, bone.xcom_rows, 8, 30);
    expect_bad(GOOD_HEAD GOOD_COMP "xcom = swap_x.csv\nestar = bone_e.csv\n", "does not rise");
    write_table("short_e.csv", EH, bone.estar + 7 * 60, 19, 7, -1);
    expect_bad(GOOD_HEAD GOOD_COMP "xcom = bone_x.csv\nestar = short_e.csv\n", "19 rows, fewer than 20");
    write_table("span_e.csv", EH, bone.estar + 7 * 20, bone.estar_rows - 20, 7, -1);
    expect_bad(GOOD_HEAD GOOD_COMP "xcom = bone_x.csv\nestar = span_e.csv\n", "do not span");
    sim_test_write_text(dir, "cell_e.csv",
                        "energy_MeV,collision_stopping_MeV_cm2_g,radiative_stopping_MeV_cm2_g,"
                        "total_stopping_MeV_cm2_g,csda_range_g_cm2,radiation_yield,density_effect_delta\n"
                        "1.25e-2,18.97,3.9e-3,nan,3.7e-4,1e-4,0\n");
    expect_bad(GOOD_HEAD GOOD_COMP "xcom = bone_x.csv\nestar = cell_e.csv\n", "cell_e.csv:2: column 4");
    sim_test_write_text(dir, "cols_e.csv",
                        "energy_MeV,collision_stopping_MeV_cm2_g,radiative_stopping_MeV_cm2_g,"
                        "total_stopping_MeV_cm2_g,csda_range_g_cm2,radiation_yield,density_effect_delta\n"
                        "1.25e-2,18.97,3.9e-3,19.0,3.7e-4,1e-4\n");
    expect_bad(GOOD_HEAD GOOD_COMP "xcom = bone_x.csv\nestar = cols_e.csv\n", "6 columns, not 7");
    expect_bad(GOOD_HEAD GOOD_COMP "xcom = bone_e.csv\nestar = bone_e.csv\n", "the header is not");
}

/* Log-log interpolation of column col of a NIST table at x (x inside). */
static double nist_at(const double* t, int rows, int cols, int col, double x) {
    int i = 0;
    while (i < rows - 2 && t[(size_t)(i + 1) * cols] < x) ++i;
    const double x0 = t[(size_t)i * cols], x1 = t[(size_t)(i + 1) * cols];
    const double y0 = t[(size_t)i * cols + col], y1 = t[(size_t)(i + 1) * cols + col];
    return exp(log(y0) + (log(y1) - log(y0)) * log(x / x0) / log(x1 / x0));
}

static void test_builtin_tables(void) {
    mct_phantom_material_t m, water;
    ASSERT_STATUS(mct_phantom_material_builtin("water", &water), MCT_STATUS_SUCCESS);
    ASSERT_STATUS(mct_phantom_material_builtin("concrete", &m), MCT_STATUS_INVALID_VALUE);
    ASSERT_STATUS(mct_phantom_material_builtin(NULL, &m), MCT_STATUS_NULL_POINTER);
    mct_phantom_params_t p;
    mct_phantom_params_init(&p);
    sim_phantom_tables_t tw = {0};
    ASSERT_STATUS(sim_phantom_tables_build(&p, &water, &tw), MCT_STATUS_SUCCESS);
    const mct_ph_tables_t_f64 vw = sim_phantom_tables_view_f64(&tw, tw.f64);
    for (int k = 0; k < NMAT; ++k) {
        ASSERT_STATUS(mct_phantom_material_builtin(NAMES[k], &m), MCT_STATUS_SUCCESS);
        ASSERT_TRUE(strcmp(m.name, NAMES[k]) == 0 && m.elements >= 2 && m.elements <= MCT_PHANTOM_MAX_ELEMENTS);
        double sw = 0.0, zoa = 0.0, zz = 0.0, zzw = 0.0;
        for (int i = 0; i < m.elements; ++i) {
            sw += m.w[i];
            zoa += m.w[i] * m.z[i] / mct_phantom_atomic_weight(m.z[i]);
            zz += m.w[i] * m.z[i] * (m.z[i] + 1.0) / mct_phantom_atomic_weight(m.z[i]);
        }
        for (int i = 0; i < water.elements; ++i)
            zzw += water.w[i] * water.z[i] * (water.z[i] + 1.0) / mct_phantom_atomic_weight(water.z[i]);
        ASSERT_NEAR_F64(sw, 1.0, 1e-6);
        ASSERT_TRUE(m.xcom_rows >= 80 && m.estar_rows == 80);

        /* With both thresholds above every energy, the continuous stopping
         * power is ESTAR's total, and the range table its CSDA range. */
        sim_phantom_tables_t t = {0};
        p.delta_threshold_MeV = 1e4;
        p.brems_threshold_MeV = 1e4;
        ASSERT_STATUS(sim_phantom_tables_build(&p, &m, &t), MCT_STATUS_SUCCESS);
        mct_ph_tables_t_f64 v = sim_phantom_tables_view_f64(&t, t.f64);
        /* Range: Simpson's rule on the 1024-point grid and log-log
         * interpolation of ESTAR's 4-digit stopping powers against ESTAR's own
         * 4-digit integral: within 2e-3 from 50 keV to 500 MeV. */
        double worst_r = 0.0;
        for (int r = 0; r < m.estar_rows; ++r) {
            const double e = m.estar[(size_t)r * 7];
            if (e < 0.05 || e > 500.0) continue;
            const double d = mct_ph_range_f64(&v, e) / m.estar[(size_t)r * 7 + 4] - 1.0;
            if (fabs(d) > worst_r) worst_r = fabs(d);
        }
        /* Attenuation: the table's linear interpolation on 1024 points in ln E
         * against XCOM's log-log one, at XCOM's energies from 2 keV to 1 GeV
         * not within 2 % of an absorption edge (where XCOM's doublet makes a
         * step the grid smears): within 3e-3 (the curvature of ln mu over a
         * grid step of 0.0135 in ln E). */
        double worst_mu = 0.0;
        for (int r = 1; r + 1 < m.xcom_rows; ++r) {
            const double e = m.xcom[(size_t)r * 8];
            if (e < 2e-3 || e > 1e3) continue;
            if (m.xcom[(size_t)(r + 1) * 8] < 1.02 * e || m.xcom[(size_t)(r - 1) * 8] > e / 1.02) continue;
            const double mu = mct_ph_photon_table_f64(&v, MCT_PH_T_MU, log(e));
            const double d = mu / m.xcom[(size_t)r * 8 + 7] - 1.0;
            if (fabs(d) > worst_mu) worst_mu = fabs(d);
        }
        printf("%-6s: range vs ESTAR CSDA %.2e, mu vs XCOM %.2e\n", m.name, worst_r, worst_mu);
        ASSERT_LT_F64(worst_r, 2e-3);
        ASSERT_LT_F64(worst_mu, 3e-3);
        sim_phantom_tables_free(&t);

        /* Bremsstrahlung at the lowest threshold (1 keV): the mean of the
         * sampled photon energies times the cross section above 1 keV is the
         * radiative stopping power less the share below 1 keV (under kcut/T
         * of it), so it must give ESTAR's column within 5 standard errors of
         * the mean, plus kcut/T, plus 2e-3 for the tables' interpolation. */
        p.delta_threshold_MeV = 0.0;
        p.brems_threshold_MeV = 0.001;
        ASSERT_STATUS(sim_phantom_tables_build(&p, &m, &t), MCT_STATUS_SUCCESS);
        v = sim_phantom_tables_view_f64(&t, t.f64);
        const double es[] = {1.0, 10.0, 50.0};
        for (int ie = 0; ie < 3; ++ie) {
            const double e = es[ie], etot = e + MCT_PHANTOM_MEC2;
            for (int i = 0; i <= 2000; ++i) {
                const double g = mct_ph_brems_shape_f64(&v, e / etot * i / 2000.0, etot);
                ASSERT_TRUE(g >= 0.0 && g <= v.brems_bound);
            }
            mct_phantom_rng_t rng;
            mct_phantom_rng_init(&rng, 11, (uint64_t)(k * 10 + ie));
            const int n = 1000000;
            double s = 0.0, q = 0.0;
            for (int i = 0; i < n; ++i) {
                const double kk = mct_ph_brems_f64(&v, &rng, e, 0.001);
                s += kk, q += kk * kk;
            }
            const double mean = s / n, se = sqrt((q / n - mean * mean) / (n - 1.0));
            const double sig = mct_ph_electron_table_f64(&v, MCT_PH_T_SIG_BREM, log(e));
            const double want = nist_at(m.estar, m.estar_rows, 7, 2, e);
            const double got = mean * sig;
            printf("%-6s T %4g MeV: brems mean k x sigma %.5g, ESTAR radiative %.5g\n", m.name, e, got, want);
            ASSERT_NEAR_F64(got, want, want * (5.0 * se / mean + 0.001 / e + 2e-3));
        }
        /* Moller: the cross section per gram is that of the electrons per
         * gram, N_A Z/A; the screened Rutherford transport cross sections
         * scale with sum w Z(Z+1)/A, times a logarithm of the screening
         * parameter, ln(1/eta) ~ ln(Z^(-2/3) p^2), that is 10 % smaller for Ca
         * than for H at 10 MeV and a few % smaller for O: so the ratio to
         * water's is that of the sums within -15 % (heavier) and +2 % (more
         * hydrogen than water). */
        const double zoa_w = MCT_PHANTOM_ELECTRONS_PER_G / 6.02214076e23; /* data/water's water */
        const double lt = log(10.0);
        const double rm = mct_ph_electron_table_f64(&v, MCT_PH_T_SIG_MOLLER, lt) /
                          mct_ph_electron_table_f64(&vw, MCT_PH_T_SIG_MOLLER, lt);
        /* (The built-in water is data/water's, exactly H2O.) */
        const double want_m = strcmp(m.name, "water") == 0 ? 1.0 : zoa / zoa_w;
        ASSERT_NEAR_F64(rm, want_m, 1e-9 * rm);
        const double rs = mct_ph_electron_table_f64(&v, MCT_PH_T_SIG_LOCAL, lt) /
                          mct_ph_electron_table_f64(&vw, MCT_PH_T_SIG_LOCAL, lt);
        ASSERT_NEAR_F64(rs, want_m, 1e-9 * rs); /* the band under the cut-off: the same electrons */
        const double rl = mct_ph_electron_table_f64(&v, MCT_PH_T_INV_LAMBDA1, lt) /
                          mct_ph_electron_table_f64(&vw, MCT_PH_T_INV_LAMBDA1, lt);
        printf("%-6s: Moller / water %.4f (Z/A %.4f), 1/lambda1 / water %.4f (sum w Z(Z+1)/A %.4f)\n", m.name, rm,
               zoa / zoa_w, rl, zz / zzw);
        ASSERT_LT_F64(rl, zz / zzw * 1.02);
        ASSERT_LT_F64(zz / zzw * 0.85, rl);
        sim_phantom_tables_free(&t);
        p.delta_threshold_MeV = 0.0;
        p.brems_threshold_MeV = 0.0;
    }
    sim_phantom_tables_free(&tw);
}

/* Water (m NULL): its tables pinned to the values data/water's tables give
 * (default thresholds; points 0, 300, 700 and 1023 of every table, printed
 * with 17 digits), to 1e-13 (last-bit differences of libm's exp and log). */
static const double WATER_TABLES[MCT_PH_T_COUNT][4] = {
    {4076.0131899999978, 0.19496980641449843, 0.020372113146120693, 0.020202501240000004},
    {0.99999676399477011, 0.088214906863897047, 5.2087094295758511e-06, 6.1378538492296186e-08},
    {1, 1, 0.70168871016922418, 0.019329351121475279},
    {0.00037280000000000006, 0.1155550379584441, 19.567515969327825, 684.92768257071987},
    {0.062968054837233028, 0.085920305036140496, 0.25895737406806801, 0.40023592021894744},
    {0, 0, 0.42413823164937281, 0.42608508020966018},
    {0.065392121678021803, 0.13652745512985237, 0.68361740842937158, 0.82632100042860768},
    {2897.2245687770051, 10.0557825729257, 0.0066199032976821115, 7.8348294340163915e-06},
    {7098.9676661615331, 26.859547357061405, 0.018663395204879873, 2.2512549926301471e-05},
    {0.012500000000000006, 0.13583244651577742, 10.49953097911308, 999.99999999999977},
    {-31.033328842341131, -19.10868140299138, -1.7737505781919305, 10.901384639211248},
    {0.033296342381739577, 0.055222121928367271, 0.45546519879658431, 0.66666461860720749},
    {35.032052477438654, -14.229963924056094, -29.87047898320133, -42.5},
    {-0.6931471805599454, -11.647478912181054, -26.507659398628281, -38.774306572763351},
    {271.22475627340873, 0.55174237961285311, 0.00019938594088869519, 1.6532306277999089e-07},
    {0.0017690342246385715, 4.0562450371180842e-05, 2.2703940509676635e-08, 1.8831076622856017e-11},
    {0, 9.1880984516633397, 6.3936814279903675, 6.3919274694224919},
    {0, 0.3792898192070337, 0.0001458067042778803, 1.2063178480900527e-07},
    {0, 1.0922351852587899, 0.00043741096444673331, 3.6189534817948945e-07},
};

static void test_water_unchanged(void) {
    mct_phantom_params_t p;
    mct_phantom_params_init(&p);
    sim_phantom_tables_t t = {0}, tm = {0};
    ASSERT_STATUS(sim_phantom_tables_build(&p, NULL, &t), MCT_STATUS_SUCCESS);
    const int pts[4] = {0, 300, 700, 1023};
    for (int k = 0; k < MCT_PH_T_COUNT; ++k)
        for (int i = 0; i < 4; ++i) {
            const double want = WATER_TABLES[k][i], got = t.f64[(size_t)k * t.n + pts[i]];
            ASSERT_NEAR_F64(got, want, 1e-13 * fabs(want));
        }
    /* The built-in water and a geometry's placeholder (a material without
     * tables) are data/water's water: the same tables, bit for bit. A
     * material with data/water's tables but another composition is not. */
    mct_phantom_material_t w, placeholder;
    memset(&placeholder, 0, sizeof placeholder);
    strcpy(placeholder.name, "water");
    placeholder.density_g_cm3 = 1.0;
    ASSERT_STATUS(mct_phantom_material_builtin("water", &w), MCT_STATUS_SUCCESS);
    const mct_phantom_material_t* same[2] = {&w, &placeholder};
    for (int k = 0; k < 2; ++k) {
        ASSERT_STATUS(sim_phantom_tables_build(&p, same[k], &tm), MCT_STATUS_SUCCESS);
        ASSERT_TRUE(memcmp(tm.f64, t.f64, sizeof(double) * MCT_PH_T_COUNT * t.n) == 0);
        ASSERT_TRUE(memcmp(tm.f32, t.f32, sizeof(float) * MCT_PH_T_COUNT * t.n) == 0);
        ASSERT_TRUE(tm.brems_n == t.brems_n && tm.brems_bound == t.brems_bound);
        sim_phantom_tables_free(&tm);
    }
    /* Water's tables with EGSnrc's fractions rounded to 3 digits: computed
     * from the composition, within 1e-3 of water's (the fractions' 1e-3). */
    w.w[0] = 0.112, w.w[1] = 0.888;
    ASSERT_STATUS(sim_phantom_tables_build(&p, &w, &tm), MCT_STATUS_SUCCESS);
    ASSERT_TRUE(memcmp(tm.f64, t.f64, sizeof(double) * MCT_PH_T_COUNT * t.n) != 0);
    for (size_t i = 0; i < (size_t)MCT_PH_T_COUNT * t.n; ++i) ASSERT_NEAR_F64(tm.f64[i], t.f64[i], 1e-3 * fabs(t.f64[i]));
    /* A material with one table only, or none of its elements known, is refused. */
    mct_phantom_material_t bad = w;
    sim_phantom_tables_t none = {0};
    bad.estar = NULL;
    ASSERT_STATUS(sim_phantom_tables_build(&p, &bad, &none), MCT_STATUS_INVALID_VALUE);
    bad = w;
    bad.z[1] = 120;
    ASSERT_STATUS(sim_phantom_tables_build(&p, &bad, &none), MCT_STATUS_INVALID_VALUE);
    ASSERT_TRUE(none.f64 == NULL && none.f32 == NULL);
    sim_phantom_tables_free(&t);
    sim_phantom_tables_free(&tm);
}

/* data/materials/materials.ini, the built-ins written as a list: the same
 * materials, tables bit for bit (the same CSV text parsed by strtod and by
 * the compiler), compositions to the 1e-6 of their printed digits. */
static void test_shipped_list(void) {
    mct_phantom_material_t out[8];
    int count = 0;
    void* storage = NULL;
    char err[512];
    ASSERT_STATUS(mct_phantom_materials_load(MCT_SOURCE_DIR "/data/materials/materials.ini", out, 8, &count, &storage,
                                             err, sizeof err),
                  MCT_STATUS_SUCCESS);
    ASSERT_TRUE(count == 4);
    for (int i = 0; i < count; ++i) {
        mct_phantom_material_t b;
        ASSERT_STATUS(mct_phantom_material_builtin(out[i].name, &b), MCT_STATUS_SUCCESS);
        ASSERT_EQ_F64(out[i].density_g_cm3, b.density_g_cm3);
        ASSERT_EQ_F64(out[i].i_eV, b.i_eV);
        ASSERT_TRUE(out[i].elements == b.elements);
        for (int k = 0; k < b.elements; ++k) {
            ASSERT_TRUE(out[i].z[k] == b.z[k]);
            ASSERT_NEAR_F64(out[i].w[k], b.w[k], 1e-6);
        }
        ASSERT_TRUE(out[i].xcom_rows == b.xcom_rows && out[i].estar_rows == b.estar_rows);
        ASSERT_TRUE(memcmp(out[i].xcom, b.xcom, sizeof(double) * 8 * b.xcom_rows) == 0);
        ASSERT_TRUE(memcmp(out[i].estar, b.estar, sizeof(double) * 7 * b.estar_rows) == 0);
    }
    free(storage);
}

/* End to end in a material other than water.
 * - The Fano test (phantom_test_fano, as test_phantom_hetero's in water) in
 *   bone: a periodic cell of 3 x 3 x 3 voxels of 1 mm of bone, its nominal
 *   1.85 g/cm3 with voxels at 1/10, 1/100 and 1/1000 of it, 1 MeV electrons
 *   born uniformly per unit mass, 20 batches (a correct engine fails one of
 *   the 27 voxels about once in 2e3 runs). Bone's tables enter every step:
 *   its stopping powers, Moller and multiple scattering, its bremsstrahlung
 *   shape.
 * - Slabs of water, bone, lung and water (the benchmark, shortened)
 *   under a 10 MeV electron beam: the energy balance closes to rounding. */
static void test_end_to_end(void) {
    enum { N = 27 };
    mct_phantom_geometry_t g = phantom_test_grid(3, 3, 3, 0.1, 0.1, 0.1);
    g.materials = 1;
    ASSERT_STATUS(mct_phantom_material_builtin("bone", &g.material[0]), MCT_STATUS_SUCCESS);
    for (int k = 0; k < N; ++k) g.density[k] = 1.85f;
    g.density[13] = 0.00185f, g.density[4] = 0.0185f, g.density[10] = 0.185f;
    mct_phantom_params_t p;
    mct_phantom_params_init(&p);
    p.geometry = &g;
    p.source = MCT_PHANTOM_SOURCE_FANO;
    p.particle = MCT_PHANTOM_ELECTRON;
    p.energy_MeV = 1.0;
    p.transport = MCT_PHANTOM_TRANSPORT_F64;
    p.histories = 100000;
    p.batches = 20;
    p.seed = 9;
    phantom_test_fano("fano bone", &p, MCT_BACKEND_CPU, 1e-9);
    mct_phantom_geometry_free(&g);

    /* Slabs along z: water 3 mm, bone 2 mm, lung 7 mm, water 18 mm (a tenth
     * of the benchmark's), 5 x 5 voxels of 4 mm laterally. */
    g = phantom_test_grid(5, 5, 30, 0.4, 0.4, 0.1);
    g.materials = 3;
    ASSERT_STATUS(mct_phantom_material_builtin("water", &g.material[0]), MCT_STATUS_SUCCESS);
    ASSERT_STATUS(mct_phantom_material_builtin("bone", &g.material[1]), MCT_STATUS_SUCCESS);
    ASSERT_STATUS(mct_phantom_material_builtin("lung", &g.material[2]), MCT_STATUS_SUCCESS);
    const size_t nv = (size_t)5 * 5 * 30;
    for (size_t k = 0; k < nv; ++k) {
        const int z = (int)(k / 25), m = z < 3 ? 0 : (z < 5 ? 1 : (z < 12 ? 2 : 0));
        g.mat[k] = (uint8_t)m;
        g.density[k] = (float)g.material[m].density_g_cm3;
    }
    mct_phantom_params_init(&p);
    p.geometry = &g;
    p.particle = MCT_PHANTOM_ELECTRON;
    p.energy_MeV = 10.0;
    p.histories = 4000;
    p.batches = 4;
    p.seed = 3;
    mct_tally_t t = sim_test_tally(MCT_BACKEND_CPU, MCT_METHOD_ATOMIC, MCT_DTYPE_F64, (int64_t)nv, 0);
    mct_phantom_result_t r;
    ASSERT_STATUS(mct_phantom_run(&p, t, &r), MCT_STATUS_SUCCESS);
    printf("slabs 10 MeV electrons: escaped %.4g MeV per history, balance %.2e\n", r.escaped_MeV / p.histories,
           r.energy_balance_rel);
    ASSERT_LE_F64(fabs(r.energy_balance_rel), 1e-9);
    mct_phantom_result_free(&r);
    mct_tally_destroy(t);
    mct_phantom_geometry_free(&g);
}

int main(void) {
    sim_test_dir_make(dir, sizeof dir, "mct_materials");
    test_water_unchanged();
    test_builtin_tables();
    test_loader();
    test_shipped_list();
    test_end_to_end();
    sim_test_dir_remove(dir);
    printf("test_phantom_materials: ok\n");
    return 0;
}
