// The proof of fast/binary16_ops.hpp: on its whole domain, binary16 add, sub, mul and div with a
// run-time rounding direction give the core's bits and flags.
//
// Domain: all 2^32 pairs (a, b) of binary16 encodings (NaNs, infinities, zeros and subnormals
// included), each of the six deterministic rounding directions, add, sub, mul and div, the default
// policy.
// For each pair three results are compared, bits and flags:
//   - the reference, the core: detail::add_inline / sub_inline / mul_inline / div_inline<lf::binary16>
//     (core/arith.hpp), what the run-time entry points ran before the fast path existed;
//   - the public entry point lf::add / sub / mul / div(lf::binary16, a, b, env{mode}, st), called
//     out of line so that the mode is a run-time value there, as in a simulator: its inline part
//     (detail::*_mode, inline_fast: two normals for mul and div) with that run-time mode,
//     and for what it declines detail::*_of<binary16, mode>, whose fast path (binary16_fast_<op>)
//     takes the other finite pairs (subnormal operands and results) and the core the rest;
//   - the fast path's function itself, detail::binary16_fast_add / sub / mul / div(mode, ...),
//     with the mode a constant as in *_of, wherever it takes the pair; the test also counts the
//     pairs it takes and requires that count to be exactly the pairs of finite operands (for div:
//     with a nonzero divisor), so the fast path cannot silently hand everything to the core.
// The typed entry point lf::add(fp16, fp16, mode, &st) reaches the same instantiation; it is compared
// on every 61st second operand.
// The span operations lf::add / sub / mul / div(a, b, out, mode) (core/array_arith.hpp, with
// fast/binary16_span_ops.hpp on the AVX2 and AVX-512 paths) run on each dispatch path the CPU has
// (a path it lacks is reported skipped, not proven). The vector paths (avx2, avx512) take every
// chunk grouped by the core's flags: every element's bits, and each group's span flags == exactly
// its core flags (so no element raises a flag the core does not, and every flag the group has is
// raised). The portable path, which runs the scalar entry point element by element (compared above
// on every pair), takes every 61st chunk in order: every element's bits, and the span's flags ==
// the OR of the core's.
// (The core itself is checked against an exact-rational oracle on all pairs by
// tests/core/test_pairs16.cpp.)
// A second case runs in every run, whatever the part: div on every pair of significands of normals
// (the table of reciprocals' whole domain) at two pairs of exponents, in each direction (below).
//
// Environment (each test is single-threaded; ctest runs shards in parallel): the chunk c is the
// first operand a (65536 chunks of 65536 pairs).
//   LIBFLOAT_EXHAUSTIVE_SHARDS, LIBFLOAT_EXHAUSTIVE_SHARD, LIBFLOAT_PROOF_PART: as in
//   tests/fast/proof_selection.hpp, with a rotation of 32 parts (32 consecutive days cover all pairs).
//   LIBFLOAT_PROOF_OPS: comma-separated operations (add, sub, mul, div) or "all" (the default), to
//   prove one operation after a change: LIBFLOAT_PROOF_PART=all LIBFLOAT_PROOF_OPS=mul. A name that
//   is not one of those fails the test.
#include <libfloat/libfloat.hpp>

#include <doctest/doctest.h>

#include "proof_selection.hpp"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <span>
#include <vector>
#include <cstdlib>
#include <ctime>
#include <string>
#include <utility>

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
  std::uint64_t pairs = 0, taken = 0, finite_pairs = 0, mismatches = 0, typed = 0, span_elements = 0;
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
/// Out of line, so that e.mode is a run-time value here: the entry point's inline fast path
/// (detail::*_mode, core/detail/runtime_entry.hpp) runs as it does in a caller whose mode varies.
template <op O>
[[gnu::noinline]] lf::bits_t entry(u32 a, u32 b, const lf::env& e, lf::status& st) {
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
  if constexpr (O == op::add)
    return lf::detail::binary16_fast_add(M, a, b, e, st, r);
  else if constexpr (O == op::sub)
    return lf::detail::binary16_fast_sub(M, a, b, e, st, r);
  else if constexpr (O == op::mul)
    return lf::detail::binary16_fast_mul(M, a, b, e, st, r);
  else
    return lf::detail::binary16_fast_div(M, a, b, e, st, r);
}

