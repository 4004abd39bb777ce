// Q6 torch.amp: the current API (torch.cuda.amp.* deprecated since PyTorch 2.4), then
// lf::training::grad_scaler driven by a seeded gradient stream for 40 steps: each step's gradients are
// multiplied by the scale and rounded to fp16 by the library (lf::training::run_scaler_on_gradients);
// a product that rounds to inf is found_inf, so the step is skipped and the scale backs off. The
// growth interval is shortened to 8 for display. Nothing is injected: the overflows come from the
// gradients, the scale and fp16's range.
#include <cmath>
#include <random>

#include <fmt/format.h>

#include "demos.hpp"

namespace mpq::demo {

namespace {
/// The top 53 bits of one std::mt19937_64 output, as a double in [0, 1).
double uniform(std::mt19937_64& gen) { return std::ldexp(static_cast<double>(gen() >> 11), -53); }
}  // namespace

q6_result run_q6(std::uint64_t seed) {
  q6_result r;
  r.seed = seed;
  r.shown.growth_interval = 8;
  // The gradient stream (the recipe is documented with q6_result in demos.hpp).
  std::mt19937_64 gen(seed);
  for (std::int64_t k = 0; k < r.steps; ++k) {
    const double t = r.top_lo + (r.top_hi - r.top_lo) * uniform(gen);
    const bool spike = gen() % r.spike_one_in == 0;
    std::vector<double> g(r.per_step);
    for (double& v : g) v = std::exp2(t - r.span * uniform(gen));
    if (spike) g[0] = r.spike_factor * std::exp2(t);
    r.gradients.push_back(std::move(g));
    r.spiked.push_back(spike);
  }
  r.trajectory = lf::training::run_scaler_on_gradients(r.shown, r.gradients, lf::binary16);
  // What the table shows per step: the largest gradient times the scale of that step, in fp16.
  for (std::size_t k = 0; k < r.gradients.size(); ++k) {
    double largest = 0;
    for (const double v : r.gradients[k]) largest = std::max(largest, v);
    lf::status ignored{};
    const lf::bits_t b = lf::training::scaled_gradient(lf::binary16, largest, r.trajectory[k].scale_used, ignored);
    r.largest_scaled.push_back(static_cast<double>(lf::fp16::from_bits(static_cast<std::uint16_t>(b))));
  }
  // 65504 + half an ulp of 65504: the smallest magnitude that nearest even rounds to inf.
  const double max16 = static_cast<double>(std::numeric_limits<lf::fp16>::max());
  r.overflow_from = max16 + lf::training::half_ulp(lf::binary16, max16);
  return r;
}

page page_q6(const q6_result& r, const language& l) {
  page p(l);
  p.say(l, "q6.demo.api_title");
  std::string api;
  for (int i = 1; l.has("q6.demo.api" + std::to_string(i)); ++i) api += "  " + l.get("q6.demo.api" + std::to_string(i)) + '\n';
  p.verbatim(api);
  p.say(l, "q6.demo.deprecated");
  p.blank().say(l, "q6.demo.title", {{"steps", std::to_string(r.steps)},
                                              {"n", std::to_string(r.per_step)},
                                              {"seed", std::to_string(r.seed)},
                                              {"span", std::to_string(r.span)},
                                              {"lo", std::to_string(r.top_lo)},
                                              {"hi", std::to_string(r.top_hi)},
                                              {"one_in", std::to_string(r.spike_one_in)},
                                              {"spike", shortest(lf::binary64, r.spike_factor)}});
  p.say(l, "q6.demo.rule", {{"overflow_from", shortest(lf::binary64, r.overflow_from)},
                                     {"backoff", shortest(lf::binary64, r.shown.backoff_factor)},
                                     {"growth", shortest(lf::binary64, r.shown.growth_factor)},
                                     {"interval", std::to_string(r.shown.growth_interval)},
                                     {"default_interval", std::to_string(r.defaults.growth_interval)},
                                     {"init", shortest(lf::binary32, r.shown.init_scale)}});
  table tab(std::vector<std::string>{l.get("q6.demo.steps"), l.get("q6.demo.scale"), l.get("q6.demo.largest"), l.get("q6.demo.event")}, {false, true, true, false});
  // Runs of uneventful steps are one row (with the largest value of the run); an overflow or a
  // growth ends a row.
  const auto& t = r.trajectory;
  std::size_t i = 0;
  while (i < t.size()) {
    std::size_t j = i;
    if (!t[i].skipped)
      while (j + 1 < t.size() && !t[j].grew && !t[j + 1].skipped) ++j;
    double largest = 0;
    for (std::size_t k = i; k <= j; ++k) largest = std::max(largest, r.largest_scaled[k]);
    const std::string steps = j == i ? std::to_string(t[i].step) : fmt::format("{}-{}", t[i].step, t[j].step);
    std::string event;
    if (t[j].skipped)
      event = l.get("q6.demo.skipped", localized({{"after", shortest(lf::binary32, t[j].scale_after)}}, l));
    else if (t[j].grew)
      event = l.get("q6.demo.grew", localized({{"interval", std::to_string(r.shown.growth_interval)},
                                     {"after", shortest(lf::binary32, t[j].scale_after)}}, l));
    tab.rows.push_back({steps, shortest(lf::binary32, t[i].scale_used), shortest(lf::binary16, largest), event});
    i = j + 1;
  }
  p.add(std::move(tab));
  std::string skipped, spikes;
  for (const lf::training::scaler_step& s : t)
    if (s.skipped) skipped += (skipped.empty() ? "" : ", ") + std::to_string(s.step);
  for (std::size_t k = 0; k < r.spiked.size(); ++k)
    if (r.spiked[k]) spikes += (spikes.empty() ? "" : ", ") + std::to_string(k + 1);
  p.say(l, "q6.demo.summary", {{"spikes", spikes.empty() ? l.get("q6.demo.none") : spikes},
                                        {"skipped", skipped.empty() ? l.get("q6.demo.none") : skipped},
                                        {"final", shortest(lf::binary32, t.back().scale_after)}});
  return p;
}

}  // namespace mpq::demo
