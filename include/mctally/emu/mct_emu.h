/* SPDX-License-Identifier: BSD-3-Clause */
/** @file mct_emu.h  CPU emulation of the CUDA device features mctally's kernels use,
 * so that the same .cu/.cuh source compiles with g++ (C++17, -DMCT_EMULATED) and runs
 * on the host with faithful lane semantics.
 *
 * Why: CI has no GPU, yet every warp and block algorithm must be tested from its real
 * source. Each lane of a block is a fiber; lanes of a warp step together at every
 * `_sync` intrinsic, `__syncthreads` is a barrier of the block's non-exited lanes, and
 * any misuse that is undefined on a GPU (a shuffle reading a lane outside the mask, a
 * mask naming an exited lane, a barrier that can never complete) is reported as a
 * launch failure instead of giving a silent value or a hang.
 *
 * Include rules: device code includes "mctally/device/mct_launch.cuh" (or
 * mct_shared.cuh), which pulls this header when MCT_EMULATED is defined and __CUDACC__
 * is not. Do not include <cuda_runtime.h> in the same translation unit. Standard
 * headers that spell `__noinline__` as an attribute (<stacktrace>, <experimental/simd>)
 * must be included before this header; <memory> is included here for that reason.
 *
 * Limitations (documented, not checked): a lane that spins waiting for another lane of
 * the SAME block without calling an intrinsic or __nanosleep() hangs, because lanes are
 * cooperative fibers; blocks start in increasing linear index order, so spinning on a
 * lower-numbered block (decoupled look-back) is fine. Streams are synchronous.
 */
#ifndef MCT_EMU_H
#define MCT_EMU_H

#if !defined(__cplusplus) || __cplusplus < 201703L
#error "mct_emu.h needs C++17 (compile the device source with g++ -std=c++17 -DMCT_EMULATED)"
#endif
#if defined(__CUDACC__)
#error "mct_emu.h is the CPU emulation; nvcc must not include it"
#endif

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <memory> /* before the __noinline__ macro: libstdc++ uses it as an attribute */
#include <tuple>
#include <type_traits>
#include <utility>
#include "mctally/mct_export.h"

/* ------------------------------------------------------------------------------------
 * Keywords. Shared memory is a thread_local static: all lanes of a block run on one OS
 * thread and so share it, while blocks running on other OS threads get their own copy.
 * ---------------------------------------------------------------------------------- */
#define __global__
#define __device__
#define __host__
#define __constant__
#define __managed__
#define __forceinline__ inline
#define __noinline__ __attribute__((noinline))
#define __restrict__ __restrict
#define __launch_bounds__(...)
#define __shared__ static thread_local
#define __align__(n) __attribute__((aligned(n)))

/* ------------------------------------------------------------------------------------
 * Vector index types and the per-lane built-in variables.
 * ---------------------------------------------------------------------------------- */
struct uint3 {
    unsigned int x, y, z;
};
inline uint3 make_uint3(unsigned int x, unsigned int y, unsigned int z) { return uint3{x, y, z}; }

/* The CUDA vector types kernels commonly use, with CUDA's sizes and alignments. */
#define MCT__EMU_VEC2(T, name, al)                                                      \
    struct __attribute__((aligned(al))) name { T x, y; };                               \
    inline name make_##name(T x, T y) { return name{x, y}; }
#define MCT__EMU_VEC4(T, name, al)                                                      \
    struct __attribute__((aligned(al))) name { T x, y, z, w; };                         \
    inline name make_##name(T x, T y, T z, T w) { return name{x, y, z, w}; }
MCT__EMU_VEC2(int, int2, 8)
MCT__EMU_VEC2(unsigned int, uint2, 8)
MCT__EMU_VEC2(float, float2, 8)
MCT__EMU_VEC2(double, double2, 16)
MCT__EMU_VEC2(long long, longlong2, 16)
MCT__EMU_VEC2(unsigned long long, ulonglong2, 16)
MCT__EMU_VEC4(int, int4, 16)
MCT__EMU_VEC4(unsigned int, uint4, 16)
MCT__EMU_VEC4(float, float4, 16)
#undef MCT__EMU_VEC2
#undef MCT__EMU_VEC4

struct dim3 {
    unsigned int x, y, z;
    constexpr dim3(unsigned int vx = 1, unsigned int vy = 1, unsigned int vz = 1)
        : x(vx), y(vy), z(vz) {}
    constexpr dim3(uint3 v) : x(v.x), y(v.y), z(v.z) {}
    constexpr operator uint3() const { return uint3{x, y, z}; }
};

/* warpSize is a variable, not a macro, so that a struct member of that name (as in
 * cudaDeviceProp) still compiles. */
static constexpr int warpSize = 32;

/** What a running lane can see of itself; the runtime extends it privately. */
struct mct_emu_lane_pub {
    uint3 thread_idx;
    uint3 block_idx;
    dim3 block_dim;
    dim3 grid_dim;
    void* dyn_smem;
};

/* The lane running on this OS thread, NULL outside a kernel. A plain __thread pointer
 * (no C++ dynamic initialisation) keeps threadIdx.x a single TLS load. */
extern MCT_API __thread const mct_emu_lane_pub* mct_emu_cur;

