// quiz/demos/hard/q13_stochastic_rounding.cpp: hard question 13, stochastic rounding.
//
// bf16 weights without an fp32 master copy: w = 1 plus 10,000 fp32 updates of 1e-4, each sum
// w + u rounded once into bf16 (lf::training::simulate_stagnation, weight bf16, update fp32),
// under round-to-nearest-even and under stochastic rounding, against an fp32 weight and the exact
// w0 + N u. Stochastic rounding (lf::rounding::stochastic, core/rounding.hpp) rounds the magnitude
// up iff the step's 32 random bits are below D, the first 32 discarded bits: P(up) = the distance
// to the neighbour nearer zero divided by the gap, so E[round(x)] = x (Gupta, Agrawal,
// Gopalakrishnan, Narayanan, "Deep Learning with Limited Numerical Precision", ICML 2015,
// arXiv 1502.02551, §3; Zamirai, Zhang, Aberger, De Sa, "Revisiting BFloat16 Training",
// arXiv 2010.06192: nearest rounding of the bf16 weight update cancels small updates, stochastic
// rounding and Kahan summation restore them). simulate_stagnation's seed rule (training/amp.hpp):
// step k uses the k-th output of std::mt19937(seed) as its random bits.
#include "q13_stochastic_rounding.hpp"

#include <algorithm>
#include <bit>
#include <cmath>

#include <libfloat/training.hpp>

