// Smoke test: the umbrella header compiles and binary16 round-trips a known value.
#include <libfloat/libfloat.hpp>

#include <doctest/doctest.h>

TEST_CASE("fp16{0.1} is 0x2E66 = 1638/16384 = 0.0999755859375") {
    // 0.1 = 1.6 * 2^-4; 1.6 * 2^10 = 1638.4 rounds to 1638 = 0b1'1001100110 (below half: down).
    // 0b0'01011'1001100110 = 0x2E66: biased exponent 11 = -4 + 15.
    lf::fp16 x{0.1};
    CHECK(x.bits() == 0x2E66);
    CHECK(static_cast<double>(x) == 0.0999755859375);
}

TEST_CASE("fp16::from_bits(0x3C00) is 1.0") {
    // 0b0'01111'0000000000 = 0x3C00: biased exponent 15, significand 1.0.
    CHECK(lf::fp16::from_bits(0x3C00) == lf::fp16{1.0});
}
