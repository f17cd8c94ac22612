/* SPDX-License-Identifier: BSD-3-Clause */
/** @file test_device_scan.cu  The device-wide scans through the C API (mct_scan.h):
 * every type x operator x inclusive/exclusive x algorithm (decoupled look-back and
 * chained), n in {0, 1, 31, 32, 33, block size - 1, block size, block size + 1,
 * tile - 1, tile, tile + 1, 3 tiles + 1, larger}, random values; in place; a user
 * operator through the public dispatch template (mctally/device/scan/); the
 * two-phase temp-storage contract of the C API and of the dispatch template; the
 * look-back on every tile-state layout; the 16-byte tile word read whole while it is
 * being rewritten; every tile-state layout of scan_tuning.cuh on small non-default
 * tile shapes through the dispatch template.
 *
 * Integers (full-range random values, so sums wrap) and float max/min must be exact.
 * Float sums must lie within a derived bound: out[i] is the sum of its inputs (and
 * init) evaluated as a tree of depth k, and for any such tree
 *     |out[i] - exact| <= gamma_k * S_i,   gamma_k = k u / (1 - k u),
 * with S_i the sum of the absolute values of those inputs and u the unit roundoff
 * (Higham, Accuracy and Stability of Numerical Algorithms, 2nd ed., eq. 4.4 and
 * Lemma 3.1). For the device scan, k <= t + 64 where t is the index of i's tile:
 * the thread's sequential scan adds at most ITEMS - 1 <= 30 levels, the warp scan 5,
 * the fold of the warp totals 7, the tile's prefix and the thread's prefix 2, init 1;
 * and a tile's published prefix is at most one level deeper per tile than the one
 * it was built from (a look-back over h tiles adds ceil(log2 h) + 1 <= h levels).
 * The exact value is computed in long double with Neumaier's compensated sum.
 *
 * On a GPU the sizes also include 2^28 i32 elements (unless MCT_TEST_QUICK is set, as
 * under compute-sanitizer, or memory is short); under the emulation the largest n is a
 * few hundred thousand (set MCT_TEST_LARGE_N to change it). */
#include <math.h>
#include <stdlib.h>

#include <type_traits>
#include <vector>

#include "mctally/device/scan/scan_dispatch.cuh"
#include "mctally/mct_scan.h"
#include "scan_test_common.h"

static const mct_backend_t kBackend = MCT_IS_EMULATED ? MCT_BACKEND_EMULATED : MCT_BACKEND_CUDA;

template <typename T>
struct scan_type_of;
template <> struct scan_type_of<int32_t> { static const mct_scan_type_t value = MCT_SCAN_I32; };
template <> struct scan_type_of<uint32_t> { static const mct_scan_type_t value = MCT_SCAN_U32; };
template <> struct scan_type_of<int64_t> { static const mct_scan_type_t value = MCT_SCAN_I64; };
template <> struct scan_type_of<uint64_t> { static const mct_scan_type_t value = MCT_SCAN_U64; };
template <> struct scan_type_of<float> { static const mct_scan_type_t value = MCT_SCAN_F32; };
template <> struct scan_type_of<double> { static const mct_scan_type_t value = MCT_SCAN_F64; };

template <typename T>
static bool is_float_type() {
    return T(0.5) != T(0);
}

/** Runs the C API scan on device copies of `in`; returns the host copy of the output.
 * `in_place` scans into the input buffer. */
template <typename T>
static void run_scan(const std::vector<T>& in, std::vector<T>& out, bool exclusive, const T* init,
                     mct_scan_op_t op, mct_scan_algo_t algo, bool in_place) {
    const int64_t n = (int64_t)in.size();
    const mct_scan_type_t type = scan_type_of<T>::value;
    T *d_in = NULL, *d_out = NULL;
    void* d_temp = NULL;
    size_t bytes = 0;
    ASSERT_STATUS(exclusive ? mct_scan_exclusive(kBackend, NULL, &bytes, NULL, NULL, init, n, type, op, algo, NULL)
                            : mct_scan_inclusive(kBackend, NULL, &bytes, NULL, NULL, n, type, op, algo, NULL),
                  MCT_STATUS_SUCCESS);
    ASSERT_TRUE(bytes > 0);
    CHECK_CUDA(cudaMalloc(&d_temp, bytes));
    const size_t nb = (size_t)(n > 0 ? n : 1) * sizeof(T);
    CHECK_CUDA(cudaMalloc((void**)&d_in, nb));
    if (!in_place) CHECK_CUDA(cudaMalloc((void**)&d_out, nb));
    T* dst = in_place ? d_in : d_out;
    if (n > 0) {
        CHECK_CUDA(cudaMemcpy(d_in, in.data(), n * sizeof(T), cudaMemcpyHostToDevice));
        if (!in_place) CHECK_CUDA(cudaMemset(d_out, 0xA5, nb)); /* poison */
    }
    ASSERT_STATUS(exclusive ? mct_scan_exclusive(kBackend, d_temp, &bytes, d_in, dst, init, n, type, op, algo, NULL)
                            : mct_scan_inclusive(kBackend, d_temp, &bytes, d_in, dst, n, type, op, algo, NULL),
                  MCT_STATUS_SUCCESS);
    CHECK_CUDA(cudaDeviceSynchronize());
    out.resize(n);
    if (n > 0) CHECK_CUDA(cudaMemcpy(out.data(), dst, n * sizeof(T), cudaMemcpyDeviceToHost));
    cudaFree(d_in), cudaFree(d_out), cudaFree(d_temp);
}

