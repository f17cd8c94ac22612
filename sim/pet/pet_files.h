/* SPDX-License-Identifier: BSD-3-Clause */
/** @file pet_files.h  The container of the PET problem's binary files (LOR
 * counts, system matrix), README "PET files":
 *
 *     bytes 0-7   "MCTPETv1"
 *     bytes 8-15  H, little-endian uint64: the length of the header text
 *     H bytes     a JSON object (UTF-8) describing the file, padded with
 *                 blanks and ended by a newline so that the records start at
 *                 a multiple of 16 bytes
 *     records     little-endian, as the header's "record" field lists them
 *                 (name, type, name, type, ...), back to back
 *
 * so that `head -c 4096 FILE` shows what a file holds, and a reader needs a
 * JSON parser and fixed-size records only. */
#ifndef MCT_SIM_PET_FILES_H
#define MCT_SIM_PET_FILES_H

#include <stdint.h>
#include <stdio.h>

#include "pet.h"

#ifdef __cplusplus
extern "C" {
#endif

#define MCT_PET_FILE_MAGIC "MCTPETv1"
#define MCT_PET_FILE_MAGIC_BYTES 8

/** Writes the magic, the header length and the JSON text (padded). 0 or -1. */
int mct_pet_file_begin(FILE* f, const char* json);
/** Writes one record of two little-endian fields of abytes and bbytes bytes. 0 or -1. */
int mct_pet_file_put(FILE* f, uint64_t a, int abytes, uint64_t b, int bbytes);

/** The scanner's fields of a header ("crystals": ..., without braces) into
 * buf; snprintf's return. */
int mct_pet_json_scanner(char* buf, size_t size, const mct_pet_params_t* p);

/** The formula of a LOR's key in `index`, as the files' headers state it. */
const char* mct_pet_key_formula(const mct_pet_params_t* p, mct_pet_index_t index);

#ifdef __cplusplus
}
#endif

#endif /* MCT_SIM_PET_FILES_H */
