/* SPDX-License-Identifier: BSD-3-Clause */
/** @file cli.h  Internal interfaces of the mctally command-line tool. */
#ifndef MCT_CLI_H
#define MCT_CLI_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "escape.h"
#include "pet.h"
#include "phantom.h"
#include "scatter.h"
#include "sim_checkpoint.h"
#include "sim_output.h"
#include "tally_only.h"
#include "cli_flags.h"
#include "mctally/mct.h"

/** The [phantom] section's geometry keys (cli_geometry.c builds from them). */
typedef enum { MCT_CLI_GEOMETRY_CUBE = 0, MCT_CLI_GEOMETRY_SLABS = 1, MCT_CLI_GEOMETRY_IMAGE = 2 } mct_cli_geometry_kind_t;

/** The most slabs of a problem file (over all its `slabs` lines). */
#define MCT_CLI_MAX_SLABS 64
/** The most depths of `lateral_depths`. */
#define MCT_CLI_MAX_LATERAL_DEPTHS 32
/** The standard errors a lateral comparison allows beyond its 2 % / 1 mm
 * when the file does not say (lateral_k), as the depth-dose comparison's. */
#define MCT_CLI_LATERAL_K 3.0

typedef struct {
    mct_cli_geometry_kind_t kind;  /* geometry = cube | slabs | image */
    unsigned given;                /* the keys the file gave (bit per key, cli_config.c) */
    char material[32];             /* cube: the material (water) */
    double density;                /* cube: g/cm3; 0: the material's nominal density */
    int nslabs;
    mct_phantom_slab_t slab[MCT_CLI_MAX_SLABS]; /* slabs: front to back */
    double depth_voxel_cm;         /* slabs: dz (0.1) */
    char image[4096];              /* image: HU, or material indices with density_image; resolved path */
    char density_image[4096];      /* image: densities (g/cm3); "" none */
    int nimage_materials;          /* image with density_image: the names of indices 0, 1, ... */
    char image_materials[MCT_PHANTOM_MAX_MATERIALS][32];
    char calibration[4096];        /* image: HU table file; "" the default */
    char materials[4096];          /* a material list file; "" none */
    char reference[4096];          /* a depth-dose CSV (depth_cm,width_cm,mev,err) to compare with; "" none */
    char lateral_reference[4096];  /* a lateral dose CSV (MCT_PHANTOM_LATERAL_HEADER) to compare with; "" none */
    int nlateral_depths;           /* lateral_depths: the slabs to compare (0: every slab inside the phantom) */
    double lateral_depths[MCT_CLI_MAX_LATERAL_DEPTHS];
    double lateral_scale;          /* lateral_scale: the file's dose to MeV/g per particle; 0: integral normalisation */
    double lateral_k;              /* lateral_k: standard errors allowed (MCT_CLI_LATERAL_K when not given) */
} mct_cli_geometry_t;

/** A problem file after parsing, before command-line overrides. */
typedef struct {
    char type[32];
    int64_t histories;
    uint64_t seed;
    int64_t batches;
    mct_method_t method;           /* AUTO unless the file or a flag names one */
    mct_dtype_t dtype;
    mct_determinism_t determinism; /* what the planner must meet */
    mct_plan_mode_t plan_mode;
    char wisdom[4096];             /* wisdom file; "" none */
    mct_escape_params_t escape;
    mct_phantom_params_t phantom;
    mct_cli_geometry_t phantom_geometry;
    mct_tally_only_params_t tally_only;
    mct_scatter_params_t scatter;
    mct_pet_params_t pet;
} mct_cli_config_t;

/** Prints "mctally: <message>" to stderr; returns 1 (the exit code of errors). */
int mct_cli_error(const char* fmt, ...);

/** Before a run: `dir` is a writable directory or can be made in one; `path` can be
 * written as a file (sim_out_check: absent or a regular file that is no input,
 * in a writable directory). Print one clear message and return 1 otherwise. */
int mct_cli_check_out_dir(const char* dir);
int mct_cli_check_out_file(const char* path);

/** The longest line of a problem file, in bytes without its line end: inih
 * reads lines into a buffer of a size fixed when it is built (Debian: 200
 * bytes with the NUL), and a longer line is refused rather than split. */
#define MCT_CLI_INI_MAX_LINE 199
/** The largest problem file read. */
#define MCT_CLI_INI_MAX_BYTES ((size_t)1 << 20)

