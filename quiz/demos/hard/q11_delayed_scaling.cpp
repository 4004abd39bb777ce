// Q11 delayed scaling (hard level): a tensor whose values are stable for a few steps and then
// grow 16 times, cast to FP8 E4M3 with Transformer Engine's DelayedScaling (the scale from the
// amax history of the previous steps, lf::training::fp8_delayed_scaling) and, for comparison,
// with Float8CurrentScaling (the scale from the tensor's own amax, lf::training::fp8_current_scaling).
//
// Sources (the facts that decide the results): TE transformer_engine.common.recipe.DelayedScaling
// (margin 0, amax_history_len 1024, amax_compute_algo 'max'; scale = (fp8_max / amax) / 2^margin
// from the previous steps' amax history; every scale starts at 1), Float8CurrentScaling (amax of
// the current tensor): numerics-facts.md §7 and libfloat/training/scaling_recipes.hpp. E4M3's
// largest finite value 448, and the casts saturate (cvt.rn.satfinite): numerics-facts.md §1, §7.
#include "q11_delayed_scaling.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <random>

#include <libfloat/training/scaling_recipes.hpp>

namespace mpq::demo {

namespace {

namespace tr = lf::training;

std::string f32s(float v) { return lf::to_shortest(lf::binary32, std::bit_cast<std::uint32_t>(v)); }
std::string f64s(double v) { return shortest(lf::binary64, v); }

/// E4M3's largest finite value and the product beyond which a cast saturates (max + half an ulp:
/// IEEE 754-2019 §7.4 rounds as if the exponent range were unbounded; 464 itself is a tie that
/// goes to 448, the even neighbour).
double e4m3_max() { return lf::detail::decode_double(lf::float8_e4m3fn, lf::float8_e4m3fn.max_finite_bits()); }
double e4m3_saturate_above() { return e4m3_max() + lf::training::half_ulp(lf::float8_e4m3fn, e4m3_max()); }

}  // namespace

q11_result run_q11(std::uint64_t seed) {
  q11_result r;
  r.seed = seed;
  const tr::delayed_scaling_config cfg{};  // TE's defaults: E4M3 here, 1024, 'max', margin 0
  r.history_len = cfg.history_len;
  r.fp8_max = e4m3_max();
  r.saturate_above = e4m3_saturate_above();
  std::mt19937_64 gen(seed);
  tr::fp8_delayed_scaling ds(cfg);
  for (std::size_t t = 1; t <= r.steps; ++t) {
    const float a = t < r.jump_step ? 1.0f : r.factor;
    std::vector<float> x(r.n);
    for (float& v : x) {
      const auto k = static_cast<double>(gen() >> 40);  // 24 random bits
      v = a * static_cast<float>(2.0 * (k / 16777216.0) - 1.0);  // exact: (2k - 2^24) / 2^24 times 1 or 16
    }
    q11_step s;
    s.step = t;
    const std::vector<float>& h = ds.amax_history();
    s.has_history = !h.empty();
    if (s.has_history) s.history_amax = *std::max_element(h.begin(), h.end());
    s.scale = ds.scale();
    const tr::recipe_result d = ds.step(x, 1, r.n);
    s.amax = ds.steps().back().amax;
    s.saturated = d.stats.saturated;
    s.zero = d.stats.zero;
    s.rms_rel = d.stats.rms_rel_error();
    const tr::recipe_result c = tr::fp8_current_scaling(x, 1, r.n);
    s.cur_scale = static_cast<float>(c.scales[0]);
    s.cur_saturated = c.stats.saturated;
    s.cur_zero = c.stats.zero;
    s.cur_rms_rel = c.stats.rms_rel_error();
    r.rows.push_back(s);
    r.x.push_back(std::move(x));
  }
  return r;
}

page page_q11(const q11_result& r, const language& l) {
  page p(l);
  p.say(l, "q11.demo.title", {{"n", std::to_string(r.n)}, {"last_calm", std::to_string(r.jump_step - 1)},
                              {"jump", std::to_string(r.jump_step)}, {"factor", f32s(r.factor)},
                              {"max", f64s(r.fp8_max)}, {"len", std::to_string(r.history_len)}});
  table t({l.get("q11.demo.head.step"), l.get("q11.demo.head.history"), l.get("q11.demo.head.scale"),
           l.get("q11.demo.head.amax"), l.get("q11.demo.head.saturated"), l.get("q11.demo.head.error"),
           l.get("q11.demo.head.scale"), l.get("q11.demo.head.saturated"), l.get("q11.demo.head.error")},
          {true, true, true, true, true, true, true, true, true});
  t.groups = {{l.get("q11.demo.group.delayed"), 1}, {l.get("q11.demo.group.current"), 6}};
  for (const q11_step& s : r.rows)
    t.rows.push_back({std::to_string(s.step), s.has_history ? f32s(s.history_amax) : "-", f32s(s.scale), f32s(s.amax),
                      std::to_string(s.saturated), sci(s.rms_rel), f32s(s.cur_scale), std::to_string(s.cur_saturated),
                      sci(s.cur_rms_rel)});
  p.add(std::move(t));
  const q11_step& first = r.rows.front();
  p.say(l, "q11.demo.first", {{"scale", f32s(first.scale)}});
  const q11_step& j = r.rows[r.jump_step - 1];
  p.say(l, j.saturated ? "q11.demo.jump" : "q11.demo.jump_none",
        {{"jump", std::to_string(j.step)}, {"amax", f32s(j.amax)}, {"scale", f32s(j.scale)},
         {"hist", f32s(j.history_amax)}, {"sat", std::to_string(j.saturated)}, {"n", std::to_string(r.n)},
         {"above", f64s(r.saturate_above)}, {"max", f64s(r.fp8_max)}, {"err", sci(j.rms_rel)},
         {"cur_scale", f32s(j.cur_scale)}, {"cur_sat", std::to_string(j.cur_saturated)}, {"cur_err", sci(j.cur_rms_rel)}});
  if (r.jump_step < r.steps) {
    const q11_step& nx = r.rows[r.jump_step];
    p.say(l, nx.saturated ? "q11.demo.next_sat" : "q11.demo.next",
          {{"next", std::to_string(nx.step)}, {"hist", f32s(nx.history_amax)}, {"scale", f32s(nx.scale)},
           {"sat", std::to_string(nx.saturated)}, {"len", std::to_string(r.history_len)}});
  }
  return p;
}

// ---- try it: a history amax and a value of the new tensor --------------------------------------

namespace {

/// One cast of x: its scale's source, the scale, x * scale (exact in binary64), the E4M3 encoding
/// and x as it comes back, and what happened.
struct q11_cast {
  float amax = 0, scale = 1;
  double product = 0, back = 0;
  lf::bits_t code = 0;
  bool saturated = false, zero = false, exact = false;
};

q11_cast cast_of(const tr::recipe_result& res, float amax, float x) {
  q11_cast c;
  c.amax = amax;
  c.scale = static_cast<float>(res.scales[0]);
  c.product = static_cast<double>(x) * res.scales[0];
  c.code = res.codes[0];
  c.back = res.value(0);
  c.saturated = res.stats.saturated != 0;
  c.zero = res.stats.zero != 0;
  c.exact = res.stats.exact != 0;
  return c;
}

}  // namespace

try_outcome try_q11(const language& l, std::string_view line) {
  const auto v = tryit::numbers(line, 2);
  if (v.empty()) return tryit::failure(l, 11, line);
  const lf::bits_t ab = tryit::parse_in(lf::binary32, v[0]), xb = tryit::parse_in(lf::binary32, v[1]);
  const float a = std::bit_cast<float>(static_cast<std::uint32_t>(ab));
  const float x = std::bit_cast<float>(static_cast<std::uint32_t>(xb));
  // The history amax must be a positive finite binary32 (an amax of 0 or inf leaves TE's scale
  // alone); x any finite binary32.
  if (!(a > 0) || !std::isfinite(a) || !std::isfinite(x)) return tryit::failure(l, 11, line);
  // Delayed: one step whose amax is a fills the history, the next step casts x with its scale.
  tr::fp8_delayed_scaling ds;
  const float one[1] = {a};
  ds.step(one, 1, 1);
  const float xs[1] = {x};
  const q11_cast d = cast_of(ds.step(xs, 1, 1), a, x);
  // Current: x is the whole tensor, so its amax is |x|.
  const q11_cast c = cast_of(tr::fp8_current_scaling(xs, 1, 1), std::fabs(x), x);
  page p(l);
  p.say(l, "try.q11.title", {{"a", f32s(a)}, {"x", f32s(x)}});
  table t({l.get("try.q11.recipe"), l.get("try.q11.amax"), l.get("q11.demo.head.scale"), l.get("try.q11.product"),
           "E4M3", l.get("try.q11.back"), l.get("try.rel_error")});
  const double max = e4m3_max();
  const auto row = [&](const char* key, const q11_cast& k) {
    const std::string err = x == 0 ? std::string("-") : sci(std::fabs(k.back - static_cast<double>(x)) / std::fabs(static_cast<double>(x)));
    t.rows.push_back({l.get(key), f32s(k.amax), f32s(k.scale), f64s(k.product), lf::to_shortest(lf::float8_e4m3fn, k.code),
                      f64s(k.back), err});
  };
  row("q11.demo.group.delayed", d);
  row("q11.demo.group.current", c);
  p.add(std::move(t));
  const auto say_cast = [&](const char* who, const q11_cast& k) {
    const char* key = k.saturated ? "try.q11.saturated" : k.zero ? "try.q11.zero" : k.exact ? "try.q11.exact" : "try.q11.rounded";
    p.say(l, key, {{"who", l.get(who)}, {"p", f64s(k.product)}, {"above", f64s(e4m3_saturate_above())},
                   {"max", f64s(max)}, {"back", f64s(k.back)}});
  };
  say_cast("q11.demo.group.delayed", d);
  say_cast("q11.demo.group.current", c);
  return {true, std::move(p), {}};
}

void facts_q11(vars& v) {
  const tr::delayed_scaling_config cfg{};
  v["q11_history_len"] = std::to_string(cfg.history_len);
  v["q11_e4m3_max"] = f64s(e4m3_max());
  v["q11_saturate_above"] = f64s(e4m3_saturate_above());
}

}  // namespace mpq::demo
