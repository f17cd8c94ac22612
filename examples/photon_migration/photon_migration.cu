/* SPDX-License-Identifier: BSD-3-Clause */
/** @file photon_migration.cu  The worked example of docs/porting.md: the
 * photon-migration kernel (photon_migration.cuh) adding into an mctally
 * tally, and the same kernel's own float-atomic grid for comparison.
 *
 *     photon_migration [--backend cpu|emulated|cuda] [--method M|float_atomic|count]
 *                      [--form typed|runtime] [--photons N] [--batches B] [--repeat R] [--grid N]
 *
 * Prints one line of JSON per repetition: the method, the time the batches
 * took, the fluence of the hottest voxel, the energy balance (the bins sum
 * to the photons launched) and a hash of the result's bits, so that two
 * repetitions of a deterministic method (fixed, integer types) can be
 * compared bit for bit. `count` tallies the number of adds per bin instead
 * (a u64 tally): "hottest" is then the adds the busiest voxel takes. Exits non-zero when the balance is off by more than
 * the rounding its method allows or a deterministic method's repetitions
 * differ. `--form typed` (the default) launches the kernel instance of the
 * tally's method and type (mct_add<T, M>) where the example has one (atomic,
 * fixed, wib on f64; kahan on f32; count), `runtime` the one-line port
 * (mct_add(view, ...), the method read from the view). Compiled by nvcc it runs the cuda and cpu backends; compiled as C++
 * with MCT_EMULATED, the emulated and cpu backends. */
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "mctally/mct.h"
#include "photon_migration.cuh"

