/* SPDX-License-Identifier: BSD-3-Clause */
/** @file test_device.h  The device check of the kernel tests: whether there is a
 * device to run on (always, under the emulation). A test without one exits 77,
 * which ctest reports as skipped. */
#ifndef MCT_TEST_DEVICE_H
#define MCT_TEST_DEVICE_H

#include <stdio.h>

#include "mctally/device/mct_launch.cuh"

static inline bool test_have_device(void) {
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
        printf("no CUDA device, skipping\n");
        return false;
    }
    return true;
}

#endif /* MCT_TEST_DEVICE_H */
