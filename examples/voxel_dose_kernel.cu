/* SPDX-License-Identifier: BSD-3-Clause */
/** @file voxel_dose_kernel.cu  Example to copy: "your transport kernel, adding
 * energy into a voxel grid". Two ways to add, both method-agnostic (the method
 * is the tally's, chosen on the host with mct_tally_desc_t.method):
 *
 * - voxel_dose_kernel_any: mct_add(view, voxel, edep) straight from the
 *   transport loop; any lane, any time, divergent code and early exits welcome.
 * - voxel_dose_kernel_block: the same through mct_block_tally, which also
 *   serves the `shared` method (a block-private copy of the voxels in shared
 *   memory) when the grid is small enough; every thread of the block constructs
 *   it and calls flush() at the end, converged.
 * - voxel_dose_kernel_buffered: the same through mct_deposit_buffer
 *   (block_deposit_buffer.cuh), which keeps every method cheap in divergent
 *   transport: a lane's deposits into one voxel are summed in a register, hot
 *   voxels are summed in a block cache in shared memory and reach the tally
 *   once per block, sort_reduce's pairs are reserved per lane's slots. The
 *   method's promise is kept (fixed stays bitwise, sort_reduce run-to-run).
 *   Every thread constructs it and calls flush() at the end, converged; a lane
 *   whose particles are done leaves its loop and waits there. Launch with
 *   mct_deposit_buffer_smem_bytes<T>(view, block) bytes of shared memory
 *   (3 KiB for the cached methods, 48 bytes a thread for sort_reduce, none for
 *   atomic, replicated and shared, which it passes straight to mct_add).
 *
 * The "physics" is a stand-in that keeps the example exact and checkable: a
 * particle enters the grid's z = 0 face at a random voxel, hops through the
 * lattice, and leaves a quarter of its energy in each voxel it visits, until it
 * leaves the grid or its energy drops below a cut-off. Replace voxel_start,
 * voxel_alive and voxel_step with your own transport; keep the add calls.
 *
 * Host side (error checks omitted):
 *
 *     mct_tally_desc_t d; mct_tally_desc_init(&d);
 *     d.bins = nx * ny * nz; d.dtype = MCT_DTYPE_F64; d.method = MCT_METHOD_WIB;
 *     mct_tally_t dose; mct_tally_create(&dose, &d);
 *     mct_tally_view_t view; mct_tally_view(dose, &view);
 *     voxel_dose_launch<double>(view, grid, histories, seed, 0);
 *     mct_tally_end_batch(dose, histories);
 */
#include <stdint.h>

#include "mctally/device/mct_launch.cuh"
#include "mctally/device/mct_tally_device.cuh"

/** A voxel grid: nx * ny * nz voxels, x fastest. */
typedef struct {
    int nx, ny, nz;
} voxel_grid_t;

/** One particle of the stand-in physics: where it is and what it carries. */
typedef struct {
    int x, y, z;
    double energy; /* MeV */
    uint32_t step;
    uint64_t history;
    mct_key2x32_t key;
} voxel_particle_t;

/** A new particle for history h, entering the z = 0 face at a random voxel.
 * Host and device (MCT_HD), so a test can replay the deposits exactly. */
MCT_HD inline voxel_particle_t voxel_start(voxel_grid_t g, uint64_t seed, uint64_t h) {
    voxel_particle_t p;
    p.key = mct_philox_key_from_seed(seed);
    p.history = h, p.step = 0, p.energy = 1.0;
    const mct_ctr4x32_t r = mct_philox4x32_10(mct_philox_ctr_history(h, 0, 0), p.key);
    p.x = (int)(r.v[0] % (uint32_t)g.nx), p.y = (int)(r.v[1] % (uint32_t)g.ny), p.z = 0;
    return p;
}

/** Whether the particle is still tracked: inside the grid and above the cut-off. */
MCT_HD inline bool voxel_alive(voxel_grid_t g, const voxel_particle_t& p) {
    return p.energy >= 0x1p-12 && p.x >= 0 && p.x < g.nx && p.y >= 0 && p.y < g.ny && p.z < g.nz;
}

/** One step: deposits a quarter of the energy (exact, a power of two) in the
 * current voxel, written to *voxel, returns the deposit, and hops on. */
