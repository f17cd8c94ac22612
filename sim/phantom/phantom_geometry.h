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

#include "mctally/mct_status.h"
#include "phantom_materials.h"

#ifdef __cplusplus
extern "C" {
#endif

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


/** The most voxels of a geometry: the tally has one bin per voxel, and a
 * tally's bins fit in a signed 32-bit count. */
#define MCT_PHANTOM_MAX_VOXELS INT64_C(2147483647)

/* ---- Builders (phantom_geometry.c) ------------------------------------------
 * Each fills *out and returns SUCCESS, or returns INVALID_VALUE (bad input),
 * IO_ERROR (a file that cannot be read), TOO_LARGE (more voxels or materials
 * than fit) or OUT_OF_MEMORY with one line saying what is wrong in err (when
 * err is not NULL) and *out zeroed: nothing is half built. Materials are
 * named and looked up by name in `known` (count entries: the built-in ones
 * and any a user loaded); the geometry keeps copies of those it uses, whose
 * table pointers must outlive it. The builders leave out->storage NULL: a
 * caller whose materials' tables it allocated may hand them over there. */

/** A cube of n^3 voxels of one material at one density, size_cm on each edge. */
mct_status_t mct_phantom_geometry_cube(int n, double size_cm, const char* material, double density_g_cm3,
                                       const mct_phantom_material_t* known, int count, mct_phantom_geometry_t* out,
                                       char* err, size_t errlen);

/** One slab: its material, its density and its thickness along z. */
typedef struct {
    char material[32];
    double density_g_cm3;
    double thickness_cm;
} mct_phantom_slab_t;

/** Slabs along z, the first at the front face: n x n voxels laterally over
 * lateral_cm, and in depth voxels of dz_cm, each slab a whole number of them
 * (its thickness / dz_cm within 1e-9 of an integer, relatively). */
mct_status_t mct_phantom_geometry_slabs(const mct_phantom_slab_t* slabs, int nslabs, int n, double lateral_cm,
                                        double dz_cm, const mct_phantom_material_t* known, int count,
                                        mct_phantom_geometry_t* out, char* err, size_t errlen);

/** A segment of a Hounsfield-unit calibration: HU in [hu_lo, hu_hi) (the last
 * segment's hu_hi included) is `material` at a density linear in HU from
 * density_lo (at hu_lo) to density_hi (at hu_hi). */
typedef struct {
    double hu_lo, hu_hi;
    char material[32];
    double density_lo, density_hi;
} mct_phantom_hu_segment_t;

#define MCT_PHANTOM_MAX_HU_SEGMENTS 64

/** A calibration: segments in rising HU, not overlapping (gaps are HU outside the table). */
typedef struct {
    int segments;
    mct_phantom_hu_segment_t segment[MCT_PHANTOM_MAX_HU_SEGMENTS];
} mct_phantom_calibration_t;

/** The default calibration: the hard-wired default CT ramp of DOSXYZnrc's
 * ctcreate (EGSnrc, ctcreate.mortran; DOSXYZnrc Users Manual, NRCC Report
 * PIRS-794), in the HU range of DICOM data: air -1024 .. -974 HU (0.001 ..
 * 0.044 g/cm3), lung -974 .. -724 (0.044 .. 0.302), tissue -724 .. 101
 * (0.302 .. 1.101), bone 101 .. 1976 (1.101 .. 2.088). */
void mct_phantom_calibration_default(mct_phantom_calibration_t* cal);

/** Reads a calibration file: one segment a line, `hu_lo hu_hi material
 * density_lo density_hi`, blanks between, `#` to the end of a line a
 * comment. Densities > 0 and finite, hu_lo < hu_hi, segments rising and not
 * overlapping; the materials are checked when an image is built. */
mct_status_t mct_phantom_calibration_load(const char* path, mct_phantom_calibration_t* cal, char* err, size_t errlen);

/** The segment (index) and density of one HU value; INVALID_VALUE when no segment holds it. */
mct_status_t mct_phantom_calibration_lookup(const mct_phantom_calibration_t* cal, double hu, int* segment,
                                            double* density_g_cm3);

/** A MetaImage read whole: dims, spacing (mm) and the voxels as doubles (x fastest). */
typedef struct {
    int dims[3];
    double spacing_mm[3];
    double* voxel; /**< dims[0] dims[1] dims[2] values; free() it */
} mct_phantom_image_t;

/** Reads a 3-D MetaImage: a .mhd header with its data file (ElementDataFile,
 * relative to the header's folder) or a .mha (ElementDataFile = LOCAL);
 * ElementType MET_CHAR, MET_UCHAR, MET_SHORT, MET_USHORT, MET_INT, MET_UINT,
 * MET_LONG_LONG, MET_ULONG_LONG, MET_FLOAT or MET_DOUBLE, either byte order
 * (ElementByteOrderMSB / BinaryDataByteOrderMSB), one channel, not
 * compressed; the data exactly the size the header gives (after HeaderSize
 * bytes when given). */
mct_status_t mct_phantom_image_read(const char* path, mct_phantom_image_t* out, char* err, size_t errlen);

/** A geometry from a MetaImage of Hounsfield units through a calibration
 * (NULL: the default): each voxel's material and density from its segment. */
mct_status_t mct_phantom_geometry_hu_image(const char* path, const mct_phantom_calibration_t* cal,
                                           const mct_phantom_material_t* known, int count,
                                           mct_phantom_geometry_t* out, char* err, size_t errlen);

/** A geometry from two MetaImages of the same dims and spacing: material
 * indices (whole numbers 0 .. nnames - 1, index i naming names[i]) and
 * densities (g/cm3). */
mct_status_t mct_phantom_geometry_index_images(const char* index_path, const char* density_path,
                                               const char* const* names, int nnames,
                                               const mct_phantom_material_t* known, int count,
                                               mct_phantom_geometry_t* out, char* err, size_t errlen);

#ifdef __cplusplus
}
#endif

#endif /* MCT_SIM_PHANTOM_GEOMETRY_H */
