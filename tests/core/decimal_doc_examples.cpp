#include <libfloat/libfloat.hpp>
#include <cstdio>
#include <iostream>

int main() {
  // Parsing rounds once, straight to the format, in any mode, and reports flags.
  lf::status st{};
  lf::parsed<lf::fp16> x = lf::parse<lf::binary16>("0.1", lf::rounding::nearest_even, &st);
  std::printf("0.1 -> 0x%04X, inexact %d\n", unsigned{x.value.bits()}, lf::has(st, lf::status::inexact));
  std::printf("0.1 upward -> 0x%04X\n", unsigned{lf::parse<lf::binary16>("0.1", lf::rounding::upward).value.bits()});
  // The midpoint between fp16 1 and 1 + 2^-10, plus 1e-40: through double it would become 0x3C00.
  std::printf("midpoint + 1e-40 -> 0x%04X\n",
              unsigned{lf::parse<lf::binary16>("1.0004882812500000000000000000000000000001").value.bits()});
  // Hex floats, specials, and a run-time format.
  std::printf("0x1.8p-3 -> 0x%04X, -inf -> 0x%04X, snan -> 0x%04X\n",
              unsigned{lf::parse<lf::binary16>("0x1.8p-3").value.bits()},
              unsigned{lf::parse<lf::binary16>("-inf").value.bits()},
              unsigned{lf::parse<lf::binary16>("snan").value.bits()});
  lf::parsed<lf::bits_t> e = lf::parse(lf::float8_e4m3fn, "300", lf::rounding::toward_zero);
  std::printf("e4m3 300 toward zero -> 0x%02llX\n", static_cast<unsigned long long>(e.value));
  // Malformed input is an error value, never a partial number.
  lf::parsed<lf::fp16> bad = lf::parse<lf::binary16>("1.2.3");
  if (!bad) std::printf("error: %s\n", bad.error.message().c_str());

  // Output: exact, shortest (also what operator<< prints), fixed, scientific, hex.
  const lf::fp16 h = x.value;
  std::printf("exact %s, shortest %s, fixed %s, scientific %s, hex %s\n", lf::to_exact_decimal(h).c_str(),
              lf::to_shortest(h).c_str(), lf::to_fixed(h, 5).c_str(), lf::to_scientific(h, 4).c_str(),
              lf::to_hex(h).c_str());
  std::printf("fixed toward zero %s\n", lf::to_fixed(h, 3, lf::rounding::toward_zero).c_str());
  std::cout << "bf16 max: " << std::numeric_limits<lf::bf16>::max() << " = "
            << lf::to_exact_decimal(std::numeric_limits<lf::bf16>::max()) << '\n';
  std::cout << "fp16 max: " << lf::fp16(65504.0) << ", min subnormal: " << lf::fp16::from_bits(1) << '\n';
}
