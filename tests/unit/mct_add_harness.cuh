/* SPDX-License-Identifier: BSD-3-Clause */
/** @file mct_add_harness.cuh  Shared body of the mct_add tests: kernels that add
 * under random control flow (lanes skipping the add, taking one of two
 * branches that both add, or returning early), the exact host reference of
 * what reached the tally, and the per-method checks.
 *
 * The reference replays the kernel's loop on the host, thread by thread, so it
 * knows exactly which contributions were made; integer and fixed-point results
 * must then match it exactly, float results within a bound derived from the
 * number of additions per bin and the method's arithmetic:
 *   plain sums in any order (atomic, cas, wag, wib, wag_match, shared, replicated):
 *       |err| <= gamma(n-1) * Σ|x|,  gamma(k) = k u / (1 - k u),  u = 2^-24 (f32), 2^-53 (f64);
 *   kahan, kahan_naive: groups summed in double (exact to 2^-48 relative for
 *       <= 32 terms), then the pair updates in f32, held to Kahan's bound
 *       |err| <= (2u + 4 n u²) Σ|x| + 2^-45 Σ|x| (kahan's compensated add,
 *       second order in u, stays below it at these counts). */
#ifndef MCT_ADD_HARNESS_CUH
#define MCT_ADD_HARNESS_CUH

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <algorithm>
#include <vector>

#include "mctally/device/mct_launch.cuh"
#include "mctally/device/block/block_deposit_buffer.cuh"
#include "mctally/device/mct_tally_device.cuh"
#include "test_assert.h"
#include "test_device.h"
#include "test_random.h"

/* What a lane does with item i (ctl[i]). */
enum { CTL_SKIP = 0, CTL_IF = 1, CTL_ELSE = 2, CTL_EXIT = 3 };
/* How a kernel adds: template or run-time mct_add, or through mct_block_tally. */
enum { FORM_ADD = 0, FORM_ADD_RUNTIME = 1, FORM_BLOCK = 2, FORM_BLOCK_RUNTIME = 3, FORM_BUFFER = 4, FORM_BUFFER_RUNTIME = 5 };
/* The buffered forms (block_deposit_buffer.cuh): FORM_BUFFER with a small
 * cache and few slots, so that the cache runs out of slots and the lanes'
 * sort_reduce slots fill mid-warp, at different times in different lanes,
 * compiled without the rounding-loss hook (the harness's views have no
 * shadow); FORM_BUFFER_RUNTIME with the defaults and the method from the view. */
#define HARNESS_BUFFER_HOT 8
#define HARNESS_BUFFER_SLOTS 3
template <typename T, mct_method_t M, int FORM>
using harness_buffer_t =
    typename std::conditional<FORM == FORM_BUFFER,
                              mct_deposit_buffer<T, M, HARNESS_BUFFER_HOT, HARNESS_BUFFER_SLOTS, MCT_LOSS_NONE>,
                              mct_deposit_buffer<T>>::type;
template <mct_method_t M, int FORM>
static size_t harness_buffer_bytes(int block) {
    return FORM == FORM_BUFFER ? mct_deposit_buffer_storage_bytes(M, block, HARNESS_BUFFER_HOT, HARNESS_BUFFER_SLOTS)
                               : mct_deposit_buffer_storage_bytes(M, block);
}
/* Key patterns. */
enum { KEYS_RANDOM = 0, KEYS_HOT = 1, KEYS_DISTINCT = 2, KEYS_SORTED_RUNS = 3, KEYS_PATTERNS = 4 };

template <typename T, mct_method_t M, int FORM>
__device__ __forceinline__ void harness_add(const mct_tally_view_t& view, int64_t bin, T v) {
    if constexpr (FORM == FORM_ADD)
        mct_add<T, M>(view, bin, v);
    else
        mct_add<T>(view, bin, v);
}

/** Grid-stride loop over the items; per item a lane skips, adds in the `if`
 * branch, adds in the `else` branch (a different key expression, so the two
 * adds are separate call sites), or leaves. In the per-lane forms leaving is a
 * `return` (the lane exits); in the block forms it is a `break`, because flush()
 * needs the whole block. */
