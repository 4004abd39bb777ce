// tests/core/exhaustive_common.hpp: what the exhaustive tests against the exact-rational
// oracle share: the formats paired with their independent oracle descriptions, the rounding
// directions paired with the oracle's, and a mismatch collector that reports operands in hex and
// keeps only the first few.
#pragma once

#include <libfloat/libfloat.hpp>

#include <doctest/doctest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "../support/oracle.hpp"

namespace ex {

/// A format as the library sees it and as the oracle sees it (spec numbers, not lf::format).
struct fmt {
  const char* name;
  lf::format lib;
  oracle::target ora;
  std::uint64_t count() const { return std::uint64_t{1} << ora.bits; }
};

inline const fmt binary16{"binary16", lf::binary16, oracle::binary16};
inline const fmt bfloat16{"bfloat16", lf::bfloat16, oracle::bfloat16};
inline const fmt e4m3{"e4m3", lf::float8_e4m3fn, oracle::e4m3};
inline const fmt e5m2{"e5m2", lf::float8_e5m2, oracle::e5m2};
inline const fmt binary32{"binary32", lf::binary32, oracle::binary32};
inline const fmt binary64{"binary64", lf::binary64, oracle::binary64};
inline const fmt tf32{"tf32", lf::tfloat32, oracle::tf32};

/// The formats small enough to enumerate.
inline const fmt* const small_formats[] = {&binary16, &bfloat16, &e4m3, &e5m2};
/// Every conversion target of the unary test.
inline const fmt* const all_formats[] = {&binary16, &bfloat16, &e4m3, &e5m2, &binary32, &binary64, &tf32};

struct direction {
  lf::rounding lib;
  oracle::mode ora;
  const char* name;
};
inline constexpr direction deterministic[] = {
    {lf::rounding::nearest_even, oracle::mode::nearest_even, "nearest_even"},
    {lf::rounding::nearest_away, oracle::mode::nearest_away, "nearest_away"},
    {lf::rounding::toward_zero, oracle::mode::toward_zero, "toward_zero"},
    {lf::rounding::upward, oracle::mode::upward, "upward"},
    {lf::rounding::downward, oracle::mode::downward, "downward"},
    {lf::rounding::odd, oracle::mode::odd, "odd"},
};

inline std::string hex(std::uint64_t v, int bits) { return oracle::hex(v, bits); }

/// Counts cases and disagreements; keeps the first `keep` disagreements as text.
struct collector {
  std::string what;
  std::uint64_t cases = 0;
  std::uint64_t bad = 0;
  std::vector<std::string> first;
  std::size_t keep = 6;

  explicit collector(std::string w) : what(std::move(w)) {}

  /// Records one comparison; `describe` is only called for a disagreement.
  template <typename Describe>
  bool check(bool ok, Describe describe) {
    ++cases;
    if (ok) return true;
    if (bad++ < keep) first.push_back(describe());
    return false;
  }
  /// Stop enumerating once there is nothing more to learn.
  bool enough() const { return bad >= 1000; }

  void report() const {
    MESSAGE(what << ": " << cases << " cases, " << bad << " disagreements");
    for (const auto& s : first) FAIL_CHECK(what << ": " << s);
    CHECK(bad == 0);
    CHECK(cases > 0);
  }
};

/// "0x3C00 -> lf 0x3C01 flags 0x01, oracle 0x3C00 flags 0x00"
inline std::string got_want(std::uint64_t got, unsigned got_flags, std::uint64_t want, unsigned want_flags,
                            int bits) {
  char buf[96];
  std::snprintf(buf, sizeof buf, "lf %s flags 0x%02X, oracle %s flags 0x%02X", hex(got, bits).c_str(), got_flags,
                hex(want, bits).c_str(), want_flags);
  return buf;
}

}  // namespace ex
