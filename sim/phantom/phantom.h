/* SPDX-License-Identifier: BSD-3-Clause */
/** @file phantom.h  Liu 2018's tests 2-4: a pencil beam (20 MeV electrons, or
 * photons) on a cubic water phantom (40 cm, 100^3 / 10^3 / 2^3 voxels), coupled
 * photon-electron transport, the energy deposited in each voxel added into a
 * tally with the tally's method. Physics: phantom_physics_body.inc; tables:
 * data/water (NIST XCOM and ESTAR, compiled in).
 *
 * Dose engines: the transport runs in double or float (FP64 / FP32 engine),
 * independently of the tally's type: f64 + atomic is Liu's FP64 engine, f32
 * transport + f32 atomic his FP32 engine, f32 transport + kahan his KAS engine.
 * By default the transport precision follows the tally's type (f32 and the
 * Kahan methods: float; f64: double).
 *
 * Energy balance: every history's energy ends as deposited (in the tally) or
 * escaped (in the result), so deposited + escaped = incident up to rounding. */
#ifndef MCT_SIM_PHANTOM_H
#define MCT_SIM_PHANTOM_H

#include <stddef.h>
#include <stdint.h>

#include "mctally/mct_tally.h"
#include "sim_ranks.h"
#include "sim_output.h"
#include "sim_checkpoint.h"
#include "sim_params.h"
#include "sim_deposit.h"
#include "phantom_geometry.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum { MCT_PHANTOM_ELECTRON = 1, MCT_PHANTOM_PHOTON = 0 } mct_phantom_particle_t;

typedef enum {
    MCT_PHANTOM_TRANSPORT_AUTO = 0, /**< float for f32 and Kahan tallies, else double */
    MCT_PHANTOM_TRANSPORT_F64 = 1,
    MCT_PHANTOM_TRANSPORT_F32 = 2
} mct_phantom_transport_t;

/** Multiple scattering per condensed-history step, applied at a random point
 * of the step (see MCT_PH(mcs_one_minus_cos) in phantom_physics_body.inc). One
 * model: screened Rutherford scattering over the step, its few largest
 * collisions drawn one by one and the rest as one Gaussian deflection, with
 * Goudsmit-Saunderson's <1 - cos> (the modified Wentzel law for steps of more
 * than a tenth of a transport mean free path). */
typedef enum {
    MCT_PHANTOM_MCS_TRANSPORT = 0 /**< the only model (the problem file's `mcs = transport`) */
} mct_phantom_mcs_t;

/** Where the histories start. */
typedef enum {
    MCT_PHANTOM_SOURCE_BEAM = 0, /**< a pencil beam at the centre of the z = 0 face, along +z */
    /** The Fano test's source (Kawrakow 2000): particles of the beam's kind and
     * energy born uniformly per unit mass over the whole phantom, in isotropic
     * directions, with periodic faces (a particle leaving one face enters at the
     * opposite one), so that the phantom is one cell of an infinite lattice and
     * the dose in every voxel is the same, energy per history over total mass. */
    MCT_PHANTOM_SOURCE_FANO = 1
} mct_phantom_source_t;

/** The default Moller threshold (MeV): the lowest energy of the electron
 * tables, next to EGSnrc's usual AE (10 keV kinetic). Delta rays this soft
 * carry the energy-loss straggling that shapes the depth dose beyond R50
 * (docs/architecture.md gives the comparison with EGSnrc at both thresholds);
 * those below the electron cut-off deposit where they are made. The continuous loss below it has no straggling: its variance is that
 * of transfers under 12.5 keV, negligible beside the explicit deltas'. */
#define MCT_PHANTOM_DELTA_DEFAULT_MEV 0.0125

/** The revision of the phantom's histories: the random numbers a history
 * draws and the arithmetic that turns them into deposits, in either kind of
 * engine (the bitwise ones and the others, phantom_physics_body.inc). Raised
 * by every change that alters a seed's deposits. A checkpoint's identity
 * names it, so a run is never resumed on histories of another revision: the
 * result would be sound, but the bits of neither build's uninterrupted run. */
#define MCT_PHANTOM_HISTORY_REVISION 1

