/* SPDX-License-Identifier: BSD-3-Clause */
/** @file test_emu_api.cpp  The emulated runtime API and the launch macro: memory,
 * streams, events, properties, error reporting, configuration checks, template
 * kernels, argument passing, and __nanosleep as a yield point. */
#include <vector>

#include "emu_test.h"

template <class T, int N>
__global__ void scale_kernel(T* x, T a) {
    int g = emu_gtid();
    for (int k = 0; k < N; ++k) x[g] *= a;
}

template <class T>
__global__ void one_template_arg_kernel(T* x) { x[emu_gtid()] = (T)emu_gtid(); }

static int g_no_arg_hits;
__global__ void no_arg_kernel(void) { __atomic_fetch_add(&g_no_arg_hits, 1, __ATOMIC_RELAXED); }

/* Each lane owns a copy of its parameters: changing it must not affect other lanes. */
__global__ void param_copy_kernel(int* out, int base) {
    base += (int)threadIdx.x;
    __syncthreads();
    out[threadIdx.x] = base;
}

/* Lane 0 spin-waits on lane 1 of its own block, yielding with __nanosleep. */
__global__ void spin_kernel(int* out) {
    __shared__ volatile int flag;
    if (threadIdx.x == 0) flag = 0;
    __syncthreads();
    if (threadIdx.x == 0) {
        int spins = 0;
        while (!flag) {
            __nanosleep(100);
            ++spins;
        }
        out[0] = spins;
    } else if (threadIdx.x == 1) {
        flag = 1;
    }
}

static int counted(int* n) { return ++*n; }

