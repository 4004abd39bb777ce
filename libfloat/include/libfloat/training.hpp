// libfloat/training.hpp: mixed-precision training, built on the core and the models (namespace
// lf::training): weight-update stagnation, the dynamic loss scaler (GradScaler), autocast tables,
// memory footprints (training/amp.hpp), range reports and loss-scale recommendations
// (training/range_report.hpp), FP8 / MXFP8 / NVFP4 scaling recipes as Transformer Engine names them
// (training/scaling_recipes.hpp). CMake target libfloat::training.
#pragma once

#include <libfloat/models.hpp>
#include <libfloat/training/amp.hpp>
#include <libfloat/training/range_report.hpp>
#include <libfloat/training/scaling_recipes.hpp>