#define threadIdx (mct_emu_cur->thread_idx)
#define blockIdx (mct_emu_cur->block_idx)
#define blockDim (mct_emu_cur->block_dim)
#define gridDim (mct_emu_cur->grid_dim)

/** The current block's dynamic shared memory buffer (size given at launch, 16-byte
 * aligned); MCT_EXTERN_SHARED in mct_shared.cuh is the portable way to reach it. */
inline void* mct_emu_dynamic_shared(void) { return mct_emu_cur->dyn_smem; }

/* ------------------------------------------------------------------------------------
 * Warp and block collectives. Every one is a scheduling point: the lane stops, and the
 * runtime decides the rendezvous once the lanes concerned have all stopped. The call
 * site (file, line) comes from default arguments so errors can name it.
 * ---------------------------------------------------------------------------------- */
enum mct_emu_op {
    MCT_EMU_OP_SYNCWARP = 1,
    MCT_EMU_OP_SHFL_IDX,
    MCT_EMU_OP_SHFL_UP,
    MCT_EMU_OP_SHFL_DOWN,
    MCT_EMU_OP_SHFL_XOR,
    MCT_EMU_OP_BALLOT,
    MCT_EMU_OP_ANY,
    MCT_EMU_OP_ALL,
    MCT_EMU_OP_MATCH_ANY,
    MCT_EMU_OP_MATCH_ALL,
    MCT_EMU_OP_REDUCE_ADD,
    MCT_EMU_OP_ACTIVEMASK,
    MCT_EMU_OP_SYNCTHREADS,
    MCT_EMU_OP_SYNCTHREADS_COUNT,
    MCT_EMU_OP_SYNCTHREADS_AND,
    MCT_EMU_OP_SYNCTHREADS_OR,
    MCT_EMU_OP_YIELD
};

/** One collective request of the current lane; returns the lane's result and, for
 * __match_all_sync, the predicate through *pred. */
extern "C" MCT_API uint64_t mct_emu_collective(int op, unsigned mask, uint64_t value, int arg,
                                        int width, int size, int* pred, const char* file,
                                        int line);

#define MCT__EMU_SITE const char *mct__file = __builtin_FILE(), int mct__line = __builtin_LINE()

template <class T>
inline uint64_t mct__emu_bits(T v) {
    static_assert(std::is_trivially_copyable<T>::value && sizeof(T) <= 8,
                  "warp intrinsics take values of at most 8 bytes");
    uint64_t b = 0;
    memcpy(&b, &v, sizeof(T));
    return b;
}
template <class T>
inline T mct__emu_from_bits(uint64_t b) {
    T v;
    memcpy(&v, &b, sizeof(T));
    return v;
}

template <class T>
inline T mct__emu_shfl(int op, unsigned mask, T var, int arg, int width, const char* file,
                       int line) {
    return mct__emu_from_bits<T>(mct_emu_collective(op, mask, mct__emu_bits(var), arg,
                                                     width, (int)sizeof(T), nullptr, file,
                                                     line));
}

template <class T>
inline T __shfl_sync(unsigned mask, T var, int srcLane, int width = warpSize, MCT__EMU_SITE) {
    return mct__emu_shfl(MCT_EMU_OP_SHFL_IDX, mask, var, srcLane, width, mct__file, mct__line);
}
template <class T>
inline T __shfl_up_sync(unsigned mask, T var, unsigned delta, int width = warpSize,
                        MCT__EMU_SITE) {
    return mct__emu_shfl(MCT_EMU_OP_SHFL_UP, mask, var, (int)delta, width, mct__file,
                         mct__line);
}
template <class T>
inline T __shfl_down_sync(unsigned mask, T var, unsigned delta, int width = warpSize,
                          MCT__EMU_SITE) {
    return mct__emu_shfl(MCT_EMU_OP_SHFL_DOWN, mask, var, (int)delta, width, mct__file,
                         mct__line);
}
template <class T>
inline T __shfl_xor_sync(unsigned mask, T var, int laneMask, int width = warpSize,
                         MCT__EMU_SITE) {
    return mct__emu_shfl(MCT_EMU_OP_SHFL_XOR, mask, var, laneMask, width, mct__file,
                         mct__line);
}