/** The parameters; the numeric ones' ranges and defaults are in
 * mct_phantom_param_table (the defaults in parentheses). */
typedef struct {
    double size_cm;              /**< edge of the cube (40), [1e-3, 1e4] */
    int voxels;                  /**< voxels per edge n (100), 1 .. 1290; the tally has n^3 bins */
    double energy_MeV;           /**< beam kinetic energy (20), (0, 1000], above both cut-offs */
    mct_phantom_particle_t particle; /**< electron (default) or photon */
    double electron_cutoff_MeV;  /**< electrons/positrons below it deposit locally (0.2), >= 0.0125 */
    double photon_cutoff_MeV;    /**< photons below it deposit locally (0.01), >= 0.001 */
    double delta_threshold_MeV;  /**< Moller delta rays made above it (0: MCT_PHANTOM_DELTA_DEFAULT_MEV), [0.0125, 1e9] */
    double brems_threshold_MeV;  /**< bremsstrahlung photons made above it (0: the photon cut-off), [0.001, 1e9] */
    double step_fraction;        /**< largest fractional energy loss per step (0.12), in [1e-3, 0.5] */
    double max_step_g_cm2;       /**< longest electron step, g/cm2 (0.4), in [1e-3, 1e4] */
    mct_phantom_mcs_t mcs;       /**< multiple-scattering model (transport) */
    mct_phantom_transport_t transport;
    mct_phantom_source_t source; /**< the pencil beam (default) or the Fano test's source */
    /** NULL: the homogeneous water cube of size_cm and voxels; else the voxels,
     * materials and densities (phantom_geometry.h), which then set the grid
     * (size_cm and voxels are not used). Owned by the caller. */
    const mct_phantom_geometry_t* geometry;
    mct_sim_deposit_t deposit;   /**< GPU backends: direct adds, mct_deposit_buffer, or per method (auto, the default) */
    int64_t histories;           /**< >= batches */
    int64_t batches;             /**< >= 1 */
    uint64_t seed;
    int block_size;              /**< GPU threads per block (128), 32..1024 */
    int grid_blocks;             /**< GPU blocks of the persistent launch (0: fill the GPU once) */
    int discard;                 /**< benchmark only: the kernel drops its deposits instead of adding them */
    void (*progress)(void* ctx, int64_t done, int64_t total); /**< optional, after every batch */
    void* progress_ctx;
    /** Optional (NULL, 0: none): zones whose energy the run adds up after every
     * batch (mct_phantom_result_t.zone_batch_mev), nzones x MCT_PHANTOM_ZONE_COLUMNS
     * doubles (z_lo, z_hi, r_lo, r_hi cm, as mct_phantom_zone_energy's zone), so
     * that their errors come from the spread of their batches and include the
     * covariance of the voxels they cover (mct_phantom_lateral_zones gives a
     * lateral comparison's). Owned by the caller. */
    const double* zones;
    int nzones;
    const mct_sim_checkpoint_t* checkpoint; /**< optional: save and resume the run (sim_checkpoint.h) */
    const mct_sim_ranks_t* ranks; /**< optional: the ranks sharing the run (sim_ranks.h); NULL: this process alone */
} mct_phantom_params_t;

