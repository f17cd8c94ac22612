/* SPDX-License-Identifier: BSD-3-Clause */
/** @file cli_methods.c  `mctally methods`: the method catalogue as a table. */
#include <stdio.h>
#include <string.h>

#include "cli.h"

int mct_cli_methods(int argc, char** argv) {
    for (int i = 0; i < argc; ++i) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            puts("usage: mctally methods\nLists every tally method: the value types it serves, the determinism it\n"
                 "gives for integer and float types, and the backends it runs on. Integer tallies never wrap, with\n"
                 "any method: a value that does not fit the type (3e9 into i32, a negative value into u64) is\n"
                 "dropped and reported as OVERFLOW (NaN and Inf as NONFINITE), and a sum past the type's range\n"
                 "is reported as OVERFLOW.");
            return 0;
        }
        return mct_cli_error("methods: unexpected argument '%s'", argv[i]);
    }
    printf("%-13s %-16s %-9s %-15s %-21s %s\n", "method", "types", "integers", "floats", "backends", "what it does");
    for (int m = 0; m < MCT_METHOD_COUNT; ++m) {
        char types[64] = "", backends[64] = "";
        for (int d = 0; d < MCT_DTYPE_COUNT; ++d)
            if (mct_method_supports((mct_method_t)m, (mct_dtype_t)d, MCT_BACKEND_CUDA) == MCT_STATUS_SUCCESS ||
                mct_method_supports((mct_method_t)m, (mct_dtype_t)d, MCT_BACKEND_CPU) == MCT_STATUS_SUCCESS)
                snprintf(types + strlen(types), sizeof types - strlen(types), "%s%s", types[0] ? "," : "",
                         mct_dtype_name((mct_dtype_t)d));
        for (int b = MCT_BACKEND_CPU; b < MCT_BACKEND_COUNT; ++b) {
            int any = 0;
            for (int d = 0; d < MCT_DTYPE_COUNT; ++d)
                any |= mct_method_supports((mct_method_t)m, (mct_dtype_t)d, (mct_backend_t)b) == MCT_STATUS_SUCCESS;
            if (any)
                snprintf(backends + strlen(backends), sizeof backends - strlen(backends), "%s%s", backends[0] ? "," : "",
                         mct_backend_name((mct_backend_t)b));
        }
        /* A column reads "-" for a method that serves no type of that kind. */
        const int ints = strstr(types, "i32") || strstr(types, "u64");
        printf("%-13s %-16s %-9s %-15s %-21s %s\n", mct_method_name((mct_method_t)m), types,
               ints ? mct_determinism_name(mct_method_determinism((mct_method_t)m, MCT_DTYPE_I32)) : "-",
               mct_determinism_name(mct_method_determinism((mct_method_t)m, MCT_DTYPE_F64)), backends,
               mct_method_summary((mct_method_t)m));
    }
    puts("\nIntegers (i32, u64): exact with every method, never wrapped: an input that does not fit the type\n"
         "(3e9 into i32; below -0.5 into u64) is dropped as OVERFLOW, NaN/Inf as NONFINITE, and any add or\n"
         "partial sum past the type's range is reported as OVERFLOW by mct_tally_end_batch.");
    return 0;
}
