// The checks of the fast paths of fast/binary16_ops.hpp whose domains cannot be enumerated:
// binary16 fma (detail::binary16_fast_fma, binary16_fma_finite) and binary32 mul
// (detail::binary32_fast_mul, binary32_mul_finite), with a run-time rounding direction: they give the
// core's bits and flags.
//
// binary32 mul (2^64 pairs): every pair of biased exponents (0 to 254, 255^2 = 65,025 pairs: zeros,
// subnormals, every product exponent from below the subnormal range to beyond overflow) and signs,
// with `fractions` random fractions each, in the six directions; the public entry points
// (lf::mul(lf::binary32, ...) and, on every 61st pair, lf::mul(fp32, fp32, mode, &st)); NaN and
// infinite operands, declined; the fast path must take exactly the finite pairs.
//
// binary16 fma:
// The domain, 2^48 triples in six directions, cannot be enumerated (about 5 * 10^14 core calls), so
// the fast path rests on the argument in fast/binary16_ops.hpp, and this test covers every case
// that argument distinguishes, against the core (detail::fma_inline<lf::binary16>, core/arith.hpp;
// itself checked against exact rationals by tests/core):
//   - every combination of the three operands' biased exponents (0 to 30: zeros and subnormals
//     included, 31^3 = 29,791 combinations, so every exponent gap ep - ec from -53 to 34, both
//     sides of the far-product cut at ec - ep > 40, every overflow and underflow boundary) and of
//     their signs (8), each with `fractions` random fractions, in each of the six deterministic
//     directions;
//   - cancellation: c = -(a * b rounded in some direction), moved by -2..2 encodings, so that the
//     exact result is zero or a few units of the product's last bit (exact zeros and their signs);
//   - through the public entry points: lf::fma(lf::binary16, a, b, c, env{mode}, st) on the same
//     triples, and lf::fma(fp16, fp16, fp16, mode, &st) on every 61st; and NaN or infinite operands,
//     which the fast path must decline (the core answers, invalid for 0 * inf);
//   - the span operation lf::fma(a, b, c, out, mode) (core/array_arith.hpp; on the AVX2 and AVX-512
//     paths the kernel of fast/binary16_span_ops.hpp, whose argument does not rest on the far-product
//     cut) on all the same triples, on each vector path the CPU has (one it lacks is reported
//     skipped), grouped by the core's flags: every element's bits, and each group's span flags
//     exactly its core flags.
// The fast path must take exactly the triples of finite operands (counted), so it cannot silently
// hand everything to the core.
// binary32 spans (lf::add / sub / mul / div / fma(a, b[, c], out, mode), core/array_arith.hpp; on the
// AVX2 and AVX-512 paths, in the four directions x86 has, the CPU's own operations of
// fast/binary32_span_ops.hpp): every pair of biased exponents (0 to 255: zeros, subnormals,
// infinities and NaNs, quiet and signaling, included) and signs with `fractions` random fractions
// each; for fma, every pair of product exponents with the addend's exponent at, around and far from
// the product's; in the six directions, on each vector path the CPU has, grouped by the core's
// flags (detail::add_inline etc.): every element's bits, and each group's span flags exactly its core
// flags.
//
// The random fractions come from a seed that changes every day (LIBFLOAT_PROOF_PART, as the
// rotations of tests/fast/proof_selection.hpp: auto = days since 1970-01-01 UTC, or a day number to
// repeat a run; all: a fixed seed and 64 fractions instead of 4); each run prints it.
#include <libfloat/libfloat.hpp>

#include <doctest/doctest.h>

#include "proof_selection.hpp"

#include <cstdint>
#include <cstdio>
#include <random>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace {

using u32 = std::uint32_t;

std::string hex16(std::uint64_t v) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "0x%04llx", static_cast<unsigned long long>(v));
  return buf;
}

struct tally {
  std::uint64_t triples = 0, finite = 0, taken = 0, typed = 0, mismatches = 0, spans = 0;
  std::string first;
  std::vector<std::uint16_t> a, b, c, want;  // every triple and the core's result, for the span check
  std::vector<std::uint8_t> flags;
  void note(const std::string& what) {
    if (mismatches++ == 0) first = what;
  }
};

bool finite16(u32 x) { return (x & 0x7C00u) != 0x7C00u; }

