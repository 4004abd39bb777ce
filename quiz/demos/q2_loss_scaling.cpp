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

page page_q2(const q2_result& r, const language& l) {
  page p(l);
  p.say(l, "q2.demo.title", {{"n", std::to_string(r.grads.values.size())}, {"seed", std::to_string(r.grads.seed)},
                             {"lo", std::to_string(r.grads.lowest_exponent)},
                             {"hi", std::to_string(r.grads.highest_exponent)}});
  table rows(std::vector<std::string>{l.get("q2.demo.scale"), l.get("q2.demo.zero"), l.get("q2.demo.subnormal"), l.get("q2.demo.normal"),
                      l.get("q2.demo.overflow")}, {false, true, true, true, true});
  for (const range_row& row : r.rows)
    rows.rows.push_back({scale_name(row.scale), percent(row.zero, row.total()), percent(row.subnormal, row.total()),
                         percent(row.normal, row.total()), percent(row.overflow, row.total())});
  p.add(std::move(rows));

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
  table h(std::vector<std::string>{l.get("q2.demo.exponents"), l.get("q2.demo.values")});
  h.right.assign(2, false);
  for (int s = 0; s < 2; ++s) {
    h.groups.push_back({l.get("q2.demo.at_scale", {{"s", s == 0 ? "1" : scale_name(r.loss_scale)}}), h.head.size()});
    for (const std::string& name : heads) {
      h.head.push_back(name);
      h.right.push_back(true);
    }
  }
  for (const histogram_bin& b : r.histogram) {
    const std::string bar(static_cast<std::size_t>((b.count + per_mark - 1) / per_mark), '#');
    std::vector<std::string> cells{fmt::format("{}..{}", b.lo, b.hi), pad(bar, bar_width) + lpad(std::to_string(b.count), 5)};
    for (const range_row* row : {&b.at_scale_1, &b.at_loss_scale}) {
      const std::int64_t n[] = {row->zero, row->subnormal, row->normal, row->overflow};
      for (std::size_t i = 0; i < heads.size(); ++i) cells.push_back(std::to_string(n[i]));
    }
    h.rows.push_back(std::move(cells));
  }
  p.blank().say(l, "q2.demo.histogram", {{"per", std::to_string(per_mark)}});
  p.add(std::move(h));
  p.say(l, "q2.demo.window", {{"sub", fmt::format("2^{}", r.fp16_min_subnormal_exp)},
                              {"normal", fmt::format("2^{}", r.fp16_min_normal_exp)},
                              {"max", shortest(lf::binary16, r.fp16_max)},
                              {"zero", power_or_shortest(lf::binary64, r.fp16_zero_up_to)},
                              {"inf", shortest(lf::binary64, r.fp16_overflow_from)}});
  p.blank().say(l, r.tiny_scaled_is_subnormal ? "q2.demo.tiny" : "q2.demo.tiny_normal",
                {{"x", shortest(lf::binary64, r.tiny)},
                 {"x16", shortest(lf::binary16, r.tiny_fp16)},
                 {"s", shortest(lf::binary64, r.loss_scale)},
                 {"xs16", shortest(lf::binary16, r.tiny_scaled_fp16)}});
  return p;
}

}  // namespace mpq::demo
