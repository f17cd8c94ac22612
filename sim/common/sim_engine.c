/* SPDX-License-Identifier: BSD-3-Clause */
/** @file sim_engine.c  The driver skeleton every problem runs through (sim_engine.h). */
#include "sim_engine.h"

#include <stdlib.h>
#include <string.h>

#include "sim_common.h"

const sim_engine_t* sim_engine_for(const sim_engine_set_t* set, mct_backend_t backend, int64_t* chunk) {
    switch (backend) {
    case MCT_BACKEND_CPU: *chunk = set->cpu_chunk; return set->cpu;
    case MCT_BACKEND_EMULATED: *chunk = set->emulated_chunk; return set->emulated;
    case MCT_BACKEND_CUDA: *chunk = set->cuda_chunk; return set->cuda;
    default: return NULL;
    }
}

mct_status_t sim_host_buffers_create(void** ctx, const sim_engine_args_t* a, size_t bytes0, size_t bytes1) {
    sim_buffers_t* b = calloc(1, sizeof *b);
    *ctx = b;
    if (!b) return MCT_STATUS_OUT_OF_MEMORY;
    b->problem = a->problem;
    b->chunk = a->chunk;
    b->stream = a->stream;
    const size_t bytes[2] = {bytes0, bytes1};
    for (int i = 0; i < 2; ++i)
        if (bytes[i] && !(b->buf[i] = malloc((size_t)a->chunk * bytes[i]))) return MCT_STATUS_OUT_OF_MEMORY;
    return MCT_STATUS_SUCCESS;
}

void sim_host_buffers_destroy(void* ctx) {
    sim_buffers_t* b = ctx;
    if (!b) return;
    free(b->buf[0]);
    free(b->buf[1]);
    free(b);
}

int64_t sim_cpu_tally_threads(void* ctx, int64_t chunk) {
    (void)ctx, (void)chunk;
    return sim_cpu_threads();
}

/* Histories per run_chunk: the caller's, else the engine's default (in
 * contributions when a history's are known); no more than the largest batch
 * (of this rank's slice); for sort_reduce with known contributions, no more
 * than the pair buffer holds. At least 1. */
static int64_t chunk_size(const sim_run_t* run, const mct_tally_desc_t* d, int64_t engine_chunk) {
    const int64_t v = run->values_per_history;
    int64_t chunk = engine_chunk;
    if (v > 0) chunk = chunk / v > 0 ? chunk / v : 1;
    if (run->chunk > 0) chunk = run->chunk;
    int64_t largest = run->histories / run->batches + (run->histories % run->batches != 0), first = 0;
    if (run->ranks) sim_rank_slice(largest, 0, run->ranks->size, &first, &largest);
    if (chunk > largest) chunk = largest;
    if (v > 0 && d->method == MCT_METHOD_SORT_REDUCE && chunk > d->pair_capacity / v) chunk = d->pair_capacity / v;
    return chunk > 0 ? chunk : 1;
}

/* The replicated method's replicas, as the run asks (sim_replicas_t). */
static mct_status_t reserve_replicas(const sim_run_t* run, const sim_engine_t* e, void* ctx, int64_t* chunk) {
    if (run->replicas == SIM_REPLICAS_SHARE) return sim_reserve_replicas(run->tally, e->tally_threads(ctx, *chunk));
    int64_t limit = 0;
    mct_status_t st = sim_replica_limit(run->tally, &limit);
    if (st) return st;
    for (;;) {
        const int64_t threads = e->tally_threads(ctx, *chunk);
        st = threads <= limit ? mct_tally_reserve_replicas(run->tally, threads) : MCT_STATUS_TOO_LARGE;
        if (!st) return mct_tally_set_writers(run->tally, threads);
        if (st != MCT_STATUS_TOO_LARGE) return st;
        /* At the smallest chunk, the threads share the replicas that fit. */
        if (*chunk <= run->min_chunk) return sim_reserve_replicas(run->tally, threads);
        *chunk /= 2;
    }
}

/* A batch's histories [first, first + n) of this process: its slice among
 * the ranks, or all of them, run chunk by chunk. */
static mct_status_t run_slice(sim_run_t* run, const sim_engine_t* e, void* ctx, int64_t chunk, int flush_chunks,
                              int64_t first, int64_t n) {
    for (int64_t done = 0; done < n;) {
        const int64_t m = n - done < chunk ? n - done : chunk;
        const double t0 = sim_now_seconds();
        mct_status_t st = e->run_chunk(ctx, first + done, m, run->tally);
        run->engine_seconds += sim_now_seconds() - t0;
        if (!st && flush_chunks) st = mct_tally_flush(run->tally);
        if (st) return st;
        done += m;
    }
    return MCT_STATUS_SUCCESS;
}