std::string describe(const char* who, u32 a, u32 b, u32 c, lf::bits_t got, lf::status gs, lf::bits_t want,
                     lf::status ws) {
  return std::string(who) + " fma(" + hex16(a) + ", " + hex16(b) + ", " + hex16(c) + "): " + hex16(got) + " flags " +
         std::to_string(lf::to_bits(gs)) + ", core " + hex16(want) + " flags " + std::to_string(lf::to_bits(ws));
}

/// The run-time entry points, out of line so that e.mode is a run-time value here: their inline
/// fast path (detail::*_mode, core/detail/runtime_entry.hpp) runs as in a caller whose mode varies.
[[gnu::noinline]] lf::bits_t fma16_entry(u32 a, u32 b, u32 c, const lf::env& e, lf::status& st) {
  return lf::fma(lf::binary16, a, b, c, e, st);
}
[[gnu::noinline]] lf::bits_t mul32_entry(u32 a, u32 b, const lf::env& e, lf::status& st) {
  return lf::mul(lf::binary32, a, b, e, st);
}

/// One triple in direction M: the fast path (where it takes the triple), the run-time entry point
/// and, when `with_typed`, the typed one, each against the core.
template <lf::rounding M>
void check(u32 a, u32 b, u32 c, bool with_typed, tally& t) {
  const lf::env e{M};
  lf::status ws{}, gs{}, fs{};
  const lf::bits_t want = lf::detail::fma_inline<lf::binary16>(lf::binary16, a, b, c, e, ws);
  ++t.triples;
  t.a.push_back(static_cast<std::uint16_t>(a));
  t.b.push_back(static_cast<std::uint16_t>(b));
  t.c.push_back(static_cast<std::uint16_t>(c));
  t.want.push_back(static_cast<std::uint16_t>(want));
  t.flags.push_back(lf::to_bits(ws));
  const lf::bits_t got = fma16_entry(a, b, c, e, gs);
  if (got != want || gs != ws) t.note(describe("entry", a, b, c, got, gs, want, ws));
  t.finite += finite16(a) && finite16(b) && finite16(c);
  lf::bits_t fr = 0;
  if (lf::detail::binary16_fast_fma(M, a, b, c, e, fs, fr)) {
    ++t.taken;
    if (fr != want || fs != ws) t.note(describe("fast", a, b, c, fr, fs, want, ws));
  }
  if (with_typed) {
    lf::status ts{};
    const auto h = [](u32 x) { return lf::fp16::from_bits(static_cast<std::uint16_t>(x)); };
    const lf::fp16 r = lf::fma(h(a), h(b), h(c), M, &ts);
    ++t.typed;
    if (r.bits() != want || ts != ws) t.note(describe("typed", a, b, c, r.bits(), ts, want, ws));
  }
}

/// The cases of the file comment for direction M, fractions drawn from rng.
template <lf::rounding M>
void check_mode(std::mt19937_64& rng, int fractions, tally& t) {
  std::uint64_t n = 0;
  const auto frac = [&rng] { return static_cast<u32>(rng() & 0x3FFu); };
  for (u32 ea = 0; ea < 31; ++ea)
    for (u32 eb = 0; eb < 31; ++eb)
      for (u32 ec = 0; ec < 31; ++ec)
        for (u32 signs = 0; signs < 8; ++signs)
          for (int k = 0; k < fractions; ++k) {
            const u32 a = ((signs & 1u) << 15) | (ea << 10) | frac();
            const u32 b = ((signs & 2u) << 14) | (eb << 10) | frac();
            const u32 c = ((signs & 4u) << 13) | (ec << 10) | frac();
            check<M>(a, b, c, ++n % 61 == 0, t);
          }
  // cancellation: c = -(a * b rounded) moved by a few encodings (staying finite, same sign side)
  constexpr lf::rounding dirs[] = {lf::rounding::nearest_even, lf::rounding::toward_zero, lf::rounding::upward,
                                   lf::rounding::downward};
  for (int i = 0; i < 200000; ++i) {
    const u32 a = static_cast<u32>(rng()) & 0xFFFFu, b = static_cast<u32>(rng()) & 0xFFFFu;
    if (!finite16(a) || !finite16(b)) continue;
    lf::status s{};
    const u32 p = static_cast<u32>(lf::mul(lf::binary16, a, b, lf::env{dirs[i % 4]}, s));
    if (!finite16(p)) continue;
    const u32 mag = p & 0x7FFFu, moved = static_cast<u32>(static_cast<int>(mag) + static_cast<int>(rng() % 5) - 2);
    if (moved > 0x7BFFu) continue;  // off the finite range (or below zero)
    check<M>(a, b, ((p ^ 0x8000u) & 0x8000u) | moved, i % 61 == 0, t);
  }
  // NaN and infinite operands: the fast path declines them
  for (int i = 0; i < 20000; ++i) {
    u32 x[3] = {static_cast<u32>(rng()) & 0xFFFFu, static_cast<u32>(rng()) & 0xFFFFu, static_cast<u32>(rng()) & 0xFFFFu};
    const int which = static_cast<int>(rng() % 3);
    x[which] = (x[which] & 0x83FFu) | 0x7C00u;               // an infinity or a NaN
    if (rng() % 4 == 0) x[(which + 1) % 3] &= 0x8000u;        // sometimes a zero beside it (0 * inf)
    check<M>(x[0], x[1], x[2], true, t);
  }
}

