#include <libfloat/models.hpp>
#include <cstdio>
#include <vector>

int main() {
  // An exact sum: a long fixed-point accumulator, rounded once at the end.
  const std::vector<lf::fp32> x{lf::fp32(1e30f), lf::fp32(1.0f), lf::fp32(-1e30f)};
  const lf::exact_accumulator exact = lf::exact_sum(x);
  const lf::fp32 naive = (x[0] + x[1]) + x[2];
  std::printf("exact %g, binary32 loop %g\n", exact.to_double(), static_cast<double>(naive));
  const lf::error_measures e = lf::measure_error(naive, exact, x.size());
  std::printf("abs %g, rel %g, ulps %.10g, ratio to n*u %.10g\n", e.absolute, e.relative, e.ulps, e.bound_ratio);

  // The same 1*1 + c on three tensor cores: V100 aligns onto 2^-23, A100 and H100 onto 2^-24.
  const std::vector<lf::fp16> one{lf::fp16(1.0)};
  const lf::fp32 c(-(1.0 - 0x1p-24));
  for (const auto* name : {"volta_fp16", "ampere_fp16", "hopper_fp16"})
    std::printf("%-12s 1*1 + c = %a\n", name, static_cast<double>(lf::dot(*lf::matrix_unit_by_name(name), one, one, c)));

  // H100 FP8: 32 products 2^-7 * 2^-7 vanish next to c = 1 (13 alignment bits); DeepSeek-V3's
  // promotion to FP32 every 128 products and the exact dot keep them.
  const std::vector<lf::fp8_e4m3> a(32, lf::fp8_e4m3(0x1p-7));
  lf::status st{};
  const lf::fp32 h = lf::dot(lf::matrix_units::hopper_fp8, a, a, lf::fp32(1.0f), &st);
  const lf::fp32 d = lf::dot(lf::matrix_units::deepseek_fp8_promote128, a, a, lf::fp32(1.0f));
  const double x8 = lf::exact_dot(a, a).add(lf::fp32(1.0f)).to_double();
  std::printf("hopper_fp8 %.9g (flags 0x%02x), deepseek %.9g, exact %.9g\n", static_cast<double>(h),
              unsigned{lf::to_bits(st)}, static_cast<double>(d), x8);
}
