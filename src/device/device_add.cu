/* SPDX-License-Identifier: BSD-3-Clause */
/** @file device_add.cu  Whole-array adds of the device backends and the
 * sort_reduce post-pass (see device_add.h). The same source builds the CUDA
 * backend (nvcc) and the emulated one (device_add_emulated.cpp); every helper
 * here is static so the two builds cannot collide in one library. */
#include <limits.h>
#include <stdint.h>

#include "device_add.h"
#include "device_check.cuh"
#include "device_scratch.cuh"
#include "kernels/kernel_add.cuh"
#include "mctally/device/mct_launch.cuh"

#if !MCT_IS_EMULATED
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_run_length_encode.cuh>
#include <cub/device/device_scan.cuh>
/* The run offsets use mctally's own device scan (mct_scan.h's engine), not CUB's. */
#include "mctally/device/scan/scan_dispatch.cuh"
#include "mctally/device/thread/thread_operators.cuh"
#include <cub/device/device_segmented_reduce.cuh>
#endif

#if MCT_IS_EMULATED
#define MCT__ADD_ARRAYS mct__emulated_add_arrays
#define MCT__SORT_REDUCE mct__emulated_sort_reduce
#else
#define MCT__ADD_ARRAYS mct__cuda_add_arrays
#define MCT__SORT_REDUCE mct__cuda_sort_reduce
#endif


/* One wave: as many blocks as can be resident at once (from the kernel's own
 * occupancy), fewer when n needs fewer; the grid-stride loop does the rest.
 * A block that lives for the whole add zeroes and flushes its shared copy
 * once, and no partial last wave idles SMs. (Fixed and integer results do
 * not depend on the grid; float methods other than sort_reduce do not
 * promise anything across launch shapes.) */
template <typename Kernel>
static unsigned add_grid(Kernel kernel, size_t smem, int64_t n) {
    int device = 0, sms = 1, per_sm = 1;
    if (cudaGetDevice(&device) != cudaSuccess ||
        cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device) != cudaSuccess || sms < 1 ||
        cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, MCT_ADD_THREADS, smem) != cudaSuccess ||
        per_sm < 1) {
        cudaGetLastError();
        sms = sms < 1 ? 1 : sms;
        per_sm = 1;
    }
    const int64_t need = (n + MCT_ADD_THREADS - 1) / MCT_ADD_THREADS;
    const int64_t cap = (int64_t)sms * per_sm;
    return (unsigned)(need < cap ? need : cap);
}

/* The shape of one whole-array add: n groups of `width` values, `stride` apart. */
typedef struct {
    const void* keys;
    mct_key_type_t key_type;
    const double* values;
    int64_t n, stride;
    int width;
    int64_t* threads; /* receives the launch's thread count when not NULL */
} add_job_t;

template <typename T, mct_method_t M, mct_block_mode_t MODE, typename K>
static mct_status_t add_arrays_launch_keys(const mct_tally_view_t* view, const add_job_t* j, cudaStream_t stream) {
    const size_t smem = mct_block_tally_smem_bytes<T, M>(view->nbins);
    if (smem > MCT_BLOCK_TALLY_SMEM_LIMIT) return MCT_STATUS_TOO_LARGE;
    const auto kernel = mct_kernel_add_arrays<T, M, MODE, K>;
    const unsigned grid = add_grid(kernel, smem, j->n);
    if (j->threads) *j->threads = (int64_t)grid * MCT_ADD_THREADS;
    MCT_LAUNCH(((*kernel)), grid, MCT_ADD_THREADS, smem, stream, *view, (const K*)j->keys, j->values, j->n, j->width,
               j->stride);
    return MCT_LAUNCH_CHECK();
}

/* An instance per key type: the 32-bit keys' kernels stay as they are. */
template <typename T, mct_method_t M, mct_block_mode_t MODE>
static mct_status_t add_arrays_launch_mode(const mct_tally_view_t* view, const add_job_t* j, cudaStream_t stream) {
    return j->key_type == MCT_KEY_I64 ? add_arrays_launch_keys<T, M, MODE, int64_t>(view, j, stream)
                                      : add_arrays_launch_keys<T, M, MODE, uint32_t>(view, j, stream);
}

