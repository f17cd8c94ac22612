#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# A rank that dies in the middle of a run (test_dist_api die: the last rank
# aborts while the others wait in the batch's agreement) ends the job: the
# launcher exits non-zero well within the limit, instead of hanging.
# Usage: test_dist_die.sh TEST_DIST_API
set -u
here=$(cd "$(dirname "$0")" && pwd)
start=$(date +%s)
timeout 120 "$here/mpi_launch.sh" 3 "$1" die >/dev/null 2>&1
rc=$?
took=$(( $(date +%s) - start ))
echo "launcher exit status $rc after ${took} s"
[ "$rc" -ne 124 ] || { echo "FAIL: the ranks hung after one died"; exit 1; }
[ "$rc" -ne 0 ] || { echo "FAIL: the job succeeded although a rank died"; exit 1; }
echo "PASS: every rank ended"
