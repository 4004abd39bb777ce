// The models' non-template entry points compiled once (CMake target libfloat::runtime, which
// defines LIBFLOAT_SEPARATE_RUNTIME for its consumers): the engines behind sum, dot and gemm on
// encodings (models/accumulate.hpp) and the matrix-unit engine behind its run-time-format dot
// (models/matrix_unit.hpp). The headers declare these instantiations extern under
// LIBFLOAT_SEPARATE_RUNTIME; this file defines them, from the same code. The matrix unit's typed dot
// and gemm are in matrix_unit_16bit_instances.cpp and matrix_unit_tf32_fp8_instances.cpp, which
// compile beside this file (it took about 100 s of the build's critical path alone).
// (LIBFLOAT_DEFINE_RUNTIME: models/detail/parallel.hpp's definitions too, instantiated below.)
#define LIBFLOAT_DEFINE_RUNTIME 1
#include <libfloat/models/accumulate.hpp>
#include <libfloat/models/matrix_unit.hpp>

LIBFLOAT_ACCUMULATE_INSTANCES()
LIBFLOAT_MATRIX_UNIT_ENGINE_INSTANCE()

template unsigned lf::detail::parallel_threads<void>(unsigned);
template void lf::detail::parallel_for<void>(std::size_t, void (*)(void*, std::size_t), void*);