template <typename T, mct_method_t M, int FORM>
static __global__ void harness_kernel(mct_tally_view_t view, const int64_t* keys, const double* vals,
                                      const uint8_t* ctl, int64_t n) {
    const int64_t stride = (int64_t)gridDim.x * blockDim.x;
    if constexpr (FORM == FORM_ADD || FORM == FORM_ADD_RUNTIME) {
        for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
            const int c = ctl[i];
            if (c == CTL_SKIP) continue;
            if (c == CTL_EXIT) return;
            if (c == CTL_IF)
                harness_add<T, M, FORM>(view, keys[i], (T)vals[i]);
            else
                harness_add<T, M, FORM>(view, keys[i], (T)vals[i]); /* a second call site */
        }
    } else if constexpr (FORM == FORM_BUFFER || FORM == FORM_BUFFER_RUNTIME) {
        /* Lanes that leave break out with deposits still buffered: flush()
         * adds them, every thread of the block calling it, as the buffer asks. */
        harness_buffer_t<T, M, FORM> buf(view);
        for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
            const int c = ctl[i];
            if (c == CTL_SKIP) continue;
            if (c == CTL_EXIT) break;
            if (c == CTL_IF)
                buf.add(keys[i], (T)vals[i]);
            else
                buf.add(keys[i], (T)vals[i]); /* a second call site */
        }
        buf.flush();
    } else {
        mct_block_tally<T, FORM == FORM_BLOCK ? M : MCT_METHOD_FROM_VIEW> tally(view);
        for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
            const int c = ctl[i];
            if (c == CTL_SKIP) continue;
            if (c == CTL_EXIT) break;
            if (c == CTL_IF)
                tally.add(keys[i], (T)vals[i]);
            else
                tally.add(keys[i], (T)vals[i]); /* a second call site */
        }
        tally.flush();
    }
}

/* ---------------------------------------------------------------- host side */

static uint64_t harness_rng_state = 0x9e3779b97f4a7c15ull;
static uint64_t harness_rand(void) { return test_splitmix64(&harness_rng_state); }
static double harness_u01(void) { return test_u01(&harness_rng_state); }

/** One test input. */
struct harness_input {
    std::vector<int64_t> keys;
    std::vector<double> vals;
    std::vector<uint8_t> ctl;
    int64_t nbins;
};

/** Keys by pattern; values: small integers for integer types (sign allowed for
 * i32), else signed values over 2^-8..2^8 (many magnitudes, so rounding shows);
 * control: 15% skip, 40% if, 40% else, 5% exit (or all-if when `plain`). */
template <typename T>
static harness_input harness_make(int64_t n, int64_t nbins, int pattern, bool plain) {
    harness_input in;
    in.nbins = nbins;
    in.keys.resize(n), in.vals.resize(n), in.ctl.resize(n);
    for (int64_t i = 0; i < n; ++i) {
        switch (pattern) {
        case KEYS_RANDOM: in.keys[i] = (int64_t)(harness_rand() % (uint64_t)nbins); break;
        case KEYS_HOT: in.keys[i] = nbins / 2; break;
        case KEYS_DISTINCT: in.keys[i] = i % nbins; break;
        default: in.keys[i] = (i / 37) % nbins; break;
        }
        if (std::is_integral<T>::value)
            in.vals[i] = (double)(1 + harness_rand() % 9) * (std::is_signed<T>::value && harness_rand() % 3 == 0 ? -1 : 1);
        else
            in.vals[i] = (harness_u01() + 0.5) * ldexp(1.0, (int)(harness_rand() % 17) - 8) * (harness_rand() % 4 == 0 ? -1 : 1);
        const double r = harness_u01();
        in.ctl[i] = plain ? CTL_IF : r < 0.15 ? CTL_SKIP : r < 0.55 ? CTL_IF : r < 0.95 ? CTL_ELSE : CTL_EXIT;
    }
    return in;
}

/** The contributions that reach the tally, in the kernel's per-thread order. */
struct harness_contrib {
    int64_t bin;
    double value; /* (T)vals[i], as a double */
};
template <typename T>
static std::vector<harness_contrib> harness_reached(const harness_input& in, int block, int64_t grid) {
    std::vector<harness_contrib> out;
    const int64_t n = (int64_t)in.keys.size(), stride = grid * block;
    for (int64_t t = 0; t < stride; ++t)
        for (int64_t i = t; i < n; i += stride) {
            if (in.ctl[i] == CTL_SKIP) continue;
            if (in.ctl[i] == CTL_EXIT) break;
            out.push_back({in.keys[i], (double)(T)in.vals[i]});
        }
    return out;
}

