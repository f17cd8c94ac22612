/* SPDX-License-Identifier: BSD-3-Clause */
/** @file cli_ranks.c  The ranks of `mctally run` under mpirun (cli.h's
 * mct_cli_ranks_t): MPI is started only when an MPI launcher started this
 * process, and the problems see the ranks through sim_ranks.h, implemented
 * here over libmctally_mpi. A build without MPI (MCTALLY_MPI off, or MPI not
 * found) refuses to run as one of several ranks instead of running the whole
 * problem on each of them. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

/* The launchers' variables: Open MPI, PMI (MPICH, Intel MPI, Slurm's srun),
 * PMIx. */
static int launcher_size(void) {
    static const char* const vars[] = {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_SIZE"};
    for (size_t i = 0; i < sizeof vars / sizeof *vars; ++i) {
        const char* v = getenv(vars[i]);
        if (v && *v) return atoi(v) > 0 ? atoi(v) : 1;
    }
    return getenv("PMIX_RANK") || getenv("PMI_RANK") ? 1 : 0;
}

#if MCT_HAVE_MPI
#include <mpi.h>

#include "mctally/mct_dist.h"

typedef struct {
    mct_cli_ranks_t pub;
    mct_sim_ranks_t sim;
    mct_dist_t dist;
    int failed_rank;
    mct_status_t failed_status;
} ranks_impl_t;

static ranks_impl_t* impl(const mct_cli_ranks_t* r) { return r->impl; }

static mct_status_t agree(mct_cli_ranks_t* r, mct_status_t local) {
    ranks_impl_t* m = impl(r);
    int rank = -1;
    mct_status_t status = MCT_STATUS_SUCCESS;
    const mct_status_t st = mct_dist_agree(MPI_COMM_WORLD, local, &rank, &status);
    if (rank >= 0) m->failed_rank = rank, m->failed_status = status;
    return st;
}

static mct_status_t broadcast(mct_cli_ranks_t* r, int64_t* value) {
    (void)r;
    return MPI_Bcast(value, 1, MPI_INT64_T, 0, MPI_COMM_WORLD) == MPI_SUCCESS ? MCT_STATUS_SUCCESS
                                                                              : MCT_STATUS_COMM_ERROR;
}

/* ---- mct_sim_ranks_t over the distributed tally ---- */

static mct_status_t sim_end_batch(void* ctx, mct_tally_t tally, int64_t histories, mct_status_t local) {
    ranks_impl_t* m = ctx;
    (void)tally;
    const mct_status_t st = mct_dist_end_batch(m->dist, histories, local);
    if (st == MCT_STATUS_PEER_FAILED) mct_dist_failure(m->dist, &m->failed_rank, &m->failed_status);
    return st;
}

static mct_status_t sim_agree(void* ctx, mct_status_t local) { return agree(&((ranks_impl_t*)ctx)->pub, local); }

static mct_status_t sim_combine(void* x, int64_t n, MPI_Datatype type, sim_ranks_op_t op) {
    if (n > 1 << 30) return MCT_STATUS_INVALID_VALUE;
    const MPI_Op mop = op == SIM_RANKS_SUM ? MPI_SUM : op == SIM_RANKS_MAX ? MPI_MAX : MPI_BXOR;
    if (op == SIM_RANKS_XOR && type == MPI_DOUBLE) return MCT_STATUS_INVALID_VALUE;
    return MPI_Allreduce(MPI_IN_PLACE, x, (int)n, type, mop, MPI_COMM_WORLD) == MPI_SUCCESS
               ? MCT_STATUS_SUCCESS
               : MCT_STATUS_COMM_ERROR;
}

static mct_status_t sim_combine_f64(void* ctx, double* x, int64_t n, sim_ranks_op_t op) {
    (void)ctx;
    return sim_combine(x, n, MPI_DOUBLE, op);
}

static mct_status_t sim_combine_u64(void* ctx, uint64_t* x, int64_t n, sim_ranks_op_t op) {
    (void)ctx;
    return sim_combine(x, n, MPI_UINT64_T, op);
}

static mct_status_t attach(mct_cli_ranks_t* r, mct_tally_t tally, int transport) {
    ranks_impl_t* m = impl(r);
    mct_dist_desc_t desc;
    mct_dist_desc_init(&desc);
    desc.transport = (mct_dist_transport_t)transport;
    const mct_status_t st = mct_dist_create(&m->dist, tally, &desc);
    if (!st) r->sim = &m->sim;
    return st;
}

static mct_status_t report(mct_cli_ranks_t* r, mct_determinism_t* det, const char** transport, double* agree_s,
                           double* reduce_s, double* bytes) {
    ranks_impl_t* m = impl(r);
    mct_dist_info_t info;
    mct_status_t st = mct_dist_determinism(m->dist, det);
    if (!st) st = mct_dist_info(m->dist, &info);
    if (st) return st;
    /* The slowest rank's times: what the run waited for. */
    double t[2] = {info.agree_seconds, info.reduce_seconds};
    if (MPI_Allreduce(MPI_IN_PLACE, t, 2, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD) != MPI_SUCCESS)
        return MCT_STATUS_COMM_ERROR;
    *transport = mct_dist_transport_name(info.transport);
    *agree_s = t[0];
    *reduce_s = t[1];
    *bytes = info.reduced_bytes;
    return MCT_STATUS_SUCCESS;
}

static void failure(const mct_cli_ranks_t* r, int* rank, mct_status_t* status) {
    *rank = impl(r)->failed_rank;
    *status = impl(r)->failed_status;
}

static void abort_all(mct_cli_ranks_t* r, int code) {
    (void)r;
    fflush(stdout);
    fflush(stderr);
    MPI_Abort(MPI_COMM_WORLD, code);
}

int mct_cli_ranks_start(int* argc, char*** argv, mct_cli_ranks_t** out) {
    *out = NULL;
    if (!launcher_size()) return 0;
    if (MPI_Init(argc, argv) != MPI_SUCCESS) return mct_cli_error("run: MPI_Init failed");
    ranks_impl_t* m = calloc(1, sizeof *m);
    if (!m) {
        mct_cli_error("out of memory");
        MPI_Abort(MPI_COMM_WORLD, 1);
        return 1;
    }
    mct_cli_ranks_t* r = &m->pub;
    MPI_Comm_rank(MPI_COMM_WORLD, &r->rank);
    MPI_Comm_size(MPI_COMM_WORLD, &r->size);
    MPI_Comm node;
    if (MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, r->rank, MPI_INFO_NULL, &node) == MPI_SUCCESS) {
        MPI_Comm_rank(node, &r->local_rank);
        MPI_Comm_free(&node);
    }
    r->agree = agree;
    r->broadcast = broadcast;
    r->attach = attach;
    r->report = report;
    r->failure = failure;
    r->abort = abort_all;
    r->impl = m;
    m->failed_rank = -1;
    m->sim = (mct_sim_ranks_t){r->rank, r->size, sim_end_batch, sim_agree, sim_combine_f64, sim_combine_u64, m};
    *out = r;
    return 0;
}

void mct_cli_ranks_stop(mct_cli_ranks_t* r) {
    if (!r) return;
    ranks_impl_t* m = impl(r);
    mct_dist_destroy(m->dist);
    free(m);
    MPI_Finalize();
}

#else

int mct_cli_ranks_start(int* argc, char*** argv, mct_cli_ranks_t** out) {
    (void)argc, (void)argv;
    *out = NULL;
    const int n = launcher_size();
    if (n > 1)
        return mct_cli_error("run: started as one of %d MPI ranks, but this mctally was built without MPI "
                             "(configure with MPI installed, MCTALLY_MPI=ON); each rank would run the whole problem",
                             n);
    return 0;
}

void mct_cli_ranks_stop(mct_cli_ranks_t* r) { (void)r; }

#endif
