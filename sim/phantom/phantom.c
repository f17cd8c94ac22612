/* SPDX-License-Identifier: BSD-3-Clause */
/** @file phantom.c  The phantom problem's driver: checks, tables, batches and
 * chunks, and the result. The transport is in the engines (phantom_cpu.c,
 * phantom_device.cu). */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "phantom.h"
#include "phantom_engine.h"
#include "sim_common.h"

/* The defaults of the multiple scattering (transport) and the transport
 * precision (auto) are 0. */
void mct_phantom_params_init(mct_phantom_params_t* p) {
    if (!p) return;
    mct_sim_params_defaults(&mct_phantom_param_table, p, sizeof *p);
    p->particle = MCT_PHANTOM_ELECTRON;
}

void mct_phantom_grid(const mct_phantom_params_t* p, mct_phantom_grid_t* out) {
    const mct_phantom_geometry_t* g = p->geometry;
    if (g) {
        *out = (mct_phantom_grid_t){g->nx, g->ny, g->nz, g->dx_cm, g->dy_cm, g->dz_cm};
        return;
    }
    const double d = p->size_cm / p->voxels;
    *out = (mct_phantom_grid_t){p->voxels, p->voxels, p->voxels, d, d, d};
}

int64_t mct_phantom_voxel_count(const mct_phantom_params_t* p) {
    mct_phantom_grid_t g;
    mct_phantom_grid(p, &g);
    return (int64_t)g.nx * g.ny * g.nz;
}

void mct_phantom_geometry_free(mct_phantom_geometry_t* g) {
    if (!g) return;
    free(g->mat);
    free(g->density);
    free(g->storage);
    memset(g, 0, sizeof *g);
}

#define PHANTOM_PARAM(type, field) #field, MCT_SIM_PARAM_##type, offsetof(mct_phantom_params_t, field)
#define PHANTOM_FILE MCT_SIM_PARAM_FILE
#define PHANTOM_OPEN (MCT_SIM_PARAM_FILE | MCT_SIM_PARAM_MIN_OPEN)
#define PHANTOM_UNSET (MCT_SIM_PARAM_FILE | MCT_SIM_PARAM_ZERO_UNSET)

/* The tables start at 12.5 keV for electrons and 1 keV for photons and end at
 * 1 GeV; 1290^3 voxels is the largest cube a tally's 2^31 bins hold.
 *
 * Bounds that keep a run finite and its dose meaningful:
 * - size_cm >= 1e-3 (10 um): the smallest voxel, 1e-3/1290 cm, has a volume of
 *   4.7e-19 cm^3, so the dose (MeV / voxel mass) stays a normal double; a size
 *   near the smallest double makes the volume 0 and the dose NaN.
 * - step_fraction >= 1e-3: a step's energy loss must be resolved by the range
 *   table's arithmetic. The FP32 transport rounds ln E (|ln E| <= 7 over the
 *   tables) to 2^-24 relative, about 4e-7; below about 1e-6 the step's target
 *   energy rounds back onto E, and the electron either stops where it is (all
 *   its energy at entry) or takes steps that lose nothing and never ends.
 *   1e-3 keeps three orders of margin over that (FP64 has more) and bounds a
 *   primary electron to ln(1 GeV / 12.5 keV) / 1e-3 = 1.1e4 steps (each
 *   secondary to fewer). The upper bound 0.5 keeps the continuous loss of a
 *   step a small part of the energy, as class II condensed history assumes.
 * - max_step_g_cm2 >= 1e-3 (10 um of water): a primary of 1 GeV then takes
 *   at most its range over 1e-3 g/cm2, under 1e6 steps, far from
 *   MCT_PHANTOM_MAX_STEPS; 1e4 g/cm2 is longer than any range in the tables,
 *   no limit at all. */