/** Device copies of an input; freed by harness_free. */
struct harness_device {
    int64_t* keys;
    double* vals;
    uint8_t* ctl;
    int64_t n;
};
static harness_device harness_upload(const harness_input& in) {
    harness_device d;
    d.n = (int64_t)in.keys.size();
    const size_t n = (size_t)(d.n ? d.n : 1);
    CHECK_CUDA(cudaMalloc((void**)&d.keys, n * sizeof(int64_t)));
    CHECK_CUDA(cudaMalloc((void**)&d.vals, n * sizeof(double)));
    CHECK_CUDA(cudaMalloc((void**)&d.ctl, n));
    if (d.n) {
        CHECK_CUDA(cudaMemcpy(d.keys, in.keys.data(), d.n * sizeof(int64_t), cudaMemcpyHostToDevice));
        CHECK_CUDA(cudaMemcpy(d.vals, in.vals.data(), d.n * sizeof(double), cudaMemcpyHostToDevice));
        CHECK_CUDA(cudaMemcpy(d.ctl, in.ctl.data(), d.n, cudaMemcpyHostToDevice));
    }
    return d;
}
static void harness_free(harness_device d) {
    cudaFree(d.keys);
    cudaFree(d.vals);
    cudaFree(d.ctl);
}

/** A device tally of any method: bins in the method's storage, optional
 * replicas, flag word and sort pairs. */
struct harness_tally {
    mct_tally_view_t view;
    size_t bin_bytes;
};
static harness_tally harness_tally_create(mct_method_t m, mct_dtype_t dtype, size_t dtype_bytes, int64_t nbins,
                                          int64_t nreplicas, int64_t pair_capacity, int frac_bits) {
    harness_tally t;
    memset(&t, 0, sizeof t);
    t.bin_bytes = m == MCT_METHOD_FIXED ? 8 : (m == MCT_METHOD_KAHAN || m == MCT_METHOD_KAHAN_NAIVE) ? 8 : dtype_bytes;
    mct_tally_view_t& v = t.view;
    v.nbins = nbins, v.dtype = dtype, v.method = m;
    v.fixed_frac_bits = frac_bits, v.fixed_scale = ldexp(1.0, frac_bits);
    CHECK_CUDA(cudaMalloc(&v.bins, (size_t)nbins * t.bin_bytes));
    CHECK_CUDA(cudaMemset(v.bins, 0, (size_t)nbins * t.bin_bytes));
    CHECK_CUDA(cudaMalloc((void**)&v.flags, sizeof(unsigned)));
    CHECK_CUDA(cudaMemset(v.flags, 0, sizeof(unsigned)));
    if (nreplicas > 0) {
        v.nreplicas = nreplicas;
        CHECK_CUDA(cudaMalloc(&v.replicas, (size_t)(nreplicas * nbins) * dtype_bytes));
        CHECK_CUDA(cudaMemset(v.replicas, 0, (size_t)(nreplicas * nbins) * dtype_bytes));
    }
    if (m == MCT_METHOD_SORT_REDUCE) {
        v.pair_capacity = pair_capacity;
        CHECK_CUDA(cudaMalloc(&v.pairs, (size_t)(pair_capacity ? pair_capacity : 1) * sizeof(mct_sort_pair_t)));
        CHECK_CUDA(cudaMalloc((void**)&v.pair_count, sizeof(unsigned long long)));
        CHECK_CUDA(cudaMemset(v.pair_count, 0, sizeof(unsigned long long)));
    }
    return t;
}
static void harness_tally_free(harness_tally& t) {
    cudaFree(t.view.bins);
    cudaFree(t.view.flags);
    cudaFree(t.view.replicas);
    cudaFree(t.view.pairs);
    cudaFree(t.view.pair_count);
}
static unsigned harness_flags(const harness_tally& t) {
    unsigned f = 0;
    CHECK_CUDA(cudaMemcpy(&f, t.view.flags, sizeof f, cudaMemcpyDeviceToHost));
    return f;
}

template <typename T> static mct_dtype_t harness_dtype(void);
template <> mct_dtype_t harness_dtype<int32_t>(void) { return MCT_DTYPE_I32; }
template <> mct_dtype_t harness_dtype<uint64_t>(void) { return MCT_DTYPE_U64; }
template <> mct_dtype_t harness_dtype<float>(void) { return MCT_DTYPE_F32; }
template <> mct_dtype_t harness_dtype<double>(void) { return MCT_DTYPE_F64; }

/** The fixed-point value the host computes for v (llrint: to nearest, ties to even). */
static int64_t harness_fixed(double v, int frac_bits) { return (int64_t)llrint(v * ldexp(1.0, frac_bits)); }

/** Per-bin result of the tally as the host folds it (double), or the exact
 * int64 (integer and fixed tallies), replicas included. */