/** Reads and checks a problem file; prints one clear message and returns
 * non-zero on the first problem found. */
int mct_cli_config_load(const char* path, mct_cli_config_t* cfg);
/** The same for a problem file's text (`len` bytes, any bytes; `name` for the
 * messages, "name:line: what"); cfg gets the defaults first. */
int mct_cli_config_parse(const char* text, size_t len, const char* name, mct_cli_config_t* cfg);
/** The defaults of every key. */
void mct_cli_config_defaults(mct_cli_config_t* cfg);

/** The one number parser of problem files and flags, decimal only (no hex,
 * inf or nan, no blanks); 0 on success. i64: a decimal integer or an exactly
 * integral value in scientific notation ("1e8") within [min, max]; u64:
 * decimal digits 0 .. 2^64-1; f64: a finite decimal number >= min. */
int mct_cli_parse_i64(const char* text, int64_t min, int64_t max, int64_t* out);
int mct_cli_parse_u64(const char* text, uint64_t* out);
int mct_cli_parse_f64(const char* text, double min, double* out);

/** FNV-1a (64 bits) of n bytes, continuing from h (MCT_CLI_FNV1A_INIT to start): the
 * checkpoints' checksum and the digest of a tally's sums in result.json. It detects
 * any difference, not tampering. */
#define MCT_CLI_FNV1A_INIT UINT64_C(0xcbf29ce484222325)
uint64_t mct_cli_fnv1a(uint64_t h, const void* p, size_t n);

/** Opens `path` for reading when it is a regular file (or a link to one): a
 * directory, FIFO, device or socket is refused before it is opened, with a
 * message naming `what` ("keys file"); 1 after a message. */
int mct_cli_open_regular(const char* path, const char* what, FILE** out);
/** Reads the regular file `path` whole, at most `max_bytes`, into *data
 * (malloc'd, NUL after the last byte); 1 after a message. */
int mct_cli_read_file(const char* path, const char* what, size_t max_bytes, char** data, size_t* size);

/** The processes of one `run` (cli_ranks.c, the only part of the tool that
 * names MPI): the ranks mpirun started, sharing the run through
 * libmctally_mpi. A run with no launcher has none (NULL). Every call but
 * `failure` is collective. */
typedef struct mct_cli_ranks mct_cli_ranks_t;
struct mct_cli_ranks {
    int rank, size;
    int local_rank;                   /* among the ranks of this machine: picks its GPU */
    const mct_sim_ranks_t* sim;       /* for the problems, once a tally is attached */
    /* Every rank's status combined (mct_dist_agree): SUCCESS, this rank's own
     * failure, or PEER_FAILED (failure() then names the rank). */
    mct_status_t (*agree)(mct_cli_ranks_t* r, mct_status_t local);
    /* Rank 0's value to every rank. */
    mct_status_t (*broadcast)(mct_cli_ranks_t* r, int64_t* value);
    /* The ranks' tallies made one (mct_dist_create); `sim` is set after it. */
    mct_status_t (*attach)(mct_cli_ranks_t* r, mct_tally_t tally, int transport);
    /* After a successful run: the combined determinism, and what the
     * reduction cost (transport name, seconds, bytes). */
    mct_status_t (*report)(mct_cli_ranks_t* r, mct_determinism_t* det, const char** transport, double* agree_s,
                           double* reduce_s, double* bytes);
    /* The rank and status of the failure the last agreement saw. */
    void (*failure)(const mct_cli_ranks_t* r, int* rank, mct_status_t* status);
    /* Ends every rank now (after a failure the ranks cannot agree on). */
    void (*abort)(mct_cli_ranks_t* r, int code);
    void* impl;
};

/** Starts the ranks when mpirun (or another MPI launcher) started this
 * process: *out is NULL without one. 1 after a message when it cannot (a
 * build without MPI under a launcher of several ranks). */
int mct_cli_ranks_start(int* argc, char*** argv, mct_cli_ranks_t** out);
/** Ends them (MPI_Finalize); NULL is fine. */
void mct_cli_ranks_stop(mct_cli_ranks_t* r);

/** `mctally run`'s arguments after parsing: the problem file read, the flags
 * applied over it. */
