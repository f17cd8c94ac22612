/* SPDX-License-Identifier: BSD-3-Clause */
/** @file pet_reco_device.cu  The MLEM projections on a GPU (and under the
 * emulation): one work item per matrix entry and turn k, looping over the
 * slices, as the book's kernels; consecutive items are consecutive turns of
 * one entry, so a warp reads one entry and writes neighbouring LORs and
 * voxels. The forward projection adds into double sums with atomics; the back
 * projection adds into the tally with its method (mct_block_tally). */
#include <math.h>
#include <stdlib.h>

#include "mctally/device/mct_tally_device.cuh"
#include "pet_reco_engine.h"
#include "sim_device.cuh"

#if MCT_IS_EMULATED
#define SIM_PET_RECO_ENGINE sim_pet_reco_engine_emulated
#else
#define SIM_PET_RECO_ENGINE sim_pet_reco_engine_cuda
#endif

typedef struct {
    int C, N, ndc;
    const mct_pet_sm_entry_t* sm;
    int64_t entries;
    const double* activity;
    double* fp;
    const float* measured;
} reco_args_t;

static __global__ void reco_zero(double* x, int64_t n) {
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x)
        x[i] = 0.0;
}

static __global__ void reco_forward(reco_args_t a) {
    const int64_t step = (int64_t)a.ndc * a.C, work = a.entries * a.C;
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < work; i += (int64_t)gridDim.x * blockDim.x) {
        const mct_pet_sm_entry_t e = a.sm[i / a.C];
        const int k = (int)(i % a.C);
        int64_t lor = sim_pet_reco_lor0(a.C, a.N, a.ndc, &e, k), v = ((int64_t)e.ring * a.N + e.zsm1) * a.C + k;
        for (int z1 = 0; z1 < a.N - e.dz; ++z1, lor += step, v += a.C) atomicAdd(&a.fp[lor], a.activity[v] * e.p);
    }
}

template <typename T>
static __global__ void reco_back(reco_args_t a, mct_tally_view_t view) {
    mct_block_tally<T> tally(view);
    const int64_t step = (int64_t)a.ndc * a.C, work = a.entries * a.C;
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < work; i += (int64_t)gridDim.x * blockDim.x) {
        const mct_pet_sm_entry_t e = a.sm[i / a.C];
        const int k = (int)(i % a.C);
        int64_t lor = sim_pet_reco_lor0(a.C, a.N, a.ndc, &e, k), v = ((int64_t)e.ring * a.N + e.zsm1) * a.C + k;
        for (int z1 = 0; z1 < a.N - e.dz; ++z1, lor += step, v += a.C) {
            const double f = a.fp[lor];
            if (f > 0.0) tally.add(v, (T)(e.p * a.measured[lor] / f));
        }
    }
    tally.flush();
}

/* sum (m ln FP - FP) over the LORs with FP > 0: a thread's terms, its warp's
 * sum by shuffles, one atomic per warp. */
static __global__ void reco_loglik(const double* fp, const float* m, int64_t n, double* out) {
    double s = 0.0;
    for (int64_t l = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; l < n; l += (int64_t)gridDim.x * blockDim.x)
        if (fp[l] > 0.0) s += m[l] * log(fp[l]) - fp[l];
    for (int d = 16; d > 0; d >>= 1) s += __shfl_down_sync(0xffffffffu, s, d);
    if ((threadIdx.x & 31) == 0) atomicAdd(out, s);
}

typedef struct {
    mct_pet_reco_params_t p;
    reco_args_t a;
    mct_pet_sm_entry_t* sm;
    double *activity, *fp, *ll;
    float* measured;
    int64_t nv;
    int sms;
} reco_device_t;

static void device_destroy(void* ctx) {
    reco_device_t* d = (reco_device_t*)ctx;
    if (!d) return;
    cudaFree(d->sm), cudaFree(d->activity), cudaFree(d->fp), cudaFree(d->ll), cudaFree(d->measured);
    free(d);
}

