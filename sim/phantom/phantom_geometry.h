/* SPDX-License-Identifier: BSD-3-Clause */
/** @file phantom_geometry.h  What the phantom is made of: a box of nx x ny x nz
 * voxels, each of one material at its own mass density.
 *
 * The beam enters at the centre of the z = 0 face, along +z; voxel (ix, iy, iz)
 * spans x in [-nx dx / 2 + ix dx, ... + dx) (likewise y) and z in [iz dz,
 * (iz + 1) dz); voxel k = ix + nx (iy + ny iz), the MetaImage order.
 *
 * Without a geometry (mct_phantom_params_t.geometry NULL) the phantom is the
 * homogeneous water cube of size_cm and voxels per edge, on the engine's
 * uniform-medium path. With one, every voxel has a material (an index into
 * `material`) and a density; each material's tables are mass coefficients
 * (cm2/g, MeV cm2/g) at its nominal density, scaled by the voxel's density
 * (the density effect of the stopping power stays that of the nominal
 * density, as in CT-based dose engines: what the Fano test needs). */
#ifndef MCT_SIM_PHANTOM_GEOMETRY_H
#define MCT_SIM_PHANTOM_GEOMETRY_H

#include <stddef.h>
#include <stdint.h>

#include "phantom_materials.h"

#ifdef __cplusplus
extern "C" {
#endif

/** The most materials one geometry holds (a voxel's material is a uint8_t). */
#define MCT_PHANTOM_MAX_MATERIALS 16

typedef struct {
    int nx, ny, nz;                /**< voxels along each axis, >= 1 */
    double dx_cm, dy_cm, dz_cm;    /**< voxel edges, > 0 */
    int materials;                 /**< entries of material[] in use, 1 .. MCT_PHANTOM_MAX_MATERIALS */
    mct_phantom_material_t material[MCT_PHANTOM_MAX_MATERIALS];
    uint8_t* mat;                  /**< nx ny nz, x fastest: an index < materials */
    float* density;                /**< nx ny nz, g/cm3, > 0 and finite */
    void* storage;                 /**< what the builder allocated besides mat and density (loaded material tables) */
} mct_phantom_geometry_t;

/** Frees mat, density and storage, and zeroes *g; NULL and a zeroed geometry are fine. */
void mct_phantom_geometry_free(mct_phantom_geometry_t* g);

/** The grid of a run, with or without a geometry: the cube gives
 * n = voxels and d = size_cm / voxels on every axis. */
typedef struct {
    int nx, ny, nz;
    double dx_cm, dy_cm, dz_cm;
} mct_phantom_grid_t;

#ifdef __cplusplus
}
#endif

#endif /* MCT_SIM_PHANTOM_GEOMETRY_H */
