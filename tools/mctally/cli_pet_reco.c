/* SPDX-License-Identifier: BSD-3-Clause */
/** @file cli_pet_reco.c  `mctally pet-matrix` (the system matrix from voxel
 * runs) and `mctally pet-reco` (MLEM reconstruction of a pet run's LORs), and
 * the reader of the PET files (README "PET files"). */
#define _POSIX_C_SOURCE 200809L
#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "pet_files.h"
#include "pet_reco.h"

/* ---- Reading a PET file ----------------------------------------------------------- */

/* The largest header accepted (the matrix's per-ring arrays included). */
#define PET_FILE_MAX_HEADER ((uint64_t)64 << 20)

typedef struct {
    cJSON* header;
    int64_t entries;
    uint32_t* key;
    uint64_t* count;
} pet_file_t;

static void pet_file_free(pet_file_t* f) {
    cJSON_Delete(f->header);
    free(f->key), free(f->count);
    memset(f, 0, sizeof *f);
}

static uint64_t get_le(const unsigned char* b, int bytes) {
    uint64_t v = 0;
    for (int i = bytes - 1; i >= 0; --i) v = (v << 8) | b[i];
    return v;
}

/* A number of the header that is a whole number in [lo, hi]; 1 after a message. */
static int header_int(const char* path, const cJSON* h, const char* key, double lo, double hi, int64_t* out) {
    const cJSON* j = cJSON_GetObjectItemCaseSensitive(h, key);
    if (!cJSON_IsNumber(j) || j->valuedouble != floor(j->valuedouble) || j->valuedouble < lo || j->valuedouble > hi)
        return mct_cli_error("%s: header field \"%s\" missing or not a whole number in [%.0f, %.0f]", path, key, lo, hi);
    *out = (int64_t)j->valuedouble;
    return 0;
}

static int header_num(const char* path, const cJSON* h, const char* key, double* out) {
    const cJSON* j = cJSON_GetObjectItemCaseSensitive(h, key);
    if (!cJSON_IsNumber(j) || !isfinite(j->valuedouble)) return mct_cli_error("%s: header field \"%s\" missing or not a number", path, key);
    *out = j->valuedouble;
    return 0;
}

static const char* header_str(const cJSON* h, const char* key) {
    const cJSON* j = cJSON_GetObjectItemCaseSensitive(h, key);
    return cJSON_IsString(j) ? j->valuestring : "";
}

/* Reads a PET file of the given format ("mctally PET LOR counts", ...):
 * magic, header, (key uint32, count uint32|uint64) records; 1 after a message
 * naming what is wrong. */