static mct_status_t device_create(void** ctx, const mct_pet_reco_params_t* p, int device) {
    reco_device_t* d = (reco_device_t*)calloc(1, sizeof *d);
    *ctx = d;
    if (!d) return MCT_STATUS_OUT_OF_MEMORY;
    d->p = *p;
    d->nv = (int64_t)p->voxels * p->rings * p->crystals;
    cudaError_t err = sim_device_open(device, &d->sms);
    if (!err) err = cudaMalloc((void**)&d->sm, (size_t)p->entries * sizeof *d->sm);
    if (!err) err = cudaMalloc((void**)&d->activity, (size_t)d->nv * sizeof(double));
    if (!err) err = cudaMalloc((void**)&d->fp, (size_t)p->lor_bins * sizeof(double));
    if (!err) err = cudaMalloc((void**)&d->measured, (size_t)p->lor_bins * sizeof(float));
    if (!err) err = cudaMalloc((void**)&d->ll, sizeof(double));
    if (!err) err = cudaMemcpy(d->sm, p->sm, (size_t)p->entries * sizeof *d->sm, cudaMemcpyHostToDevice);
    if (!err) err = cudaMemcpy(d->measured, p->measured, (size_t)p->lor_bins * sizeof(float), cudaMemcpyHostToDevice);
    if (err) return sim_setup_status(err);
    reco_args_t a = {p->crystals, p->rings, p->crystals - 2 * (p->crystals / 4) + 1, d->sm, p->entries, d->activity,
                     d->fp, d->measured};
    d->a = a;
    return MCT_STATUS_SUCCESS;
}

/* Enough blocks of 256 to fill the GPU several times over: the projections
 * are bound by their scattered memory accesses. */
static unsigned grid_for(const reco_device_t* d, int64_t work) {
    int64_t g = (work + 255) / 256, cap = (int64_t)d->sms * 32;
    return (unsigned)(g < cap ? (g > 0 ? g : 1) : cap);
}

static mct_status_t device_forward(void* ctx, const double* activity, double* loglik) {
    reco_device_t* d = (reco_device_t*)ctx;
    cudaError_t err = cudaMemcpy(d->activity, activity, (size_t)d->nv * sizeof(double), cudaMemcpyHostToDevice);
    if (!err) err = cudaMemset(d->ll, 0, sizeof(double));
    if (err) return sim_status_of(err);
    MCT_LAUNCH(reco_zero, grid_for(d, d->p.lor_bins), 256, 0, 0, d->fp, d->p.lor_bins);
    MCT_LAUNCH(reco_forward, grid_for(d, d->p.entries * d->p.crystals), 256, 0, 0, d->a);
    MCT_LAUNCH(reco_loglik, grid_for(d, d->p.lor_bins), 256, 0, 0, d->fp, d->measured, d->p.lor_bins, d->ll);
    err = cudaPeekAtLastError();
    if (!err) err = cudaMemcpy(loglik, d->ll, sizeof(double), cudaMemcpyDeviceToHost);
    return sim_status_of(err);
}

static mct_status_t device_back(void* ctx, mct_tally_t bp) {
    reco_device_t* d = (reco_device_t*)ctx;
    mct_tally_view_t view;
    mct_status_t st = mct_tally_view(bp, &view);
    void* stream = NULL;
    if (!st) st = mct_tally_get_stream(bp, &stream);
    if (st) return st;
    const unsigned grid = grid_for(d, d->p.entries * d->p.crystals);
    if (view.dtype == MCT_DTYPE_F32)
        MCT_LAUNCH(reco_back<float>, grid, 256, mct_block_tally_smem_bytes<float>(view), (cudaStream_t)stream, d->a, view);
    else
        MCT_LAUNCH(reco_back<double>, grid, 256, mct_block_tally_smem_bytes<double>(view), (cudaStream_t)stream, d->a,
                   view);
    return sim_launched_status((cudaStream_t)stream);
}

extern "C" const sim_pet_reco_engine_t SIM_PET_RECO_ENGINE = {device_create, device_forward, device_back,
                                                              device_destroy};
