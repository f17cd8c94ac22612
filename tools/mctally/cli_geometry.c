/* SPDX-License-Identifier: BSD-3-Clause */
/** @file cli_geometry.c  A phantom run's geometry from the [phantom] keys
 * (cube, slabs or image; mct_cli_geometry_t): the materials known to it (the
 * built-in ones and a user's list file), then the builders of
 * phantom_geometry.h. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

/* The built-in materials (mct_phantom_material_builtin). */
static const char* const builtin_names[] = {"water", "bone", "lung", "air", "tissue"};
#define BUILTINS ((int)(sizeof builtin_names / sizeof *builtin_names))
/* The most materials a list file adds. */
#define USER_MAX 32

void mct_cli_geometry_free(mct_cli_run_args_t* a) {
    mct_phantom_geometry_free(&a->geometry);
    a->cfg.phantom.geometry = NULL;
    free(a->reference);
    a->reference = NULL;
    a->reference_rows = 0;
}

/* The most rows of a reference depth dose. */
#define REFERENCE_MAX_ROWS 100000

/* Reads `reference`: a header line, then rows of depth_cm, width_cm, mev, err
 * (decimal numbers); 1 after a message naming the file and line. */
static int read_reference(mct_cli_run_args_t* a, const char* path) {
    if (sim_out_protect(path)) return mct_cli_error("phantom: reference %s: too many inputs", path);
    FILE* f = fopen(path, "r");
    if (!f) return mct_cli_error("phantom: reference %s: cannot open it", path);
    char line[1024];
    int rc = 0, lineno = 1, n = 0, cap = 0;
    double* rows = NULL;
    if (!fgets(line, sizeof line, f) || strncmp(line, "depth_cm,width_cm,mev,err", 25) != 0)
        rc = mct_cli_error("phantom: reference %s: expected the header depth_cm,width_cm,mev,err", path);
    while (!rc && fgets(line, sizeof line, f)) {
        ++lineno;
        if (!strchr(line, '\n') && !feof(f)) {
            rc = mct_cli_error("phantom: reference %s:%d: line longer than %zu bytes", path, lineno, sizeof line - 2);
            break;
        }
        line[strcspn(line, "\r\n")] = '\0';
        if (!line[0]) continue;
        if (n == REFERENCE_MAX_ROWS) {
            rc = mct_cli_error("phantom: reference %s: more than %d rows", path, REFERENCE_MAX_ROWS);
            break;
        }
        if (n == cap) {
            cap = cap ? 2 * cap : 256;
            double* grown = realloc(rows, (size_t)cap * 4 * sizeof *rows);
            if (!grown) {
                rc = mct_cli_error("phantom: reference %s: out of memory", path);
                break;
            }
            rows = grown;
        }
        char* field = line;
        for (int c = 0; c < 4 && !rc; ++c) {
            const size_t len = strcspn(field, ",");
            const char end = field[len];
            field[len] = '\0';
            if ((c < 3 ? !end : end) || mct_cli_parse_f64(field, -HUGE_VAL, &rows[4 * (size_t)n + c]))
                rc = mct_cli_error("phantom: reference %s:%d: expected four decimal numbers separated by ','", path,
                                   lineno);
            field += len + 1;
        }
        ++n;
    }
    if (!rc && ferror(f)) rc = mct_cli_error("phantom: reference %s: read error", path);
    if (!rc && n < 2) rc = mct_cli_error("phantom: reference %s: fewer than 2 rows", path);
    fclose(f);
    if (rc) {
        free(rows);
        return rc;
    }
    a->reference = rows;
    a->reference_rows = n;
    return 0;
}

