/* SPDX-License-Identifier: BSD-3-Clause */
/** @file test_api_adopt.cu  What a host code that owns its loop needs
 * (docs/porting.md): the current device (MCT_DEVICE_CURRENT), its own stream,
 * the view handed to a kernel as an argument and through __constant__ memory
 * (cudaMemcpyToSymbol), mct_add with values of other arithmetic types
 * converted once to the tally's, the bins read on the device
 * (mct_tally_bin_value), and one batch's or all batches' sums copied into the
 * caller's host or device buffer in the caller's type (mct_tally_copy_sums).
 * Every value added is a small integer or a power-of-two fraction, so every
 * sum is exact and checked with ==. */
#include <vector>

#include "mctally/device/mct_launch.cuh"
#include "mctally/device/mct_tally_device.cuh"
#include "test_device.h"

#if MCT_IS_EMULATED
static const mct_backend_t backend = MCT_BACKEND_EMULATED;
#else
static const mct_backend_t backend = MCT_BACKEND_CUDA;
#endif

enum { NBINS = 37, THREADS = 200 };

/* Thread i adds 1 + (i % 3) into bin i % NBINS, as the value type U. */
template <typename U>
static __global__ void add_by_argument(mct_tally_view_t view, int n) {
    const int i = (int)(blockIdx.x * blockDim.x + threadIdx.x);
    if (i < n) mct_add(view, i % NBINS, (U)(1 + i % 3));
}

/* The same with the view in constant memory, for kernels whose signature
 * cannot take another argument. */
static __constant__ mct_tally_view_t c_view;
static __global__ void add_by_constant(int n) {
    const int i = (int)(blockIdx.x * blockDim.x + threadIdx.x);
    if (i < n) mct_add(c_view, i % NBINS, 0.5 * (1 + i % 3));
}

/* -1 as an int into a u64 tally; 2^40 as a u64. */
static __global__ void add_negative(mct_tally_view_t view) { mct_add(view, 0, -1); }
static __global__ void add_big(mct_tally_view_t view) { mct_add(view, 1, (uint64_t)1 << 40); }

static __global__ void read_bins(mct_tally_view_t view, double* out) {
    const int k = (int)(blockIdx.x * blockDim.x + threadIdx.x);
    if (k < view.nbins) out[k] = mct_tally_bin_value(view, k);
}

/* The exact expected per-bin sum of n threads' adds of scale * (1 + i % 3). */
static std::vector<double> expected(int n, double scale) {
    std::vector<double> e(NBINS, 0.0);
    for (int i = 0; i < n; ++i) e[i % NBINS] += scale * (1 + i % 3);
    return e;
}

static mct_tally_t make(mct_dtype_t dtype, mct_method_t method) {
    mct_tally_desc_t d;
    mct_tally_desc_init(&d);
    ASSERT_EQ_I64(d.device, MCT_DEVICE_CURRENT);
    d.bins = NBINS, d.dtype = dtype, d.method = method, d.backend = backend;
    if (method == MCT_METHOD_FIXED) d.fixed_frac_bits = 20;
    mct_tally_t t = NULL;
    ASSERT_STATUS(mct_tally_create(&t, &d), MCT_STATUS_SUCCESS);
    return t;
}

template <typename U>
static void launch_arg(mct_tally_t t, cudaStream_t s) {
    mct_tally_view_t v;
    ASSERT_STATUS(mct_tally_view(t, &v), MCT_STATUS_SUCCESS);
    MCT_LAUNCH(add_by_argument<U>, (THREADS + 63) / 64, 64, 0, s, v, THREADS);
    CHECK_CUDA(cudaGetLastError());
}

/* Every tally type and method family, values of every type: one batch each. */
template <typename U>
static void check_conversion(mct_dtype_t dtype, mct_method_t method, cudaStream_t s) {
    mct_tally_t t = make(dtype, method);
    ASSERT_STATUS(mct_tally_set_stream(t, (void*)s), MCT_STATUS_SUCCESS);
    launch_arg<U>(t, s);
    ASSERT_STATUS(mct_tally_end_batch(t, THREADS), MCT_STATUS_SUCCESS);
    std::vector<double> got(NBINS);
    ASSERT_STATUS(mct_tally_copy_sums(t, MCT_SUMS_LAST_BATCH, MCT_DTYPE_F64, got.data(), 0), MCT_STATUS_SUCCESS);
    const std::vector<double> e = expected(THREADS, 1.0);
    for (int k = 0; k < NBINS; ++k)
        if (got[k] != e[k])
            TEST_FAIL("%s/%s, value of %zu bytes: bin %d holds %.17g, expected %.17g", mct_dtype_name(dtype),
                      mct_method_name(method), sizeof(U), k, got[k], e[k]);
    mct_tally_destroy(t);
}