/// lf::fma on spans over every triple t collected, on each vector path, grouped by the core's flags.
void check_fma_spans(lf::rounding m, tally& t) {
  std::vector<std::vector<lf::fp16>> ga(32), gb(32), gc(32);
  std::vector<std::vector<std::uint16_t>> gw(32);
  const auto h = [](std::uint16_t x) { return lf::fp16::from_bits(x); };
  for (std::size_t i = 0; i < t.a.size(); ++i) {
    const int f = t.flags[i];
    ga[f].push_back(h(t.a[i]));
    gb[f].push_back(h(t.b[i]));
    gc[f].push_back(h(t.c[i]));
    gw[f].push_back(t.want[i]);
  }
  for (const auto path : {lf::array_dispatch::avx2, lf::array_dispatch::avx512}) {
    const auto previous = lf::set_array_dispatch(path);
    const bool have = lf::array_dispatch_in_use() == path;
    if (have)
      for (int f = 0; f < 32; ++f) {
        std::vector<lf::fp16> out(ga[f].size());
        const lf::status st = lf::fma(ga[f], gb[f], gc[f], out, m);
        if (!ga[f].empty() && lf::to_bits(st) != f)
          t.note(std::string("span ") + lf::array_dispatch_name(path) + ": group with core flags " + std::to_string(f) +
                 ": flags " + std::to_string(lf::to_bits(st)));
        for (std::size_t k = 0; k < out.size(); ++k)
          if (out[k].bits() != gw[f][k])
            t.note(describe((std::string("span ") + lf::array_dispatch_name(path)).c_str(), ga[f][k].bits(),
                            gb[f][k].bits(), gc[f][k].bits(), out[k].bits(), static_cast<lf::status>(f), gw[f][k],
                            static_cast<lf::status>(f)));
        t.spans += out.size();
      }
    lf::set_array_dispatch(previous);
  }
}

constexpr lf::rounding modes[] = {lf::rounding::nearest_even, lf::rounding::nearest_away, lf::rounding::toward_zero,
                                  lf::rounding::upward,       lf::rounding::downward,     lf::rounding::odd};

template <std::size_t I = 0>
void check_modes(std::uint64_t seed, int fractions, tally (&t)[6]) {
  if constexpr (I < 6) {
    std::mt19937_64 rng(seed * 6 + I);
    check_mode<modes[I]>(rng, fractions, t[I]);
    check_fma_spans(modes[I], t[I]);
    check_modes<I + 1>(seed, fractions, t);
  }
}

