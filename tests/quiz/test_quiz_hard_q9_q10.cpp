// The hard level's questions 9 (TF32 on Ampere) and 10 (E4M3 vs E5M2): every number the demos and
// "try it" print, read back from the rendered text in English and in French, against independent
// models written here:
//   Q9   the data regenerated from std::mt19937_64; TF32 as binary32 bits with the low 13 fraction
//        bits cleared (toward zero) or rounded off by integer arithmetic (nearest even); the exact
//        dot as a 64-bit integer; the A100 TF32 unit as a hand-written block FMA on Boost cpp_int
//        (Fasi, Higham, Mikaitis, Pranesh, PeerJ Comput. Sci. 7:e330, 2021: N = 4 products, the
//        terms cut toward zero onto 2^(emax - 24), summed exactly, the sum cut to 24 bits); the fp32
//        chain as hardware fmaf; the errors as exact rationals;
//   Q10  the 256 encodings of E4M3 and E5M2 decoded from the OCP FP8 v1.0 definitions written here;
//        TE's scale as a hardware float division; nearest-even rounding by search over the
//        decoded values, saturating; the errors as exact rationals.
// Compiled with -ffp-contract=off.
#include <doctest/doctest.h>

#include <boost/multiprecision/cpp_int.hpp>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <optional>
#include <random>
#include <regex>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "demos/demos.hpp"
#include "demos/facts.hpp"
#include "demos/hard/hard.hpp"
#include "tryit.hpp"
#include "claims_text.hpp"

using namespace mpq;
using boost::multiprecision::cpp_int;
using boost::multiprecision::cpp_rational;

