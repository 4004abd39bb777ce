// The proof of fast/binary16_ops.hpp: on its whole domain, binary16 add, sub, mul and div with a
// run-time rounding direction give the core's bits and flags.
//
// Domain: all 2^32 pairs (a, b) of binary16 encodings (NaNs, infinities, zeros and subnormals
// included), each of the six deterministic rounding directions, add, sub, mul and div, the default
// policy.
// For each pair three results are compared, bits and flags:
//   - the reference, the core: detail::add_inline / sub_inline / mul_inline / div_inline<lf::binary16>
//     (core/arith.hpp), what the run-time entry points ran before the fast path existed;
//   - the public entry point lf::add / sub / mul / div(lf::binary16, a, b, env{mode}, st), which
//     reaches detail::*_of<binary16, mode> and through it the fast path (or, for a NaN or infinite
//     operand or a zero divisor, the core);
//   - the fast path's function itself, detail::binary16_fast_add / sub / mul / div<mode>, wherever
//     it takes the pair; the test also counts the pairs it takes and requires that count to be
//     exactly the pairs of finite operands (for div: with a nonzero divisor), so the fast path
//     cannot silently hand everything to the core.
// The typed entry point lf::add(fp16, fp16, mode, &st) reaches the same instantiation; it is compared
// on every 61st second operand.
// (The core itself is checked against an exact-rational oracle on all pairs by
// tests/core/test_pairs16.cpp.)
//
// Environment (each test is single-threaded; ctest runs shards in parallel): the chunk c is the
// first operand a (65536 chunks of 65536 pairs).
//   LIBFLOAT_EXHAUSTIVE_SHARDS, LIBFLOAT_EXHAUSTIVE_SHARD, LIBFLOAT_PROOF_PART: as in
//   tests/fast/proof_selection.hpp, with a rotation of 32 parts (32 consecutive days cover all pairs).
#include <libfloat/libfloat.hpp>

#include <doctest/doctest.h>

#include "proof_selection.hpp"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <string>

namespace {

using u32 = std::uint32_t;
// A rotation of 32 parts (tests/fast/proof_selection.hpp): 32 consecutive days cover all pairs.
constexpr int n_parts = 32;

std::string hex16(std::uint64_t v) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "0x%04llx", static_cast<unsigned long long>(v));
  return buf;
}

enum class op { add, sub, mul, div };
constexpr const char* op_name(op o) {
  return o == op::add ? "add" : o == op::sub ? "sub" : o == op::mul ? "mul" : "div";
}

/// What one (op, mode) found.
struct tally {
  std::uint64_t pairs = 0, taken = 0, finite_pairs = 0, mismatches = 0, typed = 0;
  std::string first;
  void note(const std::string& what) {
    ++mismatches;
    if (first.empty()) first = what;
  }
};

bool finite16(u32 x) { return (x & 0x7C00u) != 0x7C00u; }

template <op O>
lf::bits_t core(u32 a, u32 b, const lf::env& e, lf::status& st) {
  if constexpr (O == op::add) return lf::detail::add_inline<lf::binary16>(lf::binary16, a, b, e, st);
  else if constexpr (O == op::sub) return lf::detail::sub_inline<lf::binary16>(lf::binary16, a, b, e, st);
  else if constexpr (O == op::mul) return lf::detail::mul_inline<lf::binary16>(lf::binary16, a, b, e, st);
  else return lf::detail::div_inline<lf::binary16>(lf::binary16, a, b, e, st);
}
template <op O>
lf::bits_t entry(u32 a, u32 b, const lf::env& e, lf::status& st) {
  if constexpr (O == op::add) return lf::add(lf::binary16, a, b, e, st);
  else if constexpr (O == op::sub) return lf::sub(lf::binary16, a, b, e, st);
  else if constexpr (O == op::mul) return lf::mul(lf::binary16, a, b, e, st);
  else return lf::div(lf::binary16, a, b, e, st);
}
template <op O>
lf::fp16 typed(lf::fp16 a, lf::fp16 b, lf::rounding m, lf::status* st) {
  if constexpr (O == op::add) return lf::add(a, b, m, st);
  else if constexpr (O == op::sub) return lf::sub(a, b, m, st);
  else if constexpr (O == op::mul) return lf::mul(a, b, m, st);
  else return lf::div(a, b, m, st);
}
template <op O, lf::rounding M>
bool fast(u32 a, u32 b, const lf::env& e, lf::status& st, lf::bits_t& r) {
  if constexpr (O == op::add) return lf::detail::binary16_fast_add<M>(a, b, e, st, r);
  else if constexpr (O == op::sub) return lf::detail::binary16_fast_sub<M>(a, b, e, st, r);
  else if constexpr (O == op::mul) return lf::detail::binary16_fast_mul<M>(a, b, e, st, r);
  else return lf::detail::binary16_fast_div<M>(a, b, e, st, r);
}