/* block_reduce, warp_reduce and fixed get an instance per mode, the other
 * methods one instance that covers their modes. */
template <typename T, mct_method_t M>
static mct_status_t add_arrays_launch(const mct_tally_view_t* view, const add_job_t* j, cudaStream_t stream) {
    if constexpr (!mct_method_serves<T, M>()) {
        (void)view, (void)j, (void)stream;
        return MCT_STATUS_NOT_SUPPORTED;
    } else if constexpr (M == MCT_METHOD_BLOCK_REDUCE || M == MCT_METHOD_WARP_REDUCE || M == MCT_METHOD_FIXED) {
        switch (mct_block_mode_of(M, view->nbins, sizeof(T))) {
        case MCT_BLOCK_MODE_REGISTERS: return add_arrays_launch_mode<T, M, MCT_BLOCK_MODE_REGISTERS>(view, j, stream);
        case MCT_BLOCK_MODE_AGGREGATED:
            if constexpr (M != MCT_METHOD_WARP_REDUCE)
                return add_arrays_launch_mode<T, M, MCT_BLOCK_MODE_AGGREGATED>(view, j, stream);
            return MCT_STATUS_INTERNAL_ERROR;
        default: return add_arrays_launch_mode<T, M, MCT_BLOCK_MODE_AGGREGATED_GLOBAL>(view, j, stream);
        }
    } else {
        return add_arrays_launch_mode<T, M, MCT_BLOCK_MODE_ANY>(view, j, stream);
    }
}

template <typename T>
static mct_status_t add_arrays_typed(const mct_tally_view_t* v, const add_job_t* j, cudaStream_t s) {
#define ADD_ARRAYS_CASE(M) \
    case M: return add_arrays_launch<T, M>(v, j, s);
    switch (v->method) {
        MCT__METHOD_LIST(ADD_ARRAYS_CASE)
    default: return MCT_STATUS_UNKNOWN_METHOD;
    }
#undef ADD_ARRAYS_CASE
}

extern "C" mct_status_t MCT__ADD_ARRAYS(const mct_tally_view_t* view, const void* d_keys, mct_key_type_t key_type,
                                        const double* d_values, int64_t n, int width, int64_t stride, void* stream,
                                        int64_t* threads) {
    if (threads) *threads = 0;
    if (!view || (n > 0 && (!d_keys || !d_values || !view->bins))) return MCT_STATUS_NULL_POINTER;
    if (n < 0 || width < 1 || (width > 1 && stride < n) || (key_type != MCT_KEY_U32 && key_type != MCT_KEY_I64))
        return MCT_STATUS_INVALID_VALUE;
    if (n == 0) return MCT_STATUS_SUCCESS;
    cudaStream_t s = (cudaStream_t)stream;
    const add_job_t j = {d_keys, key_type, d_values, n, width > 1 ? stride : n, width, threads};
    switch (view->dtype) {
    case MCT_DTYPE_I32: return add_arrays_typed<int32_t>(view, &j, s);
    case MCT_DTYPE_U64: return add_arrays_typed<uint64_t>(view, &j, s);
    case MCT_DTYPE_F32: return add_arrays_typed<float>(view, &j, s);
    case MCT_DTYPE_F64: return add_arrays_typed<double>(view, &j, s);
    default: return MCT_STATUS_UNKNOWN_DTYPE;
    }
}

#if MCT_IS_EMULATED

extern "C" mct_status_t MCT__SORT_REDUCE(const mct_tally_view_t* view, mct__scratch_t* scratch, void* stream) {
    (void)stream, (void)scratch;
    return view ? MCT_STATUS_NOT_SUPPORTED : MCT_STATUS_NULL_POINTER;
}

#else /* CUDA */

/* Device scratch of one sort_reduce pass, carved from the tally's scratch
 * region at 256-byte alignment. */
typedef struct {
    uint32_t *bins_a, *bins_b, *run_bins;
    unsigned long long *bits_a, *bits_b;
    int *run_counts, *offsets, *num_runs;
    double* run_sums;
    void* temp;
    size_t temp_bytes;
    int bin_bits; /* bits of the largest bin index: the second sort's passes */
} sort_scratch_t;

