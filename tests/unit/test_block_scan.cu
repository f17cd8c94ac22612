/* SPDX-License-Identifier: BSD-3-Clause */
/** @file test_block_scan.cu  The block scans (one item and three items per thread,
 * inclusive and exclusive with init, block aggregate) for block sizes 32 to 1024
 * (one warp, up to 8 warps, and the path above 8 warps), a 2-D block, every scan type
 * with sum, max and min, and a non-commutative user operator, bit for bit against a
 * sequential host reference (float inputs are small integers: every order is exact).
 * Runs on a GPU (nvcc) and on the CPU under the emulation (_emulated.cpp). */
#include <stdlib.h>

#include <vector>

#include "mctally/device/block/block_scan.cuh"
#include "mctally/device/mct_launch.cuh"
#include "scan_test_common.h"

#define ITEMS 3

/** Each block scans its own segment: one value per thread into incl1/excl1, and
 * ITEMS values per thread (blocked) into incl3/excl3; aggregates per block. */
template <typename T, typename Op>
static __global__ void block_scan_kernel(const T* in1, const T* in3, T* incl1, T* excl1, T* incl3, T* excl3,
                                         T* aggs, T init, Op op) {
    __shared__ mct_block_scan_storage<T> s;
    const int nt = mct_block_threads(), r = mct_thread_rank();
    const int64_t g = (int64_t)blockIdx.x * nt + r;
    T a[4];
    incl1[g] = mct_block_scan_inclusive(in1[g], op, s, &a[0]);
    __syncthreads(); /* the storage is reused */
    excl1[g] = mct_block_scan_exclusive(in1[g], init, op, s, &a[1]);
    __syncthreads();
    T x[ITEMS], y[ITEMS];
    for (int j = 0; j < ITEMS; ++j) x[j] = y[j] = in3[g * ITEMS + j];
    mct_block_scan_inclusive(x, op, s, &a[2]);
    __syncthreads();
    mct_block_scan_exclusive(y, init, op, s, &a[3]);
    for (int j = 0; j < ITEMS; ++j) {
        incl3[g * ITEMS + j] = x[j];
        excl3[g * ITEMS + j] = y[j];
    }
    if (r < 4) aggs[blockIdx.x * 4 + r] = a[r];
}

/* Sequential reference of one segment: inclusive and exclusive outputs, total. */
template <typename T, typename Op>
static void reference(const T* in, int n, T init, Op op, T* incl, T* excl, T* total) {
    T run = init;
    for (int i = 0; i < n; ++i) {
        incl[i] = i == 0 ? in[0] : op(incl[i - 1], in[i]);
        excl[i] = run;
        run = op(run, in[i]);
    }
    *total = incl[n - 1];
}

