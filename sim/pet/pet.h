/* SPDX-License-Identifier: BSD-3-Clause */
/** @file pet.h  A clinical PET scanner (Ansorge 2022, chapter 8: `fullsim` and
 * `fullsimdoi`): positron decays uniform in a source volume, two back-to-back
 * 511 keV gammas in an isotropic direction, each tracked to the detector
 * cylinder (exact ray-cylinder intersection) and, with depth of interaction,
 * into the crystals along an exponential path; the line of response (LOR)
 * between the two crystals hit is counted into an integer tally.
 *
 * Scanner: `crystals` per ring (C, 400), `rings` (N, 64) of square crystal
 * faces `crystal_mm` (4 mm) and `depth_mm` deep (20 mm). The inner radius is
 * R = C crystal_mm / (2 pi) (254.648 mm) and the axial length L = N
 * crystal_mm. Angles are measured clockwise from +y (the book's convention):
 * crystal c covers [c, c + 1) / C turns, ring z covers [z, z + 1) crystal_mm
 * from the scanner's front end.
 *
 * Sources (mct_pet_source_t):
 * - voxel: one polar voxel of the system-matrix grid (Table 8.1): radial ring
 *   r in [voxel_r, voxel_r + 1) radial_step_mm (2 mm), the wedge of crystal
 *   voxel_c, the axial slice of ring N - 1, inside a scanner of 2N - 1 rings
 *   (the book's "long" scanner), so that every LOR through the voxel that the
 *   real scanner could see is seen. A LOR is then a base LOR with voxel: the
 *   ring of its lower end is zsm1 = N - 1 - z1 rings before the voxel's and
 *   the other zsm2 = z2 - (N - 1) after it.
 * - point: a point at (x, y, z) mm from the scanner's centre.
 * - derenzo: a Derenzo-style hot-rod phantom (rod diameters 24.5, 17.1, 9.8,
 *   8.6 and 6.1 mm, the book's Figure 8.6, in five 72-degree sectors of
 *   triangular lattices with centre spacing two diameters, rods inside 100 mm
 *   of the axis and through the middle half of the scanner's length), all
 *   lengths times derenzo_scale, on an optional background cylinder.
 * - shapes: the cylinders and ellipsoids of mct_pet_params_t.shapes.
 * Overlapping shapes add their activities.
 *
 * A decay is a good event when both gammas reach the crystals (with depth of
 * interaction: interact before leaving the crystals' outer radius R + depth)
 * inside the simulated axial extent, their axial distance is below L (the
 * book's cut: the LOR fits the real scanner), the ring difference is at most
 * max_ring_diff when that is set, and, for the physical sources (not voxel),
 * the crystals are at least C/4 apart around the ring (the book's
 * |c2 - c1| >= C/4 convention, symmetric: at most C - C/4). Its LOR is (z1,
 * c1, z2, c2) with z1 <= z2 (the ends swapped when the lower ring was hit
 * second; a LOR within one ring keeps the gammas' order).
 *
 * LOR index (mct_pet_index_t), the tally's bins:
 * - full: ((a C + c1) N + b) C + c2, N^2 C^2 bins (a, b = z1, z2 for the
 *   physical sources; zsm1, zsm2 for voxel), as the book's map array.
 * - compressed: the LORs a reconstruction uses, z1 <= z2 inside the real
 *   scanner and dc = ((c2 - c1) mod C) - C/4 in [0, C - 2 (C/4)]:
 *   ((s N_dc + dc) C + c1) with N_dc = C - 2 (C/4) + 1 and the ring-pair
 *   index s < N (N + 1) / 2: for the physical sources the book's zdz index
 *   s = z1 + T - (N - dz)(N - dz + 1) / 2 (T = N (N + 1) / 2, dz = z2 - z1);
 *   for voxel, s = dz (dz + 1) / 2 + zsm1 with dz = zsm1 + zsm2 <= N - 1.
 *   167,232,000 bins for the default scanner. A good event outside it (a
 *   voxel LOR longer than the scanner or with crystals closer than C/4) is
 *   counted in outside_index, not in the tally.
 * - total: one bin, the good events (a scanner's efficiency without the map).
 *
 * Random numbers: decay h draws two Philox4x32-10 blocks with key = seed and
 * counter (h, 0, 0) and (h, 0, 1); its geometry is computed in float with the
 * operations and functions of sim_detmath.h, whose bits are the same on the
 * CPU, under the emulation and on every GPU. A LOR's counts therefore depend
 * on (seed, decays) only: integer tallies are bitwise equal on cpu, emulated
 * and cuda, with every method. */
