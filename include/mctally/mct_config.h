/* SPDX-License-Identifier: BSD-3-Clause */
/** @file mct_config.h  Build configuration, portability macros and version numbers. */
#ifndef MCT_CONFIG_H
#define MCT_CONFIG_H

#define MCT_VERSION_MAJOR 0
#define MCT_VERSION_MINOR 1
#define MCT_VERSION_PATCH 0
#define MCT_VERSION_STRING "0.1.0"

/* MCT_HD marks functions callable from host and device code: __host__ __device__
 * under nvcc; empty in plain C and under the CPU emulation of CUDA
 * (MCT_EMULATED), where every function is a host function. */
#if defined(__CUDACC__)
#define MCT_HD __host__ __device__
#define MCT_DEVICE __device__
#else
#define MCT_HD
#define MCT_DEVICE
#endif

/* MCT_INLINE: a static inline function usable from C, C++ and CUDA. */
#if defined(__CUDACC__)
#define MCT_INLINE static __forceinline__
#else
#define MCT_INLINE static inline
#endif

/* MCT_UNROLL (MCT_NO_UNROLL) before a loop: `#pragma unroll` (`unroll 1`) under nvcc; nothing for host compilers
 * (the CPU emulation), which would warn about the unknown pragma. */
#if defined(__CUDACC__)
#define MCT_UNROLL _Pragma("unroll")
#define MCT_NO_UNROLL _Pragma("unroll 1")
#else
#define MCT_UNROLL
#define MCT_NO_UNROLL
#endif

/* Feature macros are always defined, to 0 or 1, and tested with #if. */
#if defined(__CUDACC__)
#define MCT_IS_NVCC 1
#else
#define MCT_IS_NVCC 0
#endif
#if defined(MCT_EMULATED)
#define MCT_IS_EMULATED 1
#else
#define MCT_IS_EMULATED 0
#endif

/* Shared memory a block tally may take without the opt-in attribute: the
 * most bins the `shared` method can keep per block (B * sizeof(T)). */
#define MCT_BLOCK_TALLY_SMEM_LIMIT (48 * 1024)

#endif /* MCT_CONFIG_H */