inline unsigned __ballot_sync(unsigned mask, int pred, MCT__EMU_SITE) {
    return (unsigned)mct_emu_collective(MCT_EMU_OP_BALLOT, mask, pred != 0, 0, 32, 4,
                                         nullptr, mct__file, mct__line);
}
inline int __any_sync(unsigned mask, int pred, MCT__EMU_SITE) {
    return (int)mct_emu_collective(MCT_EMU_OP_ANY, mask, pred != 0, 0, 32, 4, nullptr,
                                    mct__file, mct__line);
}
inline int __all_sync(unsigned mask, int pred, MCT__EMU_SITE) {
    return (int)mct_emu_collective(MCT_EMU_OP_ALL, mask, pred != 0, 0, 32, 4, nullptr,
                                    mct__file, mct__line);
}
template <class T>
inline unsigned __match_any_sync(unsigned mask, T value, MCT__EMU_SITE) {
    static_assert(sizeof(T) == 4 || sizeof(T) == 8, "__match_any_sync takes 32/64-bit values");
    return (unsigned)mct_emu_collective(MCT_EMU_OP_MATCH_ANY, mask, mct__emu_bits(value), 0,
                                         32, (int)sizeof(T), nullptr, mct__file, mct__line);
}
template <class T>
inline unsigned __match_all_sync(unsigned mask, T value, int* pred, MCT__EMU_SITE) {
    static_assert(sizeof(T) == 4 || sizeof(T) == 8, "__match_all_sync takes 32/64-bit values");
    return (unsigned)mct_emu_collective(MCT_EMU_OP_MATCH_ALL, mask, mct__emu_bits(value), 0,
                                         32, (int)sizeof(T), pred, mct__file, mct__line);
}
/** Sum of a 32-bit value over the lanes of mask (redux.sync), wrapping, in every lane. */
inline unsigned __reduce_add_sync(unsigned mask, unsigned value, MCT__EMU_SITE) {
    return (unsigned)mct_emu_collective(MCT_EMU_OP_REDUCE_ADD, mask, value, 0, 32, 4, nullptr,
                                         mct__file, mct__line);
}
inline int __reduce_add_sync(unsigned mask, int value, MCT__EMU_SITE) {
    return (int)(unsigned)mct_emu_collective(MCT_EMU_OP_REDUCE_ADD, mask, (unsigned)value, 0, 32, 4,
                                              nullptr, mct__file, mct__line);
}
/** The lanes of this warp stopped at this same call site once every other runnable
 * lane of the warp has stopped somewhere: lanes on other branches are not included. */
inline unsigned __activemask(MCT__EMU_SITE) {
    return (unsigned)mct_emu_collective(MCT_EMU_OP_ACTIVEMASK, 0, 0, 0, 32, 0, nullptr,
                                         mct__file, mct__line);
}
inline void __syncwarp(unsigned mask = 0xffffffffu, MCT__EMU_SITE) {
    (void)mct_emu_collective(MCT_EMU_OP_SYNCWARP, mask, 0, 0, 32, 0, nullptr, mct__file,
                              mct__line);
}
inline void __syncthreads(MCT__EMU_SITE) {
    (void)mct_emu_collective(MCT_EMU_OP_SYNCTHREADS, 0, 0, 0, 32, 0, nullptr, mct__file,
                              mct__line);
}
inline int __syncthreads_count(int pred, MCT__EMU_SITE) {
    return (int)mct_emu_collective(MCT_EMU_OP_SYNCTHREADS_COUNT, 0, pred != 0, 0, 32, 4,
                                    nullptr, mct__file, mct__line);
}
inline int __syncthreads_and(int pred, MCT__EMU_SITE) {
    return (int)mct_emu_collective(MCT_EMU_OP_SYNCTHREADS_AND, 0, pred != 0, 0, 32, 4,
                                    nullptr, mct__file, mct__line);
}
inline int __syncthreads_or(int pred, MCT__EMU_SITE) {
    return (int)mct_emu_collective(MCT_EMU_OP_SYNCTHREADS_OR, 0, pred != 0, 0, 32, 4,
                                    nullptr, mct__file, mct__line);
}
/** Lets the other lanes of the block run: the only way a lane may spin-wait on
 * another lane of its own block. */
inline void __nanosleep(unsigned ns, MCT__EMU_SITE) {
    (void)ns;
    (void)mct_emu_collective(MCT_EMU_OP_YIELD, 0, 0, 0, 32, 0, nullptr, mct__file,
                              mct__line);
}

