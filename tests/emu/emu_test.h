/* SPDX-License-Identifier: BSD-3-Clause */
/** @file emu_test.h  Helpers shared by the emulation tests: launching and checking that
 * a launch succeeded, or failed with a given message. Tests free of emulation-only
 * checks also build with nvcc (nvcc -x cu), to confirm their answers on a GPU. */
#ifndef MCT_EMU_TEST_H
#define MCT_EMU_TEST_H

#include "mctally/device/mct_launch.cuh"
#include "../test_assert.h"

/* The launch must succeed: no error pending, and none after synchronising. */
#define EXPECT_LAUNCH_OK()                                                         \
    do {                                                                           \
        ASSERT_STATUS(cudaGetLastError(), cudaSuccess);                            \
        ASSERT_STATUS(cudaDeviceSynchronize(), cudaSuccess);                       \
    } while (0)

#if defined(MCT_EMULATED) && !defined(__CUDACC__)
/* The launch must fail with cudaErrorLaunchFailure and a message containing each of
 * the given strings (a NULL ends the list). */
static inline void emu_expect_failure(const char* file, int line, const char* const* needles) {
    cudaError_t e = cudaPeekAtLastError();
    if (e != cudaErrorLaunchFailure) {
        fprintf(stderr, "%s:%d: expected cudaErrorLaunchFailure, got %s\n", file, line,
                cudaGetErrorName(e));
        exit(1);
    }
    const char* msg = mct_emu_last_error_message();
    for (; *needles; ++needles)
        if (!strstr(msg, *needles)) {
            fprintf(stderr, "%s:%d: error message lacks \"%s\":\n%s\n", file, line, *needles, msg);
            exit(1);
        }
    ASSERT_STATUS(cudaGetLastError(), cudaErrorLaunchFailure);
    ASSERT_STATUS(cudaGetLastError(), cudaSuccess); /* reading it cleared it */
}
#define EXPECT_LAUNCH_FAILS(...)                                                   \
    do {                                                                           \
        const char* const emu_test_needles[] = {__VA_ARGS__, NULL};                    \
        emu_expect_failure(__FILE__, __LINE__, emu_test_needles);                      \
    } while (0)
#endif

/* The lane's index in the block, x fastest. */
__device__ inline int emu_tid(void) {
    return (int)(threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z));
}
__device__ inline int emu_gtid(void) {
    int bid = (int)(blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z));
    return bid * (int)(blockDim.x * blockDim.y * blockDim.z) + emu_tid();
}

#endif /* MCT_EMU_TEST_H */
