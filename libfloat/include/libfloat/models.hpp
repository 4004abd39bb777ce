// libfloat/models.hpp: models of how hardware and software combine many roundings: sums, dot
// products and matrix products with their own input, product and accumulator formats
// (models/accumulate.hpp), exact sums and dot products (models/exact.hpp), and matrix units such
// as tensor cores with their per-architecture presets (models/matrix_unit.hpp), and block-scaled
// formats (MX, NVFP4: models/block_scale.hpp) with block-scaled matrix units
// (models/block_scaled_unit.hpp). Includes the core.
#pragma once

#include <libfloat/libfloat.hpp>
#include <libfloat/models/accumulate.hpp>
#include <libfloat/models/block_scale.hpp>
#include <libfloat/models/block_scaled_unit.hpp>
#include <libfloat/models/exact.hpp>
#include <libfloat/models/matrix_unit.hpp>
