// libfloat/core/runtime_instances.hpp: the explicit instantiations of the run-time-format operations
// (lf::add, sub, mul, div, sqrt and fma on a run-time lf::format, for every named format and
// rounding mode, and the generic code for other formats).
//
// Optional. Include this header in exactly one .cpp file of a program whose other translation
// units define LIBFLOAT_SEPARATE_RUNTIME (see core/detail/runtime_entry.hpp): they then skip
// compiling these 300 functions, which is most of the compile time of code that calls sum, dot,
// gemm, the matrix units or lf::add(format, ...). Without LIBFLOAT_SEPARATE_RUNTIME nothing needs this file.
#pragma once

#include <libfloat/core/arith.hpp>

namespace lf::detail {
#define LIBFLOAT_RUNTIME_DEFINE(F, M) LIBFLOAT_RUNTIME_DECLARE(, F, M)
LIBFLOAT_RUNTIME_INSTANCES(LIBFLOAT_RUNTIME_DEFINE)
#undef LIBFLOAT_RUNTIME_DEFINE
}  // namespace lf::detail
