// floatlab's parse_number_argument (tools/floatlab/common.hpp): how a command-line number is read,
// decimal, hex float or (with --bits) a raw encoding, and what the error says. Expected encodings
// are worked out by hand: value = 1.f * 2^(e - bias); e.g. fp16 10 = 1.25 * 2^3 = 0|10010|0100000000.
// Also parse_whole_number and whole_number_check: the counts, sizes and seeds of every subcommand.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

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

// ---- whole numbers: counts, sizes and seeds --------------------------------------------------------
// C11 7.22.1.4 (strtoull, which CLI11 uses with base 0): "-1" is negated in the unsigned type and
// reads as 2^64 - 1, "010" is octal 8, "0x10" is 16. parse_whole_number takes decimal digits only.

using floatlab::parse_whole_number;

TEST_CASE("parse_whole_number: decimal digits in [min, max], the text quoted in every error") {
  constexpr std::uint64_t u64_max = 18446744073709551615u;  // 2^64 - 1
  CHECK(parse_whole_number("0", 0, 10).value == 0);
  CHECK(parse_whole_number("10", 0, 10).value == 10);
  CHECK(parse_whole_number("010", 0, 10).value == 10);  // decimal, not octal 8
  CHECK(parse_whole_number("18446744073709551615", 0, u64_max).value == u64_max);
  CHECK(parse_whole_number("4294967295", 0, 4294967295u).value == 4294967295u);

  auto r = parse_whole_number("-1", 1, 1073741824);
  CHECK(!r);
  CHECK(contains(r.error, "'-1' is negative (accepted: a whole number from 1 to 1073741824)"));
  CHECK(!contains(r.error, "18446744073709551615"));
  CHECK(contains(parse_whole_number("-18446744073709551616", 0, 5).error, "'-18446744073709551616' is negative"));
  CHECK(contains(parse_whole_number("18446744073709551616", 0, u64_max).error, "is too large"));  // 2^64
  CHECK(contains(parse_whole_number("99999999999999999999999", 0, 7).error, "'99999999999999999999999' is too large"));
  CHECK(contains(parse_whole_number("4294967296", 0, 4294967295u).error,
                 "'4294967296' is too large (accepted: a whole number from 0 to 4294967295)"));
  CHECK(contains(parse_whole_number("0", 1, 9).error, "'0' is too small (accepted: a whole number from 1 to 9)"));
  for (const char* bad : {"0x10", "1e3", "+5", "1.0", " 1", "1 ", "ten", "-", "+", "--1", "1,000"}) {
    CAPTURE(bad);
    r = parse_whole_number(bad, 0, 1000);
    CHECK(!r);
    CHECK(contains(r.error, (std::string("'") + bad + "' is not a whole number").c_str()));
  }
  CHECK(contains(parse_whole_number("", 0, 3).error, "'' is not a whole number (accepted: a whole number from 0 to 3)"));
}

TEST_CASE("whole_number_check: CLI11 gets the value, never a wrapped or octal reading") {
  auto parse = [](std::vector<std::string> args, std::size_t& m, std::uint32_t& seed) {
    CLI::App app;
    floatlab::add_whole_number_option(app, "--m", m, "rows", 1, 1073741824);
    floatlab::add_whole_number_option(app, "--seed", seed, "seed", 0, 4294967295u);
    std::reverse(args.begin(), args.end());  // CLI11 takes them last first
    app.parse(args);
  };
  std::size_t m = 64;
  std::uint32_t seed = 1;
  parse({"--m", "010", "--seed", "4294967295"}, m, seed);
  CHECK(m == 10);
  CHECK(seed == 4294967295u);
  parse({"--m=1073741824"}, m, seed);
  CHECK(m == 1073741824);
  auto message = [&](std::vector<std::string> args) {
    try {
      parse(std::move(args), m, seed);
    } catch (const CLI::ParseError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  CHECK(contains(message({"--m", "-1"}), "--m: '-1' is negative (accepted: a whole number from 1 to 1073741824)"));
  CHECK(contains(message({"--m=-1"}), "'-1' is negative"));
  CHECK(contains(message({"--m", "0x10"}), "'0x10' is not a whole number"));
  CHECK(contains(message({"--m", "1073741825"}), "'1073741825' is too large"));
  CHECK(contains(message({"--seed", "-1"}), "--seed: '-1' is negative (accepted: a whole number from 0 to 4294967295)"));
  CHECK(contains(message({"--seed", "4294967296"}), "'4294967296' is too large"));
}
