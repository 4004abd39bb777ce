// Q5 memory and throughput: the training-state memory per parameter with Adam in three recipes
// (lf::training::memory_footprint): fp32; torch.amp, where the parameters and gradients stay fp32 and
// autocast casts inside each op; apex O2-style, with fp16 weights and gradients and fp32 master
// weights. Then a live measurement on this CPU, under 0.5 s: std::copy of N values stored as fp16
// against fp32 (half the bytes), and y = a*x + y in libfloat's emulated fp16 against native fp32
// (this times the emulator, not fp16 hardware). Gains depend on hardware and workload.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <map>

#include <fmt/format.h>

#include "demos.hpp"

namespace mpq::demo {

q5_result run_q5(bool measure) {
  q5_result r;
  using lf::training::training_recipe;
  r.fp32 = lf::training::memory_footprint(r.parameters, training_recipe::fp32, lf::training::optimizer_kind::adam);
  r.torch_amp = lf::training::memory_footprint(r.parameters, training_recipe::autocast_fp16, lf::training::optimizer_kind::adam);
  r.apex_o2 = lf::training::memory_footprint(r.parameters, training_recipe::mixed_fp16, lf::training::optimizer_kind::adam);
  r.autocast_copy_bytes = static_cast<std::uint64_t>(lf::training::autocast_format(lf::training::device_kind::cuda).bits()) / 8;
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

/// Milliseconds with three significant digits: "6.49 ms", "0.0201 ms".
std::string ms(double s) { return fmt::format("{:.3g} ms", s * 1e3); }

/// A time ratio with two significant digits or more: "18", "2.4", "0.93".
std::string ratio(double x) {
  if (!std::isfinite(x)) return shortest(lf::binary64, x);
  return x >= 10 ? fmt::format("{:.0f}", x) : x >= 1 ? fmt::format("{:.1f}", x) : fmt::format("{:.2f}", x);
}

std::string mib(std::size_t bytes) { return fmt::format("{:g}", static_cast<double>(bytes) / (1024.0 * 1024.0)); }

}  // namespace

page page_q5(const q5_result& r, const language& l) {
  page p(l);
  p.say(l, "q5.demo.title", {{"params", group_digits(r.parameters, l.raw("digit_group"))}});
  // One row per role, in the order of the apex O2 recipe (the one with every role); a recipe
  // without that role shows "-".
  const lf::training::footprint* recipes[] = {&r.fp32, &r.torch_amp, &r.apex_o2};
  std::vector<std::string> roles;
  std::map<std::string, std::string> cell[3];
  for (const auto* fp : {&r.apex_o2, &r.fp32, &r.torch_amp})
    for (const lf::training::memory_component& c : fp->components) {
      const std::string role = role_of(c.name);
      if (std::find(roles.begin(), roles.end(), role) == roles.end()) roles.push_back(role);
    }
  for (int k = 0; k < 3; ++k)
    for (const lf::training::memory_component& c : recipes[k]->components)
      cell[k][role_of(c.name)] = l.get("q5.demo.bytes", {{"b", std::to_string(c.bytes_per_parameter)}}) + " (" +
                                 lf::format_name(c.storage) + ")";
  table t(std::vector<std::string>{l.get("q5.demo.state"), l.get("q5.demo.fp32"), l.get("q5.demo.amp"), l.get("q5.demo.o2")});
  for (const std::string& role : roles) {
    std::vector<std::string> row{l.get("q5.demo.c." + role)};
    for (int k = 0; k < 3; ++k) row.push_back(cell[k].count(role) ? cell[k][role] : "-");
    t.rows.push_back(std::move(row));
  }
  std::vector<std::string> total{l.get("q5.demo.total")};
  for (int k = 0; k < 3; ++k)
    total.push_back(l.get("q5.demo.total_cell", localized({{"b", std::to_string(recipes[k]->bytes_per_parameter)},
                                                 {"gb", gigabytes(recipes[k]->total_bytes, l)}}, l)));
  t.rows.push_back(std::move(total));
  p.add(std::move(t));
  p.say(l, "q5.demo.note", {{"total", std::to_string(r.torch_amp.bytes_per_parameter)}});
  p.say(l, "q5.demo.copies", {{"b", std::to_string(r.autocast_copy_bytes)}});
  p.blank();
  if (!r.measured) return p.say(l, "q5.demo.live_elsewhere");
  const q5_measurement& m = *r.measured;
  p.say(l, "q5.demo.live", {{"s", fmt::format("{:.2f}", m.total_s)}});
  // The copy ratio, printed with one decimal, and a sentence chosen from the printed value, so
  // that it holds for whatever the measurement gives: above, at or below the ratio of the bytes
  // (binary32's size over binary16's: 2).
  const double bytes = static_cast<double>(lf::binary32.bits()) / static_cast<double>(lf::binary16.bits());
  const std::string x = fmt::format("{:.1f}", m.copy_fp32_s / m.copy_fp16_s);
  const double shown = std::strtod(x.c_str(), nullptr);
  const char* versus = shown > bytes ? "q5.demo.copy_above" : shown < bytes ? "q5.demo.copy_below" : "q5.demo.copy_near";
  const vars copy{{"n", group_digits(m.copy_n, l.raw("digit_group"))},
                  {"mb32", mib(m.copy_n * sizeof(float))},
                  {"mb16", mib(m.copy_n * sizeof(lf::fp16))},
                  {"t32", ms(m.copy_fp32_s)},
                  {"t16", ms(m.copy_fp16_s)},
                  {"x", x}};
  p.text(l.get("q5.demo.copy", localized(copy, l)) + " " +
             l.get(versus, localized({{"x", x}, {"bytes", shortest(lf::binary64, bytes)}}, l)) + " " +
             l.get("q5.demo.copy_why"),
         4, 2, copy);
  p.say(l, "q5.demo.arith",
        {{"n", group_digits(m.arith_n, l.raw("digit_group"))},
         {"t32", ms(m.arith_fp32_s)},
         {"t16", ms(m.arith_fp16_s)},
         {"x", ratio(m.arith_fp16_s / m.arith_fp32_s)}},
        4, 2);
  p.say(l, "q5.demo.conclusion");
  return p;
}

}  // namespace mpq::demo
