/* SPDX-License-Identifier: BSD-3-Clause */
/** @file mct_export.h  MCT_API marks what the shared library exports.
 *
 * The library is built with hidden visibility, so only declarations marked
 * MCT_API (the mct_ functions of the public headers) are in its dynamic symbol
 * table; everything else stays internal and can change without breaking a
 * program linked against it. A static build (MCT_STATIC) marks nothing. */
#ifndef MCT_EXPORT_H
#define MCT_EXPORT_H

#if defined(MCT_STATIC)
#define MCT_API
#elif defined(_WIN32)
#if defined(MCT_BUILDING_LIBRARY)
#define MCT_API __declspec(dllexport)
#else
#define MCT_API __declspec(dllimport)
#endif
#else
#define MCT_API __attribute__((visibility("default")))
#endif

#endif /* MCT_EXPORT_H */
