/* SPDX-License-Identifier: BSD-3-Clause */
/** @file phantom_materials.c  The built-in materials and the material list
 * file reader (see phantom_materials.h and data/materials/README.md). */
#include "phantom_materials.h"

#include <string.h>

#include "phantom_tables.h"

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
