/* SPDX-License-Identifier: BSD-3-Clause */
/** @file escape_cpu.c  The escape problem on the CPU backend (OpenMP): the same
 * three phases and the same random numbers as the GPU engine. A CPU has no warps
 * or shared memory, so it serves the atomic and replicated methods (one replica
 * per OpenMP thread); the tally refuses the others at creation. */
#include <stdlib.h>

#include "escape_engine.h"
#include "escape_physics.h"
#include "sim_common.h"

/* Photons and event flags of a chunk in buf[0] and buf[1]. */
static mct_status_t cpu_create(void** ctx, const sim_engine_args_t* a) {
    return sim_host_buffers_create(ctx, a, sizeof(mct_escape_photon_t), sizeof(int32_t));
}

/* The tally phase for one value type: atomic adds every escape to the bin;
 * replicated counts in a private partial per thread and adds it to that
 * thread's replica once. */
#define SIM_ESCAPE_CPU_TALLY(T)                                                          \
    do {                                                                                  \
        T* bin = (T*)view.bins;                                                           \
        _Pragma("omp parallel") {                                                         \
            T partial = 0;                                                                \
            _Pragma("omp for schedule(static)") for (int64_t i = 0; i < n; ++i) {         \
                if (events[i] != MCT_ESCAPE_ESCAPED) continue;                            \
                if (view.method == MCT_METHOD_ATOMIC) {                                   \
                    _Pragma("omp atomic") bin[0] += (T)1;                                 \
                } else {                                                                  \
                    partial += (T)1;                                                      \
                }                                                                         \
            }                                                                             \
            if (view.method == MCT_METHOD_REPLICATED)                                     \
                ((T*)view.replicas)[(int64_t)sim_cpu_thread_id() * view.nbins] += partial;    \
        }                                                                                 \
    } while (0)

static mct_status_t cpu_run_chunk(void* ctx, int64_t first, int64_t n, mct_tally_t tally) {
    const sim_buffers_t* c = ctx;
    const sim_escape_problem_t* problem = c->problem;
    const uint64_t seed = problem->p->seed;
    const double p_escape = problem->p_escape;
    mct_escape_photon_t* photons = c->buf[0];
    int32_t* events = c->buf[1];
    mct_tally_view_t view;
    mct_status_t st = mct_tally_view(tally, &view);
    if (st) return st;
    if (view.method != MCT_METHOD_ATOMIC && view.method != MCT_METHOD_REPLICATED) return MCT_STATUS_NOT_SUPPORTED;
#pragma omp parallel for schedule(static)
    for (int64_t i = 0; i < n; ++i) photons[i] = mct_escape_source((uint64_t)(first + i));
#pragma omp parallel for schedule(static)
    for (int64_t i = 0; i < n; ++i) events[i] = mct_escape_transport(seed, photons[i], p_escape);
    switch (view.dtype) {
    case MCT_DTYPE_I32: SIM_ESCAPE_CPU_TALLY(int32_t); break;
    case MCT_DTYPE_U64: SIM_ESCAPE_CPU_TALLY(uint64_t); break;
    case MCT_DTYPE_F32: SIM_ESCAPE_CPU_TALLY(float); break;
    case MCT_DTYPE_F64: SIM_ESCAPE_CPU_TALLY(double); break;
    default: return MCT_STATUS_UNKNOWN_DTYPE;
    }
    return MCT_STATUS_SUCCESS;
}

const sim_engine_t sim_escape_engine_cpu = {cpu_create, sim_cpu_tally_threads, cpu_run_chunk, NULL,
                                             sim_host_buffers_destroy, NULL};