inline void __threadfence(void) { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
inline void __threadfence_block(void) { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
inline void __threadfence_system(void) { __atomic_thread_fence(__ATOMIC_SEQ_CST); }

/* ------------------------------------------------------------------------------------
 * Bit and type-punning intrinsics.
 * ---------------------------------------------------------------------------------- */
inline int __ffs(int x) { return __builtin_ffs(x); }
inline int __ffsll(long long x) { return __builtin_ffsll(x); }
inline int __popc(unsigned x) { return __builtin_popcount(x); }
inline int __popcll(unsigned long long x) { return __builtin_popcountll(x); }
inline int __clz(int x) { return x == 0 ? 32 : __builtin_clz((unsigned)x); }
inline int __clzll(long long x) { return x == 0 ? 64 : __builtin_clzll((unsigned long long)x); }
inline unsigned __brev(unsigned x) {
    unsigned r = 0;
    for (int i = 0; i < 32; ++i, x >>= 1) r = (r << 1) | (x & 1u);
    return r;
}
inline unsigned long long __brevll(unsigned long long x) {
    return ((unsigned long long)__brev((unsigned)x) << 32) | __brev((unsigned)(x >> 32));
}
/** The position of the offset-th set bit of mask counting from base (upwards for a
 * non-negative offset, downwards for a negative one), or 0xffffffff if there is none. */
inline unsigned __fns(unsigned mask, unsigned base, int offset) {
    if (base > 31) return 0xffffffffu;
    if (offset == 0) return (mask >> base) & 1u ? base : 0xffffffffu;
    int step = offset > 0 ? 1 : -1, need = offset > 0 ? offset : -offset;
    for (int i = (int)base; i >= 0 && i < 32; i += step)
        if (((mask >> i) & 1u) && --need == 0) return (unsigned)i;
    return 0xffffffffu;
}
inline unsigned __umulhi(unsigned a, unsigned b) {
    return (unsigned)(((unsigned long long)a * b) >> 32);
}
inline int __mulhi(int a, int b) { return (int)(((long long)a * b) >> 32); }
__extension__ typedef unsigned __int128 mct__emu_u128;
__extension__ typedef __int128 mct__emu_i128;
inline unsigned long long __umul64hi(unsigned long long a, unsigned long long b) {
    return (unsigned long long)(((mct__emu_u128)a * b) >> 64);
}
inline long long __mul64hi(long long a, long long b) {
    return (long long)(((mct__emu_i128)a * b) >> 64);
}
inline int __float_as_int(float x) { return mct__emu_from_bits<int>(mct__emu_bits(x)); }
inline unsigned __float_as_uint(float x) { return mct__emu_from_bits<unsigned>(mct__emu_bits(x)); }
inline float __int_as_float(int x) { return mct__emu_from_bits<float>(mct__emu_bits(x)); }
inline float __uint_as_float(unsigned x) { return mct__emu_from_bits<float>(mct__emu_bits(x)); }
inline long long __double_as_longlong(double x) {
    return mct__emu_from_bits<long long>(mct__emu_bits(x));
}
inline double __longlong_as_double(long long x) {
    return mct__emu_from_bits<double>(mct__emu_bits(x));
}
inline int __double2hiint(double x) { return (int)(__double_as_longlong(x) >> 32); }
inline int __double2loint(double x) { return (int)__double_as_longlong(x); }
inline double __hiloint2double(int hi, int lo) {
    return __longlong_as_double((long long)(((unsigned long long)(unsigned)hi << 32) |
                                            (unsigned)lo));
}

/* Cache-hint loads and stores are plain memory accesses on the host. */
template <class T> inline T __ldg(const T* p) { return *p; }
template <class T> inline T __ldcg(const T* p) { return *p; }
template <class T> inline T __ldca(const T* p) { return *p; }
template <class T> inline T __ldcs(const T* p) { return *p; }
template <class T> inline T __ldlu(const T* p) { return *p; }
template <class T> inline T __ldcv(const T* p) { return *p; }
template <class T> inline void __stwb(T* p, T v) { *p = v; }
template <class T> inline void __stcg(T* p, T v) { *p = v; }
template <class T> inline void __stcs(T* p, T v) { *p = v; }
template <class T> inline void __stwt(T* p, T v) { *p = v; }

/* A few device math functions that are not in the C library. */
inline float rsqrtf(float x) { return 1.0f / sqrtf(x); }
inline double rsqrt(double x) { return 1.0 / sqrt(x); }
inline float __expf(float x) { return expf(x); }
inline float __logf(float x) { return logf(x); }
inline float __sinf(float x) { return sinf(x); }
inline float __cosf(float x) { return cosf(x); }
inline float __fdividef(float a, float b) { return a / b; }
inline float __saturatef(float x) { return x < 0.0f ? 0.0f : (x > 1.0f ? 1.0f : x); }
inline float __fmaf_rn(float a, float b, float c) { return fmaf(a, b, c); }
inline double __fma_rn(double a, double b, double c) { return fma(a, b, c); }
inline float __fadd_rn(float a, float b) { return a + b; }
inline float __fmul_rn(float a, float b) { return a * b; }
inline double __dadd_rn(double a, double b) { return a + b; }
inline double __dmul_rn(double a, double b) { return a * b; }

/* CUDA device code calls min/max unqualified on integers and floats. */
#define MCT__EMU_MINMAX(T)                                  \
    inline T min(T a, T b) { return b < a ? b : a; }        \
    inline T max(T a, T b) { return a < b ? b : a; }
MCT__EMU_MINMAX(int)
MCT__EMU_MINMAX(unsigned)
MCT__EMU_MINMAX(long)
MCT__EMU_MINMAX(unsigned long)
MCT__EMU_MINMAX(long long)
MCT__EMU_MINMAX(unsigned long long)
MCT__EMU_MINMAX(float)
MCT__EMU_MINMAX(double)
#undef MCT__EMU_MINMAX

extern "C" MCT_API long long mct_emu_clock64(void);
inline long long clock64(void) { return mct_emu_clock64(); }

/* ------------------------------------------------------------------------------------
 * Atomics, on any address. Blocks may run on several OS threads at once, so these are
 * real hardware atomics (relaxed, as CUDA's are; __threadfence orders them).
 * ---------------------------------------------------------------------------------- */
#define MCT__EMU_AO __ATOMIC_RELAXED

template <class T>
inline T mct__emu_cas(T* a, T expected, T desired) {
    __atomic_compare_exchange_n(a, &expected, desired, false, MCT__EMU_AO, MCT__EMU_AO);
    return expected;
}
/** Applies f to *a atomically through a compare-and-swap on the bits, as float and
 * double atomics must (comparing bits means a NaN cannot make the loop spin). */
template <class T, class U, class F>
inline T mct__emu_rmw_bits(T* a, F f) {
    static_assert(sizeof(T) == sizeof(U), "bit type must match");
    U* p = reinterpret_cast<U*>(a);
    U old = __atomic_load_n(p, MCT__EMU_AO);
    for (;;) {
        U next = mct__emu_bits(f(mct__emu_from_bits<T>(old)));
        if (__atomic_compare_exchange_n(p, &old, next, true, MCT__EMU_AO, MCT__EMU_AO))
            return mct__emu_from_bits<T>(old);
    }
}

#define MCT__EMU_FETCH(name, builtin, T) \
    inline T name(T* a, T v) { return builtin(a, v, MCT__EMU_AO); }
/* The three integer types CUDA gives these atomics (atomicSub: the first two). */
#define MCT__EMU_FETCH_INTS(name, builtin) \
    MCT__EMU_FETCH(name, builtin, int) \
    MCT__EMU_FETCH(name, builtin, unsigned) \
    MCT__EMU_FETCH(name, builtin, unsigned long long)
MCT__EMU_FETCH_INTS(atomicAdd, __atomic_fetch_add)
MCT__EMU_FETCH(atomicSub, __atomic_fetch_sub, int)
MCT__EMU_FETCH(atomicSub, __atomic_fetch_sub, unsigned)
MCT__EMU_FETCH_INTS(atomicExch, __atomic_exchange_n)
MCT__EMU_FETCH_INTS(atomicAnd, __atomic_fetch_and)
MCT__EMU_FETCH_INTS(atomicOr, __atomic_fetch_or)
MCT__EMU_FETCH_INTS(atomicXor, __atomic_fetch_xor)
#undef MCT__EMU_FETCH_INTS
#undef MCT__EMU_FETCH

inline float atomicAdd(float* a, float v) {
    return mct__emu_rmw_bits<float, uint32_t>(a, [v](float x) { return x + v; });
}
inline double atomicAdd(double* a, double v) {
    return mct__emu_rmw_bits<double, uint64_t>(a, [v](double x) { return x + v; });
}
inline float atomicExch(float* a, float v) {
    return mct__emu_from_bits<float>(
        __atomic_exchange_n(reinterpret_cast<uint32_t*>(a), (uint32_t)mct__emu_bits(v),
                            MCT__EMU_AO));
}

#define MCT__EMU_MINMAX_ATOMIC(T)                                                    \
    inline T atomicMin(T* a, T v) {                                                  \
        return mct__emu_rmw_bits<T, T>(a, [v](T x) { return v < x ? v : x; });       \
    }                                                                                \
    inline T atomicMax(T* a, T v) {                                                  \
        return mct__emu_rmw_bits<T, T>(a, [v](T x) { return x < v ? v : x; });       \
    }
MCT__EMU_MINMAX_ATOMIC(int)
MCT__EMU_MINMAX_ATOMIC(unsigned)
MCT__EMU_MINMAX_ATOMIC(unsigned long long)
MCT__EMU_MINMAX_ATOMIC(long long)
#undef MCT__EMU_MINMAX_ATOMIC

inline unsigned atomicInc(unsigned* a, unsigned limit) {
    return mct__emu_rmw_bits<unsigned, unsigned>(
        a, [limit](unsigned x) { return x >= limit ? 0u : x + 1u; });
}
inline unsigned atomicDec(unsigned* a, unsigned limit) {
    return mct__emu_rmw_bits<unsigned, unsigned>(
        a, [limit](unsigned x) { return (x == 0 || x > limit) ? limit : x - 1u; });
}

inline int atomicCAS(int* a, int c, int v) { return mct__emu_cas(a, c, v); }
inline unsigned atomicCAS(unsigned* a, unsigned c, unsigned v) { return mct__emu_cas(a, c, v); }
inline unsigned long long atomicCAS(unsigned long long* a, unsigned long long c,
                                    unsigned long long v) {
    return mct__emu_cas(a, c, v);
}
inline unsigned short atomicCAS(unsigned short* a, unsigned short c, unsigned short v) {
    return mct__emu_cas(a, c, v);
}

/* Scoped variants behave as the device-scope ones on the host. */
#define MCT__EMU_SCOPED(name)                                                           \
    template <class T, class... U>                                                      \
    inline auto name##_block(T* a, U... v) -> decltype(name(a, v...)) {                 \
        return name(a, v...);                                                           \
    }                                                                                   \
    template <class T, class... U>                                                      \
    inline auto name##_system(T* a, U... v) -> decltype(name(a, v...)) {                \
        return name(a, v...);                                                           \
    }
