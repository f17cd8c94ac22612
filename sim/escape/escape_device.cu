/* SPDX-License-Identifier: BSD-3-Clause */
/** @file escape_device.cu  The escape problem's GPU engine: source, transport and
 * tally as three kernels on the tally's stream, the event flags kept in device
 * memory between them. Built for CUDA by nvcc and for the emulated backend as
 * host C++. */
#include "escape_engine.h"
#include "escape_kernels.cuh"
#include "sim_device.cuh"

#if MCT_IS_EMULATED
#define SIM_ESCAPE_DEVICE_ENGINE sim_escape_engine_emulated
#else
#define SIM_ESCAPE_DEVICE_ENGINE sim_escape_engine_cuda
#endif

/* Photons and event flags of a chunk in buf[0] and buf[1]. */
static mct_status_t device_create(void** ctx, const sim_engine_args_t* a) {
    return sim_device_buffers_create(ctx, a, sizeof(mct_escape_photon_t), sizeof(int32_t));
}

static int64_t device_tally_threads(void* ctx, int64_t chunk) {
    const sim_buffers_t* d = (const sim_buffers_t*)ctx;
    const mct_escape_params_t* p = ((const sim_escape_problem_t*)d->problem)->p;
    return sim_escape_tally_grid(p->launch, chunk, p->block_size, d->sms) * p->block_size;
}

/* The source and transport kernels are not what the problem measures; they use
 * a fixed, full-device launch. */
static mct_status_t device_run_chunk(void* ctx, int64_t first, int64_t n, mct_tally_t tally) {
    const sim_buffers_t* d = (const sim_buffers_t*)ctx;
    const sim_escape_problem_t* problem = (const sim_escape_problem_t*)d->problem;
    const mct_escape_params_t* p = problem->p;
    mct_escape_photon_t* photons = (mct_escape_photon_t*)d->buf[0];
    int32_t* events = (int32_t*)d->buf[1];
    const cudaStream_t stream = (cudaStream_t)d->stream;
    mct_tally_view_t view;
    mct_status_t st = mct_tally_view(tally, &view);
    if (st) return st;
    const unsigned grid = (unsigned)sim_escape_tally_grid(MCT_ESCAPE_LAUNCH_FULL, n, 256, d->sms);
    MCT_LAUNCH(mct_escape_source_kernel, grid, 256, 0, stream, photons, n, first);
    MCT_LAUNCH(mct_escape_transport_kernel, grid, 256, 0, stream, photons, events, n, p->seed, problem->p_escape);
    const int64_t tally_grid = sim_escape_tally_grid(p->launch, n, p->block_size, d->sms);
    sim_escape_tally_launch(events, n, view, tally_grid, p->block_size, stream);
    return sim_status_of(cudaPeekAtLastError());
}

extern "C" const sim_engine_t SIM_ESCAPE_DEVICE_ENGINE = {
    device_create, device_tally_threads, device_run_chunk, NULL, sim_device_buffers_destroy, NULL,
};