template <lf::rounding M>
void check_mul32(u32 a, u32 b, bool with_typed, tally& t) {
  const lf::env e{M};
  lf::status ws{}, gs{}, fs{};
  const lf::bits_t want = lf::detail::mul_inline<lf::binary32>(lf::binary32, a, b, e, ws);
  ++t.triples;
  const lf::bits_t got = mul32_entry(a, b, e, gs);
  const auto describe32 = [&](const char* who, lf::bits_t g, lf::status s) {
    char buf[160];
    std::snprintf(buf, sizeof buf, "%s mul(0x%08x, 0x%08x): 0x%08llx flags %u, core 0x%08llx flags %u", who, a, b,
                  static_cast<unsigned long long>(g), lf::to_bits(s), static_cast<unsigned long long>(want),
                  lf::to_bits(ws));
    return std::string(buf);
  };
  if (got != want || gs != ws) t.note(describe32("entry", got, gs));
  const bool fin = ((a >> 23) & 0xFFu) != 0xFFu && ((b >> 23) & 0xFFu) != 0xFFu;
  t.finite += fin;
  lf::bits_t fr = 0;
  if (lf::detail::binary32_fast_mul(M, a, b, e, fs, fr)) {
    ++t.taken;
    if (fr != want || fs != ws) t.note(describe32("fast", fr, fs));
  }
  if (with_typed) {
    lf::status ts{};
    const lf::fp32 r = lf::mul(lf::fp32::from_bits(a), lf::fp32::from_bits(b), M, &ts);
    ++t.typed;
    if (r.bits() != want || ts != ws) t.note(describe32("typed", r.bits(), ts));
  }
}

template <lf::rounding M>
void check_mul32_mode(std::mt19937_64& rng, int fractions, tally& t) {
  std::uint64_t n = 0;
  const auto frac = [&rng] { return static_cast<u32>(rng() & 0x7FFFFFu); };
  for (u32 ea = 0; ea < 255; ++ea)
    for (u32 eb = 0; eb < 255; ++eb)
      for (u32 signs = 0; signs < 4; ++signs)
        for (int k = 0; k < fractions; ++k)
          check_mul32<M>(((signs & 1u) << 31) | (ea << 23) | frac(), ((signs & 2u) << 30) | (eb << 23) | frac(),
                         ++n % 61 == 0, t);
  for (int i = 0; i < 20000; ++i) {  // NaN and infinite operands: declined
    u32 x[2] = {static_cast<u32>(rng()), static_cast<u32>(rng())};
    const int which = static_cast<int>(rng() % 2);
    x[which] |= 0x7F800000u;                                   // an infinity or a NaN
    if (rng() % 4 == 0) x[1 - which] &= 0x80000000u;           // sometimes a zero beside it (0 * inf)
    check_mul32<M>(x[0], x[1], true, t);
  }
}

template <std::size_t I = 0>
void check_mul32_modes(std::uint64_t seed, int fractions, tally (&t)[6]) {
  if constexpr (I < 6) {
    std::mt19937_64 rng(seed * 6 + I + 1000);
    check_mul32_mode<modes[I]>(rng, fractions, t[I]);
    check_mul32_modes<I + 1>(seed, fractions, t);
  }
}

/// The day's seed and the number of random fractions per exponent combination (printed).
struct sample {
  std::uint64_t seed;
  int fractions;
};
sample todays_sample(const char* what) {
  const proof::selection sel = proof::select_chunks();
  const sample s{sel.all ? 0x5EEDu : static_cast<std::uint64_t>(sel.day), sel.all ? 64 : 4};  // all: 16 times as many
  std::printf("%s fast path: seed %llu (%s), %d random fractions per exponent and sign combination\n", what,
              static_cast<unsigned long long>(s.seed), sel.how.c_str(), s.fractions);
  return s;
}

/// Per mode: no mismatch, every finite case taken by the fast path (and only those), at least
/// `min_finite` of them, some through the typed entry point.
void verdict(const tally (&t)[6], std::uint64_t min_finite) {
  for (std::size_t i = 0; i < 6; ++i) {
    INFO(lf::rounding_name(modes[i]) << ": " << t[i].mismatches << " mismatches of " << t[i].triples << "; first: "
                                     << t[i].first);
    CHECK(t[i].mismatches == 0);
    CHECK(t[i].taken == t[i].finite);
    CHECK(t[i].finite >= min_finite);
    CHECK(t[i].typed > 0);
  }
}

