// libfloat/libfloat.hpp: the core, the part every user needs. Formats as data (lf::format), the
// rounding directions, flags, policies and environments, the IEEE 754-2019 operations on run-time
// formats (core/arith.hpp) and on types (lf::fp<F>, core/fp.hpp), decimal conversion, array
// conversion, and stream output.
//
// The other layers have their own headers (docs/README.md describes the layers):
//   <libfloat/models.hpp>    accumulation models, exact sums and dot products, matrix units
//   <libfloat/training.hpp>  mixed-precision training: GradScaler, autocast tables, range reports
#pragma once

#include <libfloat/core/arith.hpp>
#include <libfloat/core/array.hpp>
#include <libfloat/core/array_arith.hpp>
#include <libfloat/core/decimal.hpp>
#include <libfloat/core/format.hpp>
#include <libfloat/core/fp.hpp>
#include <libfloat/core/io.hpp>
#include <libfloat/core/rounding.hpp>
#include <libfloat/core/env.hpp>
#include <libfloat/core/status.hpp>
#include <libfloat/version.hpp>