MCT__EMU_SCOPED(atomicAdd)
MCT__EMU_SCOPED(atomicSub)
MCT__EMU_SCOPED(atomicExch)
MCT__EMU_SCOPED(atomicMin)
MCT__EMU_SCOPED(atomicMax)
MCT__EMU_SCOPED(atomicCAS)
MCT__EMU_SCOPED(atomicAnd)
MCT__EMU_SCOPED(atomicOr)
MCT__EMU_SCOPED(atomicXor)
#undef MCT__EMU_SCOPED

/* ------------------------------------------------------------------------------------
 * Whole 16-byte accesses. On a GPU a naturally aligned 128-bit load or store (device
 * code issues it as ld/st .v2.u64 in inline PTX, e.g. the scan's packed tile states)
 * is one access: a reader sees all of one store or none of it. A plain 16-byte copy
 * on the host may be split into two 8-byte moves, and blocks run on several OS
 * threads, so such device code calls these instead under the emulation. Both are
 * relaxed (no ordering of other accesses); a misaligned address is reported as a
 * launch failure, as the GPU faults on it.
 * ---------------------------------------------------------------------------------- */
extern "C" MCT_API void mct_emu_load_16(void* dst, const void* src);
extern "C" MCT_API void mct_emu_store_16(void* dst, const void* src);

