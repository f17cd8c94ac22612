/* SPDX-License-Identifier: BSD-3-Clause */
/** @file test_device_add.cu  The device backends' whole-array adds
 * (mct_tally_add_device and its grouped form, on the emulated backend here and
 * the cuda backend on a GPU) for every method x dtype, their refusals, and on a
 * GPU the sort_reduce pass (mct_tally_flush): exact or within the rounding
 * bound of the reference, and sort_reduce bitwise identical whatever the order
 * the pairs were appended in. The same adds from int64 keys
 * (mct_tally_add_device_keys), whose keys outside the bins, negative ones and
 * ones that 32 bits would wrap onto a bin among them, are dropped and flagged. */
#include "mct_add_harness.cuh"

#if MCT_IS_EMULATED
#define TEST_BACKEND MCT_BACKEND_EMULATED
#else
#define TEST_BACKEND MCT_BACKEND_CUDA
#endif

/** A tally of the backend under test, and the harness's view of its bins. */
struct device_tally {
    mct_tally_t tally;
    harness_tally h;
};

static device_tally device_tally_create(mct_method_t m, mct_dtype_t dtype, int64_t nbins, int64_t pair_capacity) {
    mct_tally_desc_t d;
    mct_tally_desc_init(&d);
    d.bins = nbins;
    d.dtype = dtype;
    d.method = m;
    d.backend = TEST_BACKEND;
    d.fixed_frac_bits = 24;
    d.pair_capacity = pair_capacity > 0 ? pair_capacity : 1;
    device_tally t;
    memset(&t, 0, sizeof t);
    ASSERT_STATUS(mct_tally_create(&t.tally, &d), MCT_STATUS_SUCCESS);
    ASSERT_STATUS(mct_tally_view(t.tally, &t.h.view), MCT_STATUS_SUCCESS);
    t.h.bin_bytes = mct_method_storage_size(m, dtype);
    return t;
}

/* Brings deferred contributions into the bins (replicas, sort_reduce's pairs),
 * after which the bins are read as a plain tally's. */
static void device_tally_flush(device_tally& t) {
    ASSERT_STATUS(mct_tally_flush(t.tally), MCT_STATUS_SUCCESS);
    CHECK_CUDA(cudaDeviceSynchronize());
    ASSERT_STATUS(mct_tally_view(t.tally, &t.h.view), MCT_STATUS_SUCCESS);
    if (t.h.view.method == MCT_METHOD_REPLICATED || t.h.view.method == MCT_METHOD_SORT_REDUCE)
        t.h.view.method = MCT_METHOD_ATOMIC;
}

/** Whether the backend under test serves method m for dtype; when it does
 * not, creating such a tally must say NOT_SUPPORTED. */
static bool served(mct_method_t m, mct_dtype_t dtype) {
    if (mct_method_supports(m, dtype, TEST_BACKEND) == MCT_STATUS_SUCCESS) return true;
    mct_tally_desc_t d;
    mct_tally_desc_init(&d);
    d.method = m, d.dtype = dtype, d.backend = TEST_BACKEND;
    mct_tally_t t = NULL;
    ASSERT_STATUS(mct_tally_create(&t, &d), MCT_STATUS_NOT_SUPPORTED);
    return false;
}

/** The tally's value of an f64 input, as the kernels convert it (to the
 * dtype first, for every method). */
template <typename T>
static double converted(double v) {
    if (std::is_integral<T>::value) return (double)(T)(uint64_t)llrint(v);
    return (double)(T)v;
}

struct arrays {
    std::vector<uint32_t> keys;
    std::vector<double> vals;
    uint32_t* d_keys;
    double* d_vals;
};

/** Key patterns: a hot bin (every fifth key) among uniform keys; sorted
 * keys; runs of 3 equal keys (runs that straddle lanes and warps); two busy
 * bins taking turns in runs of 50 among 30% uniform keys; five keys taking
 * turns key by key (few keys, none in a run: peers spread over the warp). */