/// A span element's bits (its flags are only known ORed over the span).
std::string describe_bits(const std::string& who, u32 a, u32 b, lf::bits_t got, lf::bits_t want) {
  return who + " " + hex16(a) + ", " + hex16(b) + ": " + hex16(got) + ", core " + hex16(want);
}

std::string describe(const char* who, u32 a, u32 b, lf::bits_t got, lf::status gs, lf::bits_t want, lf::status ws) {
  return std::string(who) + " " + hex16(a) + ", " + hex16(b) + ": " + hex16(got) + " flags " +
         std::to_string(lf::to_bits(gs)) + ", core " + hex16(want) + " flags " + std::to_string(lf::to_bits(ws));
}

template <op O>
lf::status span_op(std::span<const lf::fp16> a, std::span<const lf::fp16> b, std::span<lf::fp16> out, lf::rounding m) {
  if constexpr (O == op::add) return lf::add(a, b, out, m);
  else if constexpr (O == op::sub) return lf::sub(a, b, out, m);
  else if constexpr (O == op::mul) return lf::mul(a, b, out, m);
  else return lf::div(a, b, out, m);
}

/// The dispatch paths of the span operations, and whether this CPU has each.
constexpr lf::array_dispatch span_paths[] = {lf::array_dispatch::portable, lf::array_dispatch::avx2,
                                             lf::array_dispatch::avx512};
bool path_available(lf::array_dispatch p) {
  const auto previous = lf::set_array_dispatch(p);
  const bool ok = lf::array_dispatch_in_use() == p;
  lf::set_array_dispatch(previous);
  return ok;
}

/// The core's results and flags for one chunk, and the chunk's operands as spans.
struct chunk_data {
  std::vector<lf::fp16> a = std::vector<lf::fp16>(0x10000), b = std::vector<lf::fp16>(0x10000),
                        out = std::vector<lf::fp16>(0x10000);
  std::vector<lf::fp16> ga = std::vector<lf::fp16>(0x10000), gb = std::vector<lf::fp16>(0x10000);
  std::vector<std::uint16_t> want = std::vector<std::uint16_t>(0x10000), gwant = std::vector<std::uint16_t>(0x10000);
  std::vector<std::uint8_t> flags = std::vector<std::uint8_t>(0x10000);
};

