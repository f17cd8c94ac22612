/* SPDX-License-Identifier: BSD-3-Clause */
/** @file cli_geometry.c  A phantom run's geometry from the [phantom] keys
 * (cube, slabs or image; mct_cli_geometry_t): the materials known to it (the
 * built-in ones and a user's list file), then the builders of
 * phantom_geometry.h; and the reference files a run is compared with. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "sim_table.h"

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
    free(a->lateral);
    a->lateral = NULL;
    a->lateral_rows = 0;
    free(a->lateral_zones);
    a->lateral_zones = NULL;
    a->cfg.phantom.zones = NULL;
    a->cfg.phantom.nzones = 0;
}

/* The most rows of a reference file. */
#define REFERENCE_MAX_ROWS 100000

/* Reads a reference CSV (`key` names it in messages) through the one table
 * reader (sim_table.h): its header, then rows of `cols` decimal numbers; 1
 * after a message naming the file and line. */
static int read_reference(const char* key, const char* path, const char* header, int cols, int min_rows,
                          double** rows, int* n) {
    if (sim_out_protect(path)) return mct_cli_error("phantom: %s %s: too many inputs", key, path);
    char err[1200];
    if (mct_sim_table_read(path, header, cols, min_rows, REFERENCE_MAX_ROWS, rows, n, err, sizeof err))
        return mct_cli_error("phantom: %s %s", key, err);
    return 0;
}

/* The lateral reference, read and checked against the run's grid; its
 * compared zones become the run's, whose energies it records per batch. */
static int read_lateral(mct_cli_run_args_t* a) {
    const mct_cli_geometry_t* k = &a->cfg.phantom_geometry;
    if (a->cfg.phantom.batches < 2)
        return mct_cli_error("phantom: lateral_reference needs batches >= 2 (the run's statistical errors)");
    if (read_reference("lateral_reference", k->lateral_reference, MCT_PHANTOM_LATERAL_HEADER,
                       MCT_PHANTOM_LATERAL_COLUMNS, 1, &a->lateral, &a->lateral_rows))
        return 1;
    char err[1200];
    int nzones = 0;
    if (mct_phantom_lateral_zones(&a->cfg.phantom, k->lateral_reference, a->lateral, a->lateral_rows,
                                  k->lateral_depths, k->nlateral_depths, &a->lateral_zones, &nzones, err, sizeof err))
        return mct_cli_error("phantom: lateral_reference %s", err);
    a->cfg.phantom.zones = a->lateral_zones;
    a->cfg.phantom.nzones = nzones;
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
    a->reference = a->lateral = a->lateral_zones = NULL;
    a->reference_rows = a->lateral_rows = 0;
    a->cfg.phantom.zones = NULL;
    a->cfg.phantom.nzones = 0;
    if (strcmp(a->cfg.type, "phantom")) return 0;
    if (k->reference[0] && read_reference("reference", k->reference, "depth_cm,width_cm,mev,err", 4, 2, &a->reference,
                                          &a->reference_rows))
        return 1;
    if (!build_geometry(a) && !(k->lateral_reference[0] && read_lateral(a))) return 0;
    mct_cli_geometry_free(a);
    return 1;
}
