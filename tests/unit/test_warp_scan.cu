/* SPDX-License-Identifier: BSD-3-Clause */
/** @file test_warp_scan.cu  The warp scans (inclusive, exclusive with init, warp
 * aggregate) of every scan type with sum, max and min, and of a non-commutative user
 * operator, over the full warp, prefix masks (partial warps) and random masks, against
 * a sequential host reference, bit for bit (float inputs are small integers, so every
 * order of additions is exact). Runs on a GPU (nvcc) and on the CPU under the CUDA
 * emulation (test_warp_scan_emulated.cpp), which also checks that no shuffle reads a
 * lane outside its mask. */
#include <stdlib.h>

#include "mctally/device/mct_launch.cuh"
#include "mctally/device/warp/warp_scan.cuh"
#include "scan_test_common.h"

#define WARPS_PER_BLOCK 2
#define BLOCKS 4
#define NWARPS (WARPS_PER_BLOCK * BLOCKS)
#define NTHREADS (32 * NWARPS)

/** Each warp scans with its own mask; only the mask's lanes take part. */
template <typename T, typename Op>
static __global__ void warp_scan_kernel(const T* in, T* incl, T* excl, T* agg_incl, T* agg_excl, T* plain,
                                        const unsigned* masks, T init, Op op) {
    const int g = (int)(blockIdx.x * blockDim.x + threadIdx.x);
    const int lane = g & 31;
    const unsigned mask = masks[g >> 5];
    if (!((mask >> lane) & 1u)) return;
    T a1, a2;
    incl[g] = mct_warp_scan_inclusive(in[g], op, mask, a1);
    excl[g] = mct_warp_scan_exclusive(in[g], init, op, mask, a2);
    agg_incl[g] = a1;
    agg_excl[g] = a2;
    /* The forms without aggregate, with the default full mask where it applies. */
    plain[g] = mask == MCT_FULL_WARP_MASK ? mct_warp_scan_inclusive(in[g], op) : mct_warp_scan_exclusive(in[g], init, op, mask);
}

template <typename T, typename Op, typename Gen>
static void check_case(Op op, Gen gen, const unsigned* h_masks, uint64_t* seed, const char* what) {
    T h_in[NTHREADS], h_out[5][NTHREADS];
    for (int i = 0; i < NTHREADS; ++i) h_in[i] = gen(seed);
    const T init = gen(seed);
    T* d[6];
    unsigned* d_masks;
    for (int k = 0; k < 6; ++k) CHECK_CUDA(cudaMalloc((void**)&d[k], sizeof h_in));
    CHECK_CUDA(cudaMalloc((void**)&d_masks, NWARPS * sizeof(unsigned)));
    CHECK_CUDA(cudaMemcpy(d[0], h_in, sizeof h_in, cudaMemcpyHostToDevice));
    CHECK_CUDA(cudaMemcpy(d_masks, h_masks, NWARPS * sizeof(unsigned), cudaMemcpyHostToDevice));
    MCT_LAUNCH((warp_scan_kernel<T, Op>), BLOCKS, 32 * WARPS_PER_BLOCK, 0, 0, d[0], d[1], d[2], d[3], d[4], d[5],
               d_masks, init, op);
    CHECK_CUDA(cudaGetLastError());
    CHECK_CUDA(cudaDeviceSynchronize());
    for (int k = 0; k < 5; ++k) CHECK_CUDA(cudaMemcpy(h_out[k], d[k + 1], sizeof h_in, cudaMemcpyDeviceToHost));
    for (int w = 0; w < NWARPS; ++w) {
        const unsigned mask = h_masks[w];
        T run = init, total = init;
        bool first = true;
        for (int l = 0; l < 32; ++l) /* the total of the mask's lanes, without init */
            if ((mask >> l) & 1u) total = first ? (first = false, h_in[w * 32 + l]) : op(total, h_in[w * 32 + l]);
        T incl = init;
        first = true;
        for (int l = 0; l < 32; ++l) {
            if (!((mask >> l) & 1u)) continue;
            const int g = w * 32 + l;
            const T x = h_in[g];
            incl = first ? x : op(incl, x);
            const T ex = run;
            run = op(run, x);
            first = false;
            const bool ok = test_same_bits(h_out[0][g], incl) && test_same_bits(h_out[1][g], ex) &&
                            test_same_bits(h_out[2][g], total) && test_same_bits(h_out[3][g], total) &&
                            test_same_bits(h_out[4][g], mask == MCT_FULL_WARP_MASK ? incl : ex);
            if (!ok) {
                fprintf(stderr, "warp scan %s: warp %d mask 0x%08x lane %d wrong\n", what, w, mask, l);
                exit(1);
            }
        }
    }
    for (int k = 0; k < 6; ++k) cudaFree(d[k]);
    cudaFree(d_masks);
}

template <typename T>
static void check_type(const unsigned* masks, uint64_t* seed, const char* name) {
    auto gen = [](uint64_t* s) { return test_value<T>(s, true); };
    char what[64];
    snprintf(what, sizeof what, "%s sum", name);
    check_case<T>(mct_op_sum<T>(), gen, masks, seed, what);
    snprintf(what, sizeof what, "%s max", name);
    check_case<T>(mct_op_max<T>(), gen, masks, seed, what);
    snprintf(what, sizeof what, "%s min", name);
    check_case<T>(mct_op_min<T>(), gen, masks, seed, what);
}

int main(void) {
    if (!test_have_device()) return 77;
    uint64_t seed = 2016;
    /* Round 0: fixed masks (full, prefixes of 1, 7 and 31 lanes, one high lane, the
     * odd lanes, the high half, one low and one high lane); later rounds: random. */
    const unsigned fixed[NWARPS] = {0xffffffffu, 0x1u, 0x7fu, 0x7fffffffu, 0x80000000u, 0xaaaaaaaau, 0xffff0000u,
                                    0x80000001u};
    const int rounds = getenv("MCT_TEST_QUICK") ? 3 : 12;
    for (int r = 0; r < rounds; ++r) {
        unsigned masks[NWARPS];
        for (int w = 0; w < NWARPS; ++w) {
            masks[w] = fixed[w];
            if (r > 0) {
                const uint64_t x = test_splitmix64(&seed);
                masks[w] = (unsigned)x & (unsigned)(x >> 32); /* about a quarter of lanes */
                if (w % 3 == 0) masks[w] = (unsigned)x | 1u;  /* about half */
                if (masks[w] == 0u) masks[w] = 1u << (x % 32);
                if (w == 0) masks[w] = 0xffffffffu;           /* keep the fast path covered */
            }
        }
        check_type<int32_t>(masks, &seed, "i32");
        check_type<uint32_t>(masks, &seed, "u32");
        check_type<int64_t>(masks, &seed, "i64");
        check_type<uint64_t>(masks, &seed, "u64");
        check_type<float>(masks, &seed, "f32");
        check_type<double>(masks, &seed, "f64");
        check_case<test_affine>(test_op_compose(), test_affine_value, masks, &seed, "affine compose");
    }
    printf("warp scan: all types, operators and masks exact\n");
    return 0;
}
