// Q10 E4M3 vs E5M2: the limits of the two OCP FP8 formats (OCP 8-bit Floating Point Specification
// v1.0; lf::float8_e4m3fn, lf::float8_e5m2 in libfloat/core/format.hpp), then Q2's seeded gradient
// magnitudes (spread over 2^-40..2^0) quantized to each with Transformer Engine's per-tensor
// current scaling (scale = fp8_max / amax, x * scale rounded to nearest even, saturating:
// lf::training::fp8_current_scaling, libfloat/training/scaling_recipes.hpp, after TE's
// compute_scale_from_amax and its cvt.rn.satfinite casts): how many become zero, subnormal, normal.
// Why gradients go to E5M2: TE recipe DelayedScaling's default fp8_format = HYBRID, E4M3 in the
// forward pass and E5M2 in the backward pass (transformer_engine/common/recipe/__init__.py;
// numerics-facts §7).
#include "q10_fp8_formats.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

namespace mpq::demo {

namespace {

template <lf::format F>
q10_format limits_of(const char* name) {
  using lim = std::numeric_limits<lf::fp<F>>;
  q10_format f;
  f.name = name;
  f.fmt = F;
  f.max = static_cast<double>(lim::max());
  f.min_normal = static_cast<double>(lim::min());
  f.min_subnormal = static_cast<double>(lim::denorm_min());
  f.precision = lim::digits;
  f.binades = std::ilogb(f.max) - std::ilogb(f.min_subnormal) + 1;
  f.unit_roundoff = lf::training::half_ulp(F, 1.0);
  return f;
}

bool is_zero(lf::fp_class c) { return c == lf::fp_class::positive_zero || c == lf::fp_class::negative_zero; }
bool is_subnormal(lf::fp_class c) {
  return c == lf::fp_class::positive_subnormal || c == lf::fp_class::negative_subnormal;
}

/// Nearest even, saturating at +-max: how TE casts to FP8 (cvt.rn.satfinite; the same env as
/// lf::training's recipes).
constexpr lf::env saturating_nearest{lf::rounding::nearest_even,
                                     lf::policy{lf::tininess::after_rounding, {}, {}, lf::overflow_policy::saturate}};

}  // namespace

q10_result run_q10(std::uint64_t seed) {
  q10_result r;
  r.grads = make_gradients(seed);
  for (const double g : r.grads.values) r.values.push_back(static_cast<float>(g));
  float amax = 0;
  for (const float x : r.values) amax = std::max(amax, std::fabs(x));
  r.amax = amax;
  r.formats.push_back(limits_of<lf::float8_e4m3fn>("E4M3"));
  r.formats.push_back(limits_of<lf::float8_e5m2>("E5M2"));
  for (q10_format& f : r.formats) {
    const lf::training::recipe_result q =
        lf::training::fp8_current_scaling(std::span<const float>(r.values), 1, r.values.size(), f.fmt);
    f.scale = q.scales[0];
    f.saturated = static_cast<std::int64_t>(q.stats.saturated);
    f.smallest_kept = INFINITY;
    for (std::size_t i = 0; i < r.values.size(); ++i) {
      const lf::fp_class c = lf::classify(f.fmt, q.codes[i]);
      const double x = r.values[i];
      if (is_zero(c)) {
        ++f.zero;
        f.largest_lost = std::max(f.largest_lost, x);
        continue;
      }
      f.smallest_kept = std::min(f.smallest_kept, x);
      if (is_subnormal(c)) {
        ++f.subnormal;
        continue;
      }
      ++f.normal;
      // |q - x s| / (x s), exact until the one rounding of the quotient (x and s are binary32),
      // over the x s in the normal range (a value just below min normal that rounds up to it is
      // a subnormal-range rounding, whose relative error the unit roundoff does not bound).
      lf::exact_accumulator p, d;
      p.add_product(lf::binary32, std::bit_cast<std::uint32_t>(r.values[i]), lf::binary32,
                    std::bit_cast<std::uint32_t>(static_cast<float>(f.scale)));
      if (lf::compare(p, f.fmt, f.fmt.min_normal_bits()) == std::partial_ordering::less) continue;
      d.add(f.fmt, q.codes[i]).sub(p);
      f.max_rel_normal = std::max(f.max_rel_normal, std::fabs(lf::exact_accumulator::quotient(d, p)));
    }
  }
  return r;
}

page page_q10(const q10_result& r, const language& l) {
  page p(l);
  const q10_format& e4 = r.formats[0];
  const q10_format& e5 = r.formats[1];
  p.say(l, "q10.demo.title");
  table lim(std::vector<std::string>{l.get("try.format"), "max", l.get("q10.demo.min_normal"),
                                     l.get("q10.demo.min_subnormal"), l.get("q10.demo.p"), l.get("q10.demo.binades")},
            {false, true, true, true, true, true});
  for (const q10_format& f : r.formats)
    lim.rows.push_back({f.name, shortest(lf::binary64, f.max), power_or_shortest(lf::binary64, f.min_normal),
                        power_or_shortest(lf::binary64, f.min_subnormal), std::to_string(f.precision),
                        std::to_string(f.binades)});
  p.add(std::move(lim));
  p.say(l, "q10.demo.limits", {{"b4", std::to_string(e4.binades)}, {"b5", std::to_string(e5.binades)},
                               {"u4", power_or_shortest(lf::binary64, e4.unit_roundoff)},
                               {"u5", power_or_shortest(lf::binary64, e5.unit_roundoff)},
                               {"p4", std::to_string(e4.precision)}, {"p5", std::to_string(e5.precision)}});

  const auto n = static_cast<std::int64_t>(r.values.size());
  p.blank().say(l, "q10.demo.grads", {{"n", std::to_string(n)}, {"lo", std::to_string(r.grads.lowest_exponent)},
                                      {"hi", std::to_string(r.grads.highest_exponent)},
                                      {"amax", shortest(lf::binary32, r.amax)}});
  table t(std::vector<std::string>{l.get("try.format"), l.get("q10.demo.scale"), l.get("q10.demo.zero"),
                                   l.get("q10.demo.subnormal"), l.get("q2.demo.normal")},
          {false, true, true, true, true});
  auto cell = [&](std::int64_t k) {
    return localize_number(std::to_string(k), l) + " (" + localize_number(percent(k, n), l) + ")";
  };
  for (const q10_format& f : r.formats)
    t.rows.push_back({f.name, shortest(lf::binary32, f.scale), cell(f.zero), cell(f.subnormal), cell(f.normal)});
  p.add(std::move(t));

  const vars v{{"z4", std::to_string(e4.zero)}, {"z5", std::to_string(e5.zero)},
               {"pz4", percent(e4.zero, n)}, {"pz5", percent(e5.zero, n)},
               {"lost4", e4.zero ? shortest(lf::binary32, e4.largest_lost) : "-"},
               {"lost5", e5.zero ? shortest(lf::binary32, e5.largest_lost) : "-"},
               {"kept4", shortest(lf::binary32, e4.smallest_kept)}, {"kept5", shortest(lf::binary32, e5.smallest_kept)},
               {"e4", sci(e4.max_rel_normal)}, {"e5", sci(e5.max_rel_normal)},
               {"u4", power_or_shortest(lf::binary64, e4.unit_roundoff)},
               {"u5", power_or_shortest(lf::binary64, e5.unit_roundoff)},
               {"s4", std::to_string(e4.saturated)}, {"s5", std::to_string(e5.saturated)}};
  // Each sentence chosen by the numbers it states.
  if (e4.zero > 0 && e5.zero > 0)
    p.say(l, e5.zero < e4.zero ? "q10.demo.zeros_fewer" : "q10.demo.zeros_not_fewer", v);
  else
    p.say(l, "q10.demo.zeros_plain", v);
  p.say(l, "q10.demo.kept", v);
  p.say(l, e5.max_rel_normal > e4.max_rel_normal ? "q10.demo.price" : "q10.demo.price_plain", v);
  if (e4.saturated || e5.saturated) p.say(l, "q10.demo.saturated", v);
  return p;
}

// ---- try it: a value (and a scale) into E4M3 and E5M2 --------------------------------------------
try_outcome try_q10(const language& l, std::string_view line) {
  auto v = tryit::numbers(line, 2);
  if (v.empty()) {
    v = tryit::numbers(line, 1);
    if (v.empty()) return tryit::failure(l, 10, line);
    v.push_back("1");
  }
  const lf::bits_t x = tryit::parse_in(lf::binary64, v[0]), s = tryit::parse_in(lf::binary64, v[1]);
  if (!(std::bit_cast<double>(s) > 0)) return tryit::failure(l, 10, line);
  lf::exact_accumulator exact;  // x * scale, exactly
  exact.add_product(lf::binary64, x, lf::binary64, s);
  page p(l);
  p.say(l, "try.q10.title", {{"x", lf::to_shortest(lf::binary64, x)}, {"s", lf::to_shortest(lf::binary64, s)}});
  table t({l.get("try.format"), l.get("try.q10.stored"), l.get("try.q10.class"), l.get("try.rel_error")});
  for (const auto& [name, f] : {std::pair{"E4M3", lf::float8_e4m3fn}, std::pair{"E5M2", lf::float8_e5m2}}) {
    lf::status st{};
    const lf::bits_t q = exact.round_to(f, saturating_nearest, st);  // one rounding of the exact product
    const lf::fp_class c = lf::classify(f, q);
    const char* cls = lf::has(st, lf::status::overflow) ? "try.q10.saturated"
                      : is_zero(c)                       ? "try.q10.zero"
                      : is_subnormal(c)                  ? "try.q10.subnormal"
                                                         : "try.q2.normal";
    // FP8 values have few digits: the stored value in full (lf::to_exact_decimal), not a shortest
    // text that would only identify it (0.004 for 0.00390625).
    t.rows.push_back({name, lf::to_exact_decimal(f, q), l.get(cls), tryit::relative_error(exact, f, q)});
  }
  p.add(std::move(t));
  p.say(l, "try.q10.note");
  return {true, std::move(p), {}};
}

void facts_q10(vars& v) {
  const q10_format e4 = limits_of<lf::float8_e4m3fn>("E4M3"), e5 = limits_of<lf::float8_e5m2>("E5M2");
  v["q10_e4m3_max"] = shortest(lf::binary64, e4.max);
  v["q10_e5m2_max"] = shortest(lf::binary64, e5.max);
  v["q10_e4m3_min_sub"] = power_or_shortest(lf::binary64, e4.min_subnormal);
  v["q10_e5m2_min_sub"] = power_or_shortest(lf::binary64, e5.min_subnormal);
  v["q10_e4m3_min_normal"] = power_or_shortest(lf::binary64, e4.min_normal);
  v["q10_e5m2_min_normal"] = power_or_shortest(lf::binary64, e5.min_normal);
  v["q10_e4m3_p"] = std::to_string(e4.precision);
  v["q10_e5m2_p"] = std::to_string(e5.precision);
  v["q10_e4m3_binades"] = std::to_string(e4.binades);
  v["q10_e5m2_binades"] = std::to_string(e5.binades);
  v["q10_e4m3_u"] = power_or_shortest(lf::binary64, e4.unit_roundoff);
  v["q10_e5m2_u"] = power_or_shortest(lf::binary64, e5.unit_roundoff);
}

}  // namespace mpq::demo
