/* SPDX-License-Identifier: BSD-3-Clause */
/** @file cli_pet.c  `mctally run` of a [pet] problem file: the tally of the
 * LOR index (the full map where it fits), the run, result.json, the sparse
 * LOR file and the sinogram. */
#define _POSIX_C_SOURCE 200809L
#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "pet_files.h"

typedef mct_cli_run_args_t run_args_t;

static double gib(int64_t bins, mct_dtype_t dtype) { return (double)bins * (double)mct_dtype_size(dtype) / 1073741824.0; }

/* Physical memory a new allocation can have: MemAvailable (Linux), else the
 * free pages. */
static double available_bytes(void) {
    FILE* f = fopen("/proc/meminfo", "r");
    char line[256];
    double kib = -1.0;
    while (f && fgets(line, sizeof line, f))
        if (sscanf(line, "MemAvailable: %lf kB", &kib) == 1) break;
    if (f) fclose(f);
    if (kib >= 0.0) return kib * 1024.0;
    return (double)sysconf(_SC_AVPHYS_PAGES) * (double)sysconf(_SC_PAGESIZE);
}

/* The host memory a run of `bins` takes: the tally's statistics and staging
 * (3 doubles per bin, and a batch's values widened to 8 bytes), the exact
 * counts the run reads back (8 bytes per bin), and on the host backends the
 * bins themselves. */
static double host_bytes(int64_t bins, mct_dtype_t dtype, mct_backend_t backend) {
    const double per_bin = 24.0 + 8.0 + 8.0 + (backend == MCT_BACKEND_CUDA ? 0.0 : (double)mct_dtype_size(dtype));
    return (double)bins * per_bin;
}

/* The backend a tally of d would be made on (AUTO resolved by a one-bin probe). */
static mct_backend_t resolved_backend(const mct_tally_desc_t* d) {
    if (d->backend != MCT_BACKEND_AUTO) return d->backend;
    mct_tally_desc_t probe = *d;
    probe.bins = 1;
    probe.method = MCT_METHOD_ATOMIC;
    mct_tally_t t = NULL;
    mct_backend_t b = MCT_BACKEND_CPU;
    if (mct_tally_create(&t, &probe) == MCT_STATUS_SUCCESS && mct_tally_get_desc(t, &probe) == MCT_STATUS_SUCCESS)
        b = probe.backend;
    mct_tally_destroy(t);
    return b;
}

/* One message for a tally that could not be made for `index`. */
static void create_error(const run_args_t* a, const mct_tally_desc_t* d, mct_pet_index_t index, mct_status_t st) {
    if (st == MCT_STATUS_TOO_LARGE || st == MCT_STATUS_OUT_OF_MEMORY)
        mct_cli_error("pet: the %s LOR index (%lld bins, %.3g GiB of %s counts on the %s backend, and %.3g GiB of host "
                      "memory for their statistics and counts) does not fit in this machine's memory; use index = %s, fewer "
                      "crystals or rings, or a machine with more memory",
                      mct_pet_index_name(index), (long long)d->bins, gib(d->bins, d->dtype), mct_dtype_name(d->dtype),
                      mct_backend_name(a->backend), host_bytes(d->bins, d->dtype, MCT_BACKEND_CUDA) / 1073741824.0,
                      index == MCT_PET_INDEX_FULL ? "compressed" : "total");
    else if (st != MCT_STATUS_UNSATISFIABLE)
        mct_cli_report_status(st, a, "pet: cannot create the tally");
}

