/* SPDX-License-Identifier: BSD-3-Clause */
/** @file deposit_variants.cu  What a deposit costs in the photon-migration
 * kernel (examples/photon_migration), one variant of its deposit site per
 * instance, timed back to back on one GPU: the kernel's own float atomicAdd;
 * mct_add in the run-time form and the typed form (mct_add<T, M>) for f64
 * atomic and fixed; and three fixed-point forms outside the library, to see
 * where fixed's time goes: one int64 atomic per lane with the overflow test on
 * the returned value (no peer matching), the same atomic without the test
 * (fire and forget), and two fire-and-forget atomics (the value and its high
 * half: a wide sum). The views are made by hand (no tally): this measures the
 * device code alone, with no batch statistics. Not built by CMake:
 *
 *     nvcc -std=c++17 -arch=sm_90 -O3 -Iinclude -Iexamples/photon_migration \
 *          bench/adopt/deposit_variants.cu -o deposit_variants
 *     ./deposit_variants PHOTONS GRID REPS [VARIANTS]
 */
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
#include "photon_migration.cuh"
enum { V_FLOAT, V_RT_F64, V_ST_F64, V_RT_FIXED, V_ST_FIXED, V_FIXED_NOPEER, V_FIXED_RED, V_FIXED_WIDE, V_ST_KAHAN, V_RT_KAHAN, V_N };
static const char* names[] = {"float_atomic", "runtime_f64_atomic", "static_f64_atomic", "runtime_fixed", "static_fixed",
                              "fixed_nopeer_atom", "fixed_red_nocheck", "fixed_wide_2red", "static_kahan", "runtime_kahan"};
template <int V>
__global__ void k(pm_params_t p, uint64_t photons, mct_tally_view_t view, float* grid, long long* hi) {
    const uint64_t stride = (uint64_t)gridDim.x * blockDim.x;
    for (uint64_t id = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x; id < photons; id += stride)
        pm_walk(p, id, [&](int64_t bin, float w) {
            if constexpr (V == V_FLOAT) atomicAdd(grid + bin, w);
            else if constexpr (V == V_RT_F64 || V == V_RT_FIXED || V == V_RT_KAHAN) mct_add(view, bin, w);
            else if constexpr (V == V_ST_F64) mct_add<double, MCT_METHOD_ATOMIC>(view, bin, (double)w);
            else if constexpr (V == V_ST_FIXED) mct_add<double, MCT_METHOD_FIXED>(view, bin, (double)w);
            else if constexpr (V == V_ST_KAHAN) mct_add<float, MCT_METHOD_KAHAN>(view, bin, w);
            else {
                if (!((uint64_t)bin < (uint64_t)view.nbins)) return;
                int64_t v;
                if (mct_fixed_from_double((double)w, view.fixed_scale, &v)) return;
                if constexpr (V == V_FIXED_NOPEER) mct_atomic_add_fixed((int64_t*)view.bins + bin, v, view.flags);
                else if constexpr (V == V_FIXED_RED) atomicAdd((unsigned long long*)view.bins + bin, (unsigned long long)v);
                else {
                    atomicAdd((unsigned long long*)view.bins + bin, (unsigned long long)v);
                    atomicAdd((unsigned long long*)hi + bin, (unsigned long long)(v >> 32));
                }
            }
        });
}
int main(int argc, char** argv) {
    setvbuf(stdout, NULL, _IOLBF, 0);
    const int nv = argc > 4 ? atoi(argv[4]) : V_ST_KAHAN;
    const double photons = argc > 1 ? atof(argv[1]) : 1e8;
    const int n = argc > 2 ? atoi(argv[2]) : 40, reps = argc > 3 ? atoi(argv[3]) : 3;
    pm_params_t p; p.n = n; p.voxel = 0.1f; p.mu_a = 0.1f; p.mu_s = 10.0f; p.g = 0.9f; p.seed = 2029;
    const int64_t bins = pm_bins(p);
    void *bins_d, *hi_d; unsigned* flags;
    cudaMalloc(&bins_d, bins * 8); cudaMalloc(&hi_d, bins * 8); cudaMalloc(&flags, 4);
    const int block = 128; const uint64_t want = ((uint64_t)photons + block - 1) / block;
    const unsigned blocks = (unsigned)(want < 65535 * 8 ? want : 65535 * 8);
    double best[V_N]; for (int v = 0; v < V_N; ++v) best[v] = 1e30;
    std::vector<double> h(bins);
    for (int r = 0; r < reps; ++r)
        for (int v = 0; v < nv; ++v) {
            mct_tally_view_t view; memset(&view, 0, sizeof view);
            view.bins = bins_d; view.nbins = bins; view.flags = flags; view.fixed_frac_bits = 32; view.fixed_scale = 0x1p32;
            view.dtype = (v == V_ST_KAHAN || v == V_RT_KAHAN) ? MCT_DTYPE_F32 : MCT_DTYPE_F64;
            view.method = (v == V_RT_FIXED || v == V_ST_FIXED || v >= V_FIXED_NOPEER) ? MCT_METHOD_FIXED : MCT_METHOD_ATOMIC;
            if (v == V_ST_KAHAN || v == V_RT_KAHAN) view.method = MCT_METHOD_KAHAN;
            cudaMemset(bins_d, 0, bins * 8); cudaMemset(hi_d, 0, bins * 8); cudaMemset(flags, 0, 4);
            cudaEvent_t a, b; cudaEventCreate(&a); cudaEventCreate(&b);
            cudaEventRecord(a);
#define L(V) case V: k<V><<<blocks, block>>>(p, (uint64_t)photons, view, (float*)bins_d, (long long*)hi_d); break;
            switch (v) { L(0) L(1) L(2) L(3) L(4) L(5) L(6) L(7) L(8) L(9) }
            cudaEventRecord(b); cudaEventSynchronize(b);
            float ms; cudaEventElapsedTime(&ms, a, b);
            if (cudaGetLastError() != cudaSuccess) { printf("error\n"); return 1; }
            if (ms < best[v]) best[v] = ms;
            double tot = 0; std::vector<long long> li(bins); std::vector<float> lf(bins);
            if (v == V_FLOAT || v == V_ST_KAHAN || v == V_RT_KAHAN) { cudaMemcpy(lf.data(), bins_d, bins * 4, cudaMemcpyDeviceToHost); }
            else cudaMemcpy(li.data(), bins_d, bins * 8, cudaMemcpyDeviceToHost);
            for (int64_t i = 0; i < bins; ++i) tot += (v == V_FLOAT || v == V_ST_KAHAN || v == V_RT_KAHAN) ? (double)lf[i] : (v == V_RT_F64 || v == V_ST_F64) ? ((double*)li.data())[i] : (double)li[i] * 0x1p-32;
            if (r == reps - 1) printf("%-20s %8.2f ms  total/photons-1 = %.3e\n", names[v], ms, tot / photons - 1);
        }
    printf("best of %d, %.0e photons, grid %d^3:\n", reps, photons, n);
    for (int v = 0; v < nv; ++v) printf("  %-20s %8.2f ms  %.3fx float\n", names[v], best[v], best[v] / best[0]);
}