static const mct_sim_param_t phantom_params[] = {
    {PHANTOM_PARAM(F64, size_cm), 1e-3, 1e4, PHANTOM_FILE, 40.0, "cm"},
    {PHANTOM_PARAM(INT, voxels), 1.0, 1290.0, PHANTOM_FILE, 100.0, "voxels per edge"},
    {PHANTOM_PARAM(F64, energy_MeV), 0.0, 1000.0, PHANTOM_OPEN, 20.0, "MeV"},
    {PHANTOM_PARAM(F64, electron_cutoff_MeV), 0.0125, 1000.0, PHANTOM_FILE, 0.2, "MeV"},
    {PHANTOM_PARAM(F64, photon_cutoff_MeV), 0.001, 1000.0, PHANTOM_FILE, 0.01, "MeV"},
    {PHANTOM_PARAM(F64, delta_threshold_MeV), 0.0125, 1e9, PHANTOM_UNSET, 0.0, "MeV"},
    {PHANTOM_PARAM(F64, brems_threshold_MeV), 0.001, 1e9, PHANTOM_UNSET, 0.0, "MeV"},
    {PHANTOM_PARAM(F64, step_fraction), 1e-3, 0.5, PHANTOM_FILE, 0.12, "largest fractional energy loss per step"},
    {PHANTOM_PARAM(F64, max_step_g_cm2), 1e-3, 1e4, PHANTOM_FILE, 0.4, "longest electron step, g/cm2"},
    {PHANTOM_PARAM(I64, histories), 1.0, INFINITY, 0, 1e5, NULL},
    {PHANTOM_PARAM(I64, batches), 1.0, INFINITY, 0, 10.0, NULL},
    {PHANTOM_PARAM(U64, seed), 0.0, 0x1p64, 0, 1.0, NULL},
    {PHANTOM_PARAM(INT, block_size), 32.0, 1024.0, PHANTOM_FILE, 128.0, "threads per block"},
    {PHANTOM_PARAM(INT, grid_blocks), 1.0, 2147483647.0, MCT_SIM_PARAM_ZERO_UNSET, 0.0, "blocks"},
};

MCT_SIM_PARAM_TABLE(mct_phantom_param_table, "phantom", phantom_params);

mct_phantom_transport_t mct_phantom_transport_for(const mct_phantom_params_t* p, mct_method_t method,
                                                  mct_dtype_t dtype) {
    if (p->transport != MCT_PHANTOM_TRANSPORT_AUTO) return p->transport;
    const int f32 = dtype == MCT_DTYPE_F32 || method == MCT_METHOD_KAHAN || method == MCT_METHOD_KAHAN_NAIVE;
    return f32 ? MCT_PHANTOM_TRANSPORT_F32 : MCT_PHANTOM_TRANSPORT_F64;
}

/* The table's ranges, and what relates parameters: the beam above both cut-offs. */
static int params_valid(const mct_phantom_params_t* p) {
    return !mct_sim_params_check(&mct_phantom_param_table, p, NULL) && p->energy_MeV > p->electron_cutoff_MeV &&
           p->energy_MeV > p->photon_cutoff_MeV && p->histories >= p->batches &&
           (p->particle == MCT_PHANTOM_ELECTRON || p->particle == MCT_PHANTOM_PHOTON) &&
           p->mcs == MCT_PHANTOM_MCS_TRANSPORT &&
           (unsigned)p->transport <= (unsigned)MCT_PHANTOM_TRANSPORT_F32;
}

/* Bounds on a geometry that keep the transport finite and its dose
 * meaningful: voxel edges of 0.1 um to 10 m, a box of at most 100 m, and
 * densities from 1e-4 g/cm3 (below air's 1.2e-3) to 100 g/cm3 (above any
 * material's): a particle's steps through a voxel are bounded by its range
 * over the voxel's mass thickness, which these keep finite. */
#define PHANTOM_DENSITY_MIN 1e-4
#define PHANTOM_DENSITY_MAX 100.0
static int geometry_valid(const mct_phantom_geometry_t* g) {
    if (g->nx < 1 || g->ny < 1 || g->nz < 1 || g->materials < 1 || g->materials > MCT_PHANTOM_MAX_MATERIALS ||
        !g->mat || !g->density)
        return 0;
    const double d[3] = {g->dx_cm, g->dy_cm, g->dz_cm};
    const int n[3] = {g->nx, g->ny, g->nz};
    for (int a = 0; a < 3; ++a)
        if (!(d[a] >= 1e-5 && d[a] <= 1e3 && d[a] * n[a] <= 1e4)) return 0;
    const int64_t voxels = (int64_t)g->nx * g->ny * g->nz;
    if (voxels > INT32_MAX) return 0; /* the tally's bins, and the transport's int voxel index */
    for (int64_t k = 0; k < voxels; ++k) {
        const float r = g->density[k];
        if (g->mat[k] >= g->materials || !(r >= PHANTOM_DENSITY_MIN && r <= PHANTOM_DENSITY_MAX)) return 0;
    }
    return 1;
}

