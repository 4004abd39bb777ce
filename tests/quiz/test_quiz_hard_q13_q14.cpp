// The hard level's questions 13 (stochastic rounding of bf16 weights) and 14 (a bf16 sum that
// stalls, and Kahan's compensation), read as claims: each test renders a demo or a try-it page in
// English and in French, reads the numbers out of its sentences and tables (the sentence patterns
// are made from the language's own templates, every {name} a capture) and checks each against an
// independent model written here:
//   - bf16 rounding by bit manipulation of a double (nearest even, toward zero, and stochastic:
//     up iff the 32 random bits are below the first 32 discarded bits, core/rounding.hpp's rule);
//   - the stochastic runs replayed with std::mt19937(seed), step k taking its k-th output
//     (training/amp.hpp's documented seed rule);
//   - fp32 runs in hardware float (IEEE binary32, nearest even; -ffp-contract=off);
//   - exact sums and relative errors as exact rationals (Boost cpp_rational).
// Nothing is checked against the library functions that produced the numbers.
#include <doctest/doctest.h>

#include <boost/multiprecision/cpp_int.hpp>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <map>
#include <random>
#include <regex>
#include <string>
#include <vector>

#include "demos/demos.hpp"
#include "demos/facts.hpp"
#include "demos/hard/hard.hpp"
#include "tryit.hpp"
#include "claims_text.hpp"
#include "exact_decimal.hpp"

using namespace mpq;
using boost::multiprecision::cpp_int;
using boost::multiprecision::cpp_rational;

