// libFuzzer target: a number on floatlab's command line (parse_number_argument, i.e. lf::parse or
// a raw --bits encoding) and what `floatlab show` builds on it: the exact value of the text, the
// bracketing encodings, the error measures and the explanation. Besides crashes and sanitizer
// reports it checks, independently of the parser: a decimal rounded in any direction lies between
// the text rounded down and rounded up, those two enclose the exact value, and the shortest text
// of the result reads back to the same encoding.
//
// Input: byte 0 picks the format, byte 1 the rounding and --bits, the rest is the text.
#include <cstddef>
#include <cstdint>
#include <string>

#include "floatlab/explore.hpp"
#include "fuzz_common.hpp"

namespace {

const lf::format formats[] = {lf::binary16,         lf::bfloat16,       lf::binary32,
                              lf::binary64,         lf::tfloat32,       lf::float8_e4m3fn,
                              lf::float8_e5m2,      lf::format{3, 3, lf::nonfinite::ieee},
                              lf::format{2, 2, lf::nonfinite::ieee},   lf::format{5, 4, lf::nonfinite::nan_only},
                              lf::float4_e2m1fn,    lf::float6_e3m2fn,  lf::float6_e2m3fn,
                              lf::float8_e4m3fnuz,  lf::float8_e5m2fnuz, lf::float8_e4m3b11fnuz,
                              lf::float8_e8m0fnu,   lf::float8_e3m4};

}  // namespace

using fuzz::check;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 2 || size > 400) return 0;
  const lf::format f = fuzz::pick(formats, data[0]);
  const bool raw = (data[1] & 0x80) != 0;
  lf::env e{fuzz::pick(lf::deterministic_roundings, data[1] & 0x7F)};
  const std::string text(reinterpret_cast<const char*>(data + 2), size - 2);

  const floatlab::number_argument n = floatlab::parse_number_argument(f, text, raw, e, "VALUE");
  if (!n) {
    check(!n.error.empty() && n.bits == 0, "an error comes without a number");
    return 0;
  }
  // what show prints for any encoding
  (void)floatlab::fields_of(f, n.bits).grouped();
  (void)floatlab::value_text(f, n.bits);
  if (!floatlab::is_nan(f, n.bits)) {
    const lf::parsed<lf::bits_t> back = lf::parse(f, lf::to_shortest(f, n.bits));
    check(back && back.value == n.bits, "the shortest text reads back to the same encoding");
  }
  if (raw) return 0;

  lf::status down_flags{}, up_flags{};
  const lf::bits_t lower = lf::parse(f, text, lf::env{lf::rounding::downward}, &down_flags).value;
  const lf::bits_t upper = lf::parse(f, text, lf::env{lf::rounding::upward}, &up_flags).value;
  check(n.bits == lower || n.bits == upper, "the result is the value rounded down or up");
  const std::optional<floatlab::rational> x = floatlab::value_of_text(text);
  if (!x) return 0;
  // Where a format clamps instead of reaching infinity or zero (finite_only at the top, exponent-only
  // E8M0 at both ends), an overflow or an underflow may land on the other side of the value.
  const auto clamped = [&](lf::status s) {
    return (f.kind == lf::nonfinite::finite_only && lf::has(s, lf::status::overflow)) ||
           (f.exponent_only() && (lf::has(s, lf::status::overflow) || lf::has(s, lf::status::underflow)));
  };
  if (floatlab::is_finite(f, lower) && !clamped(down_flags))
    check(floatlab::value_of(f, lower) <= *x, "rounded down is not above the value");
  if (floatlab::is_finite(f, upper) && !clamped(up_flags))
    check(floatlab::value_of(f, upper) >= *x, "rounded up is not below the value");
  const floatlab::exact_real xr{*x};
  (void)floatlab::explain_rounding(f, text, xr, n.bits, lower, upper, e, n.flags);
  if (floatlab::is_finite(f, n.bits)) {
    const floatlab::rounding_error err = floatlab::measure(f, n.bits, xr);
    // (where rounding down and up clamp to the same value, the side is the value's, not a choice)
    check(err.direction == 0 || lower == upper || (err.direction > 0) == (n.bits == upper),
          "the direction names the chosen side");
  }
  return 0;
}
