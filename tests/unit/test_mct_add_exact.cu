/* SPDX-License-Identifier: BSD-3-Clause */
/** @file test_mct_add_exact.cu  The methods with their own arithmetic and the
 * edge cases of mct_add:
 * - kahan, kahan_naive (f32 pairs: compensated adds, Kahan's steps) within
 *   Kahan's bound;
 * - fixed (f32, f64) exactly equal to the host's integer sum of the rounded
 *   values, and bitwise identical between two launch shapes;
 * - sort_reduce appends exactly the contributions made; a full pair buffer
 *   raises OVERFLOW;
 * - a NaN already in the bin: cas, wag (CAS leader) and kahan terminate;
 * - fixed drops NaN/Inf (NONFINITE) and values beyond 2^63 (OVERFLOW), and
 *   detects int64 overflow of a bin, per lane and in each of the block tally's
 *   modes (register sums, a shared copy), which give the per-lane adds' bits;
 * - out-of-range bins are dropped and flagged by every method;
 * - warp code given a wrong mask is reported by the emulation, not run silently. */
#include "mct_add_harness.cuh"

/* ----------------------------------------------------------- kahan, fixed */

static void test_fixed_bitwise(void) {
    /* Every lane adds (no exits), so both launch shapes make the same additions. */
    const harness_input in = harness_make<double>(4099, 8, KEYS_RANDOM, true);
    const harness_device d = harness_upload(in);
    const std::vector<unsigned char> a = harness_run<double, MCT_METHOD_FIXED, FORM_ADD>(in, d, 128, 33);
    const std::vector<unsigned char> b = harness_run<double, MCT_METHOD_FIXED, FORM_ADD>(in, d, 7, 3);
    const std::vector<unsigned char> c = harness_run<double, MCT_METHOD_FIXED, FORM_ADD_RUNTIME>(in, d, 65, 64);
    ASSERT_TRUE(a == b);
    ASSERT_TRUE(a == c);
    harness_free(d);
}

/** fixed through mct_block_tally in each of its modes: register sums (1 and 8
 * bins), a shared copy with warp aggregation (1000), warp aggregation into the
 * global bins past the shared limit (7000), and the run-time form (per lane):
 * the same bits as the per-lane
 * adds, for f64 and f32 values (harness_run also checks each against the host's
 * exact sums). */
static void test_fixed_block_modes(void) {
    ASSERT_EQ_I64(mct_block_mode_of(MCT_METHOD_FIXED, 8, 4), MCT_BLOCK_MODE_REGISTERS);
    ASSERT_EQ_I64(mct_block_mode_of(MCT_METHOD_FIXED, 1000, 4), MCT_BLOCK_MODE_AGGREGATED);
    ASSERT_EQ_I64(mct_block_mode_of(MCT_METHOD_FIXED, 7000, 4), MCT_BLOCK_MODE_AGGREGATED_GLOBAL);
    ASSERT_EQ_I64(mct_block_mode_of_view(MCT_METHOD_FIXED, 8, 8), MCT_BLOCK_MODE_PER_LANE);
    /* int64 sums whatever the values: f32 values take 8 bytes a bin in the copy. */
    const size_t copy_bytes = mct_block_tally_smem_bytes<float, MCT_METHOD_FIXED>(1000);
    const size_t table_bytes = mct_block_tally_smem_bytes<float, MCT_METHOD_FIXED>(8);
    ASSERT_EQ_I64((int64_t)copy_bytes, 8000);
    ASSERT_EQ_I64((int64_t)table_bytes, 32 * 8 * 8);
    for (int64_t nbins : {1, 8, 1000, 7000}) {
        const harness_input in = harness_make<double>(5003, nbins, KEYS_RANDOM, true);
        const harness_device d = harness_upload(in);
        typedef std::vector<unsigned char> bits;
        const bits lane = harness_run<double, MCT_METHOD_FIXED, FORM_ADD>(in, d, 128, 9);
        const bits block = harness_run<double, MCT_METHOD_FIXED, FORM_BLOCK>(in, d, 128, 9);
        const bits block_other_shape = harness_run<double, MCT_METHOD_FIXED, FORM_BLOCK>(in, d, 96, 2);
        const bits runtime = harness_run<double, MCT_METHOD_FIXED, FORM_BLOCK_RUNTIME>(in, d, 64, 5);
        const bits lane32 = harness_run<float, MCT_METHOD_FIXED, FORM_ADD>(in, d, 128, 9);
        const bits block32 = harness_run<float, MCT_METHOD_FIXED, FORM_BLOCK>(in, d, 128, 9);
        ASSERT_TRUE(block == lane);
        ASSERT_TRUE(block_other_shape == lane);
        ASSERT_TRUE(runtime == lane);
        ASSERT_TRUE(block32 == lane32);
        harness_free(d);
    }
}

