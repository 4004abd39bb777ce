// Q8 autocast: the ops of a small transformer block with the dtype each gets under CUDA autocast
// (float16) and CPU autocast (bfloat16), from lf::training's policy tables; then why CUDA autocast
// runs exp and sum in float32: a naive softmax of logits [12, 11, 10] in fp16 gives NaN (exp(12)
// rounds to inf in fp16, which happens from exp(x) >= 65520, and inf/inf is NaN) while fp32 and
// the max-subtracted formula PyTorch's own softmax uses give the right answer; and 10,000 x 0.01
// added one at a time in fp16 against fp32.
#include <cmath>

#include <fmt/format.h>

#include "demos.hpp"

namespace mpq::demo {

namespace {

/// exp(x) computed accurately (binary64) and rounded once into F, as a kernel that computes in
/// float internally and stores its result in F would; then the naive softmax, every step in F.
/// subtract_max: exp(x - max) instead of exp(x), x - max computed in F (as PyTorch's softmax
/// kernels do, SoftMax.cu / PersistentSoftmax.cuh).
template <lf::format F>
void softmax(const std::vector<double>& logits, std::vector<double>& e_out, std::vector<double>& p_out,
             bool subtract_max = false) {
  std::vector<lf::fp<F>> e;
  lf::fp<F> sum(0.0);
  lf::fp<F> max(logits.empty() ? 0.0 : logits[0]);
  for (const double x : logits) max = lf::fp<F>(x) > max ? lf::fp<F>(x) : max;
  for (const double x : logits) {
    const lf::fp<F> arg = subtract_max ? lf::fp<F>(x) - max : lf::fp<F>(x);
    e.emplace_back(std::exp(static_cast<double>(arg)));
    sum = sum + e.back();
  }
  for (const lf::fp<F>& v : e) {
    e_out.push_back(static_cast<double>(v));
    p_out.push_back(static_cast<double>(v / sum));
  }
}

}  // namespace

void naive_softmax(bool fp16, const std::vector<double>& logits, std::vector<double>& e, std::vector<double>& p,
                   bool subtract_max) {
  if (fp16) softmax<lf::binary16>(logits, e, p, subtract_max);
  else softmax<lf::binary32>(logits, e, p, subtract_max);
}

q8_result run_q8() {
  q8_result r;
  const std::pair<const char*, const char*> block[] = {
      {"layer_norm", "norm"},   {"linear", "qkv"},      {"matmul", "scores"}, {"softmax", "attention"},
      {"matmul", "context"},    {"linear", "out"},      {"add", "residual"},  {"gelu", "mlp"},
      {"nll_loss", "loss"},
  };
  for (const auto& [op, role] : block)
    r.ops.push_back({op, role, lf::training::autocast_lookup(lf::training::device_kind::cuda, op, "float32"),
                     lf::training::autocast_lookup(lf::training::device_kind::cpu, op, "float32")});

  softmax<lf::binary16>(r.logits, r.exp_fp16, r.softmax_fp16);
  softmax<lf::binary32>(r.logits, r.exp_fp32, r.softmax_fp32);
  softmax<lf::binary16>(r.logits, r.exp_fp16_max, r.softmax_fp16_max, true);
  r.fp16_max = static_cast<double>(std::numeric_limits<lf::fp16>::max());
  r.fp16_overflow_from = r.fp16_max + lf::training::half_ulp(lf::binary16, r.fp16_max);

  const std::vector<lf::fp16> h(static_cast<std::size_t>(r.count), lf::fp16(r.term));
  const std::vector<lf::fp32> s(static_cast<std::size_t>(r.count), lf::fp32(r.term));
  r.sum_fp16 = lf::sum(lf::accumulations::fp16_acc, h).to_double();
  r.sum_fp16_fp32acc = lf::sum(lf::accumulations::fp32_acc, h).to_double();
  constexpr lf::accumulation fp32_sum{.input = lf::binary32, .products = lf::product_mode::exact,
                                      .accumulator = lf::binary32};
  r.sum_fp32 = lf::sum(fp32_sum, s).to_double();
  return r;
}

page page_q8(const q8_result& r, const language& l) {
  page p(l);
  p.say(l, "q8.demo.title");
  auto dtype = [&](const lf::training::autocast_decision& d) {
    if (d.policy == lf::training::cast_policy::banned) return l.get("q8.demo.banned");
    if (d.policy == lf::training::cast_policy::unlisted || d.policy == lf::training::cast_policy::promote)
      return l.get("q8.demo.as_input");
    return std::string(d.dtype);
  };
  table t(std::vector<std::string>{l.get("q8.demo.op"), l.get("q8.demo.cuda"), l.get("q8.demo.cpu")});
  for (const q8_op& op : r.ops)
    t.rows.push_back({op.op + " (" + l.get("q8.demo.role." + op.role) + ")", dtype(op.cuda), dtype(op.cpu)});
  p.add(std::move(t));
  p.say(l, "q8.demo.table_note");

  // A NaN is shown as the language's "NaN": lf::to_shortest would show "-nan", the sign of the
  // default NaN that inf/inf gives (libfloat follows x86: sign bit set), which means nothing here.
  auto list = [&l](const std::vector<double>& v, const lf::format& f) {
    std::string s;
    for (const double x : v) {
      lf::status ignored{};
      const lf::fp_class c = lf::classify(f, lf::convert(f, lf::binary64, std::bit_cast<std::uint64_t>(x), lf::env{}, ignored));
      const bool nan = c == lf::fp_class::quiet_nan || c == lf::fp_class::signaling_nan;
      s += (s.empty() ? "" : l.raw("list_sep") + " ") + (nan ? l.get("q8.demo.nan") : localize_number(shortest(f, x), l));
    }
    return "[" + s + "]";
  };
  p.blank().say(l, "q8.demo.softmax", {{"logits", list(r.logits, lf::binary64)}});
  p.say(l, "q8.demo.sm16", {{"exp", list(r.exp_fp16, lf::binary16)}, {"p", list(r.softmax_fp16, lf::binary16)}}, 4, 2);
  p.say(l, "q8.demo.sm32", {{"exp", list(r.exp_fp32, lf::binary32)}, {"p", list(r.softmax_fp32, lf::binary32)}}, 4, 2);
  p.say(l, "q8.demo.sm16_max", {{"exp", list(r.exp_fp16_max, lf::binary16)}, {"p", list(r.softmax_fp16_max, lf::binary16)}}, 4, 2);
  p.say(l, "q8.demo.sm_why", {{"max", shortest(lf::binary16, r.fp16_max)},
                                       {"from", shortest(lf::binary64, r.fp16_overflow_from)},
                                       {"ln_max", fmt::format("{:.4f}", std::log(r.fp16_max))},
                                       {"ln_from", fmt::format("{:.4f}", std::log(r.fp16_overflow_from))}});
  p.say(l, "q8.demo.sm_torch");
  p.blank().say(l, "q8.demo.sum", {{"n", std::to_string(r.count)},
                                           {"x", shortest(lf::binary64, r.term)},
                                           {"fp16", shortest(lf::binary16, r.sum_fp16)},
                                           {"fp16_32", shortest(lf::binary32, r.sum_fp16_fp32acc)},
                                           {"fp32", shortest(lf::binary32, r.sum_fp32)}});
  return p;
}

}  // namespace mpq::demo
