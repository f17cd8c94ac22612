/* SPDX-License-Identifier: BSD-3-Clause */
/** @file consumer_mpi.c  A program built against an installed libmctally_mpi. */
#include <mctally/mct_dist.h>
#include <stdio.h>

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    mct_tally_desc_t d;
    mct_tally_desc_init(&d);
    d.backend = MCT_BACKEND_CPU;
    d.method = MCT_METHOD_FIXED;
    mct_tally_t t;
    mct_dist_desc_t dd;
    mct_dist_desc_init(&dd);
    mct_dist_t dist;
    int rc = mct_tally_create(&t, &d) != MCT_STATUS_SUCCESS || mct_dist_create(&dist, t, &dd) != MCT_STATUS_SUCCESS;
    const uint32_t key = 0;
    const double one = 1.0;
    double sum = 0.0;
    if (!rc)
        rc = mct_tally_add(t, &key, &one, 1) || mct_dist_end_batch(dist, 1, MCT_STATUS_SUCCESS) ||
             mct_tally_sums(t, &sum) || sum != 1.0;
    if (!rc) mct_dist_destroy(dist), mct_tally_destroy(t);
    if (!rc) printf("mctally_mpi %s\n", mct_dist_transport_name(MCT_DIST_HOST));
    MPI_Finalize();
    return rc;
}
