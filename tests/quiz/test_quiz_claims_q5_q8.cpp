// The claims of the quiz's questions 5 to 8: each sentence the quiz prints around a number is
// checked against a model written here, independently of the demo code that printed it:
// hand-derived byte counts (sizeof of the hardware types), a replay of torch.amp.GradScaler's
// published update rule on a gradient stream regenerated from the recipe the screen states,
// hardware _Float16 and float arithmetic, and the exact-rational oracle (tests/support/oracle.hpp).
// The printed text is parsed (both languages) and its numbers compared with the model's.
// Compiled with -ffp-contract=off so that the hardware references round every operation as written.
#include <doctest/doctest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <iterator>
#include <random>
#include <regex>
#include <string>
#include <vector>

#include "claims_text.hpp"
#include "demos/demos.hpp"
#include "demos/facts.hpp"
#include "../support/oracle.hpp"

using namespace mpq;

namespace {

using claims::fields;
using claims::flat;
using claims::lang;
using claims::lines_of;

using h16 = _Float16;

/// l.get(key, v), or "" when the language has no such key (an older text).
std::string text_or_empty(const language& l, const std::string& key, const vars& v = {}) {
  return l.has(key) ? l.get(key, v) : std::string();
}

/// A scale as the quiz prints it: an integer without decimals, anything else with %g.
std::string number(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, v == std::floor(v) && std::fabs(v) < 1e15 ? "%.0f" : "%g", v);
  return buf;
}

std::string fixed4(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.4f", v);
  return buf;
}

/// The smallest double that _Float16 conversion (hardware, nearest even) sends to infinity,
/// found by bisection over the doubles between 65504 (finite) and 65536 (2^16: inf).
double fp16_overflow_threshold() {
  std::uint64_t lo = std::bit_cast<std::uint64_t>(65504.0), hi = std::bit_cast<std::uint64_t>(65536.0);
  REQUIRE(!std::isinf(static_cast<double>(static_cast<h16>(65504.0))));
  REQUIRE(std::isinf(static_cast<double>(static_cast<h16>(65536.0))));
  while (hi - lo > 1) {
    const std::uint64_t mid = lo + (hi - lo) / 2;
    (std::isinf(static_cast<double>(static_cast<h16>(std::bit_cast<double>(mid)))) ? hi : lo) = mid;
  }
  return std::bit_cast<double>(hi);
}

}  // namespace

// ---- Q5: memory --------------------------------------------------------------------------------