namespace {

using claims::rational_of_decimal;

using claims::flat;

// ---- models -----------------------------------------------------------------------------------

/// bf16 rounding of a double in bf16's normal range (|x| in [2^-126, 2^128)) or zero: the double's
/// encoding without its sign, (exponent, 52 fraction bits) read as one integer, loses its low 45
/// bits (52 - 7); a carry out of the fraction steps the exponent, as it should.
enum class mode { nearest, toward_zero, stochastic };
double bf16(double x, mode m = mode::nearest, std::uint32_t random = 0) {
  if (x == 0) return x;
  const std::uint64_t b = std::bit_cast<std::uint64_t>(x);
  const std::uint64_t sign = b & (std::uint64_t{1} << 63), mag = b & ~(std::uint64_t{1} << 63);
  const std::uint64_t low = mag & ((std::uint64_t{1} << 45) - 1);
  std::uint64_t kept = mag >> 45;
  if (m == mode::nearest) {
    const std::uint64_t half = std::uint64_t{1} << 44;
    if (low > half || (low == half && (kept & 1))) ++kept;
  } else if (m == mode::stochastic) {
    const auto d = static_cast<std::uint32_t>(low >> 13);  // the first 32 discarded bits
    if (random < d) ++kept;
  }
  const double r = std::bit_cast<double>(sign | (kept << 45));
  if (!(std::fabs(r) >= std::ldexp(1.0, -126)) || !std::isfinite(r)) FAIL("outside the model's range: " << x);
  return r;
}
/// The bf16 number after the positive bf16 value v.
double bf16_next_up(double v) { return std::bit_cast<double>(std::bit_cast<std::uint64_t>(v) + (std::uint64_t{1} << 45)); }
bool is_bf16(double v) { return bf16(v) == v; }

/// The exact value of a finite double.
cpp_rational rational(double x) {
  if (x == 0) return 0;
  int e = 0;
  const double m = std::frexp(x, &e);
  const auto mi = static_cast<std::int64_t>(std::ldexp(m, 53));
  cpp_rational r{cpp_int(mi)};
  e -= 53;
  const cpp_int p = cpp_int(1) << static_cast<unsigned>(std::abs(e));
  return e >= 0 ? cpp_rational(r * p) : cpp_rational(r / p);
}
/// A rational to the nearest double (62 quotient bits, then one more rounding: enough
/// for the 2 digits the relative errors show).
double to_double(const cpp_rational& q) {
  if (q == 0) return 0;
  if (q < 0) return -to_double(cpp_rational(-q));
  cpp_int n = boost::multiprecision::numerator(q), d = boost::multiprecision::denominator(q);
  const long shift = 62 - static_cast<long>(boost::multiprecision::msb(n)) + static_cast<long>(boost::multiprecision::msb(d));
  if (shift > 0) n <<= static_cast<unsigned>(shift);
  else d <<= static_cast<unsigned>(-shift);
  const cpp_int qi = n / d;
  return std::ldexp(static_cast<double>(qi.convert_to<std::uint64_t>() | ((n % d) != 0 ? 1u : 0u)), static_cast<int>(-shift));
}
/// demo::sci's form, written here: printf "%.1e", "0" for zero.
std::string sci(const cpp_rational& q) {
  if (q == 0) return "0";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.1e", to_double(q));
  return buf;
}
/// |v - exact| / |exact| as the demos print it.
std::string rel(double v, const cpp_rational& exact) { return sci(abs(rational(v) - exact) / abs(exact)); }

/// Whether a + b is exact in double: Knuth's TwoSum error term is zero (TAOCP vol. 2, 4.2.2).
bool sum_is_exact(double a, double b) {
  const double s = a + b, bb = s - a;
  return (a - (s - bb)) + (b - bb) == 0;
}

/// A number as printed: decimal, "2^-7".
double num(const std::string& s) {
  if (s.rfind("2^", 0) == 0) return std::ldexp(1.0, std::stoi(s.substr(2)));
  char* end = nullptr;
  const double v = std::strtod(s.c_str(), &end);
  INFO("number: " << s);
  REQUIRE(end == s.c_str() + s.size());
  return v;
}

/// A run of w_k = bf16(w_{k-1} + u): the final w and the steps that left w unchanged. w + u is
/// exact in double for the runs here (checked: the two bf16/fp32 addends' bits span < 53).
struct run {
  double final = 0;
  std::int64_t lost = 0;
};
run bf16_run(double w, double u, std::int64_t steps, mode m, std::uint32_t seed = 1) {
  std::mt19937 random(seed);
  run r;
  for (std::int64_t k = 0; k < steps; ++k) {
    const std::uint32_t bits = m == mode::stochastic ? static_cast<std::uint32_t>(random()) : 0;
    if (!sum_is_exact(w, u)) FAIL("w + u is not exact in double: " << w << " + " << u);
    const double s = w + u;
    const double next = bf16(s, m, bits);
    if (next == w) ++r.lost;
    w = next;
  }
  r.final = w;
  return r;
}
struct frun {
  float final = 0;
  std::int64_t lost = 0;
};
frun fp32_run(float w, float u, std::int64_t steps) {
  frun r;
  for (std::int64_t k = 0; k < steps; ++k) {
    const float next = w + u;
    if (next == w) ++r.lost;
    w = next;
  }
  r.final = w;
  return r;
}

// ---- text -------------------------------------------------------------------------------------

std::string escape(const std::string& s) {
  static const std::string special = R"(\^$.|?*+()[]{})";
  std::string out;
  for (const char c : s) {
    if (special.find(c) != std::string::npos) out += '\\';
    out += c;
  }
  return out;
}
/// The regex of a template: its text literal, each {name} a capture of non-space characters.
std::string pattern_of(const std::string& raw, std::vector<std::string>& names) {
  const std::string t = flat(raw);
  std::string out;
  std::size_t i = 0;
  while (i < t.size()) {
    const std::size_t open = t.find('{', i);
    if (open == std::string::npos) {
      out += escape(t.substr(i));
      break;
    }
    const std::size_t close = t.find('}', open);
    // Non-greedy, but a placeholder that ends the template takes the whole word.
    out += escape(t.substr(i, open - i)) + (close + 1 == t.size() ? R"((\S+))" : R"((\S+?))");
    names.push_back(t.substr(open + 1, close - open - 1));
    i = close + 1;
  }
  return out;
}
/// The values of the placeholders of language key `key` as `text` shows them (flattened); a
/// placeholder used twice must show the same value twice.
std::map<std::string, std::string> read(const language& l, const std::string& key, const std::string& text) {
  std::vector<std::string> names;
  const std::string p = pattern_of(l.raw(key), names);
  std::smatch m;
  INFO("key: " << key << "\npattern: " << p << "\ntext: " << text);
  REQUIRE(std::regex_search(text, m, std::regex(p)));
  std::map<std::string, std::string> out;
  for (std::size_t i = 0; i < names.size(); ++i) {
    const auto [it, fresh] = out.emplace(names[i], m[i + 1].str());
    CHECK(it->second == m[i + 1].str());
  }
  return out;
}
const std::string number = R"(([-0-9.e+]+|inf|nan|-))";
/// The cells after a table row's label: the row in one line (the table in columns), or, when
/// `headings` are given and the table is stacked, "heading: cell" for each of them.
std::vector<std::string> row(const std::string& text, const std::string& label, int cells,
                             const std::vector<std::string>& headings = {}) {
  std::string inline_p = "(?:^| )" + escape(flat(label)), stacked_p = inline_p;
  for (int i = 0; i < cells; ++i) inline_p += " " + number;
  for (const std::string& h : headings) stacked_p += " " + escape(flat(h)) + " ?: " + number;
  std::smatch m;
  INFO("row: " << label << "\ntext: " << text);
  const bool found = std::regex_search(text, m, std::regex(inline_p)) ||
                     (!headings.empty() && std::regex_search(text, m, std::regex(stacked_p)));
  REQUIRE(found);
  std::vector<std::string> out;
  for (int i = 1; i <= cells; ++i) out.push_back(m[i].str());
  return out;
}

const language& en() { return *find_language("en"); }
const language& fr() { return *find_language("fr"); }
std::vector<const language*> both() { return {&en(), &fr()}; }

std::string rendered(const page& p) { return flat(p.render(80)); }

}  // namespace