mct_status_t mct_phantom_check(const mct_phantom_params_t* p, mct_tally_t tally) {
    if (!p || !tally) return MCT_STATUS_NULL_POINTER;
    if (!params_valid(p)) return MCT_STATUS_INVALID_VALUE;
    if ((unsigned)p->source > (unsigned)MCT_PHANTOM_SOURCE_FANO) return MCT_STATUS_INVALID_VALUE;
    if (p->geometry && !geometry_valid(p->geometry)) return MCT_STATUS_INVALID_VALUE;
    if (p->nzones < 0 || (p->nzones > 0 && !p->zones)) return MCT_STATUS_INVALID_VALUE;
    for (int j = 0; j < p->nzones; ++j) {
        const double* z = p->zones + (size_t)MCT_PHANTOM_ZONE_COLUMNS * j;
        if (!(z[0] >= 0.0 && z[1] > z[0] && z[2] >= 0.0 && z[3] > z[2] && isfinite(z[1]) && isfinite(z[3])))
            return MCT_STATUS_INVALID_VALUE;
    }
    mct_tally_desc_t d;
    return sim_check_float_tally(tally, mct_phantom_voxel_count(p), &d);
}

/* Histories per engine call. CPU chunks bound the deposit buffers (about
 * 10 kB per 20 MeV history); a GPU batch is one persistent launch. */