TEST_CASE("Q5 claim: bytes per parameter of fp32, torch.amp and apex O2-style training, counted by hand") {
  // Hand count with Adam (Micikevicius et al. 2018; torch.amp: the parameters and their .grad keep
  // the parameters' dtype, fp32, and autocast casts inside each op, so there is no master copy).
  const std::uint64_t b32 = sizeof(float), b16 = sizeof(h16);
  struct row {
    const char* role;
    std::uint64_t fp32, amp, o2;  // 0: the recipe has no such state
  };
  const row expected[] = {{"weights", b32, b32, b16},
                          {"gradients", b32, b32, b16},
                          {"master_weights", 0, 0, b32},
                          {"Adam_m", b32, b32, b32},
                          {"Adam_v", b32, b32, b32}};
  std::uint64_t total_fp32 = 0, total_amp = 0, total_o2 = 0;
  for (const row& r : expected) {
    total_fp32 += r.fp32;
    total_amp += r.amp;
    total_o2 += r.o2;
  }
  REQUIRE(total_fp32 == total_amp);  // "all three come to the same": true by the hand count
  REQUIRE(total_fp32 == total_o2);
  const demo::q5_result q = demo::run_q5(false);

  for (const char* code : {"en", "fr"}) {
    CAPTURE(code);
    const language& l = lang(code);
    const std::string text = unlocalize(demo::show(5, l, demo::default_seed, false));
    const std::vector<std::string> lines = lines_of(text);
    auto find_row = [&](const std::string& label) -> std::vector<std::string> {
      for (const std::string& line : lines) {
        const std::string f = flat(line);
        if (f.rfind(label + " ", 0) == 0) return fields(f.substr(label.size()));
      }
      FAIL("no table row " << label);
      return {};
    };
    for (const row& r : expected) {
      CAPTURE(r.role);
      const std::vector<std::string> f = find_row(l.get(std::string("q5.demo.c.") + r.role));
      // Cells: "N B (fmt)" or "-", in the order fp32, torch.amp, apex O2.
      std::vector<std::string> cells;
      for (std::size_t i = 0; i < f.size(); ++i) {
        if (f[i] == "-") {
          cells.push_back("-");
        } else {
          REQUIRE(i + 2 < f.size());
          cells.push_back(f[i] + " " + f[i + 2]);
          i += 2;
        }
      }
      REQUIRE(cells.size() == 3);
      const std::uint64_t want[3] = {r.fp32, r.amp, r.o2};
      for (int k = 0; k < 3; ++k) {
        CAPTURE(k);
        if (want[k] == 0) {
          CHECK(cells[k] == "-");
        } else {
          CHECK(cells[k] == std::to_string(want[k]) + " (" + (want[k] == b32 ? "fp32" : "fp16") + ")");
        }
      }
    }
    // The header names the three recipes, in this order.
    std::string header;
    for (const std::string& line : lines)
      if (flat(line).rfind(l.get("q5.demo.state") + " ", 0) == 0) header = flat(line);
    const std::size_t a = header.find(l.get("q5.demo.fp32")), b = header.find(text_or_empty(l, "q5.demo.amp")),
                      c = header.find(text_or_empty(l, "q5.demo.o2"));
    CHECK(a < b);
    CHECK(b < c);
    CHECK(c != std::string::npos);
    CHECK(!text_or_empty(l, "q5.demo.amp").empty());
    // The total row: "16 B, 16 GB" for each recipe, GB = 10^9 bytes.
    std::string total;
    for (const std::string& line : lines)
      if (flat(line).rfind(l.get("q5.demo.total") + " ", 0) == 0) total = flat(line);
    const std::string cell = text_or_empty(l, "q5.demo.total_cell", {{"b", std::to_string(total_fp32)},
                                                          {"gb", std::to_string(q.parameters * total_fp32 / 1000000000) +
                                                                     " " + l.get("q5.demo.gb")}});
    std::size_t pos = 0, count = 0;
    while (!cell.empty() && (pos = total.find(cell, pos)) != std::string::npos && count < 3) ++count, pos += cell.size();
    CHECK(count == 3);
    // The note's number is the common total; the copies sentence's is binary16's size.
    CHECK(flat(text).find(flat(l.get("q5.demo.note", {{"total", std::to_string(total_fp32)}}))) != std::string::npos);
    CHECK(l.has("q5.demo.copies"));
    CHECK(flat(text).find(flat(text_or_empty(l, "q5.demo.copies", {{"b", std::to_string(b16)}}))) != std::string::npos);
  }
}

