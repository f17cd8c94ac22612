/* SPDX-License-Identifier: BSD-3-Clause */
/** @file dist.c  libmctally_mpi: a tally's batches combined over the ranks of
 * an MPI communicator (mct_dist.h), as a combiner of mct_combine.h. The
 * agreement is one MPI_Allreduce of a small header with an operator of ours;
 * the bins are summed by a second one (exact values with a checked operator,
 * doubles with MPI_SUM), or on the GPUs through NCCL (dist_nccl.c). */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "dist_internal.h"

/* The agreement's header: int64 fields combined by header_op. */
enum {
    H_FAILS,        /* ranks that failed (sum) */
    H_FAILED_RANK,  /* the lowest failing rank (min; INT64_MAX: none) */
    H_FAILED_STATUS, /* its status */
    H_FLAGS,        /* MCT_TALLY_FLAG_* (or) */
    H_HISTORIES,    /* sum, -1 once it passes INT64_MAX */
    H_SHAPE_MIN,    /* the shape's hash (min and max: equal when all are) */
    H_SHAPE_MAX,
    H_NCCL_OK,      /* every rank can reduce through NCCL (min) */
    H_WORDS
};

struct mct_dist_s {
    MPI_Comm comm;
    int rank, size;
    mct_tally_t tally;
    mct_batch_t shape;
    mct_dist_transport_t transport;
    MPI_Datatype header_type;
    MPI_Op header_op, exact_op;
    void* nccl;             /* dist_nccl.c's communicator, NULL on HOST */
    mct_status_t pending;   /* this rank's failure, handed to the next agreement */
    int agreed;             /* the current batch passed its agreement */
    int combined;           /* the current batch's bins were summed */
    int failed_rank;
    mct_status_t failed_status;
    int64_t batches;
    double agree_seconds, reduce_seconds, reduced_bytes;
};

static void header_op(void* in, void* inout, int* len, MPI_Datatype* type) {
    (void)type;
    const int64_t* a = in;
    int64_t* b = inout;
    for (int i = 0; i < *len; ++i, a += H_WORDS, b += H_WORDS) {
        b[H_FAILS] += a[H_FAILS];
        if (a[H_FAILED_RANK] < b[H_FAILED_RANK]) {
            b[H_FAILED_RANK] = a[H_FAILED_RANK];
            b[H_FAILED_STATUS] = a[H_FAILED_STATUS];
        }
        b[H_FLAGS] |= a[H_FLAGS];
        int64_t h;
        if (a[H_HISTORIES] < 0 || b[H_HISTORIES] < 0 || __builtin_add_overflow(a[H_HISTORIES], b[H_HISTORIES], &h))
            h = -1;
        b[H_HISTORIES] = h;
        if (a[H_SHAPE_MIN] < b[H_SHAPE_MIN]) b[H_SHAPE_MIN] = a[H_SHAPE_MIN];
        if (a[H_SHAPE_MAX] > b[H_SHAPE_MAX]) b[H_SHAPE_MAX] = a[H_SHAPE_MAX];
        if (a[H_NCCL_OK] < b[H_NCCL_OK]) b[H_NCCL_OK] = a[H_NCCL_OK];
    }
}

/* Exact batch values: mct_batch_exact_add, element by element. */
static void exact_op(void* in, void* inout, int* len, MPI_Datatype* type) {
    (void)type;
    const int64_t* a = in;
    int64_t* b = inout;
    for (int i = 0; i < *len; ++i) b[i] = mct_batch_exact_add(a[i], b[i]);
}

/* The header's type and operator (created per handle, or for one agreement). */
static int make_header_ops(MPI_Datatype* type, MPI_Op* op) {
    if (MPI_Type_contiguous(H_WORDS, MPI_INT64_T, type) != MPI_SUCCESS) return 0;
    if (MPI_Type_commit(type) != MPI_SUCCESS || MPI_Op_create(header_op, 1, op) != MPI_SUCCESS) {
        MPI_Type_free(type);
        return 0;
    }
    return 1;
}

static void header_init(int64_t* h, int rank, mct_status_t local) {
    memset(h, 0, H_WORDS * sizeof *h);
    h[H_FAILS] = local != MCT_STATUS_SUCCESS;
    h[H_FAILED_RANK] = local != MCT_STATUS_SUCCESS ? rank : INT64_MAX;
    h[H_FAILED_STATUS] = local;
    h[H_NCCL_OK] = 1;
}

/* The combined header's verdict for this rank: its own failure, PEER_FAILED
 * for another's, else SUCCESS; the failing rank and status for messages. */
