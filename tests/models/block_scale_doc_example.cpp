#include <libfloat/models.hpp>
#include <cmath>
#include <cstdio>
#include <vector>

int main() {
  // 64 values over six binades, quantized to MXFP8 (E4M3, a power-of-two E8M0 scale per 32) and
  // NVFP4 (E2M1, an E4M3 scale per 16 and a binary32 scale for the tensor).
  std::vector<float> x(64);
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = std::ldexp(1.0f + 0.01f * float(i), int(i % 6) - 3) * (i % 3 ? 1 : -1);
  for (const lf::block_format* f : {&lf::mxfp8_e4m3, &lf::mxfp4, &lf::nvfp4}) {
    const lf::block_quantized q = lf::mx_quantize(x, 1, x.size(), *f);
    double worst = 0;
    for (std::size_t i = 0; i < x.size(); ++i) worst = std::max(worst, std::fabs(lf::mx_value(q, i) - x[i]) / std::fabs(x[i]));
    std::printf("%-10s first scale %-8s x[1] = %-7g -> %-9g worst relative error %.3g\n", std::string(f->name).c_str(),
                lf::to_exact_decimal(f->scale, q.scales[0]).c_str(), double(x[1]), lf::mx_value(q, 1), worst);
  }
  // The exact dot product of the quantized vectors, against the float data's exact dot product.
  const auto qa = lf::mx_quantize(x, 1, x.size(), lf::nvfp4);
  const double exact_q = lf::exact_block_dot(qa, qa).to_double();
  std::vector<lf::fp32> xf(x.begin(), x.end());
  std::printf("x.x exact %.9g, NVFP4 x.x exact %.9g\n", lf::exact_dot(xf, xf).to_double(), exact_q);
  // Two FP4 codes per byte, the first in the low nibble.
  const auto packed = lf::pack(std::span<const std::uint8_t>(qa.elements.data(), 4), 4);
  std::printf("codes %x %x %x %x packed %02x %02x\n", qa.elements[0], qa.elements[1], qa.elements[2], qa.elements[3],
              packed[0], packed[1]);
}