/** Exact checks (integers, float max/min, user operators): the same operator applied
 * in order. A failure reports the first wrong element and the extent of the wrong
 * ones (a wrong tile prefix shows as a run starting at a tile's first element). */
template <typename T, typename Op>
static void check_exact(const std::vector<T>& in, const std::vector<T>& out, bool exclusive, T init, Op op,
                        const char* what) {
    T run = init;
    size_t wrong = 0, first = 0, last = 0;
    for (size_t i = 0; i < in.size(); ++i) {
        const T expect = exclusive ? run : (i == 0 ? in[0] : op(run, in[i]));
        run = exclusive ? op(run, in[i]) : expect;
        if (test_same_bits(out[i], expect)) continue;
        if (wrong++ == 0) {
            first = i;
            if constexpr (std::is_arithmetic<T>::value)
                fprintf(stderr, "%s: n %zu: out[%zu] = %.17g, expected %.17g\n", what, in.size(), i,
                        (double)out[i], (double)expect);
            else
                fprintf(stderr, "%s: n %zu: out[%zu] wrong\n", what, in.size(), i);
        }
        last = i;
    }
    if (wrong) {
        fprintf(stderr, "%s: %zu wrong elements in [%zu, %zu]\n", what, wrong, first, last);
        exit(1);
    }
}

/** Float sums: |out[i] - exact| <= gamma_k * S_i, k = tile index + 64. */
template <typename T>
static void check_float_sum(const std::vector<T>& in, const std::vector<T>& out, bool exclusive, T init,
                            int64_t tile_items, const char* what) {
    const long double u = sizeof(T) == 4 ? 0x1.0p-24L : 0x1.0p-53L;
    long double sum = exclusive ? (long double)init : 0.0L, comp = 0.0L;
    long double abs_sum = exclusive ? fabsl((long double)init) : 0.0L;
    for (size_t i = 0; i < in.size(); ++i) {
        if (!exclusive) { /* add in[i] first */
            const long double x = in[i], t = sum + x;
            comp += fabsl(sum) >= fabsl(x) ? (sum - t) + x : (x - t) + sum;
            sum = t;
            abs_sum += fabsl(x);
        }
        const long double k = (long double)((int64_t)i / tile_items) + 64.0L;
        const long double gamma = k * u / (1.0L - k * u);
        const long double err = fabsl((long double)out[i] - (sum + comp));
        if (!(err <= gamma * abs_sum)) {
            fprintf(stderr, "%s: n %zu: out[%zu] = %.17g, exact %.17Lg, error %.3Lg > bound %.3Lg\n", what,
                    in.size(), i, (double)out[i], sum + comp, err, gamma * abs_sum);
            exit(1);
        }
        if (exclusive) {
            const long double x = in[i], t = sum + x;
            comp += fabsl(sum) >= fabsl(x) ? (sum - t) + x : (x - t) + sum;
            sum = t;
            abs_sum += fabsl(x);
        }
    }
}

template <typename T>
static void check_one(int64_t n, mct_scan_op_t op, bool exclusive, mct_scan_algo_t algo, uint64_t* seed,
                      bool in_place = false) {
    std::vector<T> in((size_t)n), out;
    for (auto& v : in) v = test_value<T>(seed, false);
    T init = test_value<T>(seed, false);
    /* Every few cases, init NULL: the operator's identity. */
    const bool null_init = exclusive && (test_splitmix64(seed) % 4 == 0);
    run_scan<T>(in, out, exclusive, null_init ? NULL : &init, op, algo, in_place);
    char what[128];
    snprintf(what, sizeof what, "%s %s %s %s%s (%s)", mct_scan_type_name(scan_type_of<T>::value),
             mct_scan_op_name(op), exclusive ? "exclusive" : "inclusive", mct_scan_algo_name(algo),
             in_place ? " in place" : "", null_init ? "identity init" : "init");
    if (op == MCT_SCAN_SUM) {
        if (null_init) init = T(0);
        if (is_float_type<T>())
            check_float_sum(in, out, exclusive, init, mct_scan_default_policy<(int)sizeof(T)>::tile_items, what);
        else
            check_exact(in, out, exclusive, init, mct_op_sum<T>(), what);
    } else if (op == MCT_SCAN_MAX) {
        if (null_init) init = mct_op_max<T>::identity();
        check_exact(in, out, exclusive, init, mct_op_max<T>(), what);
    } else {
        if (null_init) init = mct_op_min<T>::identity();
        check_exact(in, out, exclusive, init, mct_op_min<T>(), what);
    }
}

