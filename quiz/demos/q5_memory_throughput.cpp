// Q5 memory and throughput: the training-state memory of a 1B-parameter model with Adam in fp32
// and in fp16 mixed precision (lf::amp::memory_footprint), and a live measurement on this CPU,
// under 0.5 s: moving N values stored as fp16 against fp32 (half the bytes), and y = a*x + y in
// libfloat's emulated fp16 against native fp32 arithmetic. Gains depend on hardware and workload.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>

#include <fmt/format.h>

#include "demos.hpp"

namespace mpq::demo {

q5_result run_q5(bool measure) {
  q5_result r;
  r.fp32 = lf::amp::memory_footprint(r.parameters, lf::amp::training_recipe::fp32, lf::amp::optimizer_kind::adam);
  r.mixed = lf::amp::memory_footprint(r.parameters, lf::amp::training_recipe::mixed_fp16, lf::amp::optimizer_kind::adam);
  if (measure) r.measured = measure_q5();
  return r;
}

namespace {

using clock_type = std::chrono::steady_clock;

double seconds_since(clock_type::time_point t0) {
  return std::chrono::duration<double>(clock_type::now() - t0).count();
}

/// Keeps the compiler from dropping a loop whose results are never read otherwise.
template <class T>
void keep(const T& v) {
  asm volatile("" : : "g"(&v) : "memory");
}

}  // namespace

q5_measurement measure_q5(double budget_s) {
  q5_measurement m;
  const auto start = clock_type::now();
  m.copy_n = std::size_t{1} << 22;  // 16 MiB of fp32: more than a typical L2 cache
  m.arith_n = std::size_t{1} << 15;
  std::vector<float> s32(m.copy_n, 1.0f), d32(m.copy_n);
  std::vector<lf::fp16> s16(m.copy_n, lf::fp16(1.0)), d16(m.copy_n);
  std::vector<float> x32(m.arith_n, 0.5f), y32(m.arith_n, 0.25f);
  std::vector<lf::fp16> x16(m.arith_n, lf::fp16(0.5)), y16(m.arith_n, lf::fp16(0.25));
  const float a32 = 0.75f;
  const lf::fp16 a16(0.75);
  m.copy_fp32_s = m.copy_fp16_s = m.arith_fp32_s = m.arith_fp16_s = INFINITY;
  // Alternate the variants and keep each one's best time, until half the budget is used (at
  // least 2 rounds), so that a busy moment hurts both sides alike.
  for (int round = 0; round < 20 && (round < 2 || seconds_since(start) < budget_s / 2); ++round) {
    auto t = clock_type::now();
    std::copy(s32.begin(), s32.end(), d32.begin());
    keep(d32[round]);
    m.copy_fp32_s = std::min(m.copy_fp32_s, seconds_since(t));
    t = clock_type::now();
    std::copy(s16.begin(), s16.end(), d16.begin());
    keep(d16[round]);
    m.copy_fp16_s = std::min(m.copy_fp16_s, seconds_since(t));
    t = clock_type::now();
    for (std::size_t i = 0; i < m.arith_n; ++i) y32[i] = a32 * x32[i] + y32[i];
    keep(y32[round]);
    m.arith_fp32_s = std::min(m.arith_fp32_s, seconds_since(t));
    t = clock_type::now();
    for (std::size_t i = 0; i < m.arith_n; ++i) y16[i] = a16 * x16[i] + y16[i];
    keep(y16[round]);
    m.arith_fp16_s = std::min(m.arith_fp16_s, seconds_since(t));
  }
  m.total_s = seconds_since(start);
  return m;
}

namespace {

/// 10^9 bytes, with the language's unit ("GB", "Go").
std::string gigabytes(std::uint64_t bytes, const language& l) {
  return fmt::format("{:g} ", static_cast<double>(bytes) / 1e9) + l.get("q5.demo.gb");
}

/// "weights (fp16)" -> "weights": the component's role, a language key suffix.
std::string role_of(std::string_view name) {
  std::string role(name.substr(0, name.find(" (")));
  std::replace(role.begin(), role.end(), ' ', '_');
  return role;
}

std::string ms(double s) { return fmt::format("{:.2f} ms", s * 1e3); }

}  // namespace

std::string show_q5(const q5_result& r, const language& l) {
  std::string out = wrap(l.get("q5.demo.title", {{"params", group_digits(r.parameters, l.raw("digit_group"))}}));
  // One row per role, in the order they first appear; a recipe without that role shows "-".
  std::vector<std::string> roles;
  std::map<std::string, std::string> in32, inmix;
  for (const auto* fp : {&r.fp32, &r.mixed})
    for (const lf::amp::memory_component& c : fp->components) {
      const std::string role = role_of(c.name);
      if (std::find(roles.begin(), roles.end(), role) == roles.end()) roles.push_back(role);
      (fp == &r.fp32 ? in32 : inmix)[role] = gigabytes(c.bytes, l) + " (" + lf::format_name(c.storage) + ")";
    }
  out += fmt::format("  {}{}{}\n", pad(l.get("q5.demo.state"), 24), pad(l.get("q5.demo.fp32"), 22), l.get("q5.demo.mixed"));
  for (const std::string& role : roles)
    out += fmt::format("  {}{}{}\n", pad(l.get("q5.demo.c." + role), 24), pad(in32.count(role) ? in32[role] : "-", 22),
                       inmix.count(role) ? inmix[role] : "-");
  out += fmt::format("  {}{}{}\n", pad(l.get("q5.demo.total"), 24),
                     pad(gigabytes(r.fp32.total_bytes, l) + " (" +
                             l.get("q5.demo.per_param", {{"b", std::to_string(r.fp32.bytes_per_parameter)}}) + ")", 22),
                     gigabytes(r.mixed.total_bytes, l) + " (" +
                         l.get("q5.demo.per_param", {{"b", std::to_string(r.mixed.bytes_per_parameter)}}) + ")");
  out += wrap(l.get("q5.demo.note"));
  out += '\n';
  if (!r.measured) return out + wrap(l.get("q5.demo.live_elsewhere"));
  const q5_measurement& m = *r.measured;
  out += wrap(l.get("q5.demo.live", {{"s", fmt::format("{:.2f}", m.total_s)}}));
  out += wrap(l.get("q5.demo.copy", {{"n", group_digits(m.copy_n, l.raw("digit_group"))},
                                     {"t32", ms(m.copy_fp32_s)},
                                     {"t16", ms(m.copy_fp16_s)},
                                     {"x", fmt::format("{:.1f}", m.copy_fp32_s / m.copy_fp16_s)}}),
              4, screen_width, 2);
  out += wrap(l.get("q5.demo.arith", {{"n", group_digits(m.arith_n, l.raw("digit_group"))},
                                      {"t32", ms(m.arith_fp32_s)},
                                      {"t16", ms(m.arith_fp16_s)},
                                      {"x", fmt::format("{:.0f}", m.arith_fp16_s / m.arith_fp32_s)}}),
              4, screen_width, 2);
  out += wrap(l.get("q5.demo.conclusion"));
  return out;
}

}  // namespace mpq::demo
