// The sentences of the quiz demos of questions 1-4, read as claims: each test renders a demo in
// English and in French, reads the numbers out of its sentences and tables, and checks every
// stated rule against an independent model written here: hardware _Float16 and float arithmetic,
// exact rationals (Boost cpp_rational / cpp_int), the exact-rational oracle (tests/support/oracle.hpp)
// and a hand-written block fused multiply-add (Fasi, Higham, Mikaitis, Pranesh, "Numerical behavior
// of NVIDIA tensor cores", PeerJ Comput. Sci. 7:e330, 2021). Nothing is checked against the demo's
// own helper functions. Compiled with -ffp-contract=off so the hardware references round every
// operation as written.
#include <doctest/doctest.h>

#include <boost/multiprecision/cpp_int.hpp>

#include <algorithm>
#include <bit>
#include <cfloat>
#include <climits>
#include <cstdlib>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <regex>
#include <string>
#include <vector>

#include "demos/demos.hpp"
#include "demos/facts.hpp"
#include "../support/oracle.hpp"
#include "claims_text.hpp"
#include "exact_decimal.hpp"

using namespace mpq;
using boost::multiprecision::cpp_int;
using boost::multiprecision::cpp_rational;

namespace {

using claims::rational_of_decimal;

using claims::fields;
using claims::flat;
using claims::lang;
using claims::lines_of;

using h16 = _Float16;
h16 h(double x) { return static_cast<h16>(x); }

// ---- text -------------------------------------------------------------------------------------

/// The captures of the first match of `pattern` in `text`; a failed REQUIRE names the pattern.
std::vector<std::string> match(const std::string& text, const std::string& pattern) {
  std::smatch m;
  const bool found = std::regex_search(text, m, std::regex(pattern));
  INFO("pattern: " << pattern);
  INFO("text: " << text);
  REQUIRE(found);
  std::vector<std::string> out;
  for (std::size_t i = 1; i < m.size(); ++i) out.push_back(m[i].str());
  return out;
}

/// A number as printed: decimal (strtod, correctly rounded), "2^-25", "inf".
double num(const std::string& s) {
  if (s.rfind("2^", 0) == 0) return std::ldexp(1.0, std::stoi(s.substr(2)));
  if (s == "inf") return INFINITY;
  char* end = nullptr;
  const double v = std::strtod(s.c_str(), &end);
  INFO("number: " << s);
  REQUIRE(end == s.c_str() + s.size());
  return v;
}

/// The exact value of a finite double.
cpp_rational rational(double x) {
  int e = 0;
  const double m = std::frexp(x, &e);
  const auto mi = static_cast<std::int64_t>(std::ldexp(m, 53));
  cpp_rational r{cpp_int(mi)};
  e -= 53;
  const cpp_int p = cpp_int(1) << static_cast<unsigned>(std::abs(e));
  return e >= 0 ? cpp_rational(r * p) : cpp_rational(r / p);
}

/// printf's %.Ne of a value (glibc rounds the exact binary value correctly).
std::string sci(double v, int digits) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*e", digits, v);
  return buf;
}

/// A rational rounded to a double (nearest; 60 quotient bits, then the hardware's one rounding,
/// exact enough for the 2-3 digits the demos print).
double to_double(const cpp_rational& q) {
  if (q == 0) return 0;
  const bool neg = q < 0;
  cpp_int n = boost::multiprecision::numerator(neg ? cpp_rational(-q) : q), d = boost::multiprecision::denominator(q);
  const long shift = 62 - static_cast<long>(boost::multiprecision::msb(n)) + static_cast<long>(boost::multiprecision::msb(d));
  if (shift > 0) n <<= static_cast<unsigned>(shift);
  else d <<= static_cast<unsigned>(-shift);
  const cpp_int qi = n / d;
  const double v = std::ldexp(static_cast<double>(qi.convert_to<std::uint64_t>() | ((n % d) != 0 ? 1u : 0u)), static_cast<int>(-shift));
  return neg ? -v : v;
}

const language& en() { return *find_language("en"); }
const language& fr() { return *find_language("fr"); }

// ---- binary16, by hand --------------------------------------------------------------------------

/// x >= 0 (a double) rounded to binary16 nearest even, from the format's definition (IEEE 754-2019
/// §3.6: p = 11, emin = -14, emax = 15): the grid of x's binade, ties to an even multiple.
double round16(double x) {
  if (x == 0) return 0;
  int e = 0;
  std::frexp(x, &e);  // x in [2^(e-1), 2^e)
  const int q = std::max(e - 1, -14) - 10;  // the spacing 2^q
  const double n = std::ldexp(x, -q);       // exact: a power-of-two scaling
  double k = std::floor(n);
  const double rest = n - k;
  if (rest > 0.5 || (rest == 0.5 && std::fmod(k, 2.0) != 0)) k += 1;
  const double r = std::ldexp(k, q);
  return r >= 65536.0 ? INFINITY : r;  // 65520 rounds to 2^16, which is beyond emax: infinity
}

