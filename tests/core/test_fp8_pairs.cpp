// Every OCP FP8 operand pair (E4M3 and E5M2, 65536 each) through every binary operation, and every
// operand triple (2^24 each) through fma, against the exact-rational oracle
// (tests/support/oracle.hpp), which shares no code with libfloat. Result bits and flags.
//
//   per deterministic mode (6):  add, sub, mul, div, rem, fma
//   mode-free:                   minimum, maximum, minimumNumber, maximumNumber, compare (quiet and
//                                signaling), eq, eq_signaling, lt, le, lt_quiet, le_quiet
//   typed:                       lf::fp8_e4m3 / lf::fp8_e5m2 operators + - * / == <=> (nearest even)
//   stochastic:                  add, mul, div with random words 0, 2^31 - 1, 2^31, all ones: the
//                                magnitude rounds up iff random < D, the first 32 discarded bits
#include "exhaustive_common.hpp"

#include <atomic>
#include <chrono>
#include <mutex>
#include <thread>

namespace {

using ex::collector;
using ex::fmt;
using oracle::cpp_int;

const fmt* const fp8_formats[] = {&ex::e4m3, &ex::e5m2};

std::string h8(std::uint64_t v) { return ex::hex(v, 8); }

enum class binop : std::uint8_t { add, sub, mul, div, rem };
constexpr binop binops[] = {binop::add, binop::sub, binop::mul, binop::div, binop::rem};
const char* binop_name(binop o) {
  switch (o) {
    case binop::add: return "add";
    case binop::sub: return "sub";
    case binop::mul: return "mul";
    case binop::div: return "div";
    case binop::rem: return "rem";
  }
  return "?";
}

std::uint64_t lib_binop(binop o, const lf::format& f, std::uint64_t a, std::uint64_t b, const lf::env& e,
                        lf::status& st) {
  switch (o) {
    case binop::add: return lf::add(f, a, b, e, st);
    case binop::sub: return lf::sub(f, a, b, e, st);
    case binop::mul: return lf::mul(f, a, b, e, st);
    case binop::div: return lf::div(f, a, b, e, st);
    case binop::rem: return lf::rem(f, a, b, e, st);
  }
  return 0;
}
oracle::result oracle_binop(binop o, const oracle::target& t, std::uint64_t a, std::uint64_t b, oracle::mode m) {
  switch (o) {
    case binop::add: return oracle::add(t, a, b, m);
    case binop::sub: return oracle::sub(t, a, b, m);
    case binop::mul: return oracle::mul(t, a, b, m);
    case binop::div: return oracle::div(t, a, b, m);
    case binop::rem: return oracle::rem(t, a, b, m);
  }
  return {};
}

TEST_CASE("every E4M3 and E5M2 operand pair, every deterministic mode: add, sub, mul, div, rem (bits and flags)") {
  for (const fmt* fp : fp8_formats) {
    const fmt& f = *fp;
    for (binop o : binops) {
      collector c(std::string(f.name) + " " + binop_name(o));
      for (const auto& d : ex::deterministic) {
        const lf::env e{d.lib};
        for (std::uint64_t a = 0; a < 256; ++a)
          for (std::uint64_t b = 0; b < 256; ++b) {
            lf::status st{};
            const std::uint64_t r = lib_binop(o, f.lib, a, b, e, st);
            const oracle::result w = oracle_binop(o, f.ora, a, b, d.ora);
            c.check(r == w.bits && lf::to_bits(st) == w.flags, [&] {
              return std::string(d.name) + " " + binop_name(o) + "(" + h8(a) + ", " + h8(b) +
                     "): " + ex::got_want(r, lf::to_bits(st), w.bits, w.flags, 8);
            });
          }
      }
      c.report();
    }
  }
}

TEST_CASE("every E4M3 and E5M2 operand pair: minimum, maximum, minimum_number, maximum_number (bits and flags)") {
  for (const fmt* fp : fp8_formats) {
    const fmt& f = *fp;
    collector c(std::string(f.name) + " min/max");
    for (std::uint64_t a = 0; a < 256; ++a)
      for (std::uint64_t b = 0; b < 256; ++b) {
        struct variant {
          const char* name;
          std::uint64_t (*lib)(const lf::format&, std::uint64_t, std::uint64_t, lf::status&);
          oracle::result (*ora)(const oracle::target&, std::uint64_t, std::uint64_t);
        };
        const variant vs[] = {{"minimum", lf::minimum, oracle::minimum},
                              {"maximum", lf::maximum, oracle::maximum},
                              {"minimum_number", lf::minimum_number, oracle::minimum_number},
                              {"maximum_number", lf::maximum_number, oracle::maximum_number}};
        for (const auto& v : vs) {
          lf::status st{};
          const std::uint64_t r = v.lib(f.lib, a, b, st);
          const oracle::result w = v.ora(f.ora, a, b);
          c.check(r == w.bits && lf::to_bits(st) == w.flags, [&] {
            return std::string(v.name) + "(" + h8(a) + ", " + h8(b) + "): " +
                   ex::got_want(r, lf::to_bits(st), w.bits, w.flags, 8);
          });
        }
      }
    c.report();
  }
}

const char* order_name(std::partial_ordering o) {
  return o == std::partial_ordering::less         ? "less"
         : o == std::partial_ordering::equivalent ? "equivalent"
         : o == std::partial_ordering::greater    ? "greater"
                                                  : "unordered";
}

TEST_CASE("every E4M3 and E5M2 operand pair: compare (quiet, signaling) and the six predicates, with flags") {
  for (const fmt* fp : fp8_formats) {
    const fmt& f = *fp;
    collector c(std::string(f.name) + " comparisons");
    for (std::uint64_t a = 0; a < 256; ++a)
      for (std::uint64_t b = 0; b < 256; ++b) {
        for (bool signaling : {false, true}) {
          lf::status st{};
          std::uint8_t wf = 0;
          const auto r = lf::compare(f.lib, a, b, signaling, st);
          const auto w = oracle::compare(f.ora, a, b, signaling, wf);
          c.check(r == w && lf::to_bits(st) == wf, [&] {
            return std::string(signaling ? "compare_signaling(" : "compare_quiet(") + h8(a) + ", " + h8(b) +
                   "): lf " + order_name(r) + " flags " + std::to_string(lf::to_bits(st)) + ", oracle " +
                   order_name(w) + " flags " + std::to_string(wf);
          });
        }
        std::uint8_t qf = 0, sf = 0;
        const auto q = oracle::compare(f.ora, a, b, false, qf);
        const auto s = oracle::compare(f.ora, a, b, true, sf);
        struct predicate {
          const char* name;
          bool (*lib)(const lf::format&, std::uint64_t, std::uint64_t, lf::status&, bool);
          bool want;
          std::uint8_t flags;
        };
        using po = std::partial_ordering;
        const predicate ps[] = {
            {"eq", lf::eq, q == po::equivalent, qf},
            {"eq_signaling", lf::eq_signaling, s == po::equivalent, sf},
            {"lt", lf::lt, s == po::less, sf},
            {"le", lf::le, s == po::less || s == po::equivalent, sf},
            {"lt_quiet", lf::lt_quiet, q == po::less, qf},
            {"le_quiet", lf::le_quiet, q == po::less || q == po::equivalent, qf},
        };
        for (const auto& p : ps) {
          lf::status st{};
          const bool r = p.lib(f.lib, a, b, st, false);
          c.check(r == p.want && lf::to_bits(st) == p.flags, [&] {
            return std::string(p.name) + "(" + h8(a) + ", " + h8(b) + "): lf " + (r ? "true" : "false") + " flags " +
                   std::to_string(lf::to_bits(st)) + ", oracle " + (p.want ? "true" : "false") + " flags " +
                   std::to_string(p.flags);
          });
        }
      }
    c.report();
  }
}

template <lf::format F>
void typed_operators(const fmt& f) {
  using T = lf::fp<F>;
  collector c(std::string(f.name) + " typed operators");
  for (std::uint64_t a = 0; a < 256; ++a)
    for (std::uint64_t b = 0; b < 256; ++b) {
      const T x = T::from_bits(static_cast<std::uint8_t>(a)), y = T::from_bits(static_cast<std::uint8_t>(b));
      const std::uint64_t got[] = {(x + y).bits(), (x - y).bits(), (x * y).bits(), (x / y).bits()};
      const binop ops[] = {binop::add, binop::sub, binop::mul, binop::div};
      for (int i = 0; i < 4; ++i) {
        const oracle::result w = oracle_binop(ops[i], f.ora, a, b, oracle::mode::nearest_even);
        c.check(got[i] == w.bits, [&] {
          return std::string("operator ") + binop_name(ops[i]) + " " + h8(a) + ", " + h8(b) + ": lf " + h8(got[i]) +
                 ", oracle " + h8(w.bits);
        });
      }
      std::uint8_t fl = 0;
      const auto w = oracle::compare(f.ora, a, b, false, fl);
      c.check((x == y) == (w == std::partial_ordering::equivalent) && (x <=> y) == w,
              [&] { return "operator== / <=> " + h8(a) + ", " + h8(b) + ": oracle " + order_name(w); });
    }
  c.report();
}

TEST_CASE("every E4M3 and E5M2 operand pair: lf::fp8_e4m3 / lf::fp8_e5m2 operators + - * / == <=> match the "
          "oracle in nearest_even") {
  typed_operators<lf::float8_e4m3fn>(ex::e4m3);
  typed_operators<lf::float8_e5m2>(ex::e5m2);
}

// ---- stochastic ---------------------------------------------------------------------------------

/// The oracle for a stochastically rounded add/mul/div: special operands are handled exactly as in
/// nearest_even (their results are exact and mode-free; an exact zero sum is +0 in every mode
/// but downward); a finite nonzero exact result goes through oracle::round_stochastic.
oracle::result stochastic_oracle(binop o, const oracle::target& t, std::uint64_t a, std::uint64_t b,
                                 std::uint32_t word) {
  const oracle::operand x = oracle::decode(t, a), y = oracle::decode(t, b);
  const bool plain = !x.nan && !y.nan && x.value.is_finite_nonzero() && y.value.is_finite_nonzero();
  if (!plain) return oracle_binop(o, t, a, b, oracle::mode::nearest_even);
  oracle::exact v;
  if (o == binop::add || o == binop::sub) {
    oracle::exact yy = y.value;
    if (o == binop::sub) yy.neg = !yy.neg;
    v = oracle::detail::exact_add(x.value, yy);
    if (v.is_zero()) return {0, oracle::flag::none};
  } else if (o == binop::mul) {
    v = oracle::detail::exact_mul(x.value, y.value);
  } else {
    v = oracle::detail::exact_div(x.value, y.value);
  }
  return oracle::round_stochastic(v, t, word);
}

TEST_CASE("every E4M3 and E5M2 operand pair: stochastic add, sub, mul, div round up iff random < D "
          "(words 0, 2^31 - 1, 2^31, 2^32 - 1)") {
  for (const fmt* fp : fp8_formats) {
    const fmt& f = *fp;
    collector c(std::string(f.name) + " stochastic add/sub/mul/div");
    for (std::uint32_t word : {0u, 0x7FFFFFFFu, 0x80000000u, 0xFFFFFFFFu}) {
      const lf::env e{lf::rounding::stochastic, {}, word};
      for (binop o : {binop::add, binop::sub, binop::mul, binop::div})
        for (std::uint64_t a = 0; a < 256; ++a)
          for (std::uint64_t b = 0; b < 256; ++b) {
            lf::status st{};
            const std::uint64_t r = lib_binop(o, f.lib, a, b, e, st);
            const oracle::result w = stochastic_oracle(o, f.ora, a, b, word);
            c.check(r == w.bits && lf::to_bits(st) == w.flags, [&] {
              char buf[24];
              std::snprintf(buf, sizeof buf, "random 0x%08X ", word);
              return buf + std::string(binop_name(o)) + "(" + h8(a) + ", " + h8(b) +
                     "): " + ex::got_want(r, lf::to_bits(st), w.bits, w.flags, 8);
            });
          }
    }
    c.report();
  }
}

// ---- fma: every triple ----------------------------------------------------------------------------

TEST_CASE("every E4M3 and E5M2 operand triple (2^24 each), every deterministic mode: fma (bits and flags)") {
  for (const fmt* fp : fp8_formats) {
    const fmt& f = *fp;
    collector c(std::string(f.name) + " fma");
    std::mutex m;
    std::atomic<std::uint32_t> next{0};
    const auto t0 = std::chrono::steady_clock::now();
    // Two threads over a; each keeps its own collector and merges at the end.
    auto worker = [&] {
      collector local(c.what);
      for (;;) {
        const std::uint32_t a = next.fetch_add(1);
        if (a >= 256) break;
        for (std::uint64_t b = 0; b < 256; ++b)
          for (std::uint64_t cc = 0; cc < 256; ++cc) {
            // The oracle's exact a * b + c once per triple, rounded in each mode (oracle::fma is
            // these two steps).
            const oracle::outcome exact = oracle::prepare_fma(f.ora, a, b, cc);
            for (const auto& d : ex::deterministic) {
              lf::status st{};
              const std::uint64_t r = lf::fma(f.lib, a, b, cc, lf::env{d.lib}, st);
              const oracle::result w = oracle::finish(exact, f.ora, d.ora);
              local.check(r == w.bits && lf::to_bits(st) == w.flags, [&] {
                return std::string(d.name) + " fma(" + h8(a) + ", " + h8(b) + ", " + h8(cc) +
                       "): " + ex::got_want(r, lf::to_bits(st), w.bits, w.flags, 8);
              });
            }
          }
        if (local.enough()) break;
      }
      std::lock_guard<std::mutex> lock(m);
      c.cases += local.cases;
      c.bad += local.bad;
      for (auto& s : local.first)
        if (c.first.size() < c.keep) c.first.push_back(s);
    };
    std::thread t1(worker), t2(worker);
    t1.join();
    t2.join();
    MESSAGE(std::string(f.name) << " fma: " << std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count()
                   << " s on 2 threads");
    c.report();
    CHECK(c.cases == 6ull << 24);
  }
}

// ---- the checks can fail -----------------------------------------------------------------------

TEST_CASE("fp8 oracle sanity: pinned E4M3/E5M2 cases, neighbouring modes differ, a wrong answer is caught") {
  using oracle::mode;
  using namespace oracle::flag;
  // E4M3 0x7E = 448 (max), 0x58 = 16, 0x59 = 18, 0x50 = 8, 0x7D = 416.
  // 448 + 16 = 464 = 1.1101b * 2^8: the tie between 448 = 1.110b and 480 = 1.111b (the NaN
  // encoding). IEEE 754-2019 §7.4 rounds with an unbounded exponent: nearest_even gives the even
  // 448, which does not exceed max, so inexact only; nearest_away gives 480: overflow, NaN.
  CHECK(oracle::add(oracle::e4m3, 0x7E, 0x58, mode::nearest_even).bits == 0x7E);
  CHECK(oracle::add(oracle::e4m3, 0x7E, 0x58, mode::nearest_even).flags == inexact);
  CHECK(oracle::add(oracle::e4m3, 0x7E, 0x58, mode::nearest_away).bits == 0x7F);
  CHECK(oracle::add(oracle::e4m3, 0x7E, 0x58, mode::nearest_away).flags == (overflow | inexact));
  CHECK(oracle::add(oracle::e4m3, 0x7E, 0x59, mode::nearest_even).bits == 0x7F);  // 466 -> NaN
  CHECK(oracle::add(oracle::e4m3, 0x7E, 0x59, mode::nearest_even).flags == (overflow | inexact));
  CHECK(oracle::add(oracle::e4m3, 0xFE, 0xD8, mode::nearest_even).bits == 0xFE);  // -464 -> -448
  CHECK(oracle::add(oracle::e4m3, 0x7E, 0x58, mode::toward_zero).bits == 0x7E);
  CHECK(oracle::add(oracle::e4m3, 0x7E, 0x58, mode::toward_zero).flags == inexact);
  CHECK(oracle::add(oracle::e4m3, 0x7E, 0x58, mode::upward).bits == 0x7F);  // 480: overflow
  CHECK(oracle::add(oracle::e4m3, 0xFE, 0xD8, mode::downward).bits == 0xFF);
  CHECK(oracle::add(oracle::e4m3, 0x7E, 0x58, mode::odd).bits == 0x7E);  // odd neighbour 480 overflows to max
  CHECK(oracle::add(oracle::e4m3, 0x7E, 0x58, mode::odd).flags == (overflow | inexact));
  CHECK(oracle::round_stochastic(oracle::exact::integer(464), oracle::e4m3, 0x7FFFFFFF).bits == 0x7F);  // D = 2^31
  CHECK(oracle::round_stochastic(oracle::exact::integer(464), oracle::e4m3, 0x80000000).bits == 0x7E);
  CHECK(oracle::add(oracle::e4m3, 0x7D, 0x58, mode::nearest_even).bits == 0x7E);  // 432: tie to even 448
  CHECK(oracle::add(oracle::e4m3, 0x7D, 0x58, mode::nearest_even).flags == inexact);
  CHECK(oracle::add(oracle::e4m3, 0x7E, 0x50, mode::nearest_even).bits == 0x7E);  // 456 < 464
  // E5M2 (IEEE): max 57344 = 1.11b * 2^15 has an odd last bit, so the tie max + ulp/2 = 61440
  // goes to 2^16 and overflows: 57344 + 4096 (0x6C).
  CHECK(oracle::add(oracle::e5m2, 0x7B, 0x6C, mode::nearest_even).bits == 0x7C);
  CHECK(oracle::add(oracle::e5m2, 0x7B, 0x6C, mode::nearest_even).flags == (overflow | inexact));
  // E5M2: 57344 + 8192 = 65536 -> inf under nearest (max + ulp/2 = 61440).
  CHECK(oracle::add(oracle::e5m2, 0x7B, 0x70, mode::nearest_even).bits == 0x7C);
  CHECK(oracle::add(oracle::e5m2, 0x7B, 0x70, mode::downward).bits == 0x7B);
  // A deliberately wrong answer (the nearest_away result where nearest_even is asked) is caught.
  collector c("sanity");
  for (std::uint64_t a = 0; a < 256; ++a) {
    const auto even = oracle::add(oracle::e5m2, a, 0x01, mode::nearest_even);
    const auto away = oracle::add(oracle::e5m2, a, 0x01, mode::nearest_away);
    c.check(even.bits == away.bits && even.flags == away.flags, [] { return std::string("differs"); });
  }
  CHECK(c.bad > 0);
}

}  // namespace
