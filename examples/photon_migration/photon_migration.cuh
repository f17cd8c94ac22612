/* SPDX-License-Identifier: BSD-3-Clause */
/** @file photon_migration.cuh  A small photon-migration kernel, the shape of
 * an existing GPU code being ported (docs/porting.md): one thread per photon,
 * a divergent random walk through a voxelized medium, one deposit site. The
 * physics is the textbook weight-absorption walk (Wang and Jacques' MCML
 * scheme without layers): exponential free paths, at each interaction the
 * fraction mu_a/mu_t of the weight is absorbed into the voxel, Henyey-Greenstein
 * scattering, and a photon whose weight falls below a threshold is absorbed
 * whole (at most PM_MAX_ADDS adds per photon). Weight leaving the grid goes into one more bin, so the bins sum to
 * the photons launched: the example's energy balance.
 *
 * The deposit site is written both ways, as it is before and after porting:
 * PM_FLOAT_ATOMIC adds with atomicAdd into the code's own float grid,
 * PM_MCTALLY with mct_add into the tally (any method, any value type). */
#ifndef PHOTON_MIGRATION_CUH
#define PHOTON_MIGRATION_CUH

#include <math.h>
#include <stdint.h>

#include "mctally/device/mct_launch.cuh"
#include "mctally/device/mct_tally_device.cuh"

/** The medium: n^3 voxels of side `voxel` (cm), homogeneous optical
 * properties (1/cm), a pencil beam entering the centre of the z = 0 face. */
typedef struct {
    int n;
    float voxel, mu_a, mu_s, g;
    uint64_t seed;
} pm_params_t;

/** Bins of a run: n^3 voxels and the escape bin after them. */
MCT_HD inline int64_t pm_bins(const pm_params_t& p) { return (int64_t)p.n * p.n * p.n + 1; }

enum { PM_MCTALLY = 0, PM_FLOAT_ATOMIC = 1, PM_COUNT = 2 };

/** Most deposits one photon makes with the example's medium: the weight
 * falls by the albedo 10/10.1 per step, so it passes 1e-4 within 926 steps. */
#define PM_MAX_ADDS 1000.0

/** Photon `id`'s walk; deposit(bin, weight) is called at every absorption and
 * at the escape. Host and device: the CPU path of the example runs it too. */
#if defined(__CUDACC__)
#pragma nv_exec_check_disable /* Deposit is a host or a device callable; each instance runs on its own side */
#endif
template <typename Deposit>
MCT_HD inline void pm_walk(const pm_params_t& p, uint64_t id, Deposit deposit) {
    const mct_key2x32_t key = mct_philox_key_from_seed(p.seed);
    const float mu_t = p.mu_a + p.mu_s, albedo = p.mu_s / mu_t, side = p.voxel * (float)p.n;
    float x = 0.5f * side, y = 0.5f * side, z = 0.0f, ux = 0.0f, uy = 0.0f, uz = 1.0f, w = 1.0f;
    for (uint32_t step = 0;; ++step) {
        const mct_ctr4x32_t r = mct_philox4x32_10(mct_philox_ctr_history(id, step, 0), key);
        const float s = -logf(mct_u01_open_closed_f32(r.v[0])) / mu_t;
        x += s * ux, y += s * uy, z += s * uz;
        const int ix = (int)floorf(x / p.voxel), iy = (int)floorf(y / p.voxel), iz = (int)floorf(z / p.voxel);
        if (ix < 0 || iy < 0 || iz < 0 || ix >= p.n || iy >= p.n || iz >= p.n) {
            deposit(pm_bins(p) - 1, w); /* escaped */
            return;
        }
        const int64_t bin = ix + (int64_t)p.n * (iy + (int64_t)p.n * iz);
        if (w < 1e-4f) { /* the rest is absorbed here */
            deposit(bin, w);
            return;
        }
        /* w' = w * albedo lies in [w/2, w], so w - w' is exact (Sterbenz): the
         * deposits and the final weight sum to 1 exactly, and the bins'
         * total differs from the photon count only by the tally's rounding. */
        const float left = w * albedo, absorbed = w - left;
        deposit(bin, absorbed);
        w = left;
        /* Henyey-Greenstein polar angle, uniform azimuth. */
        const float xi = mct_u01_open_closed_f32(r.v[1]), phi = 6.2831853f * mct_u01_open_closed_f32(r.v[2]);
        float ct;
        if (p.g == 0.0f) {
            ct = 2.0f * xi - 1.0f;
        } else {
            const float t = (1.0f - p.g * p.g) / (1.0f - p.g + 2.0f * p.g * xi);
            ct = (1.0f + p.g * p.g - t * t) / (2.0f * p.g);
        }
        ct = fminf(1.0f, fmaxf(-1.0f, ct));
        const float st = sqrtf(1.0f - ct * ct), cp = cosf(phi), sp = sinf(phi);
        if (fabsf(uz) > 0.99999f) {
            ux = st * cp, uy = st * sp, uz = uz > 0.0f ? ct : -ct;
        } else {
            const float d = sqrtf(1.0f - uz * uz);
            const float nx = st * (ux * uz * cp - uy * sp) / d + ux * ct;
            const float ny = st * (uy * uz * cp + ux * sp) / d + uy * ct;
            uz = -st * cp * d + uz * ct, ux = nx, uy = ny;
        }
    }
}

/** The kernel: photons [0, photons), a grid-stride loop. A = PM_MCTALLY adds
 * with mct_add (the float weight converted once to the tally's type);
 * PM_FLOAT_ATOMIC with atomicAdd into `grid`, as before porting; PM_COUNT
 * adds 1 per deposit into an integer tally (how many adds each bin takes). */
template <int A>
static __global__ void pm_kernel(pm_params_t p, uint64_t photons, mct_tally_view_t view, float* grid) {
    const uint64_t stride = (uint64_t)gridDim.x * blockDim.x;
    for (uint64_t id = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x; id < photons; id += stride)
        pm_walk(p, id, [&](int64_t bin, float weight) {
            if (A == PM_MCTALLY)
                mct_add(view, bin, weight); /* was: atomicAdd(&grid[bin], weight); */
            else if (A == PM_FLOAT_ATOMIC)
                atomicAdd(grid + bin, weight);
            else
                mct_add(view, bin, 1);
        });
}

/** The same kernel with the method and type fixed at compile time,
 * mct_add<T, M>: the instance carries M's code alone, where the run-time form
 * (pm_kernel<PM_MCTALLY>) carries every method's and every type's, and with
 * them their registers. `unit`: add 1 per deposit (PM_COUNT's tally). */
template <typename T, mct_method_t M>
static __global__ void pm_kernel_typed(pm_params_t p, uint64_t photons, mct_tally_view_t view, int unit) {
    const uint64_t stride = (uint64_t)gridDim.x * blockDim.x;
    for (uint64_t id = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x; id < photons; id += stride)
        pm_walk(p, id, [&](int64_t bin, float weight) { mct_add<T, M>(view, bin, unit ? (T)1 : (T)weight); });
}

#endif /* PHOTON_MIGRATION_CUH */