typedef struct {
    double incident_MeV;         /**< histories x beam energy */
    double deposited_MeV;        /**< sum of the tally over all bins and batches */
    double deposited_rel_err;    /**< relative standard error of deposited_MeV, batch method (NaN with one batch) */
    double escaped_MeV;          /**< kinetic energy leaving the phantom (+ 2 mc^2 per escaping positron) */
    double energy_balance_rel;   /**< (deposited + escaped - incident) / incident: 0 up to rounding */
    double scored_MeV;           /**< exact double sum of the values the engine passed to the tally */
    double tally_vs_scored_rel;  /**< (deposited - scored) / scored: what the tally's own rounding lost */
    double uncollided;           /**< source photons that left without interacting */
    double uncollided_fraction;  /**< uncollided per history */
    double uncollided_expected;  /**< photon beams: exp(-mu size), the narrow-beam expectation of uncollided_fraction */
    double mu_per_cm;            /**< photon beams: XCOM's mu at the beam energy without coherent scattering (the engine's) */
    double delta_threshold_MeV;  /**< the Moller threshold that applied (the parameter's 0 resolved) */
    double brems_threshold_MeV;  /**< the bremsstrahlung threshold that applied */
    double primary_path_mean_cm; /**< mean path of the primary electron (electron beams) */
    double primary_path_max_cm;  /**< longest primary electron path */
    double adds;                 /**< contributions passed to the tally */
    int max_stack;               /**< deepest particle stack of any history */
    mct_phantom_transport_t transport; /**< the precision that ran (AUTO resolved) */
    double seconds;              /**< wall time of the whole run */
    double kernel_seconds;       /**< time in transport (chunks), without table set-up */
    /** Energy per depth slab (MeV, summed over the slab's voxels) of each batch,
     * batches x slabs, from the sums of each batch the tally closed: the batch statistics of
     * the laterally integrated depth dose. Freed by mct_phantom_result_free. */
    double* slab_batch_mev;
    /** Energy in each of p->zones (MeV, its voxels weighted by their share of
     * the zone, mct_phantom_zone_map) of each batch, batches x zones; NULL
     * without zones. Freed by mct_phantom_result_free. */
    double* zone_batch_mev;
    int64_t* batch_histories;    /**< histories of each batch */
    int64_t batches;
    int slabs;
    int zones;                   /**< p->nzones */
} mct_phantom_result_t;

/** The grid p runs on: the geometry's, or the cube's (voxels per edge, size_cm / voxels). */
void mct_phantom_grid(const mct_phantom_params_t* p, mct_phantom_grid_t* out);

/** Voxels of p's grid, nx ny nz. */
int64_t mct_phantom_voxel_count(const mct_phantom_params_t* p);

/** Frees what mct_phantom_run allocated in a result; NULL fields are fine. */
void mct_phantom_result_free(mct_phantom_result_t* r);

/** The ranges and defaults of the numeric parameters (sim_params.h): every
 * numeric field but discard (a benchmark switch), and the problem file's [phantom] keys. */
extern const mct_sim_param_table_t mct_phantom_param_table;

/** Defaults: 40 cm, 100 voxels, 20 MeV electrons, cut-offs 0.2 / 0.01 MeV,
 * thresholds 0.0125 MeV (Moller) and the photon cut-off (bremsstrahlung), steps of 12 % of the energy and at
 * most 0.4 g/cm2, auto transport, 1e5 histories, 10
 * batches, seed 1, 128 threads per block. */
void mct_phantom_params_init(mct_phantom_params_t* p);

/** The transport precision p gives with a tally of `method` and `dtype`. */
mct_phantom_transport_t mct_phantom_transport_for(const mct_phantom_params_t* p, mct_method_t method,
                                                  mct_dtype_t dtype);

/** Checks the parameters against the tally: INVALID_VALUE for values out of
 * range, zones that are not 0 <= lo < hi on both axes (or nzones < 0, or
 * nzones > 0 without zones), or a tally whose bins are not voxels^3; NOT_SUPPORTED for integer
 * tallies (dose is not a count) and for `shared` on more bins than 48 KiB of
 * shared memory hold. */
mct_status_t mct_phantom_check(const mct_phantom_params_t* p, mct_tally_t tally);

/** Runs the beam into `tally` (MeV per voxel; any backend and method the tally
 * was made with) and fills `out`. OVERFLOW when a particle stack overflowed
 * (the energy was kept, but the run is not the physics asked for) or a
 * sort_reduce pair buffer filled. */
mct_status_t mct_phantom_run(const mct_phantom_params_t* p, mct_tally_t tally, mct_phantom_result_t* out);

/** The largest sort_reduce pair buffer the phantom sizes (2^28 pairs of 16 bytes, 4 GiB). */
#define MCT_PHANTOM_MAX_PAIRS (INT64_C(1) << 28)

/** The pair capacity a sort_reduce tally needs for p's largest batch: every
 * deposit of a batch waits in the buffer, so the capacity is an upper
 * estimate of a history's deposits (40 per MeV of beam for voxels of 4 mm
 * or more, more as voxels shrink, plus 100) times the batch. SUCCESS with
 * *pairs; TOO_LARGE when that is above MCT_PHANTOM_MAX_PAIRS, with *pairs
 * the estimate and *fit (when not NULL) the histories per batch that fit;
 * INVALID_VALUE for fewer than 1 voxel or batch; NULL_POINTER. */