/// binary32 spans: one operation's operand sets in one direction, and the core's result and flags.
enum class op32 { add, sub, mul, div, fma };
const char* op32_name(op32 o) {
  switch (o) {
    case op32::add: return "add";
    case op32::sub: return "sub";
    case op32::mul: return "mul";
    case op32::div: return "div";
    case op32::fma: return "fma";
  }
  return "?";
}
struct sets32 {
  std::vector<u32> a, b, c, want;
  std::vector<std::uint8_t> flags;
  void add(op32 o, u32 x, u32 y, u32 z, const lf::env& e) {
    lf::status st{};
    lf::bits_t r = 0;
    switch (o) {
      case op32::add: r = lf::detail::add_inline(lf::binary32, x, y, e, st); break;
      case op32::sub: r = lf::detail::sub_inline(lf::binary32, x, y, e, st); break;
      case op32::mul: r = lf::detail::mul_inline(lf::binary32, x, y, e, st); break;
      case op32::div: r = lf::detail::div_inline(lf::binary32, x, y, e, st); break;
      case op32::fma: r = lf::detail::fma_inline(lf::binary32, x, y, z, e, st); break;
    }
    a.push_back(x), b.push_back(y), c.push_back(z), want.push_back(static_cast<u32>(r));
    flags.push_back(lf::to_bits(st));
  }
};

/// The span operation o on each vector path, grouped by the core's flags: bits and group flags.
/// Returns the elements checked; mismatches go to t.
std::uint64_t check_spans32(op32 o, lf::rounding m, const sets32& s, tally& t) {
  std::vector<std::vector<lf::fp32>> ga(32), gb(32), gc(32);
  std::vector<std::vector<u32>> gw(32);
  for (std::size_t i = 0; i < s.a.size(); ++i) {
    const int f = s.flags[i];
    ga[f].push_back(lf::fp32::from_bits(s.a[i]));
    gb[f].push_back(lf::fp32::from_bits(s.b[i]));
    gc[f].push_back(lf::fp32::from_bits(s.c[i]));
    gw[f].push_back(s.want[i]);
  }
  std::uint64_t checked = 0;
  for (const auto path : {lf::array_dispatch::avx2, lf::array_dispatch::avx512}) {
    const auto previous = lf::set_array_dispatch(path);
    if (lf::array_dispatch_in_use() == path)
      for (int f = 0; f < 32; ++f) {
        if (ga[f].empty()) continue;
        std::vector<lf::fp32> out(ga[f].size());
        const lf::env e{m};
        // (in two calls: the whole blocks of the vector kernel, then the rest, so that each part's
        // flags must be the group's by themselves: a flag the kernel drops is not covered by the tail)
        const std::size_t n = out.size(), cut = n - n % lf::detail::binary32_span_block;
        for (const auto& [from, to] : {std::pair{std::size_t{0}, cut}, std::pair{cut, n}}) {
          if (from == to) continue;
          const auto part = [&](auto& v) { return std::span(v).subspan(from, to - from); };
          const std::span<const lf::fp32> pa = part(ga[f]), pb = part(gb[f]), pc = part(gc[f]);
          const std::span<lf::fp32> po = part(out);
          lf::status st{};
          switch (o) {
            case op32::add: st = lf::add(pa, pb, po, e); break;
            case op32::sub: st = lf::sub(pa, pb, po, e); break;
            case op32::mul: st = lf::mul(pa, pb, po, e); break;
            case op32::div: st = lf::div(pa, pb, po, e); break;
            case op32::fma: st = lf::fma(pa, pb, pc, po, e); break;
          }
          if (lf::to_bits(st) != f) {
            char buf[220];
            std::snprintf(buf, sizeof buf, "span %s %s %s: elements %zu..%zu of the group with core flags %d: flags %u",
                          op32_name(o), lf::array_dispatch_name(path), lf::rounding_name(m).data(), from, to, f,
                          lf::to_bits(st));
            t.note(buf);
          }
        }
        char buf[220];
        for (std::size_t k = 0; k < out.size(); ++k)
          if (out[k].bits() != gw[f][k]) {
            std::snprintf(buf, sizeof buf, "span %s %s %s (0x%08x, 0x%08x, 0x%08x): 0x%08x, core 0x%08x", op32_name(o),
                          lf::array_dispatch_name(path), lf::rounding_name(m).data(), ga[f][k].bits(), gb[f][k].bits(),
                          gc[f][k].bits(), out[k].bits(), gw[f][k]);
            t.note(buf);
          }
        checked += out.size();
      }
    lf::set_array_dispatch(previous);
  }
  return checked;
}

