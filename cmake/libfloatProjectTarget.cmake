# Warnings for libfloat's own executables (tests, tools, quiz, benchmarks).
#
# libfloat_warnings is linked PRIVATE and is neither installed nor exported, so these flags never reach a
# project that consumes libfloat::libfloat (tests/package checks that).
add_library(libfloat_warnings INTERFACE)
target_compile_options(libfloat_warnings INTERFACE
  $<$<CXX_COMPILER_ID:GNU,Clang,AppleClang>:-Wall -Wextra -Wpedantic -Werror>
  $<$<CXX_COMPILER_ID:MSVC>:/W4 /WX /permissive->
  # GCC 12 reports a false -Wrestrict inside libstdc++'s `"literal" + std::string&&` (GCC bug 105651),
  # here through CLI11's Formatter.hpp, and whether it fires depends on unrelated inlining decisions.
  $<$<AND:$<CXX_COMPILER_ID:GNU>,$<VERSION_LESS:$<CXX_COMPILER_VERSION>,13>>:-Wno-restrict>)

# The run-time-format operations (lf::add(format, ...) for every named format and mode, which sum,
# dot, gemm and the matrix units use) compiled once for all of the project's programs instead of in
# each of their translation units: LIBFLOAT_SEPARATE_RUNTIME and <libfloat/runtime_instances.hpp>
# (arith.hpp explains). The same code; it cuts the build time roughly in half. Not installed: other
# projects get the header-only library and may do the same in their own build.
add_library(libfloat_runtime STATIC "${PROJECT_SOURCE_DIR}/libfloat/src/runtime_instances.cpp")
target_link_libraries(libfloat_runtime PUBLIC libfloat::libfloat PRIVATE libfloat_warnings)
target_compile_definitions(libfloat_runtime PUBLIC LIBFLOAT_SEPARATE_RUNTIME)

# libfloat_project_target(<target> [HEADER_ONLY]): link a project program with the library and the
# warning flags, and with libfloat_runtime unless HEADER_ONLY (the benchmarks measure the library as
# other projects get it, header-only).
function(libfloat_project_target tgt)
  cmake_parse_arguments(PARSE_ARGV 1 arg "HEADER_ONLY" "" "")
  target_link_libraries(${tgt} PRIVATE libfloat::libfloat libfloat_warnings)
  if(NOT arg_HEADER_ONLY)
    target_link_libraries(${tgt} PRIVATE libfloat_runtime)
  endif()
endfunction()