mct_tally_t mct_cli_pet_create(run_args_t* a, mct_tally_desc_t* d, mct_status_t* st) {
    mct_pet_params_t* p = &a->cfg.pet;
    char why[512];
    mct_tally_t t = NULL;
    /* The parameters and the type before any memory is taken. */
    if ((*st = mct_pet_validate(p, why, sizeof why))) {
        mct_cli_error("pet: %s", why);
        return NULL;
    }
    if (d->dtype != MCT_DTYPE_I32 && d->dtype != MCT_DTYPE_U64) {
        *st = MCT_STATUS_NOT_SUPPORTED;
        mct_cli_error("pet: the problem counts events: use an integer tally (dtype = i32 or u64), not %s",
                      mct_dtype_name(d->dtype));
        return NULL;
    }
    a->pet_index_note[0] = '\0';
    mct_pet_index_t index = p->index;
    if (index == MCT_PET_INDEX_AUTO) {
        int64_t full = 0;
        mct_status_t fits = mct_pet_bins(p, MCT_PET_INDEX_FULL, &full);
        /* The run reads the counts back besides the tally's own memory: the
         * full map only where all of it fits in nine tenths of the free memory. */
        if (!fits && host_bytes(full, d->dtype, resolved_backend(d)) > 0.9 * available_bytes())
            fits = MCT_STATUS_OUT_OF_MEMORY;
        if (!fits) {
            d->bins = full;
            *st = mct_tally_create(&t, d);
            if (!*st) {
                a->pet_index = MCT_PET_INDEX_FULL;
                return t;
            }
            if (*st != MCT_STATUS_TOO_LARGE && *st != MCT_STATUS_OUT_OF_MEMORY) {
                create_error(a, d, MCT_PET_INDEX_FULL, *st);
                return NULL;
            }
        }
        if (fits == MCT_STATUS_TOO_LARGE)
            snprintf(a->pet_index_note, sizeof a->pet_index_note,
                     "the full map (%lld bins) is more than a tally's 2^31 bins", (long long)full);
        else
            snprintf(a->pet_index_note, sizeof a->pet_index_note,
                     "the full map (%lld bins, %.3g GiB of %s counts) does not fit in memory", (long long)full,
                     gib(full, d->dtype), mct_dtype_name(d->dtype));
        printf("pet: %s; the compressed LOR index is used\n", a->pet_index_note);
        index = MCT_PET_INDEX_COMPRESSED;
    }
    if ((*st = mct_pet_bins(p, index, &d->bins))) {
        mct_cli_error("pet: the %s LOR index has %lld bins, more than the 2^31 of a tally", mct_pet_index_name(index),
                      (long long)d->bins);
        return NULL;
    }
    if (host_bytes(d->bins, d->dtype, resolved_backend(d)) > available_bytes())
        *st = MCT_STATUS_TOO_LARGE;
    else
        *st = mct_tally_create(&t, d);
    if (*st) {
        create_error(a, d, index, *st);
        return NULL;
    }
    a->pet_index = index;
    return t;
}

static cJSON* scanner_json(const mct_pet_params_t* p) {
    cJSON* j = cJSON_CreateObject();
    cJSON_AddNumberToObject(j, "crystals", p->crystals);
    cJSON_AddNumberToObject(j, "rings", p->rings);
    cJSON_AddNumberToObject(j, "crystal_mm", p->crystal_mm);
    cJSON_AddNumberToObject(j, "depth_mm", p->depth_mm);
    cJSON_AddNumberToObject(j, "radius_mm", mct_pet_radius_mm(p));
    cJSON_AddNumberToObject(j, "length_mm", mct_pet_length_mm(p));
    cJSON_AddBoolToObject(j, "doi", p->doi);
    cJSON_AddStringToObject(j, "deposit", sim_deposit_name(p->deposit));
    if (p->doi) cJSON_AddNumberToObject(j, "attenuation_mm", p->attenuation_mm);
    if (p->max_ring_diff > 0) cJSON_AddNumberToObject(j, "max_ring_diff", p->max_ring_diff);
    return j;
}