TEST_CASE("Q5 claim: the copy-ratio sentence holds for every value the measurement can print") {
  // Synthetic measurements cover ratios above, at and below 2 (including the boundaries of the
  // one-decimal rounding), and one real measurement covers this machine.
  std::vector<demo::q5_measurement> ms;
  for (const double ratio : {2.4, 1.7, 2.0, 0.8, 1.949, 1.951, 2.049, 2.051, 3.9}) {
    demo::q5_measurement m;
    m.copy_n = std::size_t{1} << 22;
    m.copy_fp16_s = 1e-3;
    m.copy_fp32_s = ratio * 1e-3;
    m.arith_n = std::size_t{1} << 15;
    m.arith_fp32_s = 1e-5;
    m.arith_fp16_s = (ratio * 7.5) * 1e-5;
    m.total_s = 0.1;
    ms.push_back(m);
  }
  ms.push_back(demo::measure_q5(0.05));
  for (const char* code : {"en", "fr"}) {
    const language& l = lang(code);
    for (const demo::q5_measurement& m : ms) {
      demo::q5_result r = demo::run_q5(false);
      r.measured = m;
      const std::string text = flat(demo::show_q5(r, l));
      const double ratio = m.copy_fp32_s / m.copy_fp16_s;
      CAPTURE(code);
      CAPTURE(ratio);
      CAPTURE(text);
      // The printed ratio is the measured one rounded to one decimal.
      const std::string x = [&] {
        char buf[32];
        std::snprintf(buf, sizeof buf, "%.1f", ratio);
        return std::string(buf);
      }();
      // Per byte, fp16 was faster exactly when t16 / (n * 2) < t32 / (n * 4), i.e. ratio > 2: the
      // sentence must say so whenever it says "faster", and "slower" only when ratio < 2.
      const bool faster_per_byte = m.copy_fp16_s / static_cast<double>(sizeof(h16)) <
                                   m.copy_fp32_s / static_cast<double>(sizeof(float));
      const bool slower_per_byte = m.copy_fp16_s / static_cast<double>(sizeof(h16)) >
                                   m.copy_fp32_s / static_cast<double>(sizeof(float));
      // The ratio of the bytes by hand: sizeof(float) / sizeof(_Float16).
      const std::string two = std::to_string(sizeof(float) / sizeof(h16));
      const std::string above = flat(text_or_empty(l, "q5.demo.copy_above", {{"x", x}, {"bytes", two}}));
      const std::string below = flat(text_or_empty(l, "q5.demo.copy_below", {{"x", x}, {"bytes", two}}));
      const std::string near = flat(text_or_empty(l, "q5.demo.copy_near", {{"x", x}, {"bytes", two}}));
      const bool says_above = !above.empty() && text.find(above) != std::string::npos;
      const bool says_below = !below.empty() && text.find(below) != std::string::npos;
      const bool says_near = !near.empty() && text.find(near) != std::string::npos;
      CHECK(says_above + says_below + says_near == 1);
      if (says_above) CHECK(faster_per_byte);
      if (says_below) CHECK(slower_per_byte);
      // "about 2 ... about as many bytes per second": within 2.5% of the bytes' ratio.
      if (says_near) CHECK(std::fabs(ratio - 2.0) <= 0.05);
      // The sizes: 4-byte and 2-byte values, in MiB.
      const double mib = 1024.0 * 1024.0;
      char want[128];
      std::snprintf(want, sizeof want, "%g", static_cast<double>(m.copy_n * sizeof(float)) / mib);
      CHECK(text.find(std::string("(") + want + " ") != std::string::npos);
      std::snprintf(want, sizeof want, "%g", static_cast<double>(m.copy_n * sizeof(h16)) / mib);
      CHECK(text.find(std::string("(") + want + " ") != std::string::npos);
      // The arithmetic line names what it times and never calls a ratio above 1 "faster".
      const double ar = m.arith_fp16_s / m.arith_fp32_s;
      const std::regex times(code == std::string("en") ? R"(\((\d+(\.\d+)?) times as long\))"
                                                       : R"(\((\d+(\.\d+)?) fois plus long\))");
      std::smatch sm;
      REQUIRE(std::regex_search(text, sm, times));
      const double shown = std::stod(sm[1].str());
      CHECK(std::fabs(shown - ar) <= (ar >= 10 ? 0.5 : ar >= 1 ? 0.05 : 0.005) * (1 + 1e-9));
      CHECK(text.find("libfloat") != std::string::npos);
    }
  }
}

// ---- Q6: GradScaler on a gradient stream ----------------------------------------------------

namespace {

/// PyTorch's GradScaler (torch/amp/grad_scaler.py, _amp_update_scale_) replayed on a gradient
/// stream regenerated from the recipe that the screen states, with hardware _Float16 for the
/// scaled gradients.
struct replay_step {
  double scale = 0, largest = 0, after = 0;
  bool inf = false, grew = false;
};

struct stream_recipe {
  std::uint64_t seed = 0;
  long steps = 0, n = 0, span = 0, lo = 0, hi = 0, one_in = 0;
  double spike = 0;
  double init = 0, backoff = 0, growth = 0;
  long interval = 0, default_interval = 0;
  double overflow_from = 0;
};

double u53(std::mt19937_64& g) { return std::ldexp(static_cast<double>(g() >> 11), -53); }

std::vector<replay_step> replay(const stream_recipe& rc, std::vector<bool>& spiked) {
  std::mt19937_64 gen(rc.seed);
  std::vector<replay_step> out;
  double scale = rc.init;
  long tracker = 0;
  for (long k = 0; k < rc.steps; ++k) {
    const double t = static_cast<double>(rc.lo) + static_cast<double>(rc.hi - rc.lo) * u53(gen);
    const bool spike = gen() % static_cast<std::uint64_t>(rc.one_in) == 0;
    spiked.push_back(spike);
    replay_step s;
    s.scale = scale;
    int e = 0;
    REQUIRE(std::frexp(scale, &e) == 0.5);  // a power of two: g * scale is exact in binary64
    for (long i = 0; i < rc.n; ++i) {
      double g = std::exp2(t - static_cast<double>(rc.span) * u53(gen));
      if (i == 0 && spike) g = rc.spike * std::exp2(t);  // "one gradient of 16 x 2^t"
      const double scaled = static_cast<double>(static_cast<h16>(g * scale));  // one rounding
      s.inf = s.inf || std::isinf(scaled);
      s.largest = std::max(s.largest, scaled);
    }
    if (s.inf) {  // found_inf: step skipped, scale *= backoff_factor, tracker reset
      scale *= rc.backoff;
      tracker = 0;
    } else if (++tracker == rc.interval) {  // growth_interval clean steps: scale *= growth_factor
      scale *= rc.growth;
      tracker = 0;
      s.grew = true;
    }
    s.after = scale;
    out.push_back(s);
  }
  return out;
}

long to_long(const std::string& s) { return std::stol(s); }

}  // namespace