static int pet_file_read(const char* path, const char* format, pet_file_t* out) {
    memset(out, 0, sizeof *out);
    FILE* f = NULL;
    if (mct_cli_open_regular(path, format, &f)) return 1;
    unsigned char head[16];
    int rc = 0;
    if (fread(head, 1, 16, f) != 16 || memcmp(head, MCT_PET_FILE_MAGIC, MCT_PET_FILE_MAGIC_BYTES))
        rc = mct_cli_error("%s: not a PET file (no \"%s\" magic)", path, MCT_PET_FILE_MAGIC);
    const uint64_t hlen = rc ? 0 : get_le(head + 8, 8);
    if (!rc && (hlen < 2 || hlen > PET_FILE_MAX_HEADER)) rc = mct_cli_error("%s: header length %llu out of range", path, (unsigned long long)hlen);
    char* text = rc ? NULL : malloc(hlen + 1);
    if (!rc && !text) rc = mct_cli_error("out of memory");
    if (!rc && fread(text, 1, hlen, f) != hlen) rc = mct_cli_error("%s: truncated header", path);
    if (!rc) {
        text[hlen] = '\0';
        out->header = cJSON_ParseWithLength(text, hlen);
        if (!out->header) rc = mct_cli_error("%s: the header is not JSON", path);
    }
    free(text);
    if (!rc && strcmp(header_str(out->header, "format"), format))
        rc = mct_cli_error("%s: a \"%s\" file, expected \"%s\"", path, header_str(out->header, "format"), format);
    const cJSON* rec = rc ? NULL : cJSON_GetObjectItemCaseSensitive(out->header, "record");
    int count_bytes = 0;
    if (!rc && cJSON_GetArraySize(rec) == 4 && cJSON_IsString(cJSON_GetArrayItem(rec, 1)) &&
        cJSON_IsString(cJSON_GetArrayItem(rec, 3)) && !strcmp(cJSON_GetArrayItem(rec, 1)->valuestring, "uint32"))
        count_bytes = !strcmp(cJSON_GetArrayItem(rec, 3)->valuestring, "uint32")   ? 4
                      : !strcmp(cJSON_GetArrayItem(rec, 3)->valuestring, "uint64") ? 8
                                                                                   : 0;
    if (!rc && !count_bytes) rc = mct_cli_error("%s: unknown record layout", path);
    if (!rc) rc = header_int(path, out->header, "entries", 0, 9e15, &out->entries);
    struct stat sb;
    const uint64_t start = 16 + hlen, size = 4 + (uint64_t)count_bytes;
    if (!rc && (fstat(fileno(f), &sb) || (uint64_t)sb.st_size != start + (uint64_t)out->entries * size))
        rc = mct_cli_error("%s: %lld bytes, expected %llu for %lld records (truncated or corrupt)", path,
                           (long long)sb.st_size, (unsigned long long)(start + (uint64_t)out->entries * size),
                           (long long)out->entries);
    if (!rc) {
        out->key = malloc((size_t)(out->entries ? out->entries : 1) * sizeof *out->key);
        out->count = malloc((size_t)(out->entries ? out->entries : 1) * sizeof *out->count);
        if (!out->key || !out->count) rc = mct_cli_error("out of memory (%lld records of %s)", (long long)out->entries, path);
    }
    unsigned char buf[16 * 4096];
    for (int64_t i = 0; !rc && i < out->entries;) {
        const int64_t n = out->entries - i < 4096 ? out->entries - i : 4096;
        if (fread(buf, (size_t)size, (size_t)n, f) != (size_t)n) {
            rc = mct_cli_error("%s: read error", path);
            break;
        }
        for (int64_t j = 0; j < n; ++j, ++i) {
            out->key[i] = (uint32_t)get_le(buf + j * size, 4);
            out->count[i] = get_le(buf + j * size + 4, count_bytes);
        }
    }
    fclose(f);
    if (rc) pet_file_free(out);
    return rc;
}

/* The scanner of a file's header into p (crystals, rings, sizes, doi). */
static int header_scanner(const char* path, const cJSON* h, mct_pet_params_t* p) {
    int64_t crystals = 0, rings = 0, doi = 0, mrd = 0;
    mct_pet_params_init(p);
    if (header_int(path, h, "crystals", 8, 512, &crystals) || header_int(path, h, "rings", 1, 128, &rings) ||
        header_int(path, h, "doi", 0, 1, &doi) || header_int(path, h, "max_ring_diff", 0, 127, &mrd) ||
        header_num(path, h, "crystal_mm", &p->crystal_mm) || header_num(path, h, "depth_mm", &p->depth_mm) ||
        header_num(path, h, "attenuation_mm", &p->attenuation_mm))
        return 1;
    p->crystals = (int)crystals, p->rings = (int)rings, p->doi = (int)doi, p->max_ring_diff = (int)mrd;
    return 0;
}

/* ---- Shared by the two commands ------------------------------------------------------- */

static void show_progress(void* ctx, int done, int total) {
    fprintf(stderr, "\r  %s %d / %d%s", (const char*)ctx, done, total, done == total ? "\n" : "");
    fflush(stderr);
}

