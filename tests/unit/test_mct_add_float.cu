/* SPDX-License-Identifier: BSD-3-Clause */
/** @file test_mct_add_float.cu  mct_add on f32 and f64 tallies with every plain
 * float method (atomic, cas, wag, wib, wag_match, replicated with private and
 * shared replicas, shared through mct_block_tally) and the run-time forms,
 * under random inactive lanes, divergent branches and early exits, block sizes
 * 1, 7, 32, 65, 128 and 1, 8, 1000 bins, against a bound on the rounding
 * (mct_add_harness.cuh). GPU build here; CPU emulation in the _emulated.cpp. */
#include "mct_add_harness.cuh"

template <typename T>
static void float_methods(void) {
    harness_sweep<T, MCT_METHOD_ATOMIC, FORM_ADD>();
    harness_sweep<T, MCT_METHOD_CAS, FORM_ADD>();
    harness_sweep<T, MCT_METHOD_WAG, FORM_ADD>();
    harness_sweep<T, MCT_METHOD_WIB, FORM_ADD>();
    harness_sweep<T, MCT_METHOD_WAG_MATCH, FORM_ADD>();
    harness_sweep<T, MCT_METHOD_REPLICATED, FORM_ADD>();
    harness_sweep<T, MCT_METHOD_SHARED, FORM_BLOCK>();
    harness_sweep<T, MCT_METHOD_WAG, FORM_ADD_RUNTIME>();
    harness_sweep<T, MCT_METHOD_SHARED, FORM_BLOCK_RUNTIME>();
    harness_sweep<T, MCT_METHOD_WAG_MATCH, FORM_BLOCK_RUNTIME>();
    /* More threads than replicas: replicas are shared, the add turns atomic. */
    const harness_input in = harness_make<T>(700, 8, KEYS_RANDOM, false);
    const harness_device d = harness_upload(in);
    harness_run<T, MCT_METHOD_REPLICATED, FORM_ADD>(in, d, 65, 11, true);
    harness_free(d);
}

int main(void) {
    if (!test_have_device()) return 77;
    float_methods<float>();
    float_methods<double>();
    printf("mct_add float methods: within bounds\n");
    return 0;
}
