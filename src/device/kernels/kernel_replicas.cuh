/* SPDX-License-Identifier: BSD-3-Clause */
/** @file kernel_replicas.cuh  Reduction of R replicas of B bins into the bins, in
 * an order fixed by (R, B) so float results are identical run to run. Integer
 * sums are checked (mct_checked_plus_local): an add out of the type's range
 * raises MCT_TALLY_FLAG_OVERFLOW in `flags`, once per thread at its end. */
#ifndef MCT_KERNEL_REPLICAS_CUH
#define MCT_KERNEL_REPLICAS_CUH

#include "mctally/device/block/block_reduce.cuh"
#include "mctally/device/thread/thread_checked.cuh"

#define MCT_REPLICA_THREADS 256

/** Many bins: one thread per bin walks its column of replicas; neighbouring
 * threads read neighbouring bins, so each row is read coalesced. */
template <typename T>
static __global__ void mct_kernel_replicas_by_column(T* bins, const T* replicas, int64_t nbins, int64_t nreplicas,
                                                     unsigned int* flags) {
    int overflow = 0;
    const mct_checked_plus_local op{&overflow};
    for (int64_t k = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; k < nbins; k += (int64_t)gridDim.x * blockDim.x) {
        T s = bins[k];
        for (int64_t r = 0; r < nreplicas; ++r) s = op(s, replicas[r * nbins + k]);
        bins[k] = s;
    }
    if (overflow) mct_tally_raise(flags, MCT_TALLY_FLAG_OVERFLOW);
}

/** Few bins, many replicas: block p reduces rows [p*rows, (p+1)*rows) of every
 * bin into partial[p*nbins + k]; mct_kernel_replicas_rows then adds them up. */
template <typename T>
static __global__ void mct_kernel_replicas_partial(T* partial, const T* replicas, int64_t nbins, int64_t nreplicas,
                                            int64_t rows, unsigned int* flags) {
    __shared__ mct_block_reduce_storage<T> storage;
    int overflow = 0;
    const mct_checked_plus_local op{&overflow};
    const int64_t first = (int64_t)blockIdx.x * rows;
    const int64_t last = first + rows < nreplicas ? first + rows : nreplicas;
    for (int64_t k = 0; k < nbins; ++k) {
        T s = T(0);
        for (int64_t r = first + threadIdx.x; r < last; r += blockDim.x) s = op(s, replicas[r * nbins + k]);
        s = mct_block_reduce_sum(s, storage, op);
        if (threadIdx.x == 0) partial[blockIdx.x * nbins + k] = s;
    }
    if (overflow) mct_tally_raise(flags, MCT_TALLY_FLAG_OVERFLOW);
}

/** The partial sums into the bins: block k reduces the `parts` partials of bin
 * k (partial[r*nbins + k]) in a fixed order and adds the sum into the bin, so
 * that a bin's partials are read by a whole block, not walked by one thread. */
template <typename T>
static __global__ void mct_kernel_replicas_rows(T* bins, const T* partial, int64_t nbins, int64_t parts,
                                                unsigned int* flags) {
    __shared__ mct_block_reduce_storage<T> storage;
    int overflow = 0;
    const mct_checked_plus_local op{&overflow};
    for (int64_t k = blockIdx.x; k < nbins; k += gridDim.x) {
        T s = T(0);
        for (int64_t r = threadIdx.x; r < parts; r += blockDim.x) s = op(s, partial[r * nbins + k]);
        s = mct_block_reduce_sum(s, storage, op);
        if (threadIdx.x == 0) bins[k] = op(bins[k], s);
    }
    if (overflow) mct_tally_raise(flags, MCT_TALLY_FLAG_OVERFLOW);
}

#endif /* MCT_KERNEL_REPLICAS_CUH */