mct_status_t mct_phantom_sort_reduce_pairs(const mct_phantom_params_t* p, int64_t* pairs, int64_t* fit);

/* ---- Analysis and output (phantom_output.c) ------------------------------ */

/** A voxel of the grid and where it is. */
typedef struct {
    int64_t voxel;         /**< k = ix + n (iy + n iz), the MetaImage order */
    int64_t index[3];      /**< ix, iy, iz */
    double center_mm[3];   /**< its centre in the MetaImage frame: x and y from the beam axis, z from the entry face */
    double value;          /**< grid[k] */
} mct_phantom_voxel_t;

/** The voxel of the largest value of p's grid, nx ny nz (x fastest; the first of
 * equal ones). NULL_POINTER, INVALID_VALUE for fewer than 1 voxel, or SUCCESS. */
mct_status_t mct_phantom_max_voxel(const mct_phantom_params_t* p, const double* grid, mct_phantom_voxel_t* out);

/** Dose to the medium (Gy per history) from the tally's mean energy per
 * history (MeV) of each voxel (dose_gy may be mean_mev): mean_mev[k] *
 * 1.602176634e-13 J/MeV / the voxel's mass, its density (the geometry's, or
 * water's 1 g/cm3 in the cube) times dx dy dz. */
void mct_phantom_dose_gy(const mct_phantom_params_t* p, const double* mean_mev, double* dose_gy, int64_t nbins);

/** Laterally integrated depth dose: for each of the nz depth slabs (of dz), the
 * energy deposited in the whole slab per history (MeV), its standard error
 * (batch method on the slab sums, so the correlation between a slab's voxels
 * is included), and the slab's depth centre (cm). */
typedef struct {
    int n;
    double* depth_cm;
    double* mev;     /**< energy per history in the slab */
    double* err;     /**< standard error of mev (NaN with one batch) */
} mct_phantom_depth_dose_t;

mct_status_t mct_phantom_depth_dose(const mct_phantom_params_t* p, const mct_phantom_result_t* r,
                                    mct_phantom_depth_dose_t* out);
void mct_phantom_depth_dose_free(mct_phantom_depth_dose_t* dd);

/** R50 and R80 (depths where the dose falls to 50 % and 80 % of its maximum
 * beyond the maximum, linear between slabs) and Rp (where the tangent through
 * R50, with the slope fitted to the fall-off between 20 % and 80 %, meets the
 * bremsstrahlung background), with standard errors from the curve's errors
 * (the dose error at the crossing and at the maximum over the slope); the
 * depth and value of the largest slab (its value is biased up by about its
 * error, the largest of many noisy slabs); the surface dose ratio, the
 * first slab over the largest, with the error of the ratio. Needs a fall-off
 * resolved by the grid: INVALID_STATE otherwise. */
typedef struct {
    double r50_cm, r50_err_cm;
    double r80_cm, r80_err_cm;
    double rp_cm, rp_err_cm;
    double dmax_depth_cm;
    double dmax_mev, dmax_err_mev; /**< the largest slab's energy per history and its error */
    double surface_ratio, surface_ratio_err;
    double background; /**< relative dose of the bremsstrahlung tail */
} mct_phantom_ranges_t;

/** A run compared with a compiled-in EGSnrc reference depth dose
 * (data/reference/egsnrc, mct_phantom_egsnrc_compare). Both curves are
 * brought onto their common slabs (the boundaries both grids have; the
 * slabs between are summed, their errors added in quadrature) and
 * normalised to the same energy over them. A common slab whose reference
 * dose is >= 5 % of the reference maximum passes the 2 %/1 mm test when
 *   |d_run - d_ref| <= 2 % of the maximum + k sqrt(s_run^2 + s_ref^2)
 * (dose difference, k standard errors of the difference added to the 2 %),
 * or when the reference dose lies between the run's doses at the
 * neighbouring slabs within 1 mm, widened by the same statistical allowance
 * (distance to agreement, the run's curve linear between slab centres). */