namespace {

using claims::fields;
using claims::flat;
using claims::lang;
using claims::lines_of;

// ---- text -------------------------------------------------------------------------------------
/// The last k tokens of the first line that starts (after the indent) with `start` and contains
/// `contains` (and not `without`, when given).
std::vector<std::string> row(const std::vector<std::string>& lines, const std::string& start, std::size_t k,
                             const std::string& contains = "", const std::string& without = "") {
  for (const std::string& s : lines) {
    const std::string t = s.substr(std::min(s.find_first_not_of(' '), s.size()));
    if (t.rfind(start, 0) != 0 || t.find(contains) == std::string::npos) continue;
    if (!without.empty() && t.find(without) != std::string::npos) continue;
    const auto tok = fields(t);
    if (tok.size() < k) continue;
    return std::vector<std::string>(tok.end() - static_cast<std::ptrdiff_t>(k), tok.end());
  }
  INFO("row: " << start << " / " << contains);
  FAIL("no such row");
  return {};
}

/// The sentence of `key` (its template) found in the flattened text: its placeholders' values.
/// nullopt when the sentence is not there.
std::optional<std::map<std::string, std::string>> sentence(const language& l, const std::string& text,
                                                           const std::string& key) {
  const std::string t = flat(l.raw(key));
  std::string re;
  std::vector<std::string> names;
  for (std::size_t i = 0; i < t.size(); ++i) {
    if (t[i] == '{') {
      const std::size_t e = t.find('}', i);
      names.push_back(t.substr(i + 1, e - i - 1));
      re += "(\\S+)";
      i = e;
      continue;
    }
    if (std::string("\\^$.|?*+()[]{}").find(t[i]) != std::string::npos) re += '\\';
    re += t[i];
  }
  std::smatch m;
  if (!std::regex_search(text, m, std::regex(re))) return std::nullopt;
  std::map<std::string, std::string> out;
  for (std::size_t i = 0; i < names.size(); ++i) out[names[i]] = m[i + 1].str();
  return out;
}

std::map<std::string, std::string> need(const language& l, const std::string& text, const std::string& key) {
  auto s = sentence(l, text, key);
  INFO("key: " << key << "\ntext: " << text);
  REQUIRE(s.has_value());
  return *s;
}

double num(const std::string& s) {
  if (s.rfind("2^", 0) == 0) return std::ldexp(1.0, std::stoi(s.substr(2)));
  char* end = nullptr;
  const double v = std::strtod(s.c_str(), &end);
  REQUIRE(end == s.c_str() + s.size());
  return v;
}

std::string sci2(const cpp_rational& r) {  // what demo::sci prints: two significant digits
  const double v = static_cast<double>(r);
  return v == 0 ? "0" : fmt::format("{:.1e}", v);
}
std::string signed2(const cpp_rational& r) {
  const std::string s = sci2(abs(r));
  return r > 0 ? "+" + s : r < 0 ? "-" + s : s;
}

cpp_rational rat(double x) {  // exact
  int e = 0;
  const double m = std::frexp(x, &e);
  const auto i = static_cast<long long>(std::ldexp(m, 53));
  cpp_rational r(i);
  if (e - 53 >= 0) return r * cpp_rational(cpp_int(1) << (e - 53));
  return r / cpp_rational(cpp_int(1) << (53 - e));
}

/// Every rendered line's width in characters (UTF-8 code points).
void check_width(const std::string& text, int width) {
  for (const std::string& line : lines_of(text)) {
    int n = 0;
    for (const unsigned char c : line) n += (c & 0xC0) != 0x80;
    INFO(line);
    CHECK(n <= width);
  }
}

// ---- Q9 models ----------------------------------------------------------------------------------
std::uint32_t fbits(float x) { return std::bit_cast<std::uint32_t>(x); }
float ffrom(std::uint32_t b) { return std::bit_cast<float>(b); }
/// TF32 toward zero: the low 13 of binary32's 23 fraction bits cleared (sign-magnitude).
std::uint32_t tf32_tz(std::uint32_t b) { return b & ~0x1FFFu; }
/// TF32 nearest even, on the bits (a carry into the exponent is the next binade, or infinity);
/// NaN and infinity unchanged.
std::uint32_t tf32_rn(std::uint32_t b) {
  if ((b & 0x7F800000u) == 0x7F800000u) return b;
  return (b + 0xFFFu + ((b >> 13) & 1u)) & ~0x1FFFu;
}

constexpr int kS = 400;  // fixed point: values as integers times 2^-kS

cpp_int fixed(float x) {  // x >= 0, exact
  int e = 0;
  const double m = std::frexp(static_cast<double>(x), &e);
  const cpp_int i = static_cast<long long>(std::ldexp(m, 24));
  return i << (kS + e - 24);
}
int msb(const cpp_int& v) { return static_cast<int>(boost::multiprecision::msb(v)); }
double to_double(const cpp_int& v) {  // at most 24 significant bits: exact
  if (v == 0) return 0;
  const int m = msb(v);
  const int sh = std::max(0, m - 52);
  return std::ldexp(static_cast<double>(static_cast<long long>(v >> sh)), sh - kS);
}

/// The A100 TF32 unit on nonnegative TF32 data, written from Fasi et al. 2021: blocks of 4,
/// alignment exponent e(a) + e(b) for a product and e(c) for c, every term cut toward zero onto
/// 2^(emax - 24), the exact sum cut to 24 significant bits (binary32 toward zero); the next
/// block's c is that result.
double a100_tf32(const std::vector<float>& a, const std::vector<float>& b) {
  cpp_int c = 0;
  for (std::size_t s = 0; s < a.size(); s += 4) {
    std::vector<cpp_int> terms;
    std::vector<int> exps;
    for (std::size_t i = s; i < std::min(a.size(), s + 4); ++i) {
      if (a[i] == 0 || b[i] == 0) continue;
      terms.push_back((fixed(a[i]) * fixed(b[i])) >> kS);  // exact: both have >= 2^-kS granularity
      exps.push_back(std::ilogb(a[i]) + std::ilogb(b[i]));
    }
    if (c != 0) {
      terms.push_back(c);
      exps.push_back(msb(c) - kS);
    }
    if (terms.empty()) continue;
    const int emax = *std::max_element(exps.begin(), exps.end());
    const cpp_int unit = cpp_int(1) << (kS + emax - 24);
    cpp_int sum = 0;
    for (const cpp_int& t : terms) sum += t - t % unit;
    if (sum != 0) {
      const cpp_int u2 = cpp_int(1) << std::max(0, msb(sum) - 23);
      sum -= sum % u2;
    }
    c = sum;
  }
  return to_double(c);
}

struct q9_model {
  std::vector<float> a, b;
  cpp_rational exact;
};
q9_model q9_data(std::uint64_t seed) {
  q9_model m;
  std::mt19937_64 gen(seed + 9);
  cpp_int sum = 0;
  for (int i = 0; i < 4096; ++i) {
    const std::uint64_t A = gen() >> 40, B = gen() >> 40;
    m.a.push_back(std::ldexp(static_cast<float>(A), -24));
    m.b.push_back(std::ldexp(static_cast<float>(B), -24));
    sum += cpp_int(A) * B;
  }
  m.exact = cpp_rational(sum) / cpp_rational(cpp_int(1) << 48);
  return m;
}

cpp_rational exact_dot(const std::vector<float>& a, const std::vector<float>& b) {
  cpp_rational s = 0;
  for (std::size_t i = 0; i < a.size(); ++i) s += rat(a[i]) * rat(b[i]);
  return s;
}

std::string bits_text(std::uint32_t b) {
  std::string s;
  for (int i = 22; i >= 0; --i) {
    s += ((b >> i) & 1u) ? '1' : '0';
    if (i == 13) s += '|';
  }
  return s;
}

}  // namespace

