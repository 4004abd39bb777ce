// The hard level's questions 12 (unscale_ before clip_grad_norm_) and 15 (GradScaler's
// growth_interval): every number the demo and "try it" print, and every sentence chosen around
// them, recomputed here by models written apart from the quiz's code:
//   Q12  the gradient regenerated from the recipe the screen states (std::mt19937_64), its norm in
//        long double, g x S rounded by hardware _Float16 (S is a power of two, so g x S is exact in
//        binary64 and rounds once), unscale_ / clip_grad_norm_ / step() replayed in hardware float
//        as PyTorch writes them (torch/amp/grad_scaler.py, torch/nn/utils/clip_grad.py,
//        Tensor.__rdiv__ in torch/_tensor.py);
//   Q15  GradScaler's published update rule (_amp_update_scale_) replayed in binary64 with the
//        overflow test by hardware _Float16, step by step.
// The printed text is parsed in both languages (unlocalize.hpp) and matched against each sentence's
// template, its numbers compared with the model's. Compiled with -ffp-contract=off.
#include <doctest/doctest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <map>
#include <optional>
#include <random>
#include <regex>
#include <string>
#include <vector>

#include "claims_text.hpp"
#include "demos/hard/hard.hpp"
#include "demos/facts.hpp"
#include "tryit.hpp"

using namespace mpq;

namespace {

using claims::fields;
using claims::flat;
using claims::lang;

using h16 = _Float16;

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start < text.size()) {
    const std::size_t nl = text.find('\n', start);
    out.push_back(text.substr(start, nl - start));
    start = nl == std::string::npos ? text.size() : nl + 1;
  }
  return out;
}

/// Code points of a UTF-8 line.
int columns(const std::string& s) {
  int n = 0;
  for (const char c : s) n += (static_cast<unsigned char>(c) & 0xC0) != 0x80;
  return n;
}

/// A printed number: a decimal, or 2^k.
double num(const std::string& s) {
  const std::size_t caret = s.find('^');
  if (caret != std::string::npos) return std::ldexp(1.0, std::stoi(s.substr(caret + 1)));
  return std::stod(s);
}

/// The sentence of `key` found in the flat text: its placeholders' texts, or nullopt when the text
/// does not hold it. The template is matched literally, each {name} as one number (or, for
/// names in `lists`, anything up to the next literal text).
std::optional<std::map<std::string, std::string>> sentence(const language& l, const std::string& key, const std::string& text,
                                                           const std::vector<std::string>& lists = {}) {
  const std::string t = flat(l.raw(key));
  std::string re;
  std::vector<std::string> names;
  for (std::size_t i = 0; i < t.size(); ++i) {
    if (t[i] == '{') {
      const std::size_t close = t.find('}', i);
      const std::string name = t.substr(i + 1, close - i - 1);
      names.push_back(name);
      re += std::find(lists.begin(), lists.end(), name) != lists.end() ? "(.+?)" : "(-?[0-9][0-9.e+-]*%?|2\\^-?[0-9]+|inf)";
      i = close;
    } else if (std::string("\\^$.|?*+()[]{}").find(t[i]) != std::string::npos) {
      re += '\\';
      re += t[i];
    } else {
      re += t[i];
    }
  }
  std::smatch m;
  if (!std::regex_search(text, m, std::regex(re))) return std::nullopt;
  std::map<std::string, std::string> out;
  for (std::size_t i = 0; i < names.size(); ++i) out[names[i]] = m[i + 1].str();
  return out;
}

/// "12.34%": 100 part / whole with two decimals, by snprintf.
std::string percent_text(long part, long whole) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.2f%%", 100.0 * static_cast<double>(part) / static_cast<double>(whole));
  return buf;
}

/// The smallest double that hardware _Float16 conversion sends to infinity (bisection).
double fp16_overflow_threshold() {
  std::uint64_t lo = std::bit_cast<std::uint64_t>(65504.0), hi = std::bit_cast<std::uint64_t>(65536.0);
  while (hi - lo > 1) {
    const std::uint64_t mid = lo + (hi - lo) / 2;
    (std::isinf(static_cast<double>(static_cast<h16>(std::bit_cast<double>(mid)))) ? hi : lo) = mid;
  }
  return std::bit_cast<double>(hi);
}

