/* SPDX-License-Identifier: BSD-3-Clause */
/** @file test_emu_atomic.cpp  Atomics under contention from many blocks running on
 * several OS threads at once: every overload, CAS loops, and a cross-block spin lock. */
#include <chrono>
#include <functional>
#include <set>
#include <thread>
#include <vector>

#include "emu_test.h"

struct counters {
    int i_add, i_sub, i_min, i_max, i_and, i_or, i_xor, i_exch;
    unsigned u_add, u_sub, u_min, u_max, u_and, u_or, u_xor, u_inc, u_dec;
    unsigned long long ull_add, ull_min, ull_max, ull_and, ull_or, ull_xor, ull_cas_sum;
    long long ll_min, ll_max;
    float f_add;
    double d_add, d_cas_sum;
    unsigned short us_cas;
    int lock, unlocked_sum, blocks_past_lock;
    unsigned long long thread_ids[256];
};

/* Double addition through a 64-bit CAS loop, comparing bits as DESIGN asks. */
__device__ double cas_add(double* p, double v) {
    unsigned long long* a = (unsigned long long*)p;
    unsigned long long old = *a, assumed;
    do {
        assumed = old;
        old = atomicCAS(a, assumed, (unsigned long long)__double_as_longlong(
                                        __longlong_as_double((long long)assumed) + v));
    } while (old != assumed);
    return __longlong_as_double((long long)old);
}

__global__ void atomic_kernel(counters* c) {
    int g = emu_gtid();
    atomicAdd(&c->i_add, 2);
    atomicSub(&c->i_sub, 3);
    atomicMin(&c->i_min, 1000 - g);
    atomicMax(&c->i_max, g - 5000);
    atomicAnd(&c->i_and, ~(1 << (g % 31)));
    atomicOr(&c->i_or, 1 << (g % 31));
    atomicXor(&c->i_xor, g);
    atomicExch(&c->i_exch, 7);
    atomicAdd(&c->u_add, 1u);
    atomicSub(&c->u_sub, 1u);
    atomicMin(&c->u_min, (unsigned)(g + 10));
    atomicMax(&c->u_max, (unsigned)g);
    atomicAnd(&c->u_and, ~(1u << (g % 32)));
    atomicOr(&c->u_or, 1u << (g % 32));
    atomicXor(&c->u_xor, (unsigned)g);
    atomicInc(&c->u_inc, 99u);
    atomicDec(&c->u_dec, 1000000u);
    atomicAdd(&c->ull_add, 1ull << 33);
    atomicMin(&c->ull_min, 1000000ull - g);
    atomicMax(&c->ull_max, (unsigned long long)g << 35);
    atomicAnd(&c->ull_and, ~(1ull << (g % 64)));
    atomicOr(&c->ull_or, 1ull << (g % 64));
    atomicXor(&c->ull_xor, (unsigned long long)g << 20);
    atomicMin(&c->ll_min, -(long long)g * 1000000000ll);
    atomicMax(&c->ll_max, (long long)g * 1000000000ll);
    atomicAdd(&c->f_add, 0.5f);
    atomicAdd(&c->d_add, 0.25);
    cas_add(&c->d_cas_sum, (double)g);
    unsigned long long old = c->ull_cas_sum, assumed;
    do {
        assumed = old;
        old = atomicCAS(&c->ull_cas_sum, assumed, assumed + (unsigned long long)g);
    } while (old != assumed);
    unsigned short o16 = c->us_cas, a16;
    do {
        a16 = o16;
        o16 = atomicCAS(&c->us_cas, a16, (unsigned short)(a16 + 1));
    } while (o16 != a16);
    if (threadIdx.x == 0) {
        /* One lane per block takes a global lock: blocks on other OS threads contend. */
        while (atomicCAS(&c->lock, 0, 1) != 0) {
        }
        __threadfence();
        int v = *(volatile int*)&c->unlocked_sum;
        *(volatile int*)&c->unlocked_sum = v + 1;
        __threadfence();
        atomicExch(&c->lock, 0);
        c->thread_ids[blockIdx.x] = std::hash<std::thread::id>()(std::this_thread::get_id());
        /* Block 0 keeps its OS thread until another block is past the lock (at
         * most 10 s): blocks are handed out in order, so that block ran on
         * another thread, whatever the OS threads' start-up times. */
        if (blockIdx.x != 0) {
            atomicAdd(&c->blocks_past_lock, 1);
        } else {
            const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(10);
            while (atomicAdd(&c->blocks_past_lock, 0) == 0 && std::chrono::steady_clock::now() < until) {
            }
        }
    }
}

