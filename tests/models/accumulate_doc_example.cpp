#include <libfloat/models.hpp>
#include <cstdio>
#include <vector>

int main() {
  // 3000 ones in fp16, summed under four models picked by name (as floatlab's --model does).
  const std::vector<lf::fp16> ones(3000, lf::fp16{1.0});
  for (const char* name : {"fp16-acc", "fp16-pairwise", "fp16-kahan", "fp32-acc"}) {
    const lf::accumulation model = *lf::accumulation_by_name(name);
    lf::status st{};
    const lf::value r = lf::sum(model, ones, &st);
    std::printf("%-14s %-5s flags 0x%02X\n", name, lf::to_shortest(r.fmt, r.bits).c_str(), lf::to_bits(st));
  }
  std::printf("fp16-kahan is: %s\n", lf::describe(lf::accumulations::fp16_kahan).c_str());
  // The trace shows where fp16 accumulation stalls: the first step that rounds.
  lf::trace tr;
  lf::sum(lf::accumulations::fp16_acc, ones, nullptr, &tr);
  for (std::size_t i = 0; i < tr.steps.size(); ++i)
    if (lf::has(tr.steps[i].flags, lf::status::inexact)) {
      std::printf("fp16-acc first rounds at term %zu: partial sum %s\n", tr.steps[i].last,
                  lf::to_shortest(tr.fmt, tr.steps[i].bits).c_str());
      break;
    }
  // A dot product of 1000 copies of fp16(0.1) with itself, against the exact value (exact.hpp).
  const std::vector<lf::fp16> a(1000, lf::fp16{0.1});
  std::printf("%-18s %s\n", "exact", lf::to_exact_decimal(lf::exact_dot(a, a).round_to<lf::binary64>()).c_str());
  for (const char* name : {"fp16-acc", "fp16-fma", "fp16-mul-fp32-acc", "fp32-acc"}) {
    const lf::value r = lf::dot(*lf::accumulation_by_name(name), a, a);
    std::printf("%-18s %s\n", name, lf::to_shortest(r.fmt, r.bits).c_str());
  }
}
