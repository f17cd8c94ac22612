/* SPDX-License-Identifier: BSD-3-Clause */
/** @file test_emu_shfl.cpp  Known-answer tests of the emulated shuffles: every mode,
 * widths 32 down to 1, every value type, against CUDA's documented rules, and the
 * usual __shfl_down_sync warp reduction giving the exact sum. */
#include <vector>

#include "emu_test.h"

enum { NW = 6, NA = 10, PER_LANE = 4 * NW * NA };
/* Widths 32, 16, ..., 1; arguments 0, 1, 2, 3, 5, 7, 15, 16, 31 and -1. */
__host__ __device__ inline int width_of(int w) { return 32 >> w; }
__host__ __device__ inline int arg_of(int a) {
    const int args[NA] = {0, 1, 2, 3, 5, 7, 15, 16, 31, -1};
    return args[a];
}

template <class T>
__host__ __device__ T value_of(int gtid) {
    if (sizeof(T) == 8) return (T)((long long)gtid * 3 + 1 + (std::is_integral<T>::value ? (1ll << 40) : 0));
    return (T)(gtid * 3 + 1);
}

template <class T>
__global__ void shfl_kernel(T* out) {
    int g = emu_gtid();
    T v = value_of<T>(g);
    T* o = out + (size_t)g * PER_LANE;
    for (int w = 0; w < NW; ++w)
        for (int a = 0; a < NA; ++a) {
            int width = width_of(w), arg = arg_of(a);
            unsigned d = arg < 0 ? 0u : (unsigned)arg;
            *o++ = __shfl_sync(0xffffffffu, v, arg, width);
            *o++ = __shfl_up_sync(0xffffffffu, v, d, width);
            *o++ = __shfl_down_sync(0xffffffffu, v, d, width);
            *o++ = __shfl_xor_sync(0xffffffffu, v, arg < 0 ? 0 : arg, width);
        }
}

/* CUDA's documented rules, written independently of the emulation's PTX form. */
static int ref_src(int mode, int lane, int arg, int width) {
    int base = lane / width * width, r = lane % width;
    switch (mode) {
    case 0: return base + ((arg % width) + width) % width;
    case 1: return r >= arg ? lane - arg : lane;
    case 2: return r + arg < width ? lane + arg : lane;
    default: {
        int j = lane ^ (arg & 31);
        return j < base + width ? j : lane; /* later groups give the own value */
    }
    }
}

template <class T>
static void check_type(const char* name) {
    const int blocks = 2, threads = 64, n = blocks * threads;
    T* d = nullptr;
    ASSERT_STATUS(cudaMalloc(&d, sizeof(T) * n * PER_LANE), cudaSuccess);
    MCT_LAUNCH(shfl_kernel<T>, blocks, threads, 0, 0, d);
    EXPECT_LAUNCH_OK();
    std::vector<T> h((size_t)n * PER_LANE);
    ASSERT_STATUS(cudaMemcpy(h.data(), d, sizeof(T) * h.size(), cudaMemcpyDeviceToHost),
                  cudaSuccess);
    for (int g = 0; g < n; ++g) {
        int lane = g % 32, warp0 = g - lane;
        const T* o = &h[(size_t)g * PER_LANE];
        for (int w = 0; w < NW; ++w)
            for (int a = 0; a < NA; ++a)
                for (int m = 0; m < 4; ++m) {
                    int arg = arg_of(a) < 0 && m != 0 ? 0 : arg_of(a);
                    int src = ref_src(m, lane, arg, width_of(w));
                    T want = value_of<T>(warp0 + src);
                    if (!(*o == want)) {
                        fprintf(stderr, "%s: thread %d mode %d width %d arg %d: got %.17g want %.17g\n",
                                name, g, m, width_of(w), arg, (double)*o, (double)want);
                        exit(1);
                    }
                    ++o;
                }
    }
    ASSERT_STATUS(cudaFree(d), cudaSuccess);
}

/* The textbook warp reduction; the sum must be exact for these integer-valued inputs. */
template <class T>
__device__ T warp_reduce(T v) {
    for (int off = 16; off > 0; off /= 2) v += __shfl_down_sync(0xffffffffu, v, off);
    return v;
}

template <class T>
__global__ void reduce_kernel(const T* in, T* out) {
    T v = warp_reduce(in[emu_gtid()]);
    if (threadIdx.x % 32 == 0) out[emu_gtid() / 32] = v;
}

template <class T>
static void check_reduce(void) {
    const int n = 256;
    std::vector<T> h(n), r(n / 32);
    for (int i = 0; i < n; ++i) h[i] = (T)((i * 7919) % 1000 + (sizeof(T) == 8 ? 1e9 : 0));
    T *din, *dout;
    ASSERT_STATUS(cudaMalloc(&din, sizeof(T) * n), cudaSuccess);
    ASSERT_STATUS(cudaMalloc(&dout, sizeof(T) * n / 32), cudaSuccess);
    cudaMemcpy(din, h.data(), sizeof(T) * n, cudaMemcpyHostToDevice);
    MCT_LAUNCH(reduce_kernel<T>, 2, 128, 0, 0, din, dout);
    EXPECT_LAUNCH_OK();
    cudaMemcpy(r.data(), dout, sizeof(T) * n / 32, cudaMemcpyDeviceToHost);
    for (int w = 0; w < n / 32; ++w) {
        T s = 0;
        for (int i = 0; i < 32; ++i) s += h[w * 32 + i];
        ASSERT_EQ_F64(r[w], s);
    }
    cudaFree(din);
    cudaFree(dout);
}

/* Shuffles within a sub-mask: lanes 0..15 and 16..31 each shuffle among themselves on
 * different branches, as divergent code may. */
__global__ void halves_kernel(int* out) {
    int lane = threadIdx.x % 32;
    if (lane < 16)
        out[threadIdx.x] = __shfl_sync(0x0000ffffu, lane * 10, 15 - lane);
    else
        out[threadIdx.x] = __shfl_xor_sync(0xffff0000u, lane * 10, 1);
}

int main(void) {
    check_type<int>("int");
    check_type<unsigned>("unsigned");
    check_type<long long>("long long");
    check_type<unsigned long long>("unsigned long long");
    check_type<float>("float");
    check_type<double>("double");
    check_reduce<int>();
    check_reduce<unsigned long long>();
    check_reduce<double>();
    check_reduce<float>();

    int* d;
    int h[32];
    cudaMalloc(&d, sizeof h);
    MCT_LAUNCH(halves_kernel, 1, 32, 0, 0, d);
    EXPECT_LAUNCH_OK();
    cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
    for (int l = 0; l < 32; ++l) ASSERT_EQ_I64(h[l], l < 16 ? (15 - l) * 10 : (l ^ 1) * 10);
    cudaFree(d);
    printf("test_emu_shfl: ok\n");
    return 0;
}