/* -------------------------------------------------------------- flag cases */

/** The lanes add values[i] into bins keys[i] with method M (grid-stride);
 * BLOCK: through mct_block_tally<T, M> (in the mode of the bin count). */
template <typename T, mct_method_t M, bool BLOCK = false>
static __global__ void plain_kernel(mct_tally_view_t view, const int64_t* keys, const T* values, int64_t n) {
    const int64_t first = (int64_t)blockIdx.x * blockDim.x + threadIdx.x, stride = (int64_t)gridDim.x * blockDim.x;
    if constexpr (BLOCK) {
        mct_block_tally<T, M> tally(view);
        for (int64_t i = first; i < n; i += stride) tally.add(keys[i], values[i]);
        tally.flush();
    } else {
        for (int64_t i = first; i < n; i += stride) mct_add<T, M>(view, keys[i], values[i]);
    }
}

template <typename T, mct_method_t M, bool BLOCK = false>
static harness_tally run_plain(const std::vector<int64_t>& keys, const std::vector<T>& values, int64_t nbins,
                               const void* initial_bins, int frac_bits = 20, int64_t capacity = 0,
                               int threads = 0) { /* threads: one block of them; 0: a thread per item */
    const int64_t n = (int64_t)keys.size();
    harness_tally t = harness_tally_create(M, harness_dtype<T>(), sizeof(T), nbins, 0, capacity ? capacity : n,
                                           frac_bits);
    if (initial_bins)
        CHECK_CUDA(cudaMemcpy(t.view.bins, initial_bins, (size_t)nbins * t.bin_bytes, cudaMemcpyHostToDevice));
    int64_t* dk;
    T* dv;
    CHECK_CUDA(cudaMalloc((void**)&dk, n * sizeof(int64_t)));
    CHECK_CUDA(cudaMalloc((void**)&dv, n * sizeof(T)));
    CHECK_CUDA(cudaMemcpy(dk, keys.data(), n * sizeof(int64_t), cudaMemcpyHostToDevice));
    CHECK_CUDA(cudaMemcpy(dv, values.data(), n * sizeof(T), cudaMemcpyHostToDevice));
    MCT_LAUNCH((plain_kernel<T, M, BLOCK>), threads ? 1u : (unsigned)((n + 63) / 64), threads ? threads : 64,
               (BLOCK ? mct_block_tally_smem_bytes<T, M>(nbins) : 0), 0, t.view, dk, dv, n);
    CHECK_CUDA(cudaGetLastError());
    CHECK_CUDA(cudaDeviceSynchronize());
    cudaFree(dk);
    cudaFree(dv);
    return t;
}

