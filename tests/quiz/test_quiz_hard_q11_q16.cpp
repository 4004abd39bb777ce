// The hard level's questions 11 (delayed scaling) and 16 (block scaling): every number the demos
// and "try it" print is recomputed here by small models written from the formats' and recipes'
// definitions, not by the library functions that printed them:
//   - FP8 E4M3 (bias 7, 3 fraction bits, 0x7F NaN, max 448) and FP4 E2M1 (bias 1, one fraction
//     bit, max 6) as value sets enumerated from their definitions (numerics-facts.md §1, §7);
//     rounding to nearest, ties to the even encoding, saturating; an E4M3 cast saturates (is
//     counted as clamped) when |x * scale| > 464, the midpoint between 448 and the 480 the
//     exponent range lacks (IEEE 754-2019 §7.4);
//   - TE's scales: fp8_max / amax rounded to binary32, computed as a binary64 quotient rounded to
//     float (innocuous double rounding: 53 >= 2 * 24 + 2); the delayed recipe's history is the
//     max of the previous steps' amaxes, the first step's scale 1;
//   - MXFP8 (TE's round-up rule): X = the smallest power of two with 448 X >= amax of the 32-value
//     block; NVFP4: T = amax / (6 * 448) in binary32, S = E4M3(amax_block / (6 T)), elements
//     E2M1(x / (S T)). Every quotient here is of binary32 numbers, at least 2^-29 (relative) from
//     any midpoint of a 4- or 5-bit format unless equal to it, so rounding it first to binary64
//     cannot move it onto one.
// The printed text is parsed in English and French (unlocalize) and its numbers compared with the
// models'. Compiled with -ffp-contract=off.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <random>
#include <regex>
#include <string>
#include <vector>

#include "claims_text.hpp"
#include "demos/hard/hard.hpp"
#include "tryit.hpp"

using namespace mpq;

namespace {

using claims::fields;
using claims::flat;
using claims::lang;
using claims::lines_of;

// ---- the formats, from their definitions ------------------------------------------------------

/// The non-negative finite values of a small float format with `e` exponent bits, `m` fraction
/// bits and `bias`, in encoding order (which is value order); `nan_top`: the all-ones encoding is a
/// NaN (E4M3), else every encoding is finite (E2M1).
std::vector<double> value_set(int e, int m, int bias, bool nan_top) {
  std::vector<double> v;
  const int codes = 1 << (e + m);
  for (int c = 0; c < codes - (nan_top ? 1 : 0); ++c) {
    const int ex = c >> m, fr = c & ((1 << m) - 1);
    const double f = static_cast<double>(fr) / static_cast<double>(1 << m);
    v.push_back(ex == 0 ? std::ldexp(f, 1 - bias) : std::ldexp(1 + f, ex - bias));
  }
  return v;
}
const std::vector<double>& e4m3() { static const auto v = value_set(4, 3, 7, true); return v; }
const std::vector<double>& e2m1() { static const auto v = value_set(2, 1, 1, false); return v; }

/// |p| rounded to nearest, ties to the even encoding, into `set`; beyond its max, the max
/// (saturation). Returns the signed value.
double round_to(const std::vector<double>& set, double p) {
  const double a = std::fabs(p);
  double r = set.back();
  for (std::size_t i = 0; i + 1 < set.size(); ++i) {
    if (a > set[i + 1]) continue;
    const double lo = set[i], hi = set[i + 1], mid = (lo + hi) / 2;  // exact: small formats
    r = a < mid ? lo : a > mid ? hi : (i % 2 == 0 ? lo : hi);
    break;
  }
  return p < 0 ? -r : r;
}
constexpr double e4m3_max = 448, e4m3_saturates_above = 464;

float f32_scale(float amax) { return static_cast<float>(448.0 / static_cast<double>(amax)); }

struct errs {
  std::size_t values = 0, zero = 0, nonzero = 0;
  double sum_sq = 0;
  void add(double x, double q) {
    ++values;
    if (x == 0) return;
    if (q == 0) ++zero;
    const double r = std::fabs(q - x) / std::fabs(x);
    sum_sq += r * r;
    ++nonzero;
  }
  double rms() const { return nonzero ? std::sqrt(sum_sq / static_cast<double>(nonzero)) : 0.0; }
};

// ---- reading the printed text -------------------------------------------------------------------

/// The page at a width so large that every paragraph and table row is one line, unlocalized, with
/// no-break spaces made plain spaces.
std::vector<std::string> wide_lines(const page& p) {
  std::string s = unlocalize(p.render(100000));
  for (std::size_t i = 0; (i = s.find("\u00a0", i)) != std::string::npos;) s.replace(i, 2, " ");
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start < s.size()) {
    const std::size_t nl = s.find('\n', start);
    std::string line = s.substr(start, nl - start);
    line.erase(0, line.find_first_not_of(' ') == std::string::npos ? line.size() : line.find_first_not_of(' '));
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out.push_back(line);
    start = nl == std::string::npos ? s.size() : nl + 1;
  }
  return out;
}