static size_t align256(size_t b) { return (b + 255) & ~(size_t)255; }

/* Temp bytes of every CUB call of the pass (n items), the largest of them. */
static mct_status_t sort_temp_bytes(int n, int bin_bits, size_t* out) {
    size_t b, most = 1;
    mct_status_t st;
    cub::DoubleBuffer<unsigned long long> bits(NULL, NULL);
    cub::DoubleBuffer<uint32_t> bins(NULL, NULL);
    if ((st = MCT_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(NULL, b, bits, bins, n)))) return st;
    most = b > most ? b : most;
    if ((st = MCT_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(NULL, b, bins, bits, n, 0, bin_bits)))) return st;
    most = b > most ? b : most;
    if ((st = MCT_CUDA_CHECK(cub::DeviceRunLengthEncode::Encode(NULL, b, (uint32_t*)NULL, (uint32_t*)NULL, (int*)NULL,
                                                                (int*)NULL, n))))
        return st;
    most = b > most ? b : most;
    b = mct_scan_temp_bytes<mct_scan_default_policy<4>, int>(n);
    most = b > most ? b : most;
    if ((st = MCT_CUDA_CHECK(
             cub::DeviceSegmentedReduce::Sum(NULL, b, (double*)NULL, (double*)NULL, n, (int*)NULL, (int*)NULL))))
        return st;
    *out = b > most ? b : most;
    return MCT_STATUS_SUCCESS;
}

static mct_status_t sort_scratch_carve(int n, int64_t nbins, sort_scratch_t* s, mct__scratch_t* region) {
    s->bin_bits = 1;
    while (s->bin_bits < 32 && ((int64_t)1 << s->bin_bits) < nbins) ++s->bin_bits;
    mct_status_t st = sort_temp_bytes(n, s->bin_bits, &s->temp_bytes);
    if (st) return st;
    const size_t u32 = align256((size_t)n * 4), u64 = align256((size_t)n * 8), i32 = align256((size_t)n * 4);
    const size_t bytes = 3 * u32 + 2 * u64 + i32 + align256((size_t)(n + 1) * 4) + 256 + u64 + s->temp_bytes;
    void* base = NULL;
    if ((st = mct__scratch_reserve(region, bytes, &base))) return st;
    char* p = (char*)base;
    s->bins_a = (uint32_t*)p, p += u32;
    s->bins_b = (uint32_t*)p, p += u32;
    s->run_bins = (uint32_t*)p, p += u32;
    s->bits_a = (unsigned long long*)p, p += u64;
    s->bits_b = (unsigned long long*)p, p += u64;
    s->run_counts = (int*)p, p += i32;
    s->offsets = (int*)p, p += align256((size_t)(n + 1) * 4);
    s->num_runs = (int*)p, p += 256;
    s->run_sums = (double*)p, p += u64;
    s->temp = p;
    return MCT_STATUS_SUCCESS;
}

template <typename T>
static mct_status_t sort_scatter(const mct_tally_view_t* view, const sort_scratch_t* s, int n, cudaStream_t stream) {
    const unsigned grid = (unsigned)((n + MCT_ADD_THREADS - 1) / MCT_ADD_THREADS);
    MCT_LAUNCH(mct_kernel_sort_scatter<T>, grid, MCT_ADD_THREADS, 0, stream, (T*)view->bins, s->run_bins, s->run_sums,
               s->num_runs, view->flags);
    return MCT_LAUNCH_CHECK();
}