template <typename T>
static void harness_read(const harness_tally& t, std::vector<double>& out, std::vector<int64_t>& exact) {
    const mct_tally_view_t& v = t.view;
    const int64_t B = v.nbins;
    std::vector<unsigned char> raw((size_t)B * t.bin_bytes);
    CHECK_CUDA(cudaMemcpy(raw.data(), v.bins, raw.size(), cudaMemcpyDeviceToHost));
    out.assign(B, 0.0), exact.assign(B, 0);
    for (int64_t k = 0; k < B; ++k) {
        const unsigned char* p = raw.data() + k * t.bin_bytes;
        if (v.method == MCT_METHOD_FIXED) {
            memcpy(&exact[k], p, 8);
            out[k] = (double)exact[k] / v.fixed_scale;
        } else if (v.method == MCT_METHOD_KAHAN || v.method == MCT_METHOD_KAHAN_NAIVE) {
            mct_kahan_pair_t q;
            memcpy(&q, p, 8);
            out[k] = (double)q.sum - (double)q.comp;
        } else {
            T x;
            memcpy(&x, p, sizeof x);
            out[k] = (double)x;
            exact[k] = (int64_t)x;
        }
    }
    if (v.nreplicas > 0) {
        std::vector<T> rep((size_t)(v.nreplicas * B));
        CHECK_CUDA(cudaMemcpy(rep.data(), v.replicas, rep.size() * sizeof(T), cudaMemcpyDeviceToHost));
        for (int64_t r = 0; r < v.nreplicas; ++r)
            for (int64_t k = 0; k < B; ++k) {
                out[k] += (double)rep[r * B + k];
                exact[k] += (int64_t)rep[r * B + k];
            }
    }
}

/** Describes the running case on failure. */
static char harness_case_text[256];

/** Whether the running case adds through a deposit buffer, whose runs and
 * cached sums of float tallies are formed in double first: each of the n
 * addends then carries at most one more relative error of 2^-53 into the
 * bin (block_deposit_buffer.cuh), added to the bound. */
static bool harness_buffered = false;

/** Checks a tally after the kernel against the contributions that reached it. */
template <typename T>
static void harness_check(const harness_tally& t, const std::vector<harness_contrib>& reached) {
    const mct_tally_view_t& v = t.view;
    const int64_t B = v.nbins;
    ASSERT_EQ_I64(harness_flags(t), 0);
    if (v.method == MCT_METHOD_SORT_REDUCE) {
        unsigned long long count = 0;
        CHECK_CUDA(cudaMemcpy(&count, v.pair_count, sizeof count, cudaMemcpyDeviceToHost));
        ASSERT_EQ_I64((int64_t)count, (int64_t)reached.size());
        std::vector<mct_sort_pair_t> pairs(count);
        if (count)
            CHECK_CUDA(cudaMemcpy(pairs.data(), v.pairs, count * sizeof(mct_sort_pair_t), cudaMemcpyDeviceToHost));
        std::vector<std::pair<int64_t, double>> got, want;
        for (const mct_sort_pair_t& p : pairs) got.push_back({(int64_t)p.bin, p.value});
        for (const harness_contrib& c : reached) want.push_back({c.bin, c.value});
        std::sort(got.begin(), got.end()), std::sort(want.begin(), want.end());
        for (size_t i = 0; i < want.size(); ++i) {
            ASSERT_EQ_I64(got[i].first, want[i].first);
            ASSERT_EQ_F64(got[i].second, want[i].second);
        }
        return;
    }
    std::vector<double> got;
    std::vector<int64_t> got_exact;
    harness_read<T>(t, got, got_exact);
    std::vector<long double> sum(B, 0.0L), sum_abs(B, 0.0L);
    std::vector<int64_t> exact(B, 0), count(B, 0);
    for (const harness_contrib& c : reached) {
        sum[c.bin] += c.value, sum_abs[c.bin] += fabsl((long double)c.value), ++count[c.bin];
        exact[c.bin] += v.method == MCT_METHOD_FIXED ? harness_fixed(c.value, v.fixed_frac_bits) : (int64_t)c.value;
    }
    const bool kahan = v.method == MCT_METHOD_KAHAN || v.method == MCT_METHOD_KAHAN_NAIVE;
    const double u = sizeof(T) == 4 ? 0x1p-24 : 0x1p-53;
    for (int64_t k = 0; k < B; ++k) {
        if (std::is_integral<T>::value || v.method == MCT_METHOD_FIXED) {
            const int64_t want = std::is_same<T, int32_t>::value ? (int64_t)(int32_t)exact[k] : exact[k];
            const int64_t have = std::is_same<T, int32_t>::value ? (int64_t)(int32_t)got_exact[k] : got_exact[k];
            if (have != want) fprintf(stderr, "%s, bin %lld\n", harness_case_text, (long long)k);
            ASSERT_EQ_I64(have, want);
            continue;
        }
        const double n = (double)count[k], s_abs = (double)sum_abs[k];
        double bound;
        if (kahan) {
            bound = (2 * u + 4 * n * u * u) * s_abs + 0x1p-45 * s_abs;
        } else {
            const double ku = (n > 1 ? n - 1 : 0) * u;
            bound = ku / (1 - ku) * s_abs;
        }
        if (harness_buffered) bound += n * 0x1p-53 * s_abs;
        const double err = fabs(got[k] - (double)sum[k]);
        if (!(err <= bound))
            fprintf(stderr, "%s, bin %lld: got %.17g want %.17Lg (n %lld, err %.3g, bound %.3g)\n", harness_case_text,
                    (long long)k, got[k], sum[k], (long long)count[k], err, bound);
        ASSERT_LE_F64(err, bound);
    }
}