// ---- Q12 model -------------------------------------------------------------------------------

struct order_model {
  float seen = 0, coef = 0, final_norm = 0;
  bool clipped = false;
};
struct q12_model {
  bool inf = false;
  order_model correct, wrong;
  float ratio = 0;
  long double true_norm = 0;  ///< the norm of the binary64 gradient, in long double
};

/// The recipe the demo states: v_i = 2u - 1 from std::mt19937_64(seed), g = norm * v / ||v||.
std::vector<double> gradient(std::uint64_t seed, std::size_t n, double norm) {
  std::mt19937_64 gen(seed);
  std::vector<double> v(n);
  long double s = 0;
  for (double& x : v) {
    x = 2.0 * std::ldexp(static_cast<double>(gen() >> 11), -53) - 1.0;
    s += static_cast<long double>(x) * x;
  }
  const double len = static_cast<double>(std::sqrt(s));
  for (double& x : v) x = norm * (x / len);
  return v;
}

float norm_f(const std::vector<float>& x) {
  float acc = 0.0f;
  for (const float v : x) acc = acc + v * v;
  return std::sqrt(acc);
}

/// clip_grad_norm_: total_norm, clip_coef = max_norm / (total_norm + 1e-6) as Tensor.__rdiv__
/// (reciprocal, then times max_norm), clamped to 1, every gradient multiplied by it.
order_model clip_f(std::vector<float>& x, double max_norm) {
  order_model o;
  o.seen = norm_f(x);
  const float denominator = o.seen + static_cast<float>(1e-6);
  const float c = (1.0f / denominator) * static_cast<float>(max_norm);
  o.coef = std::min(c, 1.0f);
  o.clipped = o.coef < 1.0f;
  for (float& v : x) v = v * o.coef;
  return o;
}

q12_model model12(const std::vector<double>& g, double scale, double max_norm) {
  q12_model m;
  int e = 0;
  REQUIRE(std::frexp(scale, &e) == 0.5);  // a power of two: g x S exact in binary64, rounded once below
  long double s = 0;
  for (const double x : g) s += static_cast<long double>(x) * x;
  m.true_norm = std::sqrt(s);
  std::vector<float> grad;
  for (const double x : g) {
    const h16 h = static_cast<h16>(x * scale);
    m.inf = m.inf || std::isinf(static_cast<float>(h));
    grad.push_back(static_cast<float>(h));
  }
  if (m.inf) return m;
  const float inv = static_cast<float>(1.0 / static_cast<double>(static_cast<float>(scale)));
  std::vector<float> a = grad;
  for (float& v : a) v = v * inv;
  m.correct = clip_f(a, max_norm);
  m.correct.final_norm = norm_f(a);
  std::vector<float> b = grad;
  m.wrong = clip_f(b, max_norm);
  for (float& v : b) v = v * inv;
  m.wrong.final_norm = norm_f(b);
  m.ratio = m.correct.final_norm / m.wrong.final_norm;
  return m;
}