template <typename T>
static void check_type(const std::vector<int64_t>& sizes, int64_t large, uint64_t* seed) {
    for (int a = 0; a < MCT_SCAN_ALGO_COUNT; ++a)
        for (int ex = 0; ex < 2; ++ex) {
            for (int op = 0; op < MCT_SCAN_OP_COUNT; ++op)
                for (int64_t n : sizes) check_one<T>(n, (mct_scan_op_t)op, ex != 0, (mct_scan_algo_t)a, seed);
            check_one<T>(large, MCT_SCAN_SUM, ex != 0, (mct_scan_algo_t)a, seed);
            check_one<T>(5000, MCT_SCAN_SUM, ex != 0, (mct_scan_algo_t)a, seed, true);
        }
}

/** Sizes at the edges of a warp, of the block and of the tile of T's policy. */
template <typename T>
static std::vector<int64_t> sizes_for() {
    const int64_t block = mct_scan_default_policy<(int)sizeof(T)>::threads;
    const int64_t tile = mct_scan_default_policy<(int)sizeof(T)>::tile_items;
    return {0, 1, 31, 32, 33, block - 1, block, block + 1, tile - 1, tile, tile + 1, 3 * tile + 1};
}

/** A user operator (non-commutative affine composition) through the dispatch template. */
static void check_user_op(int64_t n, mct_scan_algo_t algo, uint64_t* seed) {
    using policy = mct_scan_default_policy<8>;
    std::vector<test_affine> in((size_t)n), out((size_t)n);
    for (auto& v : in) v = test_affine_value(seed);
    test_affine *d_in, *d_out;
    void* d_temp;
    size_t bytes = 0;
    const test_affine id = {1u, 0u};
    ASSERT_STATUS((mct_dispatch_scan<policy, test_affine, test_op_compose>(NULL, &bytes, NULL, NULL, n, false, id,
                                                                          test_op_compose(), algo,
                                                                          mct_scan_default_delays(), 0)),
                  MCT_STATUS_SUCCESS);
    CHECK_CUDA(cudaMalloc(&d_temp, bytes));
    CHECK_CUDA(cudaMalloc((void**)&d_in, n * sizeof(test_affine)));
    CHECK_CUDA(cudaMalloc((void**)&d_out, n * sizeof(test_affine)));
    CHECK_CUDA(cudaMemcpy(d_in, in.data(), n * sizeof(test_affine), cudaMemcpyHostToDevice));
    ASSERT_STATUS((mct_dispatch_scan<policy, test_affine, test_op_compose>(d_temp, &bytes, d_in, d_out, n, false, id,
                                                                          test_op_compose(), algo,
                                                                          mct_scan_default_delays(), 0)),
                  MCT_STATUS_SUCCESS);
    CHECK_CUDA(cudaDeviceSynchronize());
    CHECK_CUDA(cudaMemcpy(out.data(), d_out, n * sizeof(test_affine), cudaMemcpyDeviceToHost));
    char what[96];
    snprintf(what, sizeof what, "user operator (%s, tile %d)", mct_scan_algo_name(algo), policy::tile_items);
    check_exact(in, out, false, id, test_op_compose(), what);
    cudaFree(d_in), cudaFree(d_out), cudaFree(d_temp);
}

