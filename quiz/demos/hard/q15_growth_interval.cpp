// quiz/demos/hard/q15_growth_interval.cpp: hard question 15, what GradScaler's growth_interval
// controls. lf::training's GradScaler model (torch/amp/grad_scaler.py and _amp_update_scale_:
// init_scale 2^16, growth_factor 2, backoff_factor 0.5, growth_interval 2000) runs over a stream
// whose largest gradient is the same g at every step: each step multiplies it by that step's scale
// and rounds it once to fp16 (lf::training::run_scaler_on_gradients); an inf is found_inf, so the
// step is skipped and the scale halves. With g = 1.5, 1.5 x 2^16 = 98304 overflows fp16 and
// 1.5 x 2^15 = 49152 does not, so every growth back to 2^16 costs one skipped step: the cycle the
// demo counts for several growth intervals.
#include "q15_growth_interval.hpp"

#include <cmath>
#include <limits>

#include <fmt/format.h>

namespace mpq::demo {

q15_run run_q15_interval(double g, std::int64_t interval, std::int64_t steps) {
  q15_run r;
  r.interval = interval;
  lf::training::grad_scaler_options o;  // PyTorch's defaults
  o.growth_interval = interval;
  const std::vector<std::vector<double>> stream(static_cast<std::size_t>(steps), std::vector<double>{g});
  const std::vector<lf::training::scaler_step> t = lf::training::run_scaler_on_gradients(o, stream, lf::binary16);
  double sum = 0;  // scales are powers of two here (2^16 times 2^k): the sum is exact below 2^53
  for (const lf::training::scaler_step& s : t) {
    sum += static_cast<double>(s.scale_used);
    if (s.skipped) {
      r.skipped.push_back(s.step);
      if (r.smallest_unsafe == 0 || s.scale_used < r.smallest_unsafe) r.smallest_unsafe = s.scale_used;
    } else if (s.scale_used > r.largest_safe) {
      r.largest_safe = s.scale_used;
    }
  }
  r.mean_scale = sum / static_cast<double>(steps);
  r.skipped_fraction = static_cast<double>(r.skipped.size()) / static_cast<double>(steps);
  r.final_scale = t.empty() ? 0.0f : t.back().scale_after;
  // The steady cycle: the earliest skipped step from which every gap is interval + 1 and every
  // skipped step used smallest_unsafe, with at least one more skipped step after it.
  const std::size_t n = r.skipped.size();
  if (n >= 2) {
    std::size_t from = n - 1;
    while (from > 0 && r.skipped[from] - r.skipped[from - 1] == interval + 1 &&
           t[static_cast<std::size_t>(r.skipped[from - 1] - 1)].scale_used == r.smallest_unsafe &&
           t[static_cast<std::size_t>(r.skipped[from] - 1)].scale_used == r.smallest_unsafe)
      --from;
    if (from < n - 1) r.cycle_from = r.skipped[from];
  }
  return r;
}

q15_result run_q15(std::uint64_t seed) {
  q15_result r;
  r.seed = seed;
  const lf::training::grad_scaler_options d;
  r.init_scale = d.init_scale;
  r.default_interval = d.growth_interval;
  // 65504 + half an ulp of 65504: the smallest magnitude that nearest even rounds to inf in fp16.
  const double max16 = static_cast<double>(std::numeric_limits<lf::fp16>::max());
  r.overflow_from = max16 + lf::training::half_ulp(lf::binary16, max16);
  for (const std::int64_t k : r.intervals) r.runs.push_back(run_q15_interval(r.g, k, r.steps));
  return r;
}

namespace {

std::string scale_text(double s) { return power_or_shortest(lf::binary32, s); }

/// A list of step numbers, the first `most` of them then "...".
std::string step_list(const std::vector<std::int64_t>& steps, std::size_t most) {
  std::string s;
  for (std::size_t i = 0; i < steps.size() && i < most; ++i) s += (i == 0 ? "" : ", ") + std::to_string(steps[i]);
  if (steps.size() > most) s += ", ...";
  return s;
}

}  // namespace

page page_q15(const q15_result& r, const language& l) {
  page p(l);
  const lf::training::grad_scaler_options d;
  const q15_run& first = r.runs.front();
  p.say(l, "q15.demo.title", {{"steps", std::to_string(r.steps)},
                              {"g", shortest(lf::binary64, r.g)},
                              {"overflow_from", shortest(lf::binary64, r.overflow_from)},
                              {"unsafe", scale_text(first.smallest_unsafe)},
                              {"safe", scale_text(first.largest_safe)},
                              {"init", scale_text(r.init_scale)},
                              {"backoff", shortest(lf::binary64, d.backoff_factor)},
                              {"growth", shortest(lf::binary64, d.growth_factor)},
                              {"default_interval", std::to_string(r.default_interval)}});
  table t({l.get("q15.demo.interval"), l.get("q15.demo.skipped"), l.get("q15.demo.fraction"), l.get("q15.demo.every"),
           l.get("q15.demo.mean")},
          {true, true, true, true, true});
  bool all_cycle_from_1 = true, same_bounds = true;
  for (const q15_run& run : r.runs) {
    all_cycle_from_1 = all_cycle_from_1 && run.cycle_from == 1;
    same_bounds = same_bounds && run.smallest_unsafe == first.smallest_unsafe && run.largest_safe == first.largest_safe;
    t.rows.push_back({std::to_string(run.interval), std::to_string(run.skipped.size()),
                      percent(static_cast<std::int64_t>(run.skipped.size()), r.steps),
                      run.cycle_from != 0 ? std::to_string(run.interval + 1) : "-", shortest(lf::binary64, run.mean_scale)});
  }
  p.add(std::move(t));
  const vars v{{"unsafe", scale_text(first.smallest_unsafe)}, {"safe", scale_text(first.largest_safe)}};
  p.say(l, all_cycle_from_1 && same_bounds ? "q15.demo.cycle" : "q15.demo.no_cycle", v);
  p.say(l, "q15.demo.tradeoff");
  return p;
}

try_outcome try_q15(const language& l, std::string_view line) {
  const auto v = tryit::numbers(line, 2);
  if (v.empty()) return tryit::failure(l, 15, line);
  const double g = std::bit_cast<double>(tryit::parse_in(lf::binary64, v[0]));
  const double k = std::bit_cast<double>(tryit::parse_in(lf::binary64, v[1]));
  if (!(g >= 1e-6 && g <= 1e4) || !(k >= 1 && k <= 10000) || k != std::floor(k)) return tryit::failure(l, 15, line);
  const q15_result demo;  // the demo's run length and PyTorch's defaults
  const q15_run run = run_q15_interval(g, static_cast<std::int64_t>(k), demo.steps);
  const lf::training::grad_scaler_options d;
  page p(l);
  p.say(l, "try.q15.title", {{"steps", std::to_string(demo.steps)},
                             {"g", shortest(lf::binary64, g)},
                             {"interval", std::to_string(run.interval)},
                             {"init", scale_text(d.init_scale)}});
  p.say(l, "try.q15.result", {{"skipped", std::to_string(run.skipped.size())},
                              {"fraction", percent(static_cast<std::int64_t>(run.skipped.size()), demo.steps)},
                              {"mean", shortest(lf::binary64, run.mean_scale)},
                              {"final", scale_text(run.final_scale)}});
  if (run.cycle_from != 0)
    p.say(l, "try.q15.cycle", {{"from", std::to_string(run.cycle_from)},
                               {"period", std::to_string(run.interval + 1)},
                               {"interval", std::to_string(run.interval)},
                               {"unsafe", scale_text(run.smallest_unsafe)},
                               {"safe", scale_text(run.largest_safe)}});
  else if (run.skipped.empty())
    p.say(l, "try.q15.none", {{"largest", scale_text(run.largest_safe)}});
  else
    p.say(l, "try.q15.other", {{"list", step_list(run.skipped, 12)}});
  return {true, std::move(p), {}};
}

void facts_q15(vars& v) {
  const q15_result r = run_q15(default_seed);
  v["q15_g"] = shortest(lf::binary64, r.g);
  v["q15_steps"] = std::to_string(r.steps);
  v["q15_overflow_from"] = shortest(lf::binary64, r.overflow_from);
  v["q15_unsafe"] = scale_text(r.runs.front().smallest_unsafe);
  v["q15_safe"] = scale_text(r.runs.front().largest_safe);
  for (const q15_run& run : r.runs) {
    v["q15_skipped_" + std::to_string(run.interval)] = std::to_string(run.skipped.size());
    v["q15_mean_" + std::to_string(run.interval)] = shortest(lf::binary64, run.mean_scale);
  }
}

}  // namespace mpq::demo
