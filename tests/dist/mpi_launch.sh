#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# mpi_launch.sh N PROGRAM ARGS...: PROGRAM on N ranks of this machine through
# the MPI launcher ($MCT_MPIEXEC, default mpirun), one OpenMP thread each. With
# Open MPI: more ranks than cores (--oversubscribe), as root where the tests
# run as root (CI containers), and, unless the caller sets it, no cross-memory
# attach between ranks (which containers often forbid; the tests' messages are
# small, and timings set it back to cma). Any other launch (an MPMD line) is given as
#   mpi_launch.sh - ARGS... : the launcher's arguments after the Open MPI ones.
set -eu
n=$1
shift
MPIEXEC=${MCT_MPIEXEC:-mpirun}
export OMP_NUM_THREADS=1
flags=()
if "$MPIEXEC" --version 2>&1 | grep -qE "Open MPI|OpenRTE"; then
  flags+=(--oversubscribe)
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
  export OMPI_MCA_btl_vader_single_copy_mechanism=${OMPI_MCA_btl_vader_single_copy_mechanism:-none}
fi
if [ "$n" = - ]; then
  exec "$MPIEXEC" "${flags[@]}" "$@"
fi
exec "$MPIEXEC" "${flags[@]}" -n "$n" "$@"