/** A NaN already in the bin: the bit-comparing CAS loops terminate, the bin stays NaN. */
static void test_nan_in_bin(void) {
    const std::vector<int64_t> keys(300, 1);
    const double nan = NAN;
    {
        const double init[2] = {0.0, nan};
        harness_tally t = run_plain<double, MCT_METHOD_CAS>(keys, std::vector<double>(300, 1.5), 2, init);
        double out[2];
        CHECK_CUDA(cudaMemcpy(out, t.view.bins, sizeof out, cudaMemcpyDeviceToHost));
        ASSERT_TRUE(isnan(out[1]) && out[0] == 0.0);
        harness_tally_free(t);
    }
    {
        const double init[2] = {0.0, nan};
        harness_tally t = run_plain<double, MCT_METHOD_WAG>(keys, std::vector<double>(300, 1.5), 2, init);
        double out[2];
        CHECK_CUDA(cudaMemcpy(out, t.view.bins, sizeof out, cudaMemcpyDeviceToHost));
        ASSERT_TRUE(isnan(out[1]));
        harness_tally_free(t);
    }
    {
        const float init[2] = {0.0f, NAN};
        harness_tally t = run_plain<float, MCT_METHOD_CAS>(keys, std::vector<float>(300, 1.5f), 2, init);
        float out[2];
        CHECK_CUDA(cudaMemcpy(out, t.view.bins, sizeof out, cudaMemcpyDeviceToHost));
        ASSERT_TRUE(isnan(out[1]));
        harness_tally_free(t);
    }
    for (int naive = 0; naive < 2; ++naive) {
        const mct_kahan_pair_t init[2] = {{0.0f, 0.0f}, {NAN, 0.0f}};
        harness_tally t = naive ? run_plain<float, MCT_METHOD_KAHAN_NAIVE>(keys, std::vector<float>(300, 1.5f), 2, init)
                                : run_plain<float, MCT_METHOD_KAHAN>(keys, std::vector<float>(300, 1.5f), 2, init);
        mct_kahan_pair_t out[2];
        CHECK_CUDA(cudaMemcpy(out, t.view.bins, sizeof out, cudaMemcpyDeviceToHost));
        ASSERT_TRUE(isnan(out[1].sum));
        harness_tally_free(t);
    }
}

/** Reads the int64 bins of a fixed tally. */
static std::vector<int64_t> fixed_bins(const harness_tally& t) {
    std::vector<int64_t> out(t.view.nbins);
    CHECK_CUDA(cudaMemcpy(out.data(), t.view.bins, out.size() * 8, cudaMemcpyDeviceToHost));
    return out;
}

/** BLOCK: through mct_block_tally, its bins `extra` more than the cases use
 * (0: register sums; 1000: a shared copy; 7000: warp aggregation into the bins). */
template <bool BLOCK = false>
static void test_fixed_flags(int64_t extra = 0) {
    /* NaN and Inf are dropped and flagged; the finite values still sum exactly. */
    std::vector<int64_t> keys;
    std::vector<double> vals;
    int64_t exact[3] = {0, 0, 0};
    for (int i = 0; i < 500; ++i) {
        const double v = i % 17 == 0 ? NAN : i % 23 == 0 ? -INFINITY : 0.37 * (i % 11) - 1.1;
        keys.push_back(i % 3), vals.push_back(v);
        if (isfinite(v)) exact[i % 3] += harness_fixed(v, 20);
    }
    harness_tally t = run_plain<double, MCT_METHOD_FIXED, BLOCK>(keys, vals, 3 + extra, NULL);
    ASSERT_EQ_I64(harness_flags(t), MCT_TALLY_FLAG_NONFINITE);
    std::vector<int64_t> got = fixed_bins(t);
    for (int k = 0; k < 3; ++k) ASSERT_EQ_I64(got[k], exact[k]);
    harness_tally_free(t);

    /* |v * 2^s| >= 2^63: dropped, OVERFLOW. */
    harness_tally big = run_plain<double, MCT_METHOD_FIXED, BLOCK>({0, 0, 1}, {1.0, ldexp(1.0, 43), 2.0}, 2 + extra, NULL);
    ASSERT_EQ_I64(harness_flags(big), MCT_TALLY_FLAG_OVERFLOW);
    got = fixed_bins(big);
    ASSERT_EQ_I64(got[0], harness_fixed(1.0, 20));
    ASSERT_EQ_I64(got[1], harness_fixed(2.0, 20));
    harness_tally_free(big);

    /* Values that fit, whose sum does not: a warp group sum or the bin overflows. */
    for (int n : {5, 40, 300}) { /* 5 * 2^61 > 2^63 - 1 */
        harness_tally sum = run_plain<double, MCT_METHOD_FIXED, BLOCK>(
            std::vector<int64_t>(n, 0), std::vector<double>(n, ldexp(1.0, 41)), 1 + extra, NULL);
        ASSERT_EQ_I64(harness_flags(sum), MCT_TALLY_FLAG_OVERFLOW);
        harness_tally_free(sum);
    }
    /* One thread's own sum overflows (a register sum, a cached bin's share). */
    harness_tally own = run_plain<double, MCT_METHOD_FIXED, BLOCK>(
        std::vector<int64_t>(5, 0), std::vector<double>(5, ldexp(1.0, 41)), 1 + extra, NULL, 20, 0, 1);
    ASSERT_EQ_I64(harness_flags(own), MCT_TALLY_FLAG_OVERFLOW);
    harness_tally_free(own);
    /* Just below the limit: no flag, exact. 3 * 2^61 < 2^63. */
    harness_tally ok = run_plain<double, MCT_METHOD_FIXED, BLOCK>({0, 0, 0}, std::vector<double>(3, ldexp(1.0, 41)), 1 + extra, NULL);
    ASSERT_EQ_I64(harness_flags(ok), 0);
    ASSERT_EQ_I64(fixed_bins(ok)[0], (int64_t)3 << 61);
    harness_tally_free(ok);
}

