/* SPDX-License-Identifier: BSD-3-Clause */
/** @file test_emu_vote.cpp  Known-answer tests of votes, match, __activemask under
 * divergence, __reduce_add_sync (wrapping, full and partial masks), __syncwarp across call sites, the __syncthreads reductions, and the bit
 * intrinsics. */
#include <vector>

#include "emu_test.h"

static int pred_of(int g) { return (g * 37 + 11) % 5 < 2; }
static int key_of(int g) { return (g * 13) % 7; }
/* Large values of both signs, so that a warp's sum wraps. */
static int big_of(int g) { return (int)(2654435761u * (unsigned)(g + 1)); }

enum { V_BALLOT, V_ANY, V_ALL, V_ALL1, V_ANY0, V_MATCH32, V_MATCH64, V_MALL, V_MALLP, V_MALL2,
       V_MALLP2, V_HALF_BALLOT, V_RADD, V_RADDU, V_HALF_RADD, NV };

__global__ void vote_kernel(unsigned* out) {
    int g = emu_gtid(), lane = threadIdx.x % 32;
    unsigned* o = out + (size_t)g * NV;
    int p = pred_of(g);
    o[V_BALLOT] = __ballot_sync(0xffffffffu, p);
    o[V_ANY] = (unsigned)__any_sync(0xffffffffu, p);
    o[V_ALL] = (unsigned)__all_sync(0xffffffffu, p);
    o[V_ALL1] = (unsigned)__all_sync(0xffffffffu, 1);
    o[V_ANY0] = (unsigned)__any_sync(0xffffffffu, 0);
    o[V_MATCH32] = __match_any_sync(0xffffffffu, key_of(g));
    o[V_MATCH64] = __match_any_sync(0xffffffffu, (unsigned long long)key_of(g) << 33);
    int pr = -1;
    o[V_MALL] = __match_all_sync(0xffffffffu, key_of(g), &pr);
    o[V_MALLP] = (unsigned)pr;
    o[V_MALL2] = __match_all_sync(0xffffffffu, 42.0, &pr);
    o[V_MALLP2] = (unsigned)pr;
    if (lane & 1) /* odd lanes only: a ballot over their own sub-mask */
        o[V_HALF_BALLOT] = __ballot_sync(0xaaaaaaaau, p);
    else
        o[V_HALF_BALLOT] = 0;
    o[V_RADD] = (unsigned)__reduce_add_sync(0xffffffffu, big_of(g));
    o[V_RADDU] = __reduce_add_sync(0xffffffffu, (unsigned)big_of(g));
    o[V_HALF_RADD] = (lane & 1) ? (unsigned)__reduce_add_sync(0xaaaaaaaau, big_of(g)) : 0u;
}

static void check_votes(void) {
    const int n = 128;
    unsigned* d;
    std::vector<unsigned> h((size_t)n * NV);
    cudaMalloc(&d, sizeof(unsigned) * h.size());
    MCT_LAUNCH(vote_kernel, 2, 64, 0, 0, d);
    EXPECT_LAUNCH_OK();
    cudaMemcpy(h.data(), d, sizeof(unsigned) * h.size(), cudaMemcpyDeviceToHost);
    for (int g = 0; g < n; ++g) {
        int w0 = g - g % 32, lane = g % 32;
        unsigned ballot = 0, m32 = 0, odd = 0, sum = 0, odd_sum = 0;
        for (int l = 0; l < 32; ++l) {
            sum += (unsigned)big_of(w0 + l);
            if (l & 1) odd_sum += (unsigned)big_of(w0 + l);
            if (pred_of(w0 + l)) ballot |= 1u << l;
            if (key_of(w0 + l) == key_of(g)) m32 |= 1u << l;
            if ((l & 1) && pred_of(w0 + l)) odd |= 1u << l;
        }
        const unsigned* o = &h[(size_t)g * NV];
        ASSERT_EQ_HEX32(o[V_BALLOT], ballot);
        ASSERT_EQ_I64(o[V_ANY], ballot != 0);
        ASSERT_EQ_I64(o[V_ALL], ballot == 0xffffffffu);
        ASSERT_EQ_I64(o[V_ALL1], 1);
        ASSERT_EQ_I64(o[V_ANY0], 0);
        ASSERT_EQ_HEX32(o[V_MATCH32], m32);
        ASSERT_EQ_HEX32(o[V_MATCH64], m32);
        ASSERT_EQ_HEX32(o[V_MALL], 0);
        ASSERT_EQ_I64(o[V_MALLP], 0);
        ASSERT_EQ_HEX32(o[V_MALL2], 0xffffffffu);
        ASSERT_EQ_I64(o[V_MALLP2], 1);
        ASSERT_EQ_HEX32(o[V_HALF_BALLOT], (lane & 1) ? odd : 0);
        ASSERT_EQ_HEX32(o[V_RADD], sum);
        ASSERT_EQ_HEX32(o[V_RADDU], sum);
        ASSERT_EQ_HEX32(o[V_HALF_RADD], (lane & 1) ? odd_sum : 0u);
    }
    cudaFree(d);
}

