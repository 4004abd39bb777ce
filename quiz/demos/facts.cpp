// quiz/demos/facts.cpp: the numbers the quiz's prose and the guide's text quote ({fp16_max} in
// the language files, <!--v:fp16_max-->...<!--/v--> in the guide), each computed by libfloat.
#include <cmath>

#include <fmt/format.h>

#include "demos.hpp"
#include "facts.hpp"
#include "hard/hard.hpp"

namespace mpq::demo {

namespace {
std::string pow2(double v) { return fmt::format("2^{}", std::ilogb(v)); }
}  // namespace

const vars& facts() {
  static const vars f = [] {
    vars v;
    using h = std::numeric_limits<lf::fp16>;
    using b = std::numeric_limits<lf::bf16>;
    using s = std::numeric_limits<lf::fp32>;
    v["fp16_max"] = lf::to_shortest(h::max());
    v["fp16_min_normal"] = pow2(static_cast<double>(h::min()));
    v["fp16_min_subnormal"] = pow2(static_cast<double>(h::denorm_min()));
    v["fp16_min_subnormal_dec"] = lf::to_shortest(h::denorm_min());
    // Half the smallest subnormal: nearest even rounds every value up to it (a tie included) to 0.
    v["fp16_zero_up_to"] = pow2(lf::training::half_ulp(lf::binary16, static_cast<double>(h::denorm_min())));
    v["fp16_eps"] = pow2(static_cast<double>(h::epsilon()));
    v["fp16_exp_bits"] = std::to_string(lf::binary16.exponent_bits);
    v["bf16_exp_bits"] = std::to_string(lf::bfloat16.exponent_bits);
    v["fp16_p"] = std::to_string(lf::binary16.precision);
    v["bf16_max"] = lf::to_shortest(b::max());
    v["bf16_min_normal"] = pow2(static_cast<double>(b::min()));
    v["bf16_min_subnormal"] = pow2(static_cast<double>(b::denorm_min()));
    v["bf16_eps"] = pow2(static_cast<double>(b::epsilon()));
    v["bf16_p"] = std::to_string(lf::bfloat16.precision);
    v["fp32_max"] = lf::to_shortest(s::max());
    v["fp32_min_normal"] = pow2(static_cast<double>(s::min()));
    v["fp32_p"] = std::to_string(lf::binary32.precision);
    v["fp16_u"] = fmt::format("2^-{}", lf::binary16.precision);
    v["bf16_u"] = fmt::format("2^-{}", lf::bfloat16.precision);
    v["half_ulp_1_fp16"] = pow2(lf::training::half_ulp(lf::binary16, 1.0));
    v["ratio_fp16"] = shortest(lf::binary64, lf::training::stagnation_ratio(lf::binary16));
    v["ratio_bf16"] = shortest(lf::binary64, lf::training::stagnation_ratio(lf::bfloat16));
    const std::vector<lf::fp16> ones16(4096, lf::fp16(1.0));
    const std::vector<lf::bf16> ones8(4096, lf::bf16(1.0));
    v["fp16_stall"] = lf::to_shortest(lf::sum(lf::accumulations::fp16_acc, ones16).to<lf::binary16>());
    v["bf16_stall"] = lf::to_shortest(lf::sum(lf::accumulations::bf16_acc, ones8).to<lf::bfloat16>());
    // max + half an ulp of max: from there on, nearest-even rounding gives infinity.
    v["fp16_overflow_from"] = shortest(lf::binary64, static_cast<double>(h::max()) +
                                                         lf::training::half_ulp(lf::binary16, static_cast<double>(h::max())));
    const lf::training::grad_scaler_options d;
    v["scaler_init"] = shortest(lf::binary32, d.init_scale);
    v["scaler_init_pow"] = pow2(d.init_scale);
    v["scaler_growth"] = shortest(lf::binary64, d.growth_factor);
    v["scaler_backoff"] = shortest(lf::binary64, d.backoff_factor);
    v["scaler_interval"] = std::to_string(d.growth_interval);
    // exp(x) rounds to inf in fp16 from x = ln(65520) on (65504 + half an ulp, where nearest even
    // turns to infinity), not from ln(65504).
    v["exp_overflow"] = fmt::format("{:.4f}", std::log(static_cast<double>(h::max()) +
                                                       lf::training::half_ulp(lf::binary16, static_cast<double>(h::max()))));
    v["exp_max"] = fmt::format("{:.4f}", std::log(static_cast<double>(h::max())));
    // Q5's copy: the ratio of the bytes of an fp32 and an fp16 array of the same length.
    v["copy_bytes_ratio"] = shortest(lf::binary64, static_cast<double>(lf::binary32.bits()) / lf::binary16.bits());
    hard_facts(v);  // questions 9-16
    return v;
  }();
  return f;
}

}  // namespace mpq::demo
