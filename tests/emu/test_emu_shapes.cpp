/* SPDX-License-Identifier: BSD-3-Clause */
/** @file test_emu_shapes.cpp  Awkward launch shapes: block sizes 1, 7, 32, 65, 128 and
 * 1024 (partial last warps), 2-D and 3-D blocks and grids, static and dynamic shared
 * memory, and blocks on several OS threads each seeing only their own shared memory. */
#include <vector>

#include "emu_test.h"
#include "mctally/device/mct_shared.cuh"

/* A block sum that is correct for any block size: shuffles stay inside the lanes that
 * exist, by reading one's own value where the partner would lie past the warp's end. */
__device__ long long block_sum(long long v) {
    __shared__ long long warp_sums[32];
    int t = emu_tid(), n = (int)(blockDim.x * blockDim.y * blockDim.z);
    int lane = t % 32, w = t / 32, nwarps = (n + 31) / 32;
    int live = min(32, n - w * 32);
    unsigned mask = live == 32 ? 0xffffffffu : (1u << live) - 1u;
    for (int off = 16; off > 0; off /= 2) {
        long long o = __shfl_sync(mask, v, lane + off < live ? lane + off : lane);
        if (lane + off < live) v += o;
    }
    if (lane == 0) warp_sums[w] = v;
    __syncthreads();
    if (w == 0) {
        v = lane < nwarps ? warp_sums[lane] : 0;
        for (int off = 16; off > 0; off /= 2) {
            long long o = __shfl_sync(mask, v, lane + off < live ? lane + off : lane);
            if (lane + off < live) v += o;
        }
    }
    __syncthreads(); /* warp_sums may be reused by the caller */
    return v;
}

__global__ void block_sum_kernel(const int* in, long long* out) {
    int bid = (int)(blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z));
    long long s = block_sum(in[emu_gtid()]);
    if (emu_tid() == 0) out[bid] = s;
}

static void check_block_sum(dim3 grid, dim3 block) {
    int nb = (int)(grid.x * grid.y * grid.z), nt = (int)(block.x * block.y * block.z);
    int n = nb * nt;
    std::vector<int> h(n);
    std::vector<long long> r(nb);
    for (int i = 0; i < n; ++i) h[i] = (int)((i * 2654435761u) % 100000u) - 50000;
    int* din;
    long long* dout;
    cudaMalloc(&din, sizeof(int) * n);
    cudaMalloc(&dout, sizeof(long long) * nb);
    cudaMemcpy(din, h.data(), sizeof(int) * n, cudaMemcpyHostToDevice);
    MCT_LAUNCH(block_sum_kernel, grid, block, 0, 0, din, dout);
    EXPECT_LAUNCH_OK();
    cudaMemcpy(r.data(), dout, sizeof(long long) * nb, cudaMemcpyDeviceToHost);
    for (int b = 0; b < nb; ++b) {
        long long s = 0;
        for (int i = 0; i < nt; ++i) s += h[b * nt + i];
        ASSERT_EQ_I64(r[b], s);
    }
    cudaFree(din);
    cudaFree(dout);
}

/* Each lane records its index and the index of its warp's lane 0, which shows that a
 * warp is 32 consecutive linear indices, x fastest. */
__global__ void layout_kernel(unsigned* out) {
    int g = emu_gtid();
    unsigned me = threadIdx.x | threadIdx.y << 10 | threadIdx.z << 20;
    int t = emu_tid(), n = (int)(blockDim.x * blockDim.y * blockDim.z);
    int live = min(32, n - t / 32 * 32);
    unsigned mask = live == 32 ? 0xffffffffu : (1u << live) - 1u;
    out[g * 3 + 0] = me;
    out[g * 3 + 1] = __shfl_sync(mask, me, 0);
    out[g * 3 + 2] = blockIdx.x | blockIdx.y << 10 | blockIdx.z << 20;
}

static void check_layout(dim3 grid, dim3 block) {
    int nb = (int)(grid.x * grid.y * grid.z), nt = (int)(block.x * block.y * block.z);
    std::vector<unsigned> h((size_t)nb * nt * 3);
    unsigned* d;
    cudaMalloc(&d, sizeof(unsigned) * h.size());
    MCT_LAUNCH(layout_kernel, grid, block, 0, 0, d);
    EXPECT_LAUNCH_OK();
    cudaMemcpy(h.data(), d, sizeof(unsigned) * h.size(), cudaMemcpyDeviceToHost);
    auto enc = [&](int t) {
        return (unsigned)(t % block.x) | (unsigned)(t / block.x % block.y) << 10 |
               (unsigned)(t / block.x / block.y) << 20;
    };
    for (int b = 0; b < nb; ++b)
        for (int t = 0; t < nt; ++t) {
            size_t g = (size_t)(b * nt + t) * 3;
            ASSERT_EQ_HEX32(h[g], enc(t));
            ASSERT_EQ_HEX32(h[g + 1], enc(t / 32 * 32));
            unsigned bx = b % grid.x, by = b / grid.x % grid.y, bz = b / grid.x / grid.y;
            ASSERT_EQ_HEX32(h[g + 2], bx | by << 10 | bz << 20);
        }
    cudaFree(d);
}