#ifndef MCT_SIM_PET_H
#define MCT_SIM_PET_H

#include <stdint.h>

#include "mctally/mct_tally.h"
#include "sim_output.h"
#include "sim_deposit.h"
#include "sim_params.h"
#include "sim_ranks.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
    MCT_PET_SOURCE_VOXEL = 0,
    MCT_PET_SOURCE_POINT = 1,
    MCT_PET_SOURCE_DERENZO = 2,
    MCT_PET_SOURCE_SHAPES = 3
} mct_pet_source_t;

typedef enum {
    MCT_PET_INDEX_AUTO = 0, /**< the full map where its tally fits, else compressed (chosen by the caller) */
    MCT_PET_INDEX_FULL = 1,
    MCT_PET_INDEX_COMPRESSED = 2,
    MCT_PET_INDEX_TOTAL = 3
} mct_pet_index_t;

typedef enum { MCT_PET_CYLINDER = 0, MCT_PET_ELLIPSOID = 1 } mct_pet_shape_kind_t;

/** A shape of the source, in mm from the scanner's centre (z along the axis). */
typedef struct {
    mct_pet_shape_kind_t kind;
    double centre[3];   /**< cylinder: its axis at (x, y), its middle at z; ellipsoid: its centre */
    double size[3];     /**< cylinder: radius, unused, length; ellipsoid: the semi-axes along x, y, z */
    double activity;    /**< decays per unit volume, relative to the other shapes (>= 0) */
} mct_pet_shape_t;

/** The most shapes a source holds. */
#define MCT_PET_MAX_SHAPES 128
/** The most bins of a tally (mct_tally.h). */
#define MCT_PET_MAX_BINS (INT64_C(1) << 31)

/** The parameters; the numeric ones' ranges and defaults are in
 * mct_pet_param_table (the defaults in parentheses). */
typedef struct {
    int crystals;            /**< per ring (400), 8 .. 512 (9 bits of a system-matrix key) */
    int rings;               /**< (64), 1 .. 128 (7 bits) */
    double crystal_mm;       /**< crystal face (4) */
    double depth_mm;         /**< crystal depth (20) */
    int doi;                 /**< depth of interaction: 0 (the gamma is detected where it enters) or 1 */
    double attenuation_mm;   /**< crystal attenuation length with doi (11.4, LSO/LYSO; the book's BGO: 10.4) */
    int max_ring_diff;       /**< largest |ring2 - ring1| kept (0: no cut beyond the axial one) */
    mct_pet_source_t source;
    int voxel_r;             /**< voxel: radial ring (0), from the axis in radial_step_mm */
    int voxel_c;             /**< voxel: angular wedge (0), 0 .. crystals - 1 */
    double radial_step_mm;   /**< voxel: radial size of a polar voxel (2) */
    double point_mm[3];      /**< point: x, y, z from the scanner's centre (0, 0, 0) */
    double derenzo_scale;    /**< derenzo: every length times this (1) */
    double derenzo_background; /**< derenzo: activity of the background cylinder per rod activity (0: none) */
    mct_pet_shape_t shapes[MCT_PET_MAX_SHAPES]; /**< shapes: the source */
    int nshapes;
    mct_pet_index_t index;   /**< the tally's LOR index; the run needs a concrete one (not AUTO) */
    int64_t histories;       /**< decays, >= batches */
    int64_t batches;         /**< >= 1 */
    uint64_t seed;
    int block_size;          /**< GPU threads per block (256), 32 .. 1024 */
    int grid_blocks;         /**< GPU blocks of the persistent launch (0: fill the GPU once) */
    int discard;             /**< benchmark only: the kernel computes each LOR's key but adds nothing */
    mct_sim_deposit_t deposit; /**< GPU backends: direct adds, mct_deposit_buffer, or per method (auto, the default) */
    void (*progress)(void* ctx, int64_t done, int64_t total); /**< optional, after every batch */
    void* progress_ctx;
    const mct_sim_ranks_t* ranks; /**< optional: the ranks sharing the run (sim_ranks.h); NULL: this process alone */
} mct_pet_params_t;

