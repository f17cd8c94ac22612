#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Downloads Open MPI's Debian packages and the libraries they load into .mpi-debs/, for a
# GPU machine without MPI or a package registry: scripts/gpu_suite.sh unpacks them there.
set -eu
cd "$(dirname "$0")/.."
mkdir -p .mpi-debs
cd .mpi-debs
apt-get download openmpi-bin openmpi-common libopenmpi3 libopenmpi-dev libhwloc15 libevent-2.1-7 \
  libevent-core-2.1-7 libevent-pthreads-2.1-7 libpmix2 libfabric1 libibverbs1 ibverbs-providers librdmacm1 \
  libnl-3-200 libnl-route-3-200 libpsm2-2 libpsm-infinipath1 libnuma1 libucx0 libmunge2 libltdl7
