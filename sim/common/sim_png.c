/* SPDX-License-Identifier: BSD-3-Clause */
/** @file sim_png.c  The PNG encoder (sim_png.h): filter type 0 on every row,
 * the rows deflated by zlib, chunks with zlib's CRC. */
#include "sim_png.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

static void put_be32(unsigned char* p, uint32_t v) {
    p[0] = (unsigned char)(v >> 24), p[1] = (unsigned char)(v >> 16), p[2] = (unsigned char)(v >> 8), p[3] = (unsigned char)v;
}

static int write_chunk(FILE* f, const char* type, const unsigned char* data, uint32_t len) {
    unsigned char head[8];
    put_be32(head, len);
    memcpy(head + 4, type, 4);
    uLong crc = crc32(0L, (const Bytef*)type, 4);
    if (len) crc = crc32(crc, data, len);
    unsigned char tail[4];
    put_be32(tail, (uint32_t)crc);
    return fwrite(head, 1, 8, f) == 8 && (len == 0 || fwrite(data, 1, len, f) == len) && fwrite(tail, 1, 4, f) == 4;
}

mct_status_t sim_png_write_rgb(sim_out_set_t* set, const char* path, int w, int h, const unsigned char* rgb) {
    const size_t row = 1 + 3 * (size_t)w, raw_len = row * h;
    unsigned char* raw = malloc(raw_len);
    uLongf zlen = compressBound((uLong)raw_len);
    unsigned char* z = malloc(zlen);
    if (!raw || !z) {
        free(raw), free(z);
        return MCT_STATUS_OUT_OF_MEMORY;
    }
    for (int y = 0; y < h; ++y) {
        raw[y * row] = 0;
        memcpy(raw + y * row + 1, rgb + 3 * (size_t)y * w, 3 * (size_t)w);
    }
    int ok = compress2(z, &zlen, raw, (uLong)raw_len, 9) == Z_OK;
    FILE* f = ok ? sim_out_begin(set, path) : NULL;
    if (f) {
        static const unsigned char sig[8] = {137, 80, 78, 71, 13, 10, 26, 10};
        unsigned char ihdr[13];
        put_be32(ihdr, (uint32_t)w);
        put_be32(ihdr + 4, (uint32_t)h);
        ihdr[8] = 8, ihdr[9] = 2, ihdr[10] = 0, ihdr[11] = 0, ihdr[12] = 0;
        ok = fwrite(sig, 1, 8, f) == 8 && write_chunk(f, "IHDR", ihdr, 13) && write_chunk(f, "IDAT", z, (uint32_t)zlen) &&
             write_chunk(f, "IEND", NULL, 0);
        if (sim_out_end(set, f) != 0) ok = 0;
    } else {
        ok = 0;
    }
    free(raw), free(z);
    return ok ? MCT_STATUS_SUCCESS : MCT_STATUS_IO_ERROR;
}
