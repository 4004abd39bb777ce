// The models' non-template entry points compiled once (CMake target libfloat::runtime, which
// defines LIBFLOAT_SEPARATE_RUNTIME for its consumers): the engines behind sum, dot and gemm on
// encodings (models/accumulate.hpp) and behind the matrix-unit dot and gemm
// (models/matrix_unit.hpp). The headers declare these instantiations extern under
// LIBFLOAT_SEPARATE_RUNTIME; this file defines them, from the same code.
#include <libfloat/models/accumulate.hpp>
#include <libfloat/models/matrix_unit.hpp>

LIBFLOAT_ACCUMULATE_INSTANCES()
LIBFLOAT_MATRIX_UNIT_INSTANCES()
