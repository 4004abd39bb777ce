// Q3 bfloat16 range: the range table of fp16, bf16 and fp32 read from std::numeric_limits of
// libfloat's types, then 1e-10, 70000 and 3e38 converted into each.
#include <fmt/format.h>

#include "demos.hpp"

namespace mpq::demo {

namespace {
template <lf::format F>
format_limits limits_of(const char* name, const std::vector<double>& samples) {
  using lim = std::numeric_limits<lf::fp<F>>;
  format_limits f{name, F, static_cast<double>(lim::max()), static_cast<double>(lim::min()),
                  static_cast<double>(lim::denorm_min()), static_cast<double>(lim::epsilon()), {}, {}};
  for (const double s : samples) {
    const lf::fp<F> x(s);  // nearest even, like a hardware cast
    f.converted.push_back(static_cast<double>(x));
    f.classes.push_back(lf::classify(x));
  }
  return f;
}
}  // namespace

q3_result run_q3() {
  q3_result r;
  r.formats.push_back(limits_of<lf::binary16>("fp16", r.samples));
  r.formats.push_back(limits_of<lf::bfloat16>("bf16", r.samples));
  r.formats.push_back(limits_of<lf::binary32>("fp32", r.samples));
  return r;
}

std::string show_q3(const q3_result& r, const language& l) {
  std::string out = wrap(l.get("q3.demo.title"));
  out += fmt::format("  {}{}{}{}{}\n", pad(l.get("q3.demo.format"), 8), pad(l.get("q3.demo.max"), 17),
                     pad(l.get("q3.demo.min_normal"), 15), pad(l.get("q3.demo.min_subnormal"), 18),
                     l.get("q3.demo.epsilon"));
  for (const format_limits& f : r.formats)
    out += fmt::format("  {}{}{}{}{}\n", pad(f.name, 8), pad(shortest(f.fmt, f.max), 17),
                       pad(power_or_shortest(f.fmt, f.min_normal), 15), pad(power_or_shortest(f.fmt, f.min_subnormal), 18),
                       power_or_shortest(f.fmt, f.epsilon));
  out += '\n' + wrap(l.get("q3.demo.samples"));
  std::string head = "  " + pad(l.get("q3.demo.value"), 10);
  for (const format_limits& f : r.formats) head += pad(f.name, 22);
  while (!head.empty() && head.back() == ' ') head.pop_back();
  out += head + '\n';
  for (std::size_t i = 0; i < r.samples.size(); ++i) {
    std::string line = "  " + pad(shortest(lf::binary64, r.samples[i]), 10);
    for (const format_limits& f : r.formats) {
      std::string cell = shortest(f.fmt, f.converted[i]);
      const lf::fp_class c = f.classes[i];
      if (c == lf::fp_class::positive_zero) cell += " " + l.get("q3.demo.underflow");
      else if (c == lf::fp_class::positive_infinity) cell += " " + l.get("q3.demo.overflow");
      else if (c == lf::fp_class::positive_subnormal) cell += " " + l.get("q3.demo.subnormal");
      line += pad(cell, 22);
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out += line + '\n';
  }
  out += wrap(l.get("q3.demo.note"));
  return out;
}

}  // namespace mpq::demo
