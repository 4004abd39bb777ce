// The run-time-format operations (lf::add(format, ...), sub, mul, div, sqrt, fma for every named
// format and rounding mode, and the generic code) compiled once: part of the libfloat::runtime
// library (libfloat/CMakeLists.txt), whose consumers define LIBFLOAT_SEPARATE_RUNTIME and only
// declare them; see <libfloat/core/runtime_instances.hpp>.
#include <libfloat/core/runtime_instances.hpp>
