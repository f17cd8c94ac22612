/* SPDX-License-Identifier: BSD-3-Clause */
/** @file test_emu_errors.cpp  Misuse that is undefined on a GPU must be reported as a
 * launch failure naming the culprit, and a deadlock must be reported, never hang. */
#include "emu_test.h"

/* Lanes 0..15 shuffle among themselves but read lane 20, outside the mask. */
__global__ void read_outside_mask_kernel(int* out) {
    int lane = threadIdx.x % 32;
    if (lane < 16) out[lane] = __shfl_sync(0x0000ffffu, lane, 20);
}

/* Lanes 24..31 have returned; the rest shuffle down by 8, so lanes 16..23 read them. */
__global__ void read_exited_kernel(int* out) {
    int lane = threadIdx.x % 32;
    if (lane >= 24) return;
    out[lane] = __shfl_down_sync(0x00ffffffu, lane, 8);
}

/* A full mask although lanes 24..31 have returned: can never complete. */
__global__ void mask_names_exited_kernel(int* out) {
    int lane = threadIdx.x % 32;
    if (lane >= 24) return;
    out[lane] = __shfl_sync(0xffffffffu, lane, 0);
}

/* Lane 0 waits for lane 1 at __syncwarp, lane 1 waits for lane 0 at __syncthreads. */
__global__ void syncwarp_deadlock_kernel(int* out) {
    if (threadIdx.x == 0)
        __syncwarp(0x3u);
    else
        __syncthreads();
    out[threadIdx.x] = 1;
}

/* __syncthreads in a divergent branch: threads 48..63 wait at a __syncwarp naming
 * threads 32..47, which wait at the barrier for them. */
__global__ void divergent_barrier_kernel(int* out) {
    if (threadIdx.x < 48)
        __syncthreads();
    else
        __syncwarp(0xffffffffu);
    out[threadIdx.x] = 1;
}

/* A reduction written with a half-warp mask although the whole warp runs it. */
__global__ void wrong_mask_reduce_kernel(int* out) {
    int v = 1;
    for (int off = 16; off > 0; off /= 2) v += __shfl_down_sync(0x0000ffffu, v, off);
    if (threadIdx.x == 0) out[0] = v;
}

/* The full-warp reduction in a block of 7 threads: the mask names lanes 7..31, which
 * do not exist. */
__global__ void partial_warp_full_mask_kernel(int* out) {
    int v = 1;
    for (int off = 16; off > 0; off /= 2) v += __shfl_down_sync(0xffffffffu, v, off);
    if (threadIdx.x == 0) out[0] = v;
}

/* Half the warp shuffles while the other half votes, on one mask. */
__global__ void kind_mismatch_kernel(int* out) {
    int lane = threadIdx.x % 32;
    if (lane < 16)
        out[lane] = __shfl_sync(0xffffffffu, lane, 0);
    else
        out[lane] = (int)__ballot_sync(0xffffffffu, 1);
}

/* Two halves of a warp meet at one shuffle, each naming the other, with different
 * masks: the rendezvous can never be decided. */
__global__ void mask_mismatch_kernel(int* out) {
    int lane = threadIdx.x % 32;
    if (lane < 16)
        out[lane] = __shfl_sync(0xffffffffu, lane, 0);
    else
        out[lane] = __shfl_sync(0xfffffffeu, lane, 1);
}

/* Warp 0 waits at __syncthreads, warp 1 at __syncthreads_count: one barrier, two kinds. */
__global__ void barrier_kind_kernel(int* out) {
    if (threadIdx.x < 32)
        __syncthreads();
    else
        out[threadIdx.x] = __syncthreads_count(1);
}

__global__ void bad_width_kernel(int* out) {
    out[threadIdx.x] = __shfl_sync(0xffffffffu, (int)threadIdx.x, 1, 12);
}

__global__ void fill_kernel(int* out, int v) { out[emu_gtid()] = v; }

static void check_recovers(int* d) {
    int h[256];
    MCT_LAUNCH(fill_kernel, 2, 128, 0, 0, d, 9);
    EXPECT_LAUNCH_OK();
    cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
    for (int i = 0; i < 256; ++i) ASSERT_EQ_I64(h[i], 9);
}

int main(void) {
    int* d;
    cudaMalloc(&d, 1024 * sizeof(int));
    mct_emu_set_threads(2);

    MCT_LAUNCH(read_outside_mask_kernel, 1, 32, 0, 0, d);
    EXPECT_LAUNCH_FAILS("read_outside_mask_kernel", "reads lane 20", "lane 20 is not in the mask",
                        "warp 0 lane 0", "test_emu_errors.cpp:9");
    check_recovers(d);

    MCT_LAUNCH(read_exited_kernel, 1, 32, 0, 0, d);
    EXPECT_LAUNCH_FAILS("reads lane 24", "lane 16");
    check_recovers(d);

    MCT_LAUNCH(mask_names_exited_kernel, 2, 32, 0, 0, d);
    EXPECT_LAUNCH_FAILS("can never complete", "lane 24 has exited", "block (1,0,0)");
    check_recovers(d);

    MCT_LAUNCH(syncwarp_deadlock_kernel, 1, 32, 0, 0, d);
    EXPECT_LAUNCH_FAILS("deadlock", "__syncwarp", "names lane 1", "waits at __syncthreads");
    check_recovers(d);

    /* Every one of 16 blocks deadlocks, on two OS threads at once. */
    MCT_LAUNCH(divergent_barrier_kernel, 16, 64, 0, 0, d);
    EXPECT_LAUNCH_FAILS("deadlock", "__syncthreads", "abandoned", "more errors");
    check_recovers(d);

    MCT_LAUNCH(wrong_mask_reduce_kernel, 1, 32, 0, 0, d);
    EXPECT_LAUNCH_FAILS("does not name the calling lane");
    check_recovers(d);

    MCT_LAUNCH(partial_warp_full_mask_kernel, 1, 7, 0, 0, d);
    EXPECT_LAUNCH_FAILS("lane 7 does not exist");
    check_recovers(d);

    MCT_LAUNCH(kind_mismatch_kernel, 1, 32, 0, 0, d);
    EXPECT_LAUNCH_FAILS("disagree", "__shfl_sync", "__ballot_sync");
    check_recovers(d);

    MCT_LAUNCH(mask_mismatch_kernel, 1, 32, 0, 0, d);
    EXPECT_LAUNCH_FAILS("deadlock", "with a different mask 0xfffffffe");
    check_recovers(d);

    MCT_LAUNCH(barrier_kind_kernel, 1, 64, 0, 0, d);
    EXPECT_LAUNCH_FAILS("barrier disagree", "__syncthreads_count");
    check_recovers(d);

    MCT_LAUNCH(bad_width_kernel, 1, 32, 0, 0, d);
    EXPECT_LAUNCH_FAILS("width 12");
    check_recovers(d);

    cudaFree(d);
    printf("test_emu_errors: ok\n");
    return 0;
}
