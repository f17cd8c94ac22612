/* SPDX-License-Identifier: BSD-3-Clause */
/** @file consumer.c  A program built against an installed mctally. */
#include <mctally/mct.h>
#include <stdio.h>

int main(void) {
    mct_tally_desc_t d;
    mct_tally_desc_init(&d);
    d.backend = MCT_BACKEND_CPU;
    mct_tally_t t;
    if (mct_tally_create(&t, &d) != MCT_STATUS_SUCCESS) return 1;
    mct_tally_destroy(t);
    printf("mctally %s\n", mct_version());
    return 0;
}