/// Every positive finite binary16 value, in increasing order (from the encodings, via _Float16).
const std::vector<double>& positive_fp16() {
  static const std::vector<double> all = [] {
    std::vector<double> v;
    for (std::uint16_t b = 1; b < 0x7C00; ++b) v.push_back(static_cast<double>(std::bit_cast<h16>(b)));
    return v;
  }();
  return all;
}

/// Half an ulp of a positive finite binary16 value: ulp = 2^(max(e, emin) - p + 1).
double half_ulp16(double w) {
  int e = 0;
  std::frexp(w, &e);
  return std::ldexp(1.0, std::max(e - 1, -14) - 11);
}

}  // namespace

// =================================================================================================
// Q1
// =================================================================================================

TEST_CASE("Q1 claims: the 2048 rule of thumb, the exact threshold in both directions, exhaustively over fp16") {
  // The update as fp16: 1e-4 rounded by the hardware conversion, checked against round16.
  const double u = static_cast<double>(h(1e-4));
  REQUIRE(u == round16(1e-4));
  // w + u is exact in binary64 (both are multiples of 2^-24 below 2^16: at most 40 bits), so
  // round16(w + u) is the one rounding of an fp16 addition; _Float16 addition must agree.
  const std::vector<double>& ws = positive_fp16();
  std::vector<bool> lost_up(ws.size()), lost_down(ws.size());
  for (std::size_t i = 0; i < ws.size(); ++i) {
    lost_up[i] = round16(ws[i] + u) == ws[i];
    lost_down[i] = round16(ws[i] - u) == ws[i];
    REQUIRE(lost_up[i] == (static_cast<h16>(h(ws[i]) + h(u)) == h(ws[i])));
    REQUIRE(lost_down[i] == (static_cast<h16>(h(ws[i]) - h(u)) == h(ws[i])));
  }
  // "every w >= t loses it and every smaller one moves", checked over all positive fp16 weights.
  auto sharp_at = [&](const std::vector<bool>& lost, double t) {
    for (std::size_t i = 0; i < ws.size(); ++i) {
      CAPTURE(ws[i]);
      if (lost[i] != (ws[i] >= t)) return false;
    }
    return true;
  };
  auto moves = [&](const std::vector<bool>& lost, double w) {
    const auto it = std::find(ws.begin(), ws.end(), w);
    REQUIRE(it != ws.end());
    return !lost[static_cast<std::size_t>(it - ws.begin())];
  };

  // The explanation's ulp and its "added to w = 1, any update below 2^-11 is lost".
  const std::string explain_patterns[][2] = {
      {"en", R"(the gap between consecutive FP16 numbers, (\S+) for the numbers in \[1, 2\)\)\..* added to w = 1, any update below (\S+)\.)"},
      {"fr", R"(l'écart entre deux nombres FP16 consécutifs, (\S+) pour les nombres de \[1, 2\)\)\..* ajoutée à w = 1, toute mise à jour inférieure à (\S+)\.)"}};
  for (const auto& [code, pattern] : explain_patterns) {
    CAPTURE(code);
    const language& l = *find_language(code);
    const auto e = match(flat(substitute(l.questions()[0].explanation, demo::facts())), pattern);
    for (std::size_t i = 0; i + 1 < ws.size() && ws[i] < 2; ++i)
      if (ws[i] >= 1) CHECK(ws[i + 1] - ws[i] == num(e[0]));  // the spacing in [1, 2)
    for (const double v : ws) {
      if (v >= num(e[1])) break;
      CHECK(round16(1.0 + v) == 1.0);  // every fp16 update below it is lost at w = 1
    }
  }

  const demo::q1_result r = demo::run_q1();
  struct patterns {
    const language* l;
    std::string old_claim, rule, above, exact_up, exact_down;
  };
  const patterns langs[] = {
      {&en(), R"(every fp16 weight with \|w\| >= (\S+) stops moving)",
       R"(lost when \|w\| >= (\S+) x \|update\|, here \|w\| >= (\S+)\. No fp16 weight below that loses this update)",
       R"(and w = (\S+), above the bound, still moves: half an ulp there is (\S+) = (\S+), less than the update \((\S+)\))",
       R"(added to a positive weight, it is lost for every fp16 w >= (\S+) and moves every smaller one)",
       R"(so w = (\S+) itself still moves, and the update is lost for every \|w\| >= (\S+) and for no smaller one)"},
      {&fr(), R"(tout poids fp16 tel que \|w\| >= (\S+) ne bouge plus)",
       R"(perdue quand \|w\| >= (\S+) x \|mise à jour\|, ici \|w\| >= (\S+)\. Aucun poids fp16 en dessous ne perd cette mise à jour)",
       R"(et w = (\S+), au-dessus de la borne, bouge encore : un demi-ulp y vaut (\S+) = (\S+), moins que la mise à jour \((\S+)\))",
       R"(ajoutée à un poids positif, elle est perdue pour tout poids fp16 w >= (\S+) et fait bouger tous les plus petits)",
       R"(donc w = (\S+) bouge encore, et la mise à jour est perdue pour tout \|w\| >= (\S+) et pour aucun plus petit)"},
  };
  for (const patterns& p : langs) {
    CAPTURE(p.l->code());
    const std::string t = flat(demo::show_q1(r, *p.l));
    // The old sentence "every fp16 weight with |w| >= 0.2048... stops moving", if shown, must be
    // true in both directions.
    std::smatch m;
    if (std::regex_search(t, m, std::regex(p.old_claim))) {
      const double x = num(m[1].str());
      CHECK_MESSAGE(sharp_at(lost_up, x), "an fp16 weight >= " << x << " still moves under +update");
      CHECK_MESSAGE(sharp_at(lost_down, x), "an fp16 weight >= " << x << " still moves under -update");
    }
    // The rule of thumb: 2048 = 2^p times the update, and a necessary condition: no weight
    // below it loses the update, in either direction.
    const auto rule = match(t, p.rule);
    CHECK(num(rule[0]) == std::ldexp(1.0, oracle::binary16.p));
    const double bound = num(rule[1]);
    CHECK(bound == std::ldexp(u, oracle::binary16.p));
    for (std::size_t i = 0; i < ws.size() && ws[i] < bound; ++i) {
      CAPTURE(ws[i]);
      CHECK_FALSE(lost_up[i]);
      CHECK_FALSE(lost_down[i]);
    }
    // A weight above the bound that moves: half its ulp is less than the update.
    const auto above = match(t, p.above);
    const double w = static_cast<double>(h(num(above[0])));
    CHECK(w > bound);
    CHECK(moves(lost_up, w));
    CHECK(num(above[1]) == half_ulp16(w));
    CHECK(num(above[2]) == half_ulp16(w));
    CHECK(half_ulp16(w) < u);
    CHECK(static_cast<double>(h(num(above[3]))) == u);
    // The exact thresholds.
    const auto up = match(t, p.exact_up);
    const double t_up = static_cast<double>(h(num(up[0])));
    CHECK(sharp_at(lost_up, t_up));
    CHECK(t_up == 0.25);  // hand derivation: half an ulp is 2^-13 > u from 2^-2 on, 2^-14 < u below
    const auto down = match(t, p.exact_down);
    CHECK(static_cast<double>(h(num(down[0]))) == t_up);
    CHECK(moves(lost_down, t_up));  // the gap below a power of two is half as wide
    const double t_down = static_cast<double>(h(num(down[1])));
    CHECK(sharp_at(lost_down, t_down));
    CHECK(t_down == 0.25 + std::ldexp(1.0, -12));  // the next fp16 number above 0.25
  }
}