/// The span operation on every available path over the chunk (see the file comment).
template <op O, lf::rounding M>
void check_spans(u32 a, chunk_data& d, tally& t) {
  for (u32 b = 0; b < 0x10000u; ++b) {
    d.a[b] = lf::fp16::from_bits(static_cast<std::uint16_t>(a));
    d.b[b] = lf::fp16::from_bits(static_cast<std::uint16_t>(b));
  }
  // the chunk grouped by the core's flags (a counting sort on the 5 flag bits)
  std::size_t start[33] = {};
  for (u32 b = 0; b < 0x10000u; ++b) ++start[d.flags[b] + 1];
  for (int f = 0; f < 32; ++f) start[f + 1] += start[f];
  std::size_t next[32];
  std::copy(start, start + 32, next);
  for (u32 b = 0; b < 0x10000u; ++b) {
    const std::size_t k = next[d.flags[b]]++;
    d.ga[k] = d.a[b];
    d.gb[k] = d.b[b];
    d.gwant[k] = d.want[b];
  }
  const auto previous = lf::set_array_dispatch(lf::array_dispatch::portable);
  for (const auto path : span_paths) {
    // the portable path is the scalar operation element by element (compared above on every pair
    // through the entry point): there, every 61st chunk
    if (path == lf::array_dispatch::portable && a % 61 != 0) continue;
    lf::set_array_dispatch(path);
    if (lf::array_dispatch_in_use() != path) continue;
    const std::string who = std::string("span ") + lf::array_dispatch_name(path);
    t.span_elements += 0x10000u;
    if (path == lf::array_dispatch::portable) {  // the chunk in order
      const lf::status st = span_op<O>(d.a, d.b, d.out, M);
      std::uint32_t all = 0;
      for (u32 b = 0; b < 0x10000u; ++b) {
        all |= d.flags[b];
        if (d.out[b].bits() != d.want[b]) t.note(describe_bits(who, a, b, d.out[b].bits(), d.want[b]));
      }
      if (lf::to_bits(st) != all)
        t.note(who + " chunk " + hex16(a) + ": flags " + std::to_string(lf::to_bits(st)) + ", core's OR " +
               std::to_string(all));
      continue;
    }
    for (int f = 0; f < 32; ++f) {  // the vector paths: each group of equal core flags
      const std::size_t n = start[f + 1] - start[f];
      if (n == 0) continue;
      const std::span<lf::fp16> ga(d.ga.data() + start[f], n), gb(d.gb.data() + start[f], n), go(d.out.data(), n);
      const lf::status gs = span_op<O>(ga, gb, go, M);
      if (lf::to_bits(gs) != f)
        t.note(who + " chunk " + hex16(a) + ": group with core flags " + std::to_string(f) + " (" + std::to_string(n) +
               " pairs): flags " + std::to_string(lf::to_bits(gs)));
      for (std::size_t k = 0; k < n; ++k)
        if (go[k].bits() != d.gwant[start[f] + k])
          t.note(describe_bits(who + " grouped", a, gb[k].bits(), go[k].bits(), d.gwant[start[f] + k]));
    }
  }
  lf::set_array_dispatch(previous);
}

/// All 65536 second operands for the first operand a.
template <op O, lf::rounding M>
void check_chunk(u32 a, tally& t, chunk_data& d) {
  const lf::env e{M};
  for (u32 b = 0; b < 0x10000u; ++b) {
    lf::status ws{}, gs{}, fs{};
    const lf::bits_t want = core<O>(a, b, e, ws);
    d.want[b] = static_cast<std::uint16_t>(want);
    d.flags[b] = lf::to_bits(ws);
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
  check_spans<O, M>(a, d, t);
}

constexpr lf::rounding modes[] = {lf::rounding::nearest_even, lf::rounding::nearest_away, lf::rounding::toward_zero,
                                  lf::rounding::upward,       lf::rounding::downward,     lf::rounding::odd};

template <op O, std::size_t I = 0>
void check_modes(u32 a, tally (&t)[6], chunk_data& d) {
  if constexpr (I < 6) {
    check_chunk<O, modes[I]>(a, t[I], d);
    check_modes<O, I + 1>(a, t, d);
  }
}

}  // namespace

