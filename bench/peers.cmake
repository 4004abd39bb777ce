# bench_peers: libfloat side by side with Berkeley SoftFloat 3e and CPFloat, measured in one process.
#
# Built only when the peers' source tarballs lie in ../shared/peers next to the source tree
# (berkeley-softfloat-3.tar.gz, cpfloat.tar.gz); otherwise one notice and nothing else. Both are
# unpacked and built inside this build directory (peers/), never in the source tree, and nothing
# but this benchmark links them: tests and the other targets never depend on them.
#   SoftFloat: its own makefile, build/Linux-x86_64-GCC with SPECIALIZE_TYPE=8086-SSE (its
#              default options, -O2), giving softfloat.a.
#   CPFloat:   header-only C; bench/peers_cpfloat.c wraps cpfloatf() behind three plain functions,
#              compiled as C with CPFloat's own makefile's flags (-std=gnu99 -O3 -march=native)
#              but without -fopenmp (every benchmark here is single-threaded), and without PCG (its
#              optional submodule is not in the tarball), so stochastic rounding draws from rand().

set(_peers_dir "${PROJECT_SOURCE_DIR}/../shared/peers")
set(_peers_softfloat_tar "${_peers_dir}/berkeley-softfloat-3.tar.gz")
set(_peers_cpfloat_tar "${_peers_dir}/cpfloat.tar.gz")

if(NOT EXISTS "${_peers_softfloat_tar}" OR NOT EXISTS "${_peers_cpfloat_tar}")
  message(STATUS "bench_peers not built: no SoftFloat / CPFloat tarballs in ${_peers_dir}")
  return()
endif()
if(NOT CMAKE_SYSTEM_NAME STREQUAL "Linux" OR NOT CMAKE_SYSTEM_PROCESSOR MATCHES "^(x86_64|AMD64|amd64)$")
  message(STATUS "bench_peers not built: SoftFloat's build/Linux-x86_64-GCC makefile needs Linux on x86-64")
  return()
endif()
include(CheckLanguage)
check_language(C)
find_program(LIBFLOAT_PEERS_MAKE NAMES gmake make)
mark_as_advanced(LIBFLOAT_PEERS_MAKE)
if(NOT CMAKE_C_COMPILER OR NOT LIBFLOAT_PEERS_MAKE)
  message(STATUS "bench_peers not built: SoftFloat and CPFloat need a C compiler and make")
  return()
endif()
enable_language(C)

include(ExternalProject)
set(_peers_root "${CMAKE_CURRENT_BINARY_DIR}/peers")

set(_softfloat_src "${_peers_root}/berkeley-softfloat-3")
set(_softfloat_build "${_softfloat_src}/build/Linux-x86_64-GCC")
ExternalProject_Add(peer_softfloat
  URL "${_peers_softfloat_tar}"
  DOWNLOAD_EXTRACT_TIMESTAMP TRUE
  PREFIX "${_peers_root}/softfloat-ep"
  SOURCE_DIR "${_softfloat_src}"
  BUILD_IN_SOURCE TRUE
  CONFIGURE_COMMAND ""
  BUILD_COMMAND "${LIBFLOAT_PEERS_MAKE}" -C "${_softfloat_build}" SPECIALIZE_TYPE=8086-SSE softfloat.a
  INSTALL_COMMAND ""
  BUILD_BYPRODUCTS "${_softfloat_build}/softfloat.a"
  LOG_BUILD TRUE
  LOG_OUTPUT_ON_FAILURE TRUE)
# An imported target's include directory must exist when CMake generates the build system.
file(MAKE_DIRECTORY "${_softfloat_src}/source/include")
add_library(peer_softfloat_lib STATIC IMPORTED)
set_target_properties(peer_softfloat_lib PROPERTIES
  IMPORTED_LOCATION "${_softfloat_build}/softfloat.a"
  INTERFACE_SYSTEM_INCLUDE_DIRECTORIES "${_softfloat_src}/source/include"
  INTERFACE_INCLUDE_DIRECTORIES "${_softfloat_src}/source/include")
add_dependencies(peer_softfloat_lib peer_softfloat)

set(_cpfloat_src "${_peers_root}/cpfloat")
ExternalProject_Add(peer_cpfloat
  URL "${_peers_cpfloat_tar}"
  DOWNLOAD_EXTRACT_TIMESTAMP TRUE
  PREFIX "${_peers_root}/cpfloat-ep"
  SOURCE_DIR "${_cpfloat_src}"
  CONFIGURE_COMMAND ""
  BUILD_COMMAND ""
  INSTALL_COMMAND ""
  BUILD_BYPRODUCTS "${_cpfloat_src}/src/cpfloat_binary32.h")
file(MAKE_DIRECTORY "${_cpfloat_src}/src")
add_library(peer_cpfloat_wrap STATIC peers_cpfloat.c)
add_dependencies(peer_cpfloat_wrap peer_cpfloat)
target_include_directories(peer_cpfloat_wrap SYSTEM PRIVATE "${_cpfloat_src}/src")
# -Wno-cpp: CPFloat's #warning that it falls back to rand() without PCG.
target_compile_options(peer_cpfloat_wrap PRIVATE -std=gnu99 -O3 -march=native -Wno-cpp)
target_link_libraries(peer_cpfloat_wrap PRIVATE m)

add_executable(bench_peers bench_peers.cpp)
libfloat_project_target(bench_peers HEADER_ONLY)
target_link_libraries(bench_peers PRIVATE benchmark::benchmark peer_softfloat_lib peer_cpfloat_wrap)
