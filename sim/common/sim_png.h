/* SPDX-License-Identifier: BSD-3-Clause */
/** @file sim_png.h  Internal: the one PNG encoder of the problems' pictures
 * (zlib's deflate and CRC), writing into an output set (sim_output.h). */
#ifndef MCT_SIM_PNG_H
#define MCT_SIM_PNG_H

#include "mctally/mct_status.h"
#include "sim_output.h"

#ifdef __cplusplus
extern "C" {
#endif

/** An 8-bit RGB image of w x h pixels (rgb: 3 bytes per pixel, rows top
 * first) as a PNG at `path`, a file of the set. IO_ERROR with set->error, or
 * OUT_OF_MEMORY. */
mct_status_t sim_png_write_rgb(sim_out_set_t* set, const char* path, int w, int h, const unsigned char* rgb);

#ifdef __cplusplus
}
#endif

#endif /* MCT_SIM_PNG_H */
