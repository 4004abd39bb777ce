// floatlab's parse_number_argument (tools/floatlab/common.hpp): how a command-line number is read,
// decimal, hex float or (with --bits) a raw encoding, and what the error says. Expected encodings
// are worked out by hand: value = 1.f * 2^(e - bias); e.g. fp16 10 = 1.25 * 2^3 = 0|10010|0100000000.
#include <doctest/doctest.h>

#include <string>

#include "floatlab/common.hpp"

using floatlab::parse_number_argument;

namespace {
bool contains(const std::string& s, const char* part) { return s.find(part) != std::string::npos; }
}  // namespace

TEST_CASE("parse_number_argument: decimal, hex float, inf/nan, rounded once with flags") {
  const lf::env ne{};
  auto r = parse_number_argument(lf::binary16, "0.1", false, ne);
  CHECK(r);
  CHECK(r.bits == 0x2E66);  // 0.1 = 1.6 * 2^-4: 0|01011|1001100110 (614.4 rounded down)
  CHECK(r.flags == lf::status::inexact);
  r = parse_number_argument(lf::binary16, "0x1.8p-3", false, ne);  // 1.5 * 2^-3 = 0|01100|1000000000
  CHECK((r && r.bits == 0x3200 && r.flags == lf::status{}));
  r = parse_number_argument(lf::binary16, "10", false, ne);  // ten, not the encoding 0x0010
  CHECK((r && r.bits == 0x4900));
  CHECK(parse_number_argument(lf::binary16, "-Infinity", false, ne).bits == 0xFC00);
  CHECK(parse_number_argument(lf::binary16, "-nan", false, ne).bits == 0xFE00);
  CHECK(parse_number_argument(lf::bfloat16, "0.1", false, ne).bits == 0x3DCD);  // 76.8 -> 77 = 1001101
  // 1 + 2^-11 is the midpoint of 3C00 and 3C01: the env's rounding decides, once
  CHECK(parse_number_argument(lf::binary16, "1.00048828125", false, ne).bits == 0x3C00);
  r = parse_number_argument(lf::binary16, "1.00048828125", false, lf::env{lf::rounding::upward});
  CHECK((r.bits == 0x3C01 && r.flags == lf::status::inexact));
  lf::env sat;
  sat.policy.overflow = lf::overflow_policy::saturate;
  r = parse_number_argument(lf::binary16, "1e5", false, sat);
  CHECK((r.bits == 0x7BFF && r.flags == (lf::status::overflow | lf::status::inexact)));
}

TEST_CASE("parse_number_argument: --bits takes the encoding as is") {
  const lf::env up{lf::rounding::upward};
  auto r = parse_number_argument(lf::binary16, "3C00", true, up);
  CHECK((r && r.bits == 0x3C00 && r.flags == lf::status{}));
  CHECK(parse_number_argument(lf::binary16, "0x7c01", true, up).bits == 0x7C01);  // a signaling NaN, kept
  CHECK(parse_number_argument(lf::binary16, "10", true, up).bits == 0x0010);
  CHECK(parse_number_argument(lf::binary16, "0000FFFF", true, up).bits == 0xFFFF);  // leading zeros are fine
  CHECK(parse_number_argument(lf::tfloat32, "7FFFF", true, up).bits == 0x7FFFF);    // 19 bits
  CHECK(parse_number_argument(lf::binary64, "FFFFFFFFFFFFFFFF", true, up).bits == ~std::uint64_t{0});
  CHECK(parse_number_argument(lf::float8_e4m3fn, "7E", true, up).bits == 0x7E);

  r = parse_number_argument(lf::binary16, "13C00", true, up, "--bits");
  CHECK(!r);
  CHECK(contains(r.error, "--bits '13C00' is not a raw fp16 encoding: too wide"));
  CHECK(contains(r.error, "at most 16 bits"));
  CHECK(!parse_number_argument(lf::tfloat32, "80000", true, up));
  CHECK(!parse_number_argument(lf::binary64, "1FFFFFFFFFFFFFFFF", true, up));
  r = parse_number_argument(lf::binary16, "3G00", true, up);
  CHECK((!r && contains(r.error, "'G' is not a hex digit")));
  CHECK(contains(parse_number_argument(lf::binary16, "0x", true, up).error, "no hex digits"));
  CHECK(!parse_number_argument(lf::binary16, "", true, up));
  CHECK(!parse_number_argument(lf::binary16, "-3C00", true, up));
  CHECK(!parse_number_argument(lf::binary16, "1.0", true, up));
}

TEST_CASE("parse_number_argument: errors name the argument, the character and what is accepted") {
  auto r = parse_number_argument(lf::binary16, "1.2.3", false, lf::env{}, "X");
  CHECK(!r);
  CHECK(r.bits == 0);
  CHECK(r.flags == lf::status{});
  CHECK(contains(r.error, "X '1.2.3' is not a number: unexpected character '.' at position 3"));
  CHECK(contains(r.error, "a decimal like 0.1 or 1e-8, a hex float like 0x1.8p-3, inf/nan, or --bits HEX for a raw encoding"));
  // an encoding written without --bits is not a number: the message points to --bits
  r = parse_number_argument(lf::binary16, "3C00", false, lf::env{});
  CHECK(!r);
  CHECK(contains(r.error, "NUMBER '3C00' is not a number: unexpected character 'C' at position 1"));
  CHECK(contains(r.error, "--bits HEX"));
  CHECK(contains(parse_number_argument(lf::binary16, "", false, lf::env{}).error, "empty input"));
  CHECK(contains(parse_number_argument(lf::binary16, "1e", false, lf::env{}).error, "at position 2"));
}
