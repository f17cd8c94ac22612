/* SPDX-License-Identifier: BSD-3-Clause */
/** @file test_deposit_buffer.cu  mct_deposit_buffer (block_deposit_buffer.cuh)
 * with every method, on every type a method serves:
 * - the mct_add harness's random control flow (inactive lanes, two call sites,
 *   lanes that break out with deposits still buffered), block sizes 1..128,
 *   1, 8 and 1000 bins, with a cache of 8 bins and 3 sort_reduce slots per lane
 *   (the cache runs out of slots, lanes' slots fill mid-warp at their own
 *   times) and with the defaults and the method from the view;
 * - a random-walk kernel with divergent exits into 1e5 bins
 *   (bench/deposit/deposit_random_walk.cuh), buffered against the host's exact
 *   replay, its lanes once free and once walking one after the other (warps
 *   that never add together);
 * - fixed's bits: buffered equals direct, on every launch shape.
 * Integer and fixed results must be exact; float results within the harness's
 * rounding bound (mct_add_harness.cuh), plus n 2^-53 Σ|x| for the double runs
 * and cache of the buffer; sort_reduce must hold exactly the pairs added. */
#include "../../bench/deposit/deposit_random_walk.cuh"
#include "mct_add_harness.cuh"

template <typename T, mct_method_t M>
static void sweep_both(void) {
    harness_sweep<T, M, FORM_BUFFER>();
    harness_sweep<T, M, FORM_BUFFER_RUNTIME>();
}

template <typename T>
static void float_methods(void) {
    sweep_both<T, MCT_METHOD_ATOMIC>();
    sweep_both<T, MCT_METHOD_SHARED>();
    sweep_both<T, MCT_METHOD_REPLICATED>();
    sweep_both<T, MCT_METHOD_CAS>();
    sweep_both<T, MCT_METHOD_WAG>();
    sweep_both<T, MCT_METHOD_WIB>();
    sweep_both<T, MCT_METHOD_WAG_MATCH>();
    sweep_both<T, MCT_METHOD_WARP_REDUCE>();
    sweep_both<T, MCT_METHOD_BLOCK_REDUCE>();
    sweep_both<T, MCT_METHOD_FIXED>();
    sweep_both<T, MCT_METHOD_SORT_REDUCE>();
}

template <typename T>
static void integer_methods(void) {
    sweep_both<T, MCT_METHOD_ATOMIC>();
    sweep_both<T, MCT_METHOD_WAG>();
    sweep_both<T, MCT_METHOD_WIB>();
    sweep_both<T, MCT_METHOD_WAG_MATCH>();
    sweep_both<T, MCT_METHOD_BLOCK_REDUCE>();
    sweep_both<T, MCT_METHOD_SORT_REDUCE>();
}

/** The walk's deposits, replayed on the host in walker order. */
template <typename T>
static std::vector<harness_contrib> rw_reference(int64_t nbins, uint64_t walkers, uint64_t seed) {
    std::vector<harness_contrib> out;
    for (uint64_t w = 0; w < walkers; ++w) {
        rw_walker_t p = rw_start(nbins, seed, w);
        for (bool on = true; on;) {
            int64_t bin;
            double weight;
            on = rw_step(nbins, &p, &bin, &weight);
            out.push_back({bin, (double)(T)weight});
        }
    }
    return out;
}

/** One random-walk launch into a fresh tally of method m, checked; returns the bins' bytes. */
template <typename T, int F, bool SERIAL>
static std::vector<unsigned char> rw_case(mct_method_t m, int64_t nbins, uint64_t walkers, int grid, int block) {
    const std::vector<harness_contrib> ref = rw_reference<T>(nbins, walkers, 77);
    harness_tally t = harness_tally_create(m, harness_dtype<T>(), sizeof(T), nbins, 0, (int64_t)ref.size(), 20);
    snprintf(harness_case_text, sizeof harness_case_text, "random walk, method %s, %zu-byte type, form %d%s, %d x %d",
             mct_method_name(m), sizeof(T), F, SERIAL ? ", serial lanes" : "", grid, block);
    unsigned long long* steps;
    CHECK_CUDA(cudaMalloc((void**)&steps, sizeof *steps));
    CHECK_CUDA(cudaMemset(steps, 0, sizeof *steps));
    MCT_LAUNCH((rw_kernel<T, MCT_METHOD_FROM_VIEW, F, SERIAL>), (unsigned)grid, block, rw_smem<T>(t.view, F, block), 0,
               t.view, walkers, (uint64_t)77, steps);
    CHECK_CUDA(cudaGetLastError());
    CHECK_CUDA(cudaDeviceSynchronize());
    unsigned long long n = 0;
    CHECK_CUDA(cudaMemcpy(&n, steps, sizeof n, cudaMemcpyDeviceToHost));
    ASSERT_EQ_I64((int64_t)n, (int64_t)ref.size());
    harness_buffered = F == RW_BUFFERED;
    harness_check<T>(t, ref);
    std::vector<unsigned char> raw((size_t)nbins * t.bin_bytes);
    CHECK_CUDA(cudaMemcpy(raw.data(), t.view.bins, raw.size(), cudaMemcpyDeviceToHost));
    harness_tally_free(t);
    cudaFree(steps);
    return raw;
}