TEST_CASE("Q9 demo: the TF32 dot product, its error split, and one input's bits, against independent models") {
  const std::uint64_t seed = demo::default_seed;
  const q9_model m = q9_data(seed);
  // The three models.
  std::vector<float> atz, btz, arn, brn;
  for (std::size_t i = 0; i < m.a.size(); ++i) {
    atz.push_back(ffrom(tf32_tz(fbits(m.a[i])))), btz.push_back(ffrom(tf32_tz(fbits(m.b[i]))));
    arn.push_back(ffrom(tf32_rn(fbits(m.a[i])))), brn.push_back(ffrom(tf32_rn(fbits(m.b[i]))));
  }
  const double tz = a100_tf32(atz, btz), rn = a100_tf32(arn, brn);
  float f32 = 0;
  for (std::size_t i = 0; i < m.a.size(); ++i) f32 = std::fmaf(m.a[i], m.b[i], f32);
  const cpp_rational in_tz = exact_dot(atz, btz), in_rn = exact_dot(arn, brn);
  const cpp_rational rel_tz = abs(rat(tz) - m.exact) / m.exact, rel_rn = abs(rat(rn) - m.exact) / m.exact,
                     rel_32 = abs(rat(f32) - m.exact) / m.exact;
  const std::uint32_t s32 = fbits(m.a[0]);

  for (const char* code : {"en", "fr"}) {
    const language& l = lang(code);
    CAPTURE(code);
    const page p = demo::hard_page(9, l, seed);
    const std::string wide = p.render(1000);
    const auto lines = lines_of(wide);
    const std::string text = flat(wide);
    CHECK(need(l, text, "q9.demo.title")["n"] == "4096");
    // The results table: result (shortest binary32) and relative error.
    auto r = row(lines, "ampere_tf32", 2, l.get("q9.demo.m.tf32"));
    CHECK(std::strtof(r[0].c_str(), nullptr) == static_cast<float>(tz));
    CHECK(r[1] == sci2(rel_tz));
    r = row(lines, "ampere_tf32", 2, l.get("q9.demo.m.tf32_rn"));
    CHECK(std::strtof(r[0].c_str(), nullptr) == static_cast<float>(rn));
    CHECK(r[1] == sci2(rel_rn));
    r = row(lines, "fp32-fma", 2, l.get("q9.demo.m.fp32"));
    CHECK(std::strtof(r[0].c_str(), nullptr) == f32);
    CHECK(r[1] == sci2(rel_32));
    r = row(lines, l.get("q9.demo.exact"), 2);
    CHECK(r[0] == fmt::format("{:.9g}", static_cast<double>(m.exact)));
    // The split: inputs, then products and sums, signed.
    r = row(lines, "ampere_tf32  " + l.get("q9.demo.short.tf32"), 2);
    CHECK(r[0] == signed2((in_tz - m.exact) / m.exact));
    CHECK(r[1] == signed2((rat(tz) - in_tz) / m.exact));
    r = row(lines, "ampere_tf32  " + l.get("q9.demo.short.tf32_rn"), 2);
    CHECK(r[0] == signed2((in_rn - m.exact) / m.exact));
    CHECK(r[1] == signed2((rat(rn) - in_rn) / m.exact));
    r = row(lines, "fp32-fma", 2, "", l.get("q9.demo.m.fp32"));
    CHECK(r[0] == "0");
    CHECK(r[1] == signed2((rat(f32) - m.exact) / m.exact));
    // The sentences, chosen by the numbers.
    const cpp_rational ie = abs(in_tz - m.exact) / m.exact, ae = abs(rat(tz) - in_tz) / m.exact;
    const bool inputs_main = ie > ae;
    CHECK(sentence(l, text, "q9.demo.inputs_main").has_value() == inputs_main);
    CHECK(sentence(l, text, "q9.demo.arith_main").has_value() == !inputs_main);
    auto s = need(l, text, inputs_main ? "q9.demo.inputs_main" : "q9.demo.arith_main");
    CHECK(s["inputs"] == sci2(ie));
    CHECK(s["arith"] == sci2(ae));
    if (inputs_main) {
      CHECK(s["n"] == "4");   // Fasi et al. 2021: the A100's TF32 block
      CHECK(s["f"] == "24");
    }
    const bool ratio = rel_tz > rel_32 && rel_32 > 0;
    CHECK(sentence(l, text, "q9.demo.ratio").has_value() == ratio);
    if (ratio) {
      s = need(l, text, "q9.demo.ratio");
      CHECK(s["x"] == fmt::format("{:.0f}", static_cast<double>(rel_tz / rel_32)));
      CHECK(s["tf32"] == sci2(rel_tz));
      CHECK(s["fp32"] == sci2(rel_32));
    }
    const bool better = rel_rn < rel_tz;
    s = need(l, text, better ? "q9.demo.nearest_better" : "q9.demo.nearest_not_better");
    CHECK(s["rn"] == sci2(rel_rn));
    if (better) CHECK(in_tz <= m.exact);  // "the input errors all push the sum down"
    // One input's bits.
    s = need(l, text, "q9.demo.sample");
    CHECK(s["kept"] == "10");
    CHECK(s["dropped"] == "13");
    r = row(lines, "fp32", 3, "|", l.get("q9.demo.m.fp32"));
    CHECK(r[0] == bits_text(s32));
    CHECK(std::strtof(r[1].c_str(), nullptr) == m.a[0]);
    CHECK(r[2] == "0");
    for (const auto& [label, b] : {std::pair{l.get("q9.demo.tf32_tz"), tf32_tz(s32)}, std::pair{l.get("q9.demo.tf32_rn"), tf32_rn(s32)}}) {
      r = row(lines, label, 3);
      CHECK(r[0] == bits_text(b));
      CHECK(r[0].substr(11) == "0000000000000");
      // The shortest TF32 text: the TF32 value is the one nearest to it (within half a TF32 ulp).
      const double v = ffrom(b), d = num(r[1]);
      CHECK(std::fabs(d - v) <= std::ldexp(1.0, std::ilogb(v) - 11));
      CHECK(r[2] == sci2(abs(rat(v) - rat(m.a[0])) / rat(m.a[0])));
    }
    check_width(p.render(40), 40);
    check_width(p.render(80), 80);
  }
}