// =================================================================================================
// Question 13
// =================================================================================================

TEST_CASE("q13 demo: bf16 nearest, bf16 stochastic (replayed with mt19937), fp32, exact; en and fr") {
  for (const std::uint64_t seed : {demo::default_seed, std::uint64_t{7}}) {
    const demo::q13_result r = demo::run_q13(seed);
    // The model's runs.
    const double w0 = 1.0;
    const float u32 = static_cast<float>(1e-4);  // hardware conversion, nearest even
    const double u = u32;
    const std::int64_t steps = 10000;
    const cpp_rational exact = rational(w0) + steps * rational(u);
    const run nearest = bf16_run(w0, u, steps, mode::nearest);
    const frun f32 = fp32_run(1.0f, u32, steps);
    const auto seed32 = static_cast<std::uint32_t>(seed);
    std::vector<run> sr;
    for (std::uint32_t i = 0; i < 8; ++i) sr.push_back(bf16_run(w0, u, steps, mode::stochastic, seed32 + i));
    // The claims themselves.
    CHECK(nearest.final == 1.0);
    CHECK(nearest.lost == steps);
    const double next = bf16_next_up(1.0);
    CHECK(next == 1.0 + std::ldexp(1.0, -7));
    const cpp_rational p = rational(u) / rational(next - 1.0);
    CHECK(p < cpp_rational(1, 2));
    CHECK(rational(to_double(p)) == p);
    CHECK(bf16(1.0 + u) == 1.0);  // below one half of the gap: rounds back down
    CHECK(p * rational(next - 1.0) == rational(u));  // on average a step from 1 adds u itself
    double lo = sr[0].final, hi = sr[0].final;
    cpp_rational total = 0;
    for (const run& s : sr) {
      lo = std::min(lo, s.final), hi = std::max(hi, s.final);
      total += rational(s.final);
      CHECK(is_bf16(s.final));
    }
    const cpp_rational mean = total / 8;

    for (const language* l : both()) {
      INFO("lang: " << l->code() << " seed " << seed);
      const std::string text = rendered(demo::page_q13(r, *l));
      auto title = read(*l, "q13.demo.title", text);
      CHECK(num(title["w0"]) == w0);
      CHECK(num(title["u"]) == 1e-4);
      CHECK(title["steps"] == "10000");
      // The table: final w, updates lost, relative error.
      const auto n = row(text, l->get("q13.demo.nearest"), 3);
      CHECK(bf16(num(n[0])) == nearest.final);
      CHECK(std::stoll(n[1]) == nearest.lost);
      CHECK(n[2] == rel(nearest.final, exact));
      const std::string sr_label = l->get("q13.demo.stochastic", localized({{"seed", std::to_string(seed32)}}, *l));
      const auto s = row(text, sr_label, 3);
      CHECK(bf16(num(s[0])) == sr[0].final);
      CHECK(std::stoll(s[1]) == sr[0].lost);
      CHECK(s[2] == rel(sr[0].final, exact));
      const auto f = row(text, l->get("q13.demo.fp32"), 3);
      CHECK(static_cast<float>(num(f[0])) == f32.final);
      CHECK(std::stoll(f[1]) == f32.lost);
      CHECK(f[2] == rel(f32.final, exact));
      // The exact value and the fp32 update, every digit.
      auto ex = read(*l, "q13.demo.exact", text);
      CHECK(rational_of_decimal(ex["exact"]) == exact);
      CHECK(rational_of_decimal(ex["u32"]) == rational(u));
      // Why nearest stays at 1.
      auto why = read(*l, "q13.demo.why_nearest", text);
      CHECK(num(why["w0"]) == 1.0);
      CHECK(num(why["next"]) == next);
      CHECK(num(why["gap"]) == next - 1.0);
      CHECK(num(why["p"]) == to_double(p));  // u x 2^7: a double, printed shortest
      CHECK(std::stoll(why["lost"]) == steps);
      CHECK(std::stoll(why["steps"]) == steps);
      // Stochastic rounding.
      auto st = read(*l, "q13.demo.why_stochastic", text);
      CHECK(num(st["next"]) == next);
      CHECK(num(st["p"]) == to_double(p));
      CHECK(bf16(num(st["final"])) == sr[0].final);
      CHECK(st["err"] == rel(sr[0].final, exact));
      CHECK(std::stoll(st["lost"]) == sr[0].lost);
      // The spread over 8 seeds.
      auto sp = read(*l, "q13.demo.spread", text);
      CHECK(sp["k"] == "8");
      CHECK(std::stoull(sp["s0"]) == seed32);
      CHECK(std::stoull(sp["s1"]) == seed32 + 7);
      CHECK(bf16(num(sp["min"])) == lo);
      CHECK(bf16(num(sp["max"])) == hi);
      CHECK(num(sp["mean"]) == to_double(mean));  // the mean of 8 bf16 values near 2 is a double
      CHECK(rational(to_double(mean)) == mean);
      CHECK(sp["mean_err"] == sci(abs(mean - exact) / exact));
      CHECK(sp["fp32_err"] == rel(f32.final, exact));
      CHECK(text.find(flat(l->get("q13.demo.seed_rule"))) != std::string::npos);
    }
  }
}