static int want_progress(void) { return isatty(STDERR_FILENO) && !getenv("CI"); }

/* "--flag value" pairs: the value of flag, or NULL. */
static const char* flag_value(int argc, char** argv, const char* flag) {
    for (int i = 0; i + 1 < argc; ++i)
        if (!strcmp(argv[i], flag)) return argv[i + 1];
    return NULL;
}

/* Every argument is a known "--flag value" pair (or, first, one positional
 * when `positional`); 1 after a message. */
static int check_flags(const char* cmd, int argc, char** argv, const char* const* known, int positional) {
    for (int i = positional; i < argc; i += 2) {
        int ok = 0;
        for (const char* const* k = known; *k; ++k) ok |= !strcmp(argv[i], *k);
        if (!ok) return mct_cli_error("%s: unknown option '%s' (try: mctally %s --help)", cmd, argv[i], cmd);
        if (i + 1 >= argc) return mct_cli_error("%s: option %s needs a value", cmd, argv[i]);
    }
    return 0;
}

/* ---- mctally pet-matrix ------------------------------------------------------------- */

static const char matrix_usage[] =
    "usage: mctally pet-matrix FILE.ini [--voxels R] [--histories N] [--seed S] [--backend B]\n"
    "                          [--method M] [--dtype i32|u64] [--min-count K] [--min-fraction F]\n"
    "                          [--out FILE]\n"
    "Builds the system matrix of the scanner in FILE.ini's [pet] section (crystals,\n"
    "rings, crystal_mm, depth_mm, doi, attenuation_mm, radial_step_mm): one voxel run\n"
    "per radial ring r = 0 .. R-1 (default 100, the book's grid) of N decays each\n"
    "(default: the file's histories; seed + r for ring r) into the compressed index\n"
    "of its base LORs; an entry is kept when its count is at least K (default 1)\n"
    "and F times the largest of the entries with its first end (default 0; the\n"
    "book cuts at 0.03). Writes FILE (default sysmat.bin) in the format of README\n"
    "\"PET files\".\n";

