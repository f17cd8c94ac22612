/* SPDX-License-Identifier: BSD-3-Clause */
/** @file mct_shared.cuh  Dynamic shared memory that reads the same under nvcc and under
 * the CPU emulation (MCT_EMULATED), so kernels need no #ifdef to reach it. */
#ifndef MCT_SHARED_CUH
#define MCT_SHARED_CUH

#if defined(MCT_EMULATED) && !defined(__CUDACC__)
#include "mctally/emu/mct_emu.h"
#endif

/** MCT_EXTERN_SHARED(T, name) declares, inside a kernel or device function, `name` as a
 * T array (a T* in fact) over the block's dynamic shared memory, whose size is the
 * smem_bytes of the launch. The buffer is 16-byte aligned, enough for double, double2
 * and float4. All such declarations of one block alias the same bytes, as in CUDA.
 *
 * Under nvcc the storage is one raw byte array per name, reinterpreted as T: declaring
 * `extern __shared__ T name[]` directly would make two template instantiations with
 * different T clash ("declaration is incompatible"). Use it at function scope only. */
#if defined(__CUDACC__)
#define MCT_EXTERN_SHARED(T, name)                                            \
    extern __shared__ __align__(16) unsigned char mct__dyn_smem_##name[];     \
    T* const name = reinterpret_cast<T*>(mct__dyn_smem_##name)
#elif defined(MCT_EMULATED)
#define MCT_EXTERN_SHARED(T, name) T* const name = (T*)mct_emu_dynamic_shared()
#else
#error "mct_shared.cuh is for device code: compile with nvcc, or g++ with -DMCT_EMULATED"
#endif

#endif /* MCT_SHARED_CUH */