namespace mpq::demo {

namespace {

const lf::format& W = lf::bfloat16;  // the weight, no master copy
const lf::format& U = lf::binary32;  // the update, computed in fp32

lf::training::stagnation_params params(const lf::format& wf, lf::bits_t w, lf::bits_t u, std::int64_t steps,
                                       lf::rounding mode, std::uint32_t seed) {
  lf::training::stagnation_params p;
  p.weight_format = wf;
  p.update_format = U;
  p.weight = w;
  p.update = u;
  p.steps = steps;
  p.e = lf::env{mode};
  p.seed = seed;
  return p;
}

/// The value of encoding b of f written in full when it is short, else shortest.
std::string value_text(const lf::format& f, lf::bits_t b) { return lf::to_shortest(f, b); }

/// |exact - w_N| relative error of a run as shown: demo::sci, "-" when not finite.
std::string rel(const lf::training::stagnation_result& s) {
  if (!std::isfinite(s.final_value) || !std::isfinite(s.relative_error)) return "-";
  return sci(s.relative_error);
}

/// The exact w0 + N u of a run: every digit when binary64 holds it, else shortest with "~".
std::string exact_text(const lf::training::stagnation_result& s) {
  if (!std::isfinite(s.exact_value)) return "-";
  return s.exact_value_is_exact ? lf::to_exact_decimal(lf::binary64, std::bit_cast<std::uint64_t>(s.exact_value))
                                : "~" + shortest(lf::binary64, s.exact_value);
}

}  // namespace

q13_result run_q13(std::uint64_t seed) {
  q13_result r;
  r.seed = seed;
  r.first_seed = static_cast<std::uint32_t>(seed);
  lf::status ignored{};
  const lf::bits_t w16 = lf::convert(W, lf::binary64, std::bit_cast<std::uint64_t>(r.w0), lf::env{}, ignored);
  const lf::bits_t w32 = lf::convert(lf::binary32, lf::binary64, std::bit_cast<std::uint64_t>(r.w0), lf::env{}, ignored);
  const lf::bits_t u32 = lf::convert(U, lf::binary64, std::bit_cast<std::uint64_t>(r.update), lf::env{}, ignored);
  r.nearest = lf::training::simulate_stagnation(params(W, w16, u32, r.steps, lf::rounding::nearest_even, 1));
  r.fp32 = lf::training::simulate_stagnation(params(lf::binary32, w32, u32, r.steps, lf::rounding::nearest_even, 1));
  lf::exact_accumulator total;
  for (int i = 0; i < r.seeds; ++i) {
    const auto s = lf::training::simulate_stagnation(
        params(W, w16, u32, r.steps, lf::rounding::stochastic, r.first_seed + static_cast<std::uint32_t>(i)));
    if (i == 0) r.stochastic = s;
    r.spread.push_back(s.final_value);
    total.add(W, s.final_bits);
  }
  r.spread_min = *std::min_element(r.spread.begin(), r.spread.end());
  r.spread_max = *std::max_element(r.spread.begin(), r.spread.end());
  lf::exact_accumulator count;
  count.add(lf::binary64, std::bit_cast<std::uint64_t>(static_cast<double>(r.seeds)));
  r.spread_mean = lf::exact_accumulator::quotient(total, count);  // the sums are positive
  // |mean - exact| / exact, exactly: |total - seeds * exact| / (seeds * exact).
  lf::exact_accumulator exact;
  exact.add(W, w16);
  lf::exact_accumulator u;
  u.add(U, u32);
  exact.add(u.scaled(static_cast<std::uint64_t>(r.steps), 0));
  lf::exact_accumulator diff = total;
  diff.sub(exact.scaled(static_cast<std::uint64_t>(r.seeds), 0));
  r.spread_mean_error = lf::exact_accumulator::quotient(diff, exact.scaled(static_cast<std::uint64_t>(r.seeds), 0));
  // The gap above w0 and where w0 + u lies in it.
  r.half_gap = lf::training::half_gap(W, w16, true);
  r.gap = 2 * r.half_gap;  // a power of two: exact
  lf::exact_accumulator g;
  g.add(lf::binary64, std::bit_cast<std::uint64_t>(r.gap));
  r.p_up = lf::exact_accumulator::quotient(u, g);
  return r;
}

page page_q13(const q13_result& r, const language& l) {
  page p(l);
  p.say(l, "q13.demo.title", {{"w0", shortest(lf::binary64, r.w0)},
                              {"u", shortest(lf::binary64, r.update)},
                              {"steps", std::to_string(r.steps)}});
  table t(std::vector<std::string>{l.get("q13.demo.head.weight"), l.get("q13.demo.head.final"),
                                   l.get("q13.demo.head.lost"), l.get("try.rel_error")},
          {false, false, true, false});
  auto row = [&](const std::string& label, const lf::training::stagnation_result& s) {
    t.rows.push_back({label, value_text(s.params.weight_format, s.final_bits), std::to_string(s.lost_steps), rel(s)});
  };
  row(l.get("q13.demo.nearest"), r.nearest);
  row(l.get("q13.demo.stochastic", localized({{"seed", std::to_string(r.first_seed)}}, l)), r.stochastic);
  row(l.get("q13.demo.fp32"), r.fp32);
  p.add(std::move(t));
  p.say(l, "q13.demo.exact", {{"exact", exact_text(r.stochastic)},
                              {"u32", lf::to_exact_decimal(U, r.stochastic.params.update)}});
  lf::status ignored{};
  const lf::bits_t next = lf::next_up(W, r.nearest.params.weight, ignored);
  // The demo's update lies below half the gap above w0 (the test checks it), so every step is lost.
  p.say(l, "q13.demo.why_nearest",
        {{"w0", shortest(lf::binary64, r.w0)},
         {"next", lf::to_exact_decimal(W, next)},
         {"gap", power_or_shortest(lf::binary64, r.gap)},
         {"p", shortest(lf::binary64, r.p_up)},
         {"lost", std::to_string(r.nearest.lost_steps)},
         {"steps", std::to_string(r.steps)}});
  p.say(l, "q13.demo.why_stochastic",
        {{"w0", shortest(lf::binary64, r.w0)},
         {"next", lf::to_exact_decimal(W, next)},
         {"p", shortest(lf::binary64, r.p_up)},
         {"final", value_text(W, r.stochastic.final_bits)},
         {"err", rel(r.stochastic)},
         {"lost", std::to_string(r.stochastic.lost_steps)},
         {"steps", std::to_string(r.steps)}});
  p.say(l, "q13.demo.spread",
        {{"k", std::to_string(r.seeds)},
         {"s0", std::to_string(r.first_seed)},
         {"s1", std::to_string(r.first_seed + static_cast<std::uint32_t>(r.seeds - 1))},
         {"min", shortest(W, r.spread_min)},
         {"max", shortest(W, r.spread_max)},
         {"mean", shortest(lf::binary64, r.spread_mean)},
         {"mean_err", sci(r.spread_mean_error)},
         {"fp32_err", rel(r.fp32)}});
  p.say(l, "q13.demo.seed_rule");
  return p;
}

// ---- try it: a weight, an update and a step count ------------------------------------------------
try_outcome try_q13(const language& l, std::string_view line) {
  const auto v = tryit::numbers(line, 3);
  if (v.empty()) return tryit::failure(l, 13, line);
  const double nd = std::bit_cast<double>(tryit::parse_in(lf::binary64, v[2]));
  if (nd < 1 || nd > static_cast<double>(q13_max_steps) || nd != std::floor(nd)) return tryit::failure(l, 13, line);
  const auto steps = static_cast<std::int64_t>(nd);
  const lf::bits_t w16 = tryit::parse_in(W, v[0]), w32 = tryit::parse_in(lf::binary32, v[0]);
  const lf::bits_t u32 = tryit::parse_in(U, v[1]);
  if (!tryit::is_finite(W, w16) || !tryit::is_finite(lf::binary32, w32) || !tryit::is_finite(U, u32))
    return tryit::failure(l, 13, line);
  const auto nearest = lf::training::simulate_stagnation(params(W, w16, u32, steps, lf::rounding::nearest_even, 1));
  const auto stochastic =
      lf::training::simulate_stagnation(params(W, w16, u32, steps, lf::rounding::stochastic, q13_try_seed));
  const auto fp32 = lf::training::simulate_stagnation(params(lf::binary32, w32, u32, steps, lf::rounding::nearest_even, 1));
  page p(l);
  p.say(l, "try.q13.title", {{"w", lf::to_shortest(W, w16)},
                             {"w32", lf::to_shortest(lf::binary32, w32)},
                             {"u", lf::to_shortest(U, u32)},
                             {"steps", std::to_string(steps)}});
  table t({l.get("q13.demo.head.weight"), l.get("q13.demo.head.final"), l.get("q13.demo.head.lost"),
           l.get("try.q13.exact"), l.get("try.rel_error")},
          {false, false, true, false, false});
  auto row = [&](const std::string& label, const lf::training::stagnation_result& s) {
    t.rows.push_back({label, value_text(s.params.weight_format, s.final_bits), std::to_string(s.lost_steps),
                      exact_text(s), rel(s)});
  };
  row(l.get("q13.demo.nearest"), nearest);
  row(l.get("q13.demo.stochastic", localized({{"seed", std::to_string(q13_try_seed)}}, l)), stochastic);
  row(l.get("q13.demo.fp32"), fp32);
  p.add(std::move(t));
  p.say(l, "try.q13.note");
  return {true, std::move(p), {}};
}

void facts_q13(vars& v) {
  // The seed-independent numbers only (no stochastic run): the question text quotes them.
  lf::status ignored{};
  const q13_result d;
  const lf::bits_t w16 = lf::convert(W, lf::binary64, std::bit_cast<std::uint64_t>(d.w0), lf::env{}, ignored);
  const lf::bits_t u32 = lf::convert(U, lf::binary64, std::bit_cast<std::uint64_t>(d.update), lf::env{}, ignored);
  const auto nearest = lf::training::simulate_stagnation(params(W, w16, u32, d.steps, lf::rounding::nearest_even, 1));
  const double half = lf::training::half_gap(W, w16, true);
  v["q13_w0"] = shortest(lf::binary64, d.w0);
  v["q13_u"] = shortest(lf::binary64, d.update);
  v["q13_steps"] = std::to_string(d.steps);
  v["q13_nearest_final"] = lf::to_shortest(W, nearest.final_bits);
  v["q13_nearest_lost"] = std::to_string(nearest.lost_steps);
  v["q13_exact"] = shortest(lf::binary64, nearest.exact_value);
  v["q13_half_gap"] = power_or_shortest(lf::binary64, half);
  v["q13_half_gap_dec"] = shortest(lf::binary64, half);
  v["q13_gap"] = power_or_shortest(lf::binary64, 2 * half);
  lf::exact_accumulator u, g;
  u.add(U, u32);
  g.add(lf::binary64, std::bit_cast<std::uint64_t>(2 * half));
  v["q13_p_up"] = shortest(lf::binary64, lf::exact_accumulator::quotient(u, g));
}

}  // namespace mpq::demo
