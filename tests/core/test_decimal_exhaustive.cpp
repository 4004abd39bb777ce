// Decimal and hex-float text in and out (libfloat/core/decimal.hpp), the exhaustive suite (label exhaustive).
//
// - Every encoding of binary16, bfloat16, E4M3 and E5M2 through dectest::check_encoding: shortest,
//   exact and hex text read back; shortest is the shortest and the nearest; the midpoint to the next
//   value and that midpoint +- 10^-28 of its last digit parse to the oracle's bits and flags in all
//   seven modes.
// - binary32: a million random encodings plus edge cases: to_shortest equals std::to_chars(float)
//   and reads back with lf::parse and std::from_chars; check_encoding on the first 250,000 of them
//   (the 2,205 edge cases, then random ones).
// - Random decimal strings (1..60 digits, exponents far beyond each format's range) against the
//   oracle in binary16, bfloat16, binary32, binary64 and E4M3, all six deterministic modes.
// Work is split over LIBFLOAT_TEST_THREADS threads (default 2).
#include <libfloat/libfloat.hpp>

#include <doctest/doctest.h>

#include "decimal_test_support.hpp"
#include "encoding_checks.hpp"

#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <random>
#include <string>
#include <thread>
#include <vector>

namespace {

using dectest::encoding_stats;
using dectest::format_pair;
using lf::rounding;

unsigned thread_count() {
  if (const char* s = std::getenv("LIBFLOAT_TEST_THREADS")) return std::max(1, std::atoi(s));
  return 2;
}

/// Runs body(i, stats, rng) for i in [0, n) over the threads, merging their stats.
encoding_stats run_parallel(std::uint64_t n, const std::function<void(std::uint64_t, encoding_stats&, std::mt19937_64&)>& body) {
  const unsigned t = thread_count();
  std::vector<encoding_stats> parts(t);
  std::vector<std::thread> threads;
  for (unsigned k = 0; k < t; ++k)
    threads.emplace_back([&, k] {
      std::mt19937_64 rng(1000 + k);
      for (std::uint64_t i = k; i < n; i += t) body(i, parts[k], rng);
    });
  for (auto& th : threads) th.join();
  encoding_stats all;
  for (const auto& p : parts) all.merge(p);
  return all;
}

void every_encoding(const format_pair& fp) {
  const auto t0 = std::chrono::steady_clock::now();
  const encoding_stats st = run_parallel(std::uint64_t{1} << fp.f.bits(), [&](std::uint64_t b, encoding_stats& s, std::mt19937_64& rng) {
    dectest::check_encoding(fp, b, s, rng);
  });
  st.report();
  CHECK(st.failures == 0);
  CHECK(st.encodings == (1LL << fp.f.bits()));
  const double sec = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  MESSAGE(std::string(fp.name) << ": " << st.encodings << " encodings, " << st.parses << " parses checked in " << sec << " s");
}

std::string random_decimal(std::mt19937_64& rng, long lo, long hi) {
  std::uniform_int_distribution<int> len(1, 60), digit(0, 9), coin(0, 3);
  std::string s;
  if (coin(rng) == 0) s += '-';
  const int n = len(rng);
  const int point = std::uniform_int_distribution<int>(-1, n)(rng);
  for (int i = 0; i < n; ++i) {
    if (i == point) s += '.';
    const int kind = coin(rng);
    s += static_cast<char>('0' + (kind == 0 ? 0 : kind == 1 ? 9 : digit(rng)));
  }
  if (point == n) s += '.';
  s += 'e' + std::to_string(std::uniform_int_distribution<long>(lo, hi)(rng));
  return s;
}

}  // namespace

TEST_CASE("every binary16 encoding: decimal round trips, shortest is shortest and nearest, midpoints in every mode") {
  every_encoding(dectest::binary16);
}
TEST_CASE("every bfloat16 encoding: decimal round trips, shortest is shortest and nearest, midpoints in every mode") {
  every_encoding(dectest::bfloat16);
}
TEST_CASE("every E4M3 and E5M2 encoding: decimal round trips, shortest is shortest and nearest, midpoints in every mode") {
  every_encoding(dectest::e4m3);
  every_encoding(dectest::e5m2);
}