TEST_CASE("Q9 facts: TF32 and FP32 precisions, exponent bits, the A100 block") {
  const vars& v = demo::facts();
  CHECK(v.at("q9_tf32_p") == "11");       // NVIDIA A100 whitepaper: 10 explicit fraction bits
  CHECK(v.at("q9_fp32_p") == "24");       // IEEE 754 binary32
  CHECK(v.at("q9_tf32_frac") == "10");
  CHECK(v.at("q9_fp32_frac") == "23");
  CHECK(v.at("q9_dropped") == "13");
  CHECK(v.at("q9_exp_bits") == "8");
  CHECK(v.at("q9_tf32_bits") == "19");
  CHECK(v.at("q9_block") == "4");         // Fasi et al. 2021
  CHECK(v.at("q9_tf32_unit_roundoff") == "2^-11");
}

TEST_CASE("Q9 try it: a number in fp32 and in TF32 (toward zero, nearest), bits and errors") {
  for (const char* code : {"en", "fr"}) {
    const language& l = lang(code);
    for (const std::string in : {"0.1", "-3.14159", "1", "1e-40", "1e-44", "3.4e38", "3.4028235e38", "1e39", "0",
                                 "65504.123", "  2.5e-7 "}) {
      CAPTURE(code);
      CAPTURE(in);
      const try_outcome o = try_it(9, l, in);
      REQUIRE(o.ok);
      const auto lines = lines_of(o.result->render(1000));
      const double x = std::strtod(in.c_str(), nullptr);
      const float x32 = std::strtof(in.c_str(), nullptr);  // glibc: correctly rounded
      const std::uint32_t b32 = fbits(x32);
      for (const auto& [label, b] : {std::pair{std::string("fp32"), b32}, std::pair{l.get("q9.demo.tf32_tz"), tf32_tz(b32)},
                                     std::pair{l.get("q9.demo.tf32_rn"), tf32_rn(b32)}}) {
        const auto r = row(lines, label, 3, "", label == "fp32" ? "tf32" : "");
        const float v = ffrom(b);
        CHECK(std::strtof(r[1].c_str(), nullptr) == v);
        CHECK(std::signbit(std::strtof(r[1].c_str(), nullptr)) == std::signbit(v));
        if (std::isinf(v)) {
          CHECK(r[0] == "-");
          CHECK(r[2] == "-");
          continue;
        }
        CHECK(r[0] == bits_text(b));
        CHECK(r[2] == (x == 0 ? std::string("-") : sci2(abs(rat(v) - rat(x)) / abs(rat(x)))));
      }
      check_width(o.result->render(40), 40);
    }
    for (const std::string bad : {"", "abc", "1 2", "nan", "inf", "1e999", "0x"}) {
      const try_outcome o = try_it(9, l, bad);
      CHECK_FALSE(o.ok);
      CHECK(o.error.find(l.get("try.q9.form")) != std::string::npos);
    }
  }
}

