// Q2 loss scaling: a seeded set of gradient magnitudes spread over 2^-40..2^0, converted to fp16
// at scales 1, 8, 2^10, 2^16 and 2^20 (the fractions that become zero, subnormal, overflow), a
// text histogram of their exponents with each bin's values counted by what fp16 makes of them,
// fp16's window and its rounding edges, and fp16(1e-8) = 0 against fp16(1e-8 * 1024).
#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "demos.hpp"

namespace mpq::demo {

q2_result run_q2(std::uint64_t seed) {
  q2_result r;
  r.grads = make_gradients(seed);
  // Scales 1, 8 (Micikevicius et al. 2018's SSD example), 2^10, 2^16 (GradScaler's init_scale),
  // and 2^20: too large, the top gradients overflow.
  for (const int e : {0, 3, 10, 16, 20}) r.rows.push_back(classify_at_scale(lf::binary16, r.grads.values, std::ldexp(1.0, e)));
  r.loss_scale = std::ldexp(1.0, 10);

  // Histogram: bins of 4 binades from the lowest exponent up.
  constexpr int bin_width = 4;
  for (int lo = r.grads.lowest_exponent; lo < r.grads.highest_exponent; lo += bin_width) {
    histogram_bin b;
    b.lo = lo;
    b.hi = lo + bin_width - 1;
    std::vector<double> in;
    for (const double v : r.grads.values) {
      const int e = std::ilogb(v);
      if (e >= b.lo && e <= b.hi) in.push_back(v);
    }
    b.count = static_cast<std::int64_t>(in.size());
    b.at_scale_1 = classify_at_scale(lf::binary16, in, 1.0);
    b.at_loss_scale = classify_at_scale(lf::binary16, in, r.loss_scale);
    r.histogram.push_back(b);
  }

  using lim = std::numeric_limits<lf::fp16>;
  r.fp16_min_subnormal_exp = std::ilogb(static_cast<double>(lim::denorm_min()));
  r.fp16_min_normal_exp = std::ilogb(static_cast<double>(lim::min()));
  r.fp16_max = static_cast<double>(lim::max());
  // Nearest-even conversion's edges: half the smallest subnormal (a tie, to the even 0) and max
  // plus half an ulp (IEEE 754-2019 §7.4: rounds to infinity).
  r.fp16_zero_up_to = lf::training::half_ulp(lf::binary16, static_cast<double>(lim::denorm_min()));
  r.fp16_overflow_from = r.fp16_max + lf::training::half_ulp(lf::binary16, r.fp16_max);

  r.tiny_fp16 = static_cast<double>(lf::fp16(r.tiny));
  r.tiny_scaled = r.tiny * r.loss_scale;
  const lf::fp16 scaled(r.tiny_scaled);
  r.tiny_scaled_fp16 = static_cast<double>(scaled);
  r.tiny_scaled_is_subnormal = lf::classify(scaled) == lf::fp_class::positive_subnormal;
  return r;
}

namespace {

/// 1, 8, 2^10, 2^16: powers of two from 2^10 up are easier to read as powers.
std::string scale_name(double s) {
  const int e = std::ilogb(s);
  return e >= 10 ? fmt::format("2^{}", e) : shortest(lf::binary64, s);
}

}  // namespace

std::string show_q2(const q2_result& r, const language& l) {
  std::string out = wrap(l.get("q2.demo.title", {{"n", std::to_string(r.grads.values.size())},
                                                  {"seed", std::to_string(r.grads.seed)},
                                                  {"lo", std::to_string(r.grads.lowest_exponent)},
                                                  {"hi", std::to_string(r.grads.highest_exponent)}}));
  out += fmt::format("  {}{}{}{}{}\n", pad(l.get("q2.demo.scale"), 10), pad(l.get("q2.demo.zero"), 14),
                     pad(l.get("q2.demo.subnormal"), 14), pad(l.get("q2.demo.normal"), 14), l.get("q2.demo.overflow"));
  for (const range_row& row : r.rows)
    out += fmt::format("  {}{}{}{}{}\n", pad(scale_name(row.scale), 10), pad(percent(row.zero, row.total()), 14),
                       pad(percent(row.subnormal, row.total()), 14), pad(percent(row.normal, row.total()), 14),
                       percent(row.overflow, row.total()));

  std::int64_t most = 1;
  bool any_overflow = false;
  for (const histogram_bin& b : r.histogram) {
    most = std::max(most, b.count);
    any_overflow = any_overflow || b.at_scale_1.overflow != 0 || b.at_loss_scale.overflow != 0;
  }
  constexpr int bar_width = 12;
  const std::int64_t per_mark = (most + bar_width - 1) / bar_width;
  // Each bin's values counted by what fp16 makes of them (every value rounded once): the
  // columns zero, subnormal, normal (and overflow when a bin has one), at scale 1 and at the
  // loss scale, so a bin across a window edge shows how its values split.
  std::vector<std::string> heads{l.get("q2.demo.zero"), l.get("q2.demo.subnormal"), l.get("q2.demo.normal")};
  if (any_overflow) heads.push_back(l.get("q2.demo.overflow"));
  std::vector<int> widths;
  for (const std::string& h : heads) widths.push_back(std::max(display_width(h), 4));
  int group = 0;
  for (const int w : widths) group += w + 1;
  group += 1;  // two spaces before each group, one between columns
  auto cells = [&](const range_row& row) {
    const std::int64_t n[] = {row.zero, row.subnormal, row.normal, row.overflow};
    std::string s = " ";
    for (std::size_t i = 0; i < widths.size(); ++i) s += " " + lpad(std::to_string(n[i]), widths[i]);
    return s;
  };
  std::string head_cols = " ";
  for (std::size_t i = 0; i < heads.size(); ++i) head_cols += " " + lpad(heads[i], widths[i]);
  constexpr int left = 10 + bar_width + 5;
  out += '\n' + wrap(l.get("q2.demo.histogram", {{"per", std::to_string(per_mark)}}));
  out += fmt::format("  {}{}{}\n", pad("", left), pad("  " + l.get("q2.demo.at_scale", {{"s", "1"}}), group),
                     "  " + l.get("q2.demo.at_scale", {{"s", scale_name(r.loss_scale)}}));
  out += fmt::format("  {}{}{}{}\n", pad(l.get("q2.demo.exponents"), 10), pad(l.get("q2.demo.values"), bar_width + 5),
                     head_cols, head_cols);
  for (const histogram_bin& b : r.histogram) {
    const std::string bar(static_cast<std::size_t>((b.count + per_mark - 1) / per_mark), '#');
    out += fmt::format("  {}{}{}{}{}\n", pad(fmt::format("{}..{}", b.lo, b.hi), 10), pad(bar, bar_width),
                       lpad(std::to_string(b.count), 5), cells(b.at_scale_1), cells(b.at_loss_scale));
  }
  out += wrap(l.get("q2.demo.window", {{"sub", fmt::format("2^{}", r.fp16_min_subnormal_exp)},
                                       {"normal", fmt::format("2^{}", r.fp16_min_normal_exp)},
                                       {"max", shortest(lf::binary16, r.fp16_max)},
                                       {"zero", power_or_shortest(lf::binary64, r.fp16_zero_up_to)},
                                       {"inf", shortest(lf::binary64, r.fp16_overflow_from)}}));
  out += '\n' + wrap(l.get(r.tiny_scaled_is_subnormal ? "q2.demo.tiny" : "q2.demo.tiny_normal",
                           {{"x", shortest(lf::binary64, r.tiny)},
                            {"x16", shortest(lf::binary16, r.tiny_fp16)},
                            {"s", shortest(lf::binary64, r.loss_scale)},
                            {"xs16", shortest(lf::binary16, r.tiny_scaled_fp16)}}));
  return out;
}

}  // namespace mpq::demo
