/* SPDX-License-Identifier: BSD-3-Clause */
/** @file sim_common.h  Internal: small pieces every problem driver needs. */
#ifndef MCT_SIM_COMMON_H
#define MCT_SIM_COMMON_H

#include <stddef.h>
#include <stdint.h>

#include "mctally/mct_config.h"
#include "mctally/mct_tally.h"

#ifdef __cplusplus
extern "C" {
#endif

/** The opening of a problem's run: NULL_POINTER without a result `out`,
 * else `checked` (the status of the problem's check of its parameters and
 * the tally), else the tally's description into *d. */
mct_status_t sim_run_start(const void* out, mct_status_t checked, mct_tally_t tally, mct_tally_desc_t* d);

/** Standard error of a mean per history by the batch method, batches
 * weighted by their histories: batch b summed x[b * stride] over size[b]
 * histories, and `total` over all `n` histories. NaN for one batch. */
double sim_batch_error(const double* x, int64_t stride, const int64_t* size, int64_t batches, double total, double n);

/** Writes one line (printf format) into err, when err and errlen, and
 * returns st: how the readers of input files report a refusal. */
mct_status_t sim_fail(char* err, size_t errlen, mct_status_t st, const char* fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;

/** Seconds on a monotonic clock. */
double sim_now_seconds(void);

/** The checks every problem with a float tally makes: reads the tally's
 * description into *d; INVALID_VALUE when it does not have `bins` bins,
 * NOT_SUPPORTED when its dtype is not f32 or f64 or when its method is
 * `shared` and the bins do not fit a block's shared memory
 * (MCT_BLOCK_TALLY_SMEM_LIMIT); else SUCCESS. */
mct_status_t sim_check_float_tally(mct_tally_t tally, int64_t bins, mct_tally_desc_t* d);

/** The host backends (cpu, emulated) keep replicas in the machine's RAM,
 * beside everything else: at most this share of the free memory, and at most
 * SIM_HOST_REPLICA_BYTES in all (every copy is read again by each batch's
 * reduction, as the library's own default replicas), so that a run with many
 * adding threads (the
 * emulated GPU grid: 65536 threads x 8000 bins x 8 B would be 4 GB) does not
 * take the machine's memory. More threads than replicas share them through
 * atomics, which is still right; mct_tally_determinism then reports
 * not_guaranteed for a float tally. */
#define SIM_HOST_REPLICA_FRACTION 0.25
#define SIM_HOST_REPLICA_BYTES ((size_t)256 << 20)

/** The most replicas a problem reserves: SIM_HOST_REPLICA_* on the host
 * backends, half the free memory on a GPU. */
mct_status_t sim_replica_limit(mct_tally_t tally, int64_t* limit);

/** Replicated tallies: one replica per adding thread (`threads`) where that
 * is within sim_replica_limit; else that many, which the threads then share
 * through atomics (still right). TOO_LARGE when not even one fits. */
mct_status_t sim_reserve_replicas(mct_tally_t tally, int64_t threads);

/** OpenMP threads a CPU engine's parallel loops run on, and the calling
 * thread's number among them (1 and 0 without OpenMP). */
int sim_cpu_threads(void);
int sim_cpu_thread_id(void);

#ifdef __cplusplus
}
#endif

#endif /* MCT_SIM_COMMON_H */
