/* SPDX-License-Identifier: BSD-3-Clause */
/** @file test_api_take_sums.cu  mct_tally_take_sums, on the build's device
 * backend (cuda, or emulated under the emulation) with a device buffer and on
 * the CPU backend with a host one: for every type and every method the
 * backend serves, the sums taken are bitwise those that mct_tally_end_batch and
 * mct_tally_copy_sums (MCT_SUMS_LAST_BATCH) give for the same adds on a twin
 * tally, batch after batch (the bins start again at zero) and with no batch
 * closed. A batch with a dropped key, a NaN, an infinite sum or an overflow
 * gives the status and the flags mct_tally_end_batch gives, leaves the buffer
 * untouched and the tally clean for the next batch; a rounding-loss shadow
 * drops the batch taken; a fixed tally reports each ended batch's largest
 * |value| (mct_tally_last_abs_max). Every value is a small integer or a half, so every
 * sum is exact in any order and checked with ==. */
#include <math.h>
#include <string.h>

#include <vector>

#include "mctally/device/mct_launch.cuh"
#include "mctally/mct.h"
#include "test_device.h"

#if MCT_IS_EMULATED
static const mct_backend_t device_backend = MCT_BACKEND_EMULATED;
#else
static const mct_backend_t device_backend = MCT_BACKEND_CUDA;
#endif

enum { NBINS = 37, N = 3000 };

/* Memory of the backend: the GPU's on cuda (the emulation's device memory is
 * host memory), host memory on cpu. */
struct buffers {
    mct_backend_t backend;
    uint32_t* keys;
    double* values;
    double* dst;
};

static void* backend_alloc(mct_backend_t b, size_t bytes) {
    void* p = NULL;
    if (b == MCT_BACKEND_CPU) {
        p = malloc(bytes);
        ASSERT_TRUE(p != NULL);
    } else {
        CHECK_CUDA(cudaMalloc(&p, bytes));
    }
    return p;
}

static void backend_free(mct_backend_t b, void* p) {
    if (b == MCT_BACKEND_CPU)
        free(p);
    else
        CHECK_CUDA(cudaFree(p));
}

static void to_backend(mct_backend_t b, void* dst, const void* src, size_t bytes) {
    if (b == MCT_BACKEND_CPU)
        memcpy(dst, src, bytes);
    else
        CHECK_CUDA(cudaMemcpy(dst, src, bytes, cudaMemcpyHostToDevice));
}

static void from_backend(mct_backend_t b, void* dst, const void* src, size_t bytes) {
    if (b == MCT_BACKEND_CPU)
        memcpy(dst, src, bytes);
    else
        CHECK_CUDA(cudaMemcpy(dst, src, bytes, cudaMemcpyDeviceToHost));
}

static mct_tally_t make(mct_backend_t backend, mct_dtype_t dtype, mct_method_t method) {
    mct_tally_desc_t d;
    mct_tally_desc_init(&d);
    d.bins = NBINS, d.dtype = dtype, d.method = method, d.backend = backend;
    d.pair_capacity = 4 * N;
    if (method == MCT_METHOD_FIXED) d.fixed_frac_bits = 20;
    mct_tally_t t = NULL;
    ASSERT_STATUS(mct_tally_create(&t, &d), MCT_STATUS_SUCCESS);
    return t;
}

/* n adds of keys and values (host arrays) into t, from the backend's memory. */
static void add(buffers* b, mct_tally_t t, const std::vector<uint32_t>& keys, const std::vector<double>& values) {
    const size_t n = keys.size();
    to_backend(b->backend, b->keys, keys.data(), n * sizeof(uint32_t));
    to_backend(b->backend, b->values, values.data(), n * sizeof(double));
    ASSERT_STATUS(mct_tally_add_device(t, b->keys, b->values, (int64_t)n), MCT_STATUS_SUCCESS);
}

/* Batch `batch` of exact adds: keys over the bins, values small integers (and
 * halves where the type holds them), non-negative for u64. */
static void batch_data(int batch, mct_dtype_t dtype, std::vector<uint32_t>* keys, std::vector<double>* values) {
    keys->resize(N), values->resize(N);
    for (int i = 0; i < N; ++i) {
        (*keys)[i] = (uint32_t)((i * 7 + batch * 5) % NBINS);
        double v = (double)((i * 13 + batch * 3) % 11);
        if (dtype != MCT_DTYPE_U64) v -= 4.0;
        if (dtype == MCT_DTYPE_F32 || dtype == MCT_DTYPE_F64) v += 0.5 * (i % 2);
        (*values)[i] = v;
    }
}

