// quiz/demos/hard/q14_kahan.cpp: hard question 14, a bf16 sum that stalls, and Kahan's compensation.
//
// n copies of bf16(0.01) added one after another (lf::sum, sequential order): with a bf16
// accumulator the sum stops once half the gap above it reaches the term, because acc + x then
// rounds back to acc (round to nearest even); Kahan's compensated summation (Kahan, "Further
// remarks on reducing truncation errors", CACM 8(1):40, 1965; lf::compensation::kahan, see
// models/accumulate.hpp) keeps the accumulator in bf16 and carries what each addition lost in a
// second bf16 variable c: y = t - c, u = s + y, c = (u - s) - y, s = u. Zamirai, Zhang, Aberger,
// De Sa, "Revisiting BFloat16 Training" (arXiv 2010.06192) use the same compensation for bf16
// weight updates.
#include "q14_kahan.hpp"

#include <bit>
#include <cmath>
#include <vector>

namespace mpq::demo {

namespace {

const lf::format& B = lf::bfloat16;

/// bf16 throughout with Kahan's compensation (no preset has it: lf::accumulations::bf16_acc plus
/// compensation::kahan).
constexpr lf::accumulation bf16_kahan{.input = lf::bfloat16, .products = lf::product_mode::rounded,
                                      .product_format = lf::bfloat16, .accumulator = lf::bfloat16,
                                      .compensation = lf::compensation::kahan};
/// bf16 terms, an fp32 accumulator (lf::accumulations::bf16_fp32_acc: a sum has no products).
constexpr lf::accumulation fp32_sum = lf::accumulations::bf16_fp32_acc;

/// The first k with acc_k + x == acc_k (acc_0 = +0, acc_{k+1} = acc_k + x rounded into f), k < n.
q14_stall find_stall(const lf::format& f, lf::bits_t x, std::size_t n) {
  q14_stall s;
  lf::bits_t acc = 0;
  for (std::size_t k = 0; k < n; ++k) {
    lf::status st{};
    const lf::bits_t next = lf::add(f, acc, x, lf::env{}, st);
    if (next == acc) return {true, k, acc};
    acc = next;
  }
  return s;
}

struct sums {
  lf::value plain, kahan, fp32;
  lf::exact_accumulator exact;
};

sums sum_all(lf::bits_t x, std::size_t n) {
  const std::vector<lf::bits_t> xs(n, x);
  const std::span<const lf::bits_t> span(xs);
  sums s{lf::sum(lf::accumulations::bf16_acc, span), lf::sum(bf16_kahan, span), lf::sum(fp32_sum, span), {}};
  lf::exact_accumulator one;
  one.add(B, x);
  s.exact = one.scaled(static_cast<std::uint64_t>(n), 0);  // n x, exactly
  return s;
}

double rel_error(const lf::exact_accumulator& exact, const lf::value& v) {
  lf::exact_accumulator d;
  d.add(v.fmt, v.bits).sub(exact);
  return std::fabs(lf::exact_accumulator::quotient(d, exact));
}

}  // namespace

q14_result run_q14(std::uint64_t seed) {
  q14_result r;
  r.seed = seed;
  lf::status ignored{};
  r.x_bits = lf::convert(B, lf::binary64, std::bit_cast<std::uint64_t>(r.x), lf::env{}, ignored);
  const sums s = sum_all(r.x_bits, r.n);
  r.plain = s.plain;
  r.kahan = s.kahan;
  r.fp32 = s.fp32;
  r.exact = s.exact.to_double();
  r.plain_error = rel_error(s.exact, s.plain);
  r.kahan_error = rel_error(s.exact, s.kahan);
  r.fp32_error = rel_error(s.exact, s.fp32);
  lf::accumulation tz = lf::accumulations::bf16_acc;
  tz.accumulator_env = lf::env{lf::rounding::toward_zero};
  r.toward_zero = lf::sum(tz, std::span<const lf::bits_t>(std::vector<lf::bits_t>(r.n, r.x_bits)));
  r.toward_zero_error = rel_error(s.exact, r.toward_zero);
  r.stall = find_stall(B, r.x_bits, r.n);
  if (r.stall.stalls) r.stall_half_gap = lf::training::half_gap(B, r.stall.value, true);
  return r;
}

page page_q14(const q14_result& r, const language& l) {
  page p(l);
  p.say(l, "q14.demo.title", {{"n", std::to_string(r.n)},
                              {"x", shortest(lf::binary64, r.x)},
                              {"xb", lf::to_exact_decimal(B, r.x_bits)}});
  table t(std::vector<std::string>{l.get("q14.demo.model"), l.get("q14.demo.sum"), l.get("try.rel_error")},
          {false, false, false});
  t.rows.push_back({l.get("q14.demo.plain"), lf::to_shortest(r.plain.fmt, r.plain.bits), sci(r.plain_error)});
  t.rows.push_back({l.get("q14.demo.kahan"), lf::to_shortest(r.kahan.fmt, r.kahan.bits), sci(r.kahan_error)});
  t.rows.push_back({l.get("q14.demo.fp32"), lf::to_shortest(r.fp32.fmt, r.fp32.bits), sci(r.fp32_error)});
  t.rows.push_back({l.get("q14.demo.toward_zero"), lf::to_shortest(r.toward_zero.fmt, r.toward_zero.bits),
                    sci(r.toward_zero_error)});
  p.add(std::move(t));
  p.say(l, "q14.demo.exact", {{"exact", lf::to_exact_decimal(lf::binary64, std::bit_cast<std::uint64_t>(r.exact))}}, 2);
  if (r.stall.stalls)
    p.say(l, "q14.demo.stall", {{"v", lf::to_shortest(B, r.stall.value)},
                                {"k", std::to_string(r.stall.terms)},
                                {"half", power_or_shortest(lf::binary64, r.stall_half_gap)},
                                {"half_dec", shortest(lf::binary64, r.stall_half_gap)},
                                {"xb", lf::to_shortest(B, r.x_bits)}});
  p.say(l, "q14.demo.kahan_why", {{"kahan", lf::to_shortest(r.kahan.fmt, r.kahan.bits)},
                                  {"kerr", sci(r.kahan_error)},
                                  {"perr", sci(r.plain_error)}});
  return p;
}

// ---- try it: a count n and a value x --------------------------------------------------------------
try_outcome try_q14(const language& l, std::string_view line) {
  const auto v = tryit::numbers(line, 2);
  if (v.empty()) return tryit::failure(l, 14, line);
  const double nd = std::bit_cast<double>(tryit::parse_in(lf::binary64, v[0]));
  if (nd < 1 || nd > static_cast<double>(q14_max_n) || nd != std::floor(nd)) return tryit::failure(l, 14, line);
  const auto n = static_cast<std::size_t>(nd);
  const lf::bits_t x = tryit::parse_in(B, v[1]);
  if (!tryit::is_finite(B, x)) return tryit::failure(l, 14, line);
  const sums s = sum_all(x, n);
  const bool zero = lf::classify(B, x) == lf::fp_class::positive_zero || lf::classify(B, x) == lf::fp_class::negative_zero;
  page p(l);
  p.say(l, "try.q14.title", {{"n", std::to_string(n)}, {"x", v[1]}, {"xb", lf::to_shortest(B, x)}});
  table t({l.get("q14.demo.model"), l.get("q14.demo.sum"), l.get("try.rel_error"), l.get("try.q14.stalls")});
  auto stall_text = [&](const lf::format& f) -> std::string {
    if (zero) return "";  // adding zero changes nothing, there is nothing to stall
    lf::status ignored{};
    const lf::bits_t xf = lf::convert(f, B, x, lf::env{}, ignored);  // exact: bf16 fits in fp32
    const q14_stall st = find_stall(f, xf, n);
    if (!st.stalls) return "";
    return l.get("try.q14.stall_at", localized({{"v", lf::to_shortest(f, st.value)}, {"k", std::to_string(st.terms)}}, l));
  };
  t.rows.push_back({l.get("q14.demo.plain"), lf::to_shortest(s.plain.fmt, s.plain.bits),
                    tryit::relative_error(s.exact, s.plain.fmt, s.plain.bits), stall_text(B)});
  t.rows.push_back({l.get("q14.demo.kahan"), lf::to_shortest(s.kahan.fmt, s.kahan.bits),
                    tryit::relative_error(s.exact, s.kahan.fmt, s.kahan.bits), ""});
  t.rows.push_back({l.get("q14.demo.fp32"), lf::to_shortest(s.fp32.fmt, s.fp32.bits),
                    tryit::relative_error(s.exact, s.fp32.fmt, s.fp32.bits), stall_text(lf::binary32)});
  p.add(std::move(t));
  // n x is exact in binary64: n <= 100000 < 2^17 times an 8-bit significand needs 25 bits, and
  // |n x| lies between bf16's smallest subnormal (2^-133) and 10^5 x its max (below 2^134).
  lf::status ignored{};
  const lf::bits_t e = s.exact.round_to(lf::binary64, lf::env{}, ignored);
  p.say(l, "try.q14.exact", {{"exact", lf::to_shortest(lf::binary64, e)}}, 2);
  p.say(l, "try.q14.note");
  return {true, std::move(p), {}};
}

void facts_q14(vars& v) {
  const q14_result r = run_q14(default_seed);
  v["q14_n"] = std::to_string(r.n);
  v["q14_x"] = shortest(lf::binary64, r.x);
  v["q14_x_bf16"] = lf::to_exact_decimal(B, r.x_bits);
  v["q14_plain"] = lf::to_shortest(r.plain.fmt, r.plain.bits);
  v["q14_exact"] = shortest(lf::binary64, r.exact);
  v["q14_kahan"] = lf::to_shortest(r.kahan.fmt, r.kahan.bits);
  v["q14_fp32"] = lf::to_shortest(r.fp32.fmt, r.fp32.bits);
  v["q14_stall_k"] = std::to_string(r.stall.terms);
  v["q14_plain_err"] = sci(r.plain_error);
  v["q14_kahan_err"] = sci(r.kahan_error);
  v["q14_toward_zero"] = lf::to_shortest(r.toward_zero.fmt, r.toward_zero.bits);
}

}  // namespace mpq::demo
