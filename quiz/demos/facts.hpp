// quiz/demos/facts.hpp: named numbers computed by libfloat, for {name} placeholders in the quiz
// text and <!--v:name-->...<!--/v--> values in the guide.
#pragma once

#include "../text.hpp"

namespace mpq::demo {
/// fp16_max, fp16_min_subnormal, ratio_fp16 (2048), fp16_stall, scaler_init, ... (see facts.cpp).
const vars& facts();
}  // namespace mpq::demo