/* The sums of a taken batch against the same adds closed by end_batch on a
 * twin, over three batches; no batch is ever closed on the tally taken from. */
static void check_method(buffers* b, mct_dtype_t dtype, mct_method_t method) {
    mct_tally_t t = make(b->backend, dtype, method), twin = make(b->backend, dtype, method);
    std::vector<uint32_t> keys;
    std::vector<double> values;
    for (int batch = 0; batch < 3; ++batch) {
        batch_data(batch, dtype, &keys, &values);
        add(b, t, keys, values);
        add(b, twin, keys, values);
        ASSERT_STATUS(mct_tally_end_batch(twin, 1), MCT_STATUS_SUCCESS);
        double want[NBINS], got[NBINS];
        ASSERT_STATUS(mct_tally_copy_sums(twin, MCT_SUMS_LAST_BATCH, MCT_DTYPE_F64, want, 0), MCT_STATUS_SUCCESS);
        ASSERT_STATUS(mct_tally_take_sums(t, b->dst), MCT_STATUS_SUCCESS);
        from_backend(b->backend, got, b->dst, sizeof got);
        std::vector<double> exact(NBINS, 0.0);
        for (int i = 0; i < N; ++i) exact[keys[i]] += values[i];
        for (int k = 0; k < NBINS; ++k) {
            if (memcmp(&got[k], &want[k], sizeof got[k]) != 0 || got[k] != exact[k])
                TEST_FAIL("%s %s/%s, batch %d: bin %d took %.17g, end_batch gives %.17g, exact %.17g",
                          mct_backend_name(b->backend), mct_dtype_name(dtype), mct_method_name(method), batch, k,
                          got[k], want[k], exact[k]);
        }
    }
    int64_t batches = -1, histories = -1;
    ASSERT_STATUS(mct_tally_counts(t, &batches, &histories), MCT_STATUS_SUCCESS);
    ASSERT_EQ_I64(batches, 0);
    ASSERT_EQ_I64(histories, 0);
    double unused[NBINS];
    ASSERT_STATUS(mct_tally_sums(t, unused), MCT_STATUS_INVALID_STATE); /* still no statistics */
    ASSERT_STATUS(mct_tally_copy_sums(t, MCT_SUMS_LAST_BATCH, MCT_DTYPE_F64, unused, 0), MCT_STATUS_INVALID_STATE);
    mct_tally_destroy(t);
    mct_tally_destroy(twin);
}

/* A bad batch: take_sums gives end_batch's status and flags, the buffer keeps
 * its contents, and the next batch of the same tally is exact. */
static void check_error(buffers* b, mct_dtype_t dtype, mct_method_t method, const std::vector<uint32_t>& keys,
                        const std::vector<double>& values, mct_status_t want) {
    mct_tally_t t = make(b->backend, dtype, method), twin = make(b->backend, dtype, method);
    add(b, t, keys, values);
    add(b, twin, keys, values);
    ASSERT_STATUS(mct_tally_end_batch(twin, 1), want);
    double sentinel[NBINS], got[NBINS];
    for (int k = 0; k < NBINS; ++k) sentinel[k] = -7.0 - k;
    to_backend(b->backend, b->dst, sentinel, sizeof sentinel);
    ASSERT_STATUS(mct_tally_take_sums(t, b->dst), want);
    from_backend(b->backend, got, b->dst, sizeof got);
    ASSERT_TRUE(memcmp(got, sentinel, sizeof got) == 0);
    unsigned flags = 0, twin_flags = 0;
    ASSERT_STATUS(mct_tally_flags(t, &flags), MCT_STATUS_SUCCESS);
    ASSERT_STATUS(mct_tally_flags(twin, &twin_flags), MCT_STATUS_SUCCESS);
    ASSERT_EQ_HEX32(flags, twin_flags);
    std::vector<uint32_t> good_keys = {0, 1, 1, NBINS - 1};
    std::vector<double> good_values = {1.0, 2.0, 3.0, 4.0};
    add(b, t, good_keys, good_values);
    ASSERT_STATUS(mct_tally_take_sums(t, b->dst), MCT_STATUS_SUCCESS);
    from_backend(b->backend, got, b->dst, sizeof got);
    for (int k = 0; k < NBINS; ++k)
        ASSERT_EQ_F64(got[k], k == 0 ? 1.0 : k == 1 ? 5.0 : k == NBINS - 1 ? 4.0 : 0.0);
    mct_tally_destroy(t);
    mct_tally_destroy(twin);
}