TEST_CASE("Q1 claims: why the fp32 master weight is not the exact w0 + N x update") {
  const float uf = 1e-4f;
  float w = 1.0f;
  const float step = (1.0f + uf) - 1.0f;  // exact (Sterbenz)
  bool steps_equal = true;
  for (int k = 0; k < 10000; ++k) {
    const float next = w + uf;
    if (static_cast<double>(w) + static_cast<double>(uf) < 2.0) steps_equal = steps_equal && (next - w == step);
    w = next;
  }
  REQUIRE(steps_equal);
  const cpp_rational u_exact = rational(uf);
  const cpp_rational exact = 1 + 10000 * u_exact;
  const cpp_rational err = rational(w) - exact;

  const demo::q1_result r = demo::run_q1();
  struct patterns {
    const language* l;
    std::string exact_line, why;
  };
  const patterns langs[] = {
      {&en(), R"(exact, with the fp32 update: w0 \+ N x update = (\S+))",
       R"(Why fp32 ends at (\S+), not at the exact value: its update is fp32\((\S+)\) = (\S+), not (\S+) itself, and each of the (\d+) sums is rounded to fp32\. Every sum below 2 rounds w \+ update to w \+ (\S+), (\S+) more than the update, so the roundings add up instead of cancelling: the final w is (\S+) above the exact value\.)"},
      {&fr(), R"(valeur exacte, avec la mise à jour fp32 : w0 \+ N x mise à jour = (\S+))",
       R"(Pourquoi le fp32 finit à (\S+) et non à la valeur exacte : sa mise à jour est fp32\((\S+)\) = (\S+), pas (\S+) lui-même, et chacune des (\d+) sommes est arrondie en fp32\. Toute somme inférieure à 2 arrondit w \+ mise à jour à w \+ (\S+), soit (\S+) de plus que la mise à jour : les arrondis s'ajoutent au lieu de se compenser, et le w final dépasse la valeur exacte de (\S+)\.)"},
  };
  for (const patterns& p : langs) {
    CAPTURE(p.l->code());
    const std::string t = flat(demo::show_q1(r, *p.l));
    CHECK(rational_of_decimal(match(t, p.exact_line)[0]) == exact);  // every digit
    const auto why = match(t, p.why);
    CHECK(static_cast<float>(num(why[0])) == w);
    CHECK(static_cast<float>(num(why[1])) == uf);
    CHECK(rational_of_decimal(why[2]) == u_exact);                // fp32(1e-4), every digit
    CHECK(rational_of_decimal(why[3]) == cpp_rational(1, 10000));  // "not 1e-4 itself"
    CHECK(u_exact != cpp_rational(1, 10000));
    CHECK(why[4] == "10000");
    CHECK(rational_of_decimal(why[5]) == rational(step));
    CHECK(step > uf);  // "more than the update"
    CHECK(why[6] == sci(static_cast<double>(step) - static_cast<double>(uf), 2));  // exact in binary64
    CHECK(err > 0);    // "above the exact value"
    CHECK(why[7] == sci(to_double(err), 2));
  }
}