static mct_status_t verdict(const int64_t* h, int rank, mct_status_t local, int* failed_rank, mct_status_t* failed_status) {
    const int failed = h[H_FAILS] > 0;
    if (failed_rank) *failed_rank = failed ? (int)h[H_FAILED_RANK] : -1;
    if (failed_status) *failed_status = failed ? (mct_status_t)h[H_FAILED_STATUS] : MCT_STATUS_SUCCESS;
    if (!failed) return MCT_STATUS_SUCCESS;
    (void)rank;
    return local != MCT_STATUS_SUCCESS ? local : MCT_STATUS_PEER_FAILED;
}

mct_status_t mct_dist_agree(MPI_Comm comm, mct_status_t local, int* failed_rank, mct_status_t* failed_status) {
    int rank = 0;
    MPI_Datatype type;
    MPI_Op op;
    if (MPI_Comm_rank(comm, &rank) != MPI_SUCCESS || !make_header_ops(&type, &op)) return MCT_STATUS_COMM_ERROR;
    int64_t h[H_WORDS];
    header_init(h, rank, local);
    const int rc = MPI_Allreduce(MPI_IN_PLACE, h, 1, type, op, comm);
    MPI_Op_free(&op);
    MPI_Type_free(&type);
    if (rc != MPI_SUCCESS) return MCT_STATUS_COMM_ERROR;
    return verdict(h, rank, local, failed_rank, failed_status);
}

/* One agreement of the handle: the header combined in place. */
static mct_status_t allreduce_header(mct_dist_t d, int64_t* h) {
    return MPI_Allreduce(MPI_IN_PLACE, h, 1, d->header_type, d->header_op, d->comm) == MPI_SUCCESS
               ? MCT_STATUS_SUCCESS
               : MCT_STATUS_COMM_ERROR;
}

/* FNV-1a 64 of what the combination needs to be the same on every rank. */
static int64_t shape_hash(const mct_batch_t* s) {
    const int64_t fields[7] = {s->bins, s->dtype, s->kind, s->fixed_frac_bits, s->exact_min, s->exact_max, s->shadow_words};
    uint64_t h = UINT64_C(0xcbf29ce484222325);
    const unsigned char* p = (const unsigned char*)fields;
    for (size_t i = 0; i < sizeof fields; ++i) h = (h ^ p[i]) * UINT64_C(0x100000001b3);
    return (int64_t)(h >> 1); /* non-negative: min and max compare as integers */
}

/* A sum over the ranks of n elements in place, in calls of at most 2^28 (MPI
 * counts are int). */
static mct_status_t allreduce_array(mct_dist_t d, void* data, int64_t n, MPI_Datatype type, size_t size, MPI_Op op) {
    const int64_t step = INT64_C(1) << 28;
    for (int64_t done = 0; done < n; done += step) {
        const int count = (int)(n - done < step ? n - done : step);
        if (MPI_Allreduce(MPI_IN_PLACE, (char*)data + (size_t)done * size, count, type, op, d->comm) != MPI_SUCCESS)
            return MCT_STATUS_COMM_ERROR;
    }
    d->reduced_bytes += (double)n * (double)size;
    return MCT_STATUS_SUCCESS;
}

/* ---- The combiner ---------------------------------------------------------- */

static mct_status_t cb_agree(void* ctx, mct_batch_t* b) {
    mct_dist_t d = ctx;
    const double t0 = MPI_Wtime();
    const mct_status_t local = b->status ? b->status : d->pending;
    int64_t h[H_WORDS];
    header_init(h, d->rank, local);
    h[H_FLAGS] = b->flags;
    h[H_HISTORIES] = b->histories;
    mct_status_t st = allreduce_header(d, h);
    d->agree_seconds += MPI_Wtime() - t0;
    if (st) return st;
    int rank;
    mct_status_t status;
    b->status = verdict(h, d->rank, local, &rank, &status);
    if (b->status) {
        d->failed_rank = rank;
        d->failed_status = status;
        return b->status;
    }
    b->flags = (unsigned)h[H_FLAGS];
    b->histories = h[H_HISTORIES];
    d->agreed = 1;
    return MCT_STATUS_SUCCESS;
}

static mct_status_t cb_reduce_host(void* ctx, mct_batch_t* b) {
    mct_dist_t d = ctx;
    const double t0 = MPI_Wtime();
    d->combined = 1;
    mct_status_t st = b->kind == MCT_BATCH_EXACT
                          ? allreduce_array(d, b->exact, b->bins, MPI_INT64_T, sizeof(int64_t), d->exact_op)
                          : allreduce_array(d, b->values, b->bins, MPI_DOUBLE, sizeof(double), MPI_SUM);
    if (!st && b->shadow) st = allreduce_array(d, b->shadow, b->shadow_words, MPI_DOUBLE, sizeof(double), MPI_SUM);
    d->reduce_seconds += MPI_Wtime() - t0;
    return st;
}