static void check_errors(buffers* b) {
    const double big = 1.7e308;
    /* A dropped key comes first, as in end_batch, also with a NaN beside it. */
    check_error(b, MCT_DTYPE_F64, MCT_METHOD_ATOMIC, {0, NBINS, 1}, {1.0, 1.0, 1.0}, MCT_STATUS_BIN_OUT_OF_RANGE);
    check_error(b, MCT_DTYPE_F64, MCT_METHOD_ATOMIC, {0, NBINS + 5, 1}, {NAN, 1.0, 1.0}, MCT_STATUS_BIN_OUT_OF_RANGE);
    /* Float bins that are not finite: a NaN, infinities, finite values with an infinite sum. */
    check_error(b, MCT_DTYPE_F64, MCT_METHOD_ATOMIC, {0, 1}, {NAN, 1.0}, MCT_STATUS_NONFINITE_VALUE);
    check_error(b, MCT_DTYPE_F64, MCT_METHOD_REPLICATED, {2, 2}, {INFINITY, -INFINITY}, MCT_STATUS_NONFINITE_VALUE);
    check_error(b, MCT_DTYPE_F64, MCT_METHOD_ATOMIC, {2, 2}, {big, big}, MCT_STATUS_NONFINITE_VALUE);
    check_error(b, MCT_DTYPE_F32, MCT_METHOD_KAHAN, {3}, {INFINITY}, MCT_STATUS_NONFINITE_VALUE);
    /* fixed: a NaN dropped and flagged; a value past 2^63 at 20 fraction bits. */
    check_error(b, MCT_DTYPE_F64, MCT_METHOD_FIXED, {0, 1}, {NAN, 1.0}, MCT_STATUS_NONFINITE_VALUE);
    check_error(b, MCT_DTYPE_F64, MCT_METHOD_FIXED, {0, 1}, {0x1p50, 1.0}, MCT_STATUS_OVERFLOW);
    /* Integers: an i32 bin past 2^31 - 1; a u64 bin past INT64_MAX (no int64 value). */
    check_error(b, MCT_DTYPE_I32, MCT_METHOD_ATOMIC, {4, 4}, {2e9, 2e9}, MCT_STATUS_OVERFLOW);
    check_error(b, MCT_DTYPE_U64, MCT_METHOD_ATOMIC, {5, 5}, {0x1p62, 0x1p62}, MCT_STATUS_OVERFLOW);
}

/* A rounding-loss estimate drops the shadow of a batch taken: a batch taken,
 * then one closed, estimates as that closed batch alone. */
static void check_rounding_loss(buffers* b) {
    mct_tally_t t = make(b->backend, MCT_DTYPE_F32, MCT_METHOD_ATOMIC);
    mct_tally_t twin = make(b->backend, MCT_DTYPE_F32, MCT_METHOD_ATOMIC);
    ASSERT_STATUS(mct_tally_enable_rounding_loss(t, 0), MCT_STATUS_SUCCESS);
    ASSERT_STATUS(mct_tally_enable_rounding_loss(twin, 0), MCT_STATUS_SUCCESS);
    std::vector<uint32_t> keys;
    std::vector<double> values;
    batch_data(7, MCT_DTYPE_F32, &keys, &values);
    for (double& v : values) v *= 1024.0; /* a different batch, on the same keys */
    add(b, t, keys, values);
    ASSERT_STATUS(mct_tally_take_sums(t, b->dst), MCT_STATUS_SUCCESS);
    batch_data(8, MCT_DTYPE_F32, &keys, &values);
    add(b, t, keys, values);
    add(b, twin, keys, values);
    ASSERT_STATUS(mct_tally_end_batch(t, 1), MCT_STATUS_SUCCESS);
    ASSERT_STATUS(mct_tally_end_batch(twin, 1), MCT_STATUS_SUCCESS);
    mct_rounding_loss_t a, w;
    ASSERT_STATUS(mct_tally_rounding_loss(t, &a), MCT_STATUS_SUCCESS);
    ASSERT_STATUS(mct_tally_rounding_loss(twin, &w), MCT_STATUS_SUCCESS);
    ASSERT_EQ_I64(a.batches, 1);
    ASSERT_EQ_I64(a.bins_estimated, w.bins_estimated);
    ASSERT_TRUE(memcmp(&a.total_loss, &w.total_loss, sizeof a.total_loss) == 0);
    ASSERT_TRUE(memcmp(&a.worst_loss, &w.worst_loss, sizeof a.worst_loss) == 0);
    mct_tally_destroy(t);
    mct_tally_destroy(twin);
}