TEST_CASE("q13 facts, question text and explanation against the bf16 model") {
  const vars& f = demo::facts();
  const float u32 = static_cast<float>(1e-4);
  CHECK(num(f.at("q13_w0")) == 1.0);
  CHECK(num(f.at("q13_u")) == 1e-4);
  CHECK(f.at("q13_steps") == "10000");
  CHECK(num(f.at("q13_nearest_final")) == bf16(1.0 + static_cast<double>(u32)));
  CHECK(num(f.at("q13_nearest_final")) == 1.0);
  CHECK(f.at("q13_nearest_lost") == std::to_string(bf16_run(1.0, u32, 10000, mode::nearest).lost));
  const double gap = bf16_next_up(1.0) - 1.0;
  CHECK(num(f.at("q13_gap")) == gap);
  CHECK(num(f.at("q13_half_gap")) == gap / 2);
  CHECK(num(f.at("q13_half_gap_dec")) == gap / 2);
  CHECK(num(f.at("q13_p_up")) == static_cast<double>(u32) / gap);  // exact: gap is a power of two
  // "any positive update up to half the gap rounds back to 1; a larger one moves it" (nearest even).
  const double half = gap / 2;
  for (const double v : {half, half * 0.75, std::ldexp(half, -10), static_cast<double>(u32), std::ldexp(1.0, -40)})
    CHECK(bf16(1.0 + v) == 1.0);
  CHECK(bf16(1.0 + (half + std::ldexp(1.0, -30))) == 1.0 + gap);  // exact in double, just above half
  // "all N updates are lost" with the update in fp32.
  CHECK(bf16_run(1.0, u32, 10000, mode::nearest).lost == 10000);
  // "a smaller learning rate": a tenth of the update is lost as well.
  CHECK(bf16_run(1.0, static_cast<float>(1e-5), 1000, mode::nearest).lost == 1000);
  for (const language* l : both()) {
    INFO("lang: " << l->code());
    const question& q = l->questions().at(12);
    CHECK(q.number == 13);
    CHECK(q.guide == "stochastic-rounding");
    CHECK(q.answer == 1);  // B: stochastic rounding
    const std::string text = flat(substitute(q.text, localized(f, *l)));
    CHECK(text.find(flat(localize_number(f.at("q13_u"), *l))) != std::string::npos);
    const std::string explain = flat(substitute(q.explanation, localized(f, *l)));
    CHECK(explain.find(flat(localize_number(f.at("q13_p_up"), *l))) != std::string::npos);
    for (int w : {0, 2, 3}) CHECK_NOTHROW(substitute(q.why.at(w), localized(f, *l)));
  }
}

