// Q9 TF32 on Ampere: a seeded length-4096 fp32 dot product as an A100 computes a float32 matmul
// with TF32 allowed (lf::matrix_units::ampere_tf32: each fp32 input converted toward zero to TF32,
// 11 significant bits; exact products; blocks of 4 aligned on 24 fraction bits and truncated to
// fp32) and with TF32 off (a binary32 fma chain, lf::accumulations::fp32_fma), against the exact
// dot; each error split into rounding the inputs and the products and sums; one input's bits
// before and after the conversion.
//
// Sources: TF32 = binary32's 8-bit exponent with 10 fraction bits (NVIDIA A100 whitepaper; lf::tfloat32,
// libfloat/core/format.hpp); the A100 TF32 unit's N = 4, F = 24 (Fasi, Higham, Mikaitis, Pranesh,
// PeerJ Comput. Sci. 7:e330, 2021; MATLAB-tensor-core A100TC.m) and its conversion toward zero
// (MATLAB-tensor-core GEMM.m, CPFloat round = 4): numerics-facts §3 and
// libfloat/models/matrix_unit_presets.hpp. When PyTorch uses TF32: PyTorch docs, "CUDA semantics",
// section "TensorFloat-32 (TF32) on Ampere (and later) devices": torch.backends.cudnn.allow_tf32
// defaults to True, torch.backends.cuda.matmul.allow_tf32 to False since PyTorch 1.12
// (docs/source/notes/numerical_accuracy.rst; pytorch PR #79537), also enabled by
// torch.set_float32_matmul_precision("high").
#include "q09_tf32.hpp"

#include <cmath>
#include <random>

#include <fmt/format.h>

