/* SPDX-License-Identifier: BSD-3-Clause */
/** @file pet_device.cu  The PET problem's GPU engine: the source's shapes
 * copied to the device once, then one persistent launch per chunk (a whole
 * batch on a GPU), on the tally's stream. Built for CUDA by nvcc and for the
 * emulated backend as host C++. */
#include <stdlib.h>
#include <string.h>

#include "pet_engine.h"
#include "pet_kernels.cuh"
#include "sim_device.cuh"

#if MCT_IS_EMULATED
#define SIM_PET_DEVICE_ENGINE sim_pet_engine_emulated
#else
#define SIM_PET_DEVICE_ENGINE sim_pet_engine_cuda
#endif

typedef struct {
    const sim_pet_problem_t* problem;
    mct_pet_src_shape_t* shapes;
    sim_pet_device_counters_t* counters;
    mct_tally_desc_t desc; /* the tally's: its type and method size the grid before the first view */
    cudaStream_t stream;
    int block, grid_blocks, sms, discard;
} pet_device_t;

static void device_destroy(void* ctx) {
    pet_device_t* d = (pet_device_t*)ctx;
    if (!d) return;
    cudaFree(d->shapes);
    cudaFree(d->counters);
    free(d);
}

static mct_status_t device_create(void** ctx, const sim_engine_args_t* a) {
    const sim_pet_problem_t* problem = (const sim_pet_problem_t*)a->problem;
    pet_device_t* d = (pet_device_t*)calloc(1, sizeof *d);
    *ctx = d;
    if (!d) return MCT_STATUS_OUT_OF_MEMORY;
    d->problem = problem;
    d->desc = a->desc;
    d->stream = sim_stream(a);
    d->block = problem->p->block_size;
    d->grid_blocks = problem->p->grid_blocks;
    d->discard = problem->p->discard;
    if (d->discard && !MCT_BENCHMARK_HOOKS) return MCT_STATUS_NOT_SUPPORTED; /* built without the discarding launch */
    const size_t bytes = (size_t)problem->geom.nshapes * sizeof(mct_pet_src_shape_t);
    cudaError_t err = sim_device_open(a->desc.device, &d->sms);
    if (!err) err = cudaMalloc((void**)&d->shapes, bytes);
    if (!err) err = cudaMalloc((void**)&d->counters, sizeof *d->counters);
    if (!err) err = cudaMemcpyAsync(d->shapes, problem->shapes, bytes, cudaMemcpyHostToDevice, d->stream);
    if (!err) err = cudaMemsetAsync(d->counters, 0, sizeof *d->counters, d->stream);
    if (!err) err = cudaStreamSynchronize(d->stream);
    return sim_setup_status(err);
}

/* The persistent grid of this very kernel instance (sim_persistent_grid). */
template <typename T>
static int persistent_grid(const pet_device_t* d, const mct_tally_view_t& view) {
    const int buf = sim_pet_buffers<T>(d->problem->p->deposit, view);
    return sim_persistent_grid(d->grid_blocks, sim_pet_kernel_for<T>(view, d->discard, buf), d->block,
                               sim_pet_smem<T>(view, d->block, buf), d->sms);
}

static int grid_for(const pet_device_t* d, const mct_tally_view_t& view) {
    return view.dtype == MCT_DTYPE_U64 ? persistent_grid<uint64_t>(d, view) : persistent_grid<int32_t>(d, view);
}

static int64_t device_tally_threads(void* ctx, int64_t chunk) {
    (void)chunk; /* a persistent grid, whatever the chunk */
    const pet_device_t* d = (const pet_device_t*)ctx;
    return (int64_t)grid_for(d, sim_sizing_view(&d->desc)) * d->block;
}

template <typename T>
static void launch(const pet_device_t* d, const mct_tally_view_t& view, uint64_t first, int64_t n, int grid) {
    const mct_key2x32_t key2 = mct_philox_key_from_seed(d->problem->p->seed);
    const int buf = sim_pet_buffers<T>(d->problem->p->deposit, view);
    const sim_pet_kernel_t<T> kernel = sim_pet_kernel_for<T>(view, d->discard, buf);
    MCT_LAUNCH(((*kernel)), grid, d->block, sim_pet_smem<T>(view, d->block, buf), d->stream, d->problem->geom, d->shapes, key2,
               first, n, view, d->counters);
}

static mct_status_t device_run_chunk(void* ctx, int64_t first, int64_t n, mct_tally_t tally) {
    pet_device_t* d = (pet_device_t*)ctx;
    mct_tally_view_t view;
    mct_status_t st = mct_tally_view(tally, &view);
    if (st) return st;
    const int grid = sim_grid_for_items(grid_for(d, view), n, d->block);
    if (view.dtype == MCT_DTYPE_U64)
        launch<uint64_t>(d, view, (uint64_t)first, n, grid);
    else
        launch<int32_t>(d, view, (uint64_t)first, n, grid);
    return sim_launched_status(d->stream);
}

static mct_status_t device_finish(void* ctx, void* out) {
    const pet_device_t* d = (const pet_device_t*)ctx;
    sim_pet_device_counters_t c;
    cudaError_t err = cudaMemcpyAsync(&c, d->counters, sizeof c, cudaMemcpyDeviceToHost, d->stream);
    if (!err) err = cudaStreamSynchronize(d->stream);
    if (err) return sim_status_of(err);
    sim_pet_counters_t* t = (sim_pet_counters_t*)out;
    t->good = c.good;
    t->outside = c.outside;
    t->checksum = c.checksum;
    return MCT_STATUS_SUCCESS;
}

extern "C" const sim_engine_t SIM_PET_DEVICE_ENGINE = {
    device_create, device_tally_threads, device_run_chunk, device_finish, device_destroy, NULL,
};
