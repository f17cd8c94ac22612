/* SPDX-License-Identifier: BSD-3-Clause */
/** @file sim_engine.h  Internal: the one interface between a problem's driver
 * and its engines, and the driver skeleton every problem runs through.
 *
 * A problem has one engine per backend (a CPU engine in C with OpenMP, and a
 * device engine compiled by nvcc for `cuda` and as host C++ for `emulated`).
 * An engine runs a chunk of histories, [first, first + n), into the tally; the
 * driver owns everything else: the checks, the split of the run into batches
 * and chunks (sim_run), the tally's replicas and the statistics of the result.
 * What a problem's engines need besides the chunk (its parameters, tables,
 * derived constants) is one problem-specific struct, passed to create as
 * `problem` and kept by the engine; it outlives the engine. */
#ifndef MCT_SIM_ENGINE_H
#define MCT_SIM_ENGINE_H

#include <stdint.h>

#include "mctally/mct_tally.h"
#include "sim_checkpoint.h"
#include "sim_ranks.h"

#ifdef __cplusplus
extern "C" {
#endif

/** What every engine is created for. */
typedef struct {
    const void* problem;   /**< the problem's struct for its engines (see each *_engine.h) */
    int64_t chunk;         /**< most histories of one run_chunk */
    mct_tally_desc_t desc; /**< the tally's description (device, dtype, method, bins) */
    void* stream;          /**< the tally's stream (mct_tally_get_stream): device engines launch and copy there */
} sim_engine_args_t;

typedef struct {
    /** Prepares for chunks of up to a->chunk histories (buffers, tables on the
     * device). Sets *ctx, also on failure, so that destroy frees what was made. */
    mct_status_t (*create)(void** ctx, const sim_engine_args_t* a);
    /** Threads that add into the tally in one run_chunk of `chunk` histories:
     * the replicas the replicated method reserves. */
    int64_t (*tally_threads)(void* ctx, int64_t chunk);
    /** Histories [first, first + n) into the tally; n <= the chunk. */
    mct_status_t (*run_chunk)(void* ctx, int64_t first, int64_t n, mct_tally_t tally);
    /** Optional (NULL: nothing to report): after the last chunk, what the
     * engine accumulated over the run, into the problem's `out`. */
    mct_status_t (*finish)(void* ctx, void* out);
    /** Frees the engine; NULL is fine. */
    void (*destroy)(void* ctx);
    /** Optional (with finish): continue from a resumed run's state, `in`
     * being what finish wrote at the checkpoint. */
    mct_status_t (*restore)(void* ctx, const void* in);
} sim_engine_t;

/** A problem's engines and their default chunks, one per backend; a NULL
 * engine is a backend the problem (or this build) does not have. A default
 * chunk counts contributions to the tally (see sim_run_t.values_per_history). */
typedef struct {
    const sim_engine_t* cpu;
    int64_t cpu_chunk;
    const sim_engine_t* emulated;
    int64_t emulated_chunk;
    const sim_engine_t* cuda;
    int64_t cuda_chunk;
} sim_engine_set_t;

/** SIM_CUDA_ENGINE(engine, chunk): a set's cuda entry, NULL and 0 in a build
 * without CUDA (where the engine is not compiled). */
#if MCT_HAVE_CUDA
#define SIM_CUDA_ENGINE(engine, chunk) (engine), (chunk)
#else
#define SIM_CUDA_ENGINE(engine, chunk) NULL, 0
#endif

/** The engine of `backend` (resolved, not AUTO) and its default chunk; NULL
 * when the set has none. */
const sim_engine_t* sim_engine_for(const sim_engine_set_t* set, mct_backend_t backend, int64_t* chunk);

/** The context of an engine that keeps, besides its problem, up to two
 * arrays of chunk-sized scratch: in host memory for a CPU engine
 * (sim_host_buffers_*), in device memory for a device engine
 * (sim_device_buffers_* in sim_device.cuh, which also fill sms and stream). */
typedef struct {
    const void* problem; /**< sim_engine_args_t.problem */
    void* buf[2];        /**< a->chunk x the bytes per history asked for; NULL for 0 bytes */
    int64_t chunk;       /**< a->chunk */
    void* stream;        /**< the tally's stream (device engines) */
    int sms;             /**< the device's multiprocessors (device engines) */
} sim_buffers_t;

/** Creates *ctx as a sim_buffers_t with buf[i] of a->chunk x bytes_i bytes
 * of host memory (OUT_OF_MEMORY when one cannot be had). */
mct_status_t sim_host_buffers_create(void** ctx, const sim_engine_args_t* a, size_t bytes0, size_t bytes1);
/** Frees a sim_host_buffers_create context; NULL is fine. */
void sim_host_buffers_destroy(void* ctx);

/** A CPU engine's tally_threads: its OpenMP threads, whatever the chunk. */
int64_t sim_cpu_tally_threads(void* ctx, int64_t chunk);

/** How the replicated method gets its replicas. */
typedef enum {
    /** One per adding thread where they fit, else as many as fit in half the
     * free memory, shared by the threads through atomics (sim_reserve_replicas). */
    SIM_REPLICAS_SHARE = 0,
    /** One per adding thread always: where they do not fit, the chunk halves
     * (more launches per batch), down to min_chunk. */
    SIM_REPLICAS_SHRINK_CHUNK = 1
} sim_replicas_t;

/** One run of a problem through its engine: the driver skeleton. */
typedef struct {
    const sim_engine_set_t* engines;
    const void* problem;  /**< handed to the engine's create */
    mct_tally_t tally;
    int64_t histories;    /**< of the whole run, >= batches */
    int64_t batches;      /**< >= 1; the first histories % batches are one larger */
    /** Histories per run_chunk asked for by the caller; 0: the engine's default. */
    int64_t chunk;
    /** Contributions each history adds, when known in advance (0: not known).
     * When known, the engine's default chunk is divided by it, and under
     * sort_reduce each chunk's pairs are summed right after it (a chunk then
     * holds no more histories than the pair buffer takes). When not known, a
     * sort_reduce pair buffer must hold a batch. */
    int64_t values_per_history;
    sim_replicas_t replicas;
    int64_t min_chunk;    /**< SIM_REPLICAS_SHRINK_CHUNK's floor */
    /** Optional: after batch b (of `histories` histories) is closed. */
    mct_status_t (*batch_done)(void* ctx, int64_t b, int64_t histories);
    void* batch_ctx;
    /** Optional: histories done so far, after every batch. */
    void (*progress)(void* ctx, int64_t done, int64_t total);
    void* progress_ctx;
    /** Optional: handed to the engine's finish (and, resuming, its restore). */
    void* finish_out;
    /** Resume: batches [0, first_batch) are in the tally already
     * (mct_tally_load_state) and in the problem's state; the run starts with
     * batch first_batch, its histories numbered as in an uninterrupted run.
     * An engine with restore continues from finish_out's state. */
    int64_t first_batch;
    /** Optional: after every batch (after batch_done and progress), with
     * finish_out holding the engine's totals so far (finish is called first):
     * the moment to save a checkpoint. */
    mct_status_t (*checkpoint)(void* ctx, int64_t batches_done);
    void* checkpoint_ctx;
    /** Out: seconds spent in run_chunk, summed. */
    double engine_seconds;
    /** Optional: the ranks sharing the run (sim_ranks.h). Each runs its slice
     * of every batch and closes the batch through ranks->end_batch; a failure
     * on any rank (creating the engine, a chunk, finish) ends the run on all.
     * Resuming (first_batch > 0) and checkpoints need a run of one process. */
    const mct_sim_ranks_t* ranks;
} sim_run_t;

/** Runs the problem: picks the engine of the tally's backend, sizes the
 * chunk, creates the engine, reserves the replicas the replicated method
 * needs, runs the batches (each closed with mct_tally_end_batch, or the
 * ranks' end_batch), lets the engine finish and destroys it. The first
 * failing status stops the run and is returned; BACKEND_UNAVAILABLE when the
 * problem has no engine for the tally's backend; NOT_SUPPORTED for a resume
 * or checkpoints with ranks. */
mct_status_t sim_run(sim_run_t* run);

/** Resuming: a problem's saved state opens with the batches it covers (int64).
 * Checks it against the tally (its loaded batch and history counts) and the
 * run's batches and histories; *first_batch is where the run resumes (0
 * without a resume state). INVALID_VALUE when they disagree. */
mct_status_t sim_resume_start(const mct_sim_checkpoint_t* cp, mct_tally_t tally, int64_t histories, int64_t batches,
                              int64_t* first_batch);

/** Whether a checkpoint is due after `done` of `batches` batches. */
int sim_checkpoint_due(const mct_sim_checkpoint_t* cp, int64_t done, int64_t batches);

#ifdef __cplusplus
}
#endif

#endif /* MCT_SIM_ENGINE_H */