// ---- Q10 models ---------------------------------------------------------------------------------
namespace {

/// One OCP FP8 format from its definition (OCP 8-bit Floating Point Specification v1.0): the
/// positive finite values in encoding order (codes 0x00..), and the code of each.
struct fp8_def {
  const char* name;
  int ebits, mbits, bias;
  bool ieee;  ///< E5M2: exponent all ones is inf/NaN; E4M3: only S.1111.111 is NaN
  std::vector<double> values;  ///< positive finite values, by code 0, 1, ...
  std::vector<double> extended;  ///< values, then the next one past max as if the range went on
  double max() const { return values.back(); }
};

fp8_def make_fp8(const char* name, int ebits, int mbits, int bias, bool ieee) {
  fp8_def f{name, ebits, mbits, bias, ieee, {}, {}};
  for (int code = 0; code < (1 << (ebits + mbits)); ++code) {
    const int e = code >> mbits, m = code & ((1 << mbits) - 1);
    const int emask = (1 << ebits) - 1;
    if (ieee && e == emask) break;
    if (!ieee && e == emask && m == (1 << mbits) - 1) break;
    const double v = e == 0 ? std::ldexp(m, 1 - bias - mbits) : std::ldexp((1 << mbits) + m, e - bias - mbits);
    f.values.push_back(v);
  }
  f.extended = f.values;
  f.extended.push_back(f.max() + (f.max() - f.values[f.values.size() - 2]));
  return f;
}
const fp8_def e4m3 = make_fp8("E4M3", 4, 3, 7, false);
const fp8_def e5m2 = make_fp8("E5M2", 5, 2, 15, true);

enum class cls { zero, subnormal, normal, saturated };
struct rounded {
  double v;
  cls c;
};
/// |p| rounded to nearest even in f, saturating (the value past max, max + its ulp, competes as in
/// IEEE 754-2019 §7.4's unbounded-exponent rounding; choosing it means overflow, clamped to max).
rounded round_fp8(const fp8_def& f, const cpp_rational& p) {
  const std::vector<double>& vals = f.extended;
  const cpp_rational a = abs(p);
  // i: the largest value <= a, by bisection with exact comparisons (vals ascends from 0 <= a).
  const auto above = std::partition_point(vals.begin(), vals.end(), [&](double v) { return rat(v) <= a; });
  const auto i = static_cast<std::size_t>(above - vals.begin()) - 1;
  std::size_t pick = i;
  if (i + 1 < vals.size() && rat(vals[i]) != a) {
    const cpp_rational dl = a - rat(vals[i]), du = rat(vals[i + 1]) - a;
    pick = du < dl ? i + 1 : dl < du ? i : (i % 2 == 0 ? i : i + 1);
  }
  if (a > rat(vals.back())) pick = vals.size() - 1;
  const int normal_from = 1 << f.mbits;
  if (pick == vals.size() - 1) return {f.max(), cls::saturated};
  return {vals[pick], pick == 0 ? cls::zero : static_cast<int>(pick) < normal_from ? cls::subnormal : cls::normal};
}

std::string pct(std::int64_t k) { return fmt::format("{}.{:02d}%", k / 100, k % 100); }  // n = 10000

}  // namespace

