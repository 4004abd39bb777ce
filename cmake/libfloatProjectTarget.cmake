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

# libfloat::runtime (libfloat/CMakeLists.txt: the run-time-format operations and the models' entry
# points compiled once, LIBFLOAT_SEPARATE_RUNTIME) is compiled with the project's warning flags here;
# as options, not as a link to libfloat_warnings, which would put a non-exported target into the
# installed library's link interface.
target_compile_options(libfloat_runtime PRIVATE $<TARGET_PROPERTY:libfloat_warnings,INTERFACE_COMPILE_OPTIONS>)

# LIBFLOAT_RUNTIME_INSTANCES_OPTIONS: extra compile options for src/runtime_instances.cpp alone (the
# 300 run-time-format operations in one translation unit). The dev preset sets -O1: under ASan and
# UBSan, Clang 16 compiles it in 60 s and 0.6 GB at -O1 against 105 s and 4.4 GB at -O0 (measured
# 2026-12-04). The other files keep the preset's -O0, which compiles them faster (models_instances.cpp
# 39 s at -O0, 137 s at -O1; test_low_bit_models.cpp 33 s and 91 s).
set(LIBFLOAT_RUNTIME_INSTANCES_OPTIONS "" CACHE STRING
    "Extra compile options for libfloat/src/runtime_instances.cpp (a ;-list; the dev preset: -O1)")
if(LIBFLOAT_RUNTIME_INSTANCES_OPTIONS)
  set_source_files_properties("${PROJECT_SOURCE_DIR}/libfloat/src/runtime_instances.cpp"
                              TARGET_DIRECTORY libfloat_runtime
                              PROPERTIES COMPILE_OPTIONS "${LIBFLOAT_RUNTIME_INSTANCES_OPTIONS}")
endif()

# libfloat_project_target(<target> [HEADER_ONLY]): link a project program with the library and the
# warning flags, and with libfloat::runtime unless HEADER_ONLY (the benchmarks measure the library as
# other projects get it by default, header-only).
function(libfloat_project_target tgt)
  cmake_parse_arguments(PARSE_ARGV 1 arg "HEADER_ONLY" "" "")
  target_link_libraries(${tgt} PRIVATE libfloat::libfloat libfloat_warnings)
  if(NOT arg_HEADER_ONLY)
    target_link_libraries(${tgt} PRIVATE libfloat::runtime)
  endif()
endfunction()

# libfloat_test_optimization(<target> CHECKS|KERNELS): the optimization level of a test program in a
# Release build (other build types keep their own flags, e.g. the dev preset's -O0 with sanitizers).
#   CHECKS   -O1. Programs that run for seconds: their time is in compiling them (test_array: 51 s at
#            -O3, 34 s at -O2, 23 s at -O1 with GCC 12), not in running them.
#   KERNELS  -O3. Programs that exercise the fast paths as users compile them (vectorised loops and
#            the code GCC generates for the kernels' target attributes differ by level), and the
#            exhaustive and proof enumerations, whose run time is most of the test label's.
# The last -O on the command line wins, and target options come after CMAKE_CXX_FLAGS_RELEASE.
# At -O1 GCC 12's -Wmaybe-uninitialized reports Boost.Multiprecision's cpp_int limbs (cpp_int.hpp:342)
# as possibly uninitialized, which the same code at -O2 and -O3 and Clang's -Wuninitialized (the dev
# preset) do not; CHECKS programs turn that one warning off.
function(libfloat_test_optimization tgt role)
  if(role STREQUAL "CHECKS")
    target_compile_options(${tgt} PRIVATE $<$<CONFIG:Release>:-O1>
                           $<$<AND:$<CONFIG:Release>,$<CXX_COMPILER_ID:GNU>>:-Wno-maybe-uninitialized>)
  elseif(role STREQUAL "KERNELS")
    target_compile_options(${tgt} PRIVATE $<$<CONFIG:Release>:-O3>)
  else()
    message(FATAL_ERROR "libfloat_test_optimization(${tgt} ${role}): the role is CHECKS or KERNELS")
  endif()
endfunction()
