/* SPDX-License-Identifier: BSD-3-Clause */
/** @file mct.h  Umbrella header of the mctally host API. */
#ifndef MCT_H
#define MCT_H
#include "mctally/mct_config.h"
#include "mctally/mct_status.h"
#include "mctally/mct_types.h"
#include "mctally/mct_tally.h"
#include "mctally/mct_combine.h"
#include "mctally/mct_plan.h"
#include "mctally/mct_rng.h"
#include "mctally/mct_scan.h"
#include "mctally/mct_rounding.h"
#endif
