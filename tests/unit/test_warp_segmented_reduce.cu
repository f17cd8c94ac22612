/* SPDX-License-Identifier: BSD-3-Clause */
/** @file test_warp_segmented_reduce.cu  The warp's per-group reductions: the sub-tree
 * reduction over any peer groups of any active mask (mct_warp_segmented_reduce), the
 * fixed-step reduction over runs of consecutive lanes (mct_warp_run_reduce) and the
 * contiguity test that chooses between them (mct_warp_peers_contiguous). Values are
 * affine maps x -> a x + b (mod 2^32) packed in a u64, combined by composition:
 * exact and non-commutative, so a lost, repeated or reordered term shows. Runs on a
 * GPU and under the CUDA emulation (test_warp_segmented_reduce_emulated.cpp), which
 * also checks that no shuffle reads a lane outside its mask. */
#include <stdio.h>
#include <stdlib.h>

#include <vector>

#include "mctally/device/mct_launch.cuh"
#include "mctally/device/warp/warp_segmented_reduce.cuh"
#include "scan_test_common.h"

#define NWARPS 64

/** op(f, g) = g after f, both affine maps (a high 32 bits, b low 32 bits). */
struct compose_u64 {
    MCT_HD inline uint64_t operator()(uint64_t f, uint64_t g) const {
        const uint32_t fa = (uint32_t)(f >> 32), fb = (uint32_t)f, ga = (uint32_t)(g >> 32), gb = (uint32_t)g;
        return ((uint64_t)(ga * fa) << 32) | (uint32_t)(ga * fb + gb);
    }
};

/** Each warp: its mask's lanes find their peers by key; every lane reports whether
 * its group is contiguous and its segmented partial; where the whole warp is active
 * and every group contiguous, also its run reduction. */
static __global__ void reduce_kernel(const unsigned* keys, const uint64_t* in, const unsigned* masks,
                                     unsigned* contiguous, uint64_t* seg, uint64_t* run) {
    const int g = (int)(blockIdx.x * blockDim.x + threadIdx.x), lane = g & 31;
    const unsigned mask = masks[g >> 5];
    if (!((mask >> lane) & 1u)) return;
    const unsigned peers = mct_warp_peers_ballot(mask, keys[g]);
    const bool contig = mct_warp_peers_contiguous(peers);
    contiguous[g] = contig;
    seg[g] = mct_warp_segmented_reduce(mask, peers, in[g], compose_u64());
    if (mask == 0xffffffffu && __all_sync(mask, contig))
        run[g] = mct_warp_run_reduce(in[g], 31 - __clz((int)peers), compose_u64());
}

/** Keys of one warp by pattern: 0 sorted runs of random lengths, 1 random keys from a
 * few values (groups interleave), 2 one key, 3 all different, 4 runs with one key
 * coming back after a gap (contiguous except one group). */
static void warp_keys(int pattern, unsigned* k, uint64_t* s) {
    unsigned key = 0;
    for (int l = 0; l < 32; ++l) {
        switch (pattern) {
        case 0: key += (test_splitmix64(s) % 5 == 0); k[l] = key; break;
        case 1: k[l] = (unsigned)(test_splitmix64(s) % 4); break;
        case 2: k[l] = 9; break;
        case 3: k[l] = (unsigned)l; break;
        default: k[l] = l < 10 ? 1 : l < 20 ? 2 : l < 25 ? 1 : 3; break;
        }
    }
}

