/* SPDX-License-Identifier: BSD-3-Clause */
/** @file sim_deposit.h  How a problem's device kernel hands its deposits to the
 * tally: straight with the method's add (direct), through mct_deposit_buffer
 * (buffered: register runs, a block cache of hot bins, per-lane sort_reduce
 * slots; block_deposit_buffer.cuh), or chosen per method (auto). C and C++,
 * host only; the CPU engines ignore it. */
#ifndef MCT_SIM_DEPOSIT_H
#define MCT_SIM_DEPOSIT_H

#include <stddef.h>
#include <stdint.h>

#include "mctally/mct_tally.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
    MCT_SIM_DEPOSIT_AUTO = 0,     /**< buffered where sim_deposit_auto_buffers says so */
    MCT_SIM_DEPOSIT_DIRECT = 1,   /**< every deposit is the method's add */
    MCT_SIM_DEPOSIT_BUFFERED = 2, /**< every deposit goes through mct_deposit_buffer */
} mct_sim_deposit_t;

/** The choice's name in problem files and result.json. */
static inline const char* sim_deposit_name(mct_sim_deposit_t d) {
    return d == MCT_SIM_DEPOSIT_DIRECT ? "direct" : d == MCT_SIM_DEPOSIT_BUFFERED ? "buffered" : "auto";
}

/** `auto`'s table: the methods whose direct add, inside divergent transport,
 * waits on contended global memory: a compare-and-swap loop on the bin (cas,
 * wag on floats, kahan_naive) or one counter for the whole GPU (sort_reduce).
 * kahan's compensated add has no loop to retry (one atomic round trip), so
 * it stays direct. The buffer's cache turns their hot bins into shared-memory
 * adds, and its slots give sort_reduce one reservation per lane's slots.
 * `block_private`: the problem's direct path already keeps this method's sums
 * in a block-private copy (mct_block_tally's modes other than per-lane), which
 * the buffer would not improve on. The other methods (one native atomic, a
 * private replica, native-atomic warp aggregation, fixed's integer atomics)
 * stay direct until bench_deposit's measurements on the GPU say otherwise. */
static inline int sim_deposit_auto_buffers(mct_method_t m, mct_dtype_t d, int block_private) {
    if (block_private) return 0;
    return m == MCT_METHOD_CAS || m == MCT_METHOD_KAHAN_NAIVE ||
           m == MCT_METHOD_SORT_REDUCE || (m == MCT_METHOD_WAG && (d == MCT_DTYPE_F32 || d == MCT_DTYPE_F64));
}

/** Whether a run with choice `d` buffers a tally of method m and type dt;
 * `atomic`, `replicated` and `shared` never do (their add is already one
 * uncontended instruction, and the buffer would only take the kernel's
 * registers and shared memory). */
static inline int sim_deposit_buffers(mct_sim_deposit_t d, mct_method_t m, mct_dtype_t dt, int block_private) {
    if (m == MCT_METHOD_ATOMIC || m == MCT_METHOD_REPLICATED || m == MCT_METHOD_SHARED) return 0;
    if (d == MCT_SIM_DEPOSIT_BUFFERED) return 1;
    if (d == MCT_SIM_DEPOSIT_DIRECT) return 0;
    return sim_deposit_auto_buffers(m, dt, block_private);
}

#ifdef __cplusplus
}
#endif

#endif /* MCT_SIM_DEPOSIT_H */
