// Q1 master weights: w = 1 plus 10,000 updates of 1e-4, the weight kept in fp16, in bf16 and as
// an fp32 master weight (lf::training::simulate_stagnation); why the fp32 weight is not exact either
// (fp32(1e-4) is not 1e-4, and every sum rounds the same way); and the rule behind the fp16 row:
// Micikevicius et al. 2018's rule of thumb |w| >= 2048 |update| against the exact threshold,
// found by trying the update on every positive finite fp16 weight (lf::training::update_is_lost).
#include <fmt/format.h>

#include "demos.hpp"

namespace mpq::demo {

namespace {

/// Over every positive finite fp16 weight w: the smallest w from which on every weight loses the
/// update u (an fp16 encoding; its sign gives the direction), and whether every smaller one moves.
struct threshold_scan {
  lf::bits_t lost_from = 0;    ///< 0 when even the largest finite weight moves
  lf::bits_t moving_below = 0; ///< the largest weight that moves (0 when none)
  bool sharp = false;          ///< lost exactly for w >= lost_from
};

threshold_scan scan_fp16(lf::bits_t u) {
  const lf::format& H = lf::binary16;
  const lf::bits_t top = H.max_finite_bits();  // the largest finite positive encoding
  threshold_scan s;
  // Positive encodings are ordered like their values; walk down while the update is lost.
  lf::bits_t w = top;
  while (w >= 1 && lf::training::update_is_lost(H, w, H, u)) --w;
  s.lost_from = w == top ? 0 : w + 1;
  s.moving_below = w;
  s.sharp = true;
  for (lf::bits_t v = 1; v <= w; ++v) s.sharp = s.sharp && !lf::training::update_is_lost(H, v, H, u);
  return s;
}

double value_of(const lf::format& f, lf::bits_t b) {
  lf::status ignored{};
  return std::bit_cast<double>(lf::convert(lf::binary64, f, b, lf::env{}, ignored));
}

}  // namespace

q1_result run_q1() {
  q1_result r;
  // Each weight format updated with the update rounded into the same format, as a pure 16-bit
  // (or 32-bit) training step would compute it.
  r.fp16 = lf::training::simulate_stagnation(lf::binary16, lf::binary16, r.w0, r.update, r.steps);
  r.bf16 = lf::training::simulate_stagnation(lf::bfloat16, lf::bfloat16, r.w0, r.update, r.steps);
  r.fp32 = lf::training::simulate_stagnation(lf::binary32, lf::binary32, r.w0, r.update, r.steps);
  r.half_ulp_one_fp16 = lf::training::half_ulp(lf::binary16, 1.0);
  r.ratio_fp16 = lf::training::stagnation_ratio(lf::binary16);
  r.lost_from_fp16 = r.ratio_fp16 * r.fp16.update_value;

  // The exact threshold of the fp16 update, added (w + u, away from zero for w > 0) and
  // subtracted (w - u, towards zero).
  const lf::bits_t u16 = r.fp16.params.update;
  const threshold_scan up = scan_fp16(u16);
  const threshold_scan down = scan_fp16(u16 ^ lf::binary16.sign_mask());
  r.lost_from_up = value_of(lf::binary16, up.lost_from);
  r.moving_below_up = value_of(lf::binary16, up.moving_below);
  r.moving_below_up_half_ulp = lf::training::half_ulp(lf::binary16, up.moving_below);
  r.up_is_sharp = up.sharp && up.lost_from != 0;
  r.lost_from_down = value_of(lf::binary16, down.lost_from);
  r.down_is_sharp = down.sharp && down.lost_from != 0;

  // The fp32 run again, step by step: what each sum below 2 adds to w (fp32(w + u) - w, exact
  // by Sterbenz's lemma), and whether it is the same every time.
  const lf::fp32 u32 = lf::fp32::from_bits(static_cast<std::uint32_t>(r.fp32.params.update));
  const lf::fp32 one(1.0f);
  r.fp32_step = static_cast<double>((one + u32) - one);
  r.fp32_steps_equal = true;
  lf::fp32 w = lf::fp32::from_bits(static_cast<std::uint32_t>(r.fp32.params.weight));
  for (std::int64_t k = 0; k < r.steps; ++k) {
    const lf::fp32 next = w + u32;
    lf::exact_accumulator sum;  // w + u exactly: is it below 2?
    sum.add(w).add(u32);
    if (lf::compare(sum, lf::binary64, std::bit_cast<std::uint64_t>(2.0)) == std::partial_ordering::less)
      r.fp32_steps_equal = r.fp32_steps_equal && static_cast<double>(next - w) == r.fp32_step;
    w = next;
  }
  return r;
}

page page_q1(const q1_result& r, const language& l) {
  page p(l);
  p.say(l, "q1.demo.title", {{"w0", shortest(lf::binary64, r.w0)}, {"steps", std::to_string(r.steps)},
                             {"u", shortest(lf::binary64, r.update)}});
  table t(std::vector<std::string>{l.get("q1.demo.head.format"), l.get("q1.demo.head.final"), l.get("q1.demo.head.lost")}, {false, false, true});
  auto row = [&](const std::string& label, const lf::training::stagnation_result& s) {
    t.rows.push_back({label, lf::to_shortest(s.params.weight_format, s.final_bits), std::to_string(s.lost_steps)});
  };
  row(l.get("q1.demo.fp16"), r.fp16);
  row(l.get("q1.demo.bf16"), r.bf16);
  row(l.get("q1.demo.fp32"), r.fp32);
  p.add(std::move(t));
  // The exact w0 + N u of the fp32 update: every digit when binary64 holds it exactly.
  const std::string exact = r.fp32.exact_value_is_exact
                                ? lf::to_exact_decimal(lf::binary64, std::bit_cast<std::uint64_t>(r.fp32.exact_value))
                                : shortest(lf::binary64, r.fp32.exact_value);
  p.say(l, "q1.demo.exact", {{"exact", exact}}, 2);
  p.say(l, "q1.demo.why", {{"half", power_or_shortest(lf::binary64, r.half_ulp_one_fp16)},
                           {"half_dec", shortest(lf::binary64, r.half_ulp_one_fp16)},
                           {"u16", shortest(lf::binary16, r.fp16.update_value)}});
  const auto u32_bits = r.fp32.params.update;
  const auto sci3 = [](double v) { return lf::to_scientific(lf::binary64, std::bit_cast<std::uint64_t>(v), 2); };
  p.say(l, "q1.demo.fp32_why",
        {{"final", lf::to_shortest(lf::binary32, r.fp32.final_bits)},
         {"u", shortest(lf::binary64, r.update)},
         {"u32", lf::to_exact_decimal(lf::binary32, u32_bits)},
         {"steps", std::to_string(r.steps)},
         {"step", lf::to_exact_decimal(lf::binary64, std::bit_cast<std::uint64_t>(r.fp32_step))},
         {"step_err", sci3(r.fp32_step - r.fp32.update_value)},
         {"err", sci3(r.fp32.error)}});
  p.say(l, "q1.demo.rule", {{"ratio", shortest(lf::binary64, r.ratio_fp16)},
                            {"threshold", shortest(lf::binary64, r.lost_from_fp16)},
                            {"moving", shortest(lf::binary16, r.moving_below_up)},
                            {"moving_half", power_or_shortest(lf::binary64, r.moving_below_up_half_ulp)},
                            {"moving_half_dec", shortest(lf::binary64, r.moving_below_up_half_ulp)},
                            {"u16", shortest(lf::binary16, r.fp16.update_value)}});
  p.say(l, "q1.demo.exact_rule", {{"u16", shortest(lf::binary16, r.fp16.update_value)},
                                  {"up", shortest(lf::binary16, r.lost_from_up)},
                                  {"down", shortest(lf::binary16, r.lost_from_down)}});
  return p;
}

}  // namespace mpq::demo