/* The pass proper on n > 0 pairs (see device_add.h for why it is deterministic). */
static mct_status_t sort_reduce_pairs(const mct_tally_view_t* view, int n, sort_scratch_t* s, cudaStream_t stream) {
    mct_status_t st;
    const unsigned grid = (unsigned)((n + MCT_ADD_THREADS - 1) / MCT_ADD_THREADS);
    MCT_LAUNCH(mct_kernel_sort_unpack, grid, MCT_ADD_THREADS, 0, stream, (const mct_sort_pair_t*)view->pairs,
               (int64_t)n, s->bins_a, s->bits_a);
    if ((st = MCT_LAUNCH_CHECK())) return st;
    /* Stable LSD order: by value bits first, then by bin, gives (bin, bits). */
    cub::DoubleBuffer<unsigned long long> bits(s->bits_a, s->bits_b);
    cub::DoubleBuffer<uint32_t> bins(s->bins_a, s->bins_b);
    size_t tb = s->temp_bytes;
    if ((st = MCT_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(s->temp, tb, bits, bins, n, 0, 64, stream)))) return st;
    tb = s->temp_bytes;
    if ((st = MCT_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(s->temp, tb, bins, bits, n, 0, s->bin_bits, stream))))
        return st;
    tb = s->temp_bytes;
    if ((st = MCT_CUDA_CHECK(cub::DeviceRunLengthEncode::Encode(s->temp, tb, bins.Current(), s->run_bins,
                                                                s->run_counts, s->num_runs, n, stream))))
        return st;
    int runs = 0;
    if ((st = MCT_CUDA_CHECK(cudaMemcpyAsync(&runs, s->num_runs, sizeof runs, cudaMemcpyDeviceToHost, stream))) ||
        (st = MCT_CUDA_CHECK(cudaStreamSynchronize(stream))))
        return st;
    if ((st = MCT_CUDA_CHECK(cudaMemsetAsync(s->offsets, 0, sizeof(int), stream)))) return st;
    tb = s->temp_bytes;
    if ((st = mct_dispatch_scan<mct_scan_default_policy<4>, int, mct_op_sum<int>>(
             s->temp, &tb, s->run_counts, s->offsets + 1, (int64_t)runs, false, 0, mct_op_sum<int>(),
             MCT_SCAN_DECOUPLED_LOOKBACK, mct_scan_default_delays(), stream)))
        return st;
    tb = s->temp_bytes;
    const double* sorted_values = (const double*)bits.Current();
    if ((st = MCT_CUDA_CHECK(cub::DeviceSegmentedReduce::Sum(s->temp, tb, sorted_values, s->run_sums, runs,
                                                             s->offsets, s->offsets + 1, stream))))
        return st;
    switch (view->dtype) {
    case MCT_DTYPE_I32: return sort_scatter<int32_t>(view, s, runs, stream);
    case MCT_DTYPE_U64: return sort_scatter<uint64_t>(view, s, runs, stream);
    case MCT_DTYPE_F32: return sort_scatter<float>(view, s, runs, stream);
    case MCT_DTYPE_F64: return sort_scatter<double>(view, s, runs, stream);
    default: return MCT_STATUS_UNKNOWN_DTYPE;
    }
}

extern "C" mct_status_t MCT__SORT_REDUCE(const mct_tally_view_t* view, mct__scratch_t* region, void* stream) {
    if (!region || !view || !view->pair_count || !view->bins || (view->pair_capacity > 0 && !view->pairs))
        return MCT_STATUS_NULL_POINTER;
    cudaStream_t s = (cudaStream_t)stream;
    unsigned long long count = 0;
    mct_status_t st = MCT_CUDA_CHECK(
        cudaMemcpyAsync(&count, view->pair_count, sizeof count, cudaMemcpyDeviceToHost, s));
    if (!st) st = MCT_CUDA_CHECK(cudaStreamSynchronize(s));
    if (st) return st;
    const unsigned long long cap = view->pair_capacity > 0 ? (unsigned long long)view->pair_capacity : 0;
    const unsigned long long n = count < cap ? count : cap;
    if (n > (unsigned long long)INT_MAX) return MCT_STATUS_TOO_LARGE;
    if (n > 0) {
        sort_scratch_t scratch;
        st = sort_scratch_carve((int)n, view->nbins, &scratch, region);
        if (!st) st = sort_reduce_pairs(view, (int)n, &scratch, s);
        const mct_status_t sync = MCT_CUDA_CHECK(cudaStreamSynchronize(s));
        if (st || (st = sync)) return st;
    }
    st = MCT_CUDA_CHECK(cudaMemsetAsync(view->pair_count, 0, sizeof(unsigned long long), s));
    return st ? st : MCT_CUDA_CHECK(cudaStreamSynchronize(s));
}

#endif