// =================================================================================================
// Q2
// =================================================================================================

TEST_CASE("Q2 claims: what rounds to zero in fp16, the window sentence, and the histogram's counts") {
  const double sub = std::ldexp(1.0, oracle::binary16.emin - (oracle::binary16.p - 1));  // 2^-24
  const double normal = std::ldexp(1.0, oracle::binary16.emin);                           // 2^-14
  // Nearest even at the bottom, on the hardware: 2^-25 is a tie and goes to the even 0; anything
  // above it rounds up to 2^-24.
  const double half = sub / 2;
  REQUIRE(static_cast<double>(h(half)) == 0.0);
  REQUIRE(static_cast<double>(h(std::nextafter(half, 1.0))) == sub);
  REQUIRE(static_cast<double>(h(std::nextafter(sub, 0.0))) == sub);
  const double max = (2.0 - std::ldexp(1.0, 1 - oracle::binary16.p)) * std::ldexp(1.0, oracle::binary16.emax);
  const double inf_from = max + std::ldexp(1.0, oracle::binary16.emax - oracle::binary16.p);  // 65520
  REQUIRE(std::isinf(static_cast<double>(h(inf_from))));
  REQUIRE(static_cast<double>(h(std::nextafter(inf_from, 0.0))) == max);

  struct patterns {
    const language* l;
    std::string old_claim, explain, window;
    std::vector<std::string> heads;
  };
  const patterns langs[] = {
      {&en(), R"(smaller than FP16's smallest subnormal, (\S+), and become zero)",
       R"(Its subnormals are the numbers below its smallest normal number, (\S+): they are spaced (\S+) apart, with fewer significant bits the smaller they are, down to the smallest subnormal, (\S+)\. A value of at most half of that, (\S+), rounds to zero)",
       R"(fp16 holds subnormals from (\S+) and normals from (\S+) up to (\S+)\. A conversion rounds to the nearest of them \(ties to even\): values up to (\S+) become 0, values between (\S+) and (\S+) round up to (\S+), and values from (\S+) on overflow to infinity\.)",
       {"zero", "subnormal", "normal"}},
      {&fr(), R"(plus petits que le plus petit sous-normal du FP16, (\S+), et deviennent nuls)",
       R"(Ses sous-normaux sont les nombres situés sous son plus petit nombre normal, (\S+) : ils sont espacés de (\S+), avec d'autant moins de bits significatifs qu'ils sont petits, jusqu'au plus petit sous-normal, (\S+)\. Une valeur d'au plus la moitié de celui-ci, (\S+), est arrondie à zéro)",
       R"(Le fp16 représente les sous-normaux à partir de (\S+) et les normaux de (\S+) à (\S+)\. Une conversion arrondit au plus proche d'entre eux \(égalités vers le pair\) : les valeurs jusqu'à (\S+) deviennent 0, celles comprises entre (\S+) et (\S+) sont arrondies à (\S+), et celles à partir de (\S+) débordent vers l'infini\.)",
       {"zéro", "sous-normal", "normal"}},
  };
  const demo::q2_result r = demo::run_q2(demo::default_seed);
  for (const patterns& p : langs) {
    CAPTURE(p.l->code());
    const std::string explain = flat(substitute(p.l->questions()[1].explanation, demo::facts()));
    // The old claim "smaller than 2^-24 ... become zero": 0.75 x 2^-24 is smaller and rounds to 2^-24.
    std::smatch m;
    if (std::regex_search(explain, m, std::regex(p.old_claim)))
      CHECK_MESSAGE(static_cast<double>(h(0.75 * num(m[1].str()))) == 0.0,
                    "fp16(0.75 x " << m[1].str() << ") = " << static_cast<double>(h(0.75 * num(m[1].str()))) << ", not 0");
    const auto e = match(explain, p.explain);
    CHECK(num(e[0]) == normal);
    CHECK(num(e[1]) == sub);  // subnormals are multiples of 2^(emin - p + 1)
    CHECK(static_cast<double>(h(normal - sub)) == normal - sub);  // ...up to the smallest normal
    CHECK(num(e[2]) == sub);
    CHECK(num(e[3]) == half);

    const std::string raw = unlocalize(demo::show_q2(r, *p.l));
    const std::string t = flat(raw);
    const auto w = match(t, p.window);
    CHECK(num(w[0]) == sub);
    CHECK(num(w[1]) == normal);
    CHECK(num(w[2]) == max);
    CHECK(num(w[3]) == half);
    CHECK(num(w[4]) == half);
    CHECK(num(w[5]) == sub);
    CHECK(num(w[6]) == sub);
    CHECK(num(w[7]) == inf_from);

    // The histogram: a header naming the columns, then one row per bin of exponents lo..hi with
    // its count and, at scale 1 and at the loss scale, how many of its values fp16 makes zero,
    // subnormal, normal. Recount each bin by rounding every value on the hardware.
    bool header = false;
    int rows = 0;
    const std::regex row(R"(^\s+(-?\d+)\.\.(-?\d+)\s+#+\s+(\d+)((?:\s+\d+)+)\s*$)");
    for (const std::string& line : lines_of(raw)) {
      const std::string f = flat(line);
      if (f.find(p.heads[0] + " " + p.heads[1] + " " + p.heads[2] + " " + p.heads[0] + " " + p.heads[1] + " " +
                 p.heads[2]) != std::string::npos)
        header = true;
      std::smatch rm;
      if (!std::regex_match(line, rm, row)) continue;
      ++rows;
      const int lo = std::stoi(rm[1].str()), hi = std::stoi(rm[2].str());
      std::vector<std::int64_t> shown;
      const std::string cells = rm[4].str();
      static const std::regex digits(R"(\d+)");
      for (auto it = std::sregex_iterator(cells.begin(), cells.end(), digits); it != std::sregex_iterator(); ++it)
        shown.push_back(std::stoll(it->str()));
      REQUIRE(shown.size() == 6);  // no overflow column: nothing overflows at 1 or 2^10 here
      std::int64_t count = 0, c[2][3] = {};
      const double scales[2] = {1.0, 1024.0};
      for (const double g : r.grads.values) {
        int e2 = 0;
        std::frexp(g, &e2);
        if (e2 - 1 < lo || e2 - 1 > hi) continue;
        ++count;
        for (int s = 0; s < 2; ++s) {
          const double x = static_cast<double>(h(g * scales[s]));
          REQUIRE(std::isfinite(x));
          ++c[s][x == 0 ? 0 : x < normal ? 1 : 2];
        }
      }
      CAPTURE(line);
      CHECK(std::stoll(rm[3].str()) == count);
      for (int s = 0; s < 2; ++s)
        for (int k = 0; k < 3; ++k) CHECK(shown[static_cast<std::size_t>(3 * s + k)] == c[s][k]);
    }
    CHECK(header);
    CHECK(rows == 10);
  }
}