typedef struct {
    const char* name;     /**< the reference file, e.g. "egs_e10" */
    int points;           /**< common slabs compared (reference >= 5 % of its maximum) */
    int passed;           /**< of them, those within 2 %/1 mm */
    double worst_diff;    /**< the largest |dose difference| / maximum of a slab that failed both (or of all, if none failed) */
    double worst_depth_cm;
    double k;             /**< the standard errors allowed */
    int ranges;           /**< 1: the R50/Rp fields below are set (electron beams, 1 mm run slabs) */
    mct_phantom_ranges_t run, ref;
} mct_phantom_comparison_t;

/** Compares the run's depth dose dd (of beam p) with the EGSnrc reference of
 * the same beam, when there is one: the pencil beam into the water cube (no
 * geometry), electrons of 10 or 20 MeV, photons of
 * 1.25 or 6 MeV, with cut-offs 0.2 MeV (electrons, kinetic) and 0.01 MeV
 * (photons) as in the reference runs. NOT_SUPPORTED when no reference matches
 * or the two grids share fewer than 10 slabs; NULL_POINTER; SUCCESS. */
mct_status_t mct_phantom_egsnrc_compare(const mct_phantom_params_t* p, const mct_phantom_depth_dose_t* dd, double k,
                                        mct_phantom_comparison_t* out);

/** The same test against any reference depth dose: n rows of (depth_cm,
 * width_cm, mev, err) as the CSVs of data/reference/egsnrc hold them (slabs
 * from the entry face, rising, not overlapping; energy per slab on any scale).
 * With a geometry, doses are per unit mass: each slab's energy over its mass
 * thickness, from the densities on the beam axis, so slabs of different media
 * compare as dose to the medium (R50/Rp are then not computed). `name` is
 * kept in out. NOT_SUPPORTED when the grids share fewer than 10 slabs;
 * INVALID_VALUE for rows out of order, negative widths or errors, or
 * non-finite energies; NULL_POINTER; SUCCESS. */
mct_status_t mct_phantom_compare_reference(const mct_phantom_params_t* p, const mct_phantom_depth_dose_t* dd,
                                           const char* name, const double* rows, int n, double k,
                                           mct_phantom_comparison_t* out);

mct_status_t mct_phantom_ranges(const mct_phantom_depth_dose_t* dd, mct_phantom_ranges_t* out);

/* ---- Lateral dose against a reference in slabs x annuli (phantom_compare.c) */

/** A lateral reference is rows of MCT_PHANTOM_LATERAL_COLUMNS numbers, as
 * the CSV files of data/reference/egsnrc/lateral hold them under this header:
 * a zone (the slab z_lo..z_hi cm from the entry face times the annulus
 * r_lo..r_hi cm from the beam axis), the dose in it (any one scale for the
 * whole file) and its 1-sigma statistical error. */
#define MCT_PHANTOM_LATERAL_COLUMNS 6
#define MCT_PHANTOM_LATERAL_HEADER "z_lo_cm,z_hi_cm,r_lo_cm,r_hi_cm,dose,err"

/** A zone of the run: z_lo, z_hi, r_lo, r_hi (cm), the slab z_lo..z_hi from
 * the entry face times the annulus r_lo..r_hi about the beam axis. */
#define MCT_PHANTOM_ZONE_COLUMNS 4

/** The voxels of p's grid that zones touch, each with the share f_v of its
 * volume inside the zone: zone j's are voxel[start[j] .. start[j + 1]) with
 * weight[...], in the grid's order (x fastest). f_v is the lateral share (the
 * area the annulus shares with the voxel's rectangle over the rectangle's, 1
 * exactly for a voxel wholly inside the annulus) times the share of its depth
 * inside the slab, so a zone covering whole voxels weighs each by exactly 1. */
typedef struct {
    int zones;
    int64_t* start;  /**< zones + 1 offsets */
    int64_t* voxel;  /**< voxel indices, ix + nx (iy + ny iz) */
    double* weight;  /**< f_v in (0, 1] */
} mct_phantom_zone_map_t;

/** Maps n zones (MCT_PHANTOM_ZONE_COLUMNS doubles each) onto p's grid; free
 * with mct_phantom_zone_map_free. NULL_POINTER; INVALID_VALUE for n < 0 or a
 * zone that is not 0 <= lo < hi on both axes, finite; OUT_OF_MEMORY; SUCCESS. */
