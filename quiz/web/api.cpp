// quiz/web/api.cpp: the C++ API the web page calls (compiled with Emscripten into quiz.js; see
// docs/web.md). Every function takes plain C arguments and returns a UTF-8 string (JSON or text)
// that stays valid until the next call; the page calls them through Module.ccall. The text comes
// from the terminal quiz's own code (text.cpp, runner.cpp, tryit.cpp, demos/), so a demo shown on
// the page is the terminal quiz's demo for the same seed and width, character for character.
#include <bit>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include <emscripten/emscripten.h>
#include <fmt/format.h>

#include <libfloat/libfloat.hpp>
#include <libfloat/training.hpp>

#include "demos/demos.hpp"
#include "demos/facts.hpp"
#include "runner.hpp"
#include "text.hpp"
#include "tryit.hpp"

namespace {

std::string result;  // the last answer (the page copies it out at once)

const char* give(std::string s) {
  result = std::move(s);
  return result.c_str();
}

const mpq::language& lang_of(const char* code) {
  const mpq::language* l = mpq::find_language(code ? code : "en");
  return l ? *l : *mpq::find_language("en");
}

/// The terminal quiz's fill(): {name} placeholders from the facts, localized.
std::string fill(const std::string& s, const mpq::language& l) {
  return mpq::substitute(s, mpq::localized(mpq::demo::facts(), l));
}

int clamp_width(int w) { return w < mpq::min_columns ? mpq::min_columns : (w > 200 ? 200 : w); }

double value_of(const lf::format& f, lf::bits_t b) {
  lf::status ignored{};
  return std::bit_cast<double>(lf::convert(lf::binary64, f, b, lf::env{}, ignored));
}
lf::bits_t encode(const lf::format& f, double v) {
  lf::status ignored{};
  return lf::convert(f, lf::binary64, std::bit_cast<std::uint64_t>(v), lf::env{}, ignored);
}
/// A double as JSON: finite values with 17 significant digits (exact round trip), others as null.
std::string num(double v) { return std::isfinite(v) ? fmt::format("{:.17g}", v) : std::string("null"); }

struct named_format {
  const char* name;
  const lf::format* f;
};
const std::vector<named_format>& plot_formats() {
  static const std::vector<named_format> v{{"fp16", &lf::binary16}, {"bf16", &lf::bfloat16}, {"fp32", &lf::binary32}};
  return v;
}

}  // namespace

