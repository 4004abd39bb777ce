#include <libfloat/libfloat.hpp>
#include <cstdio>
#include <span>
#include <vector>

int main() {
  // Round a whole array to binary16; the flags of all elements come back ORed.
  const std::vector<float> x{1.0f, 0.1f, 70000.0f, 1e-6f, -2.5f};
  std::vector<lf::fp16> h(x.size());
  lf::status st = lf::convert(x, h);  // nearest even
  std::vector<float> back(x.size());
  (void)lf::widen(h, back);  // exact
  for (std::size_t i = 0; i < x.size(); ++i)
    std::printf("%-8g -> 0x%04x = %.9g\n", static_cast<double>(x[i]), unsigned{h[i].bits()}, static_cast<double>(back[i]));
  std::printf("flags 0x%02x\n", unsigned{lf::to_bits(st)});

  // The same values on the E4M3 grid, as floats: toward zero, saturating.
  lf::policy sat{};
  sat.overflow = lf::overflow_policy::saturate;
  std::vector<float> q(x.size());
  st = lf::quantize(x, q, lf::float8_e4m3fn, lf::env{lf::rounding::toward_zero, sat});
  for (float v : q) std::printf("%g ", static_cast<double>(v));
  std::printf("(flags 0x%02x)\n", unsigned{lf::to_bits(st)});

  // Stochastic rounding: the random bits depend only on the seed and each element's index, so two
  // pieces through one source (or threads given source.at(first_index)) match one whole call.
  const std::vector<float> y(12, 1.0f + 0x1p-12f);  // a quarter of the way from 1 to 1 + 2^-10
  std::vector<lf::fp16> whole(y.size()), pieces(y.size());
  lf::stochastic_source src{42};
  (void)lf::convert(y, whole, src);
  lf::stochastic_source again{42};
  (void)lf::convert(std::span(y).first(5), std::span(pieces).first(5), again);
  (void)lf::convert(std::span(y).subspan(5), std::span(pieces).subspan(5), again);
  bool same = true;
  for (std::size_t i = 0; i < y.size(); ++i) {
    std::printf("%s", whole[i].bits() == lf::fp16(1.0f).bits() ? "1 " : "1+ulp ");
    same = same && whole[i].bits() == pieces[i].bits();
  }
  std::printf("\nin two pieces: %s; next index %llu\n", same ? "identical" : "DIFFERENT",
              static_cast<unsigned long long>(again.position));
}