TEST_CASE("q13 try it: several weights, updates and step counts, replayed; bad input") {
  struct input {
    std::string line;
    double w, u;  // bf16(w) and fp32(u) as the model takes them (the page is checked to agree)
    float w32;
    std::int64_t steps;
  };
  const std::vector<input> good = {
      {"1 0.0001 10000", 1.0, static_cast<float>(1e-4), 1.0f, 10000},
      {"1, 1e-4, 100", 1.0, static_cast<float>(1e-4), 1.0f, 100},
      {"-3 0.01 5000", -3.0, static_cast<float>(0.01), -3.0f, 5000},
      {"0.5 -0.001 2000", 0.5, static_cast<float>(-0.001), 0.5f, 2000},
      {"100 0.25 1000", 100.0, 0.25f, 100.0f, 1000},
      {"0.3 0.0001 3000", bf16(0.3), static_cast<float>(1e-4), 0.3f, 3000},
      {"1 0.0001 100000", 1.0, static_cast<float>(1e-4), 1.0f, 100000},
  };
  for (const language* l : both()) {
    for (const input& in : good) {
      INFO("lang: " << l->code() << " input: " << in.line);
      const try_outcome o = try_it(13, *l, in.line);
      REQUIRE(o.ok);
      REQUIRE(o.result);
      const std::string text = rendered(*o.result);
      auto title = read(*l, "try.q13.title", text);
      CHECK(bf16(num(title["w"])) == in.w);
      CHECK(static_cast<float>(num(title["w32"])) == in.w32);
      CHECK(static_cast<float>(num(title["u"])) == static_cast<float>(in.u));
      CHECK(std::stoll(title["steps"]) == in.steps);
      const cpp_rational exact16 = rational(in.w) + in.steps * rational(in.u);
      const cpp_rational exact32 = rational(in.w32) + in.steps * rational(in.u);
      const run nearest = bf16_run(in.w, in.u, in.steps, mode::nearest);
      const run sr = bf16_run(in.w, in.u, in.steps, mode::stochastic, demo::q13_try_seed);
      const frun f32 = fp32_run(in.w32, static_cast<float>(in.u), in.steps);
      const std::vector<std::string> heads = {l->get("q13.demo.head.final"), l->get("q13.demo.head.lost"),
                                              l->get("try.q13.exact"), l->get("try.rel_error")};
      const auto n = row(text, l->get("q13.demo.nearest"), 4, heads);
      CHECK(bf16(num(n[0])) == nearest.final);
      CHECK(std::stoll(n[1]) == nearest.lost);
      CHECK(rational_of_decimal(n[2]) == exact16);
      CHECK(n[3] == rel(nearest.final, exact16));
      const auto s = row(text, l->get("q13.demo.stochastic", localized({{"seed", std::to_string(demo::q13_try_seed)}}, *l)), 4, heads);
      CHECK(bf16(num(s[0])) == sr.final);
      CHECK(std::stoll(s[1]) == sr.lost);
      CHECK(rational_of_decimal(s[2]) == exact16);
      CHECK(s[3] == rel(sr.final, exact16));
      const auto f = row(text, l->get("q13.demo.fp32"), 4, heads);
      CHECK(static_cast<float>(num(f[0])) == f32.final);
      CHECK(std::stoll(f[1]) == f32.lost);
      CHECK(rational_of_decimal(f[2]) == exact32);
      CHECK(f[3] == rel(f32.final, exact32));
      CHECK(text.find(flat(l->get("try.q13.note"))) != std::string::npos);
    }
    for (const std::string bad : {"", "1 2", "1 2 0", "1 2 100001", "1 2 2.5", "x 1 1", "1e39 1 10", "1 1e39 10",
                                  "nan 1 1", "1 2 3 4", "1 2 -5", "inf 1 1"}) {
      INFO("lang: " << l->code() << " bad: '" << bad << "'");
      try_outcome o;
      CHECK_NOTHROW(o = try_it(13, *l, bad));
      CHECK_FALSE(o.ok);
      CHECK(o.error.find(l->get("try.q13.form")) != std::string::npos);
    }
  }
}

