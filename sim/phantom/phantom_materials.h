/* SPDX-License-Identifier: BSD-3-Clause */
/** @file phantom_materials.h  The media the phantom engine transports through:
 * composition, mean excitation energy, nominal density, and the NIST photon
 * (XCOM) and electron (ESTAR) tables from which the engine builds its own. */
#ifndef MCT_SIM_PHANTOM_MATERIALS_H
#define MCT_SIM_PHANTOM_MATERIALS_H

#include <stddef.h>

#include "mctally/mct_status.h"

#ifdef __cplusplus
extern "C" {
#endif

/** The most elements of one material. */
#define MCT_PHANTOM_MAX_ELEMENTS 16

/** The most materials one geometry holds (a voxel's material is a uint8_t). */
#define MCT_PHANTOM_MAX_MATERIALS 16

/** A material. The tables have the columns of data/water's files:
 * xcom rows of 8 (energy MeV, coherent, incoherent, photoelectric, pair
 * nuclear, pair electron, total with and without coherent, cm2/g) and estar
 * rows of 7 (energy MeV, collision, radiative, total stopping power MeV cm2/g,
 * CSDA range g/cm2, radiation yield, density-effect delta), energies rising.
 * The pointers stay valid as long as what made the material (static data, or
 * the geometry's storage). */
typedef struct {
    char name[32];
    double density_g_cm3;   /**< nominal density: that of the stopping-power table's density effect */
    double i_eV;            /**< mean excitation energy */
    int elements;
    int z[MCT_PHANTOM_MAX_ELEMENTS];
    double w[MCT_PHANTOM_MAX_ELEMENTS]; /**< mass fractions, summing to 1 */
    const double* xcom;
    int xcom_rows;
    const double* estar;
    int estar_rows;
} mct_phantom_material_t;

/** A built-in material: "water", "bone" (ICRP cortical bone, 1.85 g/cm3),
 * "lung" (ICRU 44 lung, inflated, 0.26 g/cm3), "air" (dry, near sea level),
 * "tissue" (ICRU four-component soft tissue), with the compositions, I-values
 * and nominal densities of EGSnrc's 521icru.pegs4dat media (ICRU 37 / ESTAR)
 * and the tables of data/water and data/materials, compiled into the program
 * (static: nothing to free). INVALID_VALUE for an unknown name (out
 * untouched), NULL_POINTER for NULL arguments. */
mct_status_t mct_phantom_material_builtin(const char* name, mct_phantom_material_t* out);

/** Reads a material list file (format in data/materials/README.md: one INI
 * section per material, its density, I, composition and the paths of its
 * XCOM-format and ESTAR-format CSV files relative to the list file) into
 * out[0 .. *count - 1], at most max. The tables live in one block that
 * *storage receives (free() it when the materials are no longer used).
 * On any bad input: a non-zero status, one line naming the problem (file,
 * line or section, what is wrong) in err, *count = 0, *storage = NULL and
 * out untouched. */
mct_status_t mct_phantom_materials_load(const char* path, mct_phantom_material_t* out, int max, int* count,
                                        void** storage, char* err, size_t errlen);

#ifdef __cplusplus
}
#endif

#endif /* MCT_SIM_PHANTOM_MATERIALS_H */
