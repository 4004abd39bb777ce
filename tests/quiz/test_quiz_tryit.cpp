// "Try it yourself" (quiz/tryit.cpp): every number it prints, for hand-picked and random inputs,
// recomputed here by the test oracle (tests/support/oracle.hpp: exact rationals, Boost cpp_int,
// its own rounding), which shares no code with the library; and every malformed input refused
// with the accepted form.
#include <doctest/doctest.h>

#include <bit>
#include <cmath>
#include <tuple>

#include <fmt/format.h>
#include <random>
#include <regex>
#include <string>
#include <vector>

#include "../support/oracle.hpp"
#include "text.hpp"
#include "tryit.hpp"

using namespace mpq;
using oracle::cpp_int;
using oracle::exact;
using u64 = std::uint64_t;

namespace {

const language& en() { return *find_language("en"); }

/// A decimal numeral ("-1.25e-3") as an exact rational, parsed here.
exact decimal(const std::string& s) {
  if (s == "inf" || s == "-inf") return exact::infinity(s[0] == '-');
  std::size_t i = 0;
  const bool neg = s[i] == '-';
  if (s[i] == '-' || s[i] == '+') ++i;
  cpp_int digits = 0;
  long scale = 0;  // value = digits * 10^scale
  bool point = false;
  for (; i < s.size() && s[i] != 'e' && s[i] != 'E'; ++i) {
    if (s[i] == '.') {
      point = true;
      continue;
    }
    digits = digits * 10 + (s[i] - '0');
    if (point) --scale;
  }
  if (i < s.size()) scale += std::stol(s.substr(i + 1));
  if (digits == 0) return exact::zero(neg);
  cpp_int ten = 1;
  for (long k = 0; k < (scale < 0 ? -scale : scale); ++k) ten *= 10;
  return scale >= 0 ? exact::rational(neg, digits * ten, 1, 0) : exact::rational(neg, digits, ten, 0);
}

/// The value of an encoding as an exact rational (the oracle's decoder).
exact value_of(const oracle::target& t, u64 b) {
  const oracle::operand o = oracle::decode(t, b);
  return o.value;
}

u64 round_decimal(const oracle::target& t, const std::string& s) {
  return oracle::round(decimal(s), t, oracle::mode::nearest_even).bits;
}

/// The rows of the tables in a rendered page (laid out wide: one row per line, cells two or more
/// spaces apart).
std::vector<std::vector<std::string>> rows_of(const std::string& text) {
  std::vector<std::vector<std::string>> rows;
  std::size_t start = 0;
  static const std::regex sep(" {2,}");
  while (start < text.size()) {
    const std::size_t nl = text.find('\n', start);
    const std::string line = text.substr(start, nl - start);
    start = nl + 1;
    if (line.rfind("  ", 0) != 0) continue;
    std::vector<std::string> cells(std::sregex_token_iterator(line.begin() + 2, line.end(), sep, -1), {});
    if (cells.size() >= 2) rows.push_back(cells);
  }
  return rows;
}

std::vector<std::vector<std::string>> run(int n, const std::string& input) {
  const try_outcome r = try_it(n, en(), input);
  REQUIRE_MESSAGE(r.ok, input << ": " << r.error);
  return rows_of(r.result->render(1000));
}

struct fmt_case {
  const char* name;
  oracle::target t;
};
const fmt_case formats[] = {{"fp16", oracle::binary16}, {"bf16", oracle::bfloat16}, {"fp32", oracle::binary32}};

/// The relative error as tryit prints it: |stored - x| / |x| with 2 significant digits.
std::string rel_text(const exact& stored, const exact& x) {
  exact minus_x = x, diff;
  minus_x.neg = !x.neg;
  diff = oracle::detail::exact_add(stored, minus_x);
  diff.neg = false;
  exact mag = x;
  mag.neg = false;
  // |stored - x| / |x| exactly, rounded once to binary64 by the oracle
  const double e = std::bit_cast<double>(
      static_cast<u64>(oracle::round(oracle::detail::exact_div(diff, mag), oracle::binary64, oracle::mode::nearest_even).bits));
  if (e == 0) return "0";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1e", e);
  return buf;
}

/// Random short decimals across many binades: d.ddde[-30, 10].
std::vector<std::string> random_decimals(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 gen(seed);
  std::vector<std::string> out;
  for (std::size_t i = 0; i < n; ++i) {
    const int m = static_cast<int>(gen() % 9000) + 1000;
    const int e = static_cast<int>(gen() % 41) - 30;
    out.push_back(std::to_string(m / 1000) + "." + std::to_string(m % 1000 + 1000).substr(1) + "e" + std::to_string(e));
  }
  return out;
}

}  // namespace