enum key_pattern { ARRAY_KEYS_HOT, ARRAY_KEYS_SORTED, ARRAY_KEYS_RUNS_OF_3, ARRAY_KEYS_TWO_BUSY, ARRAY_KEYS_FIVE_TURNS };

static uint32_t key_of(key_pattern p, int64_t i, int64_t n, int64_t nbins) {
    switch (p) {
    case ARRAY_KEYS_SORTED: return (uint32_t)(i * nbins / n);
    case ARRAY_KEYS_RUNS_OF_3: return (uint32_t)((i / 3) % nbins);
    case ARRAY_KEYS_FIVE_TURNS: return (uint32_t)((i % 5) * (nbins - 1) / 4);
    case ARRAY_KEYS_TWO_BUSY:
        if (harness_rand() % 10 < 3) break;
        return (uint32_t)((i / 50) % 2 ? 0 : nbins - 1);
    default:
        if (i % 5 == 0) return (uint32_t)(nbins / 2);
    }
    return (uint32_t)(harness_rand() % (uint64_t)nbins);
}

static arrays make_arrays(int64_t n, int64_t nbins, uint64_t seed, bool integers, key_pattern pattern = ARRAY_KEYS_HOT) {
    arrays a;
    harness_rng_state = seed;
    for (int64_t i = 0; i < n; ++i) {
        a.keys.push_back(key_of(pattern, i, n, nbins));
        a.vals.push_back(integers ? (double)(harness_rand() % 7) : (harness_u01() - 0.3) * ldexp(1.0, (int)(harness_rand() % 9)));
    }
    CHECK_CUDA(cudaMalloc((void**)&a.d_keys, n * sizeof(uint32_t)));
    CHECK_CUDA(cudaMalloc((void**)&a.d_vals, n * sizeof(double)));
    CHECK_CUDA(cudaMemcpy(a.d_keys, a.keys.data(), n * sizeof(uint32_t), cudaMemcpyHostToDevice));
    CHECK_CUDA(cudaMemcpy(a.d_vals, a.vals.data(), n * sizeof(double), cudaMemcpyHostToDevice));
    return a;
}
static void free_arrays(arrays& a) {
    cudaFree(a.d_keys);
    cudaFree(a.d_vals);
}

/** Adds the arrays with method M into a fresh tally and checks the result. */
template <typename T, mct_method_t M>
static void check_arrays(const arrays& a, int64_t nbins) {
    const int64_t n = (int64_t)a.keys.size();
    if (!served(M, harness_dtype<T>())) return;
    device_tally t = device_tally_create(M, harness_dtype<T>(), nbins, n);
    snprintf(harness_case_text, sizeof harness_case_text, "add_device: method %s, %zu-byte type, n %lld, bins %lld",
             mct_method_name(M), sizeof(T), (long long)n, (long long)nbins);
    if (M == MCT_METHOD_SHARED && nbins * (int64_t)sizeof(T) > 48 * 1024) { /* no room for the block's copy */
        ASSERT_STATUS(mct_tally_add_device(t.tally, a.d_keys, a.d_vals, n), MCT_STATUS_TOO_LARGE);
        mct_tally_destroy(t.tally);
        return;
    }
    ASSERT_STATUS(mct_tally_add_device(t.tally, a.d_keys, a.d_vals, n), MCT_STATUS_SUCCESS);
    device_tally_flush(t);
    std::vector<harness_contrib> reached;
    for (int64_t i = 0; i < n; ++i) reached.push_back({(int64_t)a.keys[i], converted<T>(a.vals[i])});
    harness_check<T>(t.h, reached);
    mct_tally_destroy(t.tally);
}

/** The grouped form: the first n/width keys each name `width` consecutive
 * bins, component c of group i read from a.vals[c * stride + i]. past_end:
 * the tally ends one bin short of the largest key's last component, so that
 * key's groups reach past its end: they are dropped whole and flagged, the
 * others still add. */