// =================================================================================================
// Q3
// =================================================================================================

namespace {
/// x rounded (nearest even) to bfloat16 by the exact-rational oracle, back as a double.
double oracle_bf16(double x) {
  const oracle::result r =
      oracle::convert(oracle::bfloat16, oracle::binary64, std::bit_cast<std::uint64_t>(x), oracle::mode::nearest_even);
  return static_cast<double>(std::bit_cast<float>(static_cast<std::uint32_t>(r.bits) << 16));
}
/// The relative error |y - x| / x of a conversion, exactly, then to a double.
double rel_error(double y, double x) {
  if (std::isinf(y)) return INFINITY;
  const cpp_rational d = rational(y) - rational(x);
  return to_double((d < 0 ? cpp_rational(-d) : d) / rational(x));
}
}  // namespace

TEST_CASE("Q3 claims: each converted sample's stored value and relative error, and the epsilon / unit roundoff sentence") {
  const double samples[] = {1e-10, 70000.0, 3e38};
  const char* names[] = {"fp16", "bf16", "fp32"};
  const int p[] = {oracle::binary16.p, oracle::bfloat16.p, oracle::binary32.p};
  auto convert = [](int k, double x) {
    return k == 0 ? static_cast<double>(h(x)) : k == 1 ? oracle_bf16(x) : static_cast<double>(static_cast<float>(x));
  };
  // Epsilon, by its definition: the next number above 1, minus 1.
  const double eps[] = {static_cast<double>(std::bit_cast<h16>(static_cast<std::uint16_t>(0x3C01))) - 1.0,
                        static_cast<double>(std::bit_cast<float>(std::uint32_t{0x3F810000})) - 1.0,
                        static_cast<double>(std::nextafter(1.0f, 2.0f)) - 1.0};
  double largest[3] = {0, 0, 0};
  for (int k = 0; k < 3; ++k) {
    CHECK(eps[k] == std::ldexp(1.0, 1 - p[k]));
    for (const double s : samples) {
      const double y = convert(k, s);
      if (std::isfinite(y) && y != 0) {
        largest[k] = std::max(largest[k], rel_error(y, s));
        CHECK(rel_error(y, s) <= std::ldexp(1.0, -p[k]));  // the unit roundoff bounds every normal result
      }
    }
  }
  const struct {
    const language* l;
    std::string note, roundoff;
  } langs[] = {
      {&en(), R"(bf16 keeps all three values, as fp32 does, but with fewer digits: its relative errors here reach (\S+), against (\S+) in fp32\. fp16 loses both the tiny and the huge values\.)",
       R"(Each of these bf16 and fp32 errors is at most the format's unit roundoff, half its epsilon: bf16 (\S+) = (\S+) / 2, fp32 (\S+) = (\S+) / 2\.)"},
      {&fr(), R"(Le bf16 garde les trois valeurs, comme le fp32, mais avec moins de chiffres : ses erreurs relatives atteignent ici (\S+), contre (\S+) en fp32\. Le fp16 perd à la fois les valeurs minuscules et les valeurs énormes\.)",
       R"(Chacune de ces erreurs du bf16 et du fp32 vaut au plus l'unité d'arrondi du format, la moitié de son epsilon : bf16 (\S+) = (\S+) / 2, fp32 (\S+) = (\S+) / 2\.)"},
  };
  const demo::q3_result r = demo::run_q3();
  for (const auto& lang : langs) {
    CAPTURE(lang.l->code());
    const std::string raw = unlocalize(demo::show_q3(r, *lang.l));
    // The rows "value format shortest [(note)] stored error", the value only on a sample's first row.
    const std::regex row(R"(^  (\S+)?\s+(fp16|bf16|fp32)\s+(\S+)(?: \([^)]*\))?\s+(\S+)\s+(\S+)$)");
    int rows = 0;
    double current = 0;
    for (const std::string& line : lines_of(raw)) {
      std::smatch m;
      if (!std::regex_match(line, m, row)) continue;
      CAPTURE(line);
      if (m[1].matched) current = num(m[1].str());
      const int k = static_cast<int>(std::find(names, names + 3, m[2].str()) - names);
      const double y = convert(k, current);
      ++rows;
      // The shortest text reads back as the stored value.
      CHECK(convert(k, num(m[3].str())) == y);
      // The stored value: every digit, or its 9 significant digits (correctly rounded).
      const std::string stored = m[4].str();
      if (std::isinf(y)) CHECK(stored == "inf");
      else if (rational_of_decimal(stored) != rational(y)) CHECK(stored == sci(y, 8));
      // The relative error, to 2 digits ("inf" for an overflow).
      const double e = rel_error(y, current);
      CHECK(m[5].str() == (std::isinf(e) ? std::string("inf") : e == 0 ? std::string("0") : sci(e, 1)));
    }
    CHECK(rows == 9);
    // The first sample hides bf16's precision in its shortest text: the stored value must not.
    CHECK(oracle_bf16(1e-10) != 1e-10);
    const std::string t = flat(raw);
    const auto note = match(t, lang.note);
    for (const double s : samples) {
      CHECK(std::isfinite(oracle_bf16(s)));
      CHECK(oracle_bf16(s) != 0);
    }
    CHECK(static_cast<double>(h(samples[0])) == 0.0);
    CHECK(std::isinf(static_cast<double>(h(samples[2]))));
    CHECK(note[0] == sci(largest[1], 1));
    CHECK(note[1] == sci(largest[2], 1));
    const auto ro = match(t, lang.roundoff);
    CHECK(num(ro[0]) == std::ldexp(1.0, -p[1]));
    CHECK(num(ro[1]) == eps[1]);
    CHECK(num(ro[2]) == std::ldexp(1.0, -p[2]));
    CHECK(num(ro[3]) == eps[2]);
    // The table's epsilon column is the same epsilon, and the title defines it.
    CHECK(t.find(lang.l == &en() ? "epsilon: the gap between 1 and the next larger number of the format"
                                 : "epsilon : l'écart entre 1 et le nombre suivant du format") != std::string::npos);
    for (int k = 0; k < 3; ++k) {
      const auto eps_row = match(t, std::string(names[k]) + R"( \S+ \S+ \S+ (2\^-\d+))");
      CHECK(num(eps_row[0]) == eps[k]);
    }
  }
}