/// A printed "3.1e-02" (two significant digits) against the model's value: within half a unit of
/// the last digit (and a hair more for the model's own rounding); "0" only for an exact 0.
void check_sci(const std::string& printed, double model) {
  INFO(printed, " vs ", model);
  if (printed == "0") {
    CHECK(model == 0);
    return;
  }
  const double v = std::strtod(printed.c_str(), nullptr);
  const double unit = std::pow(10.0, std::floor(std::log10(std::fabs(v))) - 1);
  CHECK(std::fabs(v - model) <= 0.5 * unit * (1 + 1e-9));
}

float as_float(const std::string& s) { return std::strtof(s.c_str(), nullptr); }

/// The line printed from template `key`: the placeholders' texts, in order (empty when no line
/// matches). The template's literal parts must appear as they are, the placeholders as any text.
std::vector<std::string> match_line(const std::vector<std::string>& lines, const language& l, const std::string& key) {
  std::string t = l.raw(key);
  for (std::size_t i = 0; (i = t.find("\u00a0", i)) != std::string::npos;) t.replace(i, 2, " ");
  std::string re = "^";
  for (std::size_t i = 0; i < t.size();) {
    if (t[i] == '{') {
      re += "(.+?)";
      i = t.find('}', i) + 1;
      continue;
    }
    if (std::string("\\^$.|?*+()[]{}").find(t[i]) != std::string::npos) re += '\\';
    re += t[i++];
  }
  re += "$";
  const std::regex rx(re);
  for (const std::string& line : lines) {
    std::smatch m;
    if (std::regex_match(line, m, rx)) {
      std::vector<std::string> out;
      for (std::size_t i = 1; i < m.size(); ++i) out.push_back(m[i].str());
      return out;
    }
  }
  return {};
}
double num(const std::string& s) { return std::strtod(s.c_str(), nullptr); }

void check_width(const page& p, int width) {
  const std::string s = p.render(width);
  std::size_t start = 0;
  while (start < s.size()) {
    const std::size_t nl = s.find('\n', start);
    const std::string line = s.substr(start, nl - start);
    INFO(line);
    CHECK(display_width(line) <= width);
    start = nl == std::string::npos ? s.size() : nl + 1;
  }
}

// ---- Q11's model --------------------------------------------------------------------------------

struct q11_model_step {
  float hist = 0, scale = 1, amax = 0, cur_scale = 1;
  std::size_t sat = 0, zero = 0, cur_sat = 0;
  double rms = 0, cur_rms = 0;
};

/// One E4M3 cast of x at `scale`: the value back (in binary64, as x * scale rounded, over scale),
/// whether it saturated.
double cast_back(float x, float scale, bool& saturated) {
  const double p = static_cast<double>(x) * static_cast<double>(scale);  // exact
  saturated = std::fabs(p) > e4m3_saturates_above;
  return round_to(e4m3(), p) / static_cast<double>(scale);
}