template <typename T, mct_method_t M>
static void check_grouped(const arrays& a, int64_t nbins, int width, bool past_end = false) {
    const int64_t groups = (int64_t)a.keys.size() / width, stride = groups;
    int64_t last_key = 0;
    for (int64_t i = 0; i < groups; ++i) last_key = a.keys[i] > last_key ? a.keys[i] : last_key;
    const int64_t total = past_end ? (last_key + 1) * width - 1 : nbins * width;
    if (!served(M, harness_dtype<T>())) return;
    device_tally t = device_tally_create(M, harness_dtype<T>(), total, groups * width);
    snprintf(harness_case_text, sizeof harness_case_text, "grouped: method %s, %zu-byte type, width %d, bins %lld",
             mct_method_name(M), sizeof(T), width, (long long)total);
    ASSERT_STATUS(mct_tally_add_device_grouped(t.tally, a.d_keys, a.d_vals, groups, width, stride), MCT_STATUS_SUCCESS);
    device_tally_flush(t);
    std::vector<harness_contrib> reached;
    bool dropped = false;
    for (int64_t i = 0; i < groups; ++i) {
        if ((int64_t)a.keys[i] * width + width > total) {
            dropped = true;
            continue;
        }
        for (int c = 0; c < width; ++c)
            reached.push_back({(int64_t)a.keys[i] * width + c, converted<T>(a.vals[c * stride + i])});
    }
    if (past_end) {
        ASSERT_TRUE(dropped); /* the case tests what it claims */
        ASSERT_EQ_I64(harness_flags(t.h), MCT_TALLY_FLAG_OUT_OF_RANGE);
        CHECK_CUDA(cudaMemset(t.h.view.flags, 0, sizeof(unsigned)));
    }
    harness_check<T>(t.h, reached);
    mct_tally_destroy(t.tally);
}

/** The arrays' keys as int64, every seventh one replaced by a key past the
 * bins that no backend may add: negative, at the bins' end, 2^32 + k and
 * -2^32 + k (which a 32-bit truncation would put on bin k), INT64_MAX, INT64_MIN
 * and 2^62 (whose key * width overflows int64). Grouped (width > 1) and
 * single adds; the other keys' values arrive as from the 32-bit keys. */
template <typename T, mct_method_t M>
static void check_keys64(const arrays& a, int64_t nbins, int width) {
    if (!served(M, harness_dtype<T>())) return;
    if (M == MCT_METHOD_SHARED && nbins * width * (int64_t)sizeof(T) > 48 * 1024) return;
    const int64_t groups = (int64_t)a.keys.size() / width, stride = groups;
    std::vector<int64_t> keys(groups);
    std::vector<harness_contrib> reached;
    for (int64_t i = 0; i < groups; ++i) {
        const int64_t k = a.keys[i];
        static const int64_t bad[] = {-1, 0, INT64_C(1) << 32, -(INT64_C(1) << 32), INT64_MAX, INT64_MIN, INT64_C(1) << 62};
        const int which = (int)((i / 7) % 7);
        keys[i] = i % 7 != 3 ? k : which == 1 ? nbins : which == 2 || which == 3 ? bad[which] + k : bad[which];
        if (i % 7 == 3) continue;
        for (int c = 0; c < width; ++c) reached.push_back({k * width + c, converted<T>(a.vals[c * stride + i])});
    }
    int64_t* d_keys = NULL;
    CHECK_CUDA(cudaMalloc((void**)&d_keys, groups * sizeof(int64_t)));
    CHECK_CUDA(cudaMemcpy(d_keys, keys.data(), groups * sizeof(int64_t), cudaMemcpyHostToDevice));
    device_tally t = device_tally_create(M, harness_dtype<T>(), nbins * width, groups * width);
    snprintf(harness_case_text, sizeof harness_case_text, "int64 keys: method %s, %zu-byte type, width %d, bins %lld",
             mct_method_name(M), sizeof(T), width, (long long)(nbins * width));
    ASSERT_STATUS(mct_tally_add_device_keys(t.tally, d_keys, MCT_KEY_I64, a.d_vals, groups, width, stride),
                  MCT_STATUS_SUCCESS);
    device_tally_flush(t);
    ASSERT_EQ_I64(harness_flags(t.h), groups > 3 ? MCT_TALLY_FLAG_OUT_OF_RANGE : 0);
    CHECK_CUDA(cudaMemset(t.h.view.flags, 0, sizeof(unsigned)));
    harness_check<T>(t.h, reached);
    ASSERT_STATUS(mct_tally_add_device_keys(t.tally, d_keys, (mct_key_type_t)2, a.d_vals, groups, width, stride),
                  MCT_STATUS_INVALID_VALUE);
    mct_tally_destroy(t.tally);
    cudaFree(d_keys);
}

