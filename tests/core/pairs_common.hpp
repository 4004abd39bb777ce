// tests/core/pairs_common.hpp: the machinery of test_pairs16.cpp (one doctest template over
// binary16 and bfloat16): every one of the 2^32 operand pairs of a 16-bit format through
// + - * / under roundTiesToEven, checked for result bits AND flags against an oracle that shares
// no code with libfloat.
//
// Each format supplies the *value* oracle (hardware arithmetic in a wider format followed by a
// narrowing that is not libfloat's) and a widening of an encoding to double. The *flags* oracle is
// here; it derives every flag from its IEEE 754-2019 definition with exact double arithmetic:
//
//   Let A, B be the operands as doubles (exact: every binary16/bfloat16 value is a double) and x
//   the exact result. Double arithmetic decides x exactly:
//     + -  TwoSum: s = RN(A ± B) and the rounding error e, so x = s + e exactly (no overflow is
//          possible: |A|, |B| < 2^128);
//     *    A * B is exact (at most 2 * 11 significant bits, exponent >= -266);
//     /    not exact, so every question about x = A / B is asked about A and B: |x| <=> K becomes
//          |A| <=> K * |B| (K * |B| has at most 2p + 2 bits: exact), and x == R becomes
//          R * B == A (R * B has at most 2p bits and lies in [2^-266, 2^256] or is zero: the
//          double product is exact).
//   invalid         §7.2: some operand is a signaling NaN, or no operand is a NaN and the double
//                   result (hardware) is a NaN (inf - inf, 0 * inf, 0/0, inf/inf).
//   divide_by_zero  §7.3: division of a finite nonzero operand by a zero.
//   overflow        §7.4: finite operands and the exact result, rounded with an unbounded exponent,
//                   exceeds max finite. Under roundTiesToEven that is |x| >= max + ulp(max)/2
//                   (max's significand is odd, so the tie there rounds up): 65520 for binary16,
//                   511 * 2^119 for bfloat16. Overflow also raises inexact (§7.4).
//   inexact         §7.6: the delivered result R differs from x (or overflow).
//   underflow       §7.5 with tininess after rounding: x != 0, x rounded to p bits with an unbounded
//                   exponent is below 2^emin, and inexact. The p-bit numbers around 2^emin are
//                   2^emin - 2^(emin-p) (odd significand) and 2^emin, so x rounds below 2^emin iff
//                   |x| < 2^emin - 2^(emin-p-1) = 2^emin * (1 - 2^-(p+1)) (the tie rounds to even,
//                   up). That threshold is compared exactly as above.
//   Operations with an infinite operand raise nothing beyond invalid (§6.1: they are exact).
//
// The oracle's result bits and its overflow verdict come from two independent computations
// (hardware narrowing, exact threshold); a disagreement between them is reported as an oracle
// inconsistency, not silently resolved.
//
// Every operation is a template parameter (op O), and the driver runs one operation over all
// b for a given a, so that neither the oracle nor the library call dispatches on the operation
// per case; the cases and checks are the same as with a runtime switch.
//
// Which pairs one process checks (tests/fast/proof_selection.hpp, a chunk c being the 65536 pairs
// of one first operand a = c): LIBFLOAT_EXHAUSTIVE_SHARDS=n LIBFLOAT_EXHAUSTIVE_SHARD=i takes the
// first operands a with a % n == i; of those, a rotation of `pair_rotation` parts chosen by
// LIBFLOAT_PROOF_PART (auto, the default: the date; a day number; all: every pair), so that
// consecutive days cover all 2^32 pairs of each format and `all` checks them in one run.
// LIBFLOAT_TEST_THREADS threads (default 2; ctest runs single-threaded shards side by side).
#pragma once

#include <libfloat/libfloat.hpp>

#include <doctest/doctest.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <algorithm>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "../fast/proof_selection.hpp"  // the date rotation shared with the proof label
#include "../support/oracle.hpp"  // only for oracle::flag values and oracle::hex (no lf code)

