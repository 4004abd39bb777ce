// Q16 block scaling (hard level): one tensor of moderate values plus one outlier, quantized with
// one scale per tensor (FP8 E4M3, current scaling: lf::training::fp8_current_scaling), with MXFP8
// (E4M3 elements, one E8M0 scale per 32 elements: lf::training::mxfp8_scaling) and with NVFP4
// (E2M1 elements, one E4M3 scale per 16 elements and an FP32 tensor scale:
// lf::training::nvfp4_scaling). For each: how many values became zero and the RMS relative error,
// for the values that share the outlier's scale and for the other blocks, and the same without the
// outlier.
//
// Sources (the facts that decide the results): OCP Microscaling Formats (MX) v1.0 (32-element
// blocks, E8M0 scales); NVIDIA Transformer Engine MXFP8BlockScaling (E4M3 elements, the scale
// rounded up: 2^ceil(log2(amax / 448))); NVFP4 (E2M1, 16-element blocks, E4M3 block scale, FP32
// tensor scale amax / (6 * 448)), arXiv 2509.25149: numerics-facts.md §7 and
// libfloat/training/scaling_recipes.hpp, libfloat/models/block_scale.hpp.
#include "q16_block_scaling.hpp"

#include <bit>
#include <cmath>
#include <random>

#include <libfloat/training/scaling_recipes.hpp>