typedef struct {
    const char* file;
    const char* out_dir;
    mct_backend_t backend;
    mct_cli_config_t cfg;
    int loss_sample_log2; /* -1: off */
    double loss_threshold;
    sim_out_set_t* outputs;  /* every file of the run, committed with result.json */
    const char* checkpoint;  /* --checkpoint FILE */
    int64_t checkpoint_every;
    const char* resume;      /* --resume FILE */
    mct_sim_checkpoint_t cp; /* handed to the problem */
    mct_cli_ranks_t* ranks;  /* the run's ranks, NULL for one process */
    int reduce;              /* --reduce: 0 auto, 1 host, 2 nccl (mct_dist_transport_t) */
    mct_pet_index_t pet_index; /* pet: the LOR index the tally was made for (mct_cli_pet_create) */
    char pet_index_note[256];  /* pet: why, when `auto` did not give the full map */
    mct_phantom_geometry_t geometry; /* phantom: what cfg.phantom_geometry built (cfg.phantom.geometry points here) */
    double* reference;               /* phantom: the reference's rows (4 numbers each), NULL for none */
    int reference_rows;
    double* lateral;                 /* phantom: the lateral reference's rows (MCT_PHANTOM_LATERAL_COLUMNS each), NULL for none */
    int lateral_rows;
    double* lateral_zones;           /* phantom: the lateral comparison's zones (cfg.phantom.zones points here), NULL for none */
} mct_cli_run_args_t;

/** Builds a phantom run's geometry from cfg.phantom_geometry into a->geometry
 * and points cfg.phantom.geometry at it (NULL for the water cube at 1 g/cm3,
 * the homogeneous path), reads the `reference` depth dose into
 * a->reference and the `lateral_reference` into a->lateral (checked against
 * the grid) with its compared zones into a->lateral_zones, which
 * cfg.phantom.zones points at (mct_phantom_lateral_zones); 1 after a message ("phantom: ...").
 * Nothing is written. mct_cli_geometry_free releases them all. */
int mct_cli_geometry_build(mct_cli_run_args_t* a);
void mct_cli_geometry_free(mct_cli_run_args_t* a);

/** Parses `run`'s arguments (after the command), reads the problem file and
 * checks the output directory: 0, 1 after a message, 2 after --help. */
int mct_cli_run_parse(int argc, char** argv, mct_cli_run_args_t* a);
/** The tally's descriptor for a parsed run; 1 after a message when the
 * problem cannot have one (more bins than a tally holds, ...). */
int mct_cli_run_desc(const mct_cli_run_args_t* a, mct_tally_desc_t* d);

/** `mctally accumulate`'s arguments and data. */
typedef struct {
    int64_t bins;
    const char *keys_path, *values_path, *out;
    mct_method_t method;
    mct_backend_t backend;
    mct_dtype_t dtype;
    int have_dtype, have_frac_bits, frac_bits;
    uint32_t* keys;  /* n keys, each < bins */
    double* values;  /* n finite values */
    int64_t n;
} mct_cli_acc_t;

/** Parses `accumulate`'s arguments, reads and checks the two files: 0, 1
 * after a message, 2 after --help. mct_cli_accumulate_free releases the data
 * (also after an error). */
int mct_cli_accumulate_prepare(int argc, char** argv, mct_cli_acc_t* a);
void mct_cli_accumulate_free(mct_cli_acc_t* a);

/** A run's checkpoint file (cli_checkpoint.c): where, and what identifies the run. */
typedef struct {
    const char* path;
    mct_tally_t tally;
    char* identity; /**< mct_cli_run_identity */
} mct_cli_checkpoint_t;

/** The run's identity as JSON text (malloc'd): version, problem, resolved
 * backend and method, type, bins, seed, histories, batches, the loss sample
 * and every parameter of the problem. What a checkpoint must match, and what
 * the ranks of one run compare. */
char* mct_cli_run_identity(const char* problem, const mct_cli_config_t* cfg, mct_tally_t tally, int loss_sample_log2);
/** 1 after a message when `path` cannot take a checkpoint. */
int mct_cli_checkpoint_check_path(const char* path);
/** mct_sim_checkpoint_t.save: writes the file atomically (ctx: mct_cli_checkpoint_t). */
mct_status_t mct_cli_checkpoint_save(void* ctx, int64_t done, const void* state, size_t bytes);
/** Reads a checkpoint: refuses (1, after a message naming the reason) a file
 * that is not one, is corrupt or truncated, or is of another run than
 * `identity`; else loads the tally's state and returns the problem's state
 * (malloc'd) in *state. */