static cJSON* source_json(const mct_pet_params_t* p) {
    cJSON* j = cJSON_CreateObject();
    cJSON_AddStringToObject(j, "kind", mct_pet_source_name(p->source));
    if (p->source == MCT_PET_SOURCE_VOXEL) {
        cJSON_AddNumberToObject(j, "voxel_r", p->voxel_r);
        cJSON_AddNumberToObject(j, "voxel_c", p->voxel_c);
        cJSON_AddNumberToObject(j, "radial_step_mm", p->radial_step_mm);
        cJSON_AddNumberToObject(j, "r_min_mm", p->voxel_r * p->radial_step_mm);
        cJSON_AddNumberToObject(j, "r_max_mm", (p->voxel_r + 1) * p->radial_step_mm);
        cJSON_AddStringToObject(j, "geometry", "long scanner of 2 rings - 1 rings, the voxel in ring rings - 1");
    } else if (p->source == MCT_PET_SOURCE_POINT) {
        cJSON* pt = cJSON_AddArrayToObject(j, "point_mm");
        for (int k = 0; k < 3; ++k) cJSON_AddItemToArray(pt, cJSON_CreateNumber(p->point_mm[k]));
    } else {
        mct_pet_shape_t* shapes = malloc(MCT_PET_MAX_SHAPES * sizeof *shapes);
        const int n = shapes ? mct_pet_source_shapes(p, shapes) : 0;
        cJSON_AddNumberToObject(j, "shapes", n);
        if (p->source == MCT_PET_SOURCE_DERENZO) {
            cJSON_AddNumberToObject(j, "derenzo_scale", p->derenzo_scale);
            cJSON_AddNumberToObject(j, "derenzo_background", p->derenzo_background);
        }
        free(shapes);
    }
    return j;
}

/* For a point on the axis without depth of interaction or ring cut: both
 * gammas reach the barrel when |cos theta| < m / sqrt(m^2 + R^2), m the
 * distance to the nearer end (test_sim_pet.c derives it); NaN elsewhere. */
static double point_acceptance(const mct_pet_params_t* p) {
    if (p->source != MCT_PET_SOURCE_POINT || p->point_mm[0] != 0.0 || p->point_mm[1] != 0.0 || p->doi ||
        p->max_ring_diff > 0)
        return NAN;
    const double L = mct_pet_length_mm(p), R = mct_pet_radius_mm(p), m = 0.5 * L - fabs(p->point_mm[2]);
    return m / sqrt(m * m + R * R);
}

static int run_status(mct_status_t st, const run_args_t* a, const mct_pet_params_t* p, mct_tally_t tally) {
    mct_tally_desc_t d;
    const int i32 = mct_tally_get_desc(tally, &d) == MCT_STATUS_SUCCESS && d.dtype == MCT_DTYPE_I32;
    if (st == MCT_STATUS_NOT_SUPPORTED && a->cfg.method == MCT_METHOD_SHARED)
        return mct_cli_error("pet: the LOR index's bins do not fit in a block's 48 KiB of shared memory (method shared)");
    if (st == MCT_STATUS_OVERFLOW && i32 && p->batches < mct_pet_min_batches(p->histories, MCT_DTYPE_I32))
        return mct_cli_error("pet: an i32 bin could pass 2^31 - 1 in a batch of %lld decays; use at least %lld batches "
                             "or dtype = u64",
                             (long long)(p->histories / p->batches + (p->histories % p->batches != 0)),
                             (long long)mct_pet_min_batches(p->histories, MCT_DTYPE_I32));
    if (st == MCT_STATUS_OVERFLOW)
        return mct_cli_error("pet: a bin passed its type's range; use dtype = u64");
    return mct_cli_report_status(st, a, "pet");
}

