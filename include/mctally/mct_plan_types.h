/* SPDX-License-Identifier: BSD-3-Clause */
/** @file mct_plan_types.h  The types of the method planner (mct_plan.h) that a
 * tally's descriptor (mct_tally.h) names: plan modes, key-pattern classes, where
 * adds come from, the wisdom handle and what a plan reports. */
#ifndef MCT_PLAN_TYPES_H
#define MCT_PLAN_TYPES_H

#include "mctally/mct_types.h"

#ifdef __cplusplus
extern "C" {
#endif

/** How the planner ranks the admissible methods (FFTW's modes). */
typedef enum {
    MCT_PLAN_ESTIMATE = 0, /**< a model of the workload, no timing (microseconds) */
    MCT_PLAN_MEASURE = 1   /**< times the candidates on the tally's backend, within plan_budget_s */
} mct_plan_mode_t;

/** Where a tally's method came from. */
typedef enum {
    MCT_PLAN_SOURCE_EXPLICIT = 0, /**< the descriptor named a concrete method */
    MCT_PLAN_SOURCE_ESTIMATE = 1,
    MCT_PLAN_SOURCE_MEASURE = 2,
    MCT_PLAN_SOURCE_WISDOM = 3 /**< a plan saved earlier for the same key (mct_wisdom_t) */
} mct_plan_source_t;

/** The shape of the keys, as the planner classes it (from a key sample) or as
 * the caller states it. */
typedef enum {
    MCT_PATTERN_UNKNOWN = 0, /**< no sample, no hint: the planner takes the method that is best in the worst pattern */
    MCT_PATTERN_UNIFORM = 1, /**< keys spread over the bins, few repeats within a warp */
    MCT_PATTERN_SORTED = 2,  /**< ascending runs of one key */
    MCT_PATTERN_HOT = 3,     /**< one bin takes a large share of the adds */
    MCT_PATTERN_FEW = 4,     /**< a few distinct keys per warp, in no order */
    MCT_PATTERN_COUNT
} mct_key_pattern_t;

/** Where the tally's adds come from. */
typedef enum {
    MCT_ADDS_ARRAYS = 0, /**< mct_tally_add / _add_device[_grouped]: the library's add kernels */
    MCT_ADDS_KERNEL = 1  /**< the caller's kernels, through the view (mct_add, mct_block_tally) */
} mct_adds_t;

/** A set of saved plans (mct_plan.h); not thread-safe. */
typedef struct mct_wisdom_s* mct_wisdom_t;

/** One method as the planner judged it. */
typedef struct {
    mct_method_t method;
    int admissible;            /**< 1 when it serves the type and backend and meets the needs */
    double seconds_per_update; /**< predicted (estimate) or measured; negative: not ranked */
    char why[120];             /**< why it is admissible or not, or what was measured */
} mct_plan_entry_t;

/** What a plan chose and why (mct_tally_plan_info, mct_plan). */
typedef struct {
    mct_method_t method;        /**< the concrete method chosen */
    mct_plan_source_t source;
    mct_plan_mode_t mode;       /**< the mode asked for */
    mct_backend_t backend;      /**< the backend planned for (resolved) */
    mct_key_pattern_t pattern;  /**< the key pattern planned for */
    double distinct_per_warp;   /**< key sample: mean distinct keys per 32 consecutive keys (0: no sample) */
    double mean_run;            /**< key sample: mean length of runs of one key */
    double hot_share;           /**< key sample: share of the hottest key */
    double seconds;             /**< wall time spent planning */
    char reason[240];           /**< one line: why this method */
    int nentries;               /**< entries of ranking: the methods considered */
    mct_plan_entry_t ranking[MCT_METHOD_COUNT]; /**< admissible first, fastest first */
    mct_status_t wisdom_status; /**< SUCCESS, or WISDOM_IGNORED when the wisdom had to be ignored */
} mct_plan_info_t;

#ifdef __cplusplus
}
#endif

#endif /* MCT_PLAN_TYPES_H */
