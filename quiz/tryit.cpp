// quiz/tryit.cpp: "try it yourself" (see tryit.hpp). Every number shown is computed here by
// libfloat from the learner's input; the text around it is the language's (keys try.*).
#include "tryit.hpp"

#include <cmath>
#include <set>
#include <vector>

#include <fmt/format.h>
#include <libfloat/libfloat.hpp>
#include <libfloat/training.hpp>

#include "demos/demos.hpp"
#include "demos/hard/hard.hpp"

namespace mpq {

namespace tryit {

/// The input split into numbers: `count` of them, each a decimal that binary64 holds as a finite
/// value (the text kept, for parsing into each format). Empty on any error.
std::vector<std::string> numbers(std::string_view line, std::size_t count) {
  std::vector<std::string> out;
  std::string cur;
  for (const char c : std::string(line) + " ") {
    if (c == ' ' || c == '\t' || c == ',' || c == ';' || c == '\r') {
      if (!cur.empty()) out.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  if (out.size() != count) return {};
  for (const std::string& s : out) {
    const auto p = lf::parse(lf::binary64, s);
    if (!p || lf::classify(lf::binary64, p.value) == lf::fp_class::quiet_nan ||
        std::isinf(std::bit_cast<double>(p.value)))
      return {};
  }
  return out;
}

lf::bits_t parse_in(const lf::format& f, const std::string& s) { return lf::parse(f, s).value; }

bool is_finite(const lf::format& f, lf::bits_t b) {
  const lf::fp_class c = lf::classify(f, b);
  return c != lf::fp_class::positive_infinity && c != lf::fp_class::negative_infinity &&
         c != lf::fp_class::quiet_nan && c != lf::fp_class::signaling_nan;
}

/// |stored - exact| / |exact| with both exact (an exact_accumulator each), rounded once; "-" when
/// exact is zero or stored is not finite.
std::string relative_error(const lf::exact_accumulator& exact, const lf::format& f, lf::bits_t stored) {
  const lf::fp_class c = lf::classify(f, stored);
  if (exact.is_zero() || c == lf::fp_class::positive_infinity || c == lf::fp_class::negative_infinity) return "-";
  lf::exact_accumulator diff;
  diff.add(f, stored).sub(exact);
  return demo::sci(std::fabs(lf::exact_accumulator::quotient(diff, exact)));
}

/// Input that does not have the accepted form: what was typed, then the form.
try_outcome failure(const language& l, int n, std::string_view line) {
  std::string input(line);
  while (!input.empty() && (input.back() == '\r' || input.back() == ' ')) input.pop_back();
  return {false, std::nullopt, l.get("try.bad", {{"input", input}}) + " " + l.get("try.q" + std::to_string(n) + ".form")};
}

}  // namespace tryit

namespace {

using namespace tryit;

struct named_format {
  const char* name;
  lf::format fmt;
};
constexpr named_format fp16_bf16_fp32[] = {{"fp16", lf::binary16}, {"bf16", lf::bfloat16}, {"fp32", lf::binary32}};

// ---- Q1: a weight and an update ---------------------------------------------------------------
try_outcome q1(const language& l, std::string_view line) {
  const auto v = numbers(line, 2);
  if (v.empty()) return failure(l, 1, line);
  page p(l);
  table t({l.get("try.format"), "w", l.get("try.q1.update"), l.get("try.q1.half_ulp"), "w + u", l.get("try.q1.result")});
  for (const auto& [name, f] : fp16_bf16_fp32) {
    const lf::bits_t w = parse_in(f, v[0]), u = parse_in(f, v[1]);
    lf::status st{};
    const lf::bits_t sum = lf::add(f, w, u, lf::env{}, st);
    const bool finite = is_finite(f, w);
    const bool lost = sum == w;  // w + u rounded back to w itself
    t.rows.push_back({name, lf::to_shortest(f, w), lf::to_shortest(f, u),
                      finite ? demo::power_or_shortest(lf::binary64, lf::training::half_ulp(f, w)) : "-",
                      lf::to_shortest(f, sum), l.get(lost ? "try.q1.lost" : "try.q1.moves")});
  }
  p.add(std::move(t));
  p.say(l, "try.q1.note");
  return {true, std::move(p), {}};
}

// ---- Q2 and Q7: a gradient and a loss scale -------------------------------------------------
try_outcome q2(const language& l, std::string_view line, int n) {
  const auto v = numbers(line, 2);
  if (v.empty()) return failure(l, n, line);
  const lf::bits_t g = parse_in(lf::binary64, v[0]), s = parse_in(lf::binary64, v[1]);
  if (std::bit_cast<double>(s) <= 0) return failure(l, n, line);
  lf::exact_accumulator exact;  // g x S, exactly
  exact.add_product(lf::binary64, g, lf::binary64, s);
  page p(l);
  p.say(l, "try.q2.title", {{"g", lf::to_shortest(lf::binary64, g)}, {"s", lf::to_shortest(lf::binary64, s)}});
  table t({l.get("try.format"), l.get("try.q2.stored"), l.get("try.q2.class"), l.get("try.rel_error")});
  for (const auto& [name, f] : fp16_bf16_fp32) {
    lf::status st{};
    const lf::bits_t r = exact.round_to(f, lf::env{}, st);  // one rounding of the exact product
    const lf::fp_class c = lf::classify(f, r);
    const char* cls = lf::has(st, lf::status::overflow)                                    ? "try.q2.overflow"
                      : c == lf::fp_class::positive_zero || c == lf::fp_class::negative_zero ? "try.q2.zero"
                      : c == lf::fp_class::positive_subnormal || c == lf::fp_class::negative_subnormal
                          ? "try.q2.subnormal"
                          : "try.q2.normal";
    t.rows.push_back({name, lf::to_shortest(f, r), l.get(cls), relative_error(exact, f, r)});
  }
  p.add(std::move(t));
  p.say(l, "try.q2.note");
  return {true, std::move(p), {}};
}

// ---- Q3: any number -----------------------------------------------------------------------------
try_outcome q3(const language& l, std::string_view line) {
  const auto v = numbers(line, 1);
  if (v.empty()) return failure(l, 3, line);
  lf::exact_accumulator x;  // the input as binary64 holds it
  x.add(lf::binary64, parse_in(lf::binary64, v[0]));
  page p(l);
  table t({l.get("try.format"), l.get("q3.demo.shortest"), l.get("q3.demo.stored"), l.get("try.rel_error")});
  for (const auto& [name, f] : fp16_bf16_fp32) {
    lf::status st{};
    const lf::bits_t r = lf::parse(f, v[0], lf::env{}, &st).value;  // the decimal rounded once
    const lf::fp_class c = lf::classify(f, r);
    std::string cell = lf::to_shortest(f, r);
    if (lf::has(st, lf::status::overflow)) cell += " " + l.get("q3.demo.overflow");
    else if ((c == lf::fp_class::positive_zero || c == lf::fp_class::negative_zero) && !x.is_zero())
      cell += " " + l.get("q3.demo.underflow");
    else if (c == lf::fp_class::positive_subnormal || c == lf::fp_class::negative_subnormal)
      cell += " " + l.get("q3.demo.subnormal");
    const bool finite = is_finite(f, r);
    t.rows.push_back({name, cell, finite ? lf::to_exact_decimal(f, r) : lf::to_shortest(f, r), relative_error(x, f, r)});
  }
  p.add(std::move(t));
  p.say(l, "try.q3.note");
  return {true, std::move(p), {}};
}

// ---- Q4: n copies of x --------------------------------------------------------------------------
constexpr std::int64_t q4_max_n = 1000000;

try_outcome q4(const language& l, std::string_view line) {
  const auto v = numbers(line, 2);
  if (v.empty()) return failure(l, 4, line);
  const double nd = std::bit_cast<double>(parse_in(lf::binary64, v[0]));
  if (nd < 1 || nd > static_cast<double>(q4_max_n) || nd != std::floor(nd)) return failure(l, 4, line);
  const auto n = static_cast<std::size_t>(nd);
  page p(l);
  p.say(l, "try.q4.title", {{"n", std::to_string(n)}, {"x", v[1]}});
  table t({l.get("try.q4.model"), l.get("try.q4.sum"), l.get("try.q4.exact"), l.get("try.rel_error"),
           l.get("try.q4.stalls")});
  constexpr lf::accumulation fp32_sum{.input = lf::binary32, .products = lf::product_mode::exact,
                                      .accumulator = lf::binary32};
  struct model {
    const char* key;
    lf::accumulation m;
    bool stalls;  ///< a plain sequential sum: report where adding x stops changing it
  };
  const model models[] = {{"try.q4.fp16", lf::accumulations::fp16_acc, true},
                          {"try.q4.bf16", lf::accumulations::bf16_acc, true},
                          {"try.q4.fp32", fp32_sum, true},
                          {"try.q4.kahan", lf::accumulations::fp16_kahan, false}};
  auto exact_of = [&](const lf::format& f, lf::bits_t x) {
    lf::exact_accumulator e;
    e.add(f, x);
    return e.scaled(static_cast<std::uint64_t>(n), 0);  // n x, exactly
  };
  for (const model& m : models) {
    const lf::format& f = m.m.input;
    const lf::bits_t x = parse_in(f, v[1]);
    const std::vector<lf::bits_t> xs(n, x);
    const lf::value s = lf::sum(m.m, std::span<const lf::bits_t>(xs));
    const lf::exact_accumulator e = exact_of(f, x);
    std::string stall;  // empty: it never stalls (a stacked table leaves the line out)
    if (m.stalls) {  // the first k with acc + x == acc: from there on the sum does not move
      lf::bits_t acc = 0;
      for (std::size_t k = 0; k < n; ++k) {
        lf::status st{};
        const lf::bits_t next = lf::add(f, acc, x, lf::env{}, st);
        if (next == acc) {
          stall = l.get("try.q4.stall_at", localized({{"v", lf::to_shortest(f, acc)}, {"k", std::to_string(k)}}, l));
          break;
        }
        acc = next;
      }
    }
    lf::status ignored{};
    t.rows.push_back({l.get(m.key), lf::to_shortest(s.fmt, s.bits),
                      lf::to_shortest(lf::binary64, e.round_to(lf::binary64, lf::env{}, ignored)),
                      relative_error(e, s.fmt, s.bits), stall});
  }
  {  // An A100 Tensor Core: the dot product of n copies of x (fp16) with n ones, fp32 output.
    const lf::bits_t x = parse_in(lf::binary16, v[1]);
    const std::vector<lf::fp16> xs(n, lf::fp16::from_bits(static_cast<std::uint16_t>(x))), ones(n, lf::fp16(1.0));
    const lf::fp32 d = lf::dot(lf::matrix_units::ampere_fp16, std::span<const lf::fp16>(xs),
                               std::span<const lf::fp16>(ones), lf::fp32(0.0f));
    const lf::exact_accumulator e = exact_of(lf::binary16, x);
    lf::status ignored{};
    t.rows.push_back({l.get("try.q4.ampere"), lf::to_shortest(lf::binary32, d.bits()),
                      lf::to_shortest(lf::binary64, e.round_to(lf::binary64, lf::env{}, ignored)),
                      relative_error(e, lf::binary32, d.bits()), ""});
  }
  p.add(std::move(t));
  p.say(l, "try.q4.note");
  return {true, std::move(p), {}};
}

// ---- Q6: GradScaler -----------------------------------------------------------------------------
try_outcome q6(const language& l, std::string_view line) {
  const auto v = numbers(line, 3);
  if (v.empty()) return failure(l, 6, line);
  const double scale = std::bit_cast<double>(parse_in(lf::binary64, v[0]));
  const double interval = std::bit_cast<double>(parse_in(lf::binary64, v[1]));
  const double at = std::bit_cast<double>(parse_in(lf::binary64, v[2]));
  if (!(scale > 0) || interval < 1 || interval > 1000 || interval != std::floor(interval) || at < 1 || at > 1000 ||
      at != std::floor(at))
    return failure(l, 6, line);
  lf::training::grad_scaler_options o;
  o.init_scale = scale;
  o.growth_interval = static_cast<std::int64_t>(interval);
  const auto k = static_cast<std::int64_t>(at);
  const std::int64_t steps = k + 2 * o.growth_interval + 1;  // the overflow, then two growths
  const auto trajectory = lf::training::run_scaler(o, steps, std::set<std::int64_t>{k});
  page p(l);
  p.say(l, "try.q6.title", {{"steps", std::to_string(steps)}, {"k", std::to_string(k)},
                            {"growth", demo::shortest(lf::binary64, o.growth_factor)},
                            {"backoff", demo::shortest(lf::binary64, o.backoff_factor)}});
  table t({l.get("q6.demo.steps"), l.get("q6.demo.scale"), l.get("q6.demo.event")}, {false, true, false});
  std::size_t i = 0;
  while (i < trajectory.size()) {  // runs of uneventful steps on one row, as in the demo
    std::size_t j = i;
    if (!trajectory[i].skipped)
      while (j + 1 < trajectory.size() && !trajectory[j].grew && !trajectory[j + 1].skipped) ++j;
    const auto& last = trajectory[j];
    std::string event;
    if (last.skipped) event = l.get("q6.demo.skipped", localized({{"after", lf::to_shortest(lf::binary32, std::bit_cast<std::uint32_t>(last.scale_after))}}, l));
    else if (last.grew)
      event = l.get("q6.demo.grew", localized({{"interval", std::to_string(o.growth_interval)},
                                     {"after", lf::to_shortest(lf::binary32, std::bit_cast<std::uint32_t>(last.scale_after))}}, l));
    t.rows.push_back({j == i ? std::to_string(trajectory[i].step)
                             : fmt::format("{}-{}", trajectory[i].step, trajectory[j].step),
                      lf::to_shortest(lf::binary32, std::bit_cast<std::uint32_t>(trajectory[i].scale_used)), event});
    i = j + 1;
  }
  p.add(std::move(t));
  return {true, std::move(p), {}};
}

// ---- Q8: softmax of [z, z - 1, z - 2] -------------------------------------------------------------
try_outcome q8(const language& l, std::string_view line) {
  const auto v = numbers(line, 1);
  if (v.empty()) return failure(l, 8, line);
  const double z = std::bit_cast<double>(parse_in(lf::binary64, v[0]));
  if (std::fabs(z) > 1e6) return failure(l, 8, line);
  const std::vector<double> logits{z, z - 1, z - 2};
  page p(l);
  auto list = [&l](const std::vector<double>& xs, const lf::format& f) {
    std::string s;
    for (const double x : xs) {
      lf::status ignored{};
      const lf::bits_t b = lf::convert(f, lf::binary64, std::bit_cast<std::uint64_t>(x), lf::env{}, ignored);
      const lf::fp_class c = lf::classify(f, b);
      const bool nan = c == lf::fp_class::quiet_nan || c == lf::fp_class::signaling_nan;
      s += (s.empty() ? "" : l.raw("list_sep") + " ") + (nan ? l.get("q8.demo.nan") : localize_number(lf::to_shortest(f, b), l));
    }
    return "[" + s + "]";
  };
  p.say(l, "try.q8.title", {{"logits", list(logits, lf::binary64)}});
  table t({l.get("try.format"), "exp", "softmax"});
  for (const bool fp16 : {true, false}) {
    std::vector<double> e, pr;
    demo::naive_softmax(fp16, logits, e, pr);
    const lf::format& f = fp16 ? lf::binary16 : lf::binary32;
    t.rows.push_back({fp16 ? "fp16" : "fp32", list(e, f), list(pr, f)});
  }
  std::vector<double> e, pr;
  demo::naive_softmax(true, logits, e, pr, true);
  t.rows.push_back({l.get("try.q8.fp16_max"), list(e, lf::binary16), list(pr, lf::binary16)});
  p.add(std::move(t));
  // exp(x) rounds to infinity in fp16 from max + half an ulp of max on (65520).
  lf::status st8{};
  const double max = std::bit_cast<double>(lf::convert(lf::binary64, lf::binary16, lf::binary16.max_finite_bits(),
                                                        lf::env{}, st8));
  const double from = max + lf::training::half_ulp(lf::binary16, max);
  p.say(l, "try.q8.note", {{"from", demo::shortest(lf::binary64, from)}, {"ln_from", fmt::format("{:.2f}", std::log(from))}});
  return {true, std::move(p), {}};
}

}  // namespace

bool has_try(int n) { return n >= 1 && n <= question_count && n != 5; }  // every hard question has one

try_outcome try_it(int n, const language& l, std::string_view line) {
  switch (n) {
    case 1: return q1(l, line);
    case 2:
    case 7: return q2(l, line, n);
    case 3: return q3(l, line);
    case 4: return q4(l, line);
    case 6: return q6(l, line);
    case 8: return q8(l, line);
    default:
      if (n >= level_first(level::hard) && n <= question_count) return demo::hard_try(n, l, line);
      return {false, std::nullopt, {}};
  }
}

}  // namespace mpq
