/* SPDX-License-Identifier: BSD-3-Clause */
/** @file sim_mhd.h  Internal: the one MetaImage writer of the problems'
 * grids (NAME.mhd, the header ITK, SimpleITK and 3D Slicer read, and NAME.raw,
 * the voxels little-endian, x fastest), into an output set (sim_output.h). */
#ifndef MCT_SIM_MHD_H
#define MCT_SIM_MHD_H

#include "mctally/mct_status.h"
#include "sim_output.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Writes DIR/NAME.raw and DIR/NAME.mhd: a 3-D grid of dims[0] x dims[1] x
 * dims[2] voxels, x fastest, as doubles (MET_DOUBLE) when f64 is set, else
 * floats (MET_FLOAT, `data` then points to floats); spacing in mm; origin:
 * the centre of the first voxel in mm. IO_ERROR with set->error. */
mct_status_t sim_mhd_write(sim_out_set_t* set, const char* dir, const char* name, const int dims[3],
                           const double spacing[3], const double origin[3], int f64, const void* data);

#ifdef __cplusplus
}
#endif

#endif /* MCT_SIM_MHD_H */