/** The two-phase contract and argument validation. */
static void check_contract(void) {
    size_t bytes = 0, zero_bytes = 0;
    ASSERT_STATUS(mct_scan_inclusive(kBackend, NULL, &zero_bytes, NULL, NULL, 0, MCT_SCAN_I32, MCT_SCAN_SUM,
                                     MCT_SCAN_DECOUPLED_LOOKBACK, NULL),
                  MCT_STATUS_SUCCESS);
    ASSERT_TRUE(zero_bytes > 0); /* never 0 bytes */
    ASSERT_STATUS(mct_scan_inclusive(kBackend, NULL, &bytes, NULL, NULL, 100000, MCT_SCAN_F64, MCT_SCAN_SUM,
                                     MCT_SCAN_DECOUPLED_LOOKBACK, NULL),
                  MCT_STATUS_SUCCESS);
    void* d_temp;
    double *d_in, *d_out;
    CHECK_CUDA(cudaMalloc(&d_temp, bytes));
    CHECK_CUDA(cudaMalloc((void**)&d_in, 100000 * sizeof(double)));
    CHECK_CUDA(cudaMalloc((void**)&d_out, 100000 * sizeof(double)));
    size_t small = bytes - 1;
    ASSERT_STATUS(mct_scan_inclusive(kBackend, d_temp, &small, d_in, d_out, 100000, MCT_SCAN_F64, MCT_SCAN_SUM,
                                     MCT_SCAN_DECOUPLED_LOOKBACK, NULL),
                  MCT_STATUS_INVALID_VALUE);
    ASSERT_STATUS(mct_scan_inclusive(kBackend, d_temp, NULL, d_in, d_out, 10, MCT_SCAN_F64, MCT_SCAN_SUM,
                                     MCT_SCAN_DECOUPLED_LOOKBACK, NULL),
                  MCT_STATUS_NULL_POINTER);
    ASSERT_STATUS(mct_scan_inclusive(kBackend, d_temp, &bytes, NULL, d_out, 10, MCT_SCAN_F64, MCT_SCAN_SUM,
                                     MCT_SCAN_DECOUPLED_LOOKBACK, NULL),
                  MCT_STATUS_NULL_POINTER);
    ASSERT_STATUS(mct_scan_inclusive(kBackend, d_temp, &bytes, d_in, d_out, -1, MCT_SCAN_F64, MCT_SCAN_SUM,
                                     MCT_SCAN_DECOUPLED_LOOKBACK, NULL),
                  MCT_STATUS_INVALID_VALUE);
    ASSERT_STATUS(mct_scan_inclusive(kBackend, d_temp, &bytes, d_in, d_out, 10, (mct_scan_type_t)17, MCT_SCAN_SUM,
                                     MCT_SCAN_DECOUPLED_LOOKBACK, NULL),
                  MCT_STATUS_INVALID_VALUE);
    ASSERT_STATUS(mct_scan_exclusive(kBackend, d_temp, &bytes, d_in, d_out, NULL, 10, MCT_SCAN_F64,
                                     (mct_scan_op_t)9, MCT_SCAN_DECOUPLED_LOOKBACK, NULL),
                  MCT_STATUS_INVALID_VALUE);
    ASSERT_STATUS(mct_scan_inclusive(MCT_BACKEND_AUTO, d_temp, &bytes, d_in, d_out, 10, MCT_SCAN_F64, MCT_SCAN_SUM,
                                     MCT_SCAN_DECOUPLED_LOOKBACK, NULL),
                  MCT_STATUS_INVALID_VALUE);
    ASSERT_STATUS(mct_scan_inclusive((mct_backend_t)42, d_temp, &bytes, d_in, d_out, 10, MCT_SCAN_F64, MCT_SCAN_SUM,
                                     MCT_SCAN_DECOUPLED_LOOKBACK, NULL),
                  MCT_STATUS_UNKNOWN_BACKEND);
    /* A blob that is not 256-byte aligned still works when it has the queried size
     * plus the offset (the size includes the slack to align it). */
    char* unaligned = (char*)d_temp + 8;
    size_t left = bytes - 8, need = 0;
    ASSERT_STATUS(mct_scan_inclusive(kBackend, NULL, &need, NULL, NULL, 1000, MCT_SCAN_F64, MCT_SCAN_SUM,
                                     MCT_SCAN_DECOUPLED_LOOKBACK, NULL),
                  MCT_STATUS_SUCCESS);
    ASSERT_TRUE(need <= left);
    CHECK_CUDA(cudaMemset(d_in, 0, 1000 * sizeof(double)));
    ASSERT_STATUS(mct_scan_inclusive(kBackend, unaligned, &left, d_in, d_out, 1000, MCT_SCAN_F64, MCT_SCAN_SUM,
                                     MCT_SCAN_DECOUPLED_LOOKBACK, NULL),
                  MCT_STATUS_SUCCESS);
    CHECK_CUDA(cudaDeviceSynchronize());
    cudaFree(d_temp), cudaFree(d_in), cudaFree(d_out);
    ASSERT_EQ_I64(mct_scan_determinism(kBackend, MCT_SCAN_F64, MCT_SCAN_SUM, MCT_SCAN_DECOUPLED_LOOKBACK),
                  MCT_NOT_GUARANTEED);
    ASSERT_EQ_I64(mct_scan_determinism(kBackend, MCT_SCAN_F64, MCT_SCAN_SUM, MCT_SCAN_CHAINED), MCT_RUN_TO_RUN);
    ASSERT_EQ_I64(mct_scan_determinism(kBackend, MCT_SCAN_F32, MCT_SCAN_MAX, MCT_SCAN_DECOUPLED_LOOKBACK),
                  MCT_BITWISE);
}

