/* SPDX-License-Identifier: BSD-3-Clause */
/** @file scatter_device.cu  The scatter workload's CUDA engine: a generator
 * kernel writes a chunk's keys and values into device memory (the same
 * numbers as the host, scatter_inputs.h) and mct_tally_add_device_grouped adds
 * them. Both run on the tally's stream, in order. */
#include "scatter_engine.h"
#include "sim_device.cuh"

/** Keys and values of particles [first, first + n): one thread per particle,
 * grid-stride; value c of particle i at values[c * stride + i] (coalesced). */
static __global__ void mct_scatter_generate_kernel(mct_scatter_params_t p, uint64_t first, int64_t n, uint32_t* keys,
                                                   double* values, int64_t stride) {
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x) {
        const uint64_t g = first + (uint64_t)i;
        keys[i] = mct_scatter_key(p.pattern, (uint64_t)p.bins, (uint64_t)p.n, p.seed, g);
        for (int c = 0; c < p.width; ++c) values[c * stride + i] = mct_scatter_value(p.seed, g, (uint32_t)c);
    }
}

/* A chunk's keys (u32) and values (width doubles each) in buf[0] and buf[1]. */
static mct_status_t device_create(void** ctx, const sim_engine_args_t* a) {
    const size_t width = (size_t)((const mct_scatter_params_t*)a->problem)->width;
    return sim_device_buffers_create(ctx, a, sizeof(uint32_t), width * sizeof(double));
}

static mct_status_t device_run_chunk(void* ctx, int64_t first, int64_t n, mct_tally_t tally) {
    const sim_buffers_t* d = (const sim_buffers_t*)ctx;
    mct_scatter_params_t args = *(const mct_scatter_params_t*)d->problem;
    args.progress = NULL, args.progress_ctx = NULL; /* host pointers stay on the host */
    uint32_t* keys = (uint32_t*)d->buf[0];
    double* values = (double*)d->buf[1];
    const int64_t need = (n + 255) / 256, full = (int64_t)d->sms * 8;
    MCT_LAUNCH(mct_scatter_generate_kernel, (unsigned)(need < full ? need : full), 256, 0, (cudaStream_t)d->stream,
               args, (uint64_t)first, n, keys, values, d->chunk);
    mct_status_t st = sim_status_of(cudaPeekAtLastError());
    return st ? st : mct_tally_add_device_grouped(tally, keys, values, n, args.width, d->chunk);
}

extern "C" const sim_engine_t sim_scatter_engine_cuda = {
    device_create, NULL, device_run_chunk, NULL, sim_device_buffers_destroy, NULL,
};
