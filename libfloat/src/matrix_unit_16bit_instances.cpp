// The matrix unit's typed dot and gemm on fp16 and bf16 operands, compiled once for the
// libfloat::runtime library (see models_instances.cpp; the header declares them extern under
// LIBFLOAT_SEPARATE_RUNTIME).
#include <libfloat/models/matrix_unit.hpp>

LIBFLOAT_MATRIX_UNIT_16BIT_INSTANCES()