#define PHANTOM_ENGINES(suffix)                                                                                  \
    {&sim_phantom_engine_cpu##suffix, INT64_C(1) << 12, &sim_phantom_engine_emulated##suffix, INT64_C(1) << 11, \
     SIM_CUDA_ENGINE(&sim_phantom_engine_cuda##suffix, INT64_C(1) << 26)}
static const sim_engine_set_t phantom_engines = PHANTOM_ENGINES();
/* A tally whose method promises the same bits everywhere (`fixed`) runs the
 * engines whose transport has the same bits everywhere (MCT_PH_BITWISE). */
static const sim_engine_set_t phantom_engines_bitwise = PHANTOM_ENGINES(_bitwise);
#undef PHANTOM_ENGINES

/* The depth slabs (nz) and the voxels of one (nx ny). */
static void slab_shape(const mct_phantom_params_t* p, int64_t* n, int64_t* plane) {
    mct_phantom_grid_t g;
    mct_phantom_grid(p, &g);
    *n = g.nz;
    *plane = (int64_t)g.nx * g.ny;
}

/* After each batch: its size, and from the batch's own voxel energies (the
 * tally's sums of the batch it has just closed, combined over the ranks) the
 * energy of each depth slab and of each of p->zones. */
typedef struct {
    mct_tally_t tally;
    const mct_phantom_params_t* p;
    mct_phantom_result_t* r;
    const mct_phantom_zone_map_t* zones;
    double* batch; /* the batch's energy per voxel */
} batch_record_t;

static mct_status_t record_batch(void* ctx, int64_t b, int64_t histories) {
    batch_record_t* s = ctx;
    s->r->batch_histories[b] = histories;
    const mct_status_t st = mct_tally_copy_sums(s->tally, MCT_SUMS_LAST_BATCH, MCT_DTYPE_F64, s->batch, 0);
    if (st) return st;
    int64_t n, plane;
    slab_shape(s->p, &n, &plane);
    for (int64_t z = 0; z < n; ++z) {
        double slab = 0.0;
        for (int64_t k = 0; k < plane; ++k) slab += s->batch[z * plane + k];
        s->r->slab_batch_mev[b * n + z] = slab;
    }
    if (s->zones->zones > 0) mct_phantom_zone_sums(s->zones, s->batch, s->r->zone_batch_mev + b * s->zones->zones);
    return MCT_STATUS_SUCCESS;
}

/* Saved state: the batches done (int64), the engine's counters, then each
 * done batch's histories (int64) and depth slabs (double, n per batch); with
 * zones, their count (int64), the zones (MCT_PHANTOM_ZONE_COLUMNS doubles
 * each) and each done batch's zone energies (double, nzones per batch). */
static size_t phantom_state_bytes(int64_t done, int64_t n, int64_t nzones) {
    size_t bytes = sizeof(int64_t) + sizeof(mct_phantom_counters_t) + (size_t)done * (sizeof(int64_t) + (size_t)n * sizeof(double));
    if (nzones > 0)
        bytes += sizeof(int64_t) + (size_t)nzones * (MCT_PHANTOM_ZONE_COLUMNS + (size_t)done) * sizeof(double);
    return bytes;
}

typedef struct {
    const mct_sim_checkpoint_t* cp;
    const mct_phantom_params_t* p;
    const mct_phantom_result_t* r;
    const mct_phantom_counters_t* c;
} phantom_checkpoint_t;

static mct_status_t phantom_checkpoint(void* ctx, int64_t done) {
    const phantom_checkpoint_t* k = ctx;
    if (!sim_checkpoint_due(k->cp, done, k->p->batches)) return MCT_STATUS_SUCCESS;
    const int64_t n = k->r->slabs, nz = k->r->zones;
    const size_t bytes = phantom_state_bytes(done, n, nz);
    unsigned char* buf = malloc(bytes);
    if (!buf) return MCT_STATUS_OUT_OF_MEMORY;
    unsigned char* q = buf;
    memcpy(q, &done, sizeof done), q += sizeof done;
    memcpy(q, k->c, sizeof *k->c), q += sizeof *k->c;
    memcpy(q, k->r->batch_histories, (size_t)done * sizeof(int64_t)), q += (size_t)done * sizeof(int64_t);
    memcpy(q, k->r->slab_batch_mev, (size_t)(done * n) * sizeof(double)), q += (size_t)(done * n) * sizeof(double);
    if (nz > 0) {
        memcpy(q, &nz, sizeof nz), q += sizeof nz;
        memcpy(q, k->p->zones, (size_t)nz * MCT_PHANTOM_ZONE_COLUMNS * sizeof(double));
        q += (size_t)nz * MCT_PHANTOM_ZONE_COLUMNS * sizeof(double);
        memcpy(q, k->r->zone_batch_mev, (size_t)(done * nz) * sizeof(double));
    }
    const mct_status_t st = k->cp->save(k->cp->ctx, done, buf, bytes);
    free(buf);
    return st;
}

/* Resuming: the saved batches' sizes, slabs and zone energies and the
 * counters back; a state of other zones than p's is refused. */
static mct_status_t phantom_resume(const mct_sim_checkpoint_t* cp, const mct_phantom_params_t* p, int64_t done,
                                   mct_phantom_result_t* r, mct_phantom_counters_t* c) {
    const int64_t n = r->slabs, nz = r->zones;
    if (cp->resume_bytes != phantom_state_bytes(done, n, nz)) return MCT_STATUS_INVALID_VALUE;
    const unsigned char* q = (const unsigned char*)cp->resume + sizeof(int64_t);
    memcpy(c, q, sizeof *c), q += sizeof *c;
    memcpy(r->batch_histories, q, (size_t)done * sizeof(int64_t)), q += (size_t)done * sizeof(int64_t);
    memcpy(r->slab_batch_mev, q, (size_t)(done * n) * sizeof(double)), q += (size_t)(done * n) * sizeof(double);
    if (nz > 0) {
        int64_t saved;
        memcpy(&saved, q, sizeof saved), q += sizeof saved;
        const size_t zone_bytes = (size_t)nz * MCT_PHANTOM_ZONE_COLUMNS * sizeof(double);
        if (saved != nz || memcmp(q, p->zones, zone_bytes)) return MCT_STATUS_INVALID_VALUE;
        q += zone_bytes;
        memcpy(r->zone_batch_mev, q, (size_t)(done * nz) * sizeof(double));
    }
    return MCT_STATUS_SUCCESS;
}

/* Every rank's counters into everyone's *c, as one engine would have counted
 * them (sums in double: the order of the ranks' partial sums is MPI's), and
 * the transport time of the slowest rank. */
static mct_status_t combine_ranks(const mct_sim_ranks_t* ranks, mct_phantom_counters_t* c, double* seconds) {
    double sums[4] = {c->escaped, c->scored, c->uncollided, c->path_sum};
    double maxima[4] = {c->path_max, (double)c->max_stack, (double)c->overflow, *seconds};
    uint64_t adds = c->adds;
    mct_status_t st = ranks->combine_f64(ranks->ctx, sums, 4, SIM_RANKS_SUM);
    if (!st) st = ranks->combine_f64(ranks->ctx, maxima, 4, SIM_RANKS_MAX);
    if (!st) st = ranks->combine_u64(ranks->ctx, &adds, 1, SIM_RANKS_SUM);
    if (st) return st;
    c->escaped = sums[0], c->scored = sums[1], c->uncollided = sums[2], c->path_sum = sums[3];
    c->path_max = maxima[0], c->max_stack = (unsigned)maxima[1], c->overflow = (unsigned)maxima[2];
    c->adds = adds;
    *seconds = maxima[3];
    return MCT_STATUS_SUCCESS;
}

/* The batches through the engines; their counters into *c. */
static mct_status_t run_engine(const mct_phantom_params_t* p, const sim_phantom_problem_t* problem,
                               const sim_engine_set_t* engines, mct_tally_t tally, const mct_phantom_zone_map_t* zones,
                               mct_phantom_result_t* r, mct_phantom_counters_t* c) {
    batch_record_t rec = {tally, p, r, zones, malloc((size_t)mct_phantom_voxel_count(p) * sizeof(double))};
    mct_status_t st = sim_ranks_agree(p->ranks, rec.batch ? MCT_STATUS_SUCCESS : MCT_STATUS_OUT_OF_MEMORY);
    /* A history's deposits are not known in advance: a sort_reduce pair
     * buffer holds a batch's. */
    sim_run_t run = {.engines = engines, .problem = problem, .tally = tally, .histories = p->histories,
                     .batches = p->batches, .replicas = SIM_REPLICAS_SHARE, .batch_done = record_batch,
                     .batch_ctx = &rec, .progress = p->progress, .progress_ctx = p->progress_ctx, .finish_out = c,
                     .ranks = p->ranks};
    phantom_checkpoint_t cp = {p->checkpoint, p, r, c};
    if (!st) st = sim_resume_start(p->checkpoint, tally, p->histories, p->batches, &run.first_batch);
    if (!st && run.first_batch > 0) st = phantom_resume(p->checkpoint, p, run.first_batch, r, c);
    if (p->checkpoint && p->checkpoint->save) run.checkpoint = phantom_checkpoint, run.checkpoint_ctx = &cp;
    if (!st) st = sim_run(&run);
    r->kernel_seconds = run.engine_seconds;
    if (!st && p->ranks) st = combine_ranks(p->ranks, c, &r->kernel_seconds);
    free(rec.batch);
    return st;
}

mct_status_t mct_phantom_sort_reduce_pairs(const mct_phantom_params_t* p, int64_t* pairs, int64_t* fit) {
    if (!p || !pairs) return MCT_STATUS_NULL_POINTER;
    if ((!p->geometry && p->voxels < 1) || p->batches < 1) return MCT_STATUS_INVALID_VALUE;
    mct_phantom_grid_t g;
    mct_phantom_grid(p, &g);
    const double voxel_cm = fmin(g.dx_cm, fmin(g.dy_cm, g.dz_cm));
    const double per_history = 40.0 * p->energy_MeV * (voxel_cm < 0.4 ? 0.4 / voxel_cm : 1.0) + 100.0;
    const double batch = ceil((double)p->histories / (double)p->batches);
    const double estimate = batch * per_history;
    *pairs = estimate > 9e18 ? INT64_MAX : (int64_t)estimate;
    if (*pairs <= MCT_PHANTOM_MAX_PAIRS) return MCT_STATUS_SUCCESS;
    if (fit) *fit = (int64_t)floor((double)MCT_PHANTOM_MAX_PAIRS / ((double)*pairs / batch));
    return MCT_STATUS_TOO_LARGE;
}

void mct_phantom_result_free(mct_phantom_result_t* r) {
    if (!r) return;
    free(r->slab_batch_mev);
    free(r->zone_batch_mev);
    free(r->batch_histories);
    r->slab_batch_mev = NULL;
    r->zone_batch_mev = NULL;
    r->batch_histories = NULL;
}

/* The relative standard error of the energy deposited, from each batch's
 * total over the depth slabs. */
static double deposited_rel_err(const mct_phantom_result_t* r) {
    double n = 0.0, sum = 0.0;
    double* totals = malloc((size_t)r->batches * sizeof *totals);
    if (!totals) return NAN;
    for (int64_t b = 0; b < r->batches; ++b) {
        n += (double)r->batch_histories[b];
        totals[b] = 0.0;
        for (int z = 0; z < r->slabs; ++z) {
            sum += r->slab_batch_mev[b * r->slabs + z];
            totals[b] += r->slab_batch_mev[b * r->slabs + z];
        }
    }
    const double err = sim_batch_error(totals, 1, r->batch_histories, r->batches, sum, n) / (sum / n);
    free(totals);
    return err;
}

static double tally_total(mct_tally_t tally, int64_t bins) {
    double* sums = malloc((size_t)bins * sizeof *sums);
    double total = NAN;
    if (sums && mct_tally_sums(tally, sums) == MCT_STATUS_SUCCESS) {
        total = 0.0;
        for (int64_t k = 0; k < bins; ++k) total += sums[k];
    }
    free(sums);
    return total;
}

/* The water cube of p as a geometry: the built-in water at 1 g/cm3. */
static mct_status_t water_cube(const mct_phantom_params_t* p, mct_phantom_geometry_t* g) {
    mct_phantom_material_t water;
    mct_status_t st = mct_phantom_material_builtin("water", &water);
    return st ? st : mct_phantom_geometry_cube(p->voxels, p->size_cm, "water", 1.0, &water, 1, g, NULL, 0);
}

/* The Fano source's table: cdf[k] = mass of voxels 0..k over the total (the
 * last exactly 1), in double so that a voxel of 1e-9 of the mass keeps its share. */
static mct_status_t mass_cdf(const mct_phantom_geometry_t* g, double** out) {
    const int64_t voxels = (int64_t)g->nx * g->ny * g->nz;
    double* cdf = malloc((size_t)voxels * sizeof *cdf);
    if (!cdf) return MCT_STATUS_OUT_OF_MEMORY;
    double sum = 0.0;
    for (int64_t k = 0; k < voxels; ++k) cdf[k] = sum += (double)g->density[k];
    for (int64_t k = 0; k < voxels; ++k) cdf[k] /= sum;
    cdf[voxels - 1] = 1.0;
    *out = cdf;
    return MCT_STATUS_SUCCESS;
}

/* The densest voxel of each material (0 where no voxel is of it): the
 * photons' majorant (MCT_PH(photon_fly_het)). */
static void densest(const mct_phantom_geometry_t* g, float rho_max[MCT_PHANTOM_MAX_MATERIALS]) {
    for (int m = 0; m < MCT_PHANTOM_MAX_MATERIALS; ++m) rho_max[m] = 0.0f;
    const int64_t voxels = (int64_t)g->nx * g->ny * g->nz;
    for (int64_t k = 0; k < voxels; ++k)
        if (g->density[k] > rho_max[g->mat[k]]) rho_max[g->mat[k]] = g->density[k];
}

mct_status_t mct_phantom_run(const mct_phantom_params_t* p, mct_tally_t tally, mct_phantom_result_t* out) {
    mct_tally_desc_t d;
    mct_status_t st = sim_run_start(out, mct_phantom_check(p, tally), tally, &d);
    if (st) return st;
    const double t0 = sim_now_seconds();
    *out = (mct_phantom_result_t){0};
    int64_t slabs, plane;
    slab_shape(p, &slabs, &plane);
    out->batches = p->batches;
    out->slabs = (int)slabs;
    out->zones = p->nzones;
    /* batches x slabs and batches x zones doubles, the products checked: a
     * count past the address space is TOO_LARGE, not a wrapped (small) allocation. */
    const uint64_t per_batch = (uint64_t)slabs > (uint64_t)p->nzones ? (uint64_t)slabs : (uint64_t)p->nzones;
    const int fits = (uint64_t)p->batches <= (uint64_t)PTRDIFF_MAX / sizeof(double) / per_batch;
    out->slab_batch_mev = fits ? calloc((size_t)p->batches * (size_t)slabs, sizeof(double)) : NULL;
    out->zone_batch_mev = fits && p->nzones > 0 ? calloc((size_t)p->batches * (size_t)p->nzones, sizeof(double)) : NULL;
    out->batch_histories = fits ? calloc((size_t)p->batches, sizeof(int64_t)) : NULL;
    if (!fits)
        st = MCT_STATUS_TOO_LARGE;
    else if (!out->slab_batch_mev || !out->batch_histories || (p->nzones > 0 && !out->zone_batch_mev))
        st = MCT_STATUS_OUT_OF_MEMORY;
    /* The zones' voxels and their shares, once for the run. */
    mct_phantom_zone_map_t zones = {0};
    if (!st) st = mct_phantom_zone_map(p, p->zones, p->nzones, &zones);
    /* The Fano source needs voxels of their own density: the water cube
     * becomes a geometry of one material at 1 g/cm3. */
    mct_phantom_geometry_t cube = {0};
    const mct_phantom_geometry_t* geom = p->geometry;
    if (!st && !geom && p->source == MCT_PHANTOM_SOURCE_FANO) {
        st = water_cube(p, &cube);
        geom = &cube;
    }
    const int materials = geom ? geom->materials : 1;
    sim_phantom_tables_t tables[MCT_PHANTOM_MAX_MATERIALS] = {{0}};
    for (int m = 0; !st && m < materials; ++m) st = sim_phantom_tables_build(p, geom ? &geom->material[m] : NULL, &tables[m]);
    double* cdf = NULL;
    if (!st && p->source == MCT_PHANTOM_SOURCE_FANO) st = mass_cdf(geom, &cdf);
    /* What each rank made for itself, agreed before the ranks' batches. */
    st = sim_ranks_agree(p->ranks, st);
    sim_phantom_problem_t problem = {p, tables, materials, mct_phantom_transport_for(p, d.method, d.dtype), geom,
                                     cdf, {0.0f}};
    if (!st && geom) densest(geom, problem.rho_max);
    mct_phantom_counters_t c = {0};
    const sim_engine_set_t* engines =
        mct_method_determinism(d.method, d.dtype) == MCT_BITWISE ? &phantom_engines_bitwise : &phantom_engines;
    if (!st) st = run_engine(p, &problem, engines, tally, &zones, out, &c);
    mct_phantom_zone_map_free(&zones);
    for (int m = 0; m < materials; ++m) sim_phantom_tables_free(&tables[m]);
    free(cdf);
    mct_phantom_geometry_free(&cube);
    if (st) {
        mct_phantom_result_free(out);
        return st;
    }
    out->incident_MeV = (double)p->histories * p->energy_MeV;
    out->deposited_MeV = tally_total(tally, d.bins);
    out->deposited_rel_err = deposited_rel_err(out);
    out->escaped_MeV = c.escaped;
    out->energy_balance_rel = (out->deposited_MeV + out->escaped_MeV - out->incident_MeV) / out->incident_MeV;
    out->scored_MeV = c.scored;
    out->tally_vs_scored_rel = (out->deposited_MeV - out->scored_MeV) / out->scored_MeV;
    out->uncollided = c.uncollided;
    out->uncollided_fraction = c.uncollided / (double)p->histories;
    if (p->particle == MCT_PHANTOM_PHOTON && !p->geometry && p->source == MCT_PHANTOM_SOURCE_BEAM) {
        out->mu_per_cm = mct_phantom_xcom_mu(p->energy_MeV, 0);
        out->uncollided_expected = exp(-out->mu_per_cm * p->size_cm);
    }
    out->delta_threshold_MeV = p->delta_threshold_MeV > 0.0 ? p->delta_threshold_MeV : MCT_PHANTOM_DELTA_DEFAULT_MEV;
    out->brems_threshold_MeV = p->brems_threshold_MeV > 0.0 ? p->brems_threshold_MeV : p->photon_cutoff_MeV;
    out->primary_path_mean_cm = p->particle == MCT_PHANTOM_ELECTRON ? c.path_sum / (double)p->histories : 0.0;
    out->primary_path_max_cm = c.path_max;
    out->adds = (double)c.adds;
    out->max_stack = (int)c.max_stack;
    out->transport = problem.transport;
    out->seconds = sim_now_seconds() - t0;
    /* A full stack kept the energy but changed the physics: not a valid run. */
    return c.overflow ? MCT_STATUS_OVERFLOW : MCT_STATUS_SUCCESS;
}