q11_model_step model_step(const std::vector<float>& x, float scale) {
  q11_model_step m;
  m.scale = scale;
  errs d, c;
  for (const float v : x) m.amax = std::max(m.amax, std::fabs(v));
  m.cur_scale = m.amax > 0 ? f32_scale(m.amax) : 1.0f;
  for (const float v : x) {
    bool s = false;
    d.add(v, cast_back(v, scale, s));
    m.sat += s;
    c.add(v, cast_back(v, m.cur_scale, s));
    m.cur_sat += s;
  }
  m.zero = d.zero;
  m.rms = d.rms();
  m.cur_rms = c.rms();
  return m;
}

}  // namespace

// ================================ Q11 ============================================================

TEST_CASE("Q11 demo: delayed scaling's scales, saturations and errors against a hand model") {
  const demo::q11_result r = demo::run_q11(demo::default_seed);
  REQUIRE(r.rows.size() == r.steps);
  REQUIRE(r.jump_step >= 2);
  REQUIRE(r.jump_step < r.steps);
  CHECK(r.fp8_max == e4m3_max);
  CHECK(r.saturate_above == e4m3_saturates_above);
  CHECK(r.history_len == 1024);  // TE DelayedScaling's amax_history_len default (numerics-facts.md §7)
  // The tensors, regenerated from the recipe the header states.
  std::mt19937_64 gen(r.seed);
  std::vector<q11_model_step> model;
  float hist = 0;
  for (std::size_t t = 1; t <= r.steps; ++t) {
    const float a = t < r.jump_step ? 1.0f : r.factor;
    std::vector<float> x(r.n);
    for (float& v : x) v = a * static_cast<float>(static_cast<double>(static_cast<std::int64_t>(gen() >> 40) * 2 - 16777216) / 16777216.0);
    CHECK(x == r.x[t - 1]);
    q11_model_step m = model_step(x, t == 1 ? 1.0f : f32_scale(hist));
    m.hist = hist;
    hist = std::max(hist, m.amax);
    model.push_back(m);
    const demo::q11_step& s = r.rows[t - 1];
    CHECK(s.has_history == (t > 1));
    if (t > 1) CHECK(s.history_amax == m.hist);
    CHECK(s.scale == m.scale);
    CHECK(s.amax == m.amax);
    CHECK(s.saturated == m.sat);
    CHECK(s.zero == m.zero);
    CHECK(s.rms_rel == doctest::Approx(m.rms).epsilon(1e-12));
    CHECK(s.cur_scale == m.cur_scale);
    CHECK(s.cur_saturated == m.cur_sat);
    CHECK(s.cur_rms_rel == doctest::Approx(m.cur_rms).epsilon(1e-12));
  }
  // The story the text tells holds for this seed: the jump saturates under delayed scaling, not
  // under current scaling, and the next step adapts.
  CHECK(model[r.jump_step - 1].sat > 0);
  CHECK(model[r.jump_step - 1].cur_sat == 0);
  CHECK(model[r.jump_step].sat == 0);
  CHECK(model[r.jump_step - 1].rms > model[r.jump_step - 1].cur_rms);

  for (const char* code : {"en", "fr"}) {
    CAPTURE(code);
    const language& l = lang(code);
    const page p = demo::page_q11(r, l);
    const std::vector<std::string> lines = wide_lines(p);
    // The table: one line per step, 9 fields.
    std::size_t seen = 0;
    for (const std::string& line : lines) {
      const auto f = fields(line);
      if (f.size() != 9 || f[0].find_first_not_of("0123456789") != std::string::npos) continue;
      const std::size_t t = std::stoul(f[0]);
      REQUIRE(t >= 1);
      REQUIRE(t <= r.steps);
      const q11_model_step& m = model[t - 1];
      if (t == 1) CHECK(f[1] == "-");
      else CHECK(as_float(f[1]) == m.hist);
      CHECK(as_float(f[2]) == m.scale);
      CHECK(as_float(f[3]) == m.amax);
      CHECK(std::stoul(f[4]) == m.sat);
      check_sci(f[5], m.rms);
      CHECK(as_float(f[6]) == m.cur_scale);
      CHECK(std::stoul(f[7]) == m.cur_sat);
      check_sci(f[8], m.cur_rms);
      ++seen;
    }
    CHECK(seen == r.steps);
    // Step 1 uses the initial scale 1.
    CHECK(match_line(lines, l, "q11.demo.first") == std::vector<std::string>{"1"});
    // The jump: step, amax, scale, history amax, saturated, n, 464, 448, error, current scale,
    // current saturated, current error.
    const q11_model_step& j = model[r.jump_step - 1];
    const auto jn = match_line(lines, l, j.sat ? "q11.demo.jump" : "q11.demo.jump_none");
    REQUIRE(jn.size() == (j.sat ? 12u : 8u));
    CHECK(num(jn[0]) == static_cast<double>(r.jump_step));
    CHECK(as_float(jn[1]) == j.amax);
    CHECK(as_float(jn[2]) == j.scale);
    CHECK(as_float(jn[3]) == j.hist);
    CHECK(num(jn[4]) == static_cast<double>(j.sat));
    CHECK(num(jn[5]) == static_cast<double>(r.n));
    CHECK(num(jn[6]) == e4m3_saturates_above);
    CHECK(num(jn[7]) == e4m3_max);
    check_sci(jn[8], j.rms);
    CHECK(as_float(jn[9]) == j.cur_scale);
    CHECK(num(jn[10]) == static_cast<double>(j.cur_sat));
    check_sci(jn[11], j.cur_rms);
    // The next step: the history holds the jump; the sentence says whether anything saturates.
    const q11_model_step& nx = model[r.jump_step];
    const auto nn = match_line(lines, l, nx.sat ? "q11.demo.next_sat" : "q11.demo.next");
    REQUIRE(nn.size() == (nx.sat ? 5u : 4u));
    CHECK(num(nn[0]) == static_cast<double>(r.jump_step + 1));
    CHECK(as_float(nn[1]) == nx.hist);
    CHECK(as_float(nn[2]) == nx.scale);
    CHECK(num(nn.back()) == 1024);
    // The title's parameters: n, last calm step, jump, factor, max, history length.
    const auto tn = match_line(lines, l, "q11.demo.title");
    REQUIRE(tn.size() == 6);
    CHECK(num(tn[0]) == static_cast<double>(r.n));
    CHECK(num(tn[1]) == static_cast<double>(r.jump_step - 1));
    CHECK(num(tn[2]) == 16);
    CHECK(num(tn[3]) == static_cast<double>(r.jump_step));
    CHECK(num(tn[4]) == e4m3_max);
    CHECK(num(tn[5]) == 1024);
    // Narrow terminals.
    check_width(p, 40);
    check_width(p, 80);
  }
}