template <typename T>
static void all_methods(const arrays& a, int64_t nbins) {
    check_keys64<T, MCT_METHOD_ATOMIC>(a, nbins, 1);
    check_keys64<T, MCT_METHOD_SHARED>(a, nbins, 1);
    check_keys64<T, MCT_METHOD_BLOCK_REDUCE>(a, nbins, 1);
    check_keys64<T, MCT_METHOD_BLOCK_REDUCE>(a, nbins, 3);
    check_keys64<T, MCT_METHOD_WARP_REDUCE>(a, nbins, 1);
    check_keys64<T, MCT_METHOD_WAG_MATCH>(a, nbins, 2);
    check_keys64<T, MCT_METHOD_SORT_REDUCE>(a, nbins, 1);
    check_grouped<T, MCT_METHOD_ATOMIC>(a, nbins, 3);
    check_grouped<T, MCT_METHOD_BLOCK_REDUCE>(a, nbins, 9);
    check_grouped<T, MCT_METHOD_WARP_REDUCE>(a, nbins, 2);
    check_grouped<T, MCT_METHOD_WIB>(a, nbins, 4);
    check_arrays<T, MCT_METHOD_ATOMIC>(a, nbins);
    check_arrays<T, MCT_METHOD_SHARED>(a, nbins);
    check_arrays<T, MCT_METHOD_WARP_REDUCE>(a, nbins);
    check_arrays<T, MCT_METHOD_BLOCK_REDUCE>(a, nbins);
    check_arrays<T, MCT_METHOD_REPLICATED>(a, nbins);
    check_arrays<T, MCT_METHOD_WAG>(a, nbins);
    check_arrays<T, MCT_METHOD_WIB>(a, nbins);
    check_arrays<T, MCT_METHOD_WAG_MATCH>(a, nbins);
    check_arrays<T, MCT_METHOD_SORT_REDUCE>(a, nbins);
    if constexpr (std::is_floating_point<T>::value) {
        check_arrays<T, MCT_METHOD_CAS>(a, nbins);
        check_arrays<T, MCT_METHOD_FIXED>(a, nbins);
        check_grouped<T, MCT_METHOD_FIXED>(a, nbins, 3); /* never pre-summed */
        check_keys64<T, MCT_METHOD_FIXED>(a, nbins, 1);
        check_keys64<T, MCT_METHOD_FIXED>(a, nbins, 4);
    }
    if constexpr (std::is_same<T, float>::value) {
        check_arrays<T, MCT_METHOD_KAHAN>(a, nbins);
        check_arrays<T, MCT_METHOD_KAHAN_NAIVE>(a, nbins);
    }
}

/** The warp aggregation of block_reduce and warp_reduce above 8 bins (a
 * cached bin per warp, into a shared copy or the global bins): keys that keep
 * one bin cached for long, and keys that move the cached bin often. */