typedef struct {
    double decays;           /**< decays generated (the histories) */
    double good;             /**< good events */
    double stored;           /**< good events in the tally (good - outside_index) */
    double outside_index;    /**< good events the compressed index has no bin for */
    double efficiency;       /**< good / decays */
    double efficiency_err;   /**< its binomial standard error, sqrt(e (1 - e) / decays) */
    double seconds;          /**< wall time of the whole run */
    double engine_seconds;   /**< time in the event generation (chunks) */
    uint64_t key_checksum;   /**< discard: XOR of the keys the kernel computed (0 otherwise) */
} mct_pet_result_t;

/** The ranges and defaults of the numeric parameters (sim_params.h): every
 * numeric field but discard, and the problem file's [pet] keys. */
extern const mct_sim_param_table_t mct_pet_param_table;

/** Defaults: the book's scanner (400 x 64 crystals of 4 x 4 x 20 mm), no depth
 * of interaction, the voxel source at ring 0, the compressed index, 1e7
 * decays, 2 batches, seed 1, 256 threads per block. */
void mct_pet_params_init(mct_pet_params_t* p);

/** Geometry the parameters give. */
double mct_pet_radius_mm(const mct_pet_params_t* p);   /**< R = C crystal_mm / (2 pi) */
double mct_pet_length_mm(const mct_pet_params_t* p);   /**< L = N crystal_mm */

/** Checks the parameters alone: SUCCESS, or INVALID_VALUE with the reason
 * (one line naming the parameter or the shape) in `why` (may be NULL): a
 * value out of range, a source outside the scanner, no shape with activity. */
mct_status_t mct_pet_validate(const mct_pet_params_t* p, char* why, size_t size);

/** The bins of `index` for p (AUTO: full); TOO_LARGE, with *bins the count,
 * when they are more than a tally holds (MCT_PET_MAX_BINS). */
mct_status_t mct_pet_bins(const mct_pet_params_t* p, mct_pet_index_t index, int64_t* bins);

/** The source's shapes (derenzo, point and voxel resolved; shapes copied),
 * up to MCT_PET_MAX_SHAPES, into out[]; returns their count, 0 when the
 * parameters do not make a source. */
int mct_pet_source_shapes(const mct_pet_params_t* p, mct_pet_shape_t* out);

/** Checks the parameters and the tally: INVALID_VALUE (mct_pet_validate, an
 * AUTO index, a tally whose bins are not the index's), NOT_SUPPORTED for a
 * float tally (the problem counts events) and for `shared` on more bins than
 * a block's shared memory holds, OVERFLOW when an i32 bin could pass 2^31 - 1
 * in a batch (a batch of more decays than that). */
mct_status_t mct_pet_check(const mct_pet_params_t* p, mct_tally_t tally);

/** The fewest batches into which p->histories decays must be split for
 * mct_pet_check to admit them into a tally of `dtype`: ceil(decays /
 * (2^31 - 1)) for i32 (a bin takes at most a batch's decays), 1 otherwise;
 * at least 1. */
int64_t mct_pet_min_batches(int64_t histories, mct_dtype_t dtype);

/** Runs the decays into `tally` (any backend; the integer method it was made
 * with) and fills `out`. */
mct_status_t mct_pet_run(const mct_pet_params_t* p, mct_tally_t tally, mct_pet_result_t* out);

/* ---- LORs ---------------------------------------------------------------- */

/** A LOR's two ends: rings a <= b (z1, z2; or zsm1, zsm2 for voxel) and
 * crystals c1 (at a) and c2. */
typedef struct {
    int a, c1, b, c2;
} mct_pet_lor_t;

/** The LOR of bin `key` of index `index` (not TOTAL); INVALID_VALUE for a key
 * outside the index. */
mct_status_t mct_pet_lor_of_key(const mct_pet_params_t* p, mct_pet_index_t index, int64_t key, mct_pet_lor_t* lor);

/** The bin of a LOR in `index`, or -1 when the index has none for it. */
int64_t mct_pet_key_of_lor(const mct_pet_params_t* p, mct_pet_index_t index, const mct_pet_lor_t* lor);

