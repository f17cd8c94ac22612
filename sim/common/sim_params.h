/* SPDX-License-Identifier: BSD-3-Clause */
/** @file sim_params.h  The numeric parameters of a problem as data: one table
 * per problem (mct_escape_param_table, mct_phantom_param_table, ...) names
 * each parameter, says where it lives in the problem's params struct, its
 * range and its default. The problem's check validates against it, its
 * params_init sets the defaults from it, and a front end (the mctally CLI)
 * reads values into the struct through it and names the key and its range
 * when one is out of range, so the bounds exist once.
 *
 * A table holds what a single value's range can say. What relates two
 * parameters (histories >= batches, a beam energy above the cut-offs) and
 * the enumerations (launch shape, particle, ...) stay in the problem's
 * check. */
#ifndef MCT_SIM_PARAMS_H
#define MCT_SIM_PARAMS_H

#include <stddef.h>
#include <stdint.h>

#include "mctally/mct_status.h"

#ifdef __cplusplus
extern "C" {
#endif

/** The C type of a parameter's field. */
typedef enum {
    MCT_SIM_PARAM_INT = 0, /**< int */
    MCT_SIM_PARAM_I64 = 1, /**< int64_t */
    MCT_SIM_PARAM_F64 = 2, /**< double */
    MCT_SIM_PARAM_U64 = 3  /**< uint64_t (a seed: its range is every value) */
} mct_sim_param_type_t;

/** The range excludes `min` itself. */
#define MCT_SIM_PARAM_MIN_OPEN 1u
/** 0 stands for "not set": the problem chooses (a chunk, a grid) or another
 * parameter applies (a threshold defaults to its cut-off). The check accepts
 * 0; a problem file leaves the key out instead, so a front end refuses 0. */
#define MCT_SIM_PARAM_ZERO_UNSET 2u
/** A key of the problem's own section of a problem file ([phantom] voxels). */
#define MCT_SIM_PARAM_FILE 4u

typedef struct {
    const char* key;           /**< the problem file's key; the field's name unless that key says more */
    mct_sim_param_type_t type;
    size_t offset;             /**< offsetof the field in the params struct */
    double min, max;           /**< the range: min <= v <= max (min < v when MIN_OPEN); values are finite */
    unsigned flags;            /**< MCT_SIM_PARAM_* */
    double value;              /**< the default, as params_init sets it */
    const char* note;          /**< unit or meaning, for messages ("MeV", "voxels per edge"); NULL: none */
} mct_sim_param_t;

typedef struct {
    const char* problem;          /**< "escape", "phantom", ...: the section of a problem file */
    const mct_sim_param_t* params;
    int count;
} mct_sim_param_table_t;

/** Defines the table `name` of `problem` over the array `params`. */
#define MCT_SIM_PARAM_TABLE(name, problem, params) \
    const mct_sim_param_table_t name = {(problem), (params), (int)(sizeof(params) / sizeof(*(params)))}

/** The parameter called `key`; NULL when the table has none. */
const mct_sim_param_t* mct_sim_param_find(const mct_sim_param_table_t* table, const char* key);

/** The value of p's field in `params`, as a double (exact for every int and
 * for 64-bit values up to 2^53). */
double mct_sim_param_get(const mct_sim_param_t* p, const void* params);
/** Stores v in p's field of `params`, converted to the field's type (the
 * caller has checked it with mct_sim_param_in_range). */
void mct_sim_param_set(const mct_sim_param_t* p, void* params, double v);
/** Stores an integer in p's integer field exactly (64-bit beyond 2^53 too). */
void mct_sim_param_set_int(const mct_sim_param_t* p, void* params, int64_t v);

/** Whether v is finite, within p's range, and whole for an integer field.
 * Not the "not set" 0 of a ZERO_UNSET parameter: see mct_sim_param_valid. */
int mct_sim_param_in_range(const mct_sim_param_t* p, double v);
/** What the problem's check accepts: in range, or 0 for a ZERO_UNSET one. */
int mct_sim_param_valid(const mct_sim_param_t* p, double v);

/** Checks every parameter of the table in `params`: SUCCESS, or
 * INVALID_VALUE with *bad (when not NULL) the first one out of range. */
mct_status_t mct_sim_params_check(const mct_sim_param_table_t* table, const void* params,
                                  const mct_sim_param_t** bad);

/** Zeroes the `size` bytes of `params`, then sets every parameter of the
 * table to its default (what a params_init does before the rest). */
void mct_sim_params_defaults(const mct_sim_param_table_t* table, void* params, size_t size);

/** The range of p in words, for a message after "expected ": "a whole number
 * 1 .. 1290 (voxels per edge)", "a number in (0, 0.5]", "a number >= 0 (m)".
 * Truncated to fit `size` bytes; returns buf. */
const char* mct_sim_param_describe(const mct_sim_param_t* p, char* buf, size_t size);

#ifdef __cplusplus
}
#endif

#endif /* MCT_SIM_PARAMS_H */
