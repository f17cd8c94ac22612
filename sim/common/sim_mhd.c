/* SPDX-License-Identifier: BSD-3-Clause */
/** @file sim_mhd.c  The MetaImage writer (sim_mhd.h). */
#include "sim_mhd.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

static int little_endian(void) {
    const uint16_t one = 1;
    unsigned char b;
    memcpy(&b, &one, 1);
    return b == 1;
}

mct_status_t sim_mhd_write(sim_out_set_t* set, const char* dir, const char* name, const int dims[3],
                           const double spacing[3], const double origin[3], int f64, const void* data) {
    char path[SIM_OUT_PATH];
    const size_t elem = f64 ? 8 : 4, count = (size_t)dims[0] * dims[1] * dims[2];
    /* The raw file, little-endian as the header says. */
    snprintf(path, sizeof path, "%s/%s.raw", dir, name);
    FILE* f = sim_out_begin(set, path);
    if (!f) return MCT_STATUS_IO_ERROR;
    int ok = 1;
    if (little_endian()) {
        ok = fwrite(data, elem, count, f) == count;
    } else {
        const unsigned char* b = data;
        for (size_t k = 0; k < count && ok; ++k) {
            unsigned char r[8];
            for (size_t i = 0; i < elem; ++i) r[i] = b[k * elem + elem - 1 - i];
            ok = fwrite(r, 1, elem, f) == elem;
        }
    }
    if (sim_out_end(set, f) != 0) ok = 0;
    if (!ok) return MCT_STATUS_IO_ERROR;

    snprintf(path, sizeof path, "%s/%s.mhd", dir, name);
    f = sim_out_begin(set, path);
    if (!f) return MCT_STATUS_IO_ERROR;
    ok = fprintf(f,
                 "ObjectType = Image\nNDims = 3\nBinaryData = True\nBinaryDataByteOrderMSB = False\n"
                 "CompressedData = False\nTransformMatrix = 1 0 0 0 1 0 0 0 1\nOffset = %.17g %.17g %.17g\n"
                 "CenterOfRotation = 0 0 0\nAnatomicalOrientation = RAI\nElementSpacing = %.17g %.17g %.17g\n"
                 "DimSize = %d %d %d\nElementType = %s\nElementDataFile = %s.raw\n",
                 origin[0], origin[1], origin[2], spacing[0], spacing[1], spacing[2], dims[0], dims[1], dims[2],
                 f64 ? "MET_DOUBLE" : "MET_FLOAT", name) > 0;
    if (sim_out_end(set, f) != 0) ok = 0;
    return ok ? MCT_STATUS_SUCCESS : MCT_STATUS_IO_ERROR;
}
