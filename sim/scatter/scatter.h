/* SPDX-License-Identifier: BSD-3-Clause */
/** @file scatter.h  Westphal's scatter workload: n particles, each in one of B
 * cells, each adding `width` double components into its cell (the MPC
 * "rotate" kernel: 10^7 particles, 10^6 cells, 9 components). The tally has
 * B x width bins; particle i adds component c into bin key_i x width + c.
 * Keys follow a pattern (uniform, sorted by cell, one hot cell) and values are
 * uniform on (0, 1] (scatter_inputs.h: the same numbers on every backend).
 *
 * Per chunk of particles the engine writes the keys (u32) and the values
 * (component by component: value c of particle i at values[c * stride + i])
 * into the backend's memory (a generator kernel on cuda, OpenMP loops on the
 * host for cpu and emulated) and adds them with
 * mct_tally_add_device_grouped, the tally's own method.
 *
 * References: the total against its expectation n x width / 2 within
 * statistics (a U(0, 1] value has variance 1/12), and, when checked, every
 * bin against a host sum in long double, within a bound derived for the
 * tally's type and method (mct_scatter_bin_bound). */
#ifndef MCT_SIM_SCATTER_H
#define MCT_SIM_SCATTER_H

#include <stdint.h>

#include "mctally/mct_tally.h"
#include "sim_ranks.h"
#include "scatter_inputs.h"
#include "sim_params.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Whether to compare every bin with a host reference. */
typedef enum {
    MCT_SCATTER_CHECK_AUTO = 0,  /**< when n <= MCT_SCATTER_CHECK_AUTO_MAX */
    MCT_SCATTER_CHECK_ALWAYS = 1,
    MCT_SCATTER_CHECK_NEVER = 2
} mct_scatter_check_t;

/** Largest n the AUTO check compares bin by bin (a few seconds on the host). */
#define MCT_SCATTER_CHECK_AUTO_MAX INT64_C(10000000)
/** Largest width (components per particle). */
#define MCT_SCATTER_MAX_WIDTH 1024

typedef struct {
    int64_t n;           /**< particles (updates of `width` values each), >= batches */
    int64_t bins;        /**< cells B >= 1, with B x width <= 2^31 (the tally's bins) */
    int width;           /**< components per particle, 1 .. MCT_SCATTER_MAX_WIDTH */
    mct_scatter_pattern_t pattern;
    uint64_t seed;
    int64_t batches;     /**< >= 1 */
    int64_t chunk;       /**< most particles per add; 0 = chosen by the problem */
    mct_scatter_check_t check;
    void (*progress)(void* ctx, int64_t done, int64_t total); /**< optional, after every batch */
    void* progress_ctx;
    const mct_sim_ranks_t* ranks; /**< optional: the ranks sharing the run (sim_ranks.h); NULL: this process alone */
} mct_scatter_params_t;

typedef struct {
    double total;              /**< sum of every bin over all batches */
    double expected;           /**< n x width / 2 */
    double std_error;          /**< sqrt(n x width / 12): the sampling spread of the total */
    double z_score;            /**< (total - expected) / std_error */
    int checked;               /**< 1 when the bins were compared with the host reference */
    int check_passed;          /**< every bin within its bound (1 when not checked) */
    double max_rel_dev;        /**< largest |bin - reference| / reference over non-empty bins */
    double max_dev_over_bound; /**< largest |bin - reference| / bound; <= 1 passes */
    int64_t worst_bin;         /**< the bin of max_dev_over_bound */
    int64_t updates;           /**< n x width */
    double seconds;            /**< wall time of the run, without the reference */
    double updates_per_second;
} mct_scatter_result_t;

/** The ranges and defaults of the numeric parameters (sim_params.h): n,
 * bins, width, batches, seed and chunk, and the problem file's [scatter] keys. A
 * tally's bins bound bins x width as well (2^31). */
extern const mct_sim_param_table_t mct_scatter_param_table;

/** Defaults: 10^6 particles, 1000 cells, width 1, uniform, seed 1, 10 batches, check AUTO. */
void mct_scatter_params_init(mct_scatter_params_t* p);

/** "uniform", "sorted", "hot"; "invalid" out of range. */
const char* mct_scatter_pattern_name(mct_scatter_pattern_t pattern);
/** INVALID_VALUE for an unknown name, NULL_POINTER for NULL arguments. */
mct_status_t mct_scatter_pattern_from_name(const char* name, mct_scatter_pattern_t* out);

/** Checks the parameters against the tally. Returns NULL_POINTER;
 * INVALID_VALUE (parameters out of range, a tally without B x width bins,
 * sort_reduce whose pair buffer cannot hold one particle's values);
 * NOT_SUPPORTED (an integer tally: the values are fractions; `shared` with
 * more bins than 48 KiB of shared memory holds). */
mct_status_t mct_scatter_check(const mct_scatter_params_t* p, mct_tally_t tally);

/** Largest |bin - exact sum| the tally `desc` may show for a bin that took
 * `count` values of total magnitude `sum_abs` over `batches` batches
 * (first-order error bounds of the type and method; see scatter.c). */
double mct_scatter_bin_bound(const mct_tally_desc_t* desc, int64_t count, double sum_abs, int64_t batches);

/** Runs the workload into `tally` (any backend, the tally's method) and
 * fills `out`. Besides mct_scatter_check's statuses: whatever the adds,
 * mct_tally_end_batch or the backend return. A failed bin check is not an
 * error status: out->check_passed says it. */
mct_status_t mct_scatter_run(const mct_scatter_params_t* p, mct_tally_t tally, mct_scatter_result_t* out);

#ifdef __cplusplus
}
#endif

#endif /* MCT_SIM_SCATTER_H */