template <typename T, typename Op, typename Gen>
static void check_case(dim3 block, int blocks, Op op, Gen gen, uint64_t* seed, const char* what) {
    const int nt = (int)(block.x * block.y * block.z), n1 = nt * blocks, n3 = n1 * ITEMS;
    std::vector<T> h1(n1), h3(n3), o[4] = {std::vector<T>(n1), std::vector<T>(n1), std::vector<T>(n3), std::vector<T>(n3)};
    std::vector<T> aggs(4 * blocks);
    for (auto& v : h1) v = gen(seed);
    for (auto& v : h3) v = gen(seed);
    const T init = gen(seed);
    T *d1, *d3, *dout[4], *dagg;
    CHECK_CUDA(cudaMalloc((void**)&d1, n1 * sizeof(T)));
    CHECK_CUDA(cudaMalloc((void**)&d3, n3 * sizeof(T)));
    for (int k = 0; k < 4; ++k) CHECK_CUDA(cudaMalloc((void**)&dout[k], (k < 2 ? n1 : n3) * sizeof(T)));
    CHECK_CUDA(cudaMalloc((void**)&dagg, 4 * blocks * sizeof(T)));
    CHECK_CUDA(cudaMemcpy(d1, h1.data(), n1 * sizeof(T), cudaMemcpyHostToDevice));
    CHECK_CUDA(cudaMemcpy(d3, h3.data(), n3 * sizeof(T), cudaMemcpyHostToDevice));
    MCT_LAUNCH((block_scan_kernel<T, Op>), blocks, block, 0, 0, d1, d3, dout[0], dout[1], dout[2], dout[3], dagg,
               init, op);
    CHECK_CUDA(cudaGetLastError());
    CHECK_CUDA(cudaDeviceSynchronize());
    for (int k = 0; k < 4; ++k)
        CHECK_CUDA(cudaMemcpy(o[k].data(), dout[k], o[k].size() * sizeof(T), cudaMemcpyDeviceToHost));
    CHECK_CUDA(cudaMemcpy(aggs.data(), dagg, aggs.size() * sizeof(T), cudaMemcpyDeviceToHost));
    std::vector<T> ri(n3), re(n3);
    for (int b = 0; b < blocks; ++b) {
        for (int items = 1; items <= ITEMS; items += ITEMS - 1) {
            const int len = nt * items;
            const T* in = (items == 1 ? h1.data() : h3.data()) + (size_t)b * len;
            const T* oi = (items == 1 ? o[0].data() : o[2].data()) + (size_t)b * len;
            const T* oe = (items == 1 ? o[1].data() : o[3].data()) + (size_t)b * len;
            T total;
            reference(in, len, init, op, ri.data(), re.data(), &total);
            for (int i = 0; i < len; ++i)
                if (!test_same_bits(oi[i], ri[i]) || !test_same_bits(oe[i], re[i])) {
                    fprintf(stderr, "block scan %s: block (%u,%u,%u) items %d: block %d element %d wrong\n", what,
                            block.x, block.y, block.z, items, b, i);
                    exit(1);
                }
            const int k = items == 1 ? 0 : 2;
            if (!test_same_bits(aggs[b * 4 + k], total) || !test_same_bits(aggs[b * 4 + k + 1], total)) {
                fprintf(stderr, "block scan %s: block (%u,%u,%u) items %d: aggregate wrong\n", what, block.x,
                        block.y, block.z, items);
                exit(1);
            }
        }
    }
    cudaFree(d1), cudaFree(d3), cudaFree(dagg);
    for (int k = 0; k < 4; ++k) cudaFree(dout[k]);
}

template <typename T>
static void check_type(dim3 block, int blocks, uint64_t* seed, const char* name) {
    auto gen = [](uint64_t* s) { return test_value<T>(s, true); };
    char what[64];
    snprintf(what, sizeof what, "%s sum", name);
    check_case<T>(block, blocks, mct_op_sum<T>(), gen, seed, what);
    snprintf(what, sizeof what, "%s max", name);
    check_case<T>(block, blocks, mct_op_max<T>(), gen, seed, what);
    snprintf(what, sizeof what, "%s min", name);
    check_case<T>(block, blocks, mct_op_min<T>(), gen, seed, what);
}

int main(void) {
    if (!test_have_device()) return 77;
    uint64_t seed = 1234;
    const int quick = getenv("MCT_TEST_QUICK") != NULL;
    /* 1 warp; 2, 3, 5 and 8 warps (every thread folds the warp totals); 9, 16 and 32
     * warps (the first warp scans them); a 2-D block of 3 warps. */
    const dim3 shapes[] = {dim3(32), dim3(64), dim3(96), dim3(160), dim3(256), dim3(288), dim3(512), dim3(1024),
                           dim3(16, 6)};
    for (const dim3& b : shapes) {
        const int blocks = 3;
        if (quick && b.x != 96 && b.x != 288) continue;
        check_type<int32_t>(b, blocks, &seed, "i32");
        check_type<uint64_t>(b, blocks, &seed, "u64");
        check_type<double>(b, blocks, &seed, "f64");
        if (b.x == 160 || b.x == 288) {
            check_type<uint32_t>(b, blocks, &seed, "u32");
            check_type<int64_t>(b, blocks, &seed, "i64");
            check_type<float>(b, blocks, &seed, "f32");
        }
        check_case<test_affine>(b, blocks, test_op_compose(), test_affine_value, &seed, "affine compose");
    }
    printf("block scan: all block sizes, types and operators exact\n");
    return 0;
}
