/* SPDX-License-Identifier: BSD-3-Clause */
/** @file test_emu_access16.cpp  The emulation's whole 16-byte accesses
 * (mct_emu_load_16 / mct_emu_store_16), which stand in for a GPU's aligned 128-bit
 * loads and stores: values round-trip; a reader never sees half of one store and half
 * of another while blocks on two OS threads store and load the same words; and a
 * misaligned address is reported as a launch failure. */
#include "emu_test.h"

/* Each lane stores (k, ~k) into one of a few shared slots and reads a slot, many
 * times; every word read must be one whole store, i.e. y == ~x (or the initial zeros,
 * which no store writes). Counts torn reads into *torn. */
static __global__ void race_kernel(ulonglong2* slots, int nslots, int rounds, unsigned long long* torn) {
    const int g = emu_gtid();
    unsigned long long bad = 0;
    for (int r = 0; r < rounds; ++r) {
        const unsigned long long k = ((unsigned long long)g << 32) | (unsigned)r;
        const ulonglong2 w = make_ulonglong2(k, ~k);
        mct_emu_store_16(&slots[(g + r) % nslots], &w);
        ulonglong2 v;
        mct_emu_load_16(&v, &slots[(g + 2 * r + 1) % nslots]);
        bad += !(v.y == ~v.x || (v.x == 0 && v.y == 0));
    }
    atomicAdd(torn, bad);
}

static __global__ void misaligned_kernel(ulonglong2* slots) {
    ulonglong2 v;
    mct_emu_load_16(&v, (const char*)slots + 8);
    slots[1] = v;
}

int main(void) {
    mct_emu_set_threads(2);
    ulonglong2* slots;
    unsigned long long* torn;
    cudaMalloc(&slots, 4 * sizeof(ulonglong2));
    cudaMalloc(&torn, sizeof *torn);

    /* Round trip on the host side of the API (outside a kernel). */
    const ulonglong2 a = make_ulonglong2(0x0123456789abcdefull, 0xfedcba9876543210ull);
    ulonglong2 b;
    mct_emu_store_16(&slots[0], &a);
    mct_emu_load_16(&b, &slots[0]);
    ASSERT_TRUE(b.x == a.x && b.y == a.y);

    cudaMemset(slots, 0, 4 * sizeof(ulonglong2));
    cudaMemset(torn, 0, sizeof *torn);
    MCT_LAUNCH(race_kernel, 64, 64, 0, 0, slots, 4, 200, torn);
    EXPECT_LAUNCH_OK();
    unsigned long long h = 1;
    cudaMemcpy(&h, torn, sizeof h, cudaMemcpyDeviceToHost);
    ASSERT_EQ_I64((int64_t)h, 0);

    MCT_LAUNCH(misaligned_kernel, 1, 1, 0, 0, slots);
    EXPECT_LAUNCH_FAILS("16-byte load", "not 16-byte aligned", "block (0,0,0)");

    cudaFree(slots), cudaFree(torn);
    printf("test_emu_access16: ok\n");
    return 0;
}