mct_status_t mct_phantom_zone_map(const mct_phantom_params_t* p, const double* zones, int n,
                                  mct_phantom_zone_map_t* out);

/** Frees a map and zeroes it; NULL is fine. */
void mct_phantom_zone_map_free(mct_phantom_zone_map_t* m);

/** The zones' energies of one voxel field: out[j] = sum over zone j's voxels
 * of weight * e[voxel], in the map's order. */
void mct_phantom_zone_sums(const mct_phantom_zone_map_t* m, const double* e, double* out);

/** The mass of the part of a zone inside p's grid (g) and the energy
 * deposited there per history (MeV) with its standard error, from the
 * tally's mean energy per voxel per history (mean_mev, p's grid order) and
 * its relative errors (rel_err; NULL: the error is NaN). Each voxel counts by
 * the exact volume it shares with the zone (the annulus about the beam axis,
 * x = y = 0 at the centre of the entry face, times the slab; the
 * circle-rectangle areas in closed form), its energy spread evenly over it:
 * energy = sum_v f_v E_v and mass = sum_v f_v rho_v V_v with f_v the shared
 * fraction of voxel v, so energy / mass is the zone's dose (MeV/g per
 * history) as a code scoring in the zone itself defines it, and exact
 * wherever the dose is uniform within each voxel (f_v: mct_phantom_zone_map).
 * The error treats the voxels' errors as independent (sum_v f_v^2 (E_v r_v)^2):
 * the batch covariance between neighbouring voxels, which one history's track
 * makes positive, is not in the tally's per-bin statistics, so this error is
 * too small; the zone's energies per batch (mct_phantom_params_t.zones) give
 * the whole. zone: z_lo, z_hi, r_lo, r_hi (cm). NULL_POINTER; INVALID_VALUE
 * for a zone that is not 0 <= lo < hi on both axes; OUT_OF_MEMORY; SUCCESS. */
mct_status_t mct_phantom_zone_energy(const mct_phantom_params_t* p, const double* mean_mev, const double* rel_err,
                                     const double zone[4], double* mass_g, double* energy_mev, double* err_mev);

/** The area (cm2) that the disc of radius r about x = y = 0 shares with the
 * rectangle [x0, x1] x [y0, y1] (x0 <= x1, y0 <= y1), in closed form. */
double mct_phantom_disc_rect_area(double r, double x0, double x1, double y0, double y1);

/** One zone of a lateral comparison, on the compared scale (mct_phantom_lateral_t). */
typedef struct {
    double r_lo_cm, r_hi_cm;
    double run, run_err; /**< the run's dose in the zone and its standard error (mct_phantom_lateral_t.batch_errors says how) */
    double run_err_independent; /**< the error propagated from the voxels' as if they were independent (smaller than the batch error where tracks cross several voxels) */
    double ref, ref_err; /**< the reference's */
    int compared;        /**< the reference dose is >= 5 % of the slab's largest */
    int passed;          /**< compared and within 2 %/1 mm */
} mct_phantom_lateral_zone_t;

/** The comparison of one slab of a lateral reference. */
typedef struct {
    double z_lo_cm, z_hi_cm;
    int first;           /**< its zones: zone[first .. first + zones) of mct_phantom_lateral_t, by rising r */
    int zones;           /**< the slab's zones in the reference */
    int points;          /**< of them, those compared: reference dose >= 5 % of the slab's maximum */
    int passed;          /**< of those, the ones within 2 %/1 mm */
    double ref_max;      /**< the slab's largest reference dose: MeV/g per particle (absolute), the file's scale (integral) */
    double worst_diff;   /**< the largest |difference| / ref_max of a zone that failed (of all compared, if none failed) */
    double worst_r_lo_cm, worst_r_hi_cm; /**< its annulus */
    int pass;            /**< points > 0 and passed == points */
} mct_phantom_lateral_slab_t;

