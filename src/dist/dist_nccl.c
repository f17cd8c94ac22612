/* SPDX-License-Identifier: BSD-3-Clause */
/** @file dist_nccl.c  The NCCL transport of libmctally_mpi: float bins summed
 * over the ranks' GPUs with ncclAllReduce, in the tally's own storage, before
 * the batch is staged to the host. The NCCL communicator is made from the MPI
 * one (the unique id is broadcast by rank 0). Without MCTALLY_NCCL every call
 * answers that NCCL cannot serve, and the host transport is used. */
#include <stdlib.h>
#include <string.h>

#include "dist_internal.h"

#if MCT_HAVE_NCCL
#include <cuda_runtime.h>
#include <nccl.h>

typedef struct {
    ncclComm_t comm;
} nccl_state_t;

int mct__dist_nccl_eligible(const mct_batch_t* s) {
    return s->backend == MCT_BACKEND_CUDA && s->kind == MCT_BATCH_FLOAT &&
           (s->dtype == MCT_DTYPE_F32 || s->dtype == MCT_DTYPE_F64) && s->method != MCT_METHOD_KAHAN &&
           s->method != MCT_METHOD_KAHAN_NAIVE;
}

mct_status_t mct__dist_nccl_distinct(MPI_Comm comm, int device, int* distinct) {
    int size = 0;
    if (MPI_Comm_size(comm, &size) != MPI_SUCCESS) return MCT_STATUS_COMM_ERROR;
    unsigned char mine[16] = {0};
    struct cudaDeviceProp prop;
    /* A rank that cannot read its UUID sends zeros, which match each other
     * and so count as a shared GPU: NCCL is then not used. */
    if (cudaGetDeviceProperties(&prop, device) == cudaSuccess) memcpy(mine, prop.uuid.bytes, sizeof mine);
    cudaGetLastError();
    unsigned char* all = malloc((size_t)size * sizeof mine);
    const int ok = all != NULL;
    int all_ok = ok;
    /* Every rank takes part in the same collectives, also one that could not
     * allocate. */
    if (MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, comm) != MPI_SUCCESS) {
        free(all);
        return MCT_STATUS_COMM_ERROR;
    }
    if (!all_ok) {
        free(all);
        return ok ? MCT_STATUS_PEER_FAILED : MCT_STATUS_OUT_OF_MEMORY;
    }
    if (MPI_Allgather(mine, sizeof mine, MPI_BYTE, all, sizeof mine, MPI_BYTE, comm) != MPI_SUCCESS) {
        free(all);
        return MCT_STATUS_COMM_ERROR;
    }
    *distinct = 1;
    for (int i = 0; i < size && *distinct; ++i)
        for (int j = i + 1; j < size; ++j)
            if (!memcmp(all + 16 * (size_t)i, all + 16 * (size_t)j, 16)) {
                *distinct = 0;
                break;
            }
    free(all);
    return MCT_STATUS_SUCCESS;
}

mct_status_t mct__dist_nccl_init(void** state, MPI_Comm comm, int rank, int size, int device) {
    *state = NULL;
    /* Rank 0's id and whether it has one travel together: no rank enters
     * ncclCommInitRank with an id that was never made. */
    struct {
        int ok;
        ncclUniqueId id;
    } msg;
    memset(&msg, 0, sizeof msg);
    if (rank == 0) msg.ok = ncclGetUniqueId(&msg.id) == ncclSuccess;
    if (MPI_Bcast(&msg, (int)sizeof msg, MPI_BYTE, 0, comm) != MPI_SUCCESS) return MCT_STATUS_COMM_ERROR;
    if (!msg.ok) return MCT_STATUS_COMM_ERROR;
    nccl_state_t* s = calloc(1, sizeof *s);
    if (!s) return MCT_STATUS_OUT_OF_MEMORY;
    if (device >= 0 && cudaSetDevice(device) != cudaSuccess) {
        cudaGetLastError();
        free(s);
        return MCT_STATUS_CUDA_ERROR;
    }
    if (ncclCommInitRank(&s->comm, size, msg.id, rank) != ncclSuccess) {
        free(s);
        return MCT_STATUS_COMM_ERROR;
    }
    *state = s;
    return MCT_STATUS_SUCCESS;
}

mct_status_t mct__dist_nccl_reduce(void* state, mct_batch_t* b) {
    nccl_state_t* s = state;
    cudaStream_t stream = (cudaStream_t)b->stream;
    if (b->device >= 0 && cudaSetDevice(b->device) != cudaSuccess) return MCT_STATUS_CUDA_ERROR;
    const ncclDataType_t type = b->dtype == MCT_DTYPE_F32 ? ncclFloat32 : ncclFloat64;
    int ok = ncclGroupStart() == ncclSuccess;
    ok = ok && ncclAllReduce(b->device_bins, b->device_bins, (size_t)b->bins, type, ncclSum, s->comm, stream) == ncclSuccess;
    if (ok && b->device_shadow)
        ok = ncclAllReduce(b->device_shadow, b->device_shadow, (size_t)b->shadow_words, ncclFloat64, ncclSum, s->comm,
                           stream) == ncclSuccess;
    ok = ncclGroupEnd() == ncclSuccess && ok;
    if (!ok) return MCT_STATUS_COMM_ERROR;
    return cudaStreamSynchronize(stream) == cudaSuccess ? MCT_STATUS_SUCCESS : MCT_STATUS_CUDA_ERROR;
}

void mct__dist_nccl_free(void* state) {
    nccl_state_t* s = state;
    if (!s) return;
    ncclCommDestroy(s->comm);
    free(s);
}

#else

int mct__dist_nccl_eligible(const mct_batch_t* s) {
    (void)s;
    return 0;
}

mct_status_t mct__dist_nccl_distinct(MPI_Comm comm, int device, int* distinct) {
    (void)comm, (void)device;
    *distinct = 0;
    return MCT_STATUS_SUCCESS;
}

mct_status_t mct__dist_nccl_init(void** state, MPI_Comm comm, int rank, int size, int device) {
    (void)comm, (void)rank, (void)size, (void)device;
    *state = NULL;
    return MCT_STATUS_NOT_SUPPORTED;
}

mct_status_t mct__dist_nccl_reduce(void* state, mct_batch_t* batch) {
    (void)state, (void)batch;
    return MCT_STATUS_NOT_SUPPORTED;
}

void mct__dist_nccl_free(void* state) { (void)state; }

#endif