static int build_geometry(mct_cli_run_args_t* a) {
    const mct_cli_geometry_t* k = &a->cfg.phantom_geometry;

    mct_phantom_material_t known[BUILTINS + USER_MAX];
    int count = 0;
    for (int i = 0; i < BUILTINS; ++i)
        if (mct_phantom_material_builtin(builtin_names[i], &known[count]) == MCT_STATUS_SUCCESS) ++count;
    void* storage = NULL;
    char err[1024] = "";
    if (k->materials[0]) {
        if (sim_out_protect(k->materials)) return mct_cli_error("run: too many inputs");
        int added = 0;
        if (mct_phantom_materials_load(k->materials, known + count, USER_MAX, &added, &storage, err, sizeof err))
            return mct_cli_error("phantom: %s", err);
        for (int i = count; i < count + added; ++i)
            for (int j = 0; j < i; ++j)
                if (!strcmp(known[i].name, known[j].name)) {
                    free(storage);
                    return mct_cli_error("phantom: materials %s: material %s is already %s", k->materials,
                                         known[i].name, j < BUILTINS ? "a built-in one" : "in the file");
                }
        count += added;
    }

    const mct_phantom_params_t* p = &a->cfg.phantom;
    mct_status_t st = MCT_STATUS_SUCCESS;
    switch (k->kind) {
    case MCT_CLI_GEOMETRY_CUBE: {
        const mct_phantom_material_t* m = NULL;
        for (int i = 0; i < count; ++i)
            if (!strcmp(known[i].name, k->material)) m = &known[i];
        /* The water cube at its nominal 1 g/cm3 is the homogeneous path. */
        const double density = k->density > 0.0 ? k->density : m ? m->density_g_cm3 : 0.0;
        if (m && !strcmp(k->material, "water") && density == 1.0 && m->density_g_cm3 == 1.0) {
            free(storage);
            return 0;
        }
        st = mct_phantom_geometry_cube(p->voxels, p->size_cm, k->material, density > 0.0 ? density : 1.0, known, count,
                                       &a->geometry, err, sizeof err);
        break;
    }
    case MCT_CLI_GEOMETRY_SLABS:
        st = mct_phantom_geometry_slabs(k->slab, k->nslabs, p->voxels, p->size_cm, k->depth_voxel_cm, known, count,
                                        &a->geometry, err, sizeof err);
        break;
    case MCT_CLI_GEOMETRY_IMAGE:
        if (sim_out_protect(k->image) || (k->density_image[0] && sim_out_protect(k->density_image)))
            st = MCT_STATUS_TOO_LARGE, snprintf(err, sizeof err, "too many inputs");
        else if (k->density_image[0]) {
            const char* names[MCT_PHANTOM_MAX_MATERIALS];
            for (int i = 0; i < k->nimage_materials; ++i) names[i] = k->image_materials[i];
            st = mct_phantom_geometry_index_images(k->image, k->density_image, names, k->nimage_materials, known, count,
                                                   &a->geometry, err, sizeof err);
        } else {
            mct_phantom_calibration_t cal;
            if (k->calibration[0]) {
                if (sim_out_protect(k->calibration))
                    st = MCT_STATUS_TOO_LARGE, snprintf(err, sizeof err, "too many inputs");
                else
                    st = mct_phantom_calibration_load(k->calibration, &cal, err, sizeof err);
            } else {
                mct_phantom_calibration_default(&cal);
            }
            if (!st) st = mct_phantom_geometry_hu_image(k->image, &cal, known, count, &a->geometry, err, sizeof err);
        }
        break;
    }
    if (st) {
        free(storage);
        return mct_cli_error("phantom: %s", err[0] ? err : "cannot build the geometry");
    }
    a->geometry.storage = storage;
    a->cfg.phantom.geometry = &a->geometry;
    return 0;
}

int mct_cli_geometry_build(mct_cli_run_args_t* a) {
    const mct_cli_geometry_t* k = &a->cfg.phantom_geometry;
    memset(&a->geometry, 0, sizeof a->geometry);
    a->cfg.phantom.geometry = NULL;
    a->reference = NULL;
    a->reference_rows = 0;
    if (strcmp(a->cfg.type, "phantom")) return 0;
    if (k->reference[0] && read_reference(a, k->reference)) return 1;
    if (!build_geometry(a)) return 0;
    mct_cli_geometry_free(a);
    return 1;
}