/// The two table rows of Q12 at a wide layout, and the sentence the model's coefficients call for.
void check_q12_text(const language& l, const std::string& rendered, const q12_model& m, double scale, double max_norm) {
  const std::string f = flat(rendered);
  CAPTURE(f);
  if (m.inf) {
    const auto s = sentence(l, "q12.demo.overflow", f);
    REQUIRE(s);
    CHECK(num(s->at("overflow_from")) == fp16_overflow_threshold());
    CHECK(f.find(flat(l.get("q12.demo.correct"))) == std::string::npos);  // no table
    return;
  }
  int found = 0;
  for (const std::string& line : lines_of(unlocalize(rendered))) {
    const std::string fl = flat(line);
    for (const auto& [key, want] : {std::pair{"q12.demo.correct", &m.correct}, std::pair{"q12.demo.wrong", &m.wrong}}) {
      const std::string label = flat(l.get(key));
      if (fl.rfind(label + " ", 0) != 0) continue;
      const std::vector<std::string> fs = fields(fl.substr(label.size()));
      REQUIRE(fs.size() == 3);
      CHECK(std::stof(fs[0]) == want->seen);
      CHECK(std::stof(fs[1]) == want->coef);
      CHECK(std::stof(fs[2]) == want->final_norm);
      ++found;
    }
  }
  CHECK(found == 2);
  const char* key = !m.correct.clipped && !m.wrong.clipped ? "q12.demo.none_clips"
                    : !m.correct.clipped                   ? "q12.demo.wrong_clips"
                    : m.wrong.clipped                      ? "q12.demo.both_clip"
                                                           : "q12.demo.correct_clips";
  CAPTURE(key);
  for (const char* other : {"q12.demo.none_clips", "q12.demo.wrong_clips", "q12.demo.both_clip", "q12.demo.correct_clips"})
    if (std::string(other) != key) CHECK(!sentence(l, other, f));
  const auto s = sentence(l, key, f);
  REQUIRE(s);
  for (const auto& [name, value] : *s) {
    CAPTURE(name);
    if (name == "max") CHECK(std::stof(value) == static_cast<float>(max_norm));
    else if (name == "seen_wrong") CHECK(std::stof(value) == m.wrong.seen);
    else if (name == "coef_wrong") CHECK(std::stof(value) == m.wrong.coef);
    else if (name == "coef_correct") CHECK(std::stof(value) == m.correct.coef);
    else if (name == "final_wrong") CHECK(std::stof(value) == m.wrong.final_norm);
    else if (name == "final_correct") CHECK(std::stof(value) == m.correct.final_norm);
    else if (name == "ratio") CHECK(std::stof(value) == m.ratio);
    else if (name == "scale") CHECK(num(value) == scale);
    else FAIL("unexpected placeholder " << name);
  }
  // The sentences' words: "neither clips" = both coefficients 1 and the same gradient; "clips" =
  // a coefficient below 1.
  if (std::string(key) == "q12.demo.none_clips") CHECK(m.correct.final_norm == m.wrong.final_norm);
}

// ---- Q15 model -------------------------------------------------------------------------------

struct run_model {
  std::vector<long> skipped;
  std::vector<double> scale_at;  ///< the scale step k (from 1) used, at index k - 1
  double mean = 0, final_scale = 0, largest_safe = 0, smallest_unsafe = 0;
  long cycle_from = 0;  ///< see below
};

/// GradScaler's update rule (torch/amp/grad_scaler.py, _amp_update_scale_ with PyTorch's defaults:
/// init 2^16, x0.5 on inf, x2 after `interval` clean steps), the largest gradient g every step,
/// found_inf when hardware _Float16 rounds g x scale to inf.
run_model model15(double g, long interval, long steps) {
  run_model r;
  double scale = 65536.0;
  long tracker = 0;
  double sum = 0;
  for (long k = 1; k <= steps; ++k) {
    int e = 0;
    REQUIRE(std::frexp(scale, &e) == 0.5);  // g x scale exact in binary64
    r.scale_at.push_back(scale);
    sum += scale;
    const bool inf = std::isinf(static_cast<float>(static_cast<h16>(g * scale)));
    if (inf) {
      r.skipped.push_back(k);
      if (r.smallest_unsafe == 0 || scale < r.smallest_unsafe) r.smallest_unsafe = scale;
      scale *= 0.5;
      tracker = 0;
    } else {
      r.largest_safe = std::max(r.largest_safe, scale);
      if (++tracker == interval) {
        scale *= 2.0;
        tracker = 0;
      }
    }
  }
  r.mean = sum / static_cast<double>(steps);
  r.final_scale = scale;
  // The cycle: the skipped steps from some s_j on are s_j, s_j + (k+1), s_j + 2(k+1), ... up to the
  // last, all at the same (overflowing) scale, with at least two of them; s_j the earliest such.
  for (std::size_t j = 0; j + 1 < r.skipped.size(); ++j) {
    bool ok = true;
    for (std::size_t i = j; i < r.skipped.size(); ++i)
      ok = ok && r.skipped[i] == r.skipped[j] + static_cast<long>(i - j) * (interval + 1) &&
           r.scale_at[static_cast<std::size_t>(r.skipped[i] - 1)] == r.scale_at[static_cast<std::size_t>(r.skipped[j] - 1)];
    if (ok) {
      r.cycle_from = r.skipped[j];
      break;
    }
  }
  return r;
}

}  // namespace

// ================================== Q12 ==========================================================