/** The dispatch template's own argument checks (the C API checks before calling it,
 * a user of the template relies on these). */
static void check_dispatch_contract(void) {
    using policy = mct_scan_default_policy<4>;
    using op_t = mct_op_sum<uint32_t>;
    const mct_scan_delays_t d = mct_scan_default_delays();
    const int64_t n = 1000;
    size_t bytes = 0;
    ASSERT_STATUS((mct_dispatch_scan<policy, uint32_t, op_t>(NULL, NULL, NULL, NULL, n, false, 0u, op_t(),
                                                              MCT_SCAN_DECOUPLED_LOOKBACK, d, 0)),
                  MCT_STATUS_NULL_POINTER);
    ASSERT_STATUS((mct_dispatch_scan<policy, uint32_t, op_t>(NULL, &bytes, NULL, NULL, -1, false, 0u, op_t(),
                                                              MCT_SCAN_DECOUPLED_LOOKBACK, d, 0)),
                  MCT_STATUS_INVALID_VALUE);
    ASSERT_STATUS((mct_dispatch_scan<policy, uint32_t, op_t>(NULL, &bytes, NULL, NULL, n, false, 0u, op_t(),
                                                              MCT_SCAN_DECOUPLED_LOOKBACK, d, 0)),
                  MCT_STATUS_SUCCESS);
    ASSERT_EQ_I64((int64_t)bytes, (int64_t)(mct_scan_temp_bytes<policy, uint32_t>(n)));
    void* d_temp;
    uint32_t *d_in, *d_out;
    CHECK_CUDA(cudaMalloc(&d_temp, bytes));
    CHECK_CUDA(cudaMalloc((void**)&d_in, n * sizeof(uint32_t)));
    CHECK_CUDA(cudaMalloc((void**)&d_out, n * sizeof(uint32_t)));
    size_t small = bytes - 1;
    ASSERT_STATUS((mct_dispatch_scan<policy, uint32_t, op_t>(d_temp, &small, d_in, d_out, n, false, 0u, op_t(),
                                                              MCT_SCAN_DECOUPLED_LOOKBACK, d, 0)),
                  MCT_STATUS_INVALID_VALUE);
    ASSERT_STATUS((mct_dispatch_scan<policy, uint32_t, op_t>(d_temp, &bytes, NULL, d_out, n, false, 0u, op_t(),
                                                              MCT_SCAN_DECOUPLED_LOOKBACK, d, 0)),
                  MCT_STATUS_NULL_POINTER);
    ASSERT_STATUS((mct_dispatch_scan<policy, uint32_t, op_t>(d_temp, &bytes, d_in, d_out, n, false, 0u, op_t(),
                                                              (mct_scan_algo_t)7, d, 0)),
                  MCT_STATUS_INVALID_VALUE);
    ASSERT_STATUS((mct_dispatch_scan<policy, uint32_t, op_t>(d_temp, &bytes, NULL, NULL, 0, true, 0u, op_t(),
                                                              MCT_SCAN_CHAINED, d, 0)),
                  MCT_STATUS_SUCCESS);
    cudaFree(d_temp), cudaFree(d_in), cudaFree(d_out);
}

/** The look-back itself on prepared tile states of every layout, so that every path
 * runs whatever the block schedule (under a sequential emulation the nearest
 * predecessor has always finished): windows without any PREFIX, a PREFIX in the
 * middle of a window, and the operator order (affine composition is not
 * commutative). One warp looks back from tile `tile`; tiles before it hold AGGREGATE
 * except those in `prefix_at`. */
template <typename State, typename T, typename Op>
static __global__ void lookback_kernel(State state, unsigned tile, T aggregate, Op op, T* result,
                                       mct_scan_delays_t delays) {
    const T p = mct_scan_lookback(state, tile, aggregate, op, delays);
    if (threadIdx.x == 0) *result = p;
}