/* __activemask under divergence: lanes taking different branches see only their own
 * branch; after an explicit __syncwarp the whole warp is active again. */
__global__ void activemask_kernel(unsigned* out) {
    int lane = threadIdx.x % 32;
    unsigned m;
    if (lane % 3 == 0)
        m = __activemask();
    else if (lane < 20)
        m = __activemask();
    else
        m = __activemask();
    out[threadIdx.x * 3] = m;
    __syncwarp();
    out[threadIdx.x * 3 + 1] = __activemask();
    if (lane >= 8) return;
    out[threadIdx.x * 3 + 2] = __activemask(); /* lanes 8..31 have exited */
}

static void check_activemask(void) {
    unsigned h[64 * 3], *d;
    cudaMalloc(&d, sizeof h);
    cudaMemset(d, 0, sizeof h);
    MCT_LAUNCH(activemask_kernel, 1, 64, 0, 0, d);
    EXPECT_LAUNCH_OK();
    cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
    unsigned a = 0, b = 0, c = 0;
    for (int l = 0; l < 32; ++l) {
        if (l % 3 == 0) a |= 1u << l;
        else if (l < 20) b |= 1u << l;
        else c |= 1u << l;
    }
    for (int t = 0; t < 64; ++t) {
        int l = t % 32;
        ASSERT_EQ_HEX32(h[t * 3], l % 3 == 0 ? a : (l < 20 ? b : c));
        ASSERT_EQ_HEX32(h[t * 3 + 1], 0xffffffffu);
        ASSERT_EQ_HEX32(h[t * 3 + 2], l < 8 ? 0xffu : 0u);
    }
    cudaFree(d);
}

/* On Volta and later one __syncwarp may be met from different call sites. The data
 * written before it must be visible after it. */
__global__ void syncwarp_sites_kernel(int* out) {
    __shared__ int s[64];
    int t = threadIdx.x;
    s[t] = t * 2;
    if (t % 2)
        __syncwarp();
    else
        __syncwarp(0xffffffffu);
    out[t] = s[t ^ 1];
}

/* __syncthreads_count/_and/_or across a 96-thread block. */
__global__ void syncthreads_red_kernel(int* out) {
    int t = threadIdx.x;
    out[t * 4 + 0] = __syncthreads_count(t % 3 == 0);
    out[t * 4 + 1] = __syncthreads_and(t < 96);
    out[t * 4 + 2] = __syncthreads_and(t != 50);
    out[t * 4 + 3] = __syncthreads_or(t == 77);
}

static void check_sync(void) {
    int h[96 * 4], *d;
    cudaMalloc(&d, sizeof h);
    MCT_LAUNCH(syncwarp_sites_kernel, 1, 64, 0, 0, d);
    EXPECT_LAUNCH_OK();
    cudaMemcpy(h, d, 64 * sizeof(int), cudaMemcpyDeviceToHost);
    for (int t = 0; t < 64; ++t) ASSERT_EQ_I64(h[t], (t ^ 1) * 2);
    MCT_LAUNCH(syncthreads_red_kernel, 1, 96, 0, 0, d);
    EXPECT_LAUNCH_OK();
    cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
    for (int t = 0; t < 96; ++t) {
        ASSERT_EQ_I64(h[t * 4 + 0], 32);
        ASSERT_EQ_I64(h[t * 4 + 1], 1);
        ASSERT_EQ_I64(h[t * 4 + 2], 0);
        ASSERT_EQ_I64(h[t * 4 + 3], 1);
    }
    cudaFree(d);
}