namespace mpq::demo {

namespace {

/// A binary32 value converted to TF32 as unit mu converts its inputs (lf::unit_input_env), given
/// back in binary32 layout (exact: TF32 values are binary32 values).
std::uint32_t to_tf32(const lf::matrix_unit& mu, std::uint32_t x) {
  lf::status ignored{};
  const lf::bits_t t = lf::convert(lf::tfloat32, lf::binary32, x, lf::unit_input_env(mu), ignored);
  return static_cast<std::uint32_t>(lf::convert(lf::binary32, lf::tfloat32, t, lf::env{}, ignored));
}

lf::matrix_unit ampere_tf32_nearest() {
  lf::matrix_unit mu = lf::matrix_units::ampere_tf32;
  mu.input_rounding = lf::rounding::nearest_even;
  return mu;
}

/// |y - x| / |x| of two binary32 encodings, exact until the one rounding; 0 when x is zero.
double rel(std::uint32_t x, std::uint32_t y) {
  lf::exact_accumulator ex, d;
  ex.add(lf::binary32, x);
  if (ex.is_zero()) return 0;
  d.add(lf::binary32, y).sub(ex);
  return std::fabs(lf::exact_accumulator::quotient(d, ex));
}

}  // namespace

std::string q9_fraction_bits(std::uint32_t x) {
  const int kept = lf::tfloat32.fraction_bits(), all = lf::binary32.fraction_bits();
  std::string s;
  for (int i = all - 1; i >= 0; --i) {
    s += ((x >> i) & 1u) ? '1' : '0';
    if (i == all - kept) s += '|';
  }
  return s;
}

q9_result run_q9(std::uint64_t seed) {
  q9_result r;
  r.seed = seed;
  std::mt19937_64 gen(seed + 9);  // a stream of its own
  auto uniform = [&] { return static_cast<float>(std::ldexp(static_cast<double>(gen() >> 40), -24)); };  // exact
  for (std::size_t i = 0; i < r.n; ++i) {
    r.a.emplace_back(uniform());
    r.b.emplace_back(uniform());
  }
  const lf::exact_accumulator exact = lf::exact_dot(r.a, r.b);
  r.exact = exact.to_double();
  const std::span<const lf::fp32> a(r.a), b(r.b);

  auto model = [&](std::string name, std::string key, std::uint32_t result, const lf::exact_accumulator& inputs) {
    lf::exact_accumulator res;
    res.add(lf::binary32, result);
    q9_model m{std::move(name), std::move(key), static_cast<double>(std::bit_cast<float>(result)), 0,
               signed_ratio(inputs, exact, exact), signed_ratio(res, inputs, exact)};
    m.relative_error = std::fabs(signed_ratio(res, exact, exact));
    return m;
  };
  // The TF32 units: the result, and the exact dot of the inputs as the unit converted them.
  auto unit = [&](const lf::matrix_unit& mu, std::string name, std::string key) {
    const lf::fp32 d = lf::dot<lf::binary32, lf::binary32>(mu, a, b, lf::fp32(0.0f));
    lf::exact_accumulator inputs;
    for (std::size_t i = 0; i < r.n; ++i)
      inputs.add_product(lf::binary32, to_tf32(mu, r.a[i].bits()), lf::binary32, to_tf32(mu, r.b[i].bits()));
    return model(std::move(name), std::move(key), d.bits(), inputs);
  };
  const lf::matrix_unit& amp = lf::matrix_units::ampere_tf32;
  r.models.push_back(unit(amp, "ampere_tf32", "tf32"));
  r.models.push_back(unit(ampere_tf32_nearest(), "ampere_tf32", "tf32_rn"));
  const lf::value f = lf::dot(lf::accumulations::fp32_fma, r.a, r.b);
  r.models.push_back(model("fp32-fma", "fp32", static_cast<std::uint32_t>(f.bits), exact));
  r.block_size = amp.block_size;
  r.alignment_bits = amp.alignment_bits;

  r.sample_fp32 = r.a[0].bits();
  r.sample_tf32 = to_tf32(amp, r.sample_fp32);
  r.sample_tf32_rn = to_tf32(ampere_tf32_nearest(), r.sample_fp32);
  r.sample_error = rel(r.sample_fp32, r.sample_tf32);
  r.sample_error_rn = rel(r.sample_fp32, r.sample_tf32_rn);
  return r;
}

page page_q9(const q9_result& r, const language& l) {
  page p(l);
  p.say(l, "q9.demo.title", {{"n", std::to_string(r.n)}});
  table res(std::vector<std::string>{l.get("q9.demo.model"), l.get("q9.demo.result"), l.get("q9.demo.error")},
            {false, false, true});
  for (const q9_model& m : r.models)
    res.rows.push_back({m.name + "  " + l.get("q9.demo.m." + m.key), shortest(lf::binary32, m.value), sci(m.relative_error)});
  res.rows.push_back({l.get("q9.demo.exact"), fmt::format("{:.9g}", r.exact), "0"});
  p.add(std::move(res));

  p.blank().say(l, "q9.demo.split");
  table split(std::vector<std::string>{l.get("q9.demo.model"), l.get("q9.demo.inputs"), l.get("q9.demo.arith")},
              {false, true, true});
  for (const q9_model& m : r.models)
    split.rows.push_back({m.name + (l.has("q9.demo.short." + m.key) ? "  " + l.get("q9.demo.short." + m.key) : ""),
                          signed_sci(m.input_error),
                          signed_sci(m.accumulation_error)});
  p.add(std::move(split));

  const q9_model& tf = r.models[0];
  const q9_model& rn = r.models[1];
  const q9_model& f32 = r.models[2];
  // Each sentence chosen by the numbers it states.
  const vars nums{{"inputs", sci(std::fabs(tf.input_error))}, {"arith", sci(std::fabs(tf.accumulation_error))},
                  {"n", std::to_string(r.block_size)}, {"f", std::to_string(r.alignment_bits)},
                  {"tf32", sci(tf.relative_error)}, {"fp32", sci(f32.relative_error)},
                  {"rn", sci(rn.relative_error)},
                  {"x", f32.relative_error > 0 ? fmt::format("{:.0f}", tf.relative_error / f32.relative_error) : "-"}};
  p.say(l, std::fabs(tf.input_error) > std::fabs(tf.accumulation_error) ? "q9.demo.inputs_main" : "q9.demo.arith_main",
        nums);
  if (tf.relative_error > f32.relative_error && f32.relative_error > 0) p.say(l, "q9.demo.ratio", nums);
  p.say(l, rn.relative_error < tf.relative_error ? "q9.demo.nearest_better" : "q9.demo.nearest_not_better", nums);

  // One input before and after.
  p.blank().say(l, "q9.demo.sample", {{"kept", std::to_string(lf::tfloat32.fraction_bits())},
                                      {"dropped", std::to_string(lf::binary32.fraction_bits() - lf::tfloat32.fraction_bits())}});
  table bits(std::vector<std::string>{l.get("try.format"), l.get("q9.demo.fraction"), l.get("q9.demo.value"),
                                      l.get("q9.demo.error")},
             {false, false, false, true});
  auto tf32_text = [](std::uint32_t x) {
    lf::status ignored{};
    return lf::to_shortest(lf::tfloat32, lf::convert(lf::tfloat32, lf::binary32, x, lf::env{}, ignored));
  };
  bits.rows.push_back({"fp32", q9_fraction_bits(r.sample_fp32), lf::to_shortest(lf::binary32, r.sample_fp32), "0"});
  bits.rows.push_back({l.get("q9.demo.tf32_tz"), q9_fraction_bits(r.sample_tf32), tf32_text(r.sample_tf32), sci(r.sample_error)});
  bits.rows.push_back({l.get("q9.demo.tf32_rn"), q9_fraction_bits(r.sample_tf32_rn), tf32_text(r.sample_tf32_rn),
                       sci(r.sample_error_rn)});
  p.add(std::move(bits));
  return p;
}

// ---- try it: one number, in fp32 and in TF32 ------------------------------------------------------
try_outcome try_q9(const language& l, std::string_view line) {
  const auto v = tryit::numbers(line, 1);
  if (v.empty()) return tryit::failure(l, 9, line);
  lf::exact_accumulator x;  // the input as binary64 holds it
  x.add(lf::binary64, tryit::parse_in(lf::binary64, v[0]));
  // The float32 tensor's value (nearest even, as torch.tensor(x, dtype=torch.float32) rounds), then
  // what the A100 unit converts it to (toward zero), and nearest even for comparison.
  const auto x32 = static_cast<std::uint32_t>(tryit::parse_in(lf::binary32, v[0]));
  const std::uint32_t tz = to_tf32(lf::matrix_units::ampere_tf32, x32);
  const std::uint32_t rn = to_tf32(ampere_tf32_nearest(), x32);
  page p(l);
  p.say(l, "try.q9.title", {{"x", v[0]}});
  table t({l.get("try.format"), l.get("q9.demo.fraction"), l.get("try.q9.stored"), l.get("try.rel_error")});
  auto row = [&](const std::string& label, std::uint32_t b) {
    const bool finite = tryit::is_finite(lf::binary32, b);
    t.rows.push_back({label, finite ? q9_fraction_bits(b) : "-", lf::to_shortest(lf::binary32, b),
                      tryit::relative_error(x, lf::binary32, b)});
  };
  row("fp32", x32);
  row(l.get("q9.demo.tf32_tz"), tz);
  row(l.get("q9.demo.tf32_rn"), rn);
  p.add(std::move(t));
  p.say(l, "try.q9.note", {{"kept", std::to_string(lf::tfloat32.fraction_bits())}});
  return {true, std::move(p), {}};
}

void facts_q9(vars& v) {
  v["q9_tf32_p"] = std::to_string(lf::tfloat32.precision);
  v["q9_fp32_p"] = std::to_string(lf::binary32.precision);
  v["q9_tf32_frac"] = std::to_string(lf::tfloat32.fraction_bits());
  v["q9_fp32_frac"] = std::to_string(lf::binary32.fraction_bits());
  v["q9_dropped"] = std::to_string(lf::binary32.fraction_bits() - lf::tfloat32.fraction_bits());
  v["q9_exp_bits"] = std::to_string(lf::tfloat32.exponent_bits);
  v["q9_fp32_exp_bits"] = std::to_string(lf::binary32.exponent_bits);
  v["q9_tf32_bits"] = std::to_string(lf::tfloat32.bits());
  v["q9_block"] = std::to_string(lf::matrix_units::ampere_tf32.block_size);
  v["q9_tf32_unit_roundoff"] = power_or_shortest(lf::binary64, lf::training::half_ulp(lf::tfloat32, 1.0));
}

}  // namespace mpq::demo
