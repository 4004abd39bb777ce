#include <libfloat/models.hpp>
#include <cmath>
#include <cstdio>
#include <vector>

int main() {
  // a . b with K = 128 on Blackwell's block-scaled units: MXFP8 operands on kind::mxf8f6f4, NVFP4
  // operands on kind::mxf4nvf4 (blackwell_mxf4). b is given as a row (B transposed: N x K).
  const std::size_t K = 128;
  std::vector<float> a(K), b(K);
  for (std::size_t i = 0; i < K; ++i) {
    a[i] = std::ldexp(1.0f + 0.03f * float(i % 7), -int(i % 9)) * (i % 4 ? 1 : -1);
    b[i] = std::ldexp(1.5f - 0.02f * float(i % 5), -int(i % 5));
  }
  std::vector<lf::fp32> af(a.begin(), a.end()), bf(b.begin(), b.end());
  std::printf("exact a.b      %.9g\n", lf::exact_dot(af, bf).to_double());
  const struct {
    const lf::block_format& fmt;
    lf::block_scaled_unit unit;
  } runs[] = {{lf::mxfp8_e4m3, lf::block_scaled_units::blackwell_mxf8f6f4},
              {lf::nvfp4, lf::block_scaled_units::blackwell_mxf4}};
  for (const auto& r : runs) {
    const lf::block_quantized qa = lf::mx_quantize(a, 1, K, r.fmt), qb = lf::mx_quantize(b, 1, K, r.fmt);
    lf::status st{};
    const float d = lf::block_scaled_dot(r.unit, qa, 0, qb, 0, 0.0f, st);
    std::printf("%-10s unit %.9g, quantized exact %.9g, flags 0x%02x\n", std::string(r.fmt.name).c_str(), d,
                lf::exact_block_dot(qa, qb).to_double(), static_cast<unsigned>(st));
  }
}