// =================================================================================================
// Question 14
// =================================================================================================

namespace {
struct sum_model {
  double x = 0;  // bf16(x)
  double plain = 0, kahan = 0, toward_zero = 0;
  float fp32 = 0;
  bool stalls = false;
  std::int64_t stall_k = 0;
  double stall_v = 0;
  cpp_rational exact;
};
/// n copies of x (already bf16) summed in the test's own bf16 (every operation one bf16
/// rounding of the exact double result: the operands here are bf16 values of close magnitudes,
/// so each double sum and difference is exact, which the loop checks).
sum_model sums(double x, std::int64_t n) {
  sum_model m;
  m.x = x;
  auto add = [](double a, double b, mode md = mode::nearest) {
    if (!sum_is_exact(a, b)) FAIL("a + b is not exact in double: " << a << " + " << b);
    return bf16(a + b, md);
  };
  double acc = 0, tz = 0, s = 0, c = 0;
  float f = 0;
  for (std::int64_t k = 0; k < n; ++k) {
    const double next = add(acc, x);
    if (next == acc && !m.stalls) m.stalls = true, m.stall_k = k, m.stall_v = acc;
    acc = next;
    tz = add(tz, x, mode::toward_zero);
    // Kahan 1965: y = t - c, u = s + y, c = (u - s) - y, s = u, each operation rounded to bf16.
    const double y = add(x, -c);
    const double u = add(s, y);
    c = add(add(u, -s), -y);
    s = u;
    f = f + static_cast<float>(x);
  }
  m.plain = acc;
  m.toward_zero = tz;
  m.kahan = s;
  m.fp32 = f;
  m.exact = n * rational(x);
  return m;
}
}  // namespace

