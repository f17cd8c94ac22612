/* SPDX-License-Identifier: BSD-3-Clause */
/** @file plan.h  Internal interface of the planner: the estimate model
 * (plan_model.c), the key classifier, the wisdom store (wisdom.c) and the
 * planning entry the tally handle calls (plan.c). */
#ifndef MCT_PLAN_INTERNAL_H
#define MCT_PLAN_INTERNAL_H

#include "mctally/mct_plan.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Statistics of a key sample (keys are cells: bins / width of them). */
typedef struct {
    mct_key_pattern_t pattern;
    double distinct_per_warp; /* mean distinct keys among 32 consecutive keys */
    double mean_run;          /* mean length of runs of one key */
    double hot_share;         /* share of the most frequent key */
    double ascending;         /* share of neighbours with keys[i+1] >= keys[i] */
} mct__key_stats_t;

/** Classes a key sample over `cells` cells (cells = bins / width). */
void mct__plan_classify(const uint32_t* keys, int64_t n, int64_t cells, mct__key_stats_t* out);

/** What the estimate model needs to know about a workload. */
typedef struct {
    mct_backend_t backend; /* concrete */
    int64_t bins;
    mct_dtype_t dtype;
    int width;
    mct_adds_t adds;
    int threads; /* CPU: OpenMP threads */
} mct__plan_workload_t;

/** Predicted seconds per update of `method` for the workload under `pattern`
 * (a concrete pattern, not UNKNOWN); negative when the model has no figure
 * (the method cannot serve the case). `why` gets the rule's source (may be NULL). */
double mct__plan_model(const mct__plan_workload_t* w, mct_key_pattern_t pattern, mct_method_t method, const char** why);

/** Shared memory a method's per-block copy needs on the device backends, 0 when
 * the method keeps none; > MCT_BLOCK_TALLY_SMEM_LIMIT: does not fit. */
size_t mct__plan_shared_bytes(mct_method_t method, mct_dtype_t dtype, int64_t bins);

/* ---- Wisdom (wisdom.c) ------------------------------------------------------- */

#define MCT__WISDOM_VERSION 1

typedef struct {
    char device[96];
    int cc; /* compute capability major*10+minor; 0 off the GPU */
    mct_backend_t backend;
    mct_dtype_t dtype;
    int bins_log2; /* ceil(log2(bins)) */
    int width;
    mct_adds_t adds;
    mct_determinism_t determinism;
    double max_rel_loss;
    int adds_log2; /* ceil(log2(adds_per_bin)); -1 unknown */
    mct_key_pattern_t pattern;
    uint32_t method_mask;
    int fixed_frac_bits;
} mct__wisdom_key_t;

/** The plan saved for `key`: SUCCESS, or NOT_SUPPORTED when there is none made
 * by at least `mode`. */
mct_status_t mct__wisdom_lookup(mct_wisdom_t w, const mct__wisdom_key_t* key, mct_plan_mode_t mode,
                                mct_method_t* method, double* seconds_per_update);
/** Records a plan (replacing the one of the same key). */
mct_status_t mct__wisdom_store(mct_wisdom_t w, const mct__wisdom_key_t* key, mct_plan_mode_t mode, mct_method_t method,
                               double seconds_per_update);

/* ---- Planning (plan.c) ------------------------------------------------------- */

/** What a plan learnt beyond its descriptor: the class of the key sample, the
 * memory free, the threads and the wisdom's answer. With the descriptor, they
 * make the same plan again, after the sample and the wisdom are gone. */
typedef struct {
    mct_method_t asked; /* the descriptor's method: AUTO or the one named */
    mct__key_stats_t keys;
    mct_key_pattern_t pattern;
    size_t free_bytes;
    int threads;
    int wisdom_hit; /* the plan is the wisdom's: */
    mct_method_t wisdom_method;
    double wisdom_spu;
} mct__plan_facts_t;

/** Plans for a descriptor whose backend is resolved; fills info (also on
 * UNSATISFIABLE). Called by mct_tally_create for AUTO and named methods, with
 * the device name its probe found (the backend is then known to be here);
 * NULL makes the planner probe; and with the device's free bytes (NULL:
 * unknown, the planner asks when the answer matters). With explain == 0 the reasons (info->reason
 * and each entry's why) stay empty unless the plan measures: writing them is
 * most of a plan's time, and a tally's plan is read far less often than it is
 * made. `facts` (may be NULL) gets what mct__plan_explain needs. */
mct_status_t mct__plan_resolved(const mct_tally_desc_t* desc, const char* device_name, const size_t* device_free,
                                int explain, mct__plan_facts_t* facts, mct_plan_info_t* info);
/** Writes the reasons of a plan made without them: the same plan again from
 * its descriptor (method and sample as resolved are ignored) and facts, with
 * info->seconds kept. A plan that has its reason is left as it is. */
mct_status_t mct__plan_explain(const mct_tally_desc_t* desc, const char* device_name, const mct__plan_facts_t* facts,
                               mct_plan_info_t* info);

/** Checks the planning fields of a descriptor (INVALID_VALUE, UNKNOWN_*). */
mct_status_t mct__plan_validate(const mct_tally_desc_t* desc);
/** fixed_frac_bits from a declared fixed_bound (> 0; validated by the caller). */
void mct__fixed_bound_resolve(mct_tally_desc_t* desc);

/** Wall clock in seconds. */
double mct__plan_now(void);

#ifdef __cplusplus
}
#endif

#endif /* MCT_PLAN_INTERNAL_H */