/* Exited threads count as arrived at __syncthreads (sm_70+): half the block returns
 * early and the other half still passes two barriers. */
__global__ void exited_barrier_kernel(int* out) {
    __shared__ int s[128];
    int t = threadIdx.x;
    if (t >= 48) return;
    s[t] = t + 1;
    __syncthreads();
    out[t] = s[47 - t];
    __syncthreads();
}

static void check_exited_barrier(void) {
    int h[48], *d;
    cudaMalloc(&d, sizeof h);
    MCT_LAUNCH(exited_barrier_kernel, 3, 128, 0, 0, d);
    EXPECT_LAUNCH_OK();
    cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
    for (int t = 0; t < 48; ++t) ASSERT_EQ_I64(h[t], 48 - t);
    cudaFree(d);
}

static void check_bits(void) {
    ASSERT_EQ_I64(__ffs(0), 0);
    ASSERT_EQ_I64(__ffs(1), 1);
    ASSERT_EQ_I64(__ffs(0x80000000), 32);
    ASSERT_EQ_I64(__ffs(0x00f0), 5);
    ASSERT_EQ_I64(__ffsll(0), 0);
    ASSERT_EQ_I64(__ffsll(1ll << 40), 41);
    ASSERT_EQ_I64(__popc(0), 0);
    ASSERT_EQ_I64(__popc(0xffffffffu), 32);
    ASSERT_EQ_I64(__popc(0x12345678u), 13);
    ASSERT_EQ_I64(__popcll(0xffffffffffffffffull), 64);
    ASSERT_EQ_I64(__popcll(0x1000000000000001ull), 2);
    ASSERT_EQ_I64(__clz(0), 32);
    ASSERT_EQ_I64(__clz(1), 31);
    ASSERT_EQ_I64(__clz(-1), 0);
    ASSERT_EQ_I64(__clz(0x00010000), 15);
    ASSERT_EQ_I64(__clzll(0), 64);
    ASSERT_EQ_I64(__clzll(1), 63);
    ASSERT_EQ_I64(__clzll(1ll << 40), 23);
    ASSERT_EQ_HEX32(__brev(1u), 0x80000000u);
    ASSERT_EQ_HEX32(__brev(0x12345678u), 0x1e6a2c48u);
    ASSERT_EQ_U64(__brevll(1ull), 0x8000000000000000ull);
    ASSERT_EQ_HEX32(__fns(0xf0u, 0, 1), 4u);
    ASSERT_EQ_HEX32(__fns(0xf0u, 0, 3), 6u);
    ASSERT_EQ_HEX32(__fns(0xf0u, 7, -2), 6u);
    ASSERT_EQ_HEX32(__fns(0xf0u, 3, 0), 0xffffffffu);
    ASSERT_EQ_HEX32(__fns(0xf0u, 0, 5), 0xffffffffu);
    ASSERT_EQ_HEX32(__umulhi(0xffffffffu, 0xffffffffu), 0xfffffffeu);
    ASSERT_EQ_U64(__umul64hi(0xffffffffffffffffull, 2ull), 1ull);
    ASSERT_EQ_I64(__float_as_int(1.0f), 0x3f800000);
    ASSERT_EQ_F64(__int_as_float(0x40490fdb), 3.1415927410125732);
    ASSERT_EQ_I64(__double_as_longlong(1.0), 0x3ff0000000000000ll);
    ASSERT_EQ_F64(__longlong_as_double(0x4000000000000000ll), 2.0);
    ASSERT_EQ_F64(__hiloint2double(__double2hiint(-3.25), __double2loint(-3.25)), -3.25);
    int x = 5;
    ASSERT_EQ_I64(__ldg(&x), 5);
}

int main(void) {
    check_votes();
    check_activemask();
    check_sync();
    check_exited_barrier();
    check_bits();
    printf("test_emu_vote: ok\n");
    return 0;
}