/** A run's dose in a reference's zones against the reference's, slab by
 * slab (mct_phantom_lateral_compare). Normalisation: with scale > 0 the
 * reference's doses times scale are MeV/g per incident particle and are
 * compared with the run's MeV/g per history as they are (absolute; the
 * phantom's history is one incident particle); with scale 0 the run's doses
 * are scaled so that its energy (dose times zone mass, summed over every zone
 * of the compared slabs) equals the reference's (integral). The run's errors:
 * with the zones' batch energies (mct_phantom_result_t.zone_batch_mev), by the
 * batch method on each zone's energy (sim_batch_error's estimator), which
 * includes the covariance of the voxels a track deposits in; integral, on
 * each zone's share of the compared zones' energy, batch by batch to first
 * order (the residuals x_jb - R_j t_b of the ratio R_j = X_j / T), so the
 * normalisation's own error and its correlation with the zone are in it.
 * Without them, propagated from the voxels' errors as if independent (too
 * small; integral: the factor's error left out). A zone
 * whose reference dose is >= 5 % of its slab's largest passes when
 *   |d_run - d_ref| <= 2 % of the slab's largest + k sqrt(s_run^2 + s_ref^2)
 * (dose difference) or when d_ref lies between the run's doses at the
 * neighbouring annuli of the slab whose centres are within 1 mm, widened by
 * the same statistical allowance (radial distance to agreement, the run's
 * profile linear between annulus centres), as the depth-dose test of
 * mct_phantom_comparison_t does along depth. */
typedef struct {
    const char* name;     /**< as given */
    double k;             /**< the standard errors allowed */
    int absolute;         /**< 1: absolute (scale > 0), 0: integral */
    double scale;         /**< absolute: the scale given; integral: the factor the run's doses were multiplied by */
    double ratio, ratio_err; /**< absolute: the run's energy over the reference's in every zone of the compared slabs, and its standard error; integral: 1 and 0 */
    int batch_errors;     /**< 1: the run's errors by the batch method on the zones' batch energies; 0: propagated from the voxels' as independent */
    int64_t batches;      /**< batch_errors: the batches the errors come from */
    int slabs;
    mct_phantom_lateral_slab_t* slab; /**< slabs entries, by depth; mct_phantom_lateral_free frees it */
    mct_phantom_lateral_zone_t* zone; /**< every zone of the compared slabs, slab after slab; freed with slab */
    int points, passed;   /**< over all compared slabs */
    int pass;             /**< every slab passes */
} mct_phantom_lateral_t;

/** Checks a lateral reference against p's grid, before a run: every row a
 * zone with 0 <= z_lo < z_hi and 0 <= r_lo < r_hi, a dose >= 0 and an error
 * >= 0, all finite; slabs that are equal or do not overlap, and in each slab
 * annuli that do not overlap; then the slabs to compare: the one containing
 * each of the ndepths depths (z_lo <= depth < z_hi), or with ndepths 0 every
 * slab that lies inside the phantom (z_hi <= its depth), each inside the
 * phantom with every annulus inside its sides (r_hi <= half the narrower
 * lateral extent). INVALID_VALUE with one line in err naming the zone or
 * depth (the messages say "zone ... of NAME"), NOT_SUPPORTED for a source
 * other than the pencil beam, OUT_OF_MEMORY, NULL_POINTER, or SUCCESS. */
mct_status_t mct_phantom_lateral_check(const mct_phantom_params_t* p, const char* name, const double* rows, int n,
                                       const double* depths_cm, int ndepths, char* err, size_t errlen);

/** The zones mct_phantom_lateral_compare compares, for the run to record
 * per batch (mct_phantom_params_t.zones): every zone of the slabs
 * mct_phantom_lateral_check selects, slab after slab by depth, each by rising
 * r, MCT_PHANTOM_ZONE_COLUMNS doubles each, in *zones (malloc'd; free it) and
 * their count in *nzones. The errors and statuses of mct_phantom_lateral_check. */
mct_status_t mct_phantom_lateral_zones(const mct_phantom_params_t* p, const char* name, const double* rows, int n,
                                       const double* depths_cm, int ndepths, double** zones, int* nzones, char* err,
                                       size_t errlen);