int mct_cli_pet_matrix(int argc, char** argv) {
    if (argc < 1 || !strcmp(argv[0], "--help") || !strcmp(argv[0], "-h")) {
        fputs(matrix_usage, argc < 1 ? stderr : stdout);
        return argc < 1;
    }
    static const char* const known[] = {"--voxels", "--histories", "--seed", "--backend", "--method", "--dtype",
                                        "--min-count", "--min-fraction", "--out", NULL};
    if (check_flags("pet-matrix", argc, argv, known, 1)) return 1;
    mct_cli_config_t* cfg = malloc(sizeof *cfg);
    if (!cfg) return mct_cli_error("out of memory");
    int rc = mct_cli_config_load(argv[0], cfg);
    if (!rc && strcmp(cfg->type, "pet")) rc = mct_cli_error("pet-matrix: %s is a [problem] type = %s file, not pet", argv[0], cfg->type);
    int64_t voxels = 100, min_count = 1;
    double min_fraction = 0.0;
    mct_backend_t backend = MCT_BACKEND_AUTO;
    const char *v, *out = "sysmat.bin";
    if (!rc && (v = flag_value(argc, argv, "--voxels")) && mct_cli_parse_i64(v, 1, 65535, &voxels))
        rc = mct_cli_error("--voxels %s: expected a whole number 1 .. 65535", v);
    if (!rc && (v = flag_value(argc, argv, "--histories")) && mct_cli_parse_i64(v, 1, INT64_MAX, &cfg->histories))
        rc = mct_cli_error("--histories %s: expected a whole number >= 1", v);
    if (!rc && (v = flag_value(argc, argv, "--seed")) && mct_cli_parse_u64(v, &cfg->seed))
        rc = mct_cli_error("--seed %s: expected a whole number 0 .. 2^64-1", v);
    if (!rc && (v = flag_value(argc, argv, "--backend")) && mct_backend_from_name(v, &backend))
        rc = mct_cli_error("--backend %s: unknown backend (auto, cpu, cuda, emulated)", v);
    if (!rc && (v = flag_value(argc, argv, "--method")) && mct_method_from_name(v, &cfg->method))
        rc = mct_cli_error("--method %s: unknown method (see: mctally methods)", v);
    if (!rc && (v = flag_value(argc, argv, "--dtype")) && mct_dtype_from_name(v, &cfg->dtype))
        rc = mct_cli_error("--dtype %s: unknown type (i32, u64)", v);
    if (!rc && (v = flag_value(argc, argv, "--min-count")) && mct_cli_parse_i64(v, 1, INT64_MAX, &min_count))
        rc = mct_cli_error("--min-count %s: expected a whole number >= 1", v);
    if (!rc && (v = flag_value(argc, argv, "--min-fraction")) && (mct_cli_parse_f64(v, 0.0, &min_fraction) || min_fraction >= 1.0))
        rc = mct_cli_error("--min-fraction %s: expected a fraction 0 .. 1 (below 1)", v);
    if ((v = flag_value(argc, argv, "--out"))) out = v;
    if (!rc && cfg->dtype != MCT_DTYPE_I32 && cfg->dtype != MCT_DTYPE_U64)
        rc = mct_cli_error("pet-matrix: the matrix counts events: use dtype = i32 or u64, not %s", mct_dtype_name(cfg->dtype));
    mct_pet_params_t p = cfg->pet;
    p.histories = cfg->histories, p.batches = 1, p.seed = cfg->seed;
    p.source = MCT_PET_SOURCE_VOXEL, p.voxel_c = 0, p.voxel_r = (int)voxels - 1, p.index = MCT_PET_INDEX_COMPRESSED;
    char why[512];
    if (!rc && mct_pet_validate(&p, why, sizeof why)) rc = mct_cli_error("pet-matrix: %s", why);
    if (!rc && p.histories > INT32_MAX && cfg->dtype == MCT_DTYPE_I32)
        rc = mct_cli_error("pet-matrix: %lld decays per voxel could pass an i32 bin; use dtype = u64", (long long)p.histories);
    sim_out_install_signals();
    if (!rc && sim_out_protect(argv[0])) rc = mct_cli_error("pet-matrix: too many inputs");
    if (!rc) rc = mct_cli_check_out_file(out);
    mct_tally_t tally = NULL;
    if (!rc) {
        mct_tally_desc_t d;
        mct_tally_desc_init(&d);
        mct_pet_bins(&p, MCT_PET_INDEX_COMPRESSED, &d.bins);
        d.dtype = cfg->dtype, d.method = cfg->method, d.backend = backend, d.adds = MCT_ADDS_KERNEL;
        mct_status_t st = mct_tally_create(&tally, &d);
        if (st == MCT_STATUS_TOO_LARGE || st == MCT_STATUS_OUT_OF_MEMORY)
            rc = mct_cli_error("pet-matrix: the compressed index of the voxel's LORs (%lld bins) does not fit in memory",
                               (long long)d.bins);
        else if (st)
            rc = mct_cli_error("pet-matrix: cannot create the tally: %s (%s)", mct_status_string(st), mct_status_name(st));
    }
    mct_pet_matrix_t m;
    memset(&m, 0, sizeof m);
    if (!rc) {
        mct_status_t st = mct_pet_matrix_build(&p, (int)voxels, min_count, min_fraction, tally,
                                               want_progress() ? show_progress : NULL,
                                               (void*)"voxel rings", &m);
        if (st) rc = mct_cli_error("pet-matrix: %s (%s)", mct_status_string(st), mct_status_name(st));
    }
    if (!rc) {
        sim_out_set_t* set = malloc(sizeof *set);
        if (!set) rc = mct_cli_error("out of memory");
        if (set) {
            sim_out_init(set);
            if (mct_pet_matrix_write(set, out, &p, &m) || sim_out_commit(set, NULL, 0)) {
                sim_out_abort(set);
                rc = mct_cli_error("%s", set->error[0] ? set->error : "pet-matrix: cannot write the matrix");
            }
            free(set);
        }
    }
    if (!rc) {
        mct_tally_desc_t d;
        char device[256];
        mct_tally_get_desc(tally, &d);
        mct_tally_device_name(tally, device, sizeof device);
        printf("pet-matrix: %lld voxel rings x %.3g decays on %s (%s), %s %s: %lld entries (%.3g %% of the events "
               "cut), efficiency %.4f (ring 0) .. %.4f (ring %lld), generation %.3f s, %.3f s in all; wrote %s\n",
               (long long)voxels, m.decays, mct_backend_name(d.backend), device, mct_method_name(d.method),
               mct_dtype_name(d.dtype), (long long)m.entries, 100.0 * m.dropped / (m.stored > 0 ? m.stored : 1.0),
               m.efficiency[0], m.efficiency[voxels - 1], (long long)voxels - 1, m.generation_seconds, m.seconds, out);
    }
    mct_pet_matrix_free(&m);
    mct_tally_destroy(tally);
    free(cfg);
    return rc;
}