TEST_CASE("q14 demo: plain bf16 sum and where it stalls, Kahan in bf16, fp32, toward zero; en and fr") {
  const demo::q14_result r = demo::run_q14(demo::default_seed);
  const double x = bf16(0.01);
  const sum_model m = sums(x, 10000);
  REQUIRE(m.stalls);
  // The claims: the plain sum is stuck from the stall on; Kahan ends far closer; toward zero lower.
  CHECK(m.plain == m.stall_v);
  CHECK(bf16(m.stall_v + x) == m.stall_v);
  const double half = (bf16_next_up(m.stall_v) - m.stall_v) / 2;
  CHECK(half >= x);
  CHECK(abs(rational(m.kahan) - m.exact) * 10 < abs(rational(m.plain) - m.exact));
  CHECK(m.toward_zero < m.plain);
  for (const language* l : both()) {
    INFO("lang: " << l->code());
    const std::string text = rendered(demo::page_q14(r, *l));
    auto title = read(*l, "q14.demo.title", text);
    CHECK(title["n"] == "10000");
    CHECK(num(title["x"]) == 0.01);
    CHECK(rational_of_decimal(title["xb"]) == rational(x));
    const auto p = row(text, l->get("q14.demo.plain"), 2);
    CHECK(bf16(num(p[0])) == m.plain);
    CHECK(p[1] == rel(m.plain, m.exact));
    const auto k = row(text, l->get("q14.demo.kahan"), 2);
    CHECK(bf16(num(k[0])) == m.kahan);
    CHECK(k[1] == rel(m.kahan, m.exact));
    const auto f = row(text, l->get("q14.demo.fp32"), 2);
    CHECK(static_cast<float>(num(f[0])) == m.fp32);
    CHECK(f[1] == rel(m.fp32, m.exact));
    const auto z = row(text, l->get("q14.demo.toward_zero"), 2);
    CHECK(bf16(num(z[0])) == m.toward_zero);
    CHECK(z[1] == rel(m.toward_zero, m.exact));
    CHECK(rational_of_decimal(read(*l, "q14.demo.exact", text)["exact"]) == m.exact);
    auto st = read(*l, "q14.demo.stall", text);
    CHECK(bf16(num(st["v"])) == m.stall_v);
    CHECK(std::stoll(st["k"]) == m.stall_k);
    CHECK(num(st["half"]) == half);
    CHECK(num(st["half_dec"]) == half);
    CHECK(bf16(num(st["xb"])) == x);
    auto kw = read(*l, "q14.demo.kahan_why", text);
    CHECK(bf16(num(kw["kahan"])) == m.kahan);
    CHECK(kw["kerr"] == rel(m.kahan, m.exact));
    CHECK(kw["perr"] == rel(m.plain, m.exact));
  }
}

TEST_CASE("q14 facts, question text and explanation against the bf16 model") {
  const vars& f = demo::facts();
  const double x = bf16(0.01);
  const sum_model m = sums(x, 10000);
  CHECK(f.at("q14_n") == "10000");
  CHECK(num(f.at("q14_x")) == 0.01);
  CHECK(rational_of_decimal(f.at("q14_x_bf16")) == rational(x));
  CHECK(bf16(num(f.at("q14_plain"))) == m.plain);
  CHECK(num(f.at("q14_exact")) == to_double(m.exact));
  CHECK(rational(to_double(m.exact)) == m.exact);
  CHECK(bf16(num(f.at("q14_kahan"))) == m.kahan);
  CHECK(static_cast<float>(num(f.at("q14_fp32"))) == m.fp32);
  CHECK(std::stoll(f.at("q14_stall_k")) == m.stall_k);
  CHECK(f.at("q14_plain_err") == rel(m.plain, m.exact));
  CHECK(f.at("q14_kahan_err") == rel(m.kahan, m.exact));
  CHECK(bf16(num(f.at("q14_toward_zero"))) == m.toward_zero);
  CHECK(num(f.at("q14_toward_zero")) < num(f.at("q14_plain")));  // "lower still"
  CHECK(f.at("bf16_p") == "8");
  // "every order gives the same running sums": the terms are all equal, so a permutation of them
  // is the same sequence; "summing more terms" leaves the stalled sum where it is.
  CHECK(sums(x, 20000).plain == m.plain);
  for (const language* l : both()) {
    INFO("lang: " << l->code());
    const question& q = l->questions().at(13);
    CHECK(q.number == 14);
    CHECK(q.answer == 2);  // C: Kahan
    const std::string text = flat(substitute(q.text, localized(f, *l)));
    CHECK(text.find(flat(localize_number(f.at("q14_plain"), *l))) != std::string::npos);
    CHECK(text.find(flat(localize_number(f.at("q14_exact"), *l))) != std::string::npos);
    CHECK_NOTHROW(substitute(q.explanation, localized(f, *l)));
    for (int w : {0, 1, 3}) CHECK_NOTHROW(substitute(q.why.at(w), localized(f, *l)));
  }
}

