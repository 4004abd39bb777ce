// Q7 bf16 and loss scaling: Q2's gradient set, unscaled, in fp16 and in bf16: the fraction lost
// (zero) and subnormal, and the price of bf16's range: the unit roundoff u = 2^-p, 2^-8 against
// fp16's 2^-11 (a rounding to a normal number is off by less than u), also measured on the same
// gradients. bf16's u is half its epsilon 2^-7 (Q3's table), the gap between 1 and next_up(1).
#include <cmath>

#include <fmt/format.h>

#include "demos.hpp"

namespace mpq::demo {

namespace {
q7_format measure(const char* name, const lf::format& f, const std::vector<double>& values) {
  q7_format q;
  q.name = name;
  q.unscaled = classify_at_scale(f, values, 1.0);
  q.unit_roundoff = std::ldexp(1.0, -f.precision);
  {  // epsilon: the gap between 1 and the next number of f, from lf::next_up (exact in binary64)
    lf::status ignored{};
    const lf::bits_t one = lf::convert(f, lf::binary64, std::bit_cast<std::uint64_t>(1.0), lf::env{}, ignored);
    lf::exact_accumulator gap;
    gap.add(f, lf::next_up(f, one, ignored)).add(lf::binary64, std::bit_cast<std::uint64_t>(-1.0));
    q.epsilon = gap.to_double();
  }
  for (const double v : values) {
    lf::status ignored{};
    const lf::bits_t x = lf::convert(f, lf::binary64, std::bit_cast<std::uint64_t>(v), lf::env{}, ignored);
    if (lf::classify(f, x) != lf::fp_class::positive_normal) continue;
    lf::exact_accumulator d;  // |fp(v) - v| / v, formed exactly, rounded once
    d.add(f, x).add(lf::binary64, std::bit_cast<std::uint64_t>(-v));
    lf::exact_accumulator g;
    g.add(lf::binary64, std::bit_cast<std::uint64_t>(v));
    q.max_relative_error = std::max(q.max_relative_error, std::fabs(lf::exact_accumulator::quotient(d, g)));
  }
  return q;
}
}  // namespace

q7_result run_q7(std::uint64_t seed) {
  q7_result r;
  r.grads = make_gradients(seed);
  r.formats.push_back(measure("fp16", lf::binary16, r.grads.values));
  r.formats.push_back(measure("bf16", lf::bfloat16, r.grads.values));
  return r;
}

page page_q7(const q7_result& r, const language& l) {
  page p(l);
  p.say(l, "q7.demo.title", {{"n", std::to_string(r.grads.values.size())},
                                                  {"lo", std::to_string(r.grads.lowest_exponent)},
                                                  {"hi", std::to_string(r.grads.highest_exponent)}});
  table t(std::vector<std::string>{l.get("q7.demo.format"), l.get("q7.demo.zero"), l.get("q7.demo.subnormal"), l.get("q7.demo.u"),
                   l.get("q7.demo.measured")}, {false, true, true, false, false});
  for (const q7_format& f : r.formats)
    t.rows.push_back({f.name, percent(f.unscaled.zero, f.unscaled.total()), percent(f.unscaled.subnormal, f.unscaled.total()),
                      power_or_shortest(lf::binary64, f.unit_roundoff), sci(f.max_relative_error)});
  p.add(std::move(t));
  p.say(l, "q7.demo.note", {{"u16", power_or_shortest(lf::binary64, r.formats[0].unit_roundoff)},
                                     {"u8", power_or_shortest(lf::binary64, r.formats[1].unit_roundoff)},
                                     {"eps8", power_or_shortest(lf::binary64, r.formats[1].epsilon)}});
  return p;
}

}  // namespace mpq::demo