#define PM_CHECK(call)                                                                                    \
    do {                                                                                                  \
        const mct_status_t st_ = (call);                                                                  \
        if (st_ != MCT_STATUS_SUCCESS) {                                                                  \
            fprintf(stderr, "photon_migration: %s: %s\n", #call, mct_status_string(st_));                \
            exit(1);                                                                                      \
        }                                                                                                 \
    } while (0)
#define PM_CUDA(call)                                                                                     \
    do {                                                                                                  \
        const cudaError_t e_ = (call);                                                                    \
        if (e_ != cudaSuccess) {                                                                          \
            fprintf(stderr, "photon_migration: %s: %s\n", #call, cudaGetErrorString(e_));                \
            exit(1);                                                                                      \
        }                                                                                                 \
    } while (0)

typedef struct {
    mct_backend_t backend;
    const char* method; /* a tally method, or "float_atomic" */
    bool typed;         /* --form typed: the method's own kernel instance where there is one */
    uint64_t photons;
    int batches, repeat;
    pm_params_t p;
} pm_options_t;

static void usage(const char* why) {
    fprintf(stderr, "photon_migration: %s\nusage: photon_migration [--backend cpu|emulated|cuda] "
                    "[--method M|float_atomic|count] [--form typed|runtime] [--photons N] [--batches B] [--repeat R] "
                    "[--grid N]\n", why);
    exit(2);
}

static uint64_t parse_count(const char* s, const char* flag) {
    char* end = NULL;
    const double v = strtod(s, &end);
    if (!end || *end || !(v >= 1.0 && v <= 1e15) || v != (double)(uint64_t)v) {
        fprintf(stderr, "photon_migration: %s wants a whole number from 1 to 1e15, got '%s'\n", flag, s);
        exit(2);
    }
    return (uint64_t)v;
}

static pm_options_t parse(int argc, char** argv) {
    pm_options_t o;
#if MCT_IS_EMULATED
    o.backend = MCT_BACKEND_EMULATED;
#else
    o.backend = MCT_BACKEND_CUDA;
#endif
    o.method = "atomic", o.typed = true, o.photons = 100000, o.batches = 4, o.repeat = 1;
    /* Tissue-like: mu_a 0.1/cm, mu_s 10/cm, g 0.9, 1 mm voxels. */
    o.p.n = 40, o.p.voxel = 0.1f, o.p.mu_a = 0.1f, o.p.mu_s = 10.0f, o.p.g = 0.9f, o.p.seed = 2029;
    for (int i = 1; i < argc; i += 2) {
        if (i + 1 >= argc) usage("every option takes a value");
        const char *f = argv[i], *v = argv[i + 1];
        if (!strcmp(f, "--backend")) {
            if (mct_backend_from_name(v, &o.backend) || o.backend == MCT_BACKEND_AUTO) usage("unknown backend");
        } else if (!strcmp(f, "--method")) {
            mct_method_t m;
            if (strcmp(v, "float_atomic") && strcmp(v, "count") && mct_method_from_name(v, &m)) usage("unknown method");
            o.method = v;
        } else if (!strcmp(f, "--form")) {
            if (strcmp(v, "typed") && strcmp(v, "runtime")) usage("--form is typed or runtime");
            o.typed = !strcmp(v, "typed");
        } else if (!strcmp(f, "--photons")) {
            o.photons = parse_count(v, f);
        } else if (!strcmp(f, "--batches")) {
            o.batches = (int)parse_count(v, f);
        } else if (!strcmp(f, "--repeat")) {
            o.repeat = (int)parse_count(v, f);
        } else if (!strcmp(f, "--grid")) {
            const uint64_t n = parse_count(v, f);
            if (n > 1000) usage("--grid is at most 1000");
            o.p.n = (int)n;
        } else {
            usage("unknown option");
        }
    }
    if (o.photons < (uint64_t)o.batches) usage("fewer photons than batches");
    return o;
}

/* FNV-1a over the bits of the values. */
static uint64_t hash_bits(const void* data, size_t bytes) {
    uint64_t h = 14695981039346656037ull;
    for (size_t i = 0; i < bytes; ++i) h = (h ^ ((const unsigned char*)data)[i]) * 1099511628211ull;
    return h;
}

typedef struct {
    double seconds, hottest, total;
    int64_t hottest_bin;
    uint64_t hash;
    bool typed; /* the method's typed instance ran (device backends) */
} pm_result_t;

/* The cpu backend: the same walks on the host, their deposits handed to
 * mct_tally_add in chunks (the host form of the port). */
static void run_host_batch(mct_tally_t t, const pm_params_t& p, uint64_t first, uint64_t count, bool counting) {
    std::vector<uint32_t> keys;
    std::vector<double> values;
    for (uint64_t id = first; id < first + count; ++id) {
        pm_walk(p, id, [&](int64_t bin, float w) {
            keys.push_back((uint32_t)bin);
            values.push_back(counting ? 1.0 : (double)w);
        });
        if (keys.size() >= (1u << 16) || id + 1 == first + count) {
            PM_CHECK(mct_tally_add(t, keys.data(), values.data(), (int64_t)keys.size()));
            keys.clear(), values.clear();
        }
    }
}

/* The typed instances the example carries (a code typically needs the one
 * method it runs): false for a tally they do not cover, which then runs the
 * run-time form. */
static bool launch_typed(const mct_tally_view_t& view, unsigned blocks, int block, cudaStream_t stream,
                         const pm_params_t& p, uint64_t count, bool counting) {
    if (counting && view.dtype == MCT_DTYPE_U64 && view.method == MCT_METHOD_ATOMIC)
        MCT_LAUNCH((pm_kernel_typed<uint64_t, MCT_METHOD_ATOMIC>), blocks, block, 0, stream, p, count, view, 1);
    else if (counting)
        return false;
    else if (view.dtype == MCT_DTYPE_F64 && view.method == MCT_METHOD_ATOMIC)
        MCT_LAUNCH((pm_kernel_typed<double, MCT_METHOD_ATOMIC>), blocks, block, 0, stream, p, count, view, 0);
    else if (view.dtype == MCT_DTYPE_F64 && view.method == MCT_METHOD_WIB)
        MCT_LAUNCH((pm_kernel_typed<double, MCT_METHOD_WIB>), blocks, block, 0, stream, p, count, view, 0);
    else if (view.method == MCT_METHOD_FIXED) /* fixed takes double whatever its dtype */
        MCT_LAUNCH((pm_kernel_typed<double, MCT_METHOD_FIXED>), blocks, block, 0, stream, p, count, view, 0);
    else if (view.dtype == MCT_DTYPE_F32 && view.method == MCT_METHOD_KAHAN)
        MCT_LAUNCH((pm_kernel_typed<float, MCT_METHOD_KAHAN>), blocks, block, 0, stream, p, count, view, 0);
    else
        return false;
    return true;
}

static pm_result_t run(const pm_options_t& o) {
    const int64_t bins = pm_bins(o.p);
    const bool own_grid = !strcmp(o.method, "float_atomic"), counting = !strcmp(o.method, "count");
    mct_tally_t t = NULL;
    float* grid = NULL;
    cudaStream_t stream = 0;
    if (o.backend != MCT_BACKEND_CPU) PM_CUDA(cudaStreamCreate(&stream));
    if (own_grid) {
        if (o.backend == MCT_BACKEND_CPU) usage("float_atomic runs on the device backends");
        PM_CUDA(cudaMalloc((void**)&grid, (size_t)bins * sizeof(float)));
        PM_CUDA(cudaMemset(grid, 0, (size_t)bins * sizeof(float)));
    } else {
        mct_tally_desc_t d;
        mct_tally_desc_init(&d); /* the current device, f64 */
        d.bins = bins, d.backend = o.backend;
        if (counting)
            d.method = MCT_METHOD_ATOMIC, d.dtype = MCT_DTYPE_U64;
        else
            PM_CHECK(mct_method_from_name(o.method, &d.method));
        if (d.method == MCT_METHOD_KAHAN || d.method == MCT_METHOD_KAHAN_NAIVE) d.dtype = MCT_DTYPE_F32;
        PM_CHECK(mct_tally_create(&t, &d));
        PM_CHECK(mct_tally_set_stream(t, (void*)stream));
    }
    const int block = 128;
    bool typed = false;
    const auto t0 = std::chrono::steady_clock::now();
    std::vector<double> sums((size_t)bins, 0.0);
    for (int b = 0; b < o.batches; ++b) {
        const uint64_t first = o.photons * (uint64_t)b / (uint64_t)o.batches;
        const uint64_t count = o.photons * (uint64_t)(b + 1) / (uint64_t)o.batches - first;
        pm_params_t p = o.p;
        p.seed = o.p.seed + (uint64_t)b; /* a batch's own photons */
        if (o.backend == MCT_BACKEND_CPU) {
            run_host_batch(t, p, 0, count, counting);
        } else {
            mct_tally_view_t view;
            memset(&view, 0, sizeof view);
            if (t) PM_CHECK(mct_tally_view(t, &view));
            const uint64_t want = (count + block - 1) / block;
            const unsigned blocks = (unsigned)(want < 65535 * 8 ? want : 65535 * 8);
            if (own_grid)
                MCT_LAUNCH(pm_kernel<PM_FLOAT_ATOMIC>, blocks, block, 0, stream, p, count, view, grid);
            else if (o.typed && launch_typed(view, blocks, block, stream, p, count, counting))
                typed = true;
            else if (counting)
                MCT_LAUNCH(pm_kernel<PM_COUNT>, blocks, block, 0, stream, p, count, view, grid);
            else
                MCT_LAUNCH(pm_kernel<PM_MCTALLY>, blocks, block, 0, stream, p, count, view, grid);
            PM_CUDA(cudaGetLastError());
        }
        if (t) PM_CHECK(mct_tally_end_batch(t, (int64_t)count));
        (void)first;
    }
    if (own_grid) PM_CUDA(cudaStreamSynchronize(stream));
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (own_grid) {
        std::vector<float> f((size_t)bins);
        PM_CUDA(cudaMemcpy(f.data(), grid, (size_t)bins * sizeof(float), cudaMemcpyDeviceToHost));
        for (int64_t k = 0; k < bins; ++k) sums[(size_t)k] = f[(size_t)k];
        PM_CUDA(cudaFree(grid));
    } else {
        /* The totals over the batches, in the caller's type and buffer. */
        PM_CHECK(mct_tally_copy_sums(t, MCT_SUMS_TOTAL, MCT_DTYPE_F64, sums.data(), 0));
        mct_tally_destroy(t);
    }
    if (o.backend != MCT_BACKEND_CPU) PM_CUDA(cudaStreamDestroy(stream));
    pm_result_t r = {seconds, 0.0, 0.0, 0, hash_bits(sums.data(), sums.size() * sizeof(double)), typed};
    for (int64_t k = 0; k < bins; ++k) {
        r.total += sums[(size_t)k];
        if (k < bins - 1 && sums[(size_t)k] > r.hottest) r.hottest = sums[(size_t)k], r.hottest_bin = k;
    }
    return r;
}

int main(int argc, char** argv) {
    const pm_options_t o = parse(argc, argv);
    uint64_t first_hash = 0;
    int bad = 0;
    mct_method_t m = MCT_METHOD_ATOMIC;
    const bool own_grid = !strcmp(o.method, "float_atomic"), counting = !strcmp(o.method, "count");
    if (!own_grid && !counting) mct_method_from_name(o.method, &m);
    for (int i = 0; i < o.repeat; ++i) {
        const pm_result_t r = run(o);
        /* Energy balance: every photon's unit weight ends in a bin, exactly
         * (photon_migration.cuh), so the bins' total differs from the photon
         * count only by the tally's rounding, bounded per add: f64 bins by
         * 2^-53 of the total (<= photons) per add; fixed by 2^-33 absolute per
         * add (32 fraction bits) and 2^-53 when read as double; kahan's f32
         * pairs by about 2u = 2^-23 of the total. With at most PM_MAX_ADDS adds
         * per photon these give relative tolerances; float_atomic is only
         * reported (its loss is what the comparison shows). */
        const double adds = PM_MAX_ADDS * (double)o.photons;
        double tol = adds * 0x1p-53;
        if (m == MCT_METHOD_FIXED) tol = PM_MAX_ADDS * 0x1p-33 + 0x1p-50;
        if (m == MCT_METHOD_KAHAN || m == MCT_METHOD_KAHAN_NAIVE) tol = 4 * 0x1p-23;
        if (own_grid || counting) tol = INFINITY;
        const double balance = r.total / (double)o.photons - 1.0;
        printf("{\"backend\": \"%s\", \"method\": \"%s\", \"form\": \"%s\", \"photons\": %llu, \"batches\": %d, \"grid\": %d, "
               "\"seconds\": %.6f, \"hottest_bin\": %lld, \"hottest\": %.17g, \"balance\": %.3e, \"hash\": "
               "\"%016llx\"}\n",
               mct_backend_name(o.backend), o.method,
               own_grid ? "own" : r.typed ? "typed" : o.backend == MCT_BACKEND_CPU ? "host" : "runtime",
               (unsigned long long)o.photons, o.batches, o.p.n, r.seconds,
               (long long)r.hottest_bin, r.hottest, balance, (unsigned long long)r.hash);
        if (!(fabs(balance) <= tol) && !own_grid && !counting) {
            fprintf(stderr, "photon_migration: the bins sum to %.17g of %llu photons (tolerance %g)\n", r.total,
                    (unsigned long long)o.photons, tol);
            bad = 1;
        }
        if (i == 0) first_hash = r.hash;
        if (!own_grid && m == MCT_METHOD_FIXED && r.hash != first_hash) {
            fprintf(stderr, "photon_migration: fixed is not bitwise the same from run to run\n");
            bad = 1;
        }
    }
    return bad;
}