/// The operand sets of the file comment for o in direction m.
sets32 make_sets32(op32 o, lf::rounding m, std::mt19937_64& rng, int fractions) {
  sets32 s;
  const lf::env e{m};
  const auto frac = [&rng] { return static_cast<u32>(rng() & 0x7FFFFFu); };
  // (a NaN's fraction must not be 0: that is the infinity; half of them signaling)
  const auto with = [&](u32 sign, u32 ex) {
    u32 f = frac();
    if (ex == 255 && f == 0 && rng() % 2 == 0) f = 1;
    return (sign << 31) | (ex << 23) | f;
  };
  if (o != op32::fma) {
    for (u32 ea = 0; ea < 256; ++ea)
      for (u32 eb = 0; eb < 256; ++eb)
        for (u32 signs = 0; signs < 4; ++signs)
          for (int k = 0; k < fractions; ++k) s.add(o, with(signs & 1u, ea), with(signs >> 1, eb), 0, e);
  } else {
    for (u32 ea = 0; ea < 256; ++ea)
      for (u32 eb = 0; eb < 256; ++eb)
        for (u32 signs = 0; signs < 8; ++signs) {
          // the addend: at the product's exponent and up to 30 away (cancellation, sticky bits), or anywhere
          const int ep = static_cast<int>(ea) + static_cast<int>(eb) - 127;
          const int ec_near = ep + static_cast<int>(rng() % 61) - 30;
          const u32 ec = rng() % 4 == 0 || ec_near < 0 || ec_near > 255 ? static_cast<u32>(rng() % 256) : static_cast<u32>(ec_near);
          s.add(o, with(signs & 1u, ea), with((signs >> 1) & 1u, eb), with(signs >> 2, ec), e);
        }
  }
  return s;
}

}  // namespace

TEST_CASE("binary32 span operations on the vector paths == core: every exponent pair and sign, zeros, "
          "subnormals, infinities, NaNs") {
  const sample s = todays_sample("binary32 span");
  for (const auto path : {lf::array_dispatch::avx2, lf::array_dispatch::avx512}) {
    const auto previous = lf::set_array_dispatch(path);
    std::printf("  binary32 spans, path %s: %s\n", lf::array_dispatch_name(path),
                lf::array_dispatch_in_use() == path ? "checked" : "SKIPPED: not on this CPU");
    lf::set_array_dispatch(previous);
  }
  const int fractions = s.fractions > 4 ? 4 : 1;
  for (const op32 o : {op32::add, op32::sub, op32::mul, op32::div, op32::fma}) {
    std::uint64_t sets = 0, checked = 0;
    tally t;
    for (std::size_t i = 0; i < 6; ++i) {
      std::mt19937_64 rng(s.seed * 31 + static_cast<std::uint64_t>(o) * 7 + i + 5000);
      const sets32 v = make_sets32(o, modes[i], rng, fractions);
      sets += v.a.size();
      checked += check_spans32(o, modes[i], v, t);
    }
    std::printf("  binary32 span %s: %llu operand sets x 6 directions, %llu span elements checked, %llu mismatches\n",
                op32_name(o), static_cast<unsigned long long>(sets), static_cast<unsigned long long>(checked),
                static_cast<unsigned long long>(t.mismatches));
    INFO(op32_name(o) << ": first: " << t.first);
    CHECK(t.mismatches == 0);
  }
}

TEST_CASE("binary32 mul fast path == core: every exponent pair and sign, non-finite operands") {
  const sample s = todays_sample("binary32 mul");
  tally t[6];
  check_mul32_modes(s.seed, s.fractions, t);
  verdict(t, 65025u * 4u * static_cast<std::uint64_t>(s.fractions));
}

TEST_CASE("binary16 fma fast path == core: every exponent triple and sign, cancellation, non-finite operands") {
  const sample s = todays_sample("binary16 fma");
  for (const auto path : {lf::array_dispatch::avx2, lf::array_dispatch::avx512}) {
    const auto previous = lf::set_array_dispatch(path);
    std::printf("  span fma, path %s: %s\n", lf::array_dispatch_name(path),
                lf::array_dispatch_in_use() == path ? "checked" : "SKIPPED: not on this CPU");
    lf::set_array_dispatch(previous);
  }
  tally t[6];
  check_modes(s.seed, s.fractions, t);
  verdict(t, 29791u * 8u * static_cast<std::uint64_t>(s.fractions));
  const auto previous = lf::set_array_dispatch(lf::array_dispatch::avx2);
  if (lf::array_dispatch_in_use() == lf::array_dispatch::avx2)
    for (const tally& x : t) CHECK(x.spans >= x.triples);  // every triple on the vector path(s)
  lf::set_array_dispatch(previous);
}