TEST_CASE("q14 try it: several counts and values against the bf16 model; bad input") {
  struct input {
    std::string line;
    std::int64_t n;
    double x;  // as typed; the model rounds it to bf16
  };
  const std::vector<input> good = {{"10000 0.01", 10000, 0.01}, {"4096 1", 4096, 1.0},     {"1 0.3", 1, 0.3},
                                   {"1000 -0.05", 1000, -0.05}, {"100000 1e-3", 100000, 1e-3}, {"300, 0.1", 300, 0.1}};
  for (const language* l : both()) {
    for (const input& in : good) {
      INFO("lang: " << l->code() << " input: " << in.line);
      const try_outcome o = try_it(14, *l, in.line);
      REQUIRE(o.ok);
      REQUIRE(o.result);
      const std::string text = rendered(*o.result);
      const double x = bf16(in.x);
      const sum_model m = sums(x, in.n);
      auto title = read(*l, "try.q14.title", text);
      CHECK(std::stoll(title["n"]) == in.n);
      CHECK(bf16(num(title["xb"])) == x);
      // The rows: sum, relative error, and for the plain sums where they stall.
      std::vector<std::string> stall_names;
      const std::string stall = pattern_of(l->raw("try.q14.stall_at"), stall_names);
      auto check_row = [&](const std::string& label, double model, bool stalls, double stall_v, std::int64_t stall_k,
                           bool is_fp32) {
        const auto c = row(text, label, 2);
        CHECK((is_fp32 ? static_cast<double>(static_cast<float>(num(c[0]))) : bf16(num(c[0]))) == model);
        CHECK(c[1] == rel(model, m.exact));
        std::smatch sm;
        const bool found = std::regex_search(text, sm, std::regex("(?:^| )" + escape(flat(label)) + " " + number + " " + number + " " + stall));
        CHECK(found == stalls);
        if (found && stalls) {
          CHECK(num(sm[3].str()) == stall_v);
          CHECK(std::stoll(sm[4].str()) == stall_k);
        }
      };
      check_row(l->get("q14.demo.plain"), m.plain, m.stalls, m.stall_v, m.stall_k, false);
      check_row(l->get("q14.demo.kahan"), m.kahan, false, 0, 0, false);
      // fp32: where hardware float stalls.
      float acc = 0;
      bool fstalls = false;
      std::int64_t fk = 0;
      for (std::int64_t k = 0; k < in.n; ++k) {
        const float next = acc + static_cast<float>(x);
        if (next == acc) {
          fstalls = true, fk = k;
          break;
        }
        acc = next;
      }
      check_row(l->get("q14.demo.fp32"), m.fp32, fstalls, acc, fk, true);
      CHECK(rational(to_double(m.exact)) == m.exact);  // n x bf16(x) is a double
      CHECK(num(read(*l, "try.q14.exact", text)["exact"]) == to_double(m.exact));
      CHECK(text.find(flat(l->get("try.q14.note"))) != std::string::npos);
    }
    // Zero, and an overflow: they must answer, without a stall for zero.
    for (const std::string edge : {"50 0", "3 3e38", "5 -0"}) {
      INFO("lang: " << l->code() << " edge: " << edge);
      try_outcome o;
      CHECK_NOTHROW(o = try_it(14, *l, edge));
      CHECK(o.ok);
    }
    {
      const try_outcome o = try_it(14, *l, "50 0");
      REQUIRE(o.result);
      std::vector<std::string> names;
      const std::string stall = pattern_of(l->raw("try.q14.stall_at"), names);
      CHECK_FALSE(std::regex_search(rendered(*o.result), std::regex(stall)));
    }
    for (const std::string bad : {"", "0 1", "100001 1", "2.5 1", "10 1e39", "a b", "10", "10 1 2", "-3 1", "10 nan"}) {
      INFO("lang: " << l->code() << " bad: '" << bad << "'");
      try_outcome o;
      CHECK_NOTHROW(o = try_it(14, *l, bad));
      CHECK_FALSE(o.ok);
      CHECK(o.error.find(l->get("try.q14.form")) != std::string::npos);
    }
  }
}