template <typename T>
static void aggregation_patterns(int64_t n, int64_t nbins) {
    for (key_pattern p : {ARRAY_KEYS_SORTED, ARRAY_KEYS_RUNS_OF_3, ARRAY_KEYS_TWO_BUSY, ARRAY_KEYS_FIVE_TURNS}) {
        arrays a = make_arrays(n, nbins, 31 + p, std::is_integral<T>::value, p);
        check_arrays<T, MCT_METHOD_BLOCK_REDUCE>(a, nbins);
        check_arrays<T, MCT_METHOD_WARP_REDUCE>(a, nbins);
        check_grouped<T, MCT_METHOD_BLOCK_REDUCE>(a, nbins, 3);
        check_grouped<T, MCT_METHOD_BLOCK_REDUCE>(a, nbins, 9, true);
        check_grouped<T, MCT_METHOD_WARP_REDUCE>(a, nbins, 2, true);
        check_grouped<T, MCT_METHOD_ATOMIC>(a, nbins, 3, true);
        free_arrays(a);
    }
}

/* Creating a tally the backend cannot serve, and whole-array adds it must refuse. */
static mct_tally_t refusal_tally(mct_method_t m, mct_dtype_t dtype, int64_t nbins, mct_status_t want) {
    mct_tally_desc_t d;
    mct_tally_desc_init(&d);
    d.method = m, d.dtype = dtype, d.bins = nbins, d.backend = TEST_BACKEND;
    mct_tally_t t = NULL;
    ASSERT_STATUS(mct_tally_create(&t, &d), want);
    return t;
}

static void test_refusals(const arrays& a) {
    refusal_tally(MCT_METHOD_KAHAN, MCT_DTYPE_F64, 8, MCT_STATUS_NOT_SUPPORTED);
    refusal_tally(MCT_METHOD_CAS, MCT_DTYPE_I32, 8, MCT_STATUS_NOT_SUPPORTED);
    refusal_tally(MCT_METHOD_COUNT, MCT_DTYPE_F64, 8, MCT_STATUS_UNKNOWN_METHOD);
    mct_tally_t big = refusal_tally(MCT_METHOD_SHARED, MCT_DTYPE_F64, 6145, MCT_STATUS_SUCCESS); /* > 48 KiB */
    ASSERT_STATUS(mct_tally_add_device(big, a.d_keys, a.d_vals, 1), MCT_STATUS_TOO_LARGE);
    mct_tally_destroy(big);
    mct_tally_t t = refusal_tally(MCT_METHOD_SHARED, MCT_DTYPE_F64, 6144, MCT_STATUS_SUCCESS);
    ASSERT_STATUS(mct_tally_add_device(t, a.d_keys, a.d_vals, 0), MCT_STATUS_SUCCESS);
    ASSERT_STATUS(mct_tally_add_device(t, a.d_keys, a.d_vals, -1), MCT_STATUS_INVALID_VALUE);
    ASSERT_STATUS(mct_tally_add_device_grouped(t, a.d_keys, a.d_vals, 4, 0, 4), MCT_STATUS_INVALID_VALUE); /* width 0 */
    ASSERT_STATUS(mct_tally_add_device_grouped(t, a.d_keys, a.d_vals, 4, 2, 3), MCT_STATUS_INVALID_VALUE); /* stride < n */
    ASSERT_STATUS(mct_tally_add_device(t, NULL, a.d_vals, 1), MCT_STATUS_NULL_POINTER);
    ASSERT_STATUS(mct_tally_add_device(NULL, a.d_keys, a.d_vals, 1), MCT_STATUS_NULL_POINTER);
    mct_tally_destroy(t);
}

/** sort_reduce end to end: the bins after the pass are within the rounding
 * bound, and bitwise identical when the same pairs arrive in another order. */