TEST_CASE("Q12 demo: both orders of unscale_ and clip_grad_norm_ replayed in hardware float, en and fr") {
  for (const char* code : {"en", "fr"}) {
    const language& l = lang(code);
    for (const std::uint64_t seed : {demo::default_seed, std::uint64_t{1}, std::uint64_t{99}}) {
      CAPTURE(std::string(code));
      CAPTURE(seed);
      const page p = demo::hard_page(12, l, seed);
      const std::string wide = p.render(200);
      const std::string f = flat(wide);
      const auto title = sentence(l, "q12.demo.title", f);
      REQUIRE(title);
      CHECK(std::stoull(title->at("seed")) == seed);
      const std::size_t n = std::stoul(title->at("n"));
      const double norm = num(title->at("norm")), scale = num(title->at("scale")), max_norm = num(title->at("max"));
      CHECK(num(title->at("eps")) == 1e-6);  // clip_grad_norm_'s 1e-6 (torch/nn/utils/clip_grad.py)
      CHECK(scale == 65536.0);               // GradScaler's init_scale default, 2^16
      const q12_model m = model12(gradient(seed, n, norm), scale, max_norm);
      // "a gradient with a norm of 0.5": the binary64 gradient's norm, in long double.
      CHECK(std::fabs(static_cast<double>(m.true_norm) - norm) <= 1e-12 * norm);
      check_q12_text(l, wide, m, scale, max_norm);
      // The lesson in numbers: the right order sees the true norm (fp16 storage: within 2^-11),
      // the wrong one S times it; only the wrong one clips, and the optimizer then gets a gradient
      // about max_norm / S.
      CHECK(!m.inf);
      CHECK(std::fabs(m.correct.seen - norm) <= norm * std::ldexp(1.0, -10));
      CHECK(std::fabs(m.wrong.seen - norm * scale) <= norm * scale * std::ldexp(1.0, -10));
      CHECK(!m.correct.clipped);
      CHECK(m.wrong.clipped);
      CHECK(std::fabs(m.wrong.final_norm * scale / max_norm - 1) < 1e-5);
      // The 40-column layout: no line wider than 40, the same numbers present.
      const std::string narrow = p.render(40);
      for (const std::string& line : lines_of(narrow)) CHECK(columns(line) <= 40);
      for (const float v : {m.correct.seen, m.wrong.seen, m.wrong.coef, m.correct.final_norm, m.wrong.final_norm}) {
        char buf[32];
        std::snprintf(buf, sizeof buf, "%.9g", static_cast<double>(v));
        bool present = false;
        for (const std::string& w : fields(flat(narrow)))
          present = present || (!w.empty() && std::isdigit(static_cast<unsigned char>(w[0])) &&
                                std::strtof(w.c_str(), nullptr) == v);
        CHECK(present);
      }
    }
  }
}

TEST_CASE("Q12 facts: the explanation's numbers are the demo's") {
  vars v;
  demo::hard_facts(v);
  const q12_model m = model12(gradient(demo::default_seed, 1000, 0.5), 65536.0, 1.0);
  CHECK(std::stof(v.at("q12_final_wrong")) == m.wrong.final_norm);
  CHECK(std::stof(v.at("q12_final_correct")) == m.correct.final_norm);
  CHECK(std::stof(v.at("q12_coef_wrong")) == m.wrong.coef);
  CHECK(std::stof(v.at("q12_seen_wrong")) == m.wrong.seen);
  CHECK(std::stof(v.at("q12_seen_correct")) == m.correct.seen);
  CHECK(std::stof(v.at("q12_ratio")) == m.ratio);
  CHECK(std::stod(v.at("q12_eps")) == 1e-6);
  CHECK(std::stod(v.at("q12_scale")) == 65536.0);
  // "a gradient of norm about max_norm / S" (the explanation) and "{coef} instead of 1" (why D).
  CHECK(std::fabs(m.wrong.final_norm * 65536.0 - 1.0) < 1e-5);
  CHECK(m.wrong.coef < 1.0f);
  for (const char* code : {"en", "fr"}) {
    const language& l = lang(code);
    for (const question& q : l.questions())
      if (q.number == 12) {
        CHECK(q.options[static_cast<std::size_t>(q.answer)].find("max_norm") != std::string::npos);
        CHECK(q.answer == 2);  // C
      }
  }
}

