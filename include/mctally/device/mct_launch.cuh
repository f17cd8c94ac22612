/* SPDX-License-Identifier: BSD-3-Clause */
/** @file mct_launch.cuh  One kernel-launch spelling for nvcc and for the CPU emulation
 * (MCT_EMULATED), so host-side launch code is shared by the CUDA backend and by
 * `--backend emulated` and the CI tests. */
#ifndef MCT_LAUNCH_CUH
#define MCT_LAUNCH_CUH

#if defined(MCT_EMULATED) && !defined(__CUDACC__)
#include "mctally/emu/mct_emu.h"
#endif
#include "mctally/device/mct_shared.cuh"

/* MCT__UNPAREN(x) removes one pair of parentheses around x if it has them, so that a
 * kernel name containing commas can be passed as one macro argument. */
#define MCT__UNPAREN(x) MCT__UNPAREN_ESC(MCT__UNPAREN_ISH x)
#define MCT__UNPAREN_ISH(...) MCT__UNPAREN_ISH __VA_ARGS__
#define MCT__UNPAREN_ESC(...) MCT__UNPAREN_ESC_(__VA_ARGS__)
#define MCT__UNPAREN_ESC_(...) MCT__UNPAREN_VAN##__VA_ARGS__
#define MCT__UNPAREN_VANMCT__UNPAREN_ISH

/** MCT_LAUNCH(kernel, grid, block, smem_bytes, stream, args...) launches a kernel.
 * Under nvcc it is kernel<<<grid, block, smem_bytes, stream>>>(args...). Under the
 * emulation it runs the whole grid on the host before returning; errors the emulation
 * finds come back from the next cudaGetLastError()/cudaPeekAtLastError() as
 * cudaErrorLaunchFailure, with details in mct_emu_last_error_message().
 *
 * A template kernel whose arguments contain a comma must be wrapped in parentheses:
 * MCT_LAUNCH((my_kernel<float, 3>), grid, block, 0, stream, d_out, n). One-argument
 * templates (my_kernel<float>) need none. The kernel must name one function (no
 * overload set), as with <<< >>> on a template-id. */
#if defined(__CUDACC__)
#define MCT_LAUNCH(kernel, grid, block, smem_bytes, stream, ...) \
    MCT__UNPAREN(kernel)<<<(grid), (block), (smem_bytes), (stream)>>>(__VA_ARGS__)
#elif defined(MCT_EMULATED)
#define MCT_LAUNCH(kernel, grid, block, smem_bytes, stream, ...)                           \
    mct_emu_launch_kernel(#kernel, __FILE__, __LINE__, dim3(grid), dim3(block),            \
                          (size_t)(smem_bytes), (stream), &MCT__UNPAREN(kernel), ##__VA_ARGS__)
#else
#error "mct_launch.cuh is for device code: compile with nvcc, or g++ with -DMCT_EMULATED"
#endif

#endif /* MCT_LAUNCH_CUH */