TEST_CASE("binary16 add, sub, mul, div fast path == core on every operand pair (the selected chunks)") {
  const proof::selection sel = proof::select_chunks();
  std::printf("binary16 ops proof: shard %zu of %zu, %s%s%s\n", sel.shard, sel.shards, sel.how.c_str(),
              sel.all ? "" : ": of its first operands, ", sel.all ? "" : sel.part_text(n_parts).c_str());
  for (const auto path : span_paths)
    std::printf("  span operations, path %s: %s\n", lf::array_dispatch_name(path),
                path_available(path) ? "checked" : "SKIPPED: not on this CPU");
  const proof::name_filter want_op{proof::env_str("LIBFLOAT_PROOF_OPS", "all")};
  const std::string unknown_ops = want_op.unknown({"add", "sub", "mul", "div"});
  REQUIRE_MESSAGE(unknown_ops.empty(),
                  "LIBFLOAT_PROOF_OPS: no operation " << unknown_ops << "; accepted: all, add, sub, mul, div");
  bool wanted[4];
  for (int o = 0; o < 4; ++o) wanted[o] = want_op(op_name(static_cast<op>(o)));
  std::printf("  operations: %s\n", want_op.list.c_str());
  tally t[4][6];
  chunk_data d;
  std::size_t chunks = 0;
  for (std::size_t c = 0; c < 0x10000u; ++c) {
    if (!sel.selected(c, n_parts)) continue;
    ++chunks;
    const auto a = static_cast<u32>(c);
    if (wanted[0]) check_modes<op::add>(a, t[0], d);
    if (wanted[1]) check_modes<op::sub>(a, t[1], d);
    if (wanted[2]) check_modes<op::mul>(a, t[2], d);
    if (wanted[3]) check_modes<op::div>(a, t[3], d);
  }
  REQUIRE(chunks > 0);
  for (int o = 0; o < 4; ++o)
    for (int m = 0; m < 6; ++m) {
      if (!wanted[o]) continue;
      const tally& x = t[o][m];
      const std::string what = std::string(op_name(static_cast<op>(o))) + " " + std::string(lf::rounding_name(modes[m]));
      MESSAGE(what << ": " << x.pairs << " pairs (" << chunks << " first operands), fast path took " << x.taken
                   << ", typed calls " << x.typed << ", span elements " << x.span_elements << ", " << x.mismatches
                   << " mismatches");
      if (!x.first.empty()) FAIL_CHECK(what << ": first mismatch: " << x.first);
      CHECK(x.mismatches == 0);
      CHECK(x.taken == x.finite_pairs);  // every pair it serves (see the file comment) goes the fast way
      CHECK(x.taken > 0);
      CHECK(x.span_elements > 0);
    }
}

// The division of normals divides by multiplying with a table of reciprocals
// (binary16_reciprocal_table, fast/binary16_ops.hpp), one entry per divisor significand. A day's part
// of the case above takes 1/32 of the dividend significands; this case takes every pair of
// significands in every run (shard 0 of a sharded run), at two pairs of exponents: 15 and 15
// (quotients in (1/2, 2), normal) and 1 and 16 (quotients in [2^-16, 2^-14): subnormal, rounded
// through round_exact_lane), signs alternating, in each direction: the entry point (run-time mode)
// and the fast path's function (constant mode) against the core, bits and flags.
TEST_CASE("binary16 div: every pair of significands, both operands normal, each direction (every run)") {
  const proof::selection sel = proof::select_chunks();
  if (sel.shard != 0) {
    std::printf("binary16 div significand pairs: run by shard 0\n");
    return;
  }
  std::uint64_t pairs = 0, mismatches = 0;
  std::string first;
  const auto run = [&]<lf::rounding M>() {
    const lf::env e{M};
    for (const auto& [ea, eb] : {std::pair<u32, u32>{15, 15}, std::pair<u32, u32>{1, 16}})
      for (u32 fa = 0; fa < 1024; ++fa)
        for (u32 fb = 0; fb < 1024; ++fb) {
          const u32 a = ((fa & 1u) << 15) | (ea << 10) | fa, b = ((fb & 2u) << 14) | (eb << 10) | fb;
          lf::status ws{}, gs{}, fs{};
          const lf::bits_t want = core<op::div>(a, b, e, ws);
          const lf::bits_t got = entry<op::div>(a, b, e, gs);
          lf::bits_t fr = 0;
          const bool taken = fast<op::div, M>(a, b, e, fs, fr);
          ++pairs;
          if (got != want || gs != ws || !taken || fr != want || fs != ws) {
            if (mismatches++ == 0)
              first = std::string(lf::rounding_name(M)) + ": " + describe("entry", a, b, got, gs, want, ws) + "; " +
                      describe("fast", a, b, fr, fs, want, ws) + (taken ? "" : " (not taken)");
          }
        }
  };
  [&]<std::size_t... I>(std::index_sequence<I...>) { (run.template operator()<modes[I]>(), ...); }
  (std::make_index_sequence<std::size(modes)>{});
  MESSAGE("binary16 div significand pairs: " << pairs << " pairs, " << mismatches << " mismatches");
  if (!first.empty()) FAIL_CHECK("first mismatch: " << first);
  CHECK(pairs == 2u * 1024u * 1024u * 6u);
  CHECK(mismatches == 0);
}