TEST_CASE("Q10 demo: the FP8 limits and the gradients under current scaling, against the OCP definitions") {
  // The limits, from the enumerated encodings.
  struct lim {
    double max, min_normal, min_sub;
    int p, binades;
  };
  auto limits = [](const fp8_def& f) {
    std::vector<int> ex;
    for (std::size_t i = 1; i < f.values.size(); ++i) ex.push_back(std::ilogb(f.values[i]));
    ex.erase(std::unique(ex.begin(), ex.end()), ex.end());
    return lim{f.max(), f.values[static_cast<std::size_t>(1) << f.mbits], f.values[1], f.mbits + 1, static_cast<int>(ex.size())};
  };
  const lim l4 = limits(e4m3), l5 = limits(e5m2);
  CHECK(l4.max == 448);
  CHECK(l5.max == 57344);
  // The gradients as a float tensor, TE's scale, each value rounded.
  const auto grads = demo::make_gradients(demo::default_seed);
  std::vector<float> g;
  for (const double x : grads.values) g.push_back(static_cast<float>(x));
  float amax = 0;
  for (const float x : g) amax = std::max(amax, x);
  struct outcome {
    float scale;
    std::int64_t n[4] = {0, 0, 0, 0};
    float kept = INFINITY, lost = 0;
    cpp_rational max_rel = 0;
  };
  auto run = [&](const fp8_def& f) {
    outcome o;
    o.scale = static_cast<float>(f.max()) / amax;  // TE compute_scale_from_amax: one float division
    for (const float x : g) {
      const cpp_rational p = rat(x) * rat(o.scale);
      const rounded q = round_fp8(f, p);
      ++o.n[static_cast<int>(q.c)];
      if (q.c == cls::zero) o.lost = std::max(o.lost, x);
      else o.kept = std::min(o.kept, x);
      if (p >= rat(f.values[static_cast<std::size_t>(1) << f.mbits])) o.max_rel = std::max(o.max_rel, cpp_rational(abs(rat(q.v) - p) / p));
    }
    return o;
  };
  const outcome o4 = run(e4m3), o5 = run(e5m2);
  CHECK(o4.lost < o4.kept);  // the zeros are exactly the smallest gradients
  CHECK(o5.lost < o5.kept);

  for (const char* code : {"en", "fr"}) {
    const language& l = lang(code);
    CAPTURE(code);
    const page p = demo::hard_page(10, l, demo::default_seed);
    const std::string wide = p.render(1000);
    const auto lines = lines_of(wide);
    const std::string text = flat(wide);
    for (const auto& [name, li] : {std::pair{"E4M3", l4}, std::pair{"E5M2", l5}}) {
      const auto r = row(lines, name, 5, "", "(");
      CHECK(num(r[0]) == li.max);
      CHECK(num(r[1]) == li.min_normal);
      CHECK(num(r[2]) == li.min_sub);
      CHECK(r[3] == std::to_string(li.p));
      CHECK(r[4] == std::to_string(li.binades));
    }
    auto s = need(l, text, "q10.demo.limits");
    CHECK(s["b4"] == std::to_string(l4.binades));
    CHECK(s["b5"] == std::to_string(l5.binades));
    CHECK(s["p4"] == std::to_string(l4.p));
    CHECK(s["p5"] == std::to_string(l5.p));
    CHECK(l5.p == l4.p - 1);  // "one significant bit"
    CHECK(num(s["u4"]) == std::ldexp(1.0, -l4.p));
    CHECK(num(s["u5"]) == std::ldexp(1.0, -l5.p));
    s = need(l, text, "q10.demo.grads");
    CHECK(s["n"] == "10000");
    CHECK(s["lo"] == "-40");
    CHECK(s["hi"] == "0");
    CHECK(std::strtof(s["amax"].c_str(), nullptr) == amax);
    for (const auto& [name, o] : {std::pair{"E4M3", o4}, std::pair{"E5M2", o5}}) {
      const auto r = row(lines, name, 7, "(", "binades");  // not the limits sentence
      CHECK(std::strtof(r[0].c_str(), nullptr) == o.scale);
      CHECK(r[1] == std::to_string(o.n[0]));
      CHECK(r[2] == "(" + pct(o.n[0]) + ")");
      CHECK(r[3] == std::to_string(o.n[1]));
      CHECK(r[4] == "(" + pct(o.n[1]) + ")");
      CHECK(r[5] == std::to_string(o.n[2] + o.n[3]));  // a clamped value is stored as max: normal
      CHECK(r[6] == "(" + pct(o.n[2] + o.n[3]) + ")");
    }
    REQUIRE(o4.n[0] > 0);
    REQUIRE(o5.n[0] > 0);
    const bool fewer = o5.n[0] < o4.n[0];
    CHECK(sentence(l, text, "q10.demo.zeros_fewer").has_value() == fewer);
    s = need(l, text, fewer ? "q10.demo.zeros_fewer" : "q10.demo.zeros_not_fewer");
    CHECK(s["z4"] == std::to_string(o4.n[0]));
    CHECK(s["z5"] == std::to_string(o5.n[0]));
    CHECK(s["pz4"] == pct(o4.n[0]));
    CHECK(s["pz5"] == pct(o5.n[0]));
    CHECK(std::strtof(s["lost4"].c_str(), nullptr) == o4.lost);
    CHECK(std::strtof(s["lost5"].c_str(), nullptr) == o5.lost);
    s = need(l, text, "q10.demo.kept");
    CHECK(std::strtof(s["kept4"].c_str(), nullptr) == o4.kept);
    CHECK(std::strtof(s["kept5"].c_str(), nullptr) == o5.kept);
    const bool price = o5.max_rel > o4.max_rel;
    s = need(l, text, price ? "q10.demo.price" : "q10.demo.price_plain");
    CHECK(s["e4"] == sci2(o4.max_rel));
    CHECK(s["e5"] == sci2(o5.max_rel));
    CHECK(num(s["u4"]) == std::ldexp(1.0, -l4.p));
    CHECK(num(s["u5"]) == std::ldexp(1.0, -l5.p));
    CHECK(o4.max_rel <= rat(std::ldexp(1.0, -l4.p)));
    CHECK(o5.max_rel <= rat(std::ldexp(1.0, -l5.p)));
    CHECK(sentence(l, text, "q10.demo.saturated").has_value() == (o4.n[3] + o5.n[3] > 0));
    check_width(p.render(40), 40);
    check_width(p.render(80), 80);
  }
}

