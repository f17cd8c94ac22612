/* SPDX-License-Identifier: BSD-3-Clause */
/** @file phantom_materials.h  The media the phantom engine transports through:
 * composition, mean excitation energy, nominal density, and the NIST photon
 * (XCOM) and electron (ESTAR) tables from which the engine builds its own. */
#ifndef MCT_SIM_PHANTOM_MATERIALS_H
#define MCT_SIM_PHANTOM_MATERIALS_H

#ifdef __cplusplus
extern "C" {
#endif

/** The most elements of one material. */
#define MCT_PHANTOM_MAX_ELEMENTS 16

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

#ifdef __cplusplus
}
#endif

#endif /* MCT_SIM_PHANTOM_MATERIALS_H */