TEST_CASE("Q11 try it: the scale, the E4M3 value and the error of the learner's values") {
  const std::vector<std::pair<float, float>> good = {
      {1, 16}, {2.5f, 0.001f}, {1, 1}, {448, -500}, {1, 0}, {1e-30f, 1}, {3e38f, 1e-45f}, {16, 15.9f},
      {1, 1.0357f}, {1, 1.0358f}, {0.001f, -2}, {7, 7}};
  for (const char* code : {"en", "fr"}) {
    CAPTURE(code);
    const language& l = lang(code);
    for (const auto& [a, x] : good) {
      char buf[96];
      std::snprintf(buf, sizeof buf, "%.9g %.9g", static_cast<double>(a), static_cast<double>(x));
      CAPTURE(buf);
      const try_outcome o = try_it(11, l, buf);
      REQUIRE(o.ok);
      REQUIRE(o.result.has_value());
      const std::vector<std::string> lines = wide_lines(*o.result);
      // Delayed: the scale from a; current: from |x| (1 when x is 0, TE's scale for an amax of 0).
      const float sd = std::min(f32_scale(a), 3.4028235e38f);
      const float sc = x == 0 ? 1.0f : (std::isinf(f32_scale(std::fabs(x))) ? 3.4028235e38f : f32_scale(std::fabs(x)));
      const std::string names[2] = {l.get("q11.demo.group.delayed"), l.get("q11.demo.group.current")};
      const float amaxes[2] = {a, std::fabs(x)};
      const float scales[2] = {sd, sc};
      for (int k = 0; k < 2; ++k) {
        CAPTURE(k);
        std::string row;
        for (const std::string& line : lines)
          if (line.rfind(names[k] + " ", 0) == 0 && fields(line.substr(names[k].size())).size() == 6)
            row = line.substr(names[k].size());
        const auto f = fields(row);
        REQUIRE(f.size() == 6);
        CHECK(as_float(f[0]) == amaxes[k]);
        CHECK(as_float(f[1]) == scales[k]);
        const double p = static_cast<double>(x) * static_cast<double>(scales[k]);
        CHECK(std::strtod(f[2].c_str(), nullptr) == p);
        const double q8 = round_to(e4m3(), p);
        // The shortest decimal that identifies the E4M3 number: it rounds back to q8.
        CHECK(round_to(e4m3(), std::strtod(f[3].c_str(), nullptr)) == q8);
        const double back = q8 / static_cast<double>(scales[k]);
        CHECK(std::strtod(f[4].c_str(), nullptr) == back);
        if (x == 0) CHECK(f[5] == "-");
        else check_sci(f[5], std::fabs(back - static_cast<double>(x)) / std::fabs(static_cast<double>(x)));
        // The sentence for this cast, chosen by the model's class: who, x * scale, then (when
        // saturated) 464, 448 and x back, or (rounded) x back.
        const bool sat = std::fabs(p) > e4m3_saturates_above;
        const char* key = sat ? "try.q11.saturated" : (x != 0 && q8 == 0) ? "try.q11.zero" : q8 == p ? "try.q11.exact" : "try.q11.rounded";
        std::vector<std::string> c;
        for (const std::string& line : lines) {
          const std::vector<std::string> one{line};
          auto m = match_line(one, l, key);
          if (!m.empty() && m[0] == names[k]) c = m;
        }
        REQUIRE(!c.empty());
        CHECK(num(c[1]) == p);
        if (sat) {
          REQUIRE(c.size() == 5);
          CHECK(num(c[2]) == e4m3_saturates_above);
          CHECK(num(c[3]) == e4m3_max);
          CHECK(num(c[4]) == back);
          CHECK(std::fabs(back) * scales[k] == doctest::Approx(e4m3_max));
        } else if (std::string(key) == "try.q11.rounded") {
          REQUIRE(c.size() == 3);
          CHECK(num(c[2]) == back);
        }
      }
    }
    for (const char* bad : {"", "abc", "0 1", "-1 2", "1", "1 2 3", "inf 1", "nan 1", "1e39 1", "1 1e39", "1e-50 1", "1,", "1 x"}) {
      const std::string shown = bad;
      CAPTURE(shown);
      const try_outcome o = try_it(11, l, bad);
      CHECK_FALSE(o.ok);
      CHECK(o.error.find(l.get("try.q11.form")) != std::string::npos);
    }
  }
}