template <typename T, int STATE, typename Op, typename Gen>
static void check_lookback(unsigned tile, const std::vector<unsigned>& prefix_at, Op op, Gen gen, uint64_t* seed) {
    using state_t = mct_scan_tile_state<T, STATE>;
    const int64_t tiles = tile + 1;
    const size_t bytes = state_t::bytes(tiles);
    std::vector<unsigned char> host(bytes, 0);
    void* d_blob;
    CHECK_CUDA(cudaMalloc(&d_blob, bytes));
    /* Host image of the states, at the same offsets as on the device. */
    std::vector<T> agg(tile), incl(tile);
    for (unsigned t = 0; t < tile; ++t) {
        agg[t] = gen(seed);
        incl[t] = t == 0 ? agg[0] : op(incl[t - 1], agg[t]);
    }
    for (unsigned t = 0; t < tile; ++t) {
        bool is_prefix = t == 0;
        for (unsigned p : prefix_at) is_prefix |= p == t;
        state_t::host_set(host.data(), tiles, t, is_prefix ? MCT_SCAN_TILE_PREFIX : MCT_SCAN_TILE_AGGREGATE,
                          is_prefix ? incl[t] : agg[t]);
    }
    CHECK_CUDA(cudaMemcpy(d_blob, host.data(), bytes, cudaMemcpyHostToDevice));
    T* d_result;
    CHECK_CUDA(cudaMalloc((void**)&d_result, sizeof(T)));
    const T own = gen(seed);
    MCT_LAUNCH((lookback_kernel<state_t, T, Op>), 1, 32, 0, 0, state_t::carve(d_blob, tiles), tile, own, op,
               d_result, mct_scan_default_delays());
    CHECK_CUDA(cudaGetLastError());
    T result;
    CHECK_CUDA(cudaMemcpy(&result, d_result, sizeof(T), cudaMemcpyDeviceToHost));
    if (!test_same_bits(result, incl[tile - 1])) {
        fprintf(stderr, "look-back from tile %u (%zu-byte values, state %d): wrong prefix\n", tile, sizeof(T), STATE);
        exit(1);
    }
    /* The tile published its own inclusive prefix. */
    CHECK_CUDA(cudaMemcpy(host.data(), d_blob, bytes, cudaMemcpyDeviceToHost));
    T published;
    ASSERT_EQ_I64(state_t::host_get(host.data(), tiles, tile, published), MCT_SCAN_TILE_PREFIX);
    ASSERT_TRUE(test_same_bits(published, op(incl[tile - 1], own)));
    cudaFree(d_blob), cudaFree(d_result);
}

template <int STATE>
static void check_lookback_layout(uint64_t* seed) {
    auto gen_u32 = [](uint64_t* s) { return (uint32_t)test_splitmix64(s); };
    auto gen_u64 = [](uint64_t* s) { return (uint64_t)test_splitmix64(s); };
    const std::vector<std::vector<unsigned>> layouts = {{}, {37}, {99}, {64, 65}, {3, 50, 70}};
    for (const auto& at : layouts) {
        check_lookback<test_affine, STATE>(100, at, test_op_compose(), test_affine_value, seed);
        check_lookback<uint32_t, STATE>(100, at, mct_op_sum<uint32_t>(), gen_u32, seed);
        check_lookback<uint64_t, STATE>(100, at, mct_op_sum<uint64_t>(), gen_u64, seed);
    }
    check_lookback<test_affine, STATE>(1, {}, test_op_compose(), test_affine_value, seed);
    check_lookback<test_affine, STATE>(33, {}, test_op_compose(), test_affine_value, seed);
    check_lookback<uint32_t, STATE>(32, {}, mct_op_sum<uint32_t>(), gen_u32, seed);
}

static void check_lookback_paths(uint64_t* seed) {
    check_lookback_layout<MCT_SCAN_STATE_PACKED>(seed);
    check_lookback_layout<MCT_SCAN_STATE_SPLIT>(seed);
}

/** The packed 16-byte tile word is indivisible in practice, as the look-back assumes:
 * one thread publishes (status k, value h(k)) for k = 1..stores into one word through
 * the state's own publish(), while every thread of the other blocks polls it through
 * peek() and counts reads whose value is not h(status) (a status from one store with
 * the value of another). Zero such reads are required. */
static __host__ __device__ uint64_t word_check_value(unsigned k) {
    return (uint64_t)k * UINT64_C(0x9E3779B97F4A7C15) ^ UINT64_C(0x5555555555555555);
}
template <typename State>
static __global__ void word_tearing_kernel(State state, unsigned stores, unsigned polls,
                                           unsigned long long* torn, unsigned long long* seen) {
    if (blockIdx.x == 0) {
        if (threadIdx.x == 0)
            for (unsigned k = 1; k <= stores; ++k) state.publish(0, k, word_check_value(k));
        return;
    }
    unsigned long long bad = 0, nonzero = 0;
    for (unsigned i = 0; i < polls; ++i) {
        uint64_t v = 0;
        const unsigned k = state.peek(0, v);
        if (k == 0 ? v != 0 : v != word_check_value(k)) ++bad;
        nonzero += k != 0;
        if (k == stores) break;
    }
    atomicAdd(torn, bad);
    atomicAdd(seen, nonzero);
}

