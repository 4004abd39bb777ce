// The run-time-format operations compiled once for libfloat's own programs (target
// libfloat_runtime, cmake/libfloatProjectTarget.cmake); see <libfloat/runtime_instances.hpp>.
#include <libfloat/runtime_instances.hpp>