static mct_status_t cb_reduce_device(void* ctx, mct_batch_t* b, int* reduced) {
    mct_dist_t d = ctx;
    const double t0 = MPI_Wtime();
    d->combined = 1;
    mct_status_t st = mct__dist_nccl_reduce(d->nccl, b);
    *reduced = st == MCT_STATUS_SUCCESS;
    d->reduced_bytes += (double)b->bins * (double)mct_method_storage_size(b->method, b->dtype) +
                        (double)b->shadow_words * sizeof(double);
    d->reduce_seconds += MPI_Wtime() - t0;
    return st;
}

/* ---- The handle ------------------------------------------------------------ */

void mct_dist_desc_init(mct_dist_desc_t* desc) {
    if (!desc) return;
    desc->comm = MPI_COMM_WORLD;
    desc->transport = MCT_DIST_AUTO;
}

const char* mct_dist_transport_name(mct_dist_transport_t t) {
    switch (t) {
    case MCT_DIST_AUTO: return "auto";
    case MCT_DIST_HOST: return "host";
    case MCT_DIST_NCCL: return "nccl";
    default: return "invalid";
    }
}

int mct_dist_have_nccl(void) { return MCT_HAVE_NCCL; }

void mct_dist_destroy(mct_dist_t d) {
    if (!d) return;
    mct__dist_nccl_free(d->nccl);
    if (d->header_op != MPI_OP_NULL) MPI_Op_free(&d->header_op);
    if (d->exact_op != MPI_OP_NULL) MPI_Op_free(&d->exact_op);
    if (d->header_type != MPI_DATATYPE_NULL) MPI_Type_free(&d->header_type);
    if (d->comm != MPI_COMM_NULL) MPI_Comm_free(&d->comm);
    free(d);
}

/* The transport the agreed header allows; NOT_SUPPORTED for NCCL asked for
 * where it cannot serve (the same answer on every rank). */
static mct_status_t pick_transport(mct_dist_t d, mct_dist_transport_t want, int all_nccl) {
    d->transport = MCT_DIST_HOST;
    if (want == MCT_DIST_HOST || (want == MCT_DIST_AUTO && (!all_nccl || d->shape.bins < MCT__DIST_NCCL_AUTO_MIN_BINS)))
        return MCT_STATUS_SUCCESS;
    if (!all_nccl) return MCT_STATUS_NOT_SUPPORTED;
    /* NCCL needs every rank on its own GPU. */
    int distinct = 0;
    mct_status_t st = mct__dist_nccl_distinct(d->comm, d->shape.device, &distinct);
    if (st) return st;
    if (!distinct) return want == MCT_DIST_NCCL ? MCT_STATUS_NOT_SUPPORTED : MCT_STATUS_SUCCESS;
    st = mct__dist_nccl_init(&d->nccl, d->comm, d->rank, d->size, d->shape.device);
    st = mct_dist_agree(d->comm, st, NULL, NULL);
    if (!st) {
        d->transport = MCT_DIST_NCCL;
        return MCT_STATUS_SUCCESS;
    }
    /* AUTO goes on through the host when NCCL does not start (on any rank). */
    mct__dist_nccl_free(d->nccl);
    d->nccl = NULL;
    return want == MCT_DIST_AUTO ? MCT_STATUS_SUCCESS : st;
}

mct_status_t mct_dist_create(mct_dist_t* out, mct_tally_t tally, const mct_dist_desc_t* desc) {
    if (!out || !desc) return MCT_STATUS_NULL_POINTER;
    *out = NULL;
    int initialized = 0, rank = 0;
    if (MPI_Initialized(&initialized) != MPI_SUCCESS || !initialized) return MCT_STATUS_INVALID_STATE;
    if ((unsigned)desc->transport > MCT_DIST_NCCL) return MCT_STATUS_INVALID_VALUE;
    if (MPI_Comm_rank(desc->comm, &rank) != MPI_SUCCESS) return MCT_STATUS_COMM_ERROR;
    /* The first collective is the agreement, so that a rank failing here
     * (memory, a NULL tally) is heard of instead of waited for. */
    mct_dist_t d = calloc(1, sizeof *d);
    mct_status_t local = !d ? MCT_STATUS_OUT_OF_MEMORY : !tally ? MCT_STATUS_NULL_POINTER : MCT_STATUS_SUCCESS;
    if (d) {
        d->comm = MPI_COMM_NULL;
        d->header_type = MPI_DATATYPE_NULL;
        d->header_op = d->exact_op = MPI_OP_NULL;
        d->failed_rank = -1;
        d->rank = rank;
        d->tally = tally;
    }
    if (!local) local = mct_tally_batch_shape(tally, &d->shape);
    MPI_Datatype type;
    MPI_Op op;
    if (!make_header_ops(&type, &op)) {
        free(d);
        return MCT_STATUS_COMM_ERROR;
    }
    int64_t h[H_WORDS];
    header_init(h, rank, local);
    h[H_SHAPE_MIN] = h[H_SHAPE_MAX] = local ? 0 : shape_hash(&d->shape);
    h[H_NCCL_OK] = !local && mct__dist_nccl_eligible(&d->shape);
    const int rc = MPI_Allreduce(MPI_IN_PLACE, h, 1, type, op, desc->comm);
    MPI_Op_free(&op);
    MPI_Type_free(&type);
    mct_status_t st = rc == MPI_SUCCESS ? verdict(h, rank, local, NULL, NULL) : MCT_STATUS_COMM_ERROR;
    if (!st && h[H_SHAPE_MIN] != h[H_SHAPE_MAX]) st = MCT_STATUS_SHAPE_MISMATCH;
    if (st) {
        free(d);
        return st;
    }
    /* The same steps on every rank from here; MPI's own failures are fatal
     * unless the communicator returns them. */
    if (MPI_Comm_dup(desc->comm, &d->comm) != MPI_SUCCESS || MPI_Comm_size(d->comm, &d->size) != MPI_SUCCESS ||
        !make_header_ops(&d->header_type, &d->header_op) || MPI_Op_create(exact_op, 1, &d->exact_op) != MPI_SUCCESS)
        st = MCT_STATUS_COMM_ERROR;
    if (!st) st = pick_transport(d, desc->transport, (int)h[H_NCCL_OK]);
    if (st) {
        mct_dist_destroy(d);
        return st;
    }
    *out = d;
    return MCT_STATUS_SUCCESS;
}