TEST_CASE("Q6 claim: every printed GradScaler event follows from gradients x scale overflowing fp16") {
  const double threshold = fp16_overflow_threshold();  // 65520 by hardware
  for (const char* code : {"en", "fr"}) {
    const language& l = lang(code);
    for (const std::uint64_t seed : {demo::default_seed, std::uint64_t{1}, std::uint64_t{7}, std::uint64_t{12345}}) {
      CAPTURE(code);
      CAPTURE(seed);
      const std::string text = unlocalize(demo::show(6, l, seed, false));
      const std::string f = flat(text);
      CAPTURE(f);
      // The recipe as printed (both languages carry the same numbers in the same order).
      stream_recipe rc;
      const std::regex title(code == std::string("en")
                                 ? R"((\d+) steps\. Each step has (\d+) gradient magnitudes \(seed (\d+)\) in \(2\^\(t-(\d+)\), 2\^t\], with t drawn uniformly in \[(-?\d+), (-?\d+)\) for each step, and a one-in-(\d+) chance of a spike: one gradient of (\d+) x 2\^t)"
                                 : R"((\d+) pas\. Chaque pas a (\d+) magnitudes de gradients \(graine (\d+)\) dans \(2\^\(t-(\d+)\), 2\^t\], t étant tiré uniformément dans \[(-?\d+), (-?\d+)\) à chaque pas, et une chance sur (\d+) d'avoir un pic : un gradient de (\d+) x 2\^t)");
      std::smatch m;
      REQUIRE(std::regex_search(f, m, title));
      rc.steps = to_long(m[1]);
      rc.n = to_long(m[2]);
      rc.seed = std::stoull(m[3].str());
      rc.span = to_long(m[4]);
      rc.lo = to_long(m[5]);
      rc.hi = to_long(m[6]);
      rc.one_in = to_long(m[7]);
      rc.spike = std::stod(m[8].str());
      CHECK(rc.seed == seed);
      const std::regex rule(code == std::string("en")
                                ? R"(a product of (\d+) or more becomes inf, unscale_ finds it, the step is skipped and S is multiplied by ([\d.]+)\. After (\d+) steps in a row without inf, S is multiplied by ([\d.]+) \(growth interval shortened for display; PyTorch's default is (\d+)\)\. S starts at (\d+):)"
                                : R"(un produit de (\d+) ou plus devient inf, unscale_ le détecte, le pas est sauté et S est multiplié par ([\d.]+)\. Après (\d+) pas consécutifs sans inf, S est multiplié par ([\d.]+) \(intervalle de croissance raccourci pour l'affichage ; par défaut dans PyTorch : (\d+)\)\. S part de (\d+) :)");
      REQUIRE(std::regex_search(f, m, rule));
      rc.overflow_from = std::stod(m[1].str());
      rc.backoff = std::stod(m[2].str());
      rc.interval = to_long(m[3]);
      rc.growth = std::stod(m[4].str());
      rc.default_interval = to_long(m[5]);
      rc.init = std::stod(m[6].str());
      // PyTorch's published defaults (torch/amp/grad_scaler.py): 2^16, x2, x0.5, 2000.
      CHECK(rc.init == 65536.0);
      CHECK(rc.growth == 2.0);
      CHECK(rc.backoff == 0.5);
      CHECK(rc.default_interval == 2000);
      // "a product of 65520 or more becomes inf": fp16's threshold by hardware.
      CHECK(rc.overflow_from == threshold);

      std::vector<bool> spiked;
      const std::vector<replay_step> want = replay(rc, spiked);
      // The replay grouped as the table groups: a skipped step alone; otherwise a run of clean
      // steps ending at a growth or before a skipped step.
      struct row {
        std::string steps;
        double scale, largest;
        bool skip, grow;
        double after;
      };
      std::vector<row> rows;
      for (std::size_t i = 0; i < want.size();) {
        std::size_t j = i;
        if (!want[i].inf)
          while (j + 1 < want.size() && !want[j].grew && !want[j + 1].inf) ++j;
        double largest = 0;
        for (std::size_t k = i; k <= j; ++k) largest = std::max(largest, want[k].largest);
        rows.push_back({j == i ? std::to_string(i + 1) : std::to_string(i + 1) + "-" + std::to_string(j + 1), want[i].scale,
                        largest, want[j].inf, want[j].grew, want[j].after});
        i = j + 1;
      }
      // The printed rows: the lines after the header row, until the summary.
      const std::vector<std::string> lines = lines_of(text);
      std::size_t first = 0;
      while (first < lines.size() && flat(lines[first]).rfind(l.get("q6.demo.steps") + " " + l.get("q6.demo.scale"), 0) != 0)
        ++first;
      REQUIRE(first < lines.size());
      REQUIRE(first + rows.size() < lines.size());
      for (std::size_t k = 0; k < rows.size(); ++k) {
        const std::vector<std::string> fs = fields(flat(lines[first + 1 + k]));
        CAPTURE(lines[first + 1 + k]);
        REQUIRE(fs.size() >= 3);
        CHECK(fs[0] == rows[k].steps);
        CHECK(std::stod(fs[1]) == rows[k].scale);
        const double largest = fs[2] == "inf" ? INFINITY : std::stod(fs[2]);
        CHECK(largest == rows[k].largest);
        if (rows[k].skip) {
          CHECK(std::isinf(rows[k].largest));  // a skipped step is one whose gradients overflowed
          CHECK(flat(lines[first + 1 + k]).find(flat(l.get("q6.demo.skipped", {{"after", number(rows[k].after)}}))) !=
                std::string::npos);
        } else if (rows[k].grow) {
          CHECK(flat(lines[first + 1 + k]).find(flat(l.get("q6.demo.grew", {{"interval", std::to_string(rc.interval)},
                                                                          {"after", number(rows[k].after)}}))) !=
                std::string::npos);
        } else {
          CHECK(fs.size() == 3);  // no event
        }
      }
      std::string skipped, spikes;
      for (std::size_t k = 0; k < want.size(); ++k) {
        if (want[k].inf) skipped += (skipped.empty() ? "" : ", ") + std::to_string(k + 1);
        if (spiked[k]) spikes += (spikes.empty() ? "" : ", ") + std::to_string(k + 1);
      }
      CHECK(f.find(flat(l.get("q6.demo.summary",
                              {{"spikes", spikes.empty() ? l.get("q6.demo.none") : spikes},
                               {"skipped", skipped.empty() ? l.get("q6.demo.none") : skipped},
                               {"final", number(want.back().after)}}))) != std::string::npos);
      if (seed == demo::default_seed) {  // the shown run has overflows and growths both
        CHECK(!skipped.empty());
        bool grew = false;
        for (const replay_step& s : want) grew = grew || s.grew;
        CHECK(grew);
      }
      // Nothing is "injected" any more.
      CHECK(f.find("inject") == std::string::npos);
    }
  }
}