template <typename T>
static void random_walk_methods(int64_t nbins, uint64_t walkers) {
    static const mct_method_t all[] = {MCT_METHOD_ATOMIC, MCT_METHOD_SHARED,      MCT_METHOD_WARP_REDUCE,
                                       MCT_METHOD_BLOCK_REDUCE, MCT_METHOD_REPLICATED, MCT_METHOD_CAS,
                                       MCT_METHOD_WAG,    MCT_METHOD_WIB,         MCT_METHOD_WAG_MATCH,
                                       MCT_METHOD_KAHAN,  MCT_METHOD_KAHAN_NAIVE, MCT_METHOD_FIXED,
                                       MCT_METHOD_SORT_REDUCE};
    for (mct_method_t m : all) {
        if ((m == MCT_METHOD_KAHAN || m == MCT_METHOD_KAHAN_NAIVE) && sizeof(T) != 4) continue;
        rw_case<T, RW_BUFFERED, false>(m, nbins, walkers, 5, 96);
        rw_case<T, RW_BUFFERED, true>(m, nbins, walkers / 4, 3, 64);
    }
}

/** The storage a launch must give: the cache for every cached method, the
 * run-time form (the view's method) included, the slots for sort_reduce,
 * nothing for the direct methods; never a function of the bin count. */
static void storage_sizes(void) {
    for (int m = 0; m < MCT_METHOD_COUNT; ++m) {
        const mct_method_t mm = (mct_method_t)m;
        const size_t want = (mm == MCT_METHOD_ATOMIC || mm == MCT_METHOD_SHARED || mm == MCT_METHOD_REPLICATED) ? 0
                            : mm == MCT_METHOD_SORT_REDUCE ? (size_t)MCT_DEPOSIT_SLOTS * 96 * 12
                                                           : (size_t)MCT_DEPOSIT_HOT_BINS * 12;
        ASSERT_EQ_I64((int64_t)mct_deposit_buffer_storage_bytes(mm, 96), (int64_t)want);
        for (int64_t nbins : {1, 100000, 2000000000}) {
            mct_tally_view_t v;
            memset(&v, 0, sizeof v);
            v.method = mm, v.nbins = nbins, v.dtype = MCT_DTYPE_F32;
            ASSERT_EQ_I64((int64_t)mct_deposit_buffer_smem_bytes<float>(v, 96), (int64_t)want);
            ASSERT_EQ_I64((int64_t)(mct_deposit_buffer_smem_bytes<float, 64, 2>(v, 96)),
                          (int64_t)mct_deposit_buffer_storage_bytes(mm, 96, 64, 2));
        }
    }
    ASSERT_EQ_I64((int64_t)mct_deposit_buffer_storage_bytes(MCT_METHOD_CAS, 96, 64, 2), 64 * 12);
    ASSERT_EQ_I64((int64_t)mct_deposit_buffer_storage_bytes(MCT_METHOD_SORT_REDUCE, 96, 64, 2), 2 * 96 * 12);
}

int main(void) {
    if (!test_have_device()) return 77;
    storage_sizes();
    float_methods<float>();
    float_methods<double>();
    sweep_both<float, MCT_METHOD_KAHAN>();
    sweep_both<float, MCT_METHOD_KAHAN_NAIVE>();
    integer_methods<int32_t>();
    integer_methods<uint64_t>();
    printf("deposit buffer, harness: every method right\n");

    const int64_t nbins = 100000;
    const uint64_t walkers = harness_quick() ? 600 : 4000;
    random_walk_methods<float>(nbins, walkers);
    random_walk_methods<double>(nbins, walkers);
    /* A few bins: the cache holds all of them (a block-private copy). */
    random_walk_methods<double>(200, walkers / 4);
    printf("deposit buffer, random walk into 1e5 bins: every method right\n");

    /* fixed: the same bits buffered or direct, whatever the launch shape. */
    const std::vector<unsigned char> direct = rw_case<double, RW_DIRECT, false>(MCT_METHOD_FIXED, nbins, walkers, 4, 128);
    const std::vector<unsigned char> b1 = rw_case<double, RW_BUFFERED, false>(MCT_METHOD_FIXED, nbins, walkers, 7, 32);
    const std::vector<unsigned char> b2 = rw_case<double, RW_BUFFERED, false>(MCT_METHOD_FIXED, nbins, walkers, 2, 256);
    const std::vector<unsigned char> b3 = rw_case<double, RW_BUFFERED, true>(MCT_METHOD_FIXED, nbins, walkers, 3, 65);
    ASSERT_TRUE(b1 == direct);
    ASSERT_TRUE(b2 == direct);
    ASSERT_TRUE(b3 == direct);
    printf("deposit buffer, fixed: bitwise equal to direct on every launch shape\n");
    return 0;
}
