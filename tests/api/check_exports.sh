#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The shared library exports only the public API: every defined dynamic symbol is
# a public mct_ name (no library-internal names, no C++ mangled names, no emulator
# internals), and with HEADER_DIR, exactly the functions its headers mark MCT_API.
# Usage: check_exports.sh LIBRARY [HEADER_DIR [MACRO]]; MACRO marks the library's
# exports (default MCT_API; MCT_DIST_API for libmctally_mpi).
set -euo pipefail
lib=${1:?usage: check_exports.sh LIBRARY [HEADER_DIR [MACRO]]}
headers=${2:-}
macro=${3:-MCT_API}
[ -f "$lib" ] || { echo "check_exports: no library at $lib" >&2; exit 1; }
syms=$(nm -D --defined-only "$lib" | awk 'NF >= 3 { print $3 }' | sed 's/@.*//' | sort -u)
[ -n "$syms" ] || { echo "check_exports: $lib exports nothing" >&2; exit 1; }
bad=$(printf '%s\n' "$syms" | grep -v '^mct_[a-z0-9]' || true)
if [ -n "$bad" ]; then
  echo "check_exports: $lib exports non-API symbols:" >&2
  printf '  %s\n' $bad >&2
  exit 1
fi
# Every function an installed header marks with the macro is exported, and nothing else.
if [ -n "$headers" ]; then
  declared=$(grep -rhoE "$macro"'[^(;]*\bmct_[a-z0-9_]+ *\(' "$headers" | grep -oE 'mct_[a-z0-9_]+ *\($' |
             tr -d ' (' | sort -u)
  declared_vars=$(grep -rhoE "extern $macro"' __thread [^;]*\bmct_[a-z0-9_]+;' "$headers" | grep -oE 'mct_[a-z0-9_]+;$' |
                  tr -d ';' | sort -u || true)
  want=$(printf '%s\n%s\n' "$declared" "$declared_vars" | sed '/^$/d' | sort -u)
  missing=$(comm -23 <(printf '%s\n' "$want") <(printf '%s\n' "$syms"))
  extra=$(comm -13 <(printf '%s\n' "$want") <(printf '%s\n' "$syms"))
  if [ -n "$missing" ]; then
    echo "check_exports: declared $macro but not exported:" >&2; printf '  %s\n' $missing >&2; exit 1
  fi
  if [ -n "$extra" ]; then
    echo "check_exports: exported but not declared $macro in $headers:" >&2; printf '  %s\n' $extra >&2; exit 1
  fi
fi
echo "check_exports: $(printf '%s\n' "$syms" | wc -l) symbols, all public API"