/** Bins -1, B, B + 5 are dropped and flagged; the others are right. */
template <typename T, mct_method_t M>
static void check_out_of_range(void) {
    std::vector<int64_t> keys;
    std::vector<T> vals;
    double want[4] = {0, 0, 0, 0};
    for (int i = 0; i < 200; ++i) {
        keys.push_back(i % 10 == 3 ? -1 : i % 10 == 6 ? 4 : i % 10 == 9 ? 9 : i % 4);
        vals.push_back((T)1);
        if (keys.back() >= 0 && keys.back() < 4) want[keys.back()] += 1.0;
    }
    harness_tally t = run_plain<T, M>(keys, vals, 4, NULL);
    ASSERT_EQ_I64(harness_flags(t) & MCT_TALLY_FLAG_OUT_OF_RANGE, MCT_TALLY_FLAG_OUT_OF_RANGE);
    if (M == MCT_METHOD_SORT_REDUCE) {
        unsigned long long count = 0;
        CHECK_CUDA(cudaMemcpy(&count, t.view.pair_count, sizeof count, cudaMemcpyDeviceToHost));
        ASSERT_EQ_I64((int64_t)count, 140);
    } else {
        std::vector<double> got;
        std::vector<int64_t> exact;
        harness_read<T>(t, got, exact);
        for (int k = 0; k < 4; ++k) ASSERT_EQ_F64(got[k], want[k]);
    }
    harness_tally_free(t);
}

/** Same through mct_block_tally<T, shared>. */
static __global__ void shared_oor_kernel(mct_tally_view_t view, int64_t n) {
    mct_block_tally<float, MCT_METHOD_SHARED> tally(view);
    for (int64_t i = threadIdx.x; i < n; i += blockDim.x) tally.add(i % 10 == 3 ? -1 : i % 4, 1.0f);
    tally.flush();
}

static void test_out_of_range(void) {
    check_out_of_range<float, MCT_METHOD_ATOMIC>();
    check_out_of_range<double, MCT_METHOD_CAS>();
    check_out_of_range<double, MCT_METHOD_WAG>();
    check_out_of_range<int32_t, MCT_METHOD_WIB>();
    check_out_of_range<uint64_t, MCT_METHOD_WAG_MATCH>();
    check_out_of_range<float, MCT_METHOD_KAHAN>();
    check_out_of_range<float, MCT_METHOD_KAHAN_NAIVE>();
    check_out_of_range<double, MCT_METHOD_FIXED>();
    check_out_of_range<double, MCT_METHOD_REPLICATED>();
    check_out_of_range<double, MCT_METHOD_SORT_REDUCE>();
    harness_tally t = harness_tally_create(MCT_METHOD_SHARED, MCT_DTYPE_F32, 4, 4, 0, 0, 0);
    const size_t smem = mct_block_tally_smem_bytes<float, MCT_METHOD_SHARED>(4);
    MCT_LAUNCH(shared_oor_kernel, 1, 65, smem, 0, t.view, (int64_t)200);
    CHECK_CUDA(cudaGetLastError());
    CHECK_CUDA(cudaDeviceSynchronize());
    ASSERT_EQ_I64(harness_flags(t), MCT_TALLY_FLAG_OUT_OF_RANGE);
    float out[4];
    CHECK_CUDA(cudaMemcpy(out, t.view.bins, sizeof out, cudaMemcpyDeviceToHost));
    ASSERT_EQ_F64(out[0] + out[1] + out[2] + out[3], 180.0);
    harness_tally_free(t);
}

