#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# A source install of the Python package as a user makes it (pip install
# python/), into an empty target folder, without build isolation so that no
# network is needed; then the host tests against the installed package and the
# CLI it ships (not the build tree's). CPU-only build, to keep CI's time.
# usage: test_python_install.sh PYTHON SOURCE_DIR WORK_DIR
set -eu
py=$1 src=$2 work=$3
rm -rf "$work" && mkdir -p "$work"
"$py" -m pip install --quiet --no-build-isolation --no-deps --target "$work/site" \
  -C cmake.define.MCT_ENABLE_CUDA=OFF -C build-dir="$work/build" "$src/python"
test -x "$work/site/mctally/bin/mctally" && test -f "$work/site/mctally/libmctally.so.0"
cd "$work"
env -u MCTALLY_CLI PYTHONPATH="$work/site" "$py" - <<'PY'
import os, mctally
site = os.path.join(os.getcwd(), "site")
assert mctally.__file__.startswith(site), mctally.__file__
assert mctally.cli_path().startswith(site), mctally.cli_path()
print("installed:", mctally.__file__, mctally.cli_path())
PY
env -u MCTALLY_CLI PYTHONPATH="$work/site" "$py" -m pytest -q -p no:cacheprovider \
  "$src/tests/python/test_python_tally.py" "$src/tests/python/test_python_scatter_add_cache.py" \
  "$src/tests/python/test_python_run.py"