// ================================ Q16 ============================================================

namespace {

struct q16_model {
  std::size_t block = 0;
  errs own, others, clean_others, clean_all;
  double outlier_back = 0;
};

/// Decoded values of x under one recipe: 0 per-tensor E4M3 (current scaling), 1 MXFP8 (round-up
/// E8M0 scale per 32), 2 NVFP4 (E4M3 scale per 16, binary32 tensor scale).
std::vector<double> decode(int recipe, const std::vector<float>& x, std::size_t& block) {
  std::vector<double> q(x.size());
  double amax = 0;
  for (const float v : x) amax = std::max(amax, std::fabs(static_cast<double>(v)));
  if (recipe == 0) {
    block = x.size();
    const float s = amax > 0 ? f32_scale(static_cast<float>(amax)) : 1.0f;
    bool sat = false;
    for (std::size_t i = 0; i < x.size(); ++i) q[i] = cast_back(x[i], s, sat);
    return q;
  }
  block = recipe == 1 ? 32 : 16;  // OCP MX v1.0: 32; NVFP4: 16 (numerics-facts.md §7)
  float T = 1;
  if (recipe == 2) {
    T = static_cast<float>(amax / (6.0 * 448.0));
    if (!(T > 0)) T = 1;
  }
  for (std::size_t b = 0; b < x.size(); b += block) {
    double bmax = 0;
    for (std::size_t i = b; i < b + block; ++i) bmax = std::max(bmax, std::fabs(static_cast<double>(x[i])));
    double d = 0;  // the block's decode factor
    if (recipe == 1) {
      int k = -127;
      while (k < 127 && std::ldexp(448.0, k) < bmax) ++k;
      d = std::ldexp(1.0, k);
    } else {
      d = round_to(e4m3(), bmax / (6.0 * static_cast<double>(T))) * static_cast<double>(T);
    }
    for (std::size_t i = b; i < b + block; ++i)
      q[i] = d == 0 ? 0.0 : round_to(recipe == 1 ? e4m3() : e2m1(), static_cast<double>(x[i]) / d) * d;
  }
  return q;
}

q16_model model_q16(const std::vector<float>& x, const std::vector<float>& clean, std::size_t pos, int recipe) {
  q16_model m;
  const std::vector<double> q = decode(recipe, x, m.block), c = decode(recipe, clean, m.block);
  const std::size_t ob = pos / m.block;
  for (std::size_t i = 0; i < x.size(); ++i) {
    if (i == pos) continue;
    (i / m.block == ob ? m.own : m.others).add(x[i], q[i]);
    if (i / m.block != ob) m.clean_others.add(clean[i], c[i]);
    m.clean_all.add(clean[i], c[i]);
  }
  m.outlier_back = q[pos];
  return m;
}

std::vector<float> q16_tensor(std::uint64_t seed, std::size_t n, int max_exp) {
  std::mt19937_64 gen(seed);
  std::vector<float> x(n);
  for (float& v : x) {
    const std::uint64_t k = gen() & 0x7FFFFF;
    const int e = static_cast<int>(gen() % static_cast<std::uint64_t>(max_exp + 1));
    const bool neg = gen() & 1;
    v = static_cast<float>((neg ? -1.0 : 1.0) * (1.0 + static_cast<double>(k) / 8388608.0) / std::ldexp(1.0, e));
  }
  return x;
}

/// The table rows and sentences of Q16's page (the demo's, or try it's) against the model.
void check_q16_page(const page& p, const language& l, const std::vector<q16_model>& m, const demo::q16_result& r) {
  const std::vector<std::string> lines = wide_lines(p);
  const char* names[3] = {"fp8-current", "mxfp8", "nvfp4"};
  for (int k = 0; k < 3; ++k) {
    CAPTURE(k);
    const std::string name = unlocalize(l.get(std::string("q16.demo.recipe.") + names[k]));
    std::string row;
    for (const std::string& line : lines)
      if (line.rfind(name + " ", 0) == 0 && fields(line.substr(name.size())).size() == 7) row = line.substr(name.size());
    const auto f = fields(row);
    REQUIRE(f.size() == 7);
    CHECK(std::stoul(f[0]) == m[k].block);
    CHECK(std::stoul(f[1]) == m[k].own.values);
    CHECK(std::stoul(f[2]) == m[k].own.zero);
    check_sci(f[3], m[k].own.rms());
    CHECK(std::stoul(f[4]) == m[k].others.values);
    if (m[k].others.values == 0) {
      CHECK(f[5] == "-");
      CHECK(f[6] == "-");
    } else {
      CHECK(std::stoul(f[5]) == m[k].others.zero);
      check_sci(f[6], m[k].others.rms());
    }
    // The recipe's sentence, chosen by the model: the whole tensor is one block, or the other
    // blocks come out exactly as without the outlier, or not.
    const bool same = m[k].others.zero == m[k].clean_others.zero &&
                      std::fabs(m[k].others.rms() - m[k].clean_others.rms()) <= 1e-15 * m[k].others.rms();
    const char* key = m[k].others.values == 0 ? "q16.demo.tensor" : same ? "q16.demo.block_same" : "q16.demo.block_diff";
    // Several recipes share a template: the one whose first capture is this recipe's name.
    std::vector<std::string> n;
    for (const std::string& line : lines) {
      const std::vector<std::string> one{line};
      auto c = match_line(one, l, key);
      if (!c.empty() && c[0] == name) n = c;
    }
    REQUIRE(!n.empty());
    if (m[k].others.values == 0) {  // recipe, zero, count, err, pos, replaced, a_zero, a_err
      REQUIRE(n.size() == 8);
      CHECK(num(n[1]) == static_cast<double>(m[k].own.zero));
      CHECK(num(n[2]) == static_cast<double>(m[k].own.values));
      check_sci(n[3], m[k].own.rms());
      CHECK(num(n[4]) == static_cast<double>(r.position));
      CHECK(as_float(n[5]) == q16_tensor(r.seed, r.n, r.max_exp)[r.position]);
      CHECK(num(n[6]) == static_cast<double>(m[k].clean_all.zero));
      check_sci(n[7], m[k].clean_all.rms());
    } else if (same) {  // recipe, o_count, o_zero, o_err, count, zero, err, back
      REQUIRE(n.size() == 8);
      CHECK(num(n[1]) == static_cast<double>(m[k].others.values));
      CHECK(num(n[2]) == static_cast<double>(m[k].others.zero));
      check_sci(n[3], m[k].others.rms());
      CHECK(num(n[4]) == static_cast<double>(m[k].own.values));
      CHECK(num(n[5]) == static_cast<double>(m[k].own.zero));
      check_sci(n[6], m[k].own.rms());
      CHECK(num(n[7]) == m[k].outlier_back);
    } else {  // recipe, c_zero, c_err, o_zero, o_err, count, zero, err, back
      REQUIRE(n.size() == 9);
      CHECK(num(n[1]) == static_cast<double>(m[k].clean_others.zero));
      check_sci(n[2], m[k].clean_others.rms());
      CHECK(num(n[3]) == static_cast<double>(m[k].others.zero));
      check_sci(n[4], m[k].others.rms());
      CHECK(num(n[5]) == static_cast<double>(m[k].own.values));
      CHECK(num(n[6]) == static_cast<double>(m[k].own.zero));
      check_sci(n[7], m[k].own.rms());
      CHECK(num(n[8]) == m[k].outlier_back);
    }
  }
  // E2M1's values (from its definition) and the quarter up to which an element rounds to 0.
  const auto e = match_line(lines, l, "q16.demo.e2m1");
  REQUIRE(e.size() == 2);
  std::vector<double> got;
  std::string list = e[0] + l.raw("list_sep");
  for (std::size_t i = 0, j; (j = list.find(l.raw("list_sep"), i)) != std::string::npos; i = j + l.raw("list_sep").size())
    got.push_back(num(list.substr(i, j - i)));
  CHECK(got == e2m1());
  CHECK(num(e[1]) == e2m1()[1] / 2);
  CHECK(round_to(e2m1(), e2m1()[1] / 2) == 0);  // the tie goes to the even encoding, 0
}

std::vector<q16_model> models_for(const demo::q16_result& r) {
  std::vector<float> clean = q16_tensor(r.seed, r.n, r.max_exp);
  std::vector<float> x = clean;
  x[r.position] = r.outlier;
  CHECK(x == r.x);
  std::vector<q16_model> m;
  for (int k = 0; k < 3; ++k) m.push_back(model_q16(x, clean, r.position, k));
  return m;
}

}  // namespace

