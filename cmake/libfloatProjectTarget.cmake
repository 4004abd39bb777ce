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

# libfloat_project_target(<target>): link a project executable with the library and the warning flags.
function(libfloat_project_target tgt)
  target_link_libraries(${tgt} PRIVATE libfloat::libfloat libfloat_warnings)
endfunction()
