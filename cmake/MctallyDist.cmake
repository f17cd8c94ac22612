# SPDX-License-Identifier: BSD-3-Clause
# The distributed tally layer's build options (included by the top-level
# CMakeLists.txt). Each is on by default and turns itself off, with a message,
# where what it needs is not found, so a machine without MPI builds as before.
#   MCTALLY_MPI:  libmctally_mpi (src/dist) and `mpirun -n R mctally run`; needs MPI (C).
#   MCTALLY_NCCL: its NCCL transport; needs MCTALLY_MPI, the CUDA backend and NCCL
#                 (nccl.h and libnccl, in the CUDA toolkit or under NCCL_HOME).
option(MCTALLY_MPI "Build libmctally_mpi and the CLI's multi-rank runs when MPI is found" ON)
option(MCTALLY_NCCL "Reduce GPU tallies through NCCL in libmctally_mpi when NCCL is found" ON)

set(MCT_HAVE_MPI 0)
if(MCTALLY_MPI AND MCT_FUZZ)
  message(STATUS "mctally: MPI layer off in the fuzzing build")
elseif(MCTALLY_MPI)
  find_package(MPI COMPONENTS C QUIET)
  if(MPI_C_FOUND)
    set(MCT_HAVE_MPI 1)
  else()
    message(STATUS "mctally: MPI not found; libmctally_mpi and multi-rank runs are not built (Debian: libopenmpi-dev)")
  endif()
endif()

set(MCT_HAVE_NCCL 0)
if(MCTALLY_NCCL AND MCT_HAVE_MPI AND MCT_HAVE_CUDA)
  find_path(MCT_NCCL_INCLUDE_DIR nccl.h HINTS ENV NCCL_HOME ${CUDAToolkit_INCLUDE_DIRS} PATH_SUFFIXES include)
  # libnccl.so.2 too: the pip wheel (nvidia-nccl-cu12) has no unversioned link.
  find_library(MCT_NCCL_LIBRARY NAMES nccl libnccl.so.2 HINTS ENV NCCL_HOME ${CUDAToolkit_LIBRARY_DIR}
               PATH_SUFFIXES lib lib64)
  if(MCT_NCCL_INCLUDE_DIR AND MCT_NCCL_LIBRARY)
    set(MCT_HAVE_NCCL 1)
  else()
    message(STATUS "mctally: NCCL not found; GPU tallies are reduced through host MPI")
  endif()
endif()
message(STATUS "mctally: MPI layer ${MCT_HAVE_MPI}, NCCL transport ${MCT_HAVE_NCCL}")
