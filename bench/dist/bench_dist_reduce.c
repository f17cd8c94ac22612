/* SPDX-License-Identifier: BSD-3-Clause */
/** @file bench_dist_reduce.c  One batch's end of a B-bin f64 tally (1e6 by
 * default) on every rank: plain (mct_tally_end_batch: staging and fold), and
 * combined over the ranks (mct_dist_end_batch) through host MPI and, where the
 * tallies are on GPUs and the library has it, NCCL. Each rank uses the GPU of
 * its place on its machine. Times are rank 0's, the median over --reps batches
 * after a few unmeasured ones, each started together (barrier).
 *
 *     mpirun -n R bench_dist_reduce [--bins B] [--reps N] [--backend cuda|cpu|emulated] --out FILE.json
 *
 * bench/dist/table.py turns FILE.json into Markdown. */
#include <cjson/cJSON.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mctally/mct.h"
#include "mctally/mct_dist.h"

static int cmp_double(const void* a, const void* b) {
    const double x = *(const double*)a, y = *(const double*)b;
    return (x > y) - (x < y);
}

static double median(double* v, int n) {
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

static void die(int rank, const char* what, mct_status_t st) {
    fprintf(stderr, "bench_dist_reduce: rank %d: %s: %s\n", rank, what, mct_status_string(st));
    MPI_Abort(MPI_COMM_WORLD, 1);
}

/* One path: `transport` < 0 is the plain batch end. Returns 0, with the
 * status in *why, when the path cannot serve here (NCCL without a GPU per
 * rank, without NCCL in the build, or failing to start). */
static int measure(int rank, const mct_tally_desc_t* desc, int transport, int reps, double* end_ms, double* reduce_ms,
                   mct_status_t* why) {
    mct_tally_t t = NULL;
    mct_status_t st = mct_tally_create(&t, desc);
    st = mct_dist_agree(MPI_COMM_WORLD, st, NULL, NULL);
    if (st) die(rank, "mct_tally_create", st);
    mct_dist_t d = NULL;
    if (transport >= 0) {
        mct_dist_desc_t dd;
        mct_dist_desc_init(&dd);
        dd.transport = (mct_dist_transport_t)transport;
        st = mct_dist_create(&d, t, &dd);
        if (st && transport == MCT_DIST_NCCL) {
            *why = st;
            mct_tally_destroy(t);
            return 0;
        }
        if (st) die(rank, "mct_dist_create", st);
    }
    const int warm = 3;
    double* e = malloc(sizeof(double) * (size_t)reps);
    double* r = malloc(sizeof(double) * (size_t)reps);
    const uint32_t key = (uint32_t)rank % (uint32_t)desc->bins;
    const double one = 1.0;
    for (int i = 0; i < warm + reps; ++i) {
        if ((st = mct_tally_add(t, &key, &one, 1))) die(rank, "mct_tally_add", st);
        mct_dist_info_t before = {0}, after = {0};
        if (d) mct_dist_info(d, &before);
        MPI_Barrier(MPI_COMM_WORLD);
        const double t0 = MPI_Wtime();
        st = d ? mct_dist_end_batch(d, 1, MCT_STATUS_SUCCESS) : mct_tally_end_batch(t, 1);
        const double t1 = MPI_Wtime();
        if (st) die(rank, "end of batch", st);
        if (d) mct_dist_info(d, &after);
        if (i >= warm) {
            e[i - warm] = 1e3 * (t1 - t0);
            r[i - warm] = 1e3 * (after.reduce_seconds - before.reduce_seconds);
        }
    }
    *end_ms = median(e, reps);
    *reduce_ms = d ? median(r, reps) : -1.0;
    free(e), free(r);
    mct_dist_destroy(d);
    mct_tally_destroy(t);
    return 1;
}

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    int rank, size, local = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm node;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node);
    MPI_Comm_rank(node, &local);
    MPI_Comm_free(&node);
    double bins = 1e6;
    int reps = 30;
    const char* out = NULL;
    mct_backend_t backend = MCT_BACKEND_CUDA;
    for (int i = 1; i < argc; ++i) {
        if (!strcmp(argv[i], "--bins") && i + 1 < argc)
            bins = atof(argv[++i]);
        else if (!strcmp(argv[i], "--reps") && i + 1 < argc)
            reps = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--out") && i + 1 < argc)
            out = argv[++i];
        else if (!strcmp(argv[i], "--backend") && i + 1 < argc) {
            if (mct_backend_from_name(argv[++i], &backend)) die(rank, "--backend", MCT_STATUS_UNKNOWN_BACKEND);
        } else {
            if (rank == 0) fprintf(stderr, "usage: bench_dist_reduce [--bins B] [--reps N] [--backend B] --out FILE\n");
            MPI_Finalize();
            return 1;
        }
    }
    if (!out || bins < 1 || bins > 2147483648.0 || reps < 1) {
        if (rank == 0) fprintf(stderr, "bench_dist_reduce: --out FILE, 1 <= --bins <= 2^31 and --reps >= 1\n");
        MPI_Finalize();
        return 1;
    }
    mct_tally_desc_t desc;
    mct_tally_desc_init(&desc);
    desc.bins = (int64_t)bins;
    desc.dtype = MCT_DTYPE_F64;
    desc.method = MCT_METHOD_ATOMIC;
    desc.backend = backend;
    int devices = 0;
    if (!mct_backend_devices(backend, &devices) && devices > 0) desc.device = local % devices;

    static const struct {
        const char* name;
        int transport;
    } paths[] = {{"plain (one rank's batch end)", -1}, {"host MPI", MCT_DIST_HOST}, {"NCCL", MCT_DIST_NCCL}};
    cJSON* results = cJSON_CreateArray();
    cJSON* notes = cJSON_CreateArray();
    for (size_t p = 0; p < sizeof paths / sizeof *paths; ++p) {
        double end_ms = 0, reduce_ms = 0;
        mct_status_t why = MCT_STATUS_SUCCESS;
        if (!measure(rank, &desc, paths[p].transport, reps, &end_ms, &reduce_ms, &why)) {
            char note[256];
            snprintf(note, sizeof note, "NCCL: not measured (%s)",
                     !mct_dist_have_nccl()                ? "built without NCCL"
                     : why == MCT_STATUS_NOT_SUPPORTED ? "the tallies are not on one GPU per rank"
                                                          : mct_status_string(why));
            cJSON_AddItemToArray(notes, cJSON_CreateString(note));
            continue;
        }
        cJSON* r = cJSON_CreateObject();
        cJSON_AddStringToObject(r, "path", paths[p].name);
        cJSON_AddNumberToObject(r, "end_batch_ms", end_ms);
        if (reduce_ms >= 0) cJSON_AddNumberToObject(r, "reduce_ms", reduce_ms);
        cJSON_AddItemToArray(results, r);
        if (rank == 0) fprintf(stderr, "%s: batch end %.3f ms, sum %.3f ms\n", paths[p].name, end_ms, reduce_ms);
    }
    if (rank == 0) {
        mct_tally_t t = NULL;
        char device[256] = "unknown";
        if (!mct_tally_create(&t, &desc)) mct_tally_device_name(t, device, sizeof device);
        mct_tally_destroy(t);
        char date[32];
        const time_t now = time(NULL);
        strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
        cJSON* doc = cJSON_CreateObject();
        cJSON_AddStringToObject(doc, "suite", "dist_reduce");
        cJSON_AddStringToObject(doc, "date", date);
        const char* commit = getenv("MCT_COMMIT");
        cJSON_AddStringToObject(doc, "commit", commit ? commit : "");
        cJSON_AddStringToObject(doc, "device", device);
        cJSON_AddStringToObject(doc, "backend", mct_backend_name(backend));
        cJSON_AddNumberToObject(doc, "ranks", size);
        cJSON_AddNumberToObject(doc, "bins", bins);
        cJSON_AddStringToObject(doc, "dtype", "f64");
        cJSON_AddNumberToObject(doc, "reps", reps);
        char cmd[1024] = "bench_dist_reduce";
        for (int i = 1; i < argc; ++i) {
            strncat(cmd, " ", sizeof cmd - strlen(cmd) - 1);
            strncat(cmd, argv[i], sizeof cmd - strlen(cmd) - 1);
        }
        cJSON_AddStringToObject(doc, "command", cmd);
        cJSON_AddItemToObject(doc, "results", results);
        cJSON_AddItemToObject(doc, "notes", notes);
        char* text = cJSON_Print(doc);
        FILE* f = fopen(out, "w");
        if (!f || fputs(text, f) < 0 || fclose(f)) {
            fprintf(stderr, "bench_dist_reduce: cannot write %s\n", out);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        free(text);
        cJSON_Delete(doc);
    } else {
        cJSON_Delete(results);
        cJSON_Delete(notes);
    }
    MPI_Finalize();
    return 0;
}
