// The baseline program plus the typed formats only (core/fp.hpp: lf::fp16, lf::bf16 and their
// operators), as a program that computes in fp16 without the span or run-time-format API includes it.
#include <libfloat/core/fp.hpp>

#include <iostream>

int main() {
  lf::fp16 x{0.1f};
  lf::bf16 y{3.0f};
  std::cout << static_cast<float>(x * x + x) << ' ' << static_cast<float>(y / y) << '\n';
}
