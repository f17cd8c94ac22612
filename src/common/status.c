/* SPDX-License-Identifier: BSD-3-Clause */
/** @file status.c  Names and messages of mct_status_t, generated from MCT_STATUS_MAP. */
#include "mctally/mct_status.h"

const char* mct_status_name(mct_status_t status) {
    switch (status) {
#define MCT__STATUS_NAME(name, code, msg) \
    case MCT_STATUS_##name:               \
        return #name;
        MCT_STATUS_MAP(MCT__STATUS_NAME)
#undef MCT__STATUS_NAME
    }
    return "UNKNOWN_STATUS";
}

const char* mct_status_string(mct_status_t status) {
    switch (status) {
#define MCT__STATUS_STRING(name, code, msg) \
    case MCT_STATUS_##name:                 \
        return msg;
        MCT_STATUS_MAP(MCT__STATUS_STRING)
#undef MCT__STATUS_STRING
    }
    return "unknown status code";
}
