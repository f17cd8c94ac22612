/* SPDX-License-Identifier: BSD-3-Clause */
/** @file test_rng_kat_host.c  Known-answer test of mct_rng.h on the host.
 *
 * Usage: test_rng_kat_host [PATH/rng_kat_vectors.txt]
 * Exits 0 when every vector and property holds, 1 (printing both values)
 * otherwise. */
#include "kat_body.h"

#ifndef MCT_KAT_DEFAULT_VECTORS
#define MCT_KAT_DEFAULT_VECTORS "rng_kat_vectors.txt"
#endif

static void eval_host(const mct_kat_vec_t* in, mct_kat_out_t* out, int n, void* ctx)
{
    int i;
    (void)ctx;
    for (i = 0; i < n; ++i) mct_kat_eval_one(&in[i], &out[i]);
}

static mct_kat_set_t g_set; /* large: keep it off the stack */

int main(int argc, char** argv)
{
    const char* path = argc > 1 ? argv[1] : MCT_KAT_DEFAULT_VECTORS;
    int failed;
    ASSERT_EQ_I64(mct_kat_parse(path, &g_set), 0);
    mct_kat_check(&g_set, eval_host, NULL, "host");
    failed = mct_kat_properties();
    ASSERT_EQ_I64(failed, 0);
    printf("[host] properties hold\n");
    return 0;
}