/* ---- mctally pet-reco --------------------------------------------------------------- */

static const char reco_usage[] =
    "usage: mctally pet-reco --matrix SYSMAT.bin --lors LORS.bin [--iterations N]\n"
    "                        [--backend B] [--method M] [--dtype f64|f32] [--out DIR]\n"
    "MLEM reconstruction of a pet run's LOR counts (LORS.bin of a physical source,\n"
    "full or compressed index) with a system matrix of the same scanner\n"
    "(`mctally pet-matrix`): N iterations (default 20) from a uniform image, each\n"
    "back projection a tally of the method M over the polar voxels. Writes\n"
    "DIR/result.json (the log-likelihood per iteration, the times), DIR/reco.mhd\n"
    "and .raw (the activity density on a Cartesian grid, MetaImage, mm) and\n"
    "DIR/reco.png (its middle slice); DIR defaults to out.\n";

/* The measured counts in the compressed physical index, from a LOR file. */
static float* measured_counts(const char* path, const pet_file_t* f, const mct_pet_params_t* scanner, int64_t* bins,
                              double* total) {
    mct_pet_params_t p = *scanner;
    p.source = MCT_PET_SOURCE_POINT; /* a physical source: the LORs (z1, c1, z2, c2) */
    const char* index = header_str(f->header, "index");
    const mct_pet_index_t from = !strcmp(index, "full") ? MCT_PET_INDEX_FULL
                                 : !strcmp(index, "compressed") ? MCT_PET_INDEX_COMPRESSED
                                                                : MCT_PET_INDEX_AUTO;
    if (!strcmp(header_str(f->header, "source"), "voxel")) {
        mct_cli_error("pet-reco: %s holds a voxel run (system-matrix geometry), not measured data", path);
        return NULL;
    }
    if (from == MCT_PET_INDEX_AUTO) {
        mct_cli_error("pet-reco: %s: the %s index has no LORs to reconstruct (use index = full or compressed)", path, index);
        return NULL;
    }
    int64_t from_bins = 0;
    if (mct_pet_bins(&p, MCT_PET_INDEX_COMPRESSED, bins) || mct_pet_bins(&p, from, &from_bins) ||
        header_int(path, f->header, "bins", (double)from_bins, (double)from_bins, &from_bins)) {
        mct_cli_error("pet-reco: %s: its bins are not the %s index's of its scanner", path, index);
        return NULL;
    }
    float* m = calloc((size_t)*bins, sizeof *m);
    if (!m) {
        mct_cli_error("out of memory");
        return NULL;
    }
    *total = 0.0;
    for (int64_t i = 0; i < f->entries; ++i) {
        int64_t k = f->key[i];
        if (k >= from_bins) {
            free(m);
            mct_cli_error("pet-reco: %s: key %lld outside its index", path, (long long)k);
            return NULL;
        }
        if (from == MCT_PET_INDEX_FULL) {
            mct_pet_lor_t l;
            mct_pet_lor_of_key(&p, from, k, &l);
            k = mct_pet_key_of_lor(&p, MCT_PET_INDEX_COMPRESSED, &l); /* the physical source's LORs all have one */
            if (k < 0) continue;
        }
        m[k] += (float)f->count[i];
        *total += (double)f->count[i];
    }
    return m;
}