/* ------------------------------------------------------------------------------------
 * Runtime API subset. Every name is a macro onto an mct_emu_* symbol, so a program
 * can also link the real libcudart without clashes.
 * ---------------------------------------------------------------------------------- */
typedef enum mct_emu_error {
    mct_emu_success = 0,
    mct_emu_error_invalid_value = 1,
    mct_emu_error_memory_allocation = 2,
    mct_emu_error_invalid_configuration = 9,
    mct_emu_error_invalid_device_pointer = 17,
    mct_emu_error_invalid_memcpy_direction = 21,
    mct_emu_error_not_supported = 801,
    mct_emu_error_no_device = 100,
    mct_emu_error_invalid_device = 101,
    mct_emu_error_launch_failure = 719,
    mct_emu_error_unknown = 999
} mct_emu_error_t;

typedef enum mct_emu_memcpy_kind {
    mct_emu_memcpy_host_to_host = 0,
    mct_emu_memcpy_host_to_device = 1,
    mct_emu_memcpy_device_to_host = 2,
    mct_emu_memcpy_device_to_device = 3,
    mct_emu_memcpy_default = 4
} mct_emu_memcpy_kind_t;

typedef struct mct_emu_stream_s* mct_emu_stream_t;
typedef struct mct_emu_event_s* mct_emu_event_t;

/** The cudaDeviceProp fields host code is likely to read, describing the host. */
typedef struct mct_emu_device_prop {
    char name[256];
    size_t totalGlobalMem;
    size_t sharedMemPerBlock;
    size_t sharedMemPerBlockOptin;
    size_t sharedMemPerMultiprocessor;
    size_t totalConstMem;
    int regsPerBlock;
    int warpSize;
    int maxThreadsPerBlock;
    int maxThreadsDim[3];
    int maxGridSize[3];
    int maxThreadsPerMultiProcessor;
    int maxBlocksPerMultiProcessor;
    int multiProcessorCount;
    int major;
    int minor;
    int clockRate;
    int memoryClockRate;
    int memoryBusWidth;
    int l2CacheSize;
    int concurrentKernels;
    int integrated;
    int unifiedAddressing;
    int managedMemory;
} mct_emu_device_prop_t;

enum mct_emu_func_attribute {
    mct_emu_func_attr_max_dynamic_shared = 8,
    mct_emu_func_attr_preferred_carveout = 9
};
enum mct_emu_device_attr {
    mct_emu_dev_attr_max_threads_per_block = 1,
    mct_emu_dev_attr_max_shared_per_block = 8,
    mct_emu_dev_attr_warp_size = 10,
    mct_emu_dev_attr_multiprocessor_count = 16,
    mct_emu_dev_attr_cc_major = 75,
    mct_emu_dev_attr_cc_minor = 76,
    mct_emu_dev_attr_max_shared_per_block_optin = 97
};

