# fmt for the Emscripten build: Debian's libfmt-dev headers used header-only (FMT_HEADER_ONLY), copied
# into the build tree so that the host's /usr/include never enters the WebAssembly compile.
set(_fmt_src "")
foreach(_d /usr/include/fmt ${LIBFLOAT_FMT_INCLUDE_DIR}/fmt)
  if(EXISTS "${_d}/format-inl.h")
    set(_fmt_src "${_d}")
  endif()
endforeach()
if(NOT _fmt_src)
  message(FATAL_ERROR "The web build needs fmt's headers (Debian: apt-get install libfmt-dev), or -DLIBFLOAT_FMT_INCLUDE_DIR=<dir holding fmt/>")
endif()
file(COPY "${_fmt_src}/" DESTINATION "${CMAKE_BINARY_DIR}/fmt-include/fmt")
if(NOT TARGET fmt::fmt)
  add_library(libfloat_fmt_header_only INTERFACE)
  target_include_directories(libfloat_fmt_header_only SYSTEM INTERFACE "${CMAKE_BINARY_DIR}/fmt-include")
  target_compile_definitions(libfloat_fmt_header_only INTERFACE FMT_HEADER_ONLY)
  add_library(fmt::fmt ALIAS libfloat_fmt_header_only)
endif()

# libc++ 13 (Emscripten 3.1.6) lacks std::bit_cast: every file that includes libfloat gets the shim first.
target_compile_options(libfloat INTERFACE "SHELL:-include ${CMAKE_CURRENT_LIST_DIR}/std_compat.hpp")
