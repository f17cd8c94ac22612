/* SPDX-License-Identifier: BSD-3-Clause */
/** @file mct_plan.h  The method planner: which concrete method a tally created
 * with MCT_METHOD_AUTO gets, and why.
 *
 * Requirements first, speed second. The descriptor says what the caller needs
 * (determinism, and for float tallies the largest relative rounding loss per
 * bin); a method is admissible when it serves the type and backend
 * (mct_method_supports), gives at least that determinism
 * (mct_method_determinism), keeps the predicted rounding loss within the bound
 * (mct_plan_rounding_loss), fits (shared memory, replicas) and is in the
 * descriptor's method_mask. Among the admissible methods the planner takes the
 * fastest, as FFTW plans:
 *  - ESTIMATE: a model, no timing. On the CUDA backend it is a table of the
 *    measured H100 throughputs by bin count, key pattern, width and where the
 *    adds come from (src/common/plan_model.c names the file of each row); on
 *    the CPU and the emulation, the operations each method costs there.
 *  - MEASURE: times the estimate's leading admissible candidates (four) on the
 *    tally's own backend with scratch tallies and mct_tally_add_device_grouped,
 *    on the caller's key sample repeated (or synthetic keys of the same
 *    pattern) to a size where the adds dominate, within plan_budget_s and,
 *    when adds_per_bin announces the batch, within 2 % of its predicted time
 *    (a batch too small for one measurement keeps the estimate).
 *  - wisdom: a plan saved for the same device, backend, type, bin count class,
 *    width, needs and pattern is reused (mct_wisdom_t); new plans are recorded.
 *
 * Example:
 *
 *     mct_tally_desc_t d;
 *     mct_tally_desc_init(&d);              // method AUTO, ESTIMATE
 *     d.bins = 1000000; d.dtype = MCT_DTYPE_F32;
 *     d.max_rel_loss = 1e-6; d.adds_per_bin = 1e5;  // f32 atomics would lose ~6e-3
 *     mct_tally_t t;
 *     mct_tally_create(&t, &d);             // resolves to kahan
 *     mct_plan_info_t info;
 *     mct_tally_plan_info(t, &info);        // info.method, info.reason, info.ranking
 */
#ifndef MCT_PLAN_H
#define MCT_PLAN_H

#include <stddef.h>
#include <stdint.h>

#include "mctally/mct_plan_types.h"
#include "mctally/mct_tally.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Plans for `desc` without creating its tally: the method mct_tally_create
 * would give it, the ranking and the reason. A concrete desc->method is judged
 * against the needs (source EXPLICIT). ESTIMATE works for every backend value,
 * also CUDA on a machine without a GPU (the model needs no device); MEASURE and
 * wisdom need the backend present. Returns SUCCESS; UNSATISFIABLE when no
 * method meets the needs (info->reason says what to change, the ranking why
 * each method is out); NULL_POINTER; INVALID_VALUE, UNKNOWN_* for a bad
 * descriptor; BACKEND_UNAVAILABLE (MEASURE without the backend). */
MCT_API mct_status_t mct_plan(const mct_tally_desc_t* desc, mct_plan_info_t* info);

/** The plan of a created tally (source EXPLICIT for a named method). The
 * reasons are written on the first call (mct_tally_create plans without them,
 * which is most of a plan's time), so that call is not safe beside another
 * call on the same tally from another thread; later calls only copy. */
MCT_API mct_status_t mct_tally_plan_info(mct_tally_t tally, mct_plan_info_t* info);

/** The planner's conservative prediction of the relative rounding loss of one
 * bin after `adds_per_bin` similar adds, for the method and type (0 for
 * integer types; 1 means the sum may be lost entirely). A negative
 * adds_per_bin (unknown) gives the loss at 2^32 adds. Argued in
 * src/common/plan_model.c. */