namespace mpq::demo {

namespace {

namespace tr = lf::training;

std::string f32s(float v) { return lf::to_shortest(lf::binary32, std::bit_cast<std::uint32_t>(v)); }

struct part_sum {
  q16_part p;
  double sum_sq = 0;
  std::size_t nonzero = 0;
  void add(double x, double q) {
    ++p.values;
    if (x == 0) return;
    if (q == 0) ++p.zero;
    const double rel = std::fabs(q - x) / std::fabs(x);
    sum_sq += rel * rel;
    ++nonzero;
  }
  q16_part done() {
    p.rms_rel = nonzero ? std::sqrt(sum_sq / static_cast<double>(nonzero)) : 0.0;
    return p;
  }
};

/// Splits the values other than `pos` by whether they share pos's block in `res`.
void split(const tr::recipe_result& res, const std::vector<float>& x, std::size_t pos, q16_part& own, q16_part& others) {
  part_sum a, b;
  const std::size_t ob = res.block_of(0, pos);
  for (std::size_t i = 0; i < x.size(); ++i) {
    if (i == pos) continue;
    (res.block_of(0, i) == ob ? a : b).add(static_cast<double>(x[i]), res.value(i));
  }
  own = a.done();
  others = b.done();
}

tr::recipe_result quantize(const std::string& name, const std::vector<float>& x) {
  if (name == "mxfp8") return tr::mxfp8_scaling(x, 1, x.size());
  if (name == "nvfp4") return tr::nvfp4_scaling(x, 1, x.size(), tr::nvfp4_options{});  // activation: 1 x 16, nearest
  return tr::fp8_current_scaling(x, 1, x.size());
}

/// E2M1's finite non-negative values, in increasing order, from the library's decoder.
std::vector<double> e2m1_values() {
  std::vector<double> v;
  for (lf::bits_t b = 0; b <= lf::float4_e2m1fn.max_finite_bits(); ++b)
    v.push_back(lf::detail::decode_double(lf::float4_e2m1fn, b));
  return v;
}

}  // namespace

q16_result run_q16(std::uint64_t seed, float outlier) {
  q16_result r;
  r.seed = seed;
  r.outlier = outlier;
  std::mt19937_64 gen(seed);
  r.x.resize(r.n);
  for (float& v : r.x) {
    const std::uint64_t k = gen() & 0x7FFFFFu;                         // 23 random bits: m = 1 + k / 2^23
    const int e = static_cast<int>(gen() % static_cast<std::uint64_t>(r.max_exp + 1));
    const bool negative = (gen() & 1u) != 0;
    const float m = 1.0f + static_cast<float>(k) / 8388608.0f;          // exact: 24 significant bits
    v = std::ldexp(negative ? -m : m, -e);                             // exact: a power of two apart
  }
  std::vector<float> clean = r.x;
  r.replaced = r.x[r.position];
  r.x[r.position] = outlier;
  for (const char* name : {"fp8-current", "mxfp8", "nvfp4"}) {
    q16_recipe q;
    q.name = name;
    const tr::recipe_result with = quantize(name, r.x), without = quantize(name, clean);
    q.block = with.tile_cols * with.tile_rows;
    split(with, r.x, r.position, q.own, q.others);
    q16_part clean_own;
    split(without, clean, r.position, clean_own, q.clean_others);
    // Without the outlier, every value but its position (the per-tensor recipe's comparison).
    part_sum all;
    for (std::size_t i = 0; i < clean.size(); ++i)
      if (i != r.position) all.add(static_cast<double>(clean[i]), without.value(i));
    q.clean_all = all.done();
    q.outlier_back = with.value(r.position);
    r.recipes.push_back(q);
  }
  return r;
}

q16_result run_q16(std::uint64_t seed) { return run_q16(seed, 1000.0f); }

namespace {

void body_q16(page& p, const q16_result& r, const language& l) {
  table t({l.get("q16.demo.head.recipe"), l.get("q16.demo.head.block"), l.get("q16.demo.head.values"),
           l.get("q16.demo.head.zero"), l.get("q16.demo.head.error"), l.get("q16.demo.head.values"),
           l.get("q16.demo.head.zero"), l.get("q16.demo.head.error")},
          {false, true, true, true, true, true, true, true});
  t.groups = {{l.get("q16.demo.group.own"), 2}, {l.get("q16.demo.group.others"), 5}};
  for (const q16_recipe& q : r.recipes) {
    const bool none = q.others.values == 0;
    t.rows.push_back({l.get("q16.demo.recipe." + q.name), std::to_string(q.block), std::to_string(q.own.values),
                      std::to_string(q.own.zero), sci(q.own.rms_rel), std::to_string(q.others.values),
                      none ? "-" : std::to_string(q.others.zero), none ? "-" : sci(q.others.rms_rel)});
  }
  p.add(std::move(t));
  for (const q16_recipe& q : r.recipes) {
    const vars v{{"recipe", l.get("q16.demo.recipe." + q.name)},
                 {"back", shortest(lf::binary64, q.outlier_back)},
                 {"outlier", f32s(r.outlier)},
                 {"count", std::to_string(q.own.values)},
                 {"zero", std::to_string(q.own.zero)},
                 {"err", sci(q.own.rms_rel)},
                 {"o_count", std::to_string(q.others.values)},
                 {"o_zero", std::to_string(q.others.zero)},
                 {"o_err", sci(q.others.rms_rel)},
                 {"c_zero", std::to_string(q.clean_others.zero)},
                 {"c_err", sci(q.clean_others.rms_rel)},
                 {"a_zero", std::to_string(q.clean_all.zero)},
                 {"a_err", sci(q.clean_all.rms_rel)},
                 {"pos", std::to_string(r.position)},
                 {"replaced", f32s(r.replaced)}};
    if (q.others.values == 0) {
      p.say(l, "q16.demo.tensor", v);
    } else {
      const bool same = q.others.zero == q.clean_others.zero && q.others.rms_rel == q.clean_others.rms_rel;
      p.say(l, same ? "q16.demo.block_same" : "q16.demo.block_diff", v);
    }
  }
  std::string vals;
  for (const double d : e2m1_values())
    vals += (vals.empty() ? "" : l.raw("list_sep") + " ") + localize_number(shortest(lf::binary64, d), l);
  p.say(l, "q16.demo.e2m1", {{"values", vals}, {"quarter", shortest(lf::binary64, e2m1_values()[1] / 2)}});
}

}  // namespace

page page_q16(const q16_result& r, const language& l) {
  page p(l);
  p.say(l, "q16.demo.title", {{"n", std::to_string(r.n)}, {"emax", std::to_string(r.max_exp)},
                              {"outlier", f32s(r.outlier)}, {"pos", std::to_string(r.position)}});
  body_q16(p, r, l);
  return p;
}

try_outcome try_q16(const language& l, std::string_view line) {
  const auto v = tryit::numbers(line, 1);
  if (v.empty()) return tryit::failure(l, 16, line);
  const float m = std::bit_cast<float>(static_cast<std::uint32_t>(tryit::parse_in(lf::binary32, v[0])));
  if (!(m > 0) || !std::isfinite(m)) return tryit::failure(l, 16, line);  // a positive finite binary32
  const q16_result r = run_q16(default_seed, m);
  page p(l);
  p.say(l, "try.q16.title", {{"outlier", f32s(r.outlier)}, {"n", std::to_string(r.n)}, {"pos", std::to_string(r.position)}});
  body_q16(p, r, l);
  return {true, std::move(p), {}};
}

void facts_q16(vars& v) {
  v["q16_mx_block"] = std::to_string(lf::mxfp8_e4m3.block);
  v["q16_nv_block"] = std::to_string(lf::nvfp4.block);
  v["q16_e4m3_max"] = shortest(lf::binary64, lf::detail::decode_double(lf::float8_e4m3fn, lf::float8_e4m3fn.max_finite_bits()));
  v["q16_e2m1_max"] = shortest(lf::binary64, e2m1_values().back());
}

}  // namespace mpq::demo
