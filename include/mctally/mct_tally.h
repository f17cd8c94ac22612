/* SPDX-License-Identifier: BSD-3-Clause */
/** @file mct_tally.h  Host C API of a tally: create from a descriptor, add from
 * kernels through a device view, close batches, read mean and relative error.
 *
 * A tally is B bins of one value type that many threads add into. A run is split
 * into batches; every batch's bin sums are folded into per-bin batch statistics
 * (Welford's running mean and variance of the per-history batch means), so each
 * bin carries its mean per history and the standard error of that mean.
 *
 * Backends: the same calls serve MCT_BACKEND_CPU, _CUDA and _EMULATED. Results
 * may differ between backends only where the method's determinism allows
 * (mct_method_determinism): integer tallies are bitwise equal everywhere.
 *
 * Example (host side of a user's transport code):
 *
 *     mct_tally_desc_t d;
 *     mct_tally_desc_init(&d);
 *     d.bins = 1000; d.dtype = MCT_DTYPE_F64; d.method = MCT_METHOD_ATOMIC;
 *     mct_tally_t t;
 *     if (mct_tally_create(&t, &d) != MCT_STATUS_SUCCESS) ...;
 *     for (b = 0; b < batches; ++b) {
 *         mct_tally_view_t v; mct_tally_view(t, &v);
 *         ... launch kernels that add into v (device/mct_tally_device.cuh) ...
 *         mct_tally_end_batch(t, histories_in_batch);
 *     }
 *     mct_tally_results(t, mean, rel_err);
 *     mct_tally_destroy(t);
 */
#ifndef MCT_TALLY_H
#define MCT_TALLY_H

#include <stddef.h>
#include <stdint.h>

#include "mctally/mct_plan_types.h"
#include "mctally/mct_types.h"