int main(void) {
    const int blocks = 256, threads = 128, n = blocks * threads;
    mct_emu_set_threads(4);
    int nthreads = mct_emu_threads(); /* 1 if the runtime was built without OpenMP */
    ASSERT_TRUE(nthreads == 4 || nthreads == 1);
    counters h, *d;
    memset(&h, 0, sizeof h);
    h.i_min = 1 << 30;
    h.i_max = -(1 << 30);
    h.i_and = -1;
    h.u_min = ~0u;
    h.u_and = ~0u;
    h.u_dec = 0;
    h.ull_min = ~0ull;
    h.ull_and = ~0ull;
    h.ll_min = 0;
    h.ll_max = 0;
    ASSERT_STATUS(cudaMalloc(&d, sizeof h), cudaSuccess);
    cudaMemcpy(d, &h, sizeof h, cudaMemcpyHostToDevice);
    MCT_LAUNCH(atomic_kernel, blocks, threads, 0, 0, d);
    EXPECT_LAUNCH_OK();
    cudaMemcpy(&h, d, sizeof h, cudaMemcpyDeviceToHost);

    int ixor = 0;
    unsigned uxor = 0;
    unsigned long long ullxor = 0, gsum = 0;
    for (int g = 0; g < n; ++g) {
        ixor ^= g;
        uxor ^= (unsigned)g;
        ullxor ^= (unsigned long long)g << 20;
        gsum += (unsigned long long)g;
    }
    ASSERT_EQ_I64(h.i_add, 2 * n);
    ASSERT_EQ_I64(h.i_sub, -3 * n);
    ASSERT_EQ_I64(h.i_min, 1000 - (n - 1));
    ASSERT_EQ_I64(h.i_max, n - 1 - 5000);
    ASSERT_EQ_I64(h.i_and, (int)0x80000000);
    ASSERT_EQ_I64(h.i_or, 0x7fffffff);
    ASSERT_EQ_I64(h.i_xor, ixor);
    ASSERT_EQ_I64(h.i_exch, 7);
    ASSERT_EQ_U64(h.u_add, (unsigned)n);
    ASSERT_EQ_U64(h.u_sub, (unsigned)(0u - (unsigned)n));
    ASSERT_EQ_U64(h.u_min, 10u);
    ASSERT_EQ_U64(h.u_max, (unsigned)(n - 1));
    ASSERT_EQ_HEX32(h.u_and, 0u);
    ASSERT_EQ_HEX32(h.u_or, 0xffffffffu);
    ASSERT_EQ_HEX32(h.u_xor, uxor);
    ASSERT_EQ_U64(h.u_inc, (unsigned)(n % 100));
    /* atomicDec from 0 wraps to the limit first, then counts down. */
    ASSERT_EQ_U64(h.u_dec, 1000000u - (unsigned)(n - 1));
    ASSERT_EQ_U64(h.ull_add, (unsigned long long)n << 33);
    ASSERT_EQ_U64(h.ull_min, 1000000ull - (n - 1));
    ASSERT_EQ_U64(h.ull_max, (unsigned long long)(n - 1) << 35);
    ASSERT_EQ_U64(h.ull_and, 0ull);
    ASSERT_EQ_U64(h.ull_or, ~0ull);
    ASSERT_EQ_U64(h.ull_xor, ullxor);
    ASSERT_EQ_I64(h.ll_min, -(long long)(n - 1) * 1000000000ll);
    ASSERT_EQ_I64(h.ll_max, (long long)(n - 1) * 1000000000ll);
    ASSERT_EQ_F64(h.f_add, 0.5 * n);
    ASSERT_EQ_F64(h.d_add, 0.25 * n);
    ASSERT_EQ_F64(h.d_cas_sum, (double)gsum);
    ASSERT_EQ_U64(h.ull_cas_sum, gsum);
    ASSERT_EQ_U64(h.us_cas, (unsigned)(n & 0xffff));
    ASSERT_EQ_I64(h.lock, 0);
    ASSERT_EQ_I64(h.unlocked_sum, blocks);
    std::set<unsigned long long> ids(h.thread_ids, h.thread_ids + blocks);
    if (nthreads > 1) ASSERT_TRUE(ids.size() > 1); /* blocks ran on several OS threads */
    cudaFree(d);
    printf("test_emu_atomic: ok\n");
    return 0;
}