int main(void) {
    if (!test_have_device()) return 77;
    const int N = 32 * NWARPS;
    uint64_t seed = 1809;
    std::vector<unsigned> keys(N), masks(NWARPS), contiguous(N, 7u);
    std::vector<uint64_t> in(N), seg(N, 0), run(N, 0);
    for (int w = 0; w < NWARPS; ++w) {
        warp_keys(w % 5, &keys[w * 32], &seed);
        /* Full warps, then prefix masks and random masks (never empty). */
        const int kind = (w / 5) % 3;
        masks[w] = kind == 0 ? 0xffffffffu
                   : kind == 1 ? (0xffffffffu >> (test_splitmix64(&seed) % 32))
                               : ((unsigned)test_splitmix64(&seed) | 1u);
    }
    for (auto& v : in) v = test_splitmix64(&seed) | (UINT64_C(1) << 32); /* odd a: no map collapses to a constant */
    unsigned *d_keys, *d_masks, *d_contig;
    uint64_t *d_in, *d_seg, *d_run;
    CHECK_CUDA(cudaMalloc((void**)&d_keys, N * sizeof(unsigned)));
    CHECK_CUDA(cudaMalloc((void**)&d_masks, NWARPS * sizeof(unsigned)));
    CHECK_CUDA(cudaMalloc((void**)&d_contig, N * sizeof(unsigned)));
    CHECK_CUDA(cudaMalloc((void**)&d_in, N * sizeof(uint64_t)));
    CHECK_CUDA(cudaMalloc((void**)&d_seg, N * sizeof(uint64_t)));
    CHECK_CUDA(cudaMalloc((void**)&d_run, N * sizeof(uint64_t)));
    CHECK_CUDA(cudaMemcpy(d_keys, keys.data(), N * sizeof(unsigned), cudaMemcpyHostToDevice));
    CHECK_CUDA(cudaMemcpy(d_masks, masks.data(), NWARPS * sizeof(unsigned), cudaMemcpyHostToDevice));
    CHECK_CUDA(cudaMemcpy(d_in, in.data(), N * sizeof(uint64_t), cudaMemcpyHostToDevice));
    CHECK_CUDA(cudaMemset(d_run, 0, N * sizeof(uint64_t)));
    MCT_LAUNCH(reduce_kernel, NWARPS / 2, 64, 0, 0, d_keys, d_in, d_masks, d_contig, d_seg, d_run);
    CHECK_CUDA(cudaGetLastError());
    CHECK_CUDA(cudaDeviceSynchronize());
    CHECK_CUDA(cudaMemcpy(contiguous.data(), d_contig, N * sizeof(unsigned), cudaMemcpyDeviceToHost));
    CHECK_CUDA(cudaMemcpy(seg.data(), d_seg, N * sizeof(uint64_t), cudaMemcpyDeviceToHost));
    CHECK_CUDA(cudaMemcpy(run.data(), d_run, N * sizeof(uint64_t), cudaMemcpyDeviceToHost));

    const compose_u64 op;
    int runs_checked = 0, noncontig_seen = 0;
    for (int w = 0; w < NWARPS; ++w) {
        const unsigned mask = masks[w];
        const unsigned* k = &keys[w * 32];
        bool all_contig = true;
        for (int l = 0; l < 32; ++l) {
            if (!((mask >> l) & 1u)) continue;
            /* The lane's group within the mask, its contiguity and its ordered total. */
            unsigned peers = 0;
            for (int j = 0; j < 32; ++j)
                if (((mask >> j) & 1u) && k[j] == k[l]) peers |= 1u << j;
            const int lo = __builtin_ctz(peers), hi = 31 - __builtin_clz(peers);
            const bool contig = peers == (unsigned)(((uint64_t)2 << hi) - ((uint64_t)1 << lo));
            all_contig = all_contig && contig;
            noncontig_seen += !contig;
            if (contiguous[w * 32 + l] != (unsigned)contig) {
                fprintf(stderr, "warp %d lane %d: contiguous %u, expected %d (peers %08x)\n", w, l,
                        contiguous[w * 32 + l], contig, peers);
                return 1;
            }
            if (l == lo) { /* the leader holds the group's total, lowest lane first */
                uint64_t total = in[w * 32 + lo];
                for (int j = lo + 1; j <= hi; ++j)
                    if ((peers >> j) & 1u) total = op(total, in[w * 32 + j]);
                if (seg[w * 32 + l] != total) {
                    fprintf(stderr, "warp %d (mask %08x): segmented total of the group at lane %d wrong\n", w,
                            mask, l);
                    return 1;
                }
            }
        }
        if (mask != 0xffffffffu || !all_contig) continue;
        for (int l = 0; l < 32; ++l) { /* every lane: op over its lane up to its run's end */
            int hi = l;
            while (hi < 31 && k[hi + 1] == k[l]) ++hi;
            uint64_t total = in[w * 32 + l];
            for (int j = l + 1; j <= hi; ++j) total = op(total, in[w * 32 + j]);
            if (run[w * 32 + l] != total) {
                fprintf(stderr, "warp %d lane %d: run reduction wrong\n", w, l);
                return 1;
            }
        }
        ++runs_checked;
    }
    ASSERT_TRUE(runs_checked >= 8 && noncontig_seen > 0);
    printf("segmented and run reductions: %d warps, %d with run reductions checked\n", NWARPS, runs_checked);
    cudaFree(d_keys), cudaFree(d_masks), cudaFree(d_contig), cudaFree(d_in), cudaFree(d_seg), cudaFree(d_run);
    return 0;
}