// =================================================================================================
// Q4
// =================================================================================================

namespace {

/// A nonnegative finite value m * 2^-kScale (exact for every product of fp16 or E4M3 values).
constexpr unsigned kScale = 80;
cpp_int scaled(double x) {
  const cpp_rational q = rational(x) * cpp_rational(cpp_int(1) << kScale);
  REQUIRE(boost::multiprecision::denominator(q) == 1);
  return boost::multiprecision::numerator(q);
}

/// The block FMA of Fasi et al. 2021 for nonnegative inputs, stated directly: terms = the exact
/// products a_i b_i and c; each term's alignment exponent is e(a) + e(b) (for c, e(c)), e(x) =
/// max(floor(log2 x), emin of x's format); every term is cut onto the grid 2^(emax - F) (toward
/// zero) unless `exact_alignment`; the exact sum is rounded to a number of k fraction bits in
/// binary32's range, toward zero or to nearest even. Blocks of N chain through c.
struct block_unit {
  int N, F, k;
  bool exact_alignment, nearest;
  int input_emin;
};

long e_of(double x, int emin) {
  int e = 0;
  std::frexp(x, &e);
  return std::max<long>(e - 1, emin);
}

double round_to_bits(const cpp_int& S, int k, bool nearest) {
  if (S == 0) return 0;
  const long top = static_cast<long>(boost::multiprecision::msb(S)) - static_cast<long>(kScale);  // floor(log2)
  REQUIRE(top >= -126);
  const long q = top - k + static_cast<long>(kScale);  // the grid 2^(top - k), in units of 2^-kScale
  cpp_int n = q > 0 ? cpp_int(S >> static_cast<unsigned>(q)) : S;
  if (q > 0 && nearest) {
    const cpp_int rest = S - (n << static_cast<unsigned>(q)), halfq = cpp_int(1) << static_cast<unsigned>(q - 1);
    if (rest > halfq || (rest == halfq && (n & 1) != 0)) n += 1;
  }
  return std::ldexp(n.convert_to<double>(), static_cast<int>(std::max(q, 0L)) - static_cast<int>(kScale));
}

double block_dot(const block_unit& u, const std::vector<double>& a, const std::vector<double>& b) {
  double c = 0;
  for (std::size_t s = 0; s < a.size(); s += static_cast<std::size_t>(u.N)) {
    std::vector<std::pair<cpp_int, long>> terms;
    for (std::size_t i = s; i < std::min(a.size(), s + static_cast<std::size_t>(u.N)); ++i)
      if (a[i] != 0 && b[i] != 0) terms.push_back({scaled(a[i]) * scaled(b[i]) >> kScale, e_of(a[i], u.input_emin) + e_of(b[i], u.input_emin)});
    if (c != 0) terms.push_back({scaled(c), e_of(c, -126)});
    long emax = LONG_MIN;
    for (const auto& t : terms) emax = std::max(emax, t.second);
    cpp_int S = 0;
    for (const auto& t : terms) {
      const long g = emax - u.F + static_cast<long>(kScale);  // the grid, in units of 2^-kScale
      S += u.exact_alignment || g <= 0 ? t.first : cpp_int((t.first >> static_cast<unsigned>(g)) << static_cast<unsigned>(g));
    }
    c = round_to_bits(S, u.k, u.nearest);
  }
  return c;
}

}  // namespace

