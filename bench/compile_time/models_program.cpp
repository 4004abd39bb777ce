// The third figure of bench/compile_time.sh: a run-time-format lf::add, a dot product under an
// accumulation model and a matrix-unit dot product. Exits 0 when the three results are right.
#include <libfloat/libfloat.hpp>
#include <libfloat/models/accumulate.hpp>
#include <libfloat/models/matrix_unit.hpp>

#include <cstdio>
#include <vector>

int main() {
  lf::status st{};
  const lf::bits_t one = 0x3C00, tiny = 0x0001;  // binary16 1 and its smallest subnormal
  const lf::bits_t s = lf::add(lf::binary16, one, tiny, lf::env{lf::rounding::upward}, st);
  const std::vector<lf::bits_t> a{0x3C00, 0x4000, 0x4200}, b{0x3C00, 0x3C00, 0x3C00};  // {1,2,3}, {1,1,1}
  const lf::value d = lf::dot(lf::accumulations::fp16_acc, a, b, &st);
  const lf::bits_t u = lf::dot(lf::matrix_units::volta_fp16, lf::binary16, a, lf::binary16, b, 0, st);
  std::printf("%04x %04x %08x %d\n", static_cast<unsigned>(s), static_cast<unsigned>(d.bits),
              static_cast<unsigned>(u), static_cast<int>(lf::to_bits(st)));
  return s == 0x3C01 && d.bits == 0x4600 && u == 0x40C00000u ? 0 : 1;
}