TEST_CASE("try Q1: w + u in fp16, bf16, fp32, 'lost' exactly when the oracle's sum gives w back") {
  std::vector<std::pair<std::string, std::string>> cases{{"1", "1e-4"}, {"0.25", "0.0001"}, {"1", "0.00048828125"},
                                                         {"1.0009765625", "0.00048828125"}, {"2048", "1"}, {"-3", "1e-3"}};
  const auto ws = random_decimals(200, 1), us = random_decimals(200, 2);
  for (std::size_t i = 0; i < ws.size(); ++i) cases.emplace_back(ws[i], us[i]);
  for (const auto& [w, u] : cases) {
    CAPTURE(w);
    CAPTURE(u);
    const auto rows = run(1, w + " " + u);
    REQUIRE(rows.size() == 4);  // the heading and three formats
    for (std::size_t k = 0; k < 3; ++k) {
      const auto& row = rows[k + 1];
      const oracle::target& t = formats[k].t;
      CHECK(row[0] == formats[k].name);
      const u64 wb = round_decimal(t, w), ub = round_decimal(t, u);
      const u64 sum = oracle::add(t, wb, ub, oracle::mode::nearest_even).bits;
      // Each printed number reads back (rounded to the format) as the oracle's encoding.
      CHECK(round_decimal(t, row[1]) == wb);
      CHECK(round_decimal(t, row[2]) == ub);
      CHECK(round_decimal(t, row[4]) == sum);
      CHECK(row[5] == (sum == wb ? "lost" : "kept"));
    }
  }
}

TEST_CASE("try Q3: the stored value in full and the relative error, from the oracle's rounding of the decimal") {
  std::vector<std::string> cases{"0.1", "70000", "1e-10", "3e38", "65519.99", "65520", "5.96e-8", "1e-50", "-2.5"};
  for (const auto& s : random_decimals(300, 3)) cases.push_back(s);
  for (const std::string& x : cases) {
    CAPTURE(x);
    const auto rows = run(3, x);
    REQUIRE(rows.size() == 4);
    for (std::size_t k = 0; k < 3; ++k) {
      const auto& row = rows[k + 1];
      const oracle::target& t = formats[k].t;
      const u64 b = round_decimal(t, x);
      const oracle::operand o = oracle::decode(t, b);
      if (o.value.is_inf()) {
        CHECK(row[1] == "inf (overflow)");
        CHECK(row[3] == "-");
        continue;
      }
      // The full stored value: exactly the oracle's value.
      CHECK(oracle::detail::compare_values(decimal(row[2]), o.value) == 0);
      CHECK(row[3] == rel_text(o.value, decimal(x)));
      if (o.value.is_zero()) CHECK(row[1] == "0 (underflow)");
    }
  }
}

TEST_CASE("try Q2/Q7: g x S rounded once, its class and relative error") {
  std::vector<std::pair<std::string, std::string>> cases{{"1e-8", "1024"}, {"1e-3", "65536"}, {"1e-9", "1"},
                                                         {"100", "1024"}, {"3e-8", "0.5"}};
  const auto gs = random_decimals(150, 4);
  for (std::size_t i = 0; i < gs.size(); ++i) cases.emplace_back(gs[i], std::to_string(1u << (i % 24)));
  for (const auto& [g, s] : cases) {
    for (const int q : {2, 7}) {
      CAPTURE(g);
      CAPTURE(s);
      const auto rows = run(q, g + " " + s);
      REQUIRE(rows.size() == 4);
      // g and S as binary64 reads them, their product exact.
      const exact gs_exact = oracle::detail::exact_mul(value_of(oracle::binary64, round_decimal(oracle::binary64, g)),
                                               value_of(oracle::binary64, round_decimal(oracle::binary64, s)));
      for (std::size_t k = 0; k < 3; ++k) {
        const auto& row = rows[k + 1];
        const oracle::target& t = formats[k].t;
        const oracle::result r = oracle::round(gs_exact, t, oracle::mode::nearest_even);
        const oracle::operand o = oracle::decode(t, r.bits);
        const bool overflow = (r.flags & oracle::flag::overflow) != 0;
        CHECK(row[2] == (overflow                ? "overflow"
                         : o.value.is_zero()     ? "zero (lost)"
                         : (r.bits & ((u64{1} << (t.w() + t.p - 1)) - 1)) >> (t.p - 1) == 0 ? "subnormal"
                                                                                            : "normal"));
        if (!overflow) {
          CHECK(round_decimal(t, row[1]) == r.bits);
          CHECK(row[3] == rel_text(o.value, gs_exact));
        }
      }
    }
  }
}