/* The batches of the run, each in chunks, each closed with
 * mct_tally_end_batch (or on every rank by the ranks' end_batch). */
static mct_status_t run_batches(sim_run_t* run, const sim_engine_t* e, void* ctx, int64_t chunk, int flush_chunks) {
    const int64_t total = run->histories, batches = run->batches;
    const mct_sim_ranks_t* ranks = run->ranks;
    /* A resumed run's first history: the batches before it, sized as below. */
    int64_t first = 0;
    for (int64_t b = 0; b < run->first_batch; ++b) first += total / batches + (b < total % batches);
    for (int64_t b = run->first_batch; b < batches; ++b) {
        const int64_t n_batch = total / batches + (b < total % batches);
        int64_t mine = 0, n_mine = n_batch;
        if (ranks) sim_rank_slice(n_batch, ranks->rank, ranks->size, &mine, &n_mine);
        mct_status_t st = run_slice(run, e, ctx, chunk, flush_chunks, first + mine, n_mine);
        if (ranks)
            st = ranks->end_batch(ranks->ctx, run->tally, n_mine, st);
        else if (!st)
            st = mct_tally_end_batch(run->tally, n_batch);
        if (!st && run->batch_done) st = run->batch_done(run->batch_ctx, b, n_batch);
        /* A batch_done that fails on one rank alone ends the run on all. */
        if (ranks && run->batch_done) st = ranks->agree(ranks->ctx, st);
        if (st) return st;
        first += n_batch;
        if (run->progress) run->progress(run->progress_ctx, first, total);
        if (run->checkpoint) {
            if (e->finish) st = e->finish(ctx, run->finish_out);
            if (!st) st = run->checkpoint(run->checkpoint_ctx, b + 1);
            if (st) return st;
        }
    }
    return MCT_STATUS_SUCCESS;
}

mct_status_t sim_run(sim_run_t* run) {
    sim_engine_args_t a = {run->problem, 0, {0}, NULL};
    mct_status_t st = mct_tally_get_desc(run->tally, &a.desc);
    if (!st) st = mct_tally_get_stream(run->tally, &a.stream);
    if (st) return st;
    int64_t engine_chunk = 0;
    const sim_engine_t* e = sim_engine_for(run->engines, a.desc.backend, &engine_chunk);
    if (!e) return MCT_STATUS_BACKEND_UNAVAILABLE;
    if (run->ranks && (run->first_batch > 0 || run->checkpoint)) return MCT_STATUS_NOT_SUPPORTED;
    int64_t chunk = chunk_size(run, &a.desc, engine_chunk);
    a.chunk = chunk;
    run->engine_seconds = 0.0;

    void* ctx = NULL;
    st = e->create(&ctx, &a);
    if (!st && (run->first_batch < 0 || run->first_batch > run->batches)) st = MCT_STATUS_INVALID_VALUE;
    if (!st && run->first_batch > 0 && e->restore) st = e->restore(ctx, run->finish_out);
    if (!st && a.desc.method == MCT_METHOD_REPLICATED && e->tally_threads) st = reserve_replicas(run, e, ctx, &chunk);
    /* Each rank makes its engine alone: none starts the batches while another
     * has failed to. */
    st = sim_ranks_agree(run->ranks, st);
    const int flush_chunks = run->values_per_history > 0 && a.desc.method == MCT_METHOD_SORT_REDUCE;
    if (!st) st = run_batches(run, e, ctx, chunk, flush_chunks);
    if (!st && e->finish) st = sim_ranks_agree(run->ranks, e->finish(ctx, run->finish_out));
    e->destroy(ctx);
    return st;
}

mct_status_t sim_resume_start(const mct_sim_checkpoint_t* cp, mct_tally_t tally, int64_t histories, int64_t batches,
                              int64_t* first_batch) {
    *first_batch = 0;
    if (!cp || !cp->resume) return MCT_STATUS_SUCCESS;
    int64_t done = 0, tb = 0, th = 0, expect = 0;
    if (cp->resume_bytes < sizeof done) return MCT_STATUS_INVALID_VALUE;
    memcpy(&done, cp->resume, sizeof done);
    if (done < 0 || done > batches) return MCT_STATUS_INVALID_VALUE;
    for (int64_t b = 0; b < done; ++b) expect += histories / batches + (b < histories % batches);
    mct_status_t st = mct_tally_counts(tally, &tb, &th);
    if (st) return st;
    if (tb != done || th != expect) return MCT_STATUS_INVALID_VALUE;
    *first_batch = done;
    return MCT_STATUS_SUCCESS;
}

int sim_checkpoint_due(const mct_sim_checkpoint_t* cp, int64_t done, int64_t batches) {
    return cp && cp->save && (done == batches || (cp->every > 0 && done % cp->every == 0));
}