// ---- Q7: unit roundoff and epsilon -------------------------------------------------------------

namespace {
/// bfloat16 rounding (nearest even) of a binary32 encoding by the exact-rational oracle.
oracle::result bf16_of(std::uint32_t f) {
  return oracle::convert(oracle::bfloat16, oracle::binary32, f, oracle::mode::nearest_even);
}
}  // namespace

TEST_CASE("Q7 claim: bf16's 2^-p is the unit roundoff, half its epsilon; what rounds from fp32") {
  // epsilon by hand: the bfloat16 encoding after 1.0 (0x3F80) is 0x3F81, binary32 0x3F810000.
  const double eps8 = static_cast<double>(std::bit_cast<float>(std::uint32_t{0x3F810000})) - 1.0;
  const double u8 = std::ldexp(1.0, -oracle::bfloat16.p);
  CHECK(eps8 == std::ldexp(1.0, -7));
  CHECK(u8 == eps8 / 2);
  // "a rounding to a normal number is off by less than u": the worst case is the tie 1 + u
  // (rounds to 1, nearest even), relative error u / (1 + u) < u.
  {
    const float tie = 1.0f + static_cast<float>(u8);
    const oracle::result r = bf16_of(std::bit_cast<std::uint32_t>(tie));
    const double back = static_cast<double>(std::bit_cast<float>(static_cast<std::uint32_t>(r.bits) << 16));
    CHECK(back == 1.0);
    CHECK(std::fabs(back - tie) / tie < u8);
  }
  for (const char* code : {"en", "fr"}) {
    CAPTURE(code);
    const language& l = lang(code);
    const std::string text = flat(demo::show(7, l, demo::default_seed, false));
    CAPTURE(text);
    CHECK(text.find(flat(l.get("q7.demo.note", {{"u8", "2^-" + std::to_string(oracle::bfloat16.p)},
                                                {"u16", "2^-" + std::to_string(oracle::binary16.p)},
                                                {"eps8", "2^-" + std::to_string(oracle::bfloat16.p - 1)}}))) !=
          std::string::npos);
    // The note's sentence itself ties u to epsilon: "u = 2^-8 is half its epsilon 2^-7", with
    // the epsilon computed by hand above.
    CHECK(l.raw("q7.demo.note").find("{eps8}") != std::string::npos);
    int e = 0;
    std::frexp(eps8, &e);
    CHECK(text.find("2^" + std::to_string(e - 1)) != std::string::npos);
    // The largest measured error (last column, two digits) stays below u for both formats.
    for (const auto& [name, p] : {std::pair{"fp16", oracle::binary16.p}, std::pair{"bf16", oracle::bfloat16.p}}) {
      const std::vector<std::string> f = fields(text.substr(text.find(std::string(" ") + name + " ") + 1));
      REQUIRE(f.size() >= 5);
      CHECK(f[3] == "2^-" + std::to_string(p));
      CHECK(std::stod(f[4]) < std::ldexp(1.0, -p));
    }
  }
  // Q7.why.D: "converting a normal FP32 value to bfloat16 rounds it whenever it needs more than
  // p = 8 significant bits" (and only then): the oracle's inexact flag against a bit count.
  std::mt19937 gen(7);
  int exact = 0;
  for (int i = 0; i < 200000; ++i) {
    std::uint32_t f = gen();
    if (i % 4 == 0) f &= 0xFFFF0000u;  // at most 8 significant bits: exact in bfloat16
    if (i % 4 == 1) f &= 0xFFFF8000u;  // 9 significant bits when bit 15 is set
    const std::uint32_t e = (f >> 23) & 0xFF;
    if (e == 0 || e == 0xFF) continue;  // normal values only
    const std::uint32_t sig = (f & 0x7FFFFF) | 0x800000;
    const int significant = 24 - std::countr_zero(sig);
    const bool rounds = (bf16_of(f).flags & oracle::flag::inexact) != 0;
    CHECK(rounds == (significant > oracle::bfloat16.p));
    exact += !rounds;
  }
  CHECK(exact > 1000);  // so "every conversion from FP32 rounds" would be false
  for (const char* code : {"en", "fr"}) {
    const std::string why = lang(code).raw("q7.why.D");
    CHECK(why.find("{bf16_p}") != std::string::npos);
    CHECK(lang(code).get("q7.why.D", demo::facts()).find(std::to_string(oracle::bfloat16.p)) != std::string::npos);
    CHECK(demo::facts().at("bf16_p") == std::to_string(oracle::bfloat16.p));
  }
}