extern "C" {

/// The questions (1-16) of language `lang`, their options, answers, explanations and guide anchors,
/// with the facts filled in as the terminal quiz does, plus the strings the page shows.
EMSCRIPTEN_KEEPALIVE const char* mpq_questions(const char* lang) {
  const mpq::language& l = lang_of(lang);
  std::string j = fmt::format("{{\"lang\": {}, \"title\": {}, \"intro\": {}, \"intro_hard\": {}, \"why_not\": {}, "
                              "\"demo_heading\": {}, \"questions\": [",
                              mpq::json_string(l.code()), mpq::json_string(l.get("title")),
                              mpq::json_string(fill(l.raw("intro"), l)), mpq::json_string(fill(l.raw("intro_hard"), l)),
                              mpq::json_string(l.get("why_not")), mpq::json_string(l.get("demo_heading")));
  bool first = true;
  for (const mpq::question& q : l.questions()) {
    std::string opts, why;
    for (int i = 0; i < mpq::option_count; ++i) {
      opts += (i ? ", " : "") + mpq::json_string(fill(q.options[static_cast<std::size_t>(i)], l));
      why += (i ? ", " : "") + mpq::json_string(i == q.answer ? std::string() : fill(q.why[static_cast<std::size_t>(i)], l));
    }
    j += fmt::format("{}{{\"number\": {}, \"topic\": {}, \"text\": {}, \"options\": [{}], \"answer\": {}, "
                     "\"explanation\": {}, \"why\": [{}], \"guide\": {}, \"try\": {}, \"try_form\": {}}}",
                     first ? "" : ", ", q.number, mpq::json_string(q.topic), mpq::json_string(fill(q.text, l)), opts,
                     q.answer, mpq::json_string(fill(q.explanation, l)), why, mpq::json_string(q.guide),
                     mpq::has_try(q.number) ? "true" : "false",
                     mpq::json_string(mpq::has_try(q.number) && l.has("try.q" + std::to_string(q.number) + ".form")
                                          ? l.get("try.q" + std::to_string(q.number) + ".form")
                                          : std::string()));
    first = false;
  }
  return give(j + "]}");
}

/// Demo n (1-16) in language `lang` for `seed`, laid out at `width` columns: demo::show(), as the
/// terminal quiz prints it under --reveal (without Q5's live measurement: a browser's timing of
/// WebAssembly is not the machine's).
EMSCRIPTEN_KEEPALIVE const char* mpq_demo(int n, const char* lang, double seed, int width) {
  const mpq::columns_scope w(clamp_width(width));
  return give(mpq::demo::show(n, lang_of(lang), static_cast<std::uint64_t>(seed), false));
}

/// "Try it" for question n: the laid-out result, or the error message prefixed with "!".
EMSCRIPTEN_KEEPALIVE const char* mpq_try(int n, const char* lang, const char* line, int width) {
  if (!mpq::has_try(n)) return give("!");
  const mpq::columns_scope w(clamp_width(width));
  const mpq::try_outcome t = mpq::try_it(n, lang_of(lang), line ? line : "");
  if (!t.ok || !t.result) return give("!" + t.error);
  return give(t.result->render(mpq::screen_width()));
}

/// The guide (docs/guide/<lang>.md) as Markdown with its generated blocks filled in.
EMSCRIPTEN_KEEPALIVE const char* mpq_guide(const char* lang) {
  const mpq::language& l = lang_of(lang);
  return give(mpq::regenerate_guide(std::string(l.guide_text()), l));
}

/// Q2/Q7 histogram: the seed's gradients by binary exponent, each bin's values times `scale`
/// rounded once into fp16 and bf16 and classified (demo::classify_at_scale), and each format's
/// windows (smallest subnormal, smallest normal, largest finite).
EMSCRIPTEN_KEEPALIVE const char* mpq_plot_histogram(double seed, double scale) {
  const mpq::demo::gradient_set g = mpq::demo::make_gradients(static_cast<std::uint64_t>(seed));
  const int lo = g.lowest_exponent, hi = g.highest_exponent;
  std::vector<std::vector<double>> bins(static_cast<std::size_t>(hi - lo));
  for (const double v : g.values) {
    int e = 0;
    std::frexp(v, &e);
    const int k = e - 1;  // v in [2^k, 2^(k+1))
    if (k >= lo && k < hi) bins[static_cast<std::size_t>(k - lo)].push_back(v);
  }
  std::string j = fmt::format("{{\"scale\": {}, \"total\": {}, \"formats\": [", num(scale), g.values.size());
  bool firstf = true;
  for (const auto& nf : plot_formats()) {
    if (std::string(nf.name) == "fp32") continue;
    const lf::format& f = *nf.f;
    const mpq::demo::range_row all = mpq::demo::classify_at_scale(f, g.values, scale);
    j += fmt::format("{}{{\"name\": \"{}\", \"min_subnormal\": {}, \"min_normal\": {}, \"max\": {}, "
                     "\"zero\": {}, \"subnormal\": {}, \"normal\": {}, \"overflow\": {}, \"bins\": [",
                     firstf ? "" : ", ", nf.name, num(value_of(f, 1)), num(value_of(f, f.min_normal_bits())),
                     num(value_of(f, f.max_finite_bits())), all.zero, all.subnormal, all.normal, all.overflow);
    for (std::size_t i = 0; i < bins.size(); ++i) {
      const mpq::demo::range_row r = mpq::demo::classify_at_scale(f, bins[i], scale);
      j += fmt::format("{}{{\"e\": {}, \"count\": {}, \"zero\": {}, \"subnormal\": {}, \"normal\": {}, \"overflow\": {}}}",
                       i ? ", " : "", lo + static_cast<int>(i), bins[i].size(), r.zero, r.subnormal, r.normal, r.overflow);
    }
    j += "]}";
    firstf = false;
  }
  return give(j + "]}");
}

/// Q1: the weight w0 after each of `steps` updates of `update`, weight and update in fp16, bf16
/// and fp32 (w <- round(w + round(update)), nearest even), every `every`-th step and the last.
EMSCRIPTEN_KEEPALIVE const char* mpq_plot_weights(double w0, double update, int steps, int points) {
  if (steps < 1) steps = 1;
  if (steps > 1000000) steps = 1000000;
  if (points < 2) points = 2;
  const int every = steps / points > 0 ? steps / points : 1;
  std::string j = fmt::format("{{\"w0\": {}, \"update\": {}, \"steps\": {}, \"exact\": {}, \"series\": [", num(w0),
                              num(update), steps, num(w0 + static_cast<double>(steps) * update));
  bool firstf = true;
  for (const auto& nf : plot_formats()) {
    const lf::format& f = *nf.f;
    lf::status st{};
    const lf::bits_t u = encode(f, update);
    lf::bits_t w = encode(f, w0);
    std::string pts = fmt::format("[0, {}]", num(value_of(f, w)));
    for (int s = 1; s <= steps; ++s) {
      w = lf::add(f, w, u, lf::env{}, st);
      if (s % every == 0 || s == steps) pts += fmt::format(", [{}, {}]", s, num(value_of(f, w)));
    }
    j += fmt::format("{}{{\"name\": \"{}\", \"final\": {}, \"final_text\": {}, \"points\": [{}]}}", firstf ? "" : ", ",
                     nf.name, num(value_of(f, w)), mpq::json_string(lf::to_shortest(f, w)), pts);
    firstf = false;
  }
  return give(j + "]}");
}

/// Q4: the running sum of n copies of x under fp16, bf16 and fp32 accumulation (each sum rounded
/// to nearest even in the format, x rounded into it first), sampled at `points` steps, with the
/// exact sum n x of the fp16 x.
EMSCRIPTEN_KEEPALIVE const char* mpq_plot_sums(int n, double x, int points) {
  if (n < 1) n = 1;
  if (n > 1000000) n = 1000000;
  if (points < 2) points = 2;
  const int every = n / points > 0 ? n / points : 1;
  const double x16 = value_of(lf::binary16, encode(lf::binary16, x));
  std::string j = fmt::format("{{\"n\": {}, \"x\": {}, \"exact\": {}, \"series\": [", n, num(x16),
                              num(static_cast<double>(n) * x16));
  bool firstf = true;
  for (const auto& nf : plot_formats()) {
    const lf::format& f = *nf.f;
    lf::status st{};
    const lf::bits_t xb = encode(f, x16);
    lf::bits_t s = encode(f, 0.0);
    std::string pts = "[0, 0]";
    long stall = -1;
    for (int i = 1; i <= n; ++i) {
      const lf::bits_t next = lf::add(f, s, xb, lf::env{}, st);
      if (next == s && stall < 0) stall = i;
      s = next;
      if (i % every == 0 || i == n) pts += fmt::format(", [{}, {}]", i, num(value_of(f, s)));
    }
    j += fmt::format("{}{{\"name\": \"{}\", \"final\": {}, \"final_text\": {}, \"stalls_at\": {}, \"points\": [{}]}}",
                     firstf ? "" : ", ", nf.name, num(value_of(f, s)), mpq::json_string(lf::to_shortest(f, s)), stall,
                     pts);
    firstf = false;
  }
  return give(j + "]}");
}

/// Q3: x rounded into fp16, bf16 and fp32, with the `k` representable values on each side of the
/// result (finite ones), each as a number and as the format's shortest decimal.
EMSCRIPTEN_KEEPALIVE const char* mpq_plot_numberline(const char* text, int k) {
  if (k < 1) k = 1;
  if (k > 8) k = 8;
  const std::vector<std::string> xs = mpq::tryit::numbers(text ? text : "", 1);
  if (xs.empty()) return give("{\"error\": true}");
  const double x = std::stod(xs[0]);
  std::string j = fmt::format("{{\"x\": {}, \"text\": {}, \"formats\": [", num(x), mpq::json_string(xs[0]));
  bool firstf = true;
  for (const auto& nf : plot_formats()) {
    const lf::format& f = *nf.f;
    const lf::bits_t r = mpq::tryit::parse_in(f, xs[0]);
    const lf::fp_class c = lf::classify(f, r);
    std::string pts;
    if (mpq::tryit::is_finite(f, r)) {
      std::vector<lf::bits_t> around{r};
      lf::status st{};
      lf::bits_t b = r;
      for (int i = 0; i < k; ++i) {
        b = lf::next_down(f, b, st);
        if (!mpq::tryit::is_finite(f, b)) break;
        around.insert(around.begin(), b);
      }
      b = r;
      for (int i = 0; i < k; ++i) {
        b = lf::next_up(f, b, st);
        if (!mpq::tryit::is_finite(f, b)) break;
        around.push_back(b);
      }
      for (std::size_t i = 0; i < around.size(); ++i)
        pts += fmt::format("{}[{}, {}, {}]", i ? ", " : "", num(value_of(f, around[i])),
                           mpq::json_string(lf::to_shortest(f, around[i])), around[i] == r ? "true" : "false");
    }
    const char* cls = c == lf::fp_class::positive_zero || c == lf::fp_class::negative_zero ? "zero"
                      : c == lf::fp_class::positive_subnormal || c == lf::fp_class::negative_subnormal ? "subnormal"
                      : c == lf::fp_class::positive_infinity || c == lf::fp_class::negative_infinity ? "overflow"
                      : c == lf::fp_class::positive_normal || c == lf::fp_class::negative_normal ? "normal"
                                                                                                    : "nan";
    j += fmt::format("{}{{\"name\": \"{}\", \"stored\": {}, \"stored_text\": {}, \"class\": \"{}\", \"around\": [{}]}}",
                     firstf ? "" : ", ", nf.name, num(value_of(f, r)), mpq::json_string(lf::to_shortest(f, r)), cls,
                     pts);
    firstf = false;
  }
  return give(j + "]}");
}

}  // extern "C"
