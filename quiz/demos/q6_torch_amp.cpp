// Q6 torch.amp: the current API (torch.cuda.amp.* deprecated since PyTorch 2.4), then
// lf::amp::grad_scaler for 40 simulated steps with overflows injected at chosen steps and a
// growth interval shortened to 8 for display: the scale trajectory and the skipped steps.
#include <fmt/format.h>

#include "demos.hpp"

namespace mpq::demo {

q6_result run_q6() {
  q6_result r;
  r.shown.growth_interval = 8;
  const std::set<std::int64_t> overflow(r.overflow_steps.begin(), r.overflow_steps.end());
  r.trajectory = lf::amp::run_scaler(r.shown, r.steps, overflow);
  return r;
}

std::string show_q6(const q6_result& r, const language& l) {
  std::string out = wrap(l.get("q6.demo.api_title"));
  for (int i = 1; l.has("q6.demo.api" + std::to_string(i)); ++i) out += "    " + l.get("q6.demo.api" + std::to_string(i)) + '\n';
  out += wrap(l.get("q6.demo.deprecated"));
  out += '\n' + wrap(l.get("q6.demo.title", {{"init", shortest(lf::binary32, r.shown.init_scale)},
                                              {"growth", shortest(lf::binary64, r.shown.growth_factor)},
                                              {"backoff", shortest(lf::binary64, r.shown.backoff_factor)},
                                              {"interval", std::to_string(r.shown.growth_interval)},
                                              {"default_interval", std::to_string(r.defaults.growth_interval)},
                                              {"steps", std::to_string(r.steps)}}));
  out += fmt::format("  {}{}{}\n", pad(l.get("q6.demo.steps"), 10), pad(l.get("q6.demo.scale"), 12), l.get("q6.demo.event"));
  auto row = [](const std::string& steps, float scale, const std::string& event) {
    std::string line = fmt::format("  {}{}{}", pad(steps, 10), pad(shortest(lf::binary32, scale), 12), event);
    while (line.back() == ' ') line.pop_back();
    return line + '\n';
  };
  // Runs of uneventful steps are one row; an overflow or a growth gets a row of its own.
  std::size_t i = 0;
  const auto& t = r.trajectory;
  while (i < t.size()) {
    std::string steps, event;
    if (t[i].skipped) {
      steps = std::to_string(t[i].step);
      event = l.get("q6.demo.skipped", {{"after", shortest(lf::binary32, t[i].scale_after)}});
      ++i;
    } else {
      std::size_t j = i;
      while (j + 1 < t.size() && !t[j].grew && !t[j + 1].skipped) ++j;
      steps = j == i ? std::to_string(t[i].step) : fmt::format("{}-{}", t[i].step, t[j].step);
      if (t[j].grew)
        event = l.get("q6.demo.grew", {{"interval", std::to_string(r.shown.growth_interval)},
                                       {"after", shortest(lf::binary32, t[j].scale_after)}});
      out += row(steps, t[i].scale_used, event);
      i = j + 1;
      continue;
    }
    out += row(steps, t[i - 1].scale_used, event);
  }
  std::string skipped;
  for (const lf::amp::scaler_step& s : t)
    if (s.skipped) skipped += (skipped.empty() ? "" : ", ") + std::to_string(s.step);
  out += wrap(l.get("q6.demo.summary", {{"skipped", skipped}, {"final", shortest(lf::binary32, t.back().scale_after)}}));
  return out;
}

}  // namespace mpq::demo