// ---- Q8: exp overflow, NaN, softmax, CUDA vs CPU autocast -------------------------------------

namespace {
/// The numbers of a printed list "[a, b, c]" after `key` in text; NaN for "NaN".
std::vector<double> list_after(const std::string& text, const std::string& key) {
  const std::size_t at = text.find(key);
  REQUIRE(at != std::string::npos);
  const std::size_t open = text.find('[', at), close = text.find(']', open);
  std::vector<double> out;
  std::string item;
  for (std::size_t i = open + 1; i <= close; ++i) {
    if (text[i] == ',' || text[i] == ';' || text[i] == ']') {  // (French lists: ';')
      while (!item.empty() && item.front() == ' ') item.erase(0, 1);
      out.push_back(item == "NaN" ? NAN : item == "inf" ? INFINITY : std::stod(item));
      item.clear();
    } else {
      item += text[i];
    }
  }
  return out;
}
}  // namespace

TEST_CASE("Q8 claim: exp(x) rounds to inf in fp16 from ln(65520), inf/inf prints as NaN, max-subtracted softmax") {
  const double threshold = fp16_overflow_threshold();
  CHECK(threshold == 65520.0);
  // binary16's largest finite value from its parameters: (2 - 2^(1-p)) 2^emax.
  const double max16 = (2.0 - std::ldexp(1.0, 1 - oracle::binary16.p)) * std::ldexp(1.0, oracle::binary16.emax);
  // The guide's fact: ln of the threshold, not of 65504.
  CHECK(demo::facts().at("exp_overflow") == fixed4(std::log(threshold)));
  CHECK(fixed4(std::log(threshold)) != fixed4(std::log(max16)));

  // The naive and max-subtracted fp16 softmax of [12, 11, 10] in hardware _Float16: exp rounded
  // once from binary64, the sum and the quotients in _Float16.
  const std::vector<double> logits{12, 11, 10};
  auto softmax16 = [&](bool subtract) {
    h16 mx = static_cast<h16>(logits[0]);
    for (const double x : logits) mx = std::max(mx, static_cast<h16>(x));
    std::vector<h16> e;
    h16 sum = 0;
    for (const double x : logits) {
      const h16 arg = subtract ? static_cast<h16>(static_cast<h16>(x) - mx) : static_cast<h16>(x);
      e.push_back(static_cast<h16>(std::exp(static_cast<double>(arg))));
      sum = static_cast<h16>(sum + e.back());
    }
    std::vector<double> p;
    for (const h16 v : e) p.push_back(static_cast<double>(static_cast<h16>(v / sum)));
    return p;
  };
  const std::vector<double> naive = softmax16(false), stable = softmax16(true);
  REQUIRE(std::isnan(naive[0]));
  for (const double v : stable) CHECK(std::isfinite(v));

  for (const char* code : {"en", "fr"}) {
    CAPTURE(code);
    const language& l = lang(code);
    const std::string raw = unlocalize(demo::show(8, l, demo::default_seed, false));
    const std::string text = flat(raw);
    CAPTURE(text);
    // No "-nan": inf/inf's default NaN has its sign bit set (x86, and libfloat), which a NaN's
    // printed form should not show; the quiz prints NaN.
    CHECK(raw.find("-nan") == std::string::npos);
    // "exp(x) rounds to inf once x >= ln(A) = a, not ln(B) = b": A is the threshold, a and b
    // the logarithms to 4 decimals.
    const std::regex lnre(R"(ln\((\d+)\) = (\d+\.\d+))");
    std::vector<std::pair<double, std::string>> lns;
    for (std::sregex_iterator it(text.begin(), text.end(), lnre), end; it != end; ++it)
      lns.emplace_back(std::stod((*it)[1].str()), (*it)[2].str());
    REQUIRE(lns.size() >= 2);
    CHECK(lns[0].first == threshold);
    CHECK(lns[0].second == fixed4(std::log(threshold)));
    CHECK(lns[1].first == max16);
    CHECK(lns[1].second == fixed4(std::log(max16)));
    const std::size_t ge = text.find(">= ln(");
    REQUIRE(ge != std::string::npos);
    CHECK(text.compare(ge, 6 + number(threshold).size() + 1, ">= ln(" + number(threshold) + ")") == 0);
    // exp(12) really is past the threshold and exp(11) is not, so the first entry alone is inf.
    CHECK(std::exp(12.0) >= threshold);
    CHECK(std::exp(11.0) < threshold);
    // The printed naive fp16 softmax is the hardware replay, with NaN printed as "NaN".
    const std::string sm16 = flat(l.get("q8.demo.sm16", {{"exp", "["}, {"p", "["}}));
    const std::string sm16_key = sm16.substr(0, sm16.find('['));
    const std::size_t at16 = text.find(sm16_key);
    REQUIRE(at16 != std::string::npos);
    const std::string after16 = text.substr(at16);
    const std::vector<double> shown_naive = list_after(after16, "softmax = ");
    REQUIRE(shown_naive.size() == 3);
    for (std::size_t i = 0; i < 3; ++i) {
      CHECK(std::isnan(shown_naive[i]) == std::isnan(naive[i]));
      if (!std::isnan(naive[i])) CHECK(static_cast<double>(static_cast<h16>(shown_naive[i])) == naive[i]);
    }
    // "PyTorch's own softmax subtracts the max first, as in the third line": that line is the
    // hardware replay of exp(x - max), and it is finite.
    const std::string smm = flat(l.get("q8.demo.sm16_max", {{"exp", "["}, {"p", "["}}));
    const std::size_t atm = text.find(smm.substr(0, smm.find('[')));
    REQUIRE(atm != std::string::npos);
    const std::vector<double> shown_stable = list_after(text.substr(atm), "softmax = ");
    REQUIRE(shown_stable.size() == 3);
    for (std::size_t i = 0; i < 3; ++i) CHECK(static_cast<double>(static_cast<h16>(shown_stable[i])) == stable[i]);
  }
}

