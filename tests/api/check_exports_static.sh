#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The static library's rule, the counterpart of check_exports.sh: an archive
# cannot hide its internal names from the program it is linked into, so every
# global symbol it defines must be mctally's own (mct_ and mct__ C names, C++
# names of mct templates and their lambdas), where it cannot collide with the
# program's; weak definitions of the C++ standard library's templates (merged
# with the program's own by the linker), the same weak or unique (STB_GNU_UNIQUE)
# instances of CUB, libcu++, NVTX and Thrust templates and inline variables that
# the CUDA backend's device layer instantiates, and NVTX's header-only weak C
# entry points that CUB's ranges bring (merged alike with a program's own CCCL), and the C++ runtime's personality reference are the only others
# allowed.
# Usage: check_exports_static.sh LIBRARY.a
set -euo pipefail
lib=${1:?usage: check_exports_static.sh LIBRARY.a}
[ -f "$lib" ] || { echo "check_exports_static: no library at $lib" >&2; exit 1; }
syms=$(nm -g --defined-only "$lib" 2>/dev/null | awk 'NF >= 3 { print $2, $3 }' | sort -u)
[ -n "$syms" ] || { echo "check_exports_static: $lib defines nothing" >&2; exit 1; }
bad=$(printf '%s\n' "$syms" | grep -vE ' (mct_[a-z0-9]|mct__[a-z0-9]|_ZZ?(N|NK)?[0-9]+mct|_ZT[SIV][0-9]+mct|DW\.ref\.__gxx_personality_v0$)' |
      grep -vE '^[WV] _Z(N|NK)?S' |
      grep -vE '^[WVu] _Z(GV|T[ISV])?Z?N?K?(3cub|4cuda|5nvtx3|6thrust)' |
      grep -vE '^[WVu] (nvtx[A-Za-z0-9_]*_v3|InitializeInjectionNvtx2_fnptr|_ZZ[0-9]+nvtx[A-Za-z0-9_]*)' || true)
if [ -n "$bad" ]; then
  echo "check_exports_static: $lib defines global symbols that are not mctally's:" >&2
  printf '%s\n' "$bad" | awk '{print "  " $2}' >&2
  exit 1
fi
echo "check_exports_static: $(printf '%s\n' "$syms" | wc -l) global symbols, all mctally's"
