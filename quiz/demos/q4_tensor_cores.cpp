// Q4 Tensor Core accumulation: a seeded length-4096 fp16 dot product under fp16 accumulation,
// fp32 accumulation, the ampere_fp16 and hopper_fp8 matrix units (inputs converted to E4M3 for
// the latter) and exactly; each model's relative error; summing 1.0 in fp16 stalls at 2048.
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
  auto add = [&](std::string name, const lf::format& f, lf::bits_t bits) {
    lf::status ignored{};
    const double v = std::bit_cast<double>(lf::convert(lf::binary64, f, bits, lf::env{}, ignored));
    r.models.push_back({std::move(name), f, v, lf::measure_error(f, bits, exact, r.n).relative});
  };
  const lf::value v16 = lf::dot(lf::accumulations::fp16_acc, r.a, r.b);
  add("fp16-acc", v16.fmt, v16.bits);
  const lf::value v32 = lf::dot(lf::accumulations::fp32_acc, r.a, r.b);
  add("fp32-acc", v32.fmt, v32.bits);
  const lf::fp32 amp = lf::dot(lf::matrix_units::ampere_fp16, std::span<const lf::fp16>(r.a), std::span<const lf::fp16>(r.b),
                               lf::fp32(0.0f));
  add("ampere_fp16", lf::binary32, amp.bits());
  std::vector<lf::fp8_e4m3> a8, b8;
  for (std::size_t i = 0; i < r.n; ++i) {
    a8.push_back(lf::convert<lf::float8_e4m3fn>(r.a[i]));
    b8.push_back(lf::convert<lf::float8_e4m3fn>(r.b[i]));
  }
  const lf::fp32 hop = lf::dot(lf::matrix_units::hopper_fp8, std::span<const lf::fp8_e4m3>(a8),
                               std::span<const lf::fp8_e4m3>(b8), lf::fp32(0.0f));
  add("hopper_fp8", lf::binary32, hop.bits());

  r.fp16_ones_sum = lf::sum(lf::accumulations::fp16_acc, std::vector<lf::fp16>(r.ones, lf::fp16(1.0))).to_double();
  r.bf16_ones_sum = lf::sum(lf::accumulations::bf16_acc, std::vector<lf::bf16>(r.ones, lf::bf16(1.0))).to_double();
  r.fp32_ones_sum = lf::sum(lf::accumulations::fp32_acc, std::vector<lf::fp16>(r.ones, lf::fp16(1.0))).to_double();
  return r;
}

std::string show_q4(const q4_result& r, const language& l) {
  std::string out = wrap(l.get("q4.demo.title", {{"n", std::to_string(r.n)}}));
  out += fmt::format("  {}{}{}\n", pad(l.get("q4.demo.model"), 44), pad(l.get("q4.demo.result"), 16),
                     l.get("q4.demo.error"));
  // Each result in the shortest form of its own format (fp16 or fp32); the exact value to 9 digits.
  for (const dot_model& m : r.models)
    out += fmt::format("  {}{}{}\n", pad(m.name + "  " + l.get("q4.demo.m." + m.name), 44),
                       pad(shortest(m.fmt, m.value), 16), sci(m.relative_error));
  out += fmt::format("  {}{}{}\n", pad(l.get("q4.demo.exact"), 44), pad(fmt::format("{:.9g}", r.exact), 16), "0");
  out += wrap(l.get("q4.demo.note"));
  out += '\n' + wrap(l.get("q4.demo.stall", {{"n", std::to_string(r.ones)},
                                             {"fp16", shortest(lf::binary64, r.fp16_ones_sum)},
                                             {"bf16", shortest(lf::binary64, r.bf16_ones_sum)},
                                             {"fp32", shortest(lf::binary64, r.fp32_ones_sum)}}));
  return out;
}

}  // namespace mpq::demo
