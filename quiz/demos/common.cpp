// quiz/demos/common.cpp: the gradient set of Q2/Q7, classification at a scale, number
// formatting, and the dispatcher show(n, ...).
#include <cmath>
#include <random>
#include <stdexcept>

#include <fmt/format.h>

#include "demos.hpp"
#include "hard/hard.hpp"

namespace mpq::demo {

gradient_set make_gradients(std::uint64_t seed, std::size_t n) {
  gradient_set g;
  g.seed = seed;
  std::mt19937_64 gen(seed);
  g.values.reserve(n);
  const double span = g.highest_exponent - g.lowest_exponent;
  for (std::size_t i = 0; i < n; ++i) {
    const double u = std::ldexp(static_cast<double>(gen() >> 11), -53);  // [0, 1), 53 bits
    g.values.push_back(std::exp2(g.highest_exponent - span * u));       // (2^-40, 2^0]
  }
  return g;
}

range_row classify_at_scale(const lf::format& f, const std::vector<double>& values, double scale) {
  // lf::training::range_counter (training/range_report.hpp): what the core makes of value * scale rounded once to f.
  lf::training::range_counter counter(f, scale);
  counter.add(std::span<const double>(values));
  const lf::training::range_report rep = counter.report();
  range_row r;
  r.scale = scale;
  r.zero = static_cast<std::int64_t>(rep.zero + rep.exact_zero);
  r.subnormal = static_cast<std::int64_t>(rep.subnormal);
  r.normal = static_cast<std::int64_t>(rep.normal);
  r.overflow = static_cast<std::int64_t>(rep.overflow + rep.infinity + rep.nan);
  return r;
}

std::string shortest(const lf::format& f, double v) {
  lf::status ignored{};
  return lf::to_shortest(f, lf::convert(f, lf::binary64, std::bit_cast<std::uint64_t>(v), lf::env{}, ignored));
}

std::string power_or_shortest(const lf::format& f, double v) {
  int e = 0;
  if (v > 0 && std::frexp(v, &e) == 0.5 && (e - 1 < -4 || e - 1 > 16)) return fmt::format("2^{}", e - 1);
  return shortest(f, v);
}

std::string percent(std::int64_t part, std::int64_t whole) {
  if (whole == 0) return "-";
  return fmt::format("{:.2f}%", 100.0 * static_cast<double>(part) / static_cast<double>(whole));
}

std::string group_digits(std::uint64_t n, std::string_view sep) {
  const std::string d = std::to_string(n);
  std::string out;
  for (std::size_t i = 0; i < d.size(); ++i) {
    if (i != 0 && (d.size() - i) % 3 == 0) out += sep;
    out += d[i];
  }
  return out;
}

std::string sci(double v) {
  if (v == 0) return "0";
  return fmt::format("{:.1e}", v);
}

std::string signed_sci(double v) { return v > 0 ? "+" + sci(v) : sci(v); }

double signed_ratio(const lf::exact_accumulator& a, const lf::exact_accumulator& b, const lf::exact_accumulator& c) {
  lf::exact_accumulator d = a;
  d.sub(b);
  const double q = lf::exact_accumulator::quotient(d, c);
  return d.sign() * c.sign() < 0 ? -q : q;
}

page show_page(int n, const language& l, std::uint64_t seed, bool live) {
  switch (n) {
    case 1: return page_q1(run_q1(), l);
    case 2: return page_q2(run_q2(seed), l);
    case 3: return page_q3(run_q3(), l);
    case 4: return page_q4(run_q4(seed), l);
    case 5: return page_q5(run_q5(live), l);
    case 6: return page_q6(run_q6(seed), l);
    case 7: return page_q7(run_q7(seed), l);
    case 8: return page_q8(run_q8(), l);
    default:
      if (n >= level_first(level::hard) && n <= question_count) return hard_page(n, l, seed);
      throw std::out_of_range("no demo for question " + std::to_string(n));
  }
}

std::string show(int n, const language& l, std::uint64_t seed, bool live) { return show_page(n, l, seed, live).render(); }

std::string show_q1(const q1_result& r, const language& l) { return page_q1(r, l).render(); }
std::string show_q2(const q2_result& r, const language& l) { return page_q2(r, l).render(); }
std::string show_q3(const q3_result& r, const language& l) { return page_q3(r, l).render(); }
std::string show_q4(const q4_result& r, const language& l) { return page_q4(r, l).render(); }
std::string show_q5(const q5_result& r, const language& l) { return page_q5(r, l).render(); }
std::string show_q6(const q6_result& r, const language& l) { return page_q6(r, l).render(); }
std::string show_q7(const q7_result& r, const language& l) { return page_q7(r, l).render(); }
std::string show_q8(const q8_result& r, const language& l) { return page_q8(r, l).render(); }

}  // namespace mpq::demo
