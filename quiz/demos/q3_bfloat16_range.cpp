// Q3 bfloat16 range: the range table of fp16, bf16 and fp32 read from std::numeric_limits of
// libfloat's types, then 1e-10, 70000 and 3e38 converted into each: the shortest text of each
// result beside the value stored (exact, or to 9 significant digits) and its relative error,
// against the unit roundoff 2^-p (half the epsilon) that bounds it in the normal range.
#include <algorithm>

#include <fmt/format.h>

#include "demos.hpp"

namespace mpq::demo {

namespace {
template <lf::format F>
format_limits limits_of(const char* name, const std::vector<double>& samples) {
  using lim = std::numeric_limits<lf::fp<F>>;
  format_limits f{name, F, static_cast<double>(lim::max()), static_cast<double>(lim::min()),
                  static_cast<double>(lim::denorm_min()), static_cast<double>(lim::epsilon()),
                  lf::training::half_ulp(F, 1.0), {}, {}, {}};
  for (const double s : samples) {
    const lf::fp<F> x(s);  // nearest even, like a hardware cast
    f.converted.push_back(static_cast<double>(x));
    f.classes.push_back(lf::classify(x));
    if (lf::classify(x) == lf::fp_class::positive_infinity) {
      f.relative_error.push_back(INFINITY);
      continue;
    }
    lf::exact_accumulator err, exact;  // |x - s| / |s|, exact until the one rounding of quotient
    exact.add(lf::binary64, std::bit_cast<std::uint64_t>(s));
    err.add(x).sub(exact);
    f.relative_error.push_back(lf::exact_accumulator::quotient(err, exact));
  }
  return f;
}

/// The value of encoding b of f in decimal: every digit when there are at most 9 significant
/// ones (lf::to_exact_decimal), else 9 significant digits (lf::to_scientific, nearest even).
std::string stored_text(const lf::format& f, double v) {
  lf::status ignored{};
  const lf::bits_t b = lf::convert(f, lf::binary64, std::bit_cast<std::uint64_t>(v), lf::env{}, ignored);
  if (!std::isfinite(v)) return lf::to_shortest(f, b);
  const std::string exact = lf::to_exact_decimal(f, b);
  std::string digits;
  for (const char c : exact)
    if (c >= '0' && c <= '9' && !(digits.empty() && c == '0')) digits += c;
  if (exact.find('.') != std::string::npos)
    while (!digits.empty() && digits.back() == '0') digits.pop_back();
  return digits.size() <= 9 ? exact : lf::to_scientific(f, b, 8);
}
}  // namespace

q3_result run_q3() {
  q3_result r;
  r.formats.push_back(limits_of<lf::binary16>("fp16", r.samples));
  r.formats.push_back(limits_of<lf::bfloat16>("bf16", r.samples));
  r.formats.push_back(limits_of<lf::binary32>("fp32", r.samples));
  return r;
}

page page_q3(const q3_result& r, const language& l) {
  page p(l);
  p.say(l, "q3.demo.title");
  table lim(std::vector<std::string>{l.get("q3.demo.format"), l.get("q3.demo.max"), l.get("q3.demo.min_normal"),
                     l.get("q3.demo.min_subnormal"), l.get("q3.demo.epsilon")});
  for (const format_limits& f : r.formats)
    lim.rows.push_back({f.name, shortest(f.fmt, f.max), power_or_shortest(f.fmt, f.min_normal),
                        power_or_shortest(f.fmt, f.min_subnormal), power_or_shortest(f.fmt, f.epsilon)});
  p.add(std::move(lim));
  p.blank().say(l, "q3.demo.samples");
  table conv(std::vector<std::string>{l.get("q3.demo.value"), l.get("q3.demo.format"), l.get("q3.demo.shortest"), l.get("q3.demo.stored"),
                      l.get("q3.demo.rel_error")});
  conv.keys = 2;
  for (std::size_t i = 0; i < r.samples.size(); ++i) {
    for (std::size_t k = 0; k < r.formats.size(); ++k) {
      const format_limits& f = r.formats[k];
      std::string cell = shortest(f.fmt, f.converted[i]);
      const lf::fp_class c = f.classes[i];
      if (c == lf::fp_class::positive_zero) cell += " " + l.get("q3.demo.underflow");
      else if (c == lf::fp_class::positive_infinity) cell += " " + l.get("q3.demo.overflow");
      else if (c == lf::fp_class::positive_subnormal) cell += " " + l.get("q3.demo.subnormal");
      const double e = f.relative_error[i];
      conv.rows.push_back({k == 0 ? shortest(lf::binary64, r.samples[i]) : "", f.name, cell,
                           stored_text(f.fmt, f.converted[i]), std::isinf(e) ? std::string("inf") : sci(e)});
    }
  }
  p.add(std::move(conv));
  // The largest relative error of bf16 and of fp32 over the samples (all normal results there).
  auto largest = [&](std::size_t k) { return *std::max_element(r.formats[k].relative_error.begin(), r.formats[k].relative_error.end()); };
  const format_limits& b = r.formats[1];
  const format_limits& s = r.formats[2];
  p.say(l, "q3.demo.note", {{"bf16_err", sci(largest(1))}, {"fp32_err", sci(largest(2))}});
  p.say(l, "q3.demo.roundoff", {{"bf16_u", power_or_shortest(lf::binary64, b.unit_roundoff)},
                                {"bf16_eps", power_or_shortest(lf::binary64, b.epsilon)},
                                {"fp32_u", power_or_shortest(lf::binary64, s.unit_roundoff)},
                                {"fp32_eps", power_or_shortest(lf::binary64, s.epsilon)}});
  return p;
}

}  // namespace mpq::demo
