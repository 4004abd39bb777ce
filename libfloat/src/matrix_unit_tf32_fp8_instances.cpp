// The matrix unit's typed dot and gemm on tf32, E4M3 and E5M2 operands, compiled once for the
// libfloat::runtime library (see models_instances.cpp; the header declares them extern under
// LIBFLOAT_SEPARATE_RUNTIME).
#include <libfloat/models/matrix_unit.hpp>

LIBFLOAT_MATRIX_UNIT_TF32_FP8_INSTANCES()