MCT_API double mct_plan_rounding_loss(mct_dtype_t dtype, mct_method_t method, double adds_per_bin, int fixed_frac_bits);

/** Names: "estimate"/"measure"; "explicit"/"estimate"/"measure"/"wisdom";
 * "unknown"/"uniform"/"sorted"/"hot"/"few"; "arrays"/"kernel". "invalid"
 * out of range. Never NULL. */
MCT_API const char* mct_plan_mode_name(mct_plan_mode_t mode);
MCT_API const char* mct_plan_source_name(mct_plan_source_t source);
MCT_API const char* mct_key_pattern_name(mct_key_pattern_t pattern);
MCT_API const char* mct_adds_name(mct_adds_t adds);
/** Parse the names above; INVALID_VALUE for an unknown one. */
MCT_API mct_status_t mct_plan_mode_from_name(const char* name, mct_plan_mode_t* out);
MCT_API mct_status_t mct_key_pattern_from_name(const char* name, mct_key_pattern_t* out);
MCT_API mct_status_t mct_determinism_from_name(const char* name, mct_determinism_t* out);

/* ---- Wisdom: saved plans, a handle the descriptor may point to ---------------
 * A plan is saved under a key: device name and compute capability, backend,
 * type, bin count class (ceil of log2), width, where adds come from, the
 * determinism and accuracy needs, the adds-per-bin class, the key pattern and
 * the method mask. A plan is reused only by a plan of the same or a less
 * thorough mode, and only while its method is still admissible. The text is
 * JSON with a format version; text of another version, or corrupt or
 * truncated text, is ignored whole (WISDOM_IGNORED, the handle unchanged). */

/** A new, empty wisdom. */
MCT_API mct_status_t mct_wisdom_create(mct_wisdom_t* out);
/** Frees it; NULL is a no-op. */
MCT_API void mct_wisdom_destroy(mct_wisdom_t wisdom);
/** Plans held. */
MCT_API int64_t mct_wisdom_count(mct_wisdom_t wisdom);
/** Adds the plans of `text` (replacing those of the same key). SUCCESS;
 * WISDOM_IGNORED (corrupt, truncated, another format version: nothing added;
 * mct_wisdom_message says what); NULL_POINTER. */
MCT_API mct_status_t mct_wisdom_import_string(mct_wisdom_t wisdom, const char* text);
/** As import_string from a file. IO_ERROR when it cannot be read (a missing
 * file is the first run's case), else as import_string. */
MCT_API mct_status_t mct_wisdom_import_file(mct_wisdom_t wisdom, const char* path);
/** The plans as text; free it with mct_wisdom_free_string. */
MCT_API mct_status_t mct_wisdom_export_string(mct_wisdom_t wisdom, char** text);
MCT_API void mct_wisdom_free_string(char* text);
/** Writes the plans to `path` atomically: a temporary file beside it, flushed,
 * then renamed over it, so a reader sees the old file or the new one. Only
 * over wisdom: INVALID_VALUE, and the file left as it is, when `path` holds
 * anything else (mct_wisdom_file_writable); IO_ERROR when it cannot be written
 * (the old file is left as it was). mct_wisdom_message says which. */
MCT_API mct_status_t mct_wisdom_export_file(mct_wisdom_t wisdom, const char* path);
/** Whether mct_wisdom_export_file may write `path`: SUCCESS when it does not
 * exist, is empty, or holds mctally wisdom of any format version, or damaged
 * wisdom whose first 256 bytes still name the format (such wisdom is
 * replaced); INVALID_VALUE when it is not a regular file or holds anything
 * else; IO_ERROR when it exists but cannot be read. */
MCT_API mct_status_t mct_wisdom_file_writable(const char* path);
/** The last import's warning, or why the last export refused ("" when none). Never NULL. */
MCT_API const char* mct_wisdom_message(mct_wisdom_t wisdom);

#ifdef __cplusplus
}
#endif

#endif /* MCT_PLAN_H */