TEST_CASE("try Q4: n copies of x summed one by one, where each plain sum stalls, and Kahan in fp16") {
  const std::vector<std::pair<int, std::string>> cases{{4096, "1"}, {10000, "0.01"}, {300, "0.1"}, {5000, "3.3"}, {1, "7"}};
  for (const auto& [n, x] : cases) {
    CAPTURE(n);
    CAPTURE(x);
    const auto rows = run(4, std::to_string(n) + " " + x);
    REQUIRE(rows.size() == 6);
    const oracle::mode ne = oracle::mode::nearest_even;
    for (std::size_t k = 0; k < 3; ++k) {  // fp16, bf16, fp32: a plain loop in the oracle
      const oracle::target& t = formats[k].t;
      const u64 xb = round_decimal(t, x);
      u64 acc = 0;
      int stalled_at = -1;
      for (int i = 0; i < n; ++i) {
        const u64 next = oracle::add(t, acc, xb, ne).bits;
        if (next == acc && stalled_at < 0) stalled_at = i;
        acc = next;
      }
      const auto& row = rows[k + 1];
      CHECK(round_decimal(t, row[1]) == acc);
      CHECK(row.size() == (stalled_at < 0 ? 4u : 5u));  // (an empty last cell is no cell)
      if (stalled_at >= 0)
        CHECK(oracle::detail::compare_values(decimal(row[4].substr(3, row[4].find(' ', 3) - 3)), value_of(t, acc)) == 0);
      if (stalled_at >= 0) CHECK(row[4].ends_with(" after " + std::to_string(stalled_at) + " terms"));
    }
    // Kahan in fp16: s, c; y = x - c; t = s + y; c = (t - s) - y; s = t.
    const oracle::target& h = oracle::binary16;
    const u64 xb = round_decimal(h, x);
    u64 s = 0, c = 0;
    for (int i = 0; i < n; ++i) {
      const u64 y = oracle::sub(h, xb, c, ne).bits;
      const u64 t = oracle::add(h, s, y, ne).bits;
      c = oracle::sub(h, oracle::sub(h, t, s, ne).bits, y, ne).bits;
      s = t;
    }
    CHECK(round_decimal(h, rows[4][1]) == s);
  }
}

TEST_CASE("try Q6: GradScaler's scale, restated: x0.5 and a reset on the overflow, x2 after each interval") {
  for (const auto& [scale, interval, at] : std::vector<std::tuple<double, int, int>>{{65536, 4, 3}, {1024, 1, 1}, {8, 3, 7}}) {
    const auto rows = run(6, fmt::format("{} {} {}", scale, interval, at));
    // Step by step from the rule, then compared with the rows (a row covers a run of steps).
    std::vector<double> used;
    double s = scale;
    int tracker = 0;
    const int steps = at + 2 * interval + 1;
    for (int k = 1; k <= steps; ++k) {
      used.push_back(s);
      if (k == at) {
        s *= 0.5;
        tracker = 0;
      } else if (++tracker == interval) {
        s *= 2;
        tracker = 0;
      }
    }
    int covered = 0;
    for (std::size_t r = 1; r < rows.size(); ++r) {
      const std::string& st = rows[r][0];
      const std::size_t dash = st.find('-');
      const int first = std::stoi(st.substr(0, dash)), last = dash == std::string::npos ? first : std::stoi(st.substr(dash + 1));
      CHECK(first == covered + 1);
      for (int k = first; k <= last; ++k) CHECK(std::stod(rows[r][1]) == used[static_cast<std::size_t>(k - 1)]);
      covered = last;
    }
    CHECK(covered == steps);
  }
}

TEST_CASE("try Q8: the fp32 softmax of [z, z-1, z-2], every step rounded to binary32 by the hardware") {
  for (const double z : {12.0, 5.0, -3.0, 88.0}) {
    const auto rows = run(8, fmt::format("{}", z));
    REQUIRE(rows.size() == 4);
    const double zs[] = {z, z - 1, z - 2};
    float e[3], sum = 0;
    for (int i = 0; i < 3; ++i) {
      e[i] = static_cast<float>(std::exp(static_cast<double>(static_cast<float>(zs[i]))));
      sum += e[i];
    }
    const std::string& cell = rows[2][2];
    CHECK(rows[2][0] == "fp32");
    std::vector<float> shown;
    static const std::regex num(R"([-0-9.e+]+|NaN|inf)");
    for (auto it = std::sregex_iterator(cell.begin(), cell.end(), num); it != std::sregex_iterator(); ++it)
      shown.push_back(it->str() == "NaN" ? NAN : std::stof(it->str()));
    REQUIRE(shown.size() == 3);
    for (int i = 0; i < 3; ++i) {
      const float p = e[i] / sum;
      CHECK((std::isnan(p) ? std::isnan(shown[static_cast<std::size_t>(i)]) : shown[static_cast<std::size_t>(i)] == p));
    }
  }
}

TEST_CASE("try: malformed input is refused with what was typed and the accepted form") {
  const std::vector<std::pair<int, std::string>> bad{
      {1, "x"}, {1, "1"}, {1, "1 2 3"}, {1, "nan 1"}, {1, "1 inf"}, {1, "1e400 1"}, {2, "1e-8 0"}, {2, "1e-8 -2"},
      {3, ""}, {3, "1..2"}, {4, "0 1"}, {4, "1.5 1"}, {4, "2000000 1"}, {6, "1 0 1"}, {6, "1 1 1001"},
      {6, "-1 4 3"}, {8, "2e6"}, {8, "12 13"}, {7, "a b"}};
  for (const auto& [n, s] : bad) {
    CAPTURE(n);
    CAPTURE(s);
    const try_outcome r = try_it(n, en(), s);
    CHECK_FALSE(r.ok);
    CHECK(r.error.find("Not understood: '" + s + "'.") == 0);
    CHECK(r.error.find(en().get("try.q" + std::to_string(n) + ".form")) != std::string::npos);
  }
  CHECK_FALSE(has_try(5));
  for (const int n : {1, 2, 3, 4, 6, 7, 8}) CHECK(has_try(n));
}