/* mct_tally_last_abs_max: the largest |value| of the batch a take or an end
 * closed, for fixed tallies that keep it only, every value passed counting (a
 * dropped key's too, a NaN as NaN), read again at each batch end. */
static double last_abs_max(mct_tally_t t) {
    double m = -1.0;
    ASSERT_STATUS(mct_tally_last_abs_max(t, &m), MCT_STATUS_SUCCESS);
    return m;
}

static void check_abs_max(buffers* b) {
    mct_tally_t other = make(b->backend, MCT_DTYPE_F64, MCT_METHOD_ATOMIC);
    double m = 0.0;
    ASSERT_STATUS(mct_tally_enable_abs_max(other), MCT_STATUS_NOT_SUPPORTED);
    ASSERT_STATUS(mct_tally_last_abs_max(other, &m), MCT_STATUS_NOT_SUPPORTED);
    mct_tally_destroy(other);
    ASSERT_STATUS(mct_tally_enable_abs_max(NULL), MCT_STATUS_NULL_POINTER);
    mct_tally_t t = make(b->backend, MCT_DTYPE_F64, MCT_METHOD_FIXED);
    std::vector<uint32_t> keys;
    std::vector<double> values;
    /* Not kept until asked: no word in the view, nothing to read after a batch. */
    mct_tally_view_t view;
    ASSERT_STATUS(mct_tally_view(t, &view), MCT_STATUS_SUCCESS);
    ASSERT_TRUE(view.abs_max == NULL);
    batch_data(0, MCT_DTYPE_F64, &keys, &values);
    add(b, t, keys, values);
    ASSERT_STATUS(mct_tally_take_sums(t, b->dst), MCT_STATUS_SUCCESS);
    ASSERT_STATUS(mct_tally_last_abs_max(t, &m), MCT_STATUS_INVALID_STATE);
    ASSERT_STATUS(mct_tally_enable_abs_max(t), MCT_STATUS_SUCCESS);
    ASSERT_STATUS(mct_tally_enable_abs_max(t), MCT_STATUS_SUCCESS); /* again: no change */
    ASSERT_STATUS(mct_tally_view(t, &view), MCT_STATUS_SUCCESS);
    ASSERT_TRUE(view.abs_max != NULL);
    ASSERT_STATUS(mct_tally_last_abs_max(t, &m), MCT_STATUS_INVALID_STATE); /* no batch ended since */
    ASSERT_STATUS(mct_tally_last_abs_max(t, NULL), MCT_STATUS_NULL_POINTER);
    ASSERT_STATUS(mct_tally_last_abs_max(NULL, &m), MCT_STATUS_NULL_POINTER);
    /* The largest magnitude negative, at each place of a warp and a block in
     * turn (the last value of a partial warp among them). */
    const int places[] = {0, 31, 255, 1000, N - 1};
    for (int at : places) {
        batch_data(at, MCT_DTYPE_F64, &keys, &values);
        values[at] = -7.25;
        add(b, t, keys, values);
        ASSERT_STATUS(mct_tally_take_sums(t, b->dst), MCT_STATUS_SUCCESS);
        ASSERT_EQ_F64(last_abs_max(t), 7.25);
    }
    /* Closed by end_batch; then a batch with no values. */
    batch_data(1, MCT_DTYPE_F64, &keys, &values);
    values[17] = 6.5;
    add(b, t, keys, values);
    ASSERT_STATUS(mct_tally_end_batch(t, 1), MCT_STATUS_SUCCESS);
    ASSERT_EQ_F64(last_abs_max(t), 6.5);
    ASSERT_STATUS(mct_tally_take_sums(t, b->dst), MCT_STATUS_SUCCESS);
    ASSERT_EQ_F64(last_abs_max(t), 0.0);
    /* A dropped key's value counts; a value that overflows the scale too. */
    add(b, t, {0, NBINS, 1}, {1.0, -100.0, 2.0});
    ASSERT_STATUS(mct_tally_take_sums(t, b->dst), MCT_STATUS_BIN_OUT_OF_RANGE);
    ASSERT_EQ_F64(last_abs_max(t), 100.0);
    add(b, t, {0, 1}, {0x1p50, 1.0});
    ASSERT_STATUS(mct_tally_take_sums(t, b->dst), MCT_STATUS_OVERFLOW);
    ASSERT_EQ_F64(last_abs_max(t), 0x1p50);
    add(b, t, {0, 1}, {NAN, -INFINITY});
    ASSERT_STATUS(mct_tally_take_sums(t, b->dst), MCT_STATUS_NONFINITE_VALUE);
    ASSERT_TRUE(isnan(last_abs_max(t)));
    add(b, t, {0, 1}, {1.0, -INFINITY});
    ASSERT_STATUS(mct_tally_take_sums(t, b->dst), MCT_STATUS_NONFINITE_VALUE);
    ASSERT_TRUE(isinf(last_abs_max(t)));
    /* Grouped adds: every component of every group is read, the largest in the last. */
    const int width = 3, groups = N / width;
    std::vector<uint32_t> gkeys(groups);
    std::vector<double> gvalues((size_t)groups * width);
    for (int g = 0; g < groups; ++g) gkeys[g] = (uint32_t)(g % (NBINS / width));
    for (size_t i = 0; i < gvalues.size(); ++i) gvalues[i] = (double)(i % 5) - 2.0;
    gvalues[(size_t)2 * groups + groups - 1] = -9.5; /* component 2 of the last group */
    to_backend(b->backend, b->keys, gkeys.data(), gkeys.size() * sizeof(uint32_t));
    to_backend(b->backend, b->values, gvalues.data(), gvalues.size() * sizeof(double));
    ASSERT_STATUS(mct_tally_add_device_grouped(t, b->keys, b->values, groups, width, groups), MCT_STATUS_SUCCESS);
    ASSERT_STATUS(mct_tally_take_sums(t, b->dst), MCT_STATUS_SUCCESS);
    ASSERT_EQ_F64(last_abs_max(t), 9.5);
    mct_tally_destroy(t);
}

