// Q4 Tensor Core accumulation: a seeded length-4096 fp16 dot product under fp16 accumulation,
// fp32 accumulation, the ampere_fp16 and hopper_fp8 matrix units (inputs converted to E4M3 for
// the latter) and exactly; each model's relative error, split into rounding its inputs (exact dot
// of the converted inputs against the exact dot of the data) and its products and sums (its
// result against the exact dot of its inputs); ampere_fp16 against the same unit without
// truncation; summing 1.0 in fp16 stalls at 2048.
#include <cmath>
#include <random>

#include <fmt/format.h>

#include "demos.hpp"

namespace mpq::demo {

q4_result run_q4(std::uint64_t seed) {
  q4_result r;
  std::mt19937_64 gen(seed + 4);  // a stream of its own, so Q4's data do not depend on Q2's size
  auto uniform = [&] { return std::ldexp(static_cast<double>(gen() >> 11), -53); };
  for (std::size_t i = 0; i < r.n; ++i) {
    r.a.emplace_back(uniform());
    r.b.emplace_back(uniform());
  }
  const lf::exact_accumulator exact = lf::exact_dot(r.a, r.b);
  r.exact = exact.to_double();
  // inputs: the exact dot of the inputs the model computes with (the data, or their E4M3 roundings).
  auto make = [&](std::string name, const lf::format& f, lf::bits_t bits, const lf::exact_accumulator& inputs) {
    lf::status ignored{};
    const double v = std::bit_cast<double>(lf::convert(lf::binary64, f, bits, lf::env{}, ignored));
    lf::exact_accumulator result;
    result.add(f, bits);
    return dot_model{std::move(name), f, v, lf::measure_error(f, bits, exact, r.n).relative,
                     signed_ratio(inputs, exact, exact), signed_ratio(result, inputs, exact)};
  };
  const lf::value v16 = lf::dot(lf::accumulations::fp16_acc, r.a, r.b);
  r.models.push_back(make("fp16-acc", v16.fmt, v16.bits, exact));
  const lf::value v32 = lf::dot(lf::accumulations::fp32_acc, r.a, r.b);
  r.models.push_back(make("fp32-acc", v32.fmt, v32.bits, exact));
  const std::span<const lf::fp16> a16(r.a), b16(r.b);
  const lf::fp32 amp = lf::dot(lf::matrix_units::ampere_fp16, a16, b16, lf::fp32(0.0f));
  r.models.push_back(make("ampere_fp16", lf::binary32, amp.bits(), exact));
  std::vector<lf::fp8_e4m3> a8, b8;
  for (std::size_t i = 0; i < r.n; ++i) {
    a8.push_back(lf::convert<lf::float8_e4m3fn>(r.a[i]));
    b8.push_back(lf::convert<lf::float8_e4m3fn>(r.b[i]));
  }
  const lf::fp32 hop = lf::dot(lf::matrix_units::hopper_fp8, std::span<const lf::fp8_e4m3>(a8),
                               std::span<const lf::fp8_e4m3>(b8), lf::fp32(0.0f));
  r.models.push_back(make("hopper_fp8", lf::binary32, hop.bits(), lf::exact_dot(a8, b8)));

  lf::matrix_unit nearest = lf::matrix_units::ampere_fp16;
  nearest.alignment = lf::alignment_rounding::exact;
  nearest.final_rounding = lf::rounding::nearest_even;
  const lf::fp32 ampn = lf::dot(nearest, a16, b16, lf::fp32(0.0f));
  r.ampere_nearest = make("ampere_fp16 (nearest)", lf::binary32, ampn.bits(), exact);

  r.fp16_ones_sum = lf::sum(lf::accumulations::fp16_acc, std::vector<lf::fp16>(r.ones, lf::fp16(1.0))).to_double();
  r.bf16_ones_sum = lf::sum(lf::accumulations::bf16_acc, std::vector<lf::bf16>(r.ones, lf::bf16(1.0))).to_double();
  r.fp32_ones_sum = lf::sum(lf::accumulations::fp32_acc, std::vector<lf::fp16>(r.ones, lf::fp16(1.0))).to_double();
  return r;
}

page page_q4(const q4_result& r, const language& l) {
  page p(l);
  p.say(l, "q4.demo.title", {{"n", std::to_string(r.n)}});
  // Each result in the shortest form of its own format (fp16 or fp32); the exact value to 9 digits.
  table res(std::vector<std::string>{l.get("q4.demo.model"), l.get("q4.demo.result"), l.get("q4.demo.error")});
  for (const dot_model& m : r.models)
    res.rows.push_back({m.name + "  " + l.get("q4.demo.m." + m.name), shortest(m.fmt, m.value), sci(m.relative_error)});
  res.rows.push_back({l.get("q4.demo.exact"), fmt::format("{:.9g}", r.exact), "0"});
  p.add(std::move(res));

  // Where each error comes from.
  p.blank().say(l, "q4.demo.split");
  table split(std::vector<std::string>{l.get("q4.demo.model"), l.get("q4.demo.inputs"), l.get("q4.demo.arith")}, {false, true, true});
  for (const dot_model& m : r.models)
    split.rows.push_back({m.name, signed_sci(m.input_error), signed_sci(m.accumulation_error)});
  p.add(std::move(split));

  const auto find = [&](std::string_view name) -> const dot_model& {
    for (const dot_model& m : r.models)
      if (m.name == name) return m;
    throw std::logic_error("q4: no model " + std::string(name));
  };
  const dot_model& f16 = find("fp16-acc");
  const dot_model& f32 = find("fp32-acc");
  const dot_model& amp = find("ampere_fp16");
  const dot_model& hop = find("hopper_fp8");
  // The sentences are chosen from the numbers: which part dominates, which model is worse.
  p.say(l, "q4.demo.note", {{"fp16", sci(std::fabs(f16.accumulation_error))},
                                     {"fp32", sci(std::fabs(f32.accumulation_error))}});
  const bool truncation_costs = amp.relative_error > f32.relative_error && r.ampere_nearest.relative_error < amp.relative_error;
  p.say(l, truncation_costs ? "q4.demo.ampere" : "q4.demo.ampere_plain",
                    {{"x", fmt::format("{:.0f}", amp.relative_error / f32.relative_error)},
                     {"n", std::to_string(lf::matrix_units::ampere_fp16.block_size)},
                     {"amp", sci(amp.relative_error)},
                     {"fp32", sci(f32.relative_error)},
                     {"nearest", sci(r.ampere_nearest.relative_error)}});
  const bool accumulator_dominates = std::fabs(hop.accumulation_error) > std::fabs(hop.input_error);
  p.say(l, accumulator_dominates ? "q4.demo.fp8_acc_main" : "q4.demo.fp8_input_main",
                    {{"inputs", sci(std::fabs(hop.input_error))},
                     {"acc", sci(std::fabs(hop.accumulation_error))},
                     {"bits", std::to_string(lf::matrix_units::hopper_fp8.output_fraction_bits)},
                     {"fp32_bits", std::to_string(lf::binary32.fraction_bits())}});
  p.blank().say(l, "q4.demo.stall", {{"n", std::to_string(r.ones)},
                                             {"fp16", shortest(lf::binary64, r.fp16_ones_sum)},
                                             {"bf16", shortest(lf::binary64, r.bf16_ones_sum)},
                                             {"fp32", shortest(lf::binary64, r.fp32_ones_sum)}});
  return p;
}

}  // namespace mpq::demo