template <int STATE>
static void check_word_indivisible(const char* name) {
    using state_t = mct_scan_tile_state<uint64_t, STATE>;
    void* d_blob;
    unsigned long long* d_counts;
    CHECK_CUDA(cudaMalloc(&d_blob, state_t::bytes(1)));
    CHECK_CUDA(cudaMemset(d_blob, 0, state_t::bytes(1)));
    CHECK_CUDA(cudaMalloc((void**)&d_counts, 2 * sizeof(unsigned long long)));
    CHECK_CUDA(cudaMemset(d_counts, 0, 2 * sizeof(unsigned long long)));
    const unsigned stores = MCT_IS_EMULATED ? 20000 : 400000, polls = MCT_IS_EMULATED ? 2000 : 200000;
    const int readers = MCT_IS_EMULATED ? 3 : 64;
    MCT_LAUNCH((word_tearing_kernel<state_t>), 1 + readers, 64, 0, 0, state_t::carve(d_blob, 1), stores, polls,
               d_counts, d_counts + 1);
    CHECK_CUDA(cudaGetLastError());
    unsigned long long counts[2];
    CHECK_CUDA(cudaMemcpy(counts, d_counts, sizeof counts, cudaMemcpyDeviceToHost));
    printf("tile word (%s): %llu torn of %llu non-initial reads\n", name, counts[0], counts[1]);
    if (counts[0] != 0) {
        fprintf(stderr, "tile word (%s): %llu reads mixed two stores\n", name, counts[0]);
        exit(1);
    }
    uint64_t last = 0;
    std::vector<unsigned char> host(state_t::bytes(1));
    CHECK_CUDA(cudaMemcpy(host.data(), d_blob, host.size(), cudaMemcpyDeviceToHost));
    ASSERT_EQ_I64(state_t::host_get(host.data(), 1, 0, last), stores);
    ASSERT_TRUE(last == word_check_value(stores));
    cudaFree(d_blob), cudaFree(d_counts);
}

/** One policy of the tuning choices through the dispatch template, against the
 * sequential scan (exact: integers wrap, affine maps compose exactly): one element, a
 * partial first tile, whole tiles, a partial last tile; inclusive and exclusive; both
 * designs; and pointers 16-byte aligned and one element past it. */
template <typename Policy, typename T, typename Op, typename Gen>
static void check_policy(const char* name, Op op, T init, Gen gen, uint64_t* seed) {
    const int64_t tile = Policy::tile_items;
    const int64_t sizes[] = {1, tile - 1, 3 * tile, 5 * tile + 7};
    const int64_t most = 5 * tile + 8;
    T *d_in, *d_out;
    CHECK_CUDA(cudaMalloc((void**)&d_in, most * sizeof(T)));
    CHECK_CUDA(cudaMalloc((void**)&d_out, most * sizeof(T)));
    for (int64_t n : sizes)
        for (int ex = 0; ex < 2; ++ex)
            for (int a = 0; a < MCT_SCAN_ALGO_COUNT; ++a)
                for (int off = 0; off < 2; ++off) {
                    std::vector<T> in((size_t)n), out((size_t)n);
                    for (auto& v : in) v = gen(seed);
                    CHECK_CUDA(cudaMemcpy(d_in + off, in.data(), n * sizeof(T), cudaMemcpyHostToDevice));
                    CHECK_CUDA(cudaMemset(d_out, 0xA5, most * sizeof(T)));
                    size_t bytes = 0;
                    const mct_scan_algo_t algo = (mct_scan_algo_t)a;
                    ASSERT_STATUS((mct_dispatch_scan<Policy, T, Op>(NULL, &bytes, NULL, NULL, n, ex != 0, init, op,
                                                                    algo, mct_scan_default_delays(), 0)),
                                  MCT_STATUS_SUCCESS);
                    void* d_temp;
                    CHECK_CUDA(cudaMalloc(&d_temp, bytes));
                    ASSERT_STATUS((mct_dispatch_scan<Policy, T, Op>(d_temp, &bytes, d_in + off, d_out + off, n,
                                                                    ex != 0, init, op, algo, mct_scan_default_delays(),
                                                                    0)),
                                  MCT_STATUS_SUCCESS);
                    CHECK_CUDA(cudaDeviceSynchronize());
                    CHECK_CUDA(cudaMemcpy(out.data(), d_out + off, n * sizeof(T), cudaMemcpyDeviceToHost));
                    cudaFree(d_temp);
                    char what[160];
                    snprintf(what, sizeof what, "policy %s, %zu-byte values, %s %s, offset %d", name, sizeof(T),
                             ex ? "exclusive" : "inclusive", mct_scan_algo_name((mct_scan_algo_t)a), off);
                    check_exact(in, out, ex != 0, init, op, what);
                }
    cudaFree(d_in), cudaFree(d_out);
}

/** Each tile-state layout of scan_tuning.cuh, with blocks of two or three warps (so
 * tiles are small and every case spans several warps' regions and tiles). */