TEST_CASE("Q16 demo: zeros and errors per recipe, inside and outside the outlier's block, against hand models") {
  const demo::q16_result r = demo::run_q16(demo::default_seed);
  REQUIRE(r.recipes.size() == 3);
  const std::vector<q16_model> m = models_for(r);
  for (int k = 0; k < 3; ++k) {
    const demo::q16_recipe& q = r.recipes[static_cast<std::size_t>(k)];
    CHECK(q.block == m[k].block);
    CHECK(q.own.values == m[k].own.values);
    CHECK(q.own.zero == m[k].own.zero);
    CHECK(q.own.rms_rel == doctest::Approx(m[k].own.rms()).epsilon(1e-12));
    CHECK(q.others.values == m[k].others.values);
    CHECK(q.others.zero == m[k].others.zero);
    CHECK(q.others.rms_rel == doctest::Approx(m[k].others.rms()).epsilon(1e-12));
    CHECK(q.clean_others.zero == m[k].clean_others.zero);
    CHECK(q.clean_all.zero == m[k].clean_all.zero);
    CHECK(q.outlier_back == m[k].outlier_back);
  }
  // The point of the question, for this tensor: per tensor, the outlier zeroes values that are kept
  // without it; MXFP8's other blocks come out exactly as without the outlier.
  CHECK(m[0].own.zero > m[0].clean_all.zero);
  CHECK(m[1].others.zero == m[1].clean_others.zero);
  CHECK(m[1].others.rms() == m[1].clean_others.rms());
  CHECK(m[1].others.rms() < m[0].own.rms());
  for (const char* code : {"en", "fr"}) {
    CAPTURE(code);
    const language& l = lang(code);
    const page p = demo::page_q16(r, l);
    check_q16_page(p, l, m, r);
    check_width(p, 40);
    check_width(p, 80);
  }
}