TEST_CASE("Q4 claims: each model's error split into its inputs and its products and sums, and the sentences explaining them") {
  const demo::q4_result r = demo::run_q4(demo::default_seed);
  std::vector<double> a, b, a8, b8;
  for (std::size_t i = 0; i < r.a.size(); ++i) {
    a.push_back(static_cast<double>(r.a[i]));
    b.push_back(static_cast<double>(r.b[i]));
    REQUIRE(a.back() >= 0);
    REQUIRE(b.back() >= 0);
    auto e4m3 = [](double x) {  // fp16 -> OCP E4M3 by the oracle, nearest even
      const oracle::result c = oracle::convert(oracle::e4m3, oracle::binary16, std::bit_cast<std::uint16_t>(h(x)), oracle::mode::nearest_even);
      const int E = static_cast<int>((c.bits >> 3) & 15), M = static_cast<int>(c.bits & 7);
      return E == 0 ? std::ldexp(M, -9) : std::ldexp(8 + M, E - 7 - 3);
    };
    a8.push_back(e4m3(a.back()));
    b8.push_back(e4m3(b.back()));
  }
  cpp_rational exact = 0, exact8 = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    exact += rational(a[i]) * rational(b[i]);
    exact8 += rational(a8[i]) * rational(b8[i]);
  }
  // The four models, independently: hardware fp16 and fp32 loops, and the block FMA with the
  // parameters the sources give: A100 fp16 N = 8, F = 24, 23 fraction bits, truncation (Fasi et al.
  // 2021; A100TC.m); H100 FP8 N = 32, F = 13, 13 fraction bits (H100TC.m; MMA-Sim arXiv 2511.10909).
  h16 acc16 = 0;
  float acc32 = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    acc16 = static_cast<h16>(acc16 + static_cast<h16>(h(a[i]) * h(b[i])));
    acc32 = acc32 + static_cast<float>(a[i]) * static_cast<float>(b[i]);
  }
  const double ampere = block_dot({8, 24, 23, false, false, oracle::binary16.emin}, a, b);
  const double ampere_nearest = block_dot({8, 24, 23, true, true, oracle::binary16.emin}, a, b);
  const double hopper = block_dot({32, 13, 13, false, false, oracle::e4m3.emin}, a8, b8);
  struct model {
    std::string name;
    double value;
    cpp_rational inputs;  // the exact dot of the inputs it computes with
  };
  const model models[] = {{"fp16-acc", static_cast<double>(acc16), exact},
                          {"fp32-acc", static_cast<double>(acc32), exact},
                          {"ampere_fp16", ampere, exact},
                          {"hopper_fp8", hopper, exact8}};
  auto rel = [&](const cpp_rational& x) { return to_double(x / exact); };
  auto signed_text = [](double v) { return v == 0 ? std::string("0") : (v > 0 ? "+" : "") + sci(v, 1); };
  auto abs_rel = [&](double v) { return std::fabs(rel(rational(v) - exact)); };

  const struct {
    const language* l;
    std::string note, ampere, fp8;
  } langs[] = {
      {&en(), R"(all their error comes from the products and sums: fp16 sums lose the most \((\S+)\), fp32 sums rounded to nearest the least \((\S+)\)\.)",
       R"(ampere_fp16 also accumulates in fp32, yet its error is (\d+) times that of fp32-acc: it truncates \(rounds toward zero\) the terms of each block of (\d+) products and each block's fp32 result, where fp32-acc rounds to nearest even, and with these nonnegative terms a truncation can only lower the sum, so the errors add up\. The same blocks without truncation, each rounded to nearest even, would be off by (\S+)\.)",
       R"(hopper_fp8: rounding the inputs to E4M3 costs (\S+), its products and sums (\S+)\. The main cause is its accumulator, which truncates the terms of each block and keeps (\d+) fraction bits \(fp32 has (\d+)\)\.)"},
      {&fr(), R"(toute leur erreur vient des produits et des sommes\. Les sommes en fp16 perdent le plus \((\S+)\), les sommes en fp32 arrondies au plus proche le moins \((\S+)\)\.)",
       R"(ampere_fp16 accumule lui aussi en fp32, et pourtant son erreur vaut (\d+) fois celle de fp32-acc : il tronque \(arrondit vers zéro\) les termes de chaque bloc de (\d+) produits et le résultat fp32 de chaque bloc, là où fp32-acc arrondit au plus proche pair ; avec ces termes positifs, une troncature ne peut que diminuer la somme, et les erreurs s'ajoutent\. Les mêmes blocs sans troncature, chacun arrondi au plus proche pair, s'écarteraient de (\S+)\.)",
       R"(hopper_fp8 : arrondir les entrées en E4M3 coûte (\S+), ses produits et sommes (\S+)\. La cause principale est son accumulateur, qui tronque les termes de chaque bloc et ne garde que (\d+) bits de fraction \(le fp32 en a (\d+)\)\.)"},
  };
  for (const auto& lang : langs) {
    CAPTURE(lang.l->code());
    const std::string raw = unlocalize(demo::show_q4(r, *lang.l));
    // The results table: each model's value (its shortest text read back) and |relative error|.
    for (const model& m : models) {
      const auto row = match(raw, "\n  " + m.name + "  [^\n]*?  (\\S+) +(\\S+)\n");
      CAPTURE(m.name);
      CHECK(static_cast<float>(num(row[0])) == static_cast<float>(m.value));
      CHECK(row[1] == sci(abs_rel(m.value), 1));
    }
    // The split: inputs = (exact dot of the model's inputs - exact) / exact, products and sums =
    // (result - exact dot of its inputs) / exact, signed.
    std::vector<double> inputs, arith;
    for (const model& m : models) {
      const auto row = match(raw, "\n  " + m.name + " +([+-]?[0-9.e+-]+) +([+-]?[0-9.e+-]+)\n");
      CAPTURE(m.name);
      inputs.push_back(rel(m.inputs - exact));
      arith.push_back(rel(rational(m.value) - m.inputs));
      CHECK(row[0] == signed_text(inputs.back()));
      CHECK(row[1] == signed_text(arith.back()));
    }
    const std::string t = flat(raw);
    // The first three compute on the data: no input error; fp16 sums lose the most, fp32 the least.
    for (std::size_t i = 0; i < 3; ++i) CHECK(inputs[i] == 0);
    const auto note = match(t, lang.note);
    for (std::size_t i = 1; i < 4; ++i) CHECK(std::fabs(arith[0]) > std::fabs(arith[i]));
    for (std::size_t i = 0; i < 4; ++i)
      if (i != 1) CHECK(std::fabs(arith[1]) < std::fabs(arith[i]));
    CHECK(note[0] == sci(std::fabs(arith[0]), 1));
    CHECK(note[1] == sci(std::fabs(arith[1]), 1));
    // ampere_fp16: the ratio to fp32-acc, the block size, truncation lowering the sum, and the
    // same blocks rounded to nearest (independent model) far closer.
    const auto amp = match(t, lang.ampere);
    CHECK(std::stoi(amp[0]) == static_cast<int>(std::lround(abs_rel(ampere) / abs_rel(acc32))));
    CHECK(abs_rel(ampere) > abs_rel(acc32));
    CHECK(amp[1] == "8");
    CHECK(rational(ampere) < exact);
    CHECK(amp[2] == sci(abs_rel(ampere_nearest), 1));
    CHECK(abs_rel(ampere_nearest) < abs_rel(ampere) / 10);
    // hopper_fp8: the accumulator, not the E4M3 inputs, is the main cause.
    const auto fp8 = match(t, lang.fp8);
    CHECK(fp8[0] == sci(std::fabs(inputs[3]), 1));
    CHECK(fp8[1] == sci(std::fabs(arith[3]), 1));
    CHECK(std::fabs(arith[3]) > std::fabs(inputs[3]));
    CHECK(fp8[2] == "13");
    CHECK(fp8[3] == std::to_string(oracle::binary32.p - 1));
  }
}