/* A tile transpose through static shared memory in a 2-D block. */
__global__ void transpose_kernel(const int* in, int* out) {
    __shared__ int tile[8][17];
    int x = (int)threadIdx.x, y = (int)threadIdx.y; /* block 16 x 8 */
    tile[y][x] = in[emu_gtid()];
    __syncthreads();
    int t = y * 16 + x; /* read the tile column-major */
    out[emu_gtid()] = tile[t % 8][t / 8];
}

static void check_transpose(void) {
    const int nb = 6, nt = 128;
    std::vector<int> h(nb * nt), r(nb * nt);
    for (int i = 0; i < nb * nt; ++i) h[i] = i * 3 + 1;
    int *din, *dout;
    cudaMalloc(&din, sizeof(int) * h.size());
    cudaMalloc(&dout, sizeof(int) * h.size());
    cudaMemcpy(din, h.data(), sizeof(int) * h.size(), cudaMemcpyHostToDevice);
    MCT_LAUNCH(transpose_kernel, dim3(3, 2), dim3(16, 8), 0, 0, din, dout);
    EXPECT_LAUNCH_OK();
    cudaMemcpy(r.data(), dout, sizeof(int) * r.size(), cudaMemcpyDeviceToHost);
    for (int b = 0; b < nb; ++b)
        for (int t = 0; t < nt; ++t) {
            int row = t % 8, col = t / 8;
            ASSERT_EQ_I64(r[b * nt + t], h[b * nt + row * 16 + col]);
        }
    cudaFree(din);
    cudaFree(dout);
}

/* Dynamic shared memory: reversed through the buffer, which must be 16-byte aligned;
 * the block id kept in static shared memory must survive barriers while other blocks
 * run on other OS threads. */
__global__ void dynamic_smem_kernel(int* out) {
    MCT_EXTERN_SHARED(double, buf);
    __shared__ int owner;
    int t = (int)threadIdx.x, n = (int)blockDim.x;
    if (t == 0) owner = (int)blockIdx.x;
    buf[t] = t * 0.5 + blockIdx.x;
    __syncthreads();
    int ok = buf[n - 1 - t] == (n - 1 - t) * 0.5 + blockIdx.x;
    for (int i = 0; i < 20; ++i) {
        __syncthreads();
        ok &= owner == (int)blockIdx.x;
    }
    ok &= ((uintptr_t)buf % 16) == 0;
    out[emu_gtid()] = ok;
}

static void check_dynamic_smem(void) {
    const int nb = 64, nt = 96;
    std::vector<int> h(nb * nt);
    int* d;
    cudaMalloc(&d, sizeof(int) * h.size());
    MCT_LAUNCH(dynamic_smem_kernel, nb, nt, nt * sizeof(double), 0, d);
    EXPECT_LAUNCH_OK();
    cudaMemcpy(h.data(), d, sizeof(int) * h.size(), cudaMemcpyDeviceToHost);
    for (int i = 0; i < nb * nt; ++i) ASSERT_EQ_I64(h[i], 1);
    cudaFree(d);
}

int main(void) {
    mct_emu_set_threads(4);
    const int sizes[] = {1, 7, 32, 65, 128, 1024};
    for (int s : sizes) {
        check_block_sum(dim3(3), dim3((unsigned)s));
        check_layout(dim3(2), dim3((unsigned)s));
    }
    check_block_sum(dim3(2, 3), dim3(16, 8));
    check_block_sum(dim3(2, 2, 2), dim3(5, 3, 3)); /* 45 threads: a partial warp */
    check_layout(dim3(3, 2), dim3(16, 8));
    check_layout(dim3(2, 2, 2), dim3(4, 4, 4));
    check_layout(dim3(2, 1, 3), dim3(7, 5, 3));
    check_layout(dim3(1), dim3(32, 32));
    check_transpose();
    check_dynamic_smem();
    printf("test_emu_shapes: ok\n");
    return 0;
}