MCT_HD inline double voxel_step(voxel_grid_t g, voxel_particle_t* p, int64_t* voxel) {
    *voxel = (int64_t)p->x + (int64_t)g.nx * ((int64_t)p->y + (int64_t)g.ny * p->z);
    const double edep = 0.25 * p->energy;
    p->energy -= edep;
    const mct_ctr4x32_t r = mct_philox4x32_10(mct_philox_ctr_history(p->history, ++p->step, 0), p->key);
    p->x += (int)(r.v[0] % 3u) - 1;
    p->y += (int)(r.v[1] % 3u) - 1;
    p->z += (int)(r.v[2] % 3u); /* forward or sideways */
    return edep;
}

/** Adds each deposit with mct_add (the method from view.method). T is the
 * tally's value type (double for f64 tallies, float for f32 and kahan). Lanes
 * whose particle escaped leave the loop early; mct_add copes. */
template <typename T>
static __global__ void voxel_dose_kernel_any(mct_tally_view_t view, voxel_grid_t g, uint64_t histories,
                                             uint64_t seed) {
    const uint64_t stride = (uint64_t)gridDim.x * blockDim.x;
    for (uint64_t h = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x; h < histories; h += stride) {
        for (voxel_particle_t p = voxel_start(g, seed, h); voxel_alive(g, p);) {
            int64_t voxel;
            const double edep = voxel_step(g, &p, &voxel);
            mct_add(view, voxel, (T)edep); /* any lane, any time */
        }
    }
}

/** The same through a block-scope tally (needed for the `shared` method).
 * Launch with mct_block_tally_smem_bytes<T>(view) bytes of shared memory. */
template <typename T>
static __global__ void voxel_dose_kernel_block(mct_tally_view_t view, voxel_grid_t g, uint64_t histories,
                                               uint64_t seed) {
    mct_block_tally<T> tally(view); /* every thread of the block */
    const uint64_t stride = (uint64_t)gridDim.x * blockDim.x;
    for (uint64_t h = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x; h < histories; h += stride) {
        for (voxel_particle_t p = voxel_start(g, seed, h); voxel_alive(g, p);) {
            int64_t voxel;
            const double edep = voxel_step(g, &p, &voxel);
            tally.add(voxel, (T)edep);
        }
    }
    tally.flush(); /* every thread of the block, after its last add */
}

/** The same through a deposit buffer: launch with
 * mct_deposit_buffer_smem_bytes<T>(view, block) bytes of shared memory. */
template <typename T>
static __global__ void voxel_dose_kernel_buffered(mct_tally_view_t view, voxel_grid_t g, uint64_t histories,
                                                  uint64_t seed) {
    mct_deposit_buffer<T> deposits(view); /* every thread of the block, converged */
    const uint64_t stride = (uint64_t)gridDim.x * blockDim.x;
    for (uint64_t h = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x; h < histories; h += stride) {
        for (voxel_particle_t p = voxel_start(g, seed, h); voxel_alive(g, p);) {
            int64_t voxel;
            const double edep = voxel_step(g, &p, &voxel);
            deposits.add(voxel, (T)edep); /* any lane, any time */
        }
    }
    deposits.flush(); /* every thread of the block, converged, after its last add */
}

/** Launches the buffered form (any method). Returns the launch's cudaError_t. */
template <typename T>
static cudaError_t voxel_dose_launch_buffered(const mct_tally_view_t& view, voxel_grid_t g, uint64_t histories,
                                              uint64_t seed, cudaStream_t stream, int block = 128) {
    const unsigned grid = (unsigned)((histories + (uint64_t)block - 1) / (uint64_t)block);
    MCT_LAUNCH(voxel_dose_kernel_buffered<T>, grid, block, mct_deposit_buffer_smem_bytes<T>(view, block), stream, view,
               g, histories, seed);
    return cudaGetLastError();
}

/** Launches the block form when the method is `shared` (and the voxels fit in
 * 48 KiB), else the any-lane form. Returns the launch's cudaError_t. */
template <typename T>
static cudaError_t voxel_dose_launch(const mct_tally_view_t& view, voxel_grid_t g, uint64_t histories, uint64_t seed,
                                     cudaStream_t stream, int block = 128) {
    const unsigned grid = (unsigned)((histories + (uint64_t)block - 1) / (uint64_t)block);
    const size_t smem = mct_block_tally_smem_bytes<T>(view);
    if (view.method == MCT_METHOD_SHARED && smem <= MCT_BLOCK_TALLY_SMEM_LIMIT)
        MCT_LAUNCH(voxel_dose_kernel_block<T>, grid, block, smem, stream, view, g, histories, seed);
    else
        MCT_LAUNCH(voxel_dose_kernel_any<T>, grid, block, 0, stream, view, g, histories, seed);
    return cudaGetLastError();
}