/** A full pair buffer keeps the first `capacity` pairs and raises OVERFLOW. */
static void test_sort_capacity(void) {
    std::vector<int64_t> keys;
    std::vector<double> vals;
    for (int i = 0; i < 300; ++i) keys.push_back(i % 5), vals.push_back(i + 0.25);
    harness_tally t = run_plain<double, MCT_METHOD_SORT_REDUCE>(keys, vals, 5, NULL, 20, 100);
    ASSERT_EQ_I64(harness_flags(t), MCT_TALLY_FLAG_OVERFLOW);
    std::vector<mct_sort_pair_t> pairs(100);
    CHECK_CUDA(cudaMemcpy(pairs.data(), t.view.pairs, 100 * sizeof(mct_sort_pair_t), cudaMemcpyDeviceToHost));
    for (const mct_sort_pair_t& p : pairs) {
        const int i = (int)(p.value - 0.25);
        ASSERT_TRUE(i >= 0 && i < 300 && p.value == i + 0.25);
        ASSERT_EQ_I64(p.bin, i % 5);
    }
    harness_tally_free(t);
}

/* ---------------------------------------------- broken warp code is caught */

#if MCT_IS_EMULATED
/** Odd lanes leave; the even ones reduce naming the FULL warp: a shuffle from
 * exited lanes, undefined on a GPU, which the emulation must report. */
static __global__ void broken_mask_kernel(double* out) {
    const int lane = mct_lane();
    if (lane & 1) return;
    const unsigned peers = 0x55555555u; /* the even lanes, all one bin */
    const double v = mct_warp_segmented_reduce(0xffffffffu, peers, 1.0);
    if (lane == 0) *out = v;
}
#endif

/** The same with the right mask (__activemask()): valid, and the sum is 16. */
static __global__ void right_mask_kernel(double* out) {
    const int lane = mct_lane();
    if (lane & 1) return;
    const unsigned active = __activemask();
    const unsigned peers = mct_warp_peers_ballot(active, 7u);
    const double v = mct_warp_segmented_reduce(active, peers, 1.0);
    if (mct_warp_is_leader(peers)) *out = v;
}

static void test_broken_warp_code(void) {
    double* d;
    double h = 0.0;
    CHECK_CUDA(cudaMalloc((void**)&d, sizeof(double)));
    MCT_LAUNCH(right_mask_kernel, 1, 32, 0, 0, d);
    CHECK_CUDA(cudaGetLastError());
    CHECK_CUDA(cudaMemcpy(&h, d, sizeof h, cudaMemcpyDeviceToHost));
    ASSERT_EQ_F64(h, 16.0);
#if MCT_IS_EMULATED
    MCT_LAUNCH(broken_mask_kernel, 1, 32, 0, 0, d);
    const cudaError_t err = cudaGetLastError();
    ASSERT_EQ_I64((int64_t)err, (int64_t)cudaErrorLaunchFailure);
    printf("emulation caught the wrong mask: %s\n", mct_emu_last_error_message());
#endif
    cudaFree(d);
}

int main(void) {
    if (!test_have_device()) return 77;
    harness_sweep<float, MCT_METHOD_KAHAN, FORM_ADD>();
    harness_sweep<float, MCT_METHOD_KAHAN_NAIVE, FORM_ADD>();
    harness_sweep<float, MCT_METHOD_KAHAN, FORM_BLOCK_RUNTIME>();
    harness_sweep<float, MCT_METHOD_FIXED, FORM_ADD>();
    harness_sweep<double, MCT_METHOD_FIXED, FORM_ADD>();
    harness_sweep<double, MCT_METHOD_FIXED, FORM_BLOCK>();
    harness_sweep<float, MCT_METHOD_SORT_REDUCE, FORM_ADD>();
    harness_sweep<double, MCT_METHOD_SORT_REDUCE, FORM_ADD_RUNTIME>();
    test_fixed_bitwise();
    test_fixed_block_modes();
    test_nan_in_bin();
    test_fixed_flags();
    test_fixed_flags<true>(0);
    test_fixed_flags<true>(1000);
    test_fixed_flags<true>(7000);
    test_out_of_range();
    test_sort_capacity();
    test_broken_warp_code();
    printf("mct_add kahan, fixed, sort_reduce and edge cases: pass\n");
    return 0;
}