std::string describe(const char* who, u32 a, u32 b, lf::bits_t got, lf::status gs, lf::bits_t want, lf::status ws) {
  return std::string(who) + " " + hex16(a) + ", " + hex16(b) + ": " + hex16(got) + " flags " +
         std::to_string(lf::to_bits(gs)) + ", core " + hex16(want) + " flags " + std::to_string(lf::to_bits(ws));
}

/// All 65536 second operands for the first operand a.
template <op O, lf::rounding M>
void check_chunk(u32 a, tally& t) {
  const lf::env e{M};
  for (u32 b = 0; b < 0x10000u; ++b) {
    lf::status ws{}, gs{}, fs{};
    const lf::bits_t want = core<O>(a, b, e, ws);
    const lf::bits_t got = entry<O>(a, b, e, gs);
    ++t.pairs;
    if (got != want || gs != ws) t.note(describe("entry", a, b, got, gs, want, ws));
    const bool finite = finite16(a) && finite16(b) && (O != op::div || (b & 0x7FFFu) != 0);
    t.finite_pairs += finite;
    lf::bits_t fr = 0;
    if (fast<O, M>(a, b, e, fs, fr)) {
      ++t.taken;
      if (fr != want || fs != ws) t.note(describe("fast", a, b, fr, fs, want, ws));
    }
    if (b % 61 == 0) {
      lf::status ts{};
      const lf::fp16 r =
          typed<O>(lf::fp16::from_bits(static_cast<std::uint16_t>(a)), lf::fp16::from_bits(static_cast<std::uint16_t>(b)), M, &ts);
      ++t.typed;
      if (r.bits() != want || ts != ws) t.note(describe("typed", a, b, r.bits(), ts, want, ws));
    }
  }
}

constexpr lf::rounding modes[] = {lf::rounding::nearest_even, lf::rounding::nearest_away, lf::rounding::toward_zero,
                                  lf::rounding::upward,       lf::rounding::downward,     lf::rounding::odd};

template <op O, std::size_t I = 0>
void check_modes(u32 a, tally (&t)[6]) {
  if constexpr (I < 6) {
    check_chunk<O, modes[I]>(a, t[I]);
    check_modes<O, I + 1>(a, t);
  }
}

}  // namespace

TEST_CASE("binary16 add, sub, mul, div fast path == core on every operand pair (the selected chunks)") {
  const proof::selection sel = proof::select_chunks();
  std::printf("binary16 ops proof: shard %zu of %zu, %s%s%s\n", sel.shard, sel.shards, sel.how.c_str(),
              sel.all ? "" : ": of its first operands, ", sel.all ? "" : sel.part_text(n_parts).c_str());
  tally t[4][6];
  std::size_t chunks = 0;
  for (std::size_t c = 0; c < 0x10000u; ++c) {
    if (!sel.selected(c, n_parts)) continue;
    ++chunks;
    const auto a = static_cast<u32>(c);
    check_modes<op::add>(a, t[0]);
    check_modes<op::sub>(a, t[1]);
    check_modes<op::mul>(a, t[2]);
    check_modes<op::div>(a, t[3]);
  }
  REQUIRE(chunks > 0);
  for (int o = 0; o < 4; ++o)
    for (int m = 0; m < 6; ++m) {
      const tally& x = t[o][m];
      const std::string what = std::string(op_name(static_cast<op>(o))) + " " + std::string(lf::rounding_name(modes[m]));
      MESSAGE(what << ": " << x.pairs << " pairs (" << chunks << " first operands), fast path took " << x.taken
                   << ", typed calls " << x.typed << ", " << x.mismatches << " mismatches");
      if (!x.first.empty()) FAIL_CHECK(what << ": first mismatch: " << x.first);
      CHECK(x.mismatches == 0);
      CHECK(x.taken == x.finite_pairs);  // every pair it serves (see the file comment) goes the fast way
      CHECK(x.taken > 0);
    }
}