TEST_CASE("Q12 try it: good inputs against the float model, bad ones refused, en and fr") {
  struct input {
    const char* line;
    double norm, scale, max_norm;
    const char* expect;  // the sentence the model must choose
  };
  const input good[] = {
      {"0.5 65536 1", 0.5, 65536, 1, "q12.demo.wrong_clips"},
      {"2 65536 1", 2, 65536, 1, "q12.demo.both_clip"},
      {"0.001 2 1000", 0.001, 2, 1000, "q12.demo.none_clips"},
      {"1000 65536 1", 1000, 65536, 1, "q12.demo.overflow"},
      {"3 1024 0.5", 3, 1024, 0.5, "q12.demo.both_clip"},
      {"0.001, 16777216; 1000", 0.001, 16777216, 1000, "q12.demo.wrong_clips"},
      {"1 4 1000", 1, 4, 1000, "q12.demo.none_clips"},
  };
  for (const char* code : {"en", "fr"}) {
    const language& l = lang(code);
    for (const input& in : good) {
      CAPTURE(std::string(code));
      CAPTURE(std::string(in.line));
      const try_outcome out = try_it(12, l, in.line);
      REQUIRE(out.ok);
      REQUIRE(out.result);
      const q12_model m = model12(gradient(demo::default_seed, 1000, in.norm), in.scale, in.max_norm);
      const std::string wide = out.result->render(200);
      const auto title = sentence(l, "try.q12.title", flat(wide));
      REQUIRE(title);
      CHECK(num(title->at("norm")) == in.norm);
      CHECK(num(title->at("scale")) == in.scale);
      CHECK(std::stof(title->at("max")) == static_cast<float>(in.max_norm));
      CHECK(std::stoul(title->at("n")) == 1000);
      CHECK(std::stoull(title->at("seed")) == demo::default_seed);
      check_q12_text(l, wide, m, in.scale, in.max_norm);
      CHECK(sentence(l, in.expect, flat(wide)));
      for (const std::string& line : lines_of(out.result->render(40))) CHECK(columns(line) <= 40);
    }
  }
  // A sweep: norms, scales and max_norms over their whole ranges.
  std::mt19937_64 gen(12);
  const language& en = lang("en");
  for (int i = 0; i < 40; ++i) {
    const double norm = std::pow(10.0, -3.0 + 6.0 * std::ldexp(static_cast<double>(gen() >> 11), -53));
    const double max_norm = std::pow(10.0, -3.0 + 6.0 * std::ldexp(static_cast<double>(gen() >> 11), -53));
    const double scale = std::ldexp(1.0, 1 + static_cast<int>(gen() % 24));
    char line[128];
    std::snprintf(line, sizeof line, "%.17g %.17g %.17g", norm, scale, max_norm);
    CAPTURE(line);
    const try_outcome out = try_it(12, en, line);
    REQUIRE(out.ok);
    check_q12_text(en, out.result->render(200), model12(gradient(demo::default_seed, 1000, norm), scale, max_norm), scale,
                   max_norm);
  }
  const char* bad[] = {"", "abc", "0.5 65536", "0.5 65536 1 2", "0.5 65535 1", "0.5 1 1", "0.5 33554432 1",
                       "0.0001 65536 1", "2000 65536 1", "0.5 65536 0", "0.5 65536 1001", "nan 2 1", "inf 2 1",
                       "0.5 -65536 1", "0.5 2^16 1", "-0.5 65536 1"};
  for (const char* code : {"en", "fr"}) {
    const language& l = lang(code);
    for (const char* line : bad) {
      CAPTURE(std::string(line));
      try_outcome out;
      CHECK_NOTHROW(out = try_it(12, l, line));
      CHECK(!out.ok);
      CHECK(out.error.find(l.get("try.q12.form")) != std::string::npos);
    }
  }
}

// ================================== Q15 ==========================================================