namespace pairs {

enum class op : std::uint8_t { add, sub, mul, div };
inline constexpr op all_ops[] = {op::add, op::sub, op::mul, op::div};
inline const char* op_name(op o) {
  switch (o) {
    case op::add: return "+";
    case op::sub: return "-";
    case op::mul: return "*";
    case op::div: return "/";
  }
  return "?";
}

/// Calls f.template operator()<O>() for the runtime operation o.
template <typename F>
decltype(auto) with_op(op o, F&& f) {
  switch (o) {
    case op::add: return f.template operator()<op::add>();
    case op::sub: return f.template operator()<op::sub>();
    case op::mul: return f.template operator()<op::mul>();
    case op::div: break;
  }
  return f.template operator()<op::div>();
}

// ---- hardware double arithmetic with the operand order pinned --------------------------------
// x86 SSE returns the *first* source operand's NaN (quieted) when both are NaNs. A compiler may
// swap the operands of a commutative a + b, so the order is fixed with inline assembly.
#if defined(__x86_64__) || defined(__i386__)
template <op O>
inline double hw(double a, double b) {
  if constexpr (O == op::add) asm("addsd %1, %0" : "+x"(a) : "x"(b));
  if constexpr (O == op::sub) asm("subsd %1, %0" : "+x"(a) : "x"(b));
  if constexpr (O == op::mul) asm("mulsd %1, %0" : "+x"(a) : "x"(b));
  if constexpr (O == op::div) asm("divsd %1, %0" : "+x"(a) : "x"(b));
  return a;
}
template <op O>
inline float hw(float a, float b) {
  if constexpr (O == op::add) asm("addss %1, %0" : "+x"(a) : "x"(b));
  if constexpr (O == op::sub) asm("subss %1, %0" : "+x"(a) : "x"(b));
  if constexpr (O == op::mul) asm("mulss %1, %0" : "+x"(a) : "x"(b));
  if constexpr (O == op::div) asm("divss %1, %0" : "+x"(a) : "x"(b));
  return a;
}
#else
#error "the exhaustive pair tests use x86 SSE semantics for their oracle"
#endif

// ---- the 16-bit format, described by its spec numbers (not by lf::format) ----------------------

struct format16 {
  const char* name;
  int frac_bits;          // p - 1
  std::uint16_t qbit;     // quiet bit
  double min_normal;      // 2^emin
  double tiny_threshold;  // 2^emin * (1 - 2^-(p+1))
  double overflow_threshold;  // max + ulp(max)/2: IEEE max has an odd last bit, so this tie rounds
                              // (unbounded exponent, IEEE 754-2019 §7.4) up to 2^(emax+1): overflow
  double max_finite;
  std::uint16_t default_nan;
  std::uint16_t exp_mask() const { return static_cast<std::uint16_t>(0x7FFFu & ~((1u << frac_bits) - 1)); }
  bool is_nan(std::uint16_t h) const { return (h & 0x7FFF) > exp_mask(); }
  bool is_snan(std::uint16_t h) const { return is_nan(h) && !(h & qbit); }
  bool is_inf(std::uint16_t h) const { return (h & 0x7FFF) == exp_mask(); }
};

// ---- exact questions about x = A op B (see the file comment) ------------------------------------

inline int sgn(double v) { return (v > 0) - (v < 0); }

/// x = A op B held exactly: s + e for + and - (TwoSum), s = A * B for *, and A, B for /.
template <op O>
struct exact_result {
  double A, B;
  double s = 0, e = 0;
  exact_result(double a, double b) : A(a), B(b) {
    if constexpr (O == op::add || O == op::sub) {  // Knuth's TwoSum: s = RN(a + b), e = a + b - s exactly
      const double bb = O == op::add ? b : -b;
      s = a + bb;
      const double bv = s - a;
      e = (a - (s - bv)) + (bb - bv);
    } else if constexpr (O == op::mul) {
      s = a * b;  // exact: <= 2 * 11 bits, exponent >= -266
    }
  }
  bool is_zero() const {
    if constexpr (O == op::div) return A == 0;
    else return s == 0 && e == 0;
  }
  /// sign(|x| - K) for K > 0.
  int compare_abs(double K) const {
    if constexpr (O == op::add || O == op::sub) {
      if (std::fabs(s) != K) return sgn(std::fabs(s) - K);  // RN is monotone and K is a double
      return sgn(e) * sgn(s);
    } else if constexpr (O == op::mul) {
      return sgn(std::fabs(s) - K);
    } else {
      return sgn(std::fabs(A) - K * std::fabs(B));  // K * |B|: <= 2p + 2 bits, exact
    }
  }
  /// x == R for a finite R.
  bool equals(double R) const {
    if constexpr (O == op::add || O == op::sub) return s == R && e == 0;
    else if constexpr (O == op::mul) return s == R;
    else return R * B == A;  // R * B: <= 2p bits, zero or in [2^-266, 2^256]: exact
  }
};

struct expected {
  std::uint16_t bits;
  std::uint8_t flags;
  const char* inconsistency;  // non-null when the oracle's two halves disagree
};

/// The flags of A op B under roundTiesToEven, given the oracle's delivered result r (as bits and
/// as a double R). a, b are the operand encodings (for NaN classification only).
template <op O>
inline expected derive(const format16& f, std::uint16_t a, std::uint16_t b, double A, double B, std::uint16_t r,
                       double R) {
  using namespace oracle;
  expected out{r, flag::none, nullptr};
  const bool an = f.is_nan(a), bn = f.is_nan(b);
  if (an || bn) [[unlikely]] {
    if (f.is_snan(a) || f.is_snan(b)) out.flags = flag::invalid;
    // x86 rule: the first NaN operand, quieted.
    const std::uint16_t rule = static_cast<std::uint16_t>((an ? a : b) | f.qbit);
    if (r != rule) out.inconsistency = "NaN result is not the quieted first NaN operand";
    return out;
  }
  if (std::isinf(A) || std::isinf(B) || (O == op::div && B == 0)) [[unlikely]] {
    const double D = hw<O>(A, B);
    if (std::isnan(D)) {  // inf - inf, 0 * inf, 0 / 0, inf / inf
      out.flags = flag::invalid;
      if (r != f.default_nan) out.inconsistency = "invalid operation did not give the default NaN";
    } else if (O == op::div && B == 0 && !std::isinf(A)) {
      out.flags = flag::divide_by_zero;
      if (!f.is_inf(r)) out.inconsistency = "finite / 0 did not give infinity";
    }
    return out;  // otherwise exact (§6.1)
  }
  const exact_result<O> x(A, B);
  // Overflow is decided by the exact threshold; it is asked only where the hardware result is at
  // least max finite (R < max implies |x| < max + ulp/2 when R is the correct rounding, and an
  // incorrect R is caught by the bit comparison anyway).
  const bool r_inf = f.is_inf(r);
  if (r_inf || std::fabs(R) >= f.max_finite) [[unlikely]] {
    const bool over = x.compare_abs(f.overflow_threshold) >= 0;
    if (over != r_inf) {
      out.inconsistency = "overflow threshold and hardware narrowing disagree";
      return out;
    }
    if (over) {
      out.flags = flag::overflow | flag::inexact;
      return out;
    }
  }
  const bool inexact = !x.equals(R);
  if (!inexact) return out;
  // Tininess: only results up to 2^emin can come from a tiny x (|x| >= T rounds to >= 2^emin).
  const bool tiny = std::fabs(R) <= f.min_normal && !x.is_zero() && x.compare_abs(f.tiny_threshold) < 0;
  out.flags = static_cast<std::uint8_t>(flag::inexact | (tiny ? flag::underflow : 0));
  return out;
}

// ---- the exhaustive driver ----------------------------------------------------------------------

/// What the library returned for one (op, a, b).
struct library_answer {
  std::uint16_t runtime_bits;  // lf::add(format, a, b, env{}, st)
  std::uint8_t runtime_flags;
  std::uint16_t typed_bits;  // lf::fp<F> operator
};

struct failure {
  op o;
  std::uint16_t a, b;
  expected want;
  library_answer got;
};

/// What kind of disagreement a case shows (none when the library agrees with the oracle).
enum class verdict : std::uint8_t {
  agree,
  oracle_inconsistent,  ///< the oracle's value and its flag derivation disagree: a test bug
  core,                 ///< lf::add/sub/mul/div bits or flags differ from the oracle
  typed_two_nans,       ///< only the typed operator differs, and both operands are NaNs
  typed,                ///< only the typed operator differs, other operands
};
inline constexpr const char* verdict_name[] = {
    "agree", "oracle inconsistency", "core (lf::add/sub/mul/div) bits or flags",
    "typed operator, both operands NaN (CORE_BUGS.md: operand order of the binary32 fast path)",
    "typed operator"};

inline verdict judge(const format16& f, std::uint16_t a, std::uint16_t b, const expected& want,
                     const library_answer& got) {
  if (want.inconsistency) return verdict::oracle_inconsistent;
  if (got.runtime_bits != want.bits || got.runtime_flags != want.flags) return verdict::core;
  if (got.typed_bits != want.bits) return f.is_nan(a) && f.is_nan(b) ? verdict::typed_two_nans : verdict::typed;
  return verdict::agree;
}

/// True when the library's answer is the oracle's.
inline bool agrees(const expected& want, const library_answer& got) {
  return want.inconsistency == nullptr && got.runtime_bits == want.bits && got.runtime_flags == want.flags &&
         got.typed_bits == want.bits;
}

inline std::string describe(const format16& f, const failure& x) {
  char buf[320];
  std::snprintf(buf, sizeof buf,
                "%s %s: %s %s %s -> oracle %s flags 0x%02X%s%s | lf::%s %s flags 0x%02X | typed operator %s",
                f.name,
                x.o == op::add ? "add" : x.o == op::sub ? "sub" : x.o == op::mul ? "mul" : "div",
                oracle::hex(x.a, 16).c_str(), op_name(x.o), oracle::hex(x.b, 16).c_str(),
                oracle::hex(x.want.bits, 16).c_str(), x.want.flags, x.want.inconsistency ? " ORACLE INCONSISTENT: " : "",
                x.want.inconsistency ? x.want.inconsistency : "",
                x.o == op::add ? "add" : x.o == op::sub ? "sub" : x.o == op::mul ? "mul" : "div",
                oracle::hex(x.got.runtime_bits, 16).c_str(), x.got.runtime_flags,
                oracle::hex(x.got.typed_bits, 16).c_str());
  return buf;
}

/// The rotation of the pair tests: 4 parts, so four consecutive days check all 2^32 pairs of each
/// format (each day's part, every fourth first operand of each shard, spans every exponent and
/// class of a). LIBFLOAT_PROOF_PART=all checks every pair in one run. (2 parts until 2026-12-04,
/// halved to keep `.ci/run` within its time budget.)
inline constexpr int pair_rotation = 4;

/// The first operands this process checks, and how they were chosen (for the report).
struct pair_selection {
  std::vector<std::uint16_t> firsts;
  std::string text;
};
inline pair_selection select_pairs() {
  const proof::selection s = proof::select_chunks();
  pair_selection p;
  for (std::uint32_t a = 0; a < 65536; ++a)
    if (s.selected(a, pair_rotation)) p.firsts.push_back(static_cast<std::uint16_t>(a));
  p.text = "first operands a with a % " + std::to_string(s.shards) + " == " + std::to_string(s.shard) + ", " +
           s.part_text(pair_rotation) + " of them (" + s.how + ")";
  return p;
}

/// LIBFLOAT_TEST_THREADS (default 2): ctest sets 1 and runs shards side by side instead.
inline int threads_from_env() {
  if (const char* s = std::getenv("LIBFLOAT_TEST_THREADS")) return std::max(1, std::atoi(s));
  return 2;
}

struct run_stats {
  std::uint64_t cases = 0;  // (op, a, b) triples checked
  double seconds = 0;
  int threads = 1;
  std::uint64_t count[5] = {};              // cases per verdict
  std::vector<failure> examples[5];         // the first few of each kind of disagreement
  bool stopped_early = false;
};

/// Runs every (op, a, b) with a among the selected first operands and b in [0, 65536) on `threads`
/// threads.
/// check.template run<O>(a, b, want, got) fills in the oracle and the library answer. Keeps a few
/// examples of each kind of disagreement; stops early once `stop_after` cases of a serious kind
/// (anything but the known typed-operator NaN-order issue) have been seen, since the rest adds
/// nothing.
template <typename Check>
run_stats run_all_pairs(const format16& f, const pair_selection& sel, const Check& check,
                        int threads = threads_from_env(), std::size_t keep = 4, std::uint64_t stop_after = 6) {
  run_stats st;
  st.threads = threads;
  std::atomic<std::size_t> next{0};
  std::atomic<bool> stop{false};
  std::mutex m;
  std::uint64_t serious = 0;  // under m
  const auto t0 = std::chrono::steady_clock::now();
  auto worker = [&] {
    std::uint64_t local_cases = 0, local_count[5] = {};
    // One operation over every b: O is a constant in the inner loop.
    auto one_op = [&]<op O>(std::uint16_t ua) {
      for (std::uint32_t b = 0; b < 65536; ++b) {
        const auto ub = static_cast<std::uint16_t>(b);
        expected want;
        library_answer got;
        check.template run<O>(ua, ub, want, got);
        const verdict v = judge(f, ua, ub, want, got);
        if (v == verdict::agree) [[likely]] continue;
        ++local_count[static_cast<int>(v)];
        std::lock_guard<std::mutex> lock(m);
        auto& ex = st.examples[static_cast<int>(v)];
        if (ex.size() < keep) ex.push_back({O, ua, ub, want, got});
        if (v != verdict::typed_two_nans && ++serious >= stop_after) stop = true;
      }
      local_cases += 65536;
    };
    for (;;) {
      const std::size_t i0 = next.fetch_add(16);
      if (i0 >= sel.firsts.size() || stop.load(std::memory_order_relaxed)) break;
      const std::size_t i1 = std::min(i0 + 16, sel.firsts.size());
      for (std::size_t i = i0; i < i1; ++i) {
        const std::uint16_t ua = sel.firsts[i];
        one_op.template operator()<op::add>(ua);
        one_op.template operator()<op::sub>(ua);
        one_op.template operator()<op::mul>(ua);
        one_op.template operator()<op::div>(ua);
      }
    }
    std::lock_guard<std::mutex> lock(m);
    st.cases += local_cases;
    for (int i = 1; i < 5; ++i) st.count[i] += local_count[i];
  };
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t) pool.emplace_back(worker);
  for (auto& t : pool) t.join();
  st.stopped_early = stop.load();
  st.count[0] = st.cases - st.count[1] - st.count[2] - st.count[3] - st.count[4];  // agreements
  st.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return st;
}

/// Reports a run through doctest (main thread only): every kind of disagreement with its count and
/// examples, then the coverage check.
inline void report(const format16& f, const pair_selection& sel, const run_stats& st) {
  MESSAGE(std::string(f.name) << " pairs: " << sel.text << ": " << st.cases << " cases in " << st.seconds << " s ("
                 << (st.seconds * 1e9 / static_cast<double>(st.cases ? st.cases : 1)) << " ns per case, " << st.threads
                 << " threads)");
  for (int v = 1; v < 5; ++v) {
    if (st.count[v] == 0) continue;
    FAIL_CHECK(st.count[v] << " cases disagree: " << std::string(verdict_name[v]));
    for (const auto& x : st.examples[v]) FAIL_CHECK(describe(f, x));
  }
  CHECK_FALSE(st.stopped_early);
  CHECK(st.cases == 4ull * 65536ull * sel.firsts.size());
}

}  // namespace pairs