extern "C" {
MCT_API const char* mct_emu_get_error_string(mct_emu_error_t e);
MCT_API const char* mct_emu_get_error_name(mct_emu_error_t e);
MCT_API mct_emu_error_t mct_emu_get_last_error(void);
MCT_API mct_emu_error_t mct_emu_peek_at_last_error(void);
/** The detailed message of the latest failure (launch or API), "" if none; the pointer
 * stays valid until the calling thread calls this again. */
MCT_API const char* mct_emu_last_error_message(void);
MCT_API mct_emu_error_t mct_emu_malloc(void** p, size_t bytes);
MCT_API mct_emu_error_t mct_emu_malloc_host(void** p, size_t bytes);
MCT_API mct_emu_error_t mct_emu_free(void* p);
MCT_API mct_emu_error_t mct_emu_memcpy(void* dst, const void* src, size_t n, mct_emu_memcpy_kind_t k);
MCT_API mct_emu_error_t mct_emu_memcpy_async(void* dst, const void* src, size_t n,
                                     mct_emu_memcpy_kind_t k, mct_emu_stream_t s);
MCT_API mct_emu_error_t mct_emu_memset(void* p, int value, size_t n);
MCT_API mct_emu_error_t mct_emu_memset_async(void* p, int value, size_t n, mct_emu_stream_t s);
MCT_API mct_emu_error_t mct_emu_stream_create(mct_emu_stream_t* s);
MCT_API mct_emu_error_t mct_emu_stream_create_with_flags(mct_emu_stream_t* s, unsigned flags);
MCT_API mct_emu_error_t mct_emu_stream_destroy(mct_emu_stream_t s);
MCT_API mct_emu_error_t mct_emu_stream_synchronize(mct_emu_stream_t s);
MCT_API mct_emu_error_t mct_emu_device_synchronize(void);
MCT_API mct_emu_error_t mct_emu_device_reset(void);
MCT_API mct_emu_error_t mct_emu_event_create(mct_emu_event_t* e);
MCT_API mct_emu_error_t mct_emu_event_create_with_flags(mct_emu_event_t* e, unsigned flags);
MCT_API mct_emu_error_t mct_emu_event_record(mct_emu_event_t e, mct_emu_stream_t s);
MCT_API mct_emu_error_t mct_emu_event_synchronize(mct_emu_event_t e);
MCT_API mct_emu_error_t mct_emu_event_elapsed_time(float* ms, mct_emu_event_t start, mct_emu_event_t end);
MCT_API mct_emu_error_t mct_emu_event_destroy(mct_emu_event_t e);
MCT_API mct_emu_error_t mct_emu_get_device(int* dev);
MCT_API mct_emu_error_t mct_emu_set_device(int dev);
MCT_API mct_emu_error_t mct_emu_get_device_count(int* n);
MCT_API mct_emu_error_t mct_emu_get_device_properties(mct_emu_device_prop_t* p, int dev);
MCT_API mct_emu_error_t mct_emu_device_get_attribute(int* v, int attr, int dev);
MCT_API mct_emu_error_t mct_emu_mem_get_info(size_t* free_bytes, size_t* total_bytes);

/** Sets how many OS threads run the blocks of launches made by the calling thread;
 * n <= 0 restores the default (MCT_EMU_THREADS, else the OpenMP maximum). Returns the
 * previous setting (0 meaning "default"). */
MCT_API int mct_emu_set_threads(int n);
/** The number of OS threads a launch from the calling thread would use. */
MCT_API int mct_emu_threads(void);

/** Runs a grid on the host: body(arg) is called once per lane, inside that lane's
 * fiber. Errors are reported through mct_emu_get_last_error(). */
MCT_API void mct_emu_launch(const char* kernel_name, const char* file, int line, dim3 grid,
                    dim3 block, size_t smem_bytes, mct_emu_stream_t stream,
                    void (*body)(void*), void* arg);
}

template <class T>
inline mct_emu_error_t mct_emu_malloc(T** p, size_t bytes) {
    return mct_emu_malloc(reinterpret_cast<void**>(p), bytes);
}
template <class T>
inline mct_emu_error_t mct_emu_malloc_host(T** p, size_t bytes) {
    return mct_emu_malloc_host(reinterpret_cast<void**>(p), bytes);
}
template <class T>
inline mct_emu_error_t mct_emu_malloc_managed(T** p, size_t bytes, unsigned flags = 1) {
    (void)flags;
    return mct_emu_malloc(reinterpret_cast<void**>(p), bytes);
}
template <class F>
inline mct_emu_error_t mct_emu_func_set_attribute(F*, int, int) { return mct_emu_success; }
template <class T>
inline mct_emu_error_t mct_emu_memcpy_to_symbol(T& sym, const void* src, size_t n,
                                                size_t off = 0,
                                                mct_emu_memcpy_kind_t k = mct_emu_memcpy_host_to_device) {
    return mct_emu_memcpy(reinterpret_cast<char*>(&sym) + off, src, n, k);
}
template <class T>
inline mct_emu_error_t mct_emu_memcpy_from_symbol(void* dst, const T& sym, size_t n,
                                                  size_t off = 0,
                                                  mct_emu_memcpy_kind_t k = mct_emu_memcpy_device_to_host) {
    return mct_emu_memcpy(dst, reinterpret_cast<const char*>(&sym) + off, n, k);
}
inline mct_emu_error_t mct_emu_event_record0(mct_emu_event_t e, mct_emu_stream_t s = nullptr) {
    return mct_emu_event_record(e, s);
}
inline mct_emu_error_t mct_emu_memcpy_async0(void* d, const void* s, size_t n,
                                             mct_emu_memcpy_kind_t k,
                                             mct_emu_stream_t st = nullptr) {
    return mct_emu_memcpy_async(d, s, n, k, st);
}
inline mct_emu_error_t mct_emu_memset_async0(void* p, int v, size_t n,
                                             mct_emu_stream_t st = nullptr) {
    return mct_emu_memset_async(p, v, n, st);
}
template <class F>
inline mct_emu_error_t mct_emu_occupancy_max_blocks(int* n, F*, int block, size_t smem) {
    (void)smem;
    *n = block > 0 ? (2048 / block > 0 ? 2048 / block : 1) : 0;
    return mct_emu_success;
}