int main(void) {
    void* p = (void*)1;
    ASSERT_STATUS(cudaMalloc(&p, 0), cudaSuccess);
    ASSERT_TRUE(p == NULL);
    double* dd;
    ASSERT_STATUS(cudaMalloc(&dd, 1000 * sizeof(double)), cudaSuccess);
    ASSERT_EQ_I64((uintptr_t)dd % 64, 0);
    ASSERT_STATUS(cudaMalloc(&p, (size_t)1 << 62), cudaErrorMemoryAllocation);
    ASSERT_STATUS(cudaPeekAtLastError(), cudaErrorMemoryAllocation);
    ASSERT_STATUS(cudaGetLastError(), cudaErrorMemoryAllocation);
    ASSERT_STATUS(cudaGetLastError(), cudaSuccess);

    cudaStream_t s;
    ASSERT_STATUS(cudaStreamCreate(&s), cudaSuccess);
    std::vector<double> h(1000, 2.0), r(1000);
    ASSERT_STATUS(cudaMemcpyAsync(dd, h.data(), 1000 * sizeof(double), cudaMemcpyHostToDevice, s),
                  cudaSuccess);
    cudaEvent_t e0, e1;
    ASSERT_STATUS(cudaEventCreate(&e0), cudaSuccess);
    ASSERT_STATUS(cudaEventCreate(&e1), cudaSuccess);
    ASSERT_STATUS(cudaEventRecord(e0, s), cudaSuccess);
    MCT_LAUNCH((scale_kernel<double, 3>), 10, 100, 0, s, dd, 1.5);
    ASSERT_STATUS(cudaEventRecord(e1), cudaSuccess);
    ASSERT_STATUS(cudaEventSynchronize(e1), cudaSuccess);
    EXPECT_LAUNCH_OK();
    float ms = -1;
    ASSERT_STATUS(cudaEventElapsedTime(&ms, e0, e1), cudaSuccess);
    ASSERT_TRUE(ms >= 0.0f);
    ASSERT_STATUS(cudaStreamSynchronize(s), cudaSuccess);
    ASSERT_STATUS(cudaMemcpy(r.data(), dd, 1000 * sizeof(double), cudaMemcpyDeviceToHost),
                  cudaSuccess);
    for (double v : r) ASSERT_EQ_F64(v, 2.0 * 1.5 * 1.5 * 1.5);
    ASSERT_STATUS(cudaMemsetAsync(dd, 0, 1000 * sizeof(double), s), cudaSuccess);
    ASSERT_STATUS(cudaMemcpy(r.data(), dd, 8 * sizeof(double), cudaMemcpyDefault), cudaSuccess);
    ASSERT_EQ_F64(r[7], 0.0);
    ASSERT_STATUS(cudaMemcpy(r.data(), dd, 8, (cudaMemcpyKind)9), cudaErrorInvalidMemcpyDirection);
    ASSERT_STATUS(cudaGetLastError(), cudaErrorInvalidMemcpyDirection);
    cudaEventDestroy(e0);
    cudaEventDestroy(e1);
    cudaStreamDestroy(s);

    int* di;
    cudaMalloc(&di, 64 * sizeof(int));
    MCT_LAUNCH(one_template_arg_kernel<int>, 2, 32, 0, 0, di);
    EXPECT_LAUNCH_OK();
    int hi[64];
    cudaMemcpy(hi, di, sizeof hi, cudaMemcpyDeviceToHost);
    for (int i = 0; i < 64; ++i) ASSERT_EQ_I64(hi[i], i);

    MCT_LAUNCH(no_arg_kernel, dim3(2, 2), dim3(3, 5), 0, 0);
    EXPECT_LAUNCH_OK();
    ASSERT_EQ_I64(g_no_arg_hits, 60);

    int evaluations = 0;
    MCT_LAUNCH(param_copy_kernel, 1, 64, 0, 0, di, counted(&evaluations) * 100);
    EXPECT_LAUNCH_OK();
    ASSERT_EQ_I64(evaluations, 1); /* arguments are evaluated once per launch */
    cudaMemcpy(hi, di, sizeof hi, cudaMemcpyDeviceToHost);
    for (int i = 0; i < 64; ++i) ASSERT_EQ_I64(hi[i], 100 + i);

    MCT_LAUNCH(spin_kernel, 1, 2, 0, 0, di);
    EXPECT_LAUNCH_OK();
    cudaMemcpy(hi, di, sizeof(int), cudaMemcpyDeviceToHost);
    ASSERT_TRUE(hi[0] >= 1);

    /* Configurations a GPU rejects are rejected, without running anything. */
    MCT_LAUNCH(one_template_arg_kernel<int>, 1, 1025, 0, 0, di);
    ASSERT_STATUS(cudaGetLastError(), cudaErrorInvalidConfiguration);
    MCT_LAUNCH(one_template_arg_kernel<int>, 0, 32, 0, 0, di);
    ASSERT_STATUS(cudaGetLastError(), cudaErrorInvalidConfiguration);
    MCT_LAUNCH(one_template_arg_kernel<int>, 1, dim3(1, 1, 65), 0, 0, di);
    ASSERT_STATUS(cudaGetLastError(), cudaErrorInvalidConfiguration);
    MCT_LAUNCH(one_template_arg_kernel<int>, 1, 32, 228 * 1024, 0, di);
    ASSERT_STATUS(cudaGetLastError(), cudaErrorInvalidConfiguration);
    ASSERT_TRUE(strstr(mct_emu_last_error_message(), "one_template_arg_kernel") != NULL);

    int n = -1, dev = -1;
    ASSERT_STATUS(cudaGetDeviceCount(&n), cudaSuccess);
    ASSERT_EQ_I64(n, 1);
    ASSERT_STATUS(cudaGetDevice(&dev), cudaSuccess);
    ASSERT_EQ_I64(dev, 0);
    cudaDeviceProp prop;
    ASSERT_STATUS(cudaGetDeviceProperties(&prop, 0), cudaSuccess);
    ASSERT_STR_EQ(prop.name, "mctally CPU emulation");
    ASSERT_EQ_I64(prop.warpSize, 32);
    ASSERT_EQ_I64(prop.maxThreadsPerBlock, 1024);
    ASSERT_EQ_U64(prop.sharedMemPerBlock, 48 * 1024);
    ASSERT_EQ_I64(prop.multiProcessorCount, mct_emu_threads());
    ASSERT_TRUE(prop.totalGlobalMem > 0);
    int attr = 0;
    ASSERT_STATUS(cudaDeviceGetAttribute(&attr, cudaDevAttrWarpSize, 0), cudaSuccess);
    ASSERT_EQ_I64(attr, 32);
    size_t fr = 0, tot = 0;
    ASSERT_STATUS(cudaMemGetInfo(&fr, &tot), cudaSuccess);
    ASSERT_TRUE(tot > 0 && fr <= tot);
    ASSERT_STATUS(cudaFuncSetAttribute(one_template_arg_kernel<int>,
                                       cudaFuncAttributeMaxDynamicSharedMemorySize, 100000),
                  cudaSuccess);
    ASSERT_STR_EQ(cudaGetErrorName(cudaErrorLaunchFailure), "cudaErrorLaunchFailure");
    ASSERT_STR_EQ(cudaGetErrorString(cudaSuccess), "no error");

    ASSERT_EQ_I64(mct_emu_set_threads(3), 0);
    ASSERT_EQ_I64(mct_emu_set_threads(0), 3);

    cudaFree(di);
    cudaFree(dd);
    printf("test_emu_api: ok\n");
    return 0;
}