int mct_cli_pet_reco(int argc, char** argv) {
    if (argc < 1 || !strcmp(argv[0], "--help") || !strcmp(argv[0], "-h")) {
        fputs(reco_usage, argc < 1 ? stderr : stdout);
        return argc < 1;
    }
    static const char* const known[] = {"--matrix", "--lors", "--iterations", "--backend", "--method", "--dtype", "--out", NULL};
    if (check_flags("pet-reco", argc, argv, known, 0)) return 1;
    const char *smp = flag_value(argc, argv, "--matrix"), *lorp = flag_value(argc, argv, "--lors");
    const char* dir = flag_value(argc, argv, "--out");
    if (!dir) dir = "out";
    if (!smp || !lorp) return mct_cli_error("pet-reco: --matrix FILE and --lors FILE are required (try: mctally pet-reco --help)");
    int64_t iterations = 20;
    mct_tally_desc_t d;
    mct_tally_desc_init(&d);
    d.dtype = MCT_DTYPE_F64;
    d.adds = MCT_ADDS_KERNEL;
    const char* v;
    if ((v = flag_value(argc, argv, "--iterations")) && mct_cli_parse_i64(v, 1, 100000, &iterations))
        return mct_cli_error("--iterations %s: expected a whole number 1 .. 100000", v);
    if ((v = flag_value(argc, argv, "--backend")) && mct_backend_from_name(v, &d.backend))
        return mct_cli_error("--backend %s: unknown backend (auto, cpu, cuda, emulated)", v);
    if ((v = flag_value(argc, argv, "--method")) && mct_method_from_name(v, &d.method))
        return mct_cli_error("--method %s: unknown method (see: mctally methods)", v);
    if ((v = flag_value(argc, argv, "--dtype")) && (mct_dtype_from_name(v, &d.dtype) || (d.dtype != MCT_DTYPE_F32 && d.dtype != MCT_DTYPE_F64)))
        return mct_cli_error("--dtype %s: the back projection sums fractions: f64 or f32", v);
    sim_out_install_signals();
    if (sim_out_protect(smp) || sim_out_protect(lorp)) return mct_cli_error("pet-reco: too many inputs");
    if (mct_cli_check_out_dir(dir)) return 1;

    pet_file_t sm, lf;
    memset(&lf, 0, sizeof lf);
    if (pet_file_read(smp, "mctally PET system matrix", &sm)) return 1;
    int rc = pet_file_read(lorp, "mctally PET LOR counts", &lf);
    mct_pet_params_t ps, pl;
    int64_t voxels = 0;
    double decays = 0.0, step = 0.0;
    if (!rc) rc = header_scanner(smp, sm.header, &ps) || header_scanner(lorp, lf.header, &pl) ||
                  header_int(smp, sm.header, "voxels", 1, 65535, &voxels) ||
                  header_num(smp, sm.header, "decays_per_voxel", &decays) ||
                  header_num(smp, sm.header, "radial_step_mm", &step);
    if (!rc && (ps.crystals != pl.crystals || ps.rings != pl.rings || ps.crystal_mm != pl.crystal_mm))
        rc = mct_cli_error("pet-reco: the matrix is of a %d x %d scanner of %g mm crystals, the LORs of a %d x %d one of %g mm",
                           ps.crystals, ps.rings, ps.crystal_mm, pl.crystals, pl.rings, pl.crystal_mm);
    if (!rc && !(decays >= 1.0 && step > 0.0)) rc = mct_cli_error("pet-reco: %s: bad decays_per_voxel or radial_step_mm", smp);
    if (!rc && ps.doi != pl.doi)
        printf("pet-reco: note: the matrix was made %s depth of interaction, the LORs %s\n", ps.doi ? "with" : "without",
               pl.doi ? "with" : "without");
    /* The matrix: ring starts, keys decoded. */
    mct_pet_matrix_t m;
    memset(&m, 0, sizeof m);
    mct_pet_sm_entry_t* entries = NULL;
    if (!rc) {
        const cJSON* starts = cJSON_GetObjectItemCaseSensitive(sm.header, "ring_start");
        m.voxels = (int)voxels, m.decays = decays, m.entries = sm.entries, m.key = sm.key, m.count = sm.count;
        m.start = malloc(((size_t)voxels + 1) * sizeof *m.start);
        if (!m.start || cJSON_GetArraySize(starts) != voxels + 1) rc = mct_cli_error("%s: ring_start must list voxels + 1 entries", smp);
        for (int r = 0; !rc && r <= voxels; ++r) {
            const cJSON* j = cJSON_GetArrayItem(starts, r);
            m.start[r] = cJSON_IsNumber(j) ? (int64_t)j->valuedouble : -1;
            if (m.start[r] < (r ? m.start[r - 1] : 0) || m.start[r] > sm.entries || (r == voxels && m.start[r] != sm.entries))
                rc = mct_cli_error("%s: ring_start is not an ascending list ending at the entries", smp);
        }
        ps.radial_step_mm = step;
        if (!rc && !(entries = mct_pet_reco_entries(&ps, &m))) rc = mct_cli_error("%s: a key outside the compressed index", smp);
    }
    int64_t lor_bins = 0;
    double measured_total = 0.0;
    float* measured = rc ? NULL : measured_counts(lorp, &lf, &pl, &lor_bins, &measured_total);
    if (!rc && !measured) rc = 1;
    mct_pet_reco_params_t rp = {ps.crystals, ps.rings, (int)voxels, step, ps.crystal_mm, entries, sm.entries, measured,
                                lor_bins, (int)iterations, want_progress() ? show_progress : NULL, (void*)"iterations"};
    mct_pet_reco_result_t res;
    memset(&res, 0, sizeof res);
    if (!rc) {
        mct_status_t st = mct_pet_reco_run(&rp, &d, &res);
        if (st == MCT_STATUS_BACKEND_UNAVAILABLE)
            rc = mct_cli_error("pet-reco: backend %s is not available here (no GPU, or built without CUDA)", mct_backend_name(d.backend));
        else if (st)
            rc = mct_cli_error("pet-reco: %s (%s)", mct_status_string(st), mct_status_name(st));
    }
    sim_out_set_t* set = rc ? NULL : malloc(sizeof *set);
    if (!rc && !set) rc = mct_cli_error("out of memory");
    if (!rc) {
        sim_out_init(set);
        int n = 0;
        float* grid = mct_pet_reco_cartesian(&rp, res.activity, &n);
        rc = mct_cli_make_out_dir(dir);
        if (!rc && (!grid || mct_pet_reco_write(set, dir, "reco", &rp, grid, n)))
            rc = mct_cli_error("%s", set->error[0] ? set->error : "pet-reco: cannot write the image");
        free(grid);
        mct_tally_t probe = NULL;
        mct_tally_desc_t pd = d;
        pd.bins = (int64_t)voxels * ps.rings * ps.crystals;
        char device[256] = "unknown";
        mct_determinism_t det = MCT_NOT_GUARANTEED;
        if (mct_tally_create(&probe, &pd) == MCT_STATUS_SUCCESS) {
            mct_tally_get_desc(probe, &pd);
            mct_tally_device_name(probe, device, sizeof device);
            mct_tally_determinism(probe, &det);
        }
        mct_tally_destroy(probe);
        cJSON* root = cJSON_CreateObject();
        cJSON_AddStringToObject(root, "mctally_version", mct_version());
        cJSON_AddStringToObject(root, "problem", "pet-reco");
        cJSON_AddStringToObject(root, "matrix", smp);
        cJSON_AddStringToObject(root, "lors", lorp);
        cJSON_AddStringToObject(root, "backend", mct_backend_name(pd.backend));
        cJSON_AddStringToObject(root, "device", device);
        cJSON_AddStringToObject(root, "method", mct_method_name(pd.method));
        cJSON_AddStringToObject(root, "dtype", mct_dtype_name(pd.dtype));
        cJSON_AddStringToObject(root, "determinism", mct_determinism_name(det));
        cJSON_AddNumberToObject(root, "iterations", res.iterations);
        cJSON_AddNumberToObject(root, "voxels", (double)pd.bins);
        cJSON_AddNumberToObject(root, "radial_rings", (double)voxels);
        cJSON_AddNumberToObject(root, "matrix_entries", (double)sm.entries);
        cJSON_AddNumberToObject(root, "measured_events", measured_total);
        cJSON_AddNumberToObject(root, "seconds", res.seconds);
        cJSON_AddNumberToObject(root, "seconds_per_iteration", res.seconds / res.iterations);
        cJSON_AddNumberToObject(root, "forward_seconds", res.forward_seconds);
        cJSON_AddNumberToObject(root, "back_seconds", res.back_seconds);
        cJSON* ll = cJSON_AddArrayToObject(root, "log_likelihood");
        for (int i = 0; i < res.iterations; ++i) cJSON_AddItemToArray(ll, cJSON_CreateNumber(res.loglik[i]));
        cJSON_AddStringToObject(root, "image", "reco.mhd: decays per mm^3 on a Cartesian grid (mm); reco.png: its middle slice");
        char* text = cJSON_Print(root);
        cJSON_Delete(root);
        char path[4200];
        snprintf(path, sizeof path, "%s/result.json", dir);
        FILE* f = rc || !text ? NULL : sim_out_begin(set, path);
        if (!rc && !(f && fputs(text, f) >= 0 && fputc('\n', f) != EOF && sim_out_end(set, f) == 0))
            rc = mct_cli_error("%s", set->error[0] ? set->error : "pet-reco: cannot write result.json");
        free(text);
        static const char* const stale[] = {"result.json", "reco.mhd", "reco.raw", "reco.png"};
        char stale_paths[4][4200];
        const char* stale_names[4];
        for (int i = 0; i < 4; ++i) {
            snprintf(stale_paths[i], sizeof stale_paths[i], "%s/%s", dir, stale[i]);
            stale_names[i] = stale_paths[i];
        }
        if (!rc && sim_out_commit(set, stale_names, 4)) rc = mct_cli_error("%s", set->error);
        sim_out_abort(set);
        if (!rc)
            printf("pet-reco: %d MLEM iterations of %lld voxels, %lld matrix entries, %.0f events on %s (%s), %s %s: "
                   "%.3f s per iteration; wrote %s/result.json, reco.mhd, reco.png\n",
                   res.iterations, (long long)pd.bins, (long long)sm.entries, measured_total, mct_backend_name(pd.backend),
                   device, mct_method_name(pd.method), mct_dtype_name(pd.dtype), res.seconds / res.iterations, dir);
    }
    free(set);
    mct_pet_reco_result_free(&res);
    free(measured);
    free(entries);
    free(m.start);
    pet_file_free(&sm);
    pet_file_free(&lf);
    return rc;
}