mct_status_t mct_dist_end_batch(mct_dist_t d, int64_t histories, mct_status_t local) {
    if (!d) return MCT_STATUS_NULL_POINTER;
    /* A bad count is this rank's failure, which its peers must hear of. */
    if (histories < 0 && !local) local = MCT_STATUS_INVALID_VALUE;
    if (histories < 0) histories = 0;
    d->pending = local;
    d->agreed = d->combined = 0;
    const mct_batch_combiner_t c = {d, cb_agree, d->transport == MCT_DIST_NCCL ? cb_reduce_device : NULL,
                                    cb_reduce_host};
    mct_status_t st = mct_tally_end_batch_combined(d->tally, histories, &c);
    d->pending = MCT_STATUS_SUCCESS;
    if (local && !st) st = local;
    if (d->combined) d->batches += 1;
    /* After the agreement every rank went on alone: a rank can still fail
     * (staging its batch), and float sums are equal on every rank as MPI and
     * NCCL compute them but no standard promises it. The ranks agree on how
     * the batch ended, so that none stops while the others go on: a status
     * they share (the combined batch's OVERFLOW, ...) stays, a rank that
     * ended well learns of another's failure as PEER_FAILED. */
    if (d->agreed) {
        int64_t h[H_WORDS];
        header_init(h, d->rank, st);
        const mct_status_t ast = allreduce_header(d, h);
        if (ast) return ast;
        if (h[H_FAILS] > 0 && st == MCT_STATUS_SUCCESS) {
            d->failed_rank = (int)h[H_FAILED_RANK];
            d->failed_status = (mct_status_t)h[H_FAILED_STATUS];
            st = MCT_STATUS_PEER_FAILED;
        }
    }
    return st;
}

mct_status_t mct_dist_failure(mct_dist_t d, int* rank, mct_status_t* status) {
    if (!d) return MCT_STATUS_NULL_POINTER;
    if (rank) *rank = d->failed_rank;
    if (status) *status = d->failed_status;
    return MCT_STATUS_SUCCESS;
}

mct_status_t mct_dist_info(mct_dist_t d, mct_dist_info_t* info) {
    if (!d || !info) return MCT_STATUS_NULL_POINTER;
    info->rank = d->rank;
    info->size = d->size;
    info->transport = d->transport;
    info->batches = d->batches;
    info->agree_seconds = d->agree_seconds;
    info->reduce_seconds = d->reduce_seconds;
    info->reduced_bytes = d->reduced_bytes;
    return MCT_STATUS_SUCCESS;
}

mct_status_t mct_dist_determinism(mct_dist_t d, mct_determinism_t* det) {
    if (!d || !det) return MCT_STATUS_NULL_POINTER;
    mct_determinism_t mine = MCT_NOT_GUARANTEED;
    mct_status_t st = mct_tally_determinism(d->tally, &mine);
    if (st) mine = MCT_NOT_GUARANTEED;
    if (d->shape.kind == MCT_BATCH_FLOAT && d->size > 1) mine = MCT_NOT_GUARANTEED;
    int v = (int)mine;
    if (MPI_Allreduce(MPI_IN_PLACE, &v, 1, MPI_INT, MPI_MIN, d->comm) != MPI_SUCCESS) return MCT_STATUS_COMM_ERROR;
    *det = (mct_determinism_t)v;
    return st;
}
