/* SPDX-License-Identifier: BSD-3-Clause */
/** @file test_device.h  The device pieces of the kernel tests: whether there is a
 * device to run on (always, under the emulation; a test without one exits 77,
 * which ctest reports as skipped), and CHECK_CUDA for the runtime's calls. */
#ifndef MCT_TEST_DEVICE_H
#define MCT_TEST_DEVICE_H

#include <stdio.h>

#include "mctally/device/mct_launch.cuh"
#include "test_assert.h"

#define CHECK_CUDA(call) ASSERT_EQ_I64((int64_t)(call), (int64_t)cudaSuccess)

static inline bool test_have_device(void) {
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
        printf("no CUDA device, skipping\n");
        return false;
    }
    return true;
}

#endif /* MCT_TEST_DEVICE_H */