// The full checks (midpoints against the exact oracle in seven modes) cost about 100 times the
// to_chars comparison: they run on the first 250,000 encodings (the 2,205 edge cases, then random ones).
constexpr std::size_t binary32_full_checks = 250000;

TEST_CASE("binary32: a million random and edge encodings: to_shortest == std::to_chars(float), reads back; full checks on the first 250,000 (edge cases, then random)") {
  std::vector<std::uint32_t> cases;
  for (std::uint32_t e = 0; e < 255; ++e)  // each binade's ends and a few values around them
    for (std::uint32_t f : {0u, 1u, 2u, 0x400000u, 0x7FFFFDu, 0x7FFFFEu, 0x7FFFFFu}) cases.push_back((e << 23) | f);
  for (int e = -45; e <= 38; ++e) {  // powers of ten: short outputs, near-ties
    const auto b = std::bit_cast<std::uint32_t>(std::strtof(("1e" + std::to_string(e)).c_str(), nullptr));
    for (std::uint32_t d = b - 2; d != b + 3; ++d) cases.push_back(d);
  }
  std::mt19937_64 rng(0xB32);
  while (cases.size() < 1000000) cases.push_back(static_cast<std::uint32_t>(rng()));
  const auto t0 = std::chrono::steady_clock::now();
  const encoding_stats st = run_parallel(cases.size(), [&](std::uint64_t i, encoding_stats& s, std::mt19937_64& r) {
    for (std::uint32_t b : {cases[i], cases[i] | 0x80000000u}) {
      const float v = std::bit_cast<float>(b);
      if (std::isnan(v)) continue;
      char buf[64];
      const auto tc = std::to_chars(buf, buf + sizeof buf, v);
      const std::string want(buf, tc.ptr), got = lf::to_shortest(lf::binary32, b);
      ++s.parses;
      if (got != want) dectest::detail::report_failure(s, oracle::hex(b, 32) + ": to_chars " + want + ", to_shortest " + got);
      float back = 0;
      std::from_chars(got.data(), got.data() + got.size(), back);
      if (std::bit_cast<std::uint32_t>(back) != b || lf::parse(lf::binary32, got).value != b)
        dectest::detail::report_failure(s, "shortest " + got + " of " + oracle::hex(b, 32) + " does not read back");
    }
    if (i < binary32_full_checks) dectest::check_encoding(dectest::binary32, cases[i], s, r);
  });
  st.report();
  CHECK(st.failures == 0);
  CHECK(st.encodings == static_cast<long long>(binary32_full_checks));
  const double sec = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  MESSAGE("binary32: " << cases.size() << " encodings (both signs), " << st.encodings << " fully checked, " << st.parses
                       << " comparisons in " << sec << " s");
}

TEST_CASE("random decimal strings of 1..60 digits, exponents beyond the range, five formats, six modes: equal to the oracle") {
  const format_pair* formats[] = {&dectest::binary16, &dectest::bfloat16, &dectest::binary32, &dectest::binary64, &dectest::e4m3};
  const auto t0 = std::chrono::steady_clock::now();
  const encoding_stats st = run_parallel(5 * 40000, [&](std::uint64_t i, encoding_stats& s, std::mt19937_64& rng) {
    const format_pair& fp = *formats[i % 5];
    const long lo = static_cast<long>(std::floor((fp.f.emin() - fp.f.precision) * 0.30103)) - 75;
    const long hi = static_cast<long>(std::ceil((fp.f.emax() + 1) * 0.30103)) + 10;
    const std::string text = random_decimal(rng, lo, hi);
    for (rounding r : lf::deterministic_roundings) dectest::detail::check_parse(fp, text, r, s);
  });
  st.report();
  CHECK(st.failures == 0);
  const double sec = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  MESSAGE(st.parses << " random parses compared with the oracle in " << sec << " s");
}