TEST_CASE("Q10 facts: the OCP FP8 limits quoted by the question") {
  const vars& v = demo::facts();
  CHECK(num(v.at("q10_e4m3_max")) == e4m3.max());
  CHECK(num(v.at("q10_e5m2_max")) == e5m2.max());
  CHECK(num(v.at("q10_e4m3_min_sub")) == e4m3.values[1]);
  CHECK(num(v.at("q10_e5m2_min_sub")) == e5m2.values[1]);
  CHECK(num(v.at("q10_e4m3_min_normal")) == e4m3.values[8]);
  CHECK(num(v.at("q10_e5m2_min_normal")) == e5m2.values[4]);
  CHECK(v.at("q10_e4m3_p") == "4");
  CHECK(v.at("q10_e5m2_p") == "3");
  CHECK(v.at("q10_e4m3_binades") == "18");  // 2^-9 .. 2^8
  CHECK(v.at("q10_e5m2_binades") == "32");  // 2^-16 .. 2^15
  CHECK(num(v.at("q10_e5m2_u")) == 2 * num(v.at("q10_e4m3_u")));  // "twice"
}

TEST_CASE("Q10 try it: x (x scale) into E4M3 and E5M2, class and error, saturating") {
  for (const char* code : {"en", "fr"}) {
    const language& l = lang(code);
    for (const std::string in : {"1e-5", "1e-5 448", "1000", "460", "464", "465", "-500", "60000", "61440", "70000",
                                 "0", "-0", "1e-12 1", "3e-6, 1000", "0.0009765625", "1 1e-300"}) {
      CAPTURE(code);
      CAPTURE(in);
      const try_outcome o = try_it(10, l, in);
      REQUIRE(o.ok);
      const auto lines = lines_of(o.result->render(1000));
      // x and scale as binary64 holds them (strtod: correctly rounded).
      std::vector<double> xs;
      std::string cur;
      for (const char c : in + " ")
        if (c == ' ' || c == ',') {
          if (!cur.empty()) xs.push_back(std::strtod(cur.c_str(), nullptr));
          cur.clear();
        } else {
          cur += c;
        }
      if (xs.size() == 1) xs.push_back(1);
      const cpp_rational p = rat(xs[0]) * rat(xs[1]);
      for (const fp8_def* f : {&e4m3, &e5m2}) {
        const rounded q = round_fp8(*f, p);
        const auto r = row(lines, f->name, 2, "", "=");
        const std::string cls_key = q.c == cls::zero ? "try.q10.zero" : q.c == cls::subnormal ? "try.q10.subnormal"
                                    : q.c == cls::normal ? "try.q2.normal" : "try.q10.saturated";
        const auto line = std::find_if(lines.begin(), lines.end(), [&](const std::string& s) {
          return s.find(f->name) != std::string::npos && s.find("=") == std::string::npos;
        });
        REQUIRE(line != lines.end());
        CHECK(line->find(unlocalize(l.get(cls_key))) != std::string::npos);
        const std::string stored = fields(*line)[1];
        CHECK(std::fabs(num(stored)) == q.v);  // in full: every digit
        CHECK(r[1] == (p == 0 ? std::string("-") : sci2(abs(rat(q.v) - abs(p)) / abs(p))));
      }
      check_width(o.result->render(40), 40);
    }
    for (const std::string bad : {"", "abc", "1 2 3", "1 0", "1 -2", "nan", "1e999", "1 inf"}) {
      const try_outcome o = try_it(10, l, bad);
      CHECK_FALSE(o.ok);
      CHECK(o.error.find(l.get("try.q10.form")) != std::string::npos);
    }
  }
}