TEST_CASE("Q15 demo: skipped steps and mean scales from GradScaler's update rule replayed, en and fr") {
  const double threshold = fp16_overflow_threshold();
  for (const char* code : {"en", "fr"}) {
    const language& l = lang(code);
    CAPTURE(std::string(code));
    const page p = demo::hard_page(15, l, demo::default_seed);
    const std::string wide = p.render(200);
    const std::string f = flat(wide);
    CAPTURE(f);
    const auto title = sentence(l, "q15.demo.title", f);
    REQUIRE(title);
    const long steps = std::stol(title->at("steps"));
    const double g = num(title->at("g"));
    CHECK(num(title->at("overflow_from")) == threshold);
    CHECK(num(title->at("init")) == 65536.0);  // PyTorch's defaults (torch/amp/grad_scaler.py)
    CHECK(num(title->at("backoff")) == 0.5);
    CHECK(num(title->at("growth")) == 2.0);
    CHECK(std::stol(title->at("default_interval")) == 2000);
    // "overflows at S = unsafe but not at S = safe", by hardware _Float16.
    const double unsafe = num(title->at("unsafe")), safe = num(title->at("safe"));
    CHECK(std::isinf(static_cast<float>(static_cast<h16>(g * unsafe))));
    CHECK(!std::isinf(static_cast<float>(static_cast<h16>(g * safe))));
    CHECK(g * unsafe >= threshold);
    CHECK(g * safe < threshold);
    CHECK(unsafe == 2 * safe);
    // The table rows: interval, skipped, %, cycle, mean S.
    const std::string head = flat(l.get("q15.demo.interval"));
    std::vector<long> intervals;
    bool all_cycle_from_1 = true;
    for (const std::string& line : lines_of(unlocalize(wide))) {
      const std::vector<std::string> fs = fields(flat(line));
      if (fs.size() != 5 || !std::isdigit(static_cast<unsigned char>(fs[0][0])) || fs[2].back() != '%') continue;
      const long k = std::stol(fs[0]);
      CAPTURE(k);
      intervals.push_back(k);
      const run_model r = model15(g, k, steps);
      CHECK(std::stol(fs[1]) == static_cast<long>(r.skipped.size()));
      CHECK(fs[2] == percent_text(static_cast<long>(r.skipped.size()), steps));
      CHECK(fs[3] == (r.cycle_from != 0 ? std::to_string(k + 1) : std::string("-")));
      CHECK(std::stod(fs[4]) == r.mean);
      CHECK(r.largest_safe == safe);
      CHECK(r.smallest_unsafe == unsafe);
      all_cycle_from_1 = all_cycle_from_1 && r.cycle_from == 1;
      // The claim "one step in k + 1 is skipped": skipped at 1, 1 + (k+1), ..., so
      // floor((N - 1) / (k + 1)) + 1 of N, and the scale alternates between the two values only.
      if (r.cycle_from == 1) {
        CHECK(static_cast<long>(r.skipped.size()) == (steps - 1) / (k + 1) + 1);
        for (const double s : r.scale_at) CHECK((s == safe || s == unsafe));
      }
    }
    CHECK(intervals == std::vector<long>{1, 100, 2000});
    CHECK(all_cycle_from_1);
    const auto cycle = sentence(l, "q15.demo.cycle", f);
    CHECK(cycle.has_value() == all_cycle_from_1);
    CHECK(!sentence(l, "q15.demo.no_cycle", f));
    if (cycle) {
      CHECK(num(cycle->at("safe")) == safe);
      CHECK(num(cycle->at("unsafe")) == unsafe);
    }
    CHECK(f.find(flat(l.get("q15.demo.tradeoff"))) != std::string::npos);
    for (const std::string& line : lines_of(p.render(40))) CHECK(columns(line) <= 40);
  }
  // The facts the explanation quotes.
  vars v;
  demo::hard_facts(v);
  CHECK(std::stol(v.at("q15_skipped_1")) == static_cast<long>(model15(1.5, 1, 10000).skipped.size()));
  CHECK(std::stol(v.at("q15_skipped_2000")) == static_cast<long>(model15(1.5, 2000, 10000).skipped.size()));
  CHECK(std::stol(v.at("q15_steps")) == 10000);
  CHECK(std::stod(v.at("q15_g")) == 1.5);
  CHECK(std::stod(v.at("q15_overflow_from")) == threshold);
  CHECK(demo::facts().at("scaler_interval") == "2000");  // the question text's {scaler_interval}
  for (const char* code : {"en", "fr"})
    for (const question& q : lang(code).questions())
      if (q.number == 15) CHECK(q.answer == 1);  // B
}