/* ---- System matrix (pet_matrix.c) -------------------------------------------
 * The book's fullsim over the radial voxels and its compression: one voxel
 * run per radial ring r = 0 .. voxels - 1 (source voxel, voxel_c = 0, seed +
 * r, `histories` decays), each into the compressed index of the voxel's base
 * LORs (the LORs a reconstruction of the real scanner can use), kept as the
 * non-zero counts. Entry (key, count) of ring r: a decay in the polar voxel
 * (r, c = 0, z) is detected in LOR (z - zsm1, c1, z + zsm2, c2) with
 * probability count / decays; turning the voxel and both crystals by k and
 * moving z gives every other voxel's (Eq. 8.3). */

typedef struct {
    int voxels;          /**< radial rings */
    double decays;       /**< per voxel */
    int64_t entries;
    int64_t* start;      /**< voxels + 1: ring r's entries are [start[r], start[r + 1]) */
    uint32_t* key;       /**< the compressed voxel index's bin (pet.h), ascending within a ring */
    uint64_t* count;
    double* efficiency;  /**< per ring: good events / decays */
    double* outside;     /**< per ring: good events outside the index / decays */
    int64_t min_count;   /**< entries below this count were left out */
    double min_fraction; /**< and entries below this share of their spot's largest count */
    double stored;       /**< events in the index over all rings */
    double dropped;      /**< of them, the events of the entries left out */
    double generation_seconds; /**< in the event generation */
    double seconds;      /**< the whole build */
} mct_pet_matrix_t;

/** Builds the matrix into out: p gives the scanner, depth of interaction,
 * radial_step_mm, histories per voxel, seed and the launch. An entry is kept
 * when its count reaches min_count (1 keeps every one) and min_fraction of
 * the largest count of its spot, the entries of the same first end (zsm1,
 * c1) (0 keeps every one; the book cuts at 0.03: the long tail of tiny
 * probabilities adds nothing to a reconstruction and costs its time in
 * proportion). `tally`: an integer tally of the
 * compressed voxel index's bins (mct_pet_bins with source voxel), which the
 * rings' runs add batches to (its exact sums give each ring's counts).
 * progress (optional) after each ring. INVALID_VALUE (parameters, a ring
 * outside the scanner), NOT_SUPPORTED (a float tally), OUT_OF_MEMORY. */
mct_status_t mct_pet_matrix_build(const mct_pet_params_t* p, int voxels, int64_t min_count, double min_fraction,
                                  mct_tally_t tally,
                                  void (*progress)(void* ctx, int ring, int voxels), void* progress_ctx,
                                  mct_pet_matrix_t* out);
/** Frees what a build allocated; NULL fields are fine. */
void mct_pet_matrix_free(mct_pet_matrix_t* m);
/** Writes the matrix in the format of README "PET files" (container
 * pet_files.h): the header gives the scanner, the voxels, the decays per
 * voxel, each ring's first entry and efficiency; records (key uint32, count
 * uint32 or uint64), ring by ring. */
mct_status_t mct_pet_matrix_write(sim_out_set_t* set, const char* path, const mct_pet_params_t* p,
                                  const mct_pet_matrix_t* m);

/* ---- Output (pet_output.c) -------------------------------------------------
 * The writers add their files to an output set (sim_output.h); IO_ERROR with
 * set->error. */

/** The sparse LOR file: the LORs with a non-zero count, from the tally's
 * exact integer sums `counts` (bins of `index`), in the format of
 * MCT_PET_LOR_FORMAT (README "PET files"). *entries gets their number. */
mct_status_t mct_pet_write_lors(sim_out_set_t* set, const char* path, const mct_pet_params_t* p,
                                mct_pet_index_t index, const int64_t* counts, int64_t bins,
                                const mct_pet_result_t* r, int64_t* entries);

/** A sinogram of the counts as a PNG: one row per crystal of the direction
 * of the LOR's arc midpoint (c1 + dc/2, dc = (c2 - c1) mod C: a full turn from
 * top to bottom), one column per dc from C/4 to C - C/4 (the LOR's signed
 * distance from the axis, 0 in the middle column), summed over the ring
 * pairs; grey levels linear in the count (white: the largest). A point off
 * the axis draws one sinusoid. */
mct_status_t mct_pet_write_sinogram_png(sim_out_set_t* set, const char* path, const mct_pet_params_t* p,
                                        mct_pet_index_t index, const int64_t* counts, int64_t bins);

/** The name of a source, an index ("voxel", "compressed", ...). */
const char* mct_pet_source_name(mct_pet_source_t s);
const char* mct_pet_index_name(mct_pet_index_t i);

#ifdef __cplusplus
}
#endif

#endif /* MCT_SIM_PET_H */
