/* SPDX-License-Identifier: BSD-3-Clause */
/** @file test_mct_add_int.cu  mct_add on i32 and u64 tallies with every method
 * that serves integers (atomic, wag, wib, wag_match, replicated, sort_reduce
 * append, shared through mct_block_tally, the collective methods' any-lane
 * fallbacks, and the run-time forms): results must equal the host's integer
 * sums exactly, under random inactive lanes, divergent branches, early exits,
 * awkward block sizes and 1, 8, 1000 bins (mct_add_harness.cuh). */
#include "mct_add_harness.cuh"

template <typename T>
static void int_methods(void) {
    harness_sweep<T, MCT_METHOD_ATOMIC, FORM_ADD>();
    harness_sweep<T, MCT_METHOD_WAG, FORM_ADD>();
    harness_sweep<T, MCT_METHOD_WIB, FORM_ADD>();
    harness_sweep<T, MCT_METHOD_WAG_MATCH, FORM_ADD>();
    harness_sweep<T, MCT_METHOD_REPLICATED, FORM_ADD>();
    harness_sweep<T, MCT_METHOD_SORT_REDUCE, FORM_ADD>();
    harness_sweep<T, MCT_METHOD_SHARED, FORM_ADD>(); /* any-lane fallback: atomic */
    harness_sweep<T, MCT_METHOD_WARP_REDUCE, FORM_ADD>(); /* any-lane fallback: wag_match */
    harness_sweep<T, MCT_METHOD_BLOCK_REDUCE, FORM_BLOCK>();
    harness_sweep<T, MCT_METHOD_SHARED, FORM_BLOCK>();
    harness_sweep<T, MCT_METHOD_WIB, FORM_ADD_RUNTIME>();
    harness_sweep<T, MCT_METHOD_SHARED, FORM_BLOCK_RUNTIME>();
    const harness_input in = harness_make<T>(700, 8, KEYS_HOT, false);
    const harness_device d = harness_upload(in);
    harness_run<T, MCT_METHOD_REPLICATED, FORM_ADD>(in, d, 65, 11, true);
    harness_free(d);
}

int main(void) {
    if (!test_have_device()) return 77;
    int_methods<int32_t>();
    int_methods<uint64_t>();
    printf("mct_add integer methods: exact\n");
    return 0;
}