/** Compares the run's dose (the tally's mean energy per voxel per history
 * and its relative errors, p's grid order) with the reference in the slabs
 * mct_phantom_lateral_check selects, at k standard errors, normalised as
 * mct_phantom_lateral_t says (scale > 0: absolute, 0: integral). With r (the
 * run's result, of p with p->zones those of mct_phantom_lateral_zones, and
 * at least 2 batches) the run's errors come from the zones' batch energies;
 * with r NULL, from the voxels' errors as independent. Fills out (free it
 * with mct_phantom_lateral_free). The errors and statuses of
 * mct_phantom_lateral_check, and INVALID_VALUE for a negative or non-finite
 * scale or k, an integral normalisation with no energy in the run or the
 * reference's zones, or an r whose zones are not the compared ones or that
 * has fewer than 2 batches. */
mct_status_t mct_phantom_lateral_compare(const mct_phantom_params_t* p, const mct_phantom_result_t* r,
                                         const double* mean_mev, const double* rel_err, const char* name,
                                         const double* rows, int n, const double* depths_cm, int ndepths, double scale,
                                         double k, mct_phantom_lateral_t* out, char* err, size_t errlen);

/** Frees out's slabs and zones and zeroes it; NULL is fine. */
void mct_phantom_lateral_free(mct_phantom_lateral_t* out);

/* The writers add their files to an output set (sim_output.h): nothing is in
 * place before the caller commits the set. IO_ERROR with set->error. */

/** Writes a 3-D grid of doubles (p's grid, nx x ny x nz, x fastest) as MetaImage DIR/NAME.mhd +
 * DIR/NAME.raw (MET_DOUBLE, little-endian, spacing dx dy dz in mm, origin at the first
 * voxel's centre in mm with the beam entering at x = y = 0, z = 0). */
mct_status_t mct_phantom_write_mhd(sim_out_set_t* set, const char* dir, const char* name, const mct_phantom_params_t* p,
                                   const double* grid);

/** Writes depth_cm, MeV per history, standard error and the dose relative to
 * the maximum as CSV. */
mct_status_t mct_phantom_write_depth_csv(sim_out_set_t* set, const char* path, const mct_phantom_depth_dose_t* dd);

/** Plots the relative depth dose as a PNG (zlib), with R50 and Rp marked by
 * vertical lines (R50 red, Rp blue) and the 50 % level dotted. */
mct_status_t mct_phantom_write_depth_png(sim_out_set_t* set, const char* path, const mct_phantom_depth_dose_t* dd,
                                         const mct_phantom_ranges_t* ranges);

/** The picture of mct_phantom_write_slice_png for p's grid: its width and height in pixels. */
void mct_phantom_slice_png_size(const mct_phantom_params_t* p, int* w, int* h);

/** Paints the dose grid's central xz plane (y = 0, through the beam axis:
 * the middle row of voxels, or the mean of the two beside it) as a PNG,
 * depth to the right and x upwards at the grid's proportions, in a colour
 * map logarithmic over three decades below the plane's maximum (0.1 % to
 * 100 %; a pencil beam's dose spans several) with a colour bar (the maximum over
 * voxels of at least 0.05 g/cm3 where there are any: air's dose to the medium
 * is clipped to the top colour), and, with a geometry, the boundaries between
 * materials in white. */
mct_status_t mct_phantom_write_slice_png(sim_out_set_t* set, const char* path, const mct_phantom_params_t* p,
                                         const double* dose);

/* ---- Reference values from the shipped tables (phantom_tables.c) ---------- */

/** XCOM linear attenuation coefficient of water at E (1/cm), without coherent
 * scattering (the engine's) or with it; log-log interpolation of the table. */
double mct_phantom_xcom_mu(double energy_MeV, int with_coherent);
/** SRD 126 mu (1/cm, with coherent), log-log interpolation. */
double mct_phantom_srd126_mu(double energy_MeV);
/** ESTAR CSDA range (cm) at T, log-log interpolation. */
double mct_phantom_estar_csda_cm(double energy_MeV);
/** The engine's range table (cm) at T for the thresholds of p: ESTAR's CSDA
 * range when both thresholds lie above the beam energy. */
double mct_phantom_engine_range_cm(const mct_phantom_params_t* p, double energy_MeV);

#ifdef __cplusplus
}
#endif

#endif /* MCT_SIM_PHANTOM_H */