static void check_backend(mct_backend_t backend) {
    buffers b;
    b.backend = backend;
    b.keys = (uint32_t*)backend_alloc(backend, N * sizeof(uint32_t));
    b.values = (double*)backend_alloc(backend, N * sizeof(double));
    b.dst = (double*)backend_alloc(backend, NBINS * sizeof(double));
    const mct_dtype_t dtypes[] = {MCT_DTYPE_I32, MCT_DTYPE_U64, MCT_DTYPE_F32, MCT_DTYPE_F64};
    int checked = 0;
    for (mct_dtype_t dtype : dtypes)
        for (int m = 0; m < MCT_METHOD_COUNT; ++m)
            if (mct_method_supports((mct_method_t)m, dtype, backend) == MCT_STATUS_SUCCESS) {
                check_method(&b, dtype, (mct_method_t)m);
                ++checked;
            }
    ASSERT_TRUE(checked >= 10);
    check_errors(&b);
    check_rounding_loss(&b);
    check_abs_max(&b);
    mct_tally_t t = make(backend, MCT_DTYPE_F64, MCT_METHOD_ATOMIC);
    ASSERT_STATUS(mct_tally_take_sums(t, NULL), MCT_STATUS_NULL_POINTER);
    ASSERT_STATUS(mct_tally_take_sums(NULL, b.dst), MCT_STATUS_NULL_POINTER);
    mct_tally_destroy(t);
    backend_free(backend, b.keys);
    backend_free(backend, b.values);
    backend_free(backend, b.dst);
    printf("%s: %d type/method pairs\n", mct_backend_name(backend), checked);
}

int main(void) {
    check_backend(MCT_BACKEND_CPU);
    if (!test_have_device()) return 77;
    check_backend(device_backend);
    printf("test_api_take_sums: OK\n");
    return 0;
}