int mct_cli_checkpoint_resume(const char* path, const char* identity, mct_tally_t tally, void** state, size_t* bytes);

/* ---- What the problems' runners share (cli_run.c) ---- */
struct cJSON;
/** What the ranks of a run report once it has succeeded on all of them. */
typedef struct {
    int ranks;
    mct_determinism_t det; /* of the combined tally (mct_dist_determinism), or the tally's own */
    const char* transport; /* NULL without ranks */
    double agree_s, reduce_s, bytes;
} mct_cli_rank_report_t;
/** After a problem's run succeeded on every rank: their report (collective).
 * 1 after a message when it fails; 2 on the ranks that write nothing (all but
 * rank 0: they stop there); else 0. */
int mct_cli_ranks_report(const mct_cli_run_args_t* a, mct_tally_t tally, mct_cli_rank_report_t* rep);
/** Adds "sums_digest" to a tally's entry in result.json: FNV-1a (64 bits) of the bins' sums as
 * little-endian IEEE doubles in bin order, from `sums`, or from `counts` where `sums` is NULL. */
void mct_cli_add_sums_digest(struct cJSON* entry, const double* sums, const int64_t* counts, int64_t bins);
/** The fields every result.json opens with (version, problem, backend,
 * device, method, type, determinism, plan, histories, seed, batches,
 * seconds, ranks and the reduction); also the tally's resolved descriptor
 * and device name. */
struct cJSON* mct_cli_result_header(const mct_cli_run_args_t* a, const mct_cli_rank_report_t* rep, mct_tally_t tally,
                                    const char* problem, int64_t histories, uint64_t seed, int64_t batches,
                                    double seconds, mct_tally_desc_t* d, char* device, size_t device_size);
/** Prints the head of a run's summary line, "PROBLEM: INPUT on BACKEND
 * (DEVICE), METHOD DTYPE", without ending the line. */
void mct_cli_print_run_head(const mct_cli_run_args_t* a, const char* problem, const mct_tally_desc_t* d,
                            const char* device);
/** Adds result.json to the run's output set and commits the set; 1 after a message. */
int mct_cli_write_result(const mct_cli_run_args_t* a, struct cJSON* root);
/** Creates the run's output directory when it is not there; 1 after a message. */
int mct_cli_make_out_dir(const char* dir);
/** One message for a problem's failing status; returns 1. */
int mct_cli_report_status(mct_status_t st, const mct_cli_run_args_t* a, const char* what);

/* ---- The PET problem (cli_pet.c) ---- */
/** The tally of a pet run: the index asked for, or for `auto` the full map
 * where its tally can be made and the compressed index where not (the
 * parameters' index is set to the one made). *st: the creation's status. */
mct_tally_t mct_cli_pet_create(mct_cli_run_args_t* a, mct_tally_desc_t* d, mct_status_t* st);
/** `run` of a pet problem file: checks, runs, writes result.json, the LOR
 * file and the sinogram; 0 or 1 after a message. */
int mct_cli_run_pet(const mct_cli_run_args_t* a, mct_tally_t tally);
/** `mctally pet-matrix` and `mctally pet-reco`. */
int mct_cli_pet_matrix(int argc, char** argv);
int mct_cli_pet_reco(int argc, char** argv);

/** `mctally run` on this process, or on every rank of `ranks` (NULL: one process). */
int mct_cli_run(int argc, char** argv, mct_cli_ranks_t* ranks);
int mct_cli_methods(int argc, char** argv);
int mct_cli_bench(int argc, char** argv);
int mct_cli_accumulate(int argc, char** argv);
int mct_cli_plan(int argc, char** argv);

/** The plan as a JSON object (method, source, mode, pattern, reason, seconds, ranking). */
struct cJSON* mct_cli_plan_json(const mct_plan_info_t* plan);
/** Prints the plan's ranking as a table. */
void mct_cli_print_plan(const mct_plan_info_t* plan);
/** Wisdom file: open reads `path` into a new handle (*out NULL when path is NULL
 * or empty; a missing file is empty, an unreadable one a warning); returns 1
 * after a message when `path` cannot be written later. close writes it back
 * atomically and frees it. */
int mct_cli_wisdom_open(const char* path, mct_wisdom_t* out);
int mct_cli_wisdom_close(const char* path, mct_wisdom_t w);

#endif /* MCT_CLI_H */