template <typename T>
static void test_sort_reduce(int64_t n, int64_t nbins) {
    arrays a = make_arrays(n, nbins, 77, std::is_integral<T>::value);
    arrays b = a; /* the same pairs, reversed, appended by another launch shape */
    std::reverse(b.keys.begin(), b.keys.end());
    std::reverse(b.vals.begin(), b.vals.end());
    CHECK_CUDA(cudaMalloc((void**)&b.d_keys, n * sizeof(uint32_t)));
    CHECK_CUDA(cudaMalloc((void**)&b.d_vals, n * sizeof(double)));
    CHECK_CUDA(cudaMemcpy(b.d_keys, b.keys.data(), n * sizeof(uint32_t), cudaMemcpyHostToDevice));
    CHECK_CUDA(cudaMemcpy(b.d_vals, b.vals.data(), n * sizeof(double), cudaMemcpyHostToDevice));
    std::vector<unsigned char> bits[2];
    for (int pass = 0; pass < 2; ++pass) {
        const arrays& in = pass ? b : a;
        device_tally t = device_tally_create(MCT_METHOD_SORT_REDUCE, harness_dtype<T>(), nbins, n);
        ASSERT_STATUS(mct_tally_add_device(t.tally, in.d_keys, in.d_vals, n / 2), MCT_STATUS_SUCCESS); /* two calls */
        ASSERT_STATUS(mct_tally_add_device(t.tally, in.d_keys + n / 2, in.d_vals + n / 2, n - n / 2), MCT_STATUS_SUCCESS);
        const unsigned long long* pair_count = t.h.view.pair_count;
        device_tally_flush(t); /* the sort pass; then the bins read as a plain tally's */
        unsigned long long count = 1;
        CHECK_CUDA(cudaMemcpy(&count, pair_count, sizeof count, cudaMemcpyDeviceToHost));
        ASSERT_EQ_I64((int64_t)count, 0); /* consumed */
        std::vector<harness_contrib> reached;
        for (int64_t i = 0; i < n; ++i)
            reached.push_back({(int64_t)in.keys[i], converted<T>(in.vals[i])});
        snprintf(harness_case_text, sizeof harness_case_text, "sort_reduce pass %d, %zu-byte type", pass, sizeof(T));
        harness_check<T>(t.h, reached);
        bits[pass].resize((size_t)nbins * sizeof(T));
        CHECK_CUDA(cudaMemcpy(bits[pass].data(), t.h.view.bins, bits[pass].size(), cudaMemcpyDeviceToHost));
        mct_tally_destroy(t.tally);
    }
    ASSERT_TRUE(bits[0] == bits[1]);
    free_arrays(a);
    free_arrays(b);
}

int main(void) {
    if (!test_have_device()) return 77;
    const int64_t n = harness_quick() ? 3001 : 20011;
    /* 8 and 9 straddle the register sums of block_reduce/warp_reduce; 7000 f64
     * or u64 bins no longer fit a block's shared memory. */
    for (int64_t nbins : {1, 8, 9, 1000, 7000}) {
        arrays f = make_arrays(n, nbins, 1234 + nbins, false), i = make_arrays(n, nbins, 99 + nbins, true);
        all_methods<float>(f, nbins);
        all_methods<double>(f, nbins);
        all_methods<int32_t>(i, nbins);
        all_methods<uint64_t>(i, nbins);
        free_arrays(f);
        free_arrays(i);
    }
    for (int64_t nbins : {1000, 7000}) {
        aggregation_patterns<double>(n, nbins);
        aggregation_patterns<int32_t>(n, nbins);
    }
    arrays a = make_arrays(16, 8, 5, false);
    test_refusals(a);
#if MCT_IS_EMULATED
    refusal_tally(MCT_METHOD_SORT_REDUCE, MCT_DTYPE_F64, 8, MCT_STATUS_NOT_SUPPORTED); /* CUB does not run emulated */
#else
    test_sort_reduce<double>(harness_quick() ? 5000 : 200003, 1000);
    test_sort_reduce<float>(harness_quick() ? 5000 : 100003, 8);
    test_sort_reduce<float>(5000, 3); /* few bins, long runs (sort_reduce serves floats only) */
    test_sort_reduce<double>(70000, 1); /* one hot bin: one long run */
#endif
    free_arrays(a);
    printf("device add_device: every method x dtype right\n");
    return 0;
}