TEST_CASE("Q8 claim: \"runs in float32\" is the CUDA policy; CPU autocast leaves softmax, layer_norm, exp, log, sum alone") {
  // PyTorch's op reference (https://pytorch.org/docs/stable/amp.html#autocast-op-reference):
  // CUDA runs these in float32; CPU autocast lists none of them, and lists the losses as float32.
  const char* cuda_fp32[] = {"exp", "log", "softmax", "sum", "layer_norm", "nll_loss", "mse_loss"};
  const char* cpu_unlisted[] = {"softmax", "layer_norm", "exp", "log", "sum"};
  for (const char* op : cuda_fp32)
    CHECK(lf::training::autocast_lookup(lf::training::device_kind::cuda, op, "float32").dtype == std::string_view("float32"));
  for (const char* op : cpu_unlisted)
    CHECK(lf::training::autocast_lookup(lf::training::device_kind::cpu, op, "float32").policy == lf::training::cast_policy::unlisted);
  CHECK(lf::training::autocast_lookup(lf::training::device_kind::cpu, "nll_loss", "float32").dtype == std::string_view("float32"));

  for (const char* code : {"en", "fr"}) {
    CAPTURE(code);
    const language& l = lang(code);
    const std::string ex = flat(l.raw("q8.explain"));
    CAPTURE(ex);
    // The explanation names the ops CPU autocast leaves in their input dtype, as a list.
    const std::regex cpu(code == std::string("en") ? R"(but ([a-z_, ]+) are on no CPU list and keep their input dtype)"
                                                   : R"(mais ([a-z_, ]+) ne figurent dans aucune liste CPU)");
    std::smatch m;
    REQUIRE(std::regex_search(ex, m, cpu));
    std::string names = m[1].str();
    std::vector<std::string> ops;
    for (const std::string& w : fields(std::regex_replace(names, std::regex(",| and | et "), " "))) ops.push_back(w);
    CHECK(ops.size() == std::size(cpu_unlisted));
    for (const std::string& op : ops) {
      CAPTURE(op);
      CHECK(std::find_if(std::begin(cpu_unlisted), std::end(cpu_unlisted), [&](const char* s) { return op == s; }) !=
            std::end(cpu_unlisted));
    }
    // Every "float32" claim for those ops is about CUDA: the sentence with the list starts with CUDA.
    const std::size_t f32 = ex.find("(exp, log, softmax");
    REQUIRE(f32 != std::string::npos);
    const std::size_t cuda = ex.rfind("CUDA", f32);
    const std::size_t stop = ex.rfind(". ", f32);
    CHECK(cuda != std::string::npos);
    CHECK((stop == std::string::npos || cuda > stop));
    // The table rows agree: softmax and layer_norm float32 on CUDA, input dtype on CPU.
    const std::string table = flat(demo::show(8, l, demo::default_seed, false));
    for (const char* op : {"softmax", "layer_norm"}) {
      const std::size_t at = table.find(std::string(op) + " (");
      REQUIRE(at != std::string::npos);
      const std::string rest = table.substr(table.find(") ", at) + 2);
      CHECK(rest.rfind("float32 " + l.get("q8.demo.as_input"), 0) == 0);
    }
    // The sum sentence: 10,000 x 0.01 added one at a time, in _Float16 and in float.
    h16 s16 = 0;
    float s16_32 = 0, s32 = 0;
    for (int i = 0; i < 10000; ++i) {
      s16 = static_cast<h16>(s16 + static_cast<h16>(0.01));
      s16_32 = s16_32 + static_cast<float>(static_cast<h16>(0.01));
      s32 = s32 + 0.01f;
    }
    const std::size_t at = table.find("10000 x 0.01");
    REQUIRE(at != std::string::npos);
    const std::string sum = table.substr(at + 12);
    std::vector<float> nums;  // the printed sums: shortest binary32 / binary16 forms read back
    const std::regex num(R"((\d+\.\d+|\d+))");
    for (std::sregex_iterator it(sum.begin(), sum.end(), num), end; it != end; ++it)
      nums.push_back(std::stof((*it)[1].str()));
    CHECK(std::find(nums.begin(), nums.end(), static_cast<float>(s16)) != nums.end());
    CHECK(std::find(nums.begin(), nums.end(), s16_32) != nums.end());
    CHECK(std::find(nums.begin(), nums.end(), s32) != nums.end());
  }
}