TEST_CASE("Q15 try it: good inputs against the replayed update rule, bad ones refused, en and fr") {
  struct input {
    const char* line;
    double g;
    long k;
    const char* expect;
  };
  const input good[] = {
      {"1.5 100", 1.5, 100, "try.q15.cycle"},       {"1.5 1", 1.5, 1, "try.q15.cycle"},
      {"10000 1", 1e4, 1, "try.q15.cycle"},         {"1e-6 1", 1e-6, 1, "try.q15.cycle"},
      {"0.000001 10000", 1e-6, 10000, "try.q15.none"}, {"1.5 10000", 1.5, 10000, "try.q15.other"},
      {"10000 5000", 1e4, 5000, "try.q15.cycle"},   {"0.3 2000", 0.3, 2000, "try.q15.cycle"},
      {"0.01 7", 0.01, 7, "try.q15.cycle"},         {"1 3", 1, 3, "try.q15.cycle"},
  };
  for (const char* code : {"en", "fr"}) {
    const language& l = lang(code);
    for (const input& in : good) {
      CAPTURE(std::string(code));
      CAPTURE(std::string(in.line));
      const try_outcome out = try_it(15, l, in.line);
      REQUIRE(out.ok);
      const std::string f = flat(out.result->render(200));
      CAPTURE(f);
      const run_model r = model15(in.g, in.k, 10000);
      const auto title = sentence(l, "try.q15.title", f);
      REQUIRE(title);
      CHECK(std::stol(title->at("steps")) == 10000);
      CHECK(num(title->at("g")) == in.g);
      CHECK(std::stol(title->at("interval")) == in.k);
      CHECK(num(title->at("init")) == 65536.0);
      const auto res = sentence(l, "try.q15.result", f);
      REQUIRE(res);
      CHECK(std::stol(res->at("skipped")) == static_cast<long>(r.skipped.size()));
      CHECK(res->at("fraction") == percent_text(static_cast<long>(r.skipped.size()), 10000));
      CHECK(std::stod(res->at("mean")) == r.mean);
      CHECK(num(res->at("final")) == r.final_scale);
      const char* key = r.cycle_from != 0 ? "try.q15.cycle" : r.skipped.empty() ? "try.q15.none" : "try.q15.other";
      CHECK(std::string(key) == in.expect);
      for (const char* other : {"try.q15.cycle", "try.q15.none", "try.q15.other"})
        if (std::string(other) != key) CHECK(!sentence(l, other, f, {"list"}));
      const auto s = sentence(l, key, f, {"list"});
      REQUIRE(s);
      if (r.cycle_from != 0) {
        CHECK(std::stol(s->at("from")) == r.cycle_from);
        CHECK(std::stol(s->at("period")) == in.k + 1);
        CHECK(std::stol(s->at("interval")) == in.k);
        const double unsafe = r.scale_at[static_cast<std::size_t>(r.cycle_from - 1)];
        CHECK(num(s->at("unsafe")) == unsafe);
        CHECK(num(s->at("safe")) == unsafe / 2);     // "halves to"
        CHECK(num(s->at("safe")) == r.largest_safe);
        CHECK(std::isinf(static_cast<float>(static_cast<h16>(in.g * unsafe))));
        CHECK(!std::isinf(static_cast<float>(static_cast<h16>(in.g * unsafe / 2))));
      } else if (r.skipped.empty()) {
        CHECK(num(s->at("largest")) == r.largest_safe);
      } else {
        std::string list;
        for (std::size_t i = 0; i < r.skipped.size() && i < 12; ++i) list += (i ? ", " : "") + std::to_string(r.skipped[i]);
        if (r.skipped.size() > 12) list += ", ...";
        CHECK(s->at("list") == list);
      }
      for (const std::string& line : lines_of(out.result->render(40))) CHECK(columns(line) <= 40);
    }
  }
  const char* bad[] = {"", "x y", "1.5", "1.5 100 3", "0 10", "1.5 0", "1.5 10001", "1.5 2.5", "-1.5 10",
                       "20000 10", "1e-7 10", "nan 10", "1.5 inf"};
  for (const char* code : {"en", "fr"}) {
    const language& l = lang(code);
    for (const char* line : bad) {
      CAPTURE(std::string(line));
      try_outcome out;
      CHECK_NOTHROW(out = try_it(15, l, line));
      CHECK(!out.ok);
      CHECK(out.error.find(l.get("try.q15.form")) != std::string::npos);
    }
  }
}