static void check_policies(uint64_t* seed) {
    auto gen_u32 = [](uint64_t* s) { return (uint32_t)test_splitmix64(s); };
    auto gen_u64 = [](uint64_t* s) { return (uint64_t)test_splitmix64(s); };
    const test_affine id = {1u, 0u};
    using packed = mct_scan_policy<64, 7, MCT_SCAN_STATE_PACKED>;
    using split = mct_scan_policy<96, 5, MCT_SCAN_STATE_SPLIT>;
    check_policy<packed, uint32_t>("64x7 packed", mct_op_sum<uint32_t>(), 7u, gen_u32, seed);
    check_policy<packed, uint64_t>("64x7 packed", mct_op_sum<uint64_t>(), 7u, gen_u64, seed);
    check_policy<packed, test_affine>("64x7 packed", test_op_compose(), id, test_affine_value, seed);
    check_policy<split, uint32_t>("96x5 split", mct_op_sum<uint32_t>(), 7u, gen_u32, seed);
    check_policy<split, uint64_t>("96x5 split", mct_op_sum<uint64_t>(), 7u, gen_u64, seed);
    check_policy<split, test_affine>("96x5 split", test_op_compose(), id, test_affine_value, seed);
}

/** The chained design's float sums are identical from run to run. */
static void check_chained_run_to_run(int64_t n, uint64_t* seed) {
    std::vector<double> in((size_t)n), a, b;
    for (auto& v : in) v = test_value<double>(seed, false);
    run_scan<double>(in, a, false, NULL, MCT_SCAN_SUM, MCT_SCAN_CHAINED, false);
    run_scan<double>(in, b, false, NULL, MCT_SCAN_SUM, MCT_SCAN_CHAINED, false);
    ASSERT_TRUE(memcmp(a.data(), b.data(), (size_t)n * sizeof(double)) == 0);
}

int main(void) {
    if (!test_have_device()) return 77;
    const int quick = getenv("MCT_TEST_QUICK") != NULL;
    int64_t large = MCT_IS_EMULATED ? 200003 : (quick ? 300007 : (INT64_C(1) << 24) + 3);
    if (getenv("MCT_TEST_LARGE_N")) large = atoll(getenv("MCT_TEST_LARGE_N"));
    uint64_t seed = 20160601;
    check_contract();
    check_dispatch_contract();
    check_lookback_paths(&seed);
    check_word_indivisible<MCT_SCAN_STATE_PACKED>("16 bytes, packed");
    /* MCT_TEST_REPEAT repeats the multi-tile checks whose tiles look back while others
     * publish (a stress run for timing-dependent faults). */
    const int repeat = getenv("MCT_TEST_REPEAT") ? atoi(getenv("MCT_TEST_REPEAT")) : 1;
    for (int r = 1; r < repeat; ++r) {
        check_policies(&seed);
        for (int a = 0; a < MCT_SCAN_ALGO_COUNT; ++a) check_user_op(100003, (mct_scan_algo_t)a, &seed);
    }
    check_policies(&seed);
    check_type<int32_t>(sizes_for<int32_t>(), large, &seed);
    check_type<uint32_t>(sizes_for<uint32_t>(), large, &seed);
    check_type<int64_t>(sizes_for<int64_t>(), large, &seed);
    check_type<uint64_t>(sizes_for<uint64_t>(), large, &seed);
    check_type<float>(sizes_for<float>(), large, &seed);
    check_type<double>(sizes_for<double>(), large, &seed);
    for (int a = 0; a < MCT_SCAN_ALGO_COUNT; ++a) {
        check_user_op(1, (mct_scan_algo_t)a, &seed);
        check_user_op(100003, (mct_scan_algo_t)a, &seed);
    }
    check_chained_run_to_run(MCT_IS_EMULATED ? 50000 : (quick ? 100003 : 1 << 22), &seed);
    printf("device scan: all types, operators, sizes and algorithms correct (largest n %lld)\n", (long long)large);
#if !MCT_IS_EMULATED
    /* At scale on the GPU: 2^28 i32 elements, both designs, when memory allows. */
    size_t free_bytes = 0, total_bytes = 0;
    cudaMemGetInfo(&free_bytes, &total_bytes);
    const int64_t big = INT64_C(1) << 28;
    if (!quick && free_bytes > (size_t)big * 4 * 2 + ((size_t)1 << 30)) {
        for (int a = 0; a < MCT_SCAN_ALGO_COUNT; ++a) {
            check_one<int32_t>(big, MCT_SCAN_SUM, false, (mct_scan_algo_t)a, &seed);
            check_one<int32_t>(big + 12345, MCT_SCAN_SUM, true, (mct_scan_algo_t)a, &seed);
        }
        printf("device scan: 2^28 i32 inclusive and 2^28 + 12345 exclusive exact with both designs\n");
    } else {
        printf("device scan: 2^28 case skipped (%s)\n", quick ? "MCT_TEST_QUICK" : "not enough device memory");
    }
#endif
    return 0;
}