int mct_cli_run_pet(const run_args_t* a, mct_tally_t tally) {
    mct_pet_params_t p = a->cfg.pet;
    p.index = a->pet_index;
    p.ranks = a->ranks ? a->ranks->sim : NULL;
    mct_status_t st = mct_pet_check(&p, tally);
    if (st) return run_status(st, a, &p, tally);
    mct_pet_result_t r;
    if ((st = mct_pet_run(&p, tally, &r))) return run_status(st, a, &p, tally);
    mct_cli_rank_report_t rep;
    const int ranked = mct_cli_ranks_report(a, tally, &rep);
    if (ranked) return ranked == 2 ? 0 : 1;

    int64_t bins = 0;
    mct_pet_bins(&p, p.index, &bins);
    int64_t* counts = malloc((size_t)bins * sizeof *counts);
    if (!counts || mct_tally_sums_i64(tally, counts)) {
        free(counts);
        return mct_cli_error("pet: cannot read the tally's counts (%lld bins)", (long long)bins);
    }
    const char* dir = a->out_dir;
    sim_out_set_t* set = a->outputs;
    char path[4200];
    int64_t entries = 0;
    int rc = mct_cli_make_out_dir(dir);
    snprintf(path, sizeof path, "%s/lors.bin", dir);
    if (!rc && mct_pet_write_lors(set, path, &p, p.index, counts, bins, &r, &entries))
        rc = mct_cli_error("%s", set->error[0] ? set->error : "pet: cannot write the LOR file");
    const int sinogram = p.index != MCT_PET_INDEX_TOTAL;
    snprintf(path, sizeof path, "%s/sinogram.png", dir);
    if (!rc && sinogram && mct_pet_write_sinogram_png(set, path, &p, p.index, counts, bins))
        rc = mct_cli_error("%s", set->error[0] ? set->error : "pet: cannot write the sinogram");
    if (rc) {
        free(counts);
        return rc;
    }

    mct_tally_desc_t d;
    char device[256];
    cJSON* root = mct_cli_result_header(a, &rep, tally, "pet", p.histories, p.seed, p.batches, r.seconds, &d, device,
                                        sizeof device);
    cJSON* t = cJSON_CreateObject();
    cJSON_AddStringToObject(t, "name", "lor");
    cJSON_AddNumberToObject(t, "bins", (double)bins);
    cJSON_AddNumberToObject(t, "total", r.stored);
    cJSON_AddStringToObject(t, "unit", "good events per LOR; lors.bin holds the non-zero counts");
    cJSON* tf = cJSON_AddArrayToObject(t, "files");
    cJSON_AddItemToArray(tf, cJSON_CreateString("lors.bin"));
    mct_cli_add_sums_digest(t, NULL, counts, bins);
    free(counts);
    cJSON_AddItemToArray(cJSON_AddArrayToObject(root, "tallies"), t);

    cJSON* j = cJSON_AddObjectToObject(root, "pet");
    cJSON_AddItemToObject(j, "scanner", scanner_json(&p));
    cJSON_AddItemToObject(j, "source", source_json(&p));
    cJSON_AddStringToObject(j, "index", mct_pet_index_name(p.index));
    cJSON_AddStringToObject(j, "index_requested", mct_pet_index_name(a->cfg.pet.index));
    if (a->pet_index_note[0]) cJSON_AddStringToObject(j, "index_note", a->pet_index_note);
    cJSON_AddStringToObject(j, "key", mct_pet_key_formula(&p, p.index));
    cJSON_AddNumberToObject(j, "decays", r.decays);
    cJSON_AddNumberToObject(j, "good_events", r.good);
    cJSON_AddNumberToObject(j, "stored_events", r.stored);
    cJSON_AddNumberToObject(j, "outside_index", r.outside_index);
    cJSON_AddNumberToObject(j, "efficiency", r.efficiency);
    cJSON_AddNumberToObject(j, "efficiency_binomial_error", r.efficiency_err);
    const double analytic = point_acceptance(&p);
    if (isfinite(analytic)) {
        cJSON_AddNumberToObject(j, "analytic_efficiency", analytic);
        const double se = sqrt(analytic * (1.0 - analytic) / r.decays);
        cJSON_AddNumberToObject(j, "z_score", se > 0.0 ? (r.efficiency - analytic) / se : 0.0);
    }
    cJSON_AddNumberToObject(j, "generation_seconds", r.engine_seconds);
    cJSON_AddNumberToObject(j, "decays_per_second", r.decays / r.engine_seconds);
    cJSON_AddNumberToObject(j, "good_events_per_second", r.good / r.engine_seconds);
    cJSON_AddNumberToObject(j, "lor_entries", (double)entries);
    cJSON* files = cJSON_AddArrayToObject(j, "files");
    cJSON_AddItemToArray(files, cJSON_CreateString("lors.bin"));
    if (sinogram) cJSON_AddItemToArray(files, cJSON_CreateString("sinogram.png"));
    mct_cli_print_run_head(a, "pet", &d, device);
    printf(", %s index: %.0f of %.0f decays good (efficiency %.5f +- %.2g), %.3g good events/s, %.3f s\n",
           mct_pet_index_name(p.index), r.good, r.decays, r.efficiency, r.efficiency_err, r.good / r.engine_seconds,
           r.seconds);
    rc = mct_cli_write_result(a, root);
    cJSON_Delete(root);
    return rc;
}