int main(void) {
    if (!test_have_device()) return 77;
    cudaStream_t s;
    CHECK_CUDA(cudaStreamCreate(&s));

    /* A device ordinal below MCT_DEVICE_CURRENT is refused; the current one stays current. */
    mct_tally_desc_t bad;
    mct_tally_desc_init(&bad);
    bad.backend = backend, bad.device = -2;
    mct_tally_t none = NULL;
    ASSERT_STATUS(mct_tally_create(&none, &bad), MCT_STATUS_INVALID_VALUE);
    int before = -1, after = -1;
    CHECK_CUDA(cudaGetDevice(&before));

    /* Values of other types converted once: into f64, f32, i32, u64 and fixed. */
    check_conversion<double>(MCT_DTYPE_F64, MCT_METHOD_ATOMIC, s);
    check_conversion<float>(MCT_DTYPE_F64, MCT_METHOD_ATOMIC, s);
    check_conversion<int>(MCT_DTYPE_F64, MCT_METHOD_WIB, s);
    check_conversion<long long>(MCT_DTYPE_F32, MCT_METHOD_ATOMIC, s);
    check_conversion<double>(MCT_DTYPE_F32, MCT_METHOD_KAHAN, s);
    check_conversion<double>(MCT_DTYPE_I32, MCT_METHOD_ATOMIC, s);
    check_conversion<unsigned short>(MCT_DTYPE_I32, MCT_METHOD_WAG_MATCH, s);
    check_conversion<int>(MCT_DTYPE_U64, MCT_METHOD_ATOMIC, s);
    check_conversion<float>(MCT_DTYPE_U64, MCT_METHOD_WIB, s);
    check_conversion<float>(MCT_DTYPE_F64, MCT_METHOD_FIXED, s);
    check_conversion<int>(MCT_DTYPE_F64, MCT_METHOD_FIXED, s);
    CHECK_CUDA(cudaGetDevice(&after));
    ASSERT_EQ_I64(after, before);

    /* A value that does not fit an integer tally is dropped and flagged. */
    {
        mct_tally_t t = make(MCT_DTYPE_U64, MCT_METHOD_ATOMIC);
        mct_tally_view_t v;
        mct_tally_view(t, &v);
        MCT_LAUNCH(add_by_argument<int>, 1, 4, 0, 0, v, 4); /* 1, 2, 3, 1 */
        CHECK_CUDA(cudaDeviceSynchronize());
        ASSERT_STATUS(mct_tally_end_batch(t, 1), MCT_STATUS_SUCCESS);
        mct_tally_view(t, &v);
        /* -1 as an int into a u64 tally: OVERFLOW, nothing added. */
        MCT_LAUNCH(add_negative, 1, 1, 0, 0, v);
        CHECK_CUDA(cudaDeviceSynchronize());
        ASSERT_STATUS(mct_tally_end_batch(t, 1), MCT_STATUS_OVERFLOW);
        uint64_t last[NBINS];
        ASSERT_STATUS(mct_tally_copy_sums(t, MCT_SUMS_LAST_BATCH, MCT_DTYPE_U64, last, 0), MCT_STATUS_SUCCESS);
        ASSERT_EQ_U64(last[0], 0);
        mct_tally_destroy(t);
    }

    /* Batches on the caller's stream, the view from constant memory; per-batch
     * sums and totals into host and device buffers; the bins read on the device. */
    {
        mct_tally_t t = make(MCT_DTYPE_F64, MCT_METHOD_FIXED);
        ASSERT_STATUS(mct_tally_set_stream(t, (void*)s), MCT_STATUS_SUCCESS);
        double host[NBINS];
        ASSERT_STATUS(mct_tally_copy_sums(t, MCT_SUMS_LAST_BATCH, MCT_DTYPE_F64, host, 0), MCT_STATUS_INVALID_STATE);
        ASSERT_STATUS(mct_tally_copy_sums(t, MCT_SUMS_TOTAL, MCT_DTYPE_F64, host, 0), MCT_STATUS_INVALID_STATE);
        double* d_bins = NULL;
        float* d_f32 = NULL;
        CHECK_CUDA(cudaMalloc((void**)&d_bins, NBINS * sizeof(double)));
        CHECK_CUDA(cudaMalloc((void**)&d_f32, NBINS * sizeof(float)));
        for (int batch = 1; batch <= 3; ++batch) {
            mct_tally_view_t v;
            ASSERT_STATUS(mct_tally_view(t, &v), MCT_STATUS_SUCCESS);
            CHECK_CUDA(cudaMemcpyToSymbol(c_view, &v, sizeof v));
            const int n = THREADS * batch;
            MCT_LAUNCH(add_by_constant, (n + 63) / 64, 64, 0, s, n);
            CHECK_CUDA(cudaGetLastError());
            /* Post-processing on the device before the batch closes. */
            ASSERT_STATUS(mct_tally_flush(t), MCT_STATUS_SUCCESS);
            MCT_LAUNCH(read_bins, 1, 64, 0, s, v, d_bins);
            CHECK_CUDA(cudaStreamSynchronize(s));
            CHECK_CUDA(cudaMemcpy(host, d_bins, sizeof host, cudaMemcpyDeviceToHost));
            const std::vector<double> e = expected(n, 0.5);
            for (int k = 0; k < NBINS; ++k) ASSERT_EQ_F64(host[k], e[k]);
            ASSERT_STATUS(mct_tally_end_batch(t, n), MCT_STATUS_SUCCESS);
            /* This batch alone, into a device buffer as f32 (exact: small halves). */
            ASSERT_STATUS(mct_tally_copy_sums(t, MCT_SUMS_LAST_BATCH, MCT_DTYPE_F32, d_f32, 1), MCT_STATUS_SUCCESS);
            float f32[NBINS];
            CHECK_CUDA(cudaMemcpy(f32, d_f32, sizeof f32, cudaMemcpyDeviceToHost));
            for (int k = 0; k < NBINS; ++k) ASSERT_EQ_F64(f32[k], e[k]);
        }
        /* Totals over the three batches, on the host and the device alike. */
        std::vector<double> total(NBINS, 0.0);
        for (int batch = 1; batch <= 3; ++batch) {
            const std::vector<double> e = expected(THREADS * batch, 0.5);
            for (int k = 0; k < NBINS; ++k) total[k] += e[k];
        }
        double sums[NBINS];
        ASSERT_STATUS(mct_tally_copy_sums(t, MCT_SUMS_TOTAL, MCT_DTYPE_F64, host, 0), MCT_STATUS_SUCCESS);
        ASSERT_STATUS(mct_tally_sums(t, sums), MCT_STATUS_SUCCESS);
        ASSERT_STATUS(mct_tally_copy_sums(t, MCT_SUMS_TOTAL, MCT_DTYPE_F64, d_bins, 1), MCT_STATUS_SUCCESS);
        double from_device[NBINS];
        CHECK_CUDA(cudaMemcpy(from_device, d_bins, sizeof from_device, cudaMemcpyDeviceToHost));
        for (int k = 0; k < NBINS; ++k) {
            ASSERT_EQ_F64(host[k], total[k]);
            ASSERT_EQ_F64(sums[k], total[k]);
            ASSERT_EQ_F64(from_device[k], total[k]);
        }
        /* Integer outputs only from integer tallies; bad arguments. */
        int32_t i32[NBINS];
        ASSERT_STATUS(mct_tally_copy_sums(t, MCT_SUMS_TOTAL, MCT_DTYPE_I32, i32, 0), MCT_STATUS_NOT_SUPPORTED);
        ASSERT_STATUS(mct_tally_copy_sums(t, (mct_sums_t)7, MCT_DTYPE_F64, host, 0), MCT_STATUS_INVALID_VALUE);
        ASSERT_STATUS(mct_tally_copy_sums(t, MCT_SUMS_TOTAL, (mct_dtype_t)99, host, 0), MCT_STATUS_UNKNOWN_DTYPE);
        ASSERT_STATUS(mct_tally_copy_sums(t, MCT_SUMS_TOTAL, MCT_DTYPE_F64, NULL, 0), MCT_STATUS_NULL_POINTER);
        CHECK_CUDA(cudaFree(d_bins));
        CHECK_CUDA(cudaFree(d_f32));
        mct_tally_destroy(t);
    }

    /* Integer sums exactly, and an output type too narrow for them. */
    {
        mct_tally_t t = make(MCT_DTYPE_U64, MCT_METHOD_ATOMIC);
        mct_tally_view_t v;
        mct_tally_view(t, &v);
        MCT_LAUNCH(add_big, 1, 1, 0, 0, v);
        CHECK_CUDA(cudaDeviceSynchronize());
        ASSERT_STATUS(mct_tally_end_batch(t, 1), MCT_STATUS_SUCCESS);
        uint64_t u[NBINS];
        int32_t i32[NBINS];
        ASSERT_STATUS(mct_tally_copy_sums(t, MCT_SUMS_TOTAL, MCT_DTYPE_U64, u, 0), MCT_STATUS_SUCCESS);
        ASSERT_EQ_U64(u[1], (uint64_t)1 << 40);
        i32[1] = 7;
        ASSERT_STATUS(mct_tally_copy_sums(t, MCT_SUMS_TOTAL, MCT_DTYPE_I32, i32, 0), MCT_STATUS_OVERFLOW);
        ASSERT_EQ_I64(i32[1], 7);
        mct_tally_destroy(t);
    }
    /* fixed from a declared bound instead of a scale: the most fraction bits
     * that keep the bound below 2^62 (1e9 < 2^30: 32 bits; 8 = 2^3: 58 bits),
     * the sums (at most 6 per bin here) exact; sums past twice the bound
     * (0.75: 62 bits) raise OVERFLOW; a bound that is not finite and >= 0 is refused. */
    {
        const double bounds[] = {1e9, 8.0, 3e18, 0.75};
        const int want[] = {32, 58, 0, 62};
        for (int i = 0; i < 4; ++i) {
            mct_tally_desc_t d;
            mct_tally_desc_init(&d);
            d.bins = NBINS, d.method = MCT_METHOD_FIXED, d.backend = backend, d.fixed_bound = bounds[i];
            mct_tally_t t = NULL;
            ASSERT_STATUS(mct_tally_create(&t, &d), MCT_STATUS_SUCCESS);
            mct_tally_desc_t got;
            ASSERT_STATUS(mct_tally_get_desc(t, &got), MCT_STATUS_SUCCESS);
            ASSERT_EQ_I64(got.fixed_frac_bits, want[i]);
            mct_tally_view_t v;
            mct_tally_view(t, &v);
            MCT_LAUNCH(add_by_argument<double>, 1, 64, 0, 0, v, 64);
            CHECK_CUDA(cudaDeviceSynchronize());
            if (want[i] == 62) {
                ASSERT_STATUS(mct_tally_end_batch(t, 64), MCT_STATUS_OVERFLOW);
                mct_tally_destroy(t);
                continue;
            }
            ASSERT_STATUS(mct_tally_end_batch(t, 64), MCT_STATUS_SUCCESS);
            double sums[NBINS];
            ASSERT_STATUS(mct_tally_copy_sums(t, MCT_SUMS_TOTAL, MCT_DTYPE_F64, sums, 0), MCT_STATUS_SUCCESS);
            const std::vector<double> e = expected(64, 1.0);
            for (int k = 0; k < NBINS; ++k) ASSERT_EQ_F64(sums[k], e[k]);
            mct_tally_destroy(t);
        }
        mct_tally_desc_t d;
        mct_tally_desc_init(&d);
        d.bins = NBINS, d.method = MCT_METHOD_FIXED, d.backend = backend;
        mct_tally_t t = NULL;
        for (double b : {(double)INFINITY, -1.0, (double)NAN}) {
            d.fixed_bound = b;
            ASSERT_STATUS(mct_tally_create(&t, &d), MCT_STATUS_INVALID_VALUE);
        }
    }
    CHECK_CUDA(cudaStreamDestroy(s));
    printf("adopt: current device, caller's stream, view by argument and by __constant__, converted adds, "
           "device bins, copied sums: all exact\n");
    return 0;
}
