/* SPDX-License-Identifier: BSD-3-Clause */
/** @file tally_only_device.cu  The tally-only problem's GPU engine: one kernel
 * launch per chunk on the tally's stream, nothing kept per particle. Built for
 * CUDA by nvcc and for the emulated backend as host C++. */
#include "sim_device.cuh"
#include "tally_only_engine.h"
#include "tally_only_kernels.cuh"

#if MCT_IS_EMULATED
#define SIM_TALLY_ONLY_DEVICE_ENGINE sim_tally_only_engine_emulated
#else
#define SIM_TALLY_ONLY_DEVICE_ENGINE sim_tally_only_engine_cuda
#endif

/* No scratch: the kernel draws every deposit where it adds it. */
static mct_status_t device_create(void** ctx, const sim_engine_args_t* a) {
    return sim_device_buffers_create(ctx, a, 0, 0);
}

static int64_t device_tally_threads(void* ctx, int64_t chunk) {
    const sim_buffers_t* d = (const sim_buffers_t*)ctx;
    const mct_tally_only_launch_t launch = ((const mct_tally_only_params_t*)d->problem)->launch;
    return sim_tally_only_grid(launch, chunk, d->sms) * sim_tally_only_block(launch);
}

static mct_status_t device_run_chunk(void* ctx, int64_t first, int64_t n, mct_tally_t tally) {
    const sim_buffers_t* d = (const sim_buffers_t*)ctx;
    const mct_tally_only_params_t* p = (const mct_tally_only_params_t*)d->problem;
    mct_tally_view_t view;
    mct_status_t st = mct_tally_view(tally, &view);
    if (st) return st;
    sim_tally_only_args_t a = {p->seed, (uint64_t)first, n, p->collisions, (uint32_t)p->bins,
                                      (float)p->mean_energy, 0};
    a.buffered = sim_tally_only_buffers(p->deposit, view);
    sim_tally_only_launch(view, a, sim_tally_only_grid(p->launch, n, d->sms), sim_tally_only_block(p->launch),
                           (cudaStream_t)d->stream);
    return sim_status_of(cudaPeekAtLastError());
}

extern "C" const sim_engine_t SIM_TALLY_ONLY_DEVICE_ENGINE = {
    device_create, device_tally_threads, device_run_chunk, NULL, sim_device_buffers_destroy, NULL,
};
