// Q1 master weights: w = 1 plus 10,000 updates of 1e-4, the weight kept in fp16, in bf16 and as
// an fp32 master weight (lf::amp::simulate_stagnation), and the rule behind it: half an ulp of 1
// in fp16 is 2^-11, and an update is lost when |w| >= 2048 |update| (Micikevicius et al. 2018).
#include <fmt/format.h>

#include "demos.hpp"

namespace mpq::demo {

q1_result run_q1() {
  q1_result r;
  // Each weight format updated with the update rounded into the same format, as a pure 16-bit
  // (or 32-bit) training step would compute it.
  r.fp16 = lf::amp::simulate_stagnation(lf::binary16, lf::binary16, r.w0, r.update, r.steps);
  r.bf16 = lf::amp::simulate_stagnation(lf::bfloat16, lf::bfloat16, r.w0, r.update, r.steps);
  r.fp32 = lf::amp::simulate_stagnation(lf::binary32, lf::binary32, r.w0, r.update, r.steps);
  r.half_ulp_one_fp16 = lf::amp::half_ulp(lf::binary16, 1.0);
  r.ratio_fp16 = lf::amp::stagnation_ratio(lf::binary16);
  r.lost_from_fp16 = r.ratio_fp16 * r.fp16.update_value;
  return r;
}

std::string show_q1(const q1_result& r, const language& l) {
  std::string out = wrap(l.get("q1.demo.title", {{"w0", shortest(lf::binary64, r.w0)},
                                                  {"steps", std::to_string(r.steps)},
                                                  {"u", shortest(lf::binary64, r.update)}}));
  out += fmt::format("  {}{}{}\n", pad(l.get("q1.demo.head.format"), 24), pad(l.get("q1.demo.head.final"), 16),
                     l.get("q1.demo.head.lost"));
  auto row = [&](const std::string& label, const lf::amp::stagnation_result& s) {
    out += fmt::format("  {}{}{}\n", pad(label, 24),
                       pad(lf::to_shortest(s.params.weight_format, s.final_bits), 16),
                       std::to_string(s.lost_steps));
  };
  row(l.get("q1.demo.fp16"), r.fp16);
  row(l.get("q1.demo.bf16"), r.bf16);
  row(l.get("q1.demo.fp32"), r.fp32);
  out += wrap(l.get("q1.demo.exact", {{"exact", shortest(lf::binary64, r.fp32.exact_value)}}), 2);
  out += wrap(l.get("q1.demo.why", {{"half", power_or_shortest(lf::binary64, r.half_ulp_one_fp16)},
                                    {"half_dec", shortest(lf::binary64, r.half_ulp_one_fp16)},
                                    {"u16", shortest(lf::binary16, r.fp16.update_value)}}));
  out += wrap(l.get("q1.demo.rule", {{"ratio", shortest(lf::binary64, r.ratio_fp16)},
                                     {"threshold", shortest(lf::binary64, r.lost_from_fp16)}}));
  return out;
}

}  // namespace mpq::demo