/** Runs one (T, M, FORM) case on one input and launch shape and checks it.
 * Returns the raw bins (storage bytes) for bitwise comparisons. */
template <typename T, mct_method_t M, int FORM>
static std::vector<unsigned char> harness_run(const harness_input& in, const harness_device& d, int block,
                                              int64_t grid, bool shared_replicas = false) {
    const int64_t threads = grid * block;
    const int64_t nreplicas = M != MCT_METHOD_REPLICATED ? 0 : shared_replicas ? threads / 2 + 1 : threads;
    const int64_t capacity = (int64_t)in.keys.size();
    harness_tally t = harness_tally_create(M, harness_dtype<T>(), sizeof(T), in.nbins, nreplicas, capacity, 20);
    snprintf(harness_case_text, sizeof harness_case_text,
             "method %s, form %d, %zu-byte type, block %d, grid %lld, n %lld, bins %lld%s", mct_method_name(M), FORM,
             sizeof(T), block, (long long)grid, (long long)in.keys.size(), (long long)in.nbins,
             shared_replicas ? ", shared replicas" : "");
    const size_t smem = FORM == FORM_BLOCK ? mct_block_tally_smem_bytes<T, M>(in.nbins)
                        : FORM == FORM_BLOCK_RUNTIME ? mct_block_tally_smem_bytes<T>(t.view)
                        : FORM == FORM_BUFFER || FORM == FORM_BUFFER_RUNTIME ? harness_buffer_bytes<M, FORM>(block)
                                                                              : 0;
    harness_buffered = FORM == FORM_BUFFER || FORM == FORM_BUFFER_RUNTIME;
    MCT_LAUNCH((harness_kernel<T, M, FORM>), (unsigned)grid, block, smem, 0, t.view, d.keys, d.vals, d.ctl, d.n);
    const cudaError_t err = cudaGetLastError();
    if (err != cudaSuccess) {
#if MCT_IS_EMULATED
        fprintf(stderr, "%s: %s\n", harness_case_text, mct_emu_last_error_message());
#endif
    }
    CHECK_CUDA(err);
    CHECK_CUDA(cudaDeviceSynchronize());
    harness_check<T>(t, harness_reached<T>(in, block, grid));
    std::vector<unsigned char> raw((size_t)in.nbins * t.bin_bytes);
    CHECK_CUDA(cudaMemcpy(raw.data(), t.view.bins, raw.size(), cudaMemcpyDeviceToHost));
    harness_tally_free(t);
    return raw;
}

/** MCT_TEST_QUICK (set under compute-sanitizer) runs a small configuration. */
static bool harness_quick(void) { return getenv("MCT_TEST_QUICK") != NULL; }

/** The sweep: block sizes x bin counts x key patterns, one-item-per-thread and
 * strided grids, rotating the pattern so every pattern meets every block size. */
template <typename T, mct_method_t M, int FORM>
static void harness_sweep(void) {
    static const int blocks[] = {1, 7, 32, 65, 128};
    static const int64_t bins[] = {1, 8, 1000};
    const int nb = harness_quick() ? 1 : 5;
    int rot = 0;
    for (int bi = 0; bi < nb; ++bi) {
        const int block = harness_quick() ? 65 : blocks[bi];
        for (int64_t nbins : bins) {
            const int pattern = (rot++) % KEYS_PATTERNS;
            const int64_t n = block == 1 ? 197 : 24 * block + 3;
            const harness_input in = harness_make<T>(n, nbins, pattern, false);
            const harness_device d = harness_upload(in);
            const int64_t one_per_thread = (n + block - 1) / block;
            harness_run<T, M, FORM>(in, d, block, one_per_thread);
            harness_run<T, M, FORM>(in, d, block, 2);
            harness_free(d);
        }
    }
}

#endif /* MCT_ADD_HARNESS_CUH */