#ifdef __cplusplus
extern "C" {
#endif

/** mct_tally_desc_t.device: use the calling thread's current CUDA device and
 * never call cudaSetDevice (the host code owns device selection). A tally made
 * so must be used with that device current. An ordinal >= 0 is made current by
 * the calls that allocate. */
#define MCT_DEVICE_CURRENT (-1)

/** The range of mct_tally_desc_t.fixed_frac_bits: the scale 2^N and its
 * inverse are normal doubles, so a value's conversion (v * 2^N, rounded) and
 * a sum's read-back (x / 2^N) are one exact scaling each, and every int64 sum
 * reads back finite (2^63 * 2^960 < DBL_MAX). */
#define MCT_FIXED_FRAC_BITS_MIN (-960)
#define MCT_FIXED_FRAC_BITS_MAX 1022

/** Everything needed to create a tally. Fill with mct_tally_desc_init first. */
typedef struct {
    int64_t bins;          /**< number of bins, 1 <= bins <= 2^31 */
    mct_dtype_t dtype;     /**< value type of the bins */
    mct_method_t method;   /**< how additions reach memory; AUTO (default): planned at creation (mct_plan.h) */
    mct_backend_t backend; /**< where the tally lives; AUTO picks CUDA when a GPU is present */
    int device;            /**< CUDA device ordinal, or MCT_DEVICE_CURRENT (default): the device current on
                                the calling thread, which the library then never changes (CUDA backend only) */
    int fixed_frac_bits;   /**< fixed: values are stored as round(v * 2^fixed_frac_bits), MCT_FIXED_FRAC_BITS_MIN ..
                                MCT_FIXED_FRAC_BITS_MAX (default 32): above 62 for values far below 1 (energies in
                                joules, doses per history), below 0 for sums past 2^62 */
    double fixed_bound;    /**< fixed: the largest |sum| a bin may reach in one batch, where the caller knows a
                                bound but no scale; > 0 sets fixed_frac_bits to the most fraction bits that keep
                                it below 2^62 (one bit of headroom; mct_tally_get_desc reports them), clamped to
                                the range of fixed_frac_bits; 0 (default): fixed_frac_bits as given. Finite. */
    int64_t pair_capacity; /**< sort_reduce: (bin, value) pairs a batch may append (default 2^24) */

    /* What the caller needs: every method, planned or named, must meet it. */
    mct_determinism_t determinism; /**< the least determinism accepted (default NOT_GUARANTEED) */
    double max_rel_loss;  /**< float tallies: largest relative rounding loss accepted per bin; 0: no bound */
    double adds_per_bin;  /**< adds a bin takes in a batch, to judge max_rel_loss; 0: unknown */

    /* How to plan when method is AUTO (mct_plan.h); ignored otherwise. */
    mct_plan_mode_t plan_mode; /**< ESTIMATE (default) or MEASURE */
    double plan_budget_s;      /**< MEASURE: most seconds spent timing candidates (default 0.25); with adds_per_bin
                                    given, also at most 2 % of that batch (below one measurement: the estimate) */
    mct_wisdom_t wisdom;       /**< optional: saved plans to reuse, and where new plans are recorded */
    const uint32_t* key_sample; /**< optional host keys like the ones to come, read only during creation: best
                                     as runs of consecutive keys (a warp's neighbours, runs of equal keys) taken
                                     from across the whole stream, so local and global structure both show */
    int64_t key_sample_n;       /**< keys in key_sample */
    mct_key_pattern_t key_pattern; /**< the keys' shape when no sample is given (default UNKNOWN) */
    int width;                 /**< components per key of grouped adds (mct_tally_add_device_grouped), default 1 */
    mct_adds_t adds;           /**< where adds come from (default ARRAYS) */
    uint32_t method_mask;      /**< methods the caller's code can run, bit per mct_method_t; 0: all */
} mct_tally_desc_t;

/** Conditions kernels record in a tally's flag word (mct_tally_view_t.flags);
 * mct_tally_end_batch turns them into a status.
 *
 * Integer tallies (i32, u64) never wrap, on any backend or method. An f64
 * input is rounded to nearest (ties to even); a value whose rounding does not
 * fit the type (3e9 into i32; any value below -0.5, such as -1, into u64) is
 * dropped and raises OVERFLOW, NaN and +-Inf are dropped and raise NONFINITE
 * (the rule is mct_arith.h's, one source for every backend). Every add of an
 * integer into a bin, a partial sum (warp or block aggregation, a thread's
 * register sum, a shared-memory copy and its flush, a replica and the
 * replicas' reduction) and the host's exact int64 running sums is checked:
 * one out of the type's range raises OVERFLOW, and that batch's results are
 * wrong. An i32 tally fed values of both signs may be flagged by a partial sum
 * out of range although the bin's total fits (which partial sums exist
 * depends on the method and the launch); values of one sign are flagged
 * exactly when the total does not fit. */
#define MCT_TALLY_FLAG_OVERFLOW 1u     /**< an integer add or partial sum left its type's range, an input did not fit an integer bin, fixed's |v * scale| >= 2^63, or sort_reduce's pair buffer filled */
#define MCT_TALLY_FLAG_NONFINITE 2u    /**< fixed or an integer tally: a NaN or infinite value was dropped */
#define MCT_TALLY_FLAG_OUT_OF_RANGE 4u /**< a bin < 0 or >= nbins was dropped */

/** A bin of the Kahan methods: running f32 sum and the negated low-order part
 * lost so far; the bin's value is sum - comp. Packed in 8 bytes, sum first. */
typedef struct {
    float sum;
    float comp;
} mct_kahan_pair_t;

/** A contribution appended by the sort_reduce method. */
typedef struct {
    uint32_t bin;
    uint32_t pad;
    double value;
} mct_sort_pair_t;

/** What a kernel needs to add into a tally; plain data, passed by value to
 * kernels (device/mct_tally_device.cuh). Valid until the next mct_tally_end_batch
 * or mct_tally_reserve_replicas on the same tally. */
typedef struct {
    void* bins;          /**< B bins of the current batch, in the backend's memory */
    void* replicas;      /**< replicated method: replica r's bin k is at r*B + k */
    int64_t nbins;       /**< B */
    int64_t nreplicas;   /**< number of replicas reserved (0 unless replicated) */
    mct_dtype_t dtype;
    mct_method_t method;
    double fixed_scale;        /**< fixed: 2^fixed_frac_bits */
    int fixed_frac_bits;
    unsigned int* flags;       /**< one word of MCT_TALLY_FLAG_* bits, zeroed per batch */
    void* pairs;               /**< sort_reduce: mct_sort_pair_t[pair_capacity] */
    int64_t pair_capacity;
    unsigned long long* pair_count; /**< sort_reduce: pairs appended this batch */
    double* loss_shadow;       /**< rounding-loss shadow (mct_rounding.h), NULL when not enabled */
    uint32_t loss_mask;        /**< sampling mask of the shadow (mct_loss_sampled) */
    uint32_t loss_salt;        /**< differs between views: part of the sampling key */
    unsigned long long* abs_max; /**< fixed, kept (mct_tally_enable_abs_max): the bits of the largest |value| the array adds read this batch; else NULL */
} mct_tally_view_t;

typedef struct mct_tally_s* mct_tally_t;

/** Defaults: 1 bin, f64, method AUTO (estimated plan), auto backend, the current device,
 * 32 fraction bits, 2^24 sort pairs, no determinism or accuracy need, width 1,
 * adds from arrays, every method a candidate. */
MCT_API void mct_tally_desc_init(mct_tally_desc_t* desc);

/** Creates a tally and its zeroed storage on the chosen backend. A method of
 * AUTO is resolved first, through a plan (mct_plan.h; mct_tally_plan_info says
 * what it chose and why); a named method is checked against the descriptor's
 * determinism and accuracy needs.
 * Returns SUCCESS; NULL_POINTER; INVALID_VALUE (bins or a planning field out of range);
 * UNSATISFIABLE (no method, or not the named one, meets the needs: mct_plan says why);
 * UNKNOWN_METHOD / UNKNOWN_DTYPE / UNKNOWN_BACKEND; NOT_SUPPORTED (method cannot
 * serve the type or backend); BACKEND_UNAVAILABLE (CUDA asked for, no GPU or not
 * built with CUDA); TOO_LARGE or OUT_OF_MEMORY; CUDA_ERROR. On error *out is NULL. */
MCT_API mct_status_t mct_tally_create(mct_tally_t* out, const mct_tally_desc_t* desc);

/** Frees the tally; NULL is a no-op. As with free(), the handle is invalid
 * afterwards: destroying it again or passing it to any other call is
 * undefined behaviour (a use after free), which the library cannot detect. */
MCT_API void mct_tally_destroy(mct_tally_t tally);

/** The descriptor the tally was created from, with AUTO resolved (backend and
 * method); key_sample is NULL (it was read at creation only). */
MCT_API mct_status_t mct_tally_get_desc(mct_tally_t tally, mct_tally_desc_t* desc);

/** Human-readable name of the device ("NVIDIA H100 80GB HBM3", "CPU (4 OpenMP
 * threads)", "mctally CPU emulation"), truncated to fit `size` bytes. */
MCT_API mct_status_t mct_tally_device_name(mct_tally_t tally, char* buf, size_t size);

/** Devices `backend` can hold tallies on, here: the GPUs that answer for
 * cuda (0 without any, or in a build without CUDA), 1 for cpu and emulated;
 * AUTO counts those of the backend it resolves to. A process among several on
 * one machine picks its device from it (mct_tally_desc_t.device). */
MCT_API mct_status_t mct_backend_devices(mct_backend_t backend, int* count);

/** Sets the CUDA stream (a cudaStream_t) the tally's own kernels and copies use;
 * ignored by the CPU backend. */
MCT_API mct_status_t mct_tally_set_stream(mct_tally_t tally, void* stream);

/** The stream set by mct_tally_set_stream (NULL, the default stream, when none
 * was): code that launches its own kernels into the tally launches them there. */
MCT_API mct_status_t mct_tally_get_stream(mct_tally_t tally, void** stream);

/** Replicated method: reserves `nreplicas` private copies of the B bins, one for
 * each thread of the kernels the caller will launch (thread r owns copy r).
 * Returns TOO_LARGE when nreplicas*B copies cannot be held (the caller then
 * launches fewer threads per batch), INVALID_STATE for other methods. */
MCT_API mct_status_t mct_tally_reserve_replicas(mct_tally_t tally, int64_t nreplicas);

/** Declares that the kernels adding into the tally run up to `writers` threads
 * at once (for a user kernel: its grid's threads). replicated gives each thread
 * a private replica only while nreplicas >= writers; with more writers the
 * replicas are shared and added to atomically, and mct_tally_determinism says
 * so. The tally keeps the largest count declared or run by its own adds.
 * INVALID_VALUE when writers < 1. */
MCT_API mct_status_t mct_tally_set_writers(mct_tally_t tally, int64_t writers);

/** Replicas reserved and the most writers seen (declared, or run by
 * mct_tally_add / mct_tally_add_device); either pointer may be NULL. */
MCT_API mct_status_t mct_tally_replicas(mct_tally_t tally, int64_t* nreplicas, int64_t* writers);

/** What this tally's results promise, as it has been used: its method's
 * determinism for its type (mct_method_determinism), except that replicated
 * float tallies give NOT_GUARANTEED when no replicas are reserved or more
 * writers than replicas added (shared replicas). Reserving R replicas with no
 * writer count declared counts as R writers. */
MCT_API mct_status_t mct_tally_determinism(mct_tally_t tally, mct_determinism_t* det);

/** Largest replica count that fits in `fraction` (0..1] of the backend's free
 * memory for this tally's B and type. */
MCT_API mct_status_t mct_tally_max_replicas(mct_tally_t tally, double fraction, int64_t* out);

/** Fills `view` for kernels (see mct_tally_view_t). */
MCT_API mct_status_t mct_tally_view(mct_tally_t tally, mct_tally_view_t* view);

/** Adds n contributions from host arrays: bin keys[i] += values[i] (converted
 * to the tally's type), with the tally's method, on its backend (the cuda
 * backend copies them to the GPU in chunks). Keys >= bins are dropped and
 * reported by mct_tally_end_batch as BIN_OUT_OF_RANGE; NaN and Inf are added as
 * IEEE arithmetic gives (float methods) or dropped and reported (fixed,
 * integer tallies); a value that does not fit an integer tally's type is
 * dropped and reported as OVERFLOW (see MCT_TALLY_FLAG_OVERFLOW).
 * Every method the backend serves works here (warp_reduce and block_reduce
 * aggregate per warp or block, see mct_tally_add_device); TOO_LARGE for shared
 * on more bins than a block's shared memory holds. */
MCT_API mct_status_t mct_tally_add(mct_tally_t tally, const uint32_t* keys, const double* values, int64_t n);

/** Adds n contributions from arrays in the backend's own memory (device
 * pointers on the cuda backend; host pointers on cpu and emulated): bin
 * keys[i] += values[i], converted to the tally's type, with the tally's method.
 * Asynchronous on the tally's stream (cuda); the arrays must stay valid until
 * the stream reaches this point. The same errors as mct_tally_add, except that
 * every method is served: warp_reduce and block_reduce aggregate the array's
 * values per bin inside each warp or block before touching the bins. */
MCT_API mct_status_t mct_tally_add_device(mct_tally_t tally, const uint32_t* keys, const double* values, int64_t n);

/** The grouped form of mct_tally_add_device, for n particles that each add
 * `width` values into `width` consecutive bins (a cell's components): for
 * i < n and c < width, bin keys[i] * width + c += values[c * stride + i]
 * (values stored component by component, stride >= n apart). A key whose bins
 * fall outside the tally drops all its values (BIN_OUT_OF_RANGE at the batch's
 * end). INVALID_VALUE when width < 1 or stride < n (width > 1). */
MCT_API mct_status_t mct_tally_add_device_grouped(mct_tally_t tally, const uint32_t* keys, const double* values, int64_t n,
                                          int width, int64_t stride);

/** The integer type of an array of keys (mct_tally_add_device_keys). */
typedef enum {
    MCT_KEY_U32 = 0, /**< uint32_t, the other adds' keys */
    MCT_KEY_I64 = 1, /**< int64_t, the index type of PyTorch and NumPy */
} mct_key_type_t;

/** mct_tally_add_device_grouped for keys of type key_type, read where they lie
 * (no conversion pass over them): the same adds, and a key that is negative or
 * whose bins fall outside the tally drops its values (BIN_OUT_OF_RANGE), whatever
 * its magnitude: a 64-bit key is never truncated onto a bin. mct_tally_add_device
 * is width 1, stride n, MCT_KEY_U32. INVALID_VALUE also for an unknown key type. */
MCT_API mct_status_t mct_tally_add_device_keys(mct_tally_t tally, const void* keys, mct_key_type_t key_type,
                                               const double* values, int64_t n, int width, int64_t stride);

/** mct_tally_add (host arrays) for keys of type key_type, by the same rule as
 * mct_tally_add_device_keys; the cuda backend stages the keys as they are.
 * INVALID_VALUE also for an unknown key type. */
MCT_API mct_status_t mct_tally_add_keys(mct_tally_t tally, const void* keys, mct_key_type_t key_type,
                                        const double* values, int64_t n);

/** Brings the contributions a method defers into the bins, without closing
 * the batch: sort_reduce's sort-and-sum pass over the appended pairs, the
 * reduction of replicas. Afterwards the bins hold everything added so far
 * (what a benchmark times; mct_tally_end_batch does it too). A no-op for the
 * other methods. Synchronizes with the tally's stream when there is work. */
MCT_API mct_status_t mct_tally_flush(mct_tally_t tally);

/** Flags (MCT_TALLY_FLAG_*) raised in any batch so far. */
MCT_API mct_status_t mct_tally_flags(mct_tally_t tally, unsigned* flags);

/** Closes a batch of `histories` (> 0) histories: reduces replicas, folds the
 * batch's bin sums into the statistics, zeroes the bins. Synchronizes with the
 * tally's stream. OVERFLOW, with nothing read or folded (the batch stays in the
 * bins), when the history count would pass INT64_MAX (or the batch count
 * would). Otherwise the batch is folded whatever it held, and then the first of
 * these that applies is returned: BIN_OUT_OF_RANGE (contributions to bins
 * outside the tally were dropped), OVERFLOW (an integer or fixed-point value,
 * bin or partial sum left its type's range, an integer bin's exact int64
 * running sum would (that bin's sum then leaves the batch out), or
 * sort_reduce's pair buffer filled: the results of the batch are wrong),
 * NONFINITE_VALUE (a bin holds NaN or Inf, or fixed dropped such a value).
 * CUDA_ERROR or EMULATION_ERROR when a kernel that added into the tally failed. */
MCT_API mct_status_t mct_tally_end_batch(mct_tally_t tally, int64_t histories);

/** Number of batches closed so far and histories over all of them. */
MCT_API mct_status_t mct_tally_counts(mct_tally_t tally, int64_t* batches, int64_t* histories);

/** Per-bin mean per history over the batches (weighted by batch size) and its
 * relative standard error from the spread of batch means, SE/|mean| (0 when
 * the mean and SE are both 0; NaN with fewer than 2 batches). Either output may
 * be NULL. INVALID_STATE when no batch is closed. */
MCT_API mct_status_t mct_tally_results(mct_tally_t tally, double* mean, double* rel_err);

/** Per-bin raw sums over all batches, in double (exact for integer tallies up
 * to 2^53). INVALID_STATE before the first mct_tally_end_batch, as
 * mct_tally_results (there are no sums yet, not sums of zero). */
MCT_API mct_status_t mct_tally_sums(mct_tally_t tally, double* sums);

/** Per-bin raw sums of an integer tally as exact 64-bit integers
 * (NOT_SUPPORTED for float tallies; INVALID_STATE before the first batch). The sums are int64 for u64 tallies too: a
 * batch whose u64 bin, or whose running sum, passes INT64_MAX is reported by
 * mct_tally_end_batch as OVERFLOW and left out of that bin's sum. */
MCT_API mct_status_t mct_tally_sums_i64(mct_tally_t tally, int64_t* sums);

/** Which sums mct_tally_copy_sums copies. */
typedef enum {
    MCT_SUMS_LAST_BATCH = 0, /**< the raw bin sums of the batch the last mct_tally_end_batch closed */
    MCT_SUMS_TOTAL = 1       /**< the raw bin sums over every closed batch (mct_tally_sums) */
} mct_sums_t;

/** Copies one batch's raw bin sums, or the running totals, into the caller's
 * buffer of `bins` values of type `dtype`: host memory, or with dst_on_device
 * non-zero the tally backend's memory (a CUDA device pointer; on the CPU
 * backends host memory alike). Each bin is converted once from the tally's
 * exact or double sum: F64 and F32 from any tally (a fixed tally's sums as
 * their scaled value; a bin without an exact value, which mct_tally_end_batch
 * reported as OVERFLOW, as NaN); I32 and U64 from integer tallies only,
 * exactly. A device copy is ordered on the tally's stream and complete on
 * return. Per-repetition results thus need no new tally: read
 * MCT_SUMS_LAST_BATCH after each mct_tally_end_batch.
 * Returns SUCCESS; NULL_POINTER; INVALID_VALUE (which); UNKNOWN_DTYPE;
 * INVALID_STATE (no batch closed, or the last one's end failed before its
 * sums were read); NOT_SUPPORTED (integer output from a float or fixed tally);
 * OVERFLOW, nothing written (a bin does not fit the integer output type);
 * OUT_OF_MEMORY; CUDA_ERROR. */
MCT_API mct_status_t mct_tally_copy_sums(mct_tally_t tally, mct_sums_t which, mct_dtype_t dtype, void* dst,
                                         int dst_on_device);

/** Takes the open batch's raw sums out of the tally without closing a batch,
 * for a caller that wants each batch's sums alone (a scatter-add): `dst`
 * receives the bins as float64 (converted as mct_tally_copy_sums converts
 * them: a fixed tally's as their scaled value, exactly), and the bins and the
 * flag word start the next batch at zero. The statistics, the batch and
 * history counts and the last closed batch (MCT_SUMS_LAST_BATCH) are left as
 * they were; a rounding-loss estimate drops the batch's shadow. `dst` holds
 * the tally's `bins` doubles in the backend's memory (a device pointer on the
 * cuda backend, host memory on cpu and emulated), on the tally's stream.
 * Returns the status mct_tally_end_batch would give for the batch, in its
 * order: SUCCESS, with dst written; BIN_OUT_OF_RANGE, OVERFLOW or
 * NONFINITE_VALUE, with dst untouched (the flags join mct_tally_flags as a
 * batch end's do). NULL_POINTER; CUDA_ERROR or EMULATION_ERROR when a kernel
 * on the stream failed (the bins are then unspecified). Brings deferred work
 * in first (mct_tally_flush), then synchronizes once with the tally's stream,
 * to read the flag word: on the cuda backend one kernel checks the bins before
 * that read and, on success, one writes and zeroes them after it, so the sums
 * arrive in dst asynchronously, in stream order. */
MCT_API mct_status_t mct_tally_take_sums(mct_tally_t tally, double* dst);

/** Makes a `fixed` tally keep, for each batch, the largest |value| that the
 * library's array adds (mct_tally_add, mct_tally_add_keys,
 * mct_tally_add_device and their grouped and keyed forms; not the adds of the
 * caller's own kernels) give it from now on, for mct_tally_last_abs_max. The
 * adds then cost a few per cent more, which is why it is asked for. Calling it
 * again changes nothing. Returns SUCCESS; NULL_POINTER; NOT_SUPPORTED (not a
 * fixed tally). */
MCT_API mct_status_t mct_tally_enable_abs_max(mct_tally_t tally);

/** The largest |value| given in the batch that the last mct_tally_end_batch
 * or mct_tally_take_sums ended, on this process, by a tally that keeps it
 * (mct_tally_enable_abs_max): every value passed counts, those dropped with a
 * flag (a key past the bins, a value that does not fit) included; NaN when one
 * was NaN, +Inf when one was infinite, 0 for a batch without values. Read with
 * the batch's flag word, so it costs the batch end nothing more. It lets a
 * caller choose the scale from the values without a pass of its own: add with
 * a guessed fixed_frac_bits, take the sums, and redo the batch on a tally of
 * another scale only when the one the maximum calls for differs (the result is
 * then the bits of that scale given at once). Returns SUCCESS; NULL_POINTER;
 * NOT_SUPPORTED (not a fixed tally); INVALID_STATE (not kept, or no batch
 * ended since it is). */
MCT_API mct_status_t mct_tally_last_abs_max(mct_tally_t tally, double* abs_max);

/** Exports the tally's accumulated state between batches (a checkpoint): its
 * shape (type, method, bins, fraction bits), the batch and history counts, the
 * flags seen, the per-bin batch statistics and raw sums, the writers seen and
 * the rounding-loss estimate's sums when it is enabled, with a format version
 * and a checksum. With buf NULL, *bytes is set to the size needed. Otherwise
 * *bytes is the room at buf: TOO_LARGE (and *bytes the size needed) when it
 * is short, else the state is written and *bytes set to its size. The bins of
 * an open batch are not part of it: save after mct_tally_end_batch. The
 * format is the host's byte order, for the same build to read back. */
MCT_API mct_status_t mct_tally_save_state(mct_tally_t tally, void* buf, size_t* bytes);

/** Replaces the tally's accumulated state with one from mct_tally_save_state,
 * so that the next batch continues the saved run: a tally created from the
 * same descriptor and, where the saved one had it, with the rounding-loss
 * estimate enabled at the same sampling. INVALID_VALUE, with the tally
 * unchanged, when the buffer is not such a state (size, format version,
 * checksum, counts) or its shape differs from the tally's. Any batch already
 * closed in the tally is replaced. */
MCT_API mct_status_t mct_tally_load_state(mct_tally_t tally, const void* buf, size_t bytes);

/** Library version "MAJOR.MINOR.PATCH". */
MCT_API const char* mct_version(void);

#ifdef __cplusplus
}
#endif

#endif /* MCT_TALLY_H */
