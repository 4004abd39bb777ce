// quiz/demos/hard/q12_unscale_clipping.cpp: hard question 12, why scaler.unscale_(optimizer) comes
// before torch.nn.utils.clip_grad_norm_. A seeded gradient of known norm goes through the backward
// pass of a scaled loss (each g_i x S rounded once to fp16 by libfloat, held in the fp32 .grad),
// then through both orders of unscaling and clipping, every operation a binary32 one of libfloat:
//
//   unscale_ (torch/amp/grad_scaler.py, GradScaler.unscale_ and _unscale_grads_): every gradient is
//     multiplied by inv_scale = self._scale.double().reciprocal().float() (grad_scaler::inverse_scale);
//   clip_grad_norm_ (torch/nn/utils/clip_grad.py, _get_total_norm and _clip_grads_with_norm_):
//     total_norm = the 2-norm of the gradients (fp32), clip_coef = max_norm / (total_norm + 1e-6),
//     clip_coef_clamped = clamp(clip_coef, max=1.0), every gradient multiplied by it. The fp32
//     tensor + 1e-6 rounds 1e-6 to fp32 and adds in fp32; max_norm / tensor is Tensor.__rdiv__
//     (torch/_tensor.py: self.reciprocal() * other), so the coefficient is fp32(1 / denominator)
//     times fp32(max_norm), each rounded to fp32;
//   step() (GradScaler.step) unscales the gradients itself unless unscale_ was already called for
//     this optimizer since the last update() ("Gradient clipping" in the torch.amp examples,
//     https://pytorch.org/docs/stable/notes/amp_examples.html#gradient-clipping).
//
// The norm is a model of the reduction: squares summed in index order in fp32, then sqrt in fp32
// (PyTorch's kernels sum in a tree order; their last bits may differ, not the factor S).
#include "q12_unscale_clipping.hpp"

#include <cmath>
#include <limits>
#include <random>

#include <fmt/format.h>

