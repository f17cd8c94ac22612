/* SPDX-License-Identifier: BSD-3-Clause */
/** @file cpu_backend.h  Internal entry points of the CPU backend's methods. */
#ifndef MCT_CPU_BACKEND_H
#define MCT_CPU_BACKEND_H

#include "../common/backend.h"

/* The ops of backend.h; the CPU adds in place, so it needs no scratch. */
mct_status_t mct__cpu_add_host(const mct_tally_view_t* view, const void* keys, mct_key_type_t key_type,
                               const double* values, int64_t n,
                               mct__scratch_t* scratch, void* stream, int64_t* writers);
mct_status_t mct__cpu_add_device(const mct_tally_view_t* view, const void* keys, mct_key_type_t key_type,
                                 const double* values, int64_t n,
                                 int width, int64_t stride, void* stream, int64_t* writers);
mct_status_t mct__cpu_sort_reduce(const mct_tally_view_t* view, mct__scratch_t* scratch, void* stream);

#endif /* MCT_CPU_BACKEND_H */
