// libfloat/libfloat.hpp: the umbrella header.
#pragma once

#include "arith.hpp"
#include "decimal.hpp"
#include "format.hpp"
#include "fp.hpp"
#include "io.hpp"
#include "rounding.hpp"
#include "status.hpp"
#include "version.hpp"
#include "exact.hpp"
#include "accumulate.hpp"
#include "matrix_unit.hpp"
#include "amp.hpp"
#include "array.hpp"