namespace mpq::demo {

namespace {

using lf::bits_t;

float f32(bits_t b) { return std::bit_cast<float>(static_cast<std::uint32_t>(b)); }
bits_t b32(float f) { return std::bit_cast<std::uint32_t>(f); }

/// The binary32 rounding of a binary64 value (nearest even).
bits_t to32(double d) {
  lf::status ignored{};
  return lf::convert(lf::binary32, lf::binary64, std::bit_cast<std::uint64_t>(d), lf::env{}, ignored);
}

/// The fp32 2-norm: squares summed in index order, then sqrt, each operation rounded to binary32.
float norm32(const std::vector<bits_t>& x) {
  lf::status ignored{};
  bits_t acc = b32(0.0f);
  for (const bits_t v : x) acc = lf::add(lf::binary32, acc, lf::mul(lf::binary32, v, v, lf::env{}, ignored), lf::env{}, ignored);
  return f32(lf::sqrt(lf::binary32, acc, lf::env{}, ignored));
}

/// Every x_i times the binary32 factor c, rounded to binary32 (torch._foreach_mul_).
std::vector<bits_t> times(const std::vector<bits_t>& x, bits_t c) {
  lf::status ignored{};
  std::vector<bits_t> out;
  out.reserve(x.size());
  for (const bits_t v : x) out.push_back(lf::mul(lf::binary32, v, c, lf::env{}, ignored));
  return out;
}

/// clip_grad_norm_(x, max_norm) in place, returning what it computed.
q12_order clip(std::vector<bits_t>& x, double max_norm, q12_order& o) {
  lf::status ignored{};
  o.norm_seen = norm32(x);
  const bits_t denominator = lf::add(lf::binary32, b32(o.norm_seen), to32(1e-6), lf::env{}, ignored);
  const bits_t reciprocal = lf::div(lf::binary32, b32(1.0f), denominator, lf::env{}, ignored);
  const bits_t coef = lf::mul(lf::binary32, reciprocal, to32(max_norm), lf::env{}, ignored);
  o.coef = f32(coef) < 1.0f ? f32(coef) : 1.0f;  // torch.clamp(clip_coef, max=1.0)
  o.clipped = o.coef < 1.0f;
  x = times(x, b32(o.coef));
  return o;
}

/// A number in fp32 shortest form, or a power of two as 2^k when it is one from 2^17 up.
std::string scale_text(float s) { return power_or_shortest(lf::binary32, s); }

}  // namespace

std::vector<double> q12_gradient(std::uint64_t seed, std::size_t n, double norm) {
  std::mt19937_64 gen(seed);
  std::vector<double> v(n);
  long double sum = 0;
  for (double& x : v) {
    x = 2.0 * std::ldexp(static_cast<double>(gen() >> 11), -53) - 1.0;
    sum += static_cast<long double>(x) * x;
  }
  const double length = static_cast<double>(std::sqrt(sum));
  for (double& x : v) x = norm * (x / length);
  return v;
}

q12_orders run_q12_orders(const std::vector<double>& g, double scale, double max_norm) {
  q12_orders r;
  lf::training::grad_scaler_options o;
  o.init_scale = scale;
  const lf::training::grad_scaler scaler(o);
  r.scale = scaler.scale();
  r.inverse_scale = scaler.inverse_scale();
  // backward() of the scaled loss: g_i x S rounded once to fp16, held exactly in the fp32 .grad.
  std::vector<bits_t> grad;
  grad.reserve(g.size());
  for (const double x : g) {
    lf::status st{};
    const bits_t h = lf::training::scaled_gradient(lf::binary16, x, r.scale, st);
    const lf::fp_class c = lf::classify(lf::binary16, h);
    if (c == lf::fp_class::positive_infinity || c == lf::fp_class::negative_infinity) r.found_inf = true;
    lf::status ignored{};
    grad.push_back(lf::convert(lf::binary32, lf::binary16, h, lf::env{}, ignored));
  }
  if (r.found_inf) return r;  // unscale_ (explicit or in step()) finds inf: the step is skipped
  const bits_t inv = b32(r.inverse_scale);
  // Right order: unscale_, clip_grad_norm_, step() (which does not unscale again).
  std::vector<bits_t> a = times(grad, inv);
  clip(a, max_norm, r.correct);
  r.correct.final_norm = norm32(a);
  // Wrong order: clip_grad_norm_ on the scaled gradients, then step() unscales them.
  std::vector<bits_t> b = grad;
  clip(b, max_norm, r.wrong);
  b = times(b, inv);
  r.wrong.final_norm = norm32(b);
  lf::status ignored{};
  r.ratio = f32(lf::div(lf::binary32, b32(r.correct.final_norm), b32(r.wrong.final_norm), lf::env{}, ignored));
  return r;
}

q12_result run_q12(std::uint64_t seed) {
  q12_result r;
  r.seed = seed;
  r.scale = lf::training::grad_scaler_options{}.init_scale;  // 2^16, PyTorch's default
  r.g = q12_gradient(seed, r.n, r.true_norm);
  r.orders = run_q12_orders(r.g, r.scale, r.max_norm);
  return r;
}

namespace {

/// The two orders as a table and the sentence their coefficients call for.
void add_orders(page& p, const language& l, const q12_orders& o, double max_norm) {
  if (o.found_inf) {
    const double max16 = static_cast<double>(std::numeric_limits<lf::fp16>::max());
    p.say(l, "q12.demo.overflow", {{"overflow_from", shortest(lf::binary64, max16 + lf::training::half_ulp(lf::binary16, max16))}});
    return;
  }
  table t({l.get("q12.demo.order"), l.get("q12.demo.seen"), l.get("q12.demo.coef"), l.get("q12.demo.final")},
          {false, true, true, true});
  for (const auto& [key, ord] : {std::pair{"q12.demo.correct", &o.correct}, std::pair{"q12.demo.wrong", &o.wrong}})
    t.rows.push_back({l.get(key), shortest(lf::binary32, ord->norm_seen), shortest(lf::binary32, ord->coef),
                      shortest(lf::binary32, ord->final_norm)});
  p.add(std::move(t));
  const vars v{{"max", shortest(lf::binary32, f32(to32(max_norm)))},
               {"seen_wrong", shortest(lf::binary32, o.wrong.norm_seen)},
               {"seen_correct", shortest(lf::binary32, o.correct.norm_seen)},
               {"coef_wrong", shortest(lf::binary32, o.wrong.coef)},
               {"coef_correct", shortest(lf::binary32, o.correct.coef)},
               {"final_wrong", shortest(lf::binary32, o.wrong.final_norm)},
               {"final_correct", shortest(lf::binary32, o.correct.final_norm)},
               {"ratio", shortest(lf::binary32, o.ratio)},
               {"scale", scale_text(o.scale)}};
  if (!o.correct.clipped && !o.wrong.clipped) p.say(l, "q12.demo.none_clips", v);
  else if (!o.correct.clipped) p.say(l, "q12.demo.wrong_clips", v);
  else if (o.wrong.clipped) p.say(l, "q12.demo.both_clip", v);
  else p.say(l, "q12.demo.correct_clips", v);
}

}  // namespace

page page_q12(const q12_result& r, const language& l) {
  page p(l);
  p.say(l, "q12.demo.code_title");
  std::string code;
  for (int i = 1; l.has("q12.demo.code" + std::to_string(i)); ++i) code += "  " + l.get("q12.demo.code" + std::to_string(i)) + '\n';
  p.verbatim(code);
  p.say(l, "q12.demo.title", {{"n", std::to_string(r.n)},
                              {"seed", std::to_string(r.seed)},
                              {"norm", shortest(lf::binary64, r.true_norm)},
                              {"scale", scale_text(r.orders.scale)},
                              {"max", shortest(lf::binary64, r.max_norm)},
                              {"eps", shortest(lf::binary64, r.eps)}});
  add_orders(p, l, r.orders, r.max_norm);
  return p;
}

try_outcome try_q12(const language& l, std::string_view line) {
  const auto v = tryit::numbers(line, 3);
  if (v.empty()) return tryit::failure(l, 12, line);
  const double norm = std::bit_cast<double>(tryit::parse_in(lf::binary64, v[0]));
  const double scale = std::bit_cast<double>(tryit::parse_in(lf::binary64, v[1]));
  const double max_norm = std::bit_cast<double>(tryit::parse_in(lf::binary64, v[2]));
  int e = 0;
  const bool power_of_two = scale > 0 && std::frexp(scale, &e) == 0.5;
  if (!(norm >= 1e-3 && norm <= 1e3) || !(max_norm >= 1e-3 && max_norm <= 1e3) || !power_of_two || scale < 2 ||
      scale > std::ldexp(1.0, 24))
    return tryit::failure(l, 12, line);
  q12_result r;  // the demo's gradient direction, at the learner's norm
  const std::vector<double> g = q12_gradient(default_seed, r.n, norm);
  const q12_orders o = run_q12_orders(g, scale, max_norm);
  page p(l);
  p.say(l, "try.q12.title", {{"n", std::to_string(r.n)},
                             {"seed", std::to_string(default_seed)},
                             {"norm", shortest(lf::binary64, norm)},
                             {"scale", scale_text(o.scale)},
                             {"max", shortest(lf::binary32, f32(to32(max_norm)))}});
  add_orders(p, l, o, max_norm);
  return {true, std::move(p), {}};
}

void facts_q12(vars& v) {
  const q12_result r = run_q12(default_seed);
  v["q12_scale"] = scale_text(r.orders.scale);
  v["q12_norm"] = shortest(lf::binary64, r.true_norm);
  v["q12_max_norm"] = shortest(lf::binary64, r.max_norm);
  v["q12_eps"] = shortest(lf::binary64, r.eps);
  v["q12_seen_correct"] = shortest(lf::binary32, r.orders.correct.norm_seen);
  v["q12_seen_wrong"] = shortest(lf::binary32, r.orders.wrong.norm_seen);
  v["q12_coef_wrong"] = shortest(lf::binary32, r.orders.wrong.coef);
  v["q12_final_correct"] = shortest(lf::binary32, r.orders.correct.final_norm);
  v["q12_final_wrong"] = shortest(lf::binary32, r.orders.wrong.final_norm);
  v["q12_ratio"] = shortest(lf::binary32, r.orders.ratio);
}

}  // namespace mpq::demo