TEST_CASE("Q16 try it: the learner's outlier") {
  for (const char* code : {"en", "fr"}) {
    CAPTURE(code);
    const language& l = lang(code);
    for (const char* in : {"1000", "1e6", "0.5", "3e38", "1e-40", "2", "448", "1e4"}) {
      CAPTURE(in);
      const try_outcome o = try_it(16, l, in);
      REQUIRE(o.ok);
      const demo::q16_result r = demo::run_q16(demo::default_seed, std::strtof(in, nullptr));
      check_q16_page(*o.result, l, models_for(r), r);
    }
    for (const char* bad : {"", "0", "-5", "x", "1 2", "1e39", "inf", "nan", "1e-50"}) {
      const std::string shown = bad;
      CAPTURE(shown);
      const try_outcome o = try_it(16, l, bad);
      CHECK_FALSE(o.ok);
      CHECK(o.error.find(l.get("try.q16.form")) != std::string::npos);
    }
  }
}

TEST_CASE("Q11 and Q16: the question text's numbers") {
  vars v;
  demo::hard_facts(v);
  CHECK(v.at("q11_history_len") == "1024");
  CHECK(std::strtod(v.at("q11_e4m3_max").c_str(), nullptr) == e4m3_max);
  CHECK(std::strtod(v.at("q11_saturate_above").c_str(), nullptr) == e4m3_saturates_above);
  CHECK(v.at("q16_mx_block") == "32");
  CHECK(v.at("q16_nv_block") == "16");
  CHECK(std::strtod(v.at("q16_e4m3_max").c_str(), nullptr) == e4m3().back());
  CHECK(std::strtod(v.at("q16_e2m1_max").c_str(), nullptr) == e2m1().back());
}