#define cudaError_t mct_emu_error_t
#define cudaError mct_emu_error
#define cudaSuccess mct_emu_success
#define cudaErrorInvalidValue mct_emu_error_invalid_value
#define cudaErrorMemoryAllocation mct_emu_error_memory_allocation
#define cudaErrorInvalidConfiguration mct_emu_error_invalid_configuration
#define cudaErrorInvalidDevicePointer mct_emu_error_invalid_device_pointer
#define cudaErrorInvalidMemcpyDirection mct_emu_error_invalid_memcpy_direction
#define cudaErrorNotSupported mct_emu_error_not_supported
#define cudaErrorNoDevice mct_emu_error_no_device
#define cudaErrorInvalidDevice mct_emu_error_invalid_device
#define cudaErrorLaunchFailure mct_emu_error_launch_failure
#define cudaErrorUnknown mct_emu_error_unknown
#define cudaGetErrorString mct_emu_get_error_string
#define cudaGetErrorName mct_emu_get_error_name
#define cudaGetLastError mct_emu_get_last_error
#define cudaPeekAtLastError mct_emu_peek_at_last_error
#define cudaMalloc mct_emu_malloc
#define cudaMallocHost mct_emu_malloc_host
#define cudaMallocManaged mct_emu_malloc_managed
#define cudaFree mct_emu_free
#define cudaFreeHost mct_emu_free
#define cudaMemcpy mct_emu_memcpy
#define cudaMemcpyAsync mct_emu_memcpy_async0
#define cudaMemset mct_emu_memset
#define cudaMemsetAsync mct_emu_memset_async0
#define cudaMemcpyToSymbol mct_emu_memcpy_to_symbol
#define cudaMemcpyFromSymbol mct_emu_memcpy_from_symbol
#define cudaMemcpyKind mct_emu_memcpy_kind_t
#define cudaMemcpyHostToHost mct_emu_memcpy_host_to_host
#define cudaMemcpyHostToDevice mct_emu_memcpy_host_to_device
#define cudaMemcpyDeviceToHost mct_emu_memcpy_device_to_host
#define cudaMemcpyDeviceToDevice mct_emu_memcpy_device_to_device
#define cudaMemcpyDefault mct_emu_memcpy_default
#define cudaStream_t mct_emu_stream_t
#define cudaStreamDefault 0u
#define cudaStreamNonBlocking 1u
#define cudaStreamCreate mct_emu_stream_create
#define cudaStreamCreateWithFlags mct_emu_stream_create_with_flags
#define cudaStreamDestroy mct_emu_stream_destroy
#define cudaStreamSynchronize mct_emu_stream_synchronize
#define cudaDeviceSynchronize mct_emu_device_synchronize
#define cudaDeviceReset mct_emu_device_reset
#define cudaEvent_t mct_emu_event_t
#define cudaEventDefault 0u
#define cudaEventBlockingSync 1u
#define cudaEventDisableTiming 2u
#define cudaEventCreate mct_emu_event_create
#define cudaEventCreateWithFlags mct_emu_event_create_with_flags
#define cudaEventRecord mct_emu_event_record0
#define cudaEventSynchronize mct_emu_event_synchronize
#define cudaEventElapsedTime mct_emu_event_elapsed_time
#define cudaEventDestroy mct_emu_event_destroy
#define cudaGetDevice mct_emu_get_device
#define cudaSetDevice mct_emu_set_device
#define cudaGetDeviceCount mct_emu_get_device_count
#define cudaDeviceProp mct_emu_device_prop_t
#define cudaGetDeviceProperties mct_emu_get_device_properties
#define cudaDeviceGetAttribute mct_emu_device_get_attribute
#define cudaDevAttrMaxThreadsPerBlock mct_emu_dev_attr_max_threads_per_block
#define cudaDevAttrMaxSharedMemoryPerBlock mct_emu_dev_attr_max_shared_per_block
#define cudaDevAttrWarpSize mct_emu_dev_attr_warp_size
#define cudaDevAttrMultiProcessorCount mct_emu_dev_attr_multiprocessor_count
#define cudaDevAttrComputeCapabilityMajor mct_emu_dev_attr_cc_major
#define cudaDevAttrComputeCapabilityMinor mct_emu_dev_attr_cc_minor
#define cudaDevAttrMaxSharedMemoryPerBlockOptin mct_emu_dev_attr_max_shared_per_block_optin
#define cudaMemGetInfo mct_emu_mem_get_info
#define cudaFuncSetAttribute mct_emu_func_set_attribute
#define cudaFuncAttributeMaxDynamicSharedMemorySize mct_emu_func_attr_max_dynamic_shared
#define cudaFuncAttributePreferredSharedMemoryCarveout mct_emu_func_attr_preferred_carveout
#define cudaOccupancyMaxActiveBlocksPerMultiprocessor mct_emu_occupancy_max_blocks

/* ------------------------------------------------------------------------------------
 * Kernel launch. The arguments are converted to the kernel's parameter types once, at
 * the launch (as CUDA does), and every lane gets its own copy of them.
 * ---------------------------------------------------------------------------------- */
template <class... P, class... A>
inline void mct_emu_launch_kernel(const char* name, const char* file, int line, dim3 grid,
                                  dim3 block, size_t smem, mct_emu_stream_t stream,
                                  void (*kernel)(P...), A&&... args) {
    static_assert(sizeof...(P) == sizeof...(A), "wrong number of kernel arguments");
    struct pack {
        void (*kernel)(P...);
        std::tuple<std::decay_t<P>...> args;
    } pk{kernel, std::tuple<std::decay_t<P>...>(std::forward<A>(args)...)};
    mct_emu_launch(
        name, file, line, grid, block, smem, stream,
        [](void* v) {
            pack* q = static_cast<pack*>(v);
            std::apply(q->kernel, q->args); /* by-value parameters: a copy per lane */
        },
        &pk);
}

#endif /* MCT_EMU_H */
