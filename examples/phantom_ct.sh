#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Makes the CT-like phantom (tools/phantom/make_ct_phantom.py) in OUT and runs
# examples/phantom_ct.ini on it there; further arguments go to `mctally run`
# (e.g. --histories 1e6 --backend cuda). mctally: $MCTALLY, or build/'s.
#   examples/phantom_ct.sh [OUT [ARGS...]]     (OUT: out/phantom_ct)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
out=${1:-out/phantom_ct}
[ $# -gt 0 ] && shift
mctally=${MCTALLY:-$root/build/tools/mctally/mctally}
mkdir -p "$out"
[ -f "$out/ct_phantom.mhd" ] || python3 "$root/tools/phantom/make_ct_phantom.py" "$out/ct_phantom"
cp "$here/phantom_ct.ini" "$out/phantom_ct.ini"
exec "$mctally" run "$out/phantom_ct.ini" --out "$out" "$@"
