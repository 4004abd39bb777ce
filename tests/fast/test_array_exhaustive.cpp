// The proof of the span kernels (fast/array_kernels.hpp, fast/array_lane.hpp, chosen by
// fast/cpu_dispatch.hpp): on its whole domain, every array path gives what the scalar core gives.
//
// Domain: every float (all 2^32 binary32 encodings) through lf::convert on spans (core/array.hpp)
// into binary16, bfloat16, tf32, E4M3 and E5M2, in every rounding mode (the six deterministic ones,
// and stochastic with a fixed seed) and under six policies: the default, flush-to-zero,
// denormals-are-zero, saturation, tininess before rounding, and all four together. The path is forced
// with lf::set_array_dispatch, so the public entry point's own dispatch (narrow_dispatch) picks the
// kernel: the hardware and bit-trick kernels for the (format, mode, default policy) cases they serve,
// the generic lane (narrow_lane) for everything else. Plus widening: every encoding of the five
// formats through lf::widen to float.
//
// The reference is lf::convert(F, binary32, x, env, status), the scalar core (core/arith.hpp), computed
// once per input and (format, mode, policy) and reused by every path the process checks. Per chunk of
// 65536 consecutive encodings:
//   - each element's bits must equal the core's;
//   - the span's returned flags must equal the OR of the core's flags over the chunk;
//   - under the default policy in the deterministic modes, and for bfloat16 in stochastic rounding
//     (where the hardware and bit-trick kernels compute flags apart from the results), the chunk's
//     inputs are then regrouped by the flags the core raises for them, and each group is converted
//     as one span (contiguous, arbitrary length, so the kernels' tails run too): its bits must again
//     equal the core's and its flags must be exactly that group's flags. So an element raising a flag
//     the core does not raise is caught even where its chunk raises that flag elsewhere. (In
//     stochastic rounding an element's random bits depend on its index in the span: there the core's
//     answer for each regrouped span is computed again, with the span's own indices.)
//     Then every ordered pair of those groups, g2's inputs between the two halves of g1's in one
//     span (at most 2048, 2048 and 64 of them): its flags must be g1 | g2. The block kernels stop
//     tracking what the flags raised so far
//     make useless (fast/array_kernels.hpp, scan_level); a pair catches a kernel that stops too
//     early, whose first group's flags would hide the second's (consecutive encodings rarely put a
//     flag's inputs after another's: chunk 0x007F0000 into bfloat16 has its tiny inputs first),
//     and g1's second half keeps g2 out of the span's tail, which the kernels' full loop converts.
// For bfloat16 in nearest even and stochastic rounding under the default policy, lf::quantize (float
// -> bfloat16 -> float, which has one-pass AVX2 and AVX-512 kernels) is checked on the same spans,
// and on each chunk in place too.
// Each chunk starts at a different offset from a 64-byte boundary (chunk index mod 16 floats), so the
// AVX-512 kernels' alignment prologues run too.
//
// Cost: about 125 s of CPU per 1/128 of the whole domain with all four paths (mostly the portable
// lanes under the non-default policies, which do not vectorise at the baseline instruction set), so
// about 4.4 hours for all of it; one day's selection (below) is a small fraction of that.
//
// Environment (each test is single-threaded; ctest runs shards in parallel):
//   LIBFLOAT_PROOF_PATHS       comma-separated paths to check: portable, avx2, avx512, avx512_bf16,
//                              or "all" (the default: every one, the core computed once for all).
//                              When no requested path is on this CPU the test exits 77 (ctest: skipped).
//   LIBFLOAT_EXHAUSTIVE_SHARDS / LIBFLOAT_EXHAUSTIVE_SHARD: this process takes chunks c with
//                              c % SHARDS == SHARD (default 1 / 0).
//   LIBFLOAT_PROOF_PART        all | auto | a day number d: of its chunks, the process checks those with
//                              (c / SHARDS) % 16 == d % 16 under the default policy in the deterministic
//                              modes and for bfloat16 in stochastic rounding (the combinations the
//                              dedicated kernels serve), and those with (c / SHARDS) % 128 == d % 128 for
//                              the other policies and stochastic rounding (the generic lane, most of the cost); auto (the default): d = days since
//                              1970-01-01 UTC, so 16 consecutive days cover the kernels' whole domain and
//                              128 days everything.
//   LIBFLOAT_PROOF_FORMATS, LIBFLOAT_PROOF_MODES, LIBFLOAT_PROOF_POLICIES
//                              comma-separated names (lf::format_name, lf::rounding_name, the policy names
//                              below), or "all" (the default): to prove one kernel after a change, e.g.
//                              FORMATS=bf16 MODES=nearest_even POLICIES=default. A name that is
//                              not one of those fails the test.
//   LIBFLOAT_PROOF_VERDICT     a path name: check nothing; exit 77 (skipped) when the CPU lacks the path,
//                              else 0. ctest registers one such test per path, after the shard tests
//                              (fixture proof_array), so that a missing path shows as skipped, never
//                              as passed, while the shards compute the core once for every path.
// avx512_bf16 differs from avx512 only for bfloat16, nearest even, default policy (narrow_dispatch,
// core/array.hpp: every other case takes the same calls on both), so for that path only that case is
// checked; the widening is checked on every path.
#include <libfloat/libfloat.hpp>

#include <doctest/doctest.h>

#include "proof_selection.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace {

using u32 = std::uint32_t;
constexpr std::size_t chunk = std::size_t{1} << 16;
constexpr std::size_t n_chunks = std::size_t{1} << 16;
constexpr std::uint64_t seed = 0x5EED;
// Two rotations (tests/fast/proof_selection.hpp). The combinations the dedicated kernels serve
// (kernel_tier: the default policy in a deterministic mode, and bfloat16 in stochastic rounding) run
// on one sixteenth of the chunks a day; the others (the generic lane under the non-default policies,
// and stochastic rounding into the other formats) on one 128th, because
// they are most of the cost and one code path: sixteen consecutive days cover the kernels' whole
// domain, 128 days everything. (Halved from 8 and 64 on 2026-12-02 to keep CI's .ci/run within its
// 35-minute budget: the part CI proves each day is half as large, the proof the same.)
constexpr int n_parts = 16;
constexpr int n_slow_parts = 128;

std::string hex(std::uint64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
  return buf;
}

using proof::env_num;
using proof::env_str;
using proof::selection;

// ---- what to check -------------------------------------------------------------------------------

struct named_policy {
  const char* name;
  lf::policy p;
};

std::vector<named_policy> policies() {
  std::vector<named_policy> v;
  v.push_back({"default", {}});
  lf::policy p{};
  p.results = lf::subnormal_results::flush_to_zero;
  v.push_back({"FTZ", p});
  p = {};
  p.inputs = lf::subnormal_inputs::treat_as_zero;
  v.push_back({"DAZ", p});
  p = {};
  p.overflow = lf::overflow_policy::saturate;
  v.push_back({"saturate", p});
  p = {};
  p.tininess = lf::tininess::before_rounding;
  v.push_back({"tininess-before", p});
  p.results = lf::subnormal_results::flush_to_zero;
  p.inputs = lf::subnormal_inputs::treat_as_zero;
  p.overflow = lf::overflow_policy::saturate;
  v.push_back({"FTZ+DAZ+saturate+tininess-before", p});
  return v;
}

constexpr lf::rounding modes[] = {lf::rounding::nearest_even, lf::rounding::nearest_away, lf::rounding::toward_zero,
                                  lf::rounding::upward,       lf::rounding::downward,     lf::rounding::odd,
                                  lf::rounding::stochastic};

struct path_info {
  lf::array_dispatch path;
  bool present;
};

/// The paths LIBFLOAT_PROOF_PATHS asks for, each with whether this CPU has it.
std::vector<path_info> requested_paths() {
  const std::string want = env_str("LIBFLOAT_PROOF_PATHS", "all");
  std::vector<path_info> v;
  for (lf::array_dispatch d : {lf::array_dispatch::portable, lf::array_dispatch::avx2, lf::array_dispatch::avx512,
                               lf::array_dispatch::avx512_bf16}) {
    const std::string name = lf::array_dispatch_name(d);
    if (want != "all" && ("," + want + ",").find("," + name + ",") == std::string::npos) continue;
    const auto prev = lf::set_array_dispatch(d);
    const bool present = lf::array_dispatch_in_use() == d;  // a missing path falls back to a lower one
    lf::set_array_dispatch(prev);
    v.push_back({d, present});
  }
  return v;
}

using proof::name_filter;
const name_filter want_format{env_str("LIBFLOAT_PROOF_FORMATS", "all")};
const name_filter want_mode{env_str("LIBFLOAT_PROOF_MODES", "all")};
const name_filter want_policy{env_str("LIBFLOAT_PROOF_POLICIES", "all")};

/// Whether the path has code of its own for this case (see the file comment on avx512_bf16).
bool path_serves(lf::array_dispatch d, const lf::format& f, lf::rounding m, const lf::policy& p) {
  if (d != lf::array_dispatch::avx512_bf16) return true;
  return f == lf::bfloat16 && m == lf::rounding::nearest_even && p == lf::policy{};
}

/// Whether (format, mode, policy) has a kernel of its own, with flag logic of its own (the default
/// policy in a deterministic mode; and bfloat16 in stochastic rounding, fast/array_kernels.hpp's
/// bf16_blocks_avx2): the regrouped passes check it, and it is in the kernels' rotation (1/16 a
/// day), the rest (the generic lane) in the slow one (1/128 a day).
bool kernel_tier(const lf::format& f, lf::rounding m, const lf::policy& p) {
  return p == lf::policy{} && (m != lf::rounding::stochastic || f == lf::bfloat16);
}

// ---- the comparison ------------------------------------------------------------------------------

/// What one (path, format, mode, policy) found.
struct tally {
  std::uint64_t elements = 0, mismatches = 0, flag_mismatches = 0, spans = 0;
  std::string first;
  void note(const std::string& what) {
    if (first.empty()) first = what;
  }
};

/// The core's answer for one chunk.
struct reference {
  std::vector<std::uint32_t> bits = std::vector<std::uint32_t>(chunk);  // tf32 needs 19 bits
  std::vector<std::uint8_t> flags = std::vector<std::uint8_t>(chunk);
  std::uint8_t all = 0;
};

/// The core on a span converted with stream index 0 (element k has index k in stochastic rounding):
/// its bits into want, the OR of its flags returned.
template <lf::format F>
std::uint8_t core_span(std::span<const float> in, std::uint32_t* want, lf::rounding m, const lf::policy& p) {
  std::uint8_t all = 0;
  for (std::size_t k = 0; k < in.size(); ++k) {
    lf::status st{};
    const lf::env e{m, p, m == lf::rounding::stochastic ? lf::detail::stochastic_bits(seed, k) : 0u};
    want[k] = static_cast<std::uint32_t>(lf::convert(F, lf::binary32, std::bit_cast<u32>(in[k]), e, st));
    all |= lf::to_bits(st);
  }
  return all;
}

/// The core, lf::convert itself, instantiated with the format and the mode as constants (flatten:
/// GCC inlines the whole call and folds them; the code is the core's, only specialised).
template <lf::format F, lf::rounding M>
[[gnu::flatten, gnu::noinline]] void core_chunk_fm(const lf::policy& p, u32 base, reference& ref) {
  std::uint8_t all = 0;
  for (std::size_t i = 0; i < chunk; ++i) {
    const u32 x = base + static_cast<u32>(i);
    lf::status st{};
    const std::uint32_t rnd = M == lf::rounding::stochastic ? lf::detail::stochastic_bits(seed, x) : 0u;
    ref.bits[i] = static_cast<std::uint32_t>(lf::convert(F, lf::binary32, x, lf::env{M, p, rnd}, st));
    ref.flags[i] = lf::to_bits(st);
    all |= ref.flags[i];
  }
  ref.all = all;
}

template <lf::format F>
void core_chunk(lf::rounding m, const lf::policy& p, u32 base, reference& ref) {
  switch (m) {
    case lf::rounding::nearest_even: return core_chunk_fm<F, lf::rounding::nearest_even>(p, base, ref);
    case lf::rounding::nearest_away: return core_chunk_fm<F, lf::rounding::nearest_away>(p, base, ref);
    case lf::rounding::toward_zero: return core_chunk_fm<F, lf::rounding::toward_zero>(p, base, ref);
    case lf::rounding::upward: return core_chunk_fm<F, lf::rounding::upward>(p, base, ref);
    case lf::rounding::downward: return core_chunk_fm<F, lf::rounding::downward>(p, base, ref);
    case lf::rounding::odd: return core_chunk_fm<F, lf::rounding::odd>(p, base, ref);
    case lf::rounding::stochastic: return core_chunk_fm<F, lf::rounding::stochastic>(p, base, ref);
  }
}

/// The path's span conversion of in[0..n) (element k has stochastic index index0 + k).
template <lf::format F>
std::uint8_t run_span(std::span<const float> in, std::span<lf::fp<F>> out, lf::rounding m, const lf::policy& p,
                      std::uint64_t index0) {
  if (m == lf::rounding::stochastic) {
    lf::stochastic_source src = lf::stochastic_source{seed}.at(index0);
    return lf::to_bits(lf::convert<F>(in, out, src, p));
  }
  return lf::to_bits(lf::convert<F>(in, out, lf::env{m, p}));
}

/// Compares out[k] with want[k] for k < n and the span's flags with want_flags; inputs for messages.
template <lf::format F>
void compare(std::span<const lf::fp<F>> out, const std::uint32_t* want, std::span<const float> in, std::uint8_t got_flags,
             std::uint8_t want_flags, const std::string& where, tally& t, bool counted = true) {
  std::uint32_t diff = 0;  // a branch-free pass first (it vectorises); the slow one only on a mismatch
  for (std::size_t k = 0; k < out.size(); ++k) diff |= static_cast<std::uint32_t>(out[k].bits()) ^ want[k];
  for (std::size_t k = 0; diff != 0 && k < out.size(); ++k)
    if (out[k].bits() != want[k]) {
      if (t.mismatches++ == 0)
        t.note(where + ": input " + hex(std::bit_cast<u32>(in[k])) + ": core " + hex(want[k]) + ", path " +
               hex(out[k].bits()));
    }
  if (got_flags != want_flags && t.flag_mismatches++ == 0)
    t.note(where + ": flags " + hex(got_flags) + ", core's " + hex(want_flags) + " (first input " +
           (in.empty() ? std::string("-") : hex(std::bit_cast<u32>(in[0]))) + ")");
  if (counted) t.elements += out.size();
  ++t.spans;
}

/// lf::quantize (float -> F -> float) where it has a kernel of its own (bfloat16, nearest even or
/// stochastic, the default policy: fast/array_kernels.hpp's bf16_blocks_avx2 on the avx2 path and in
/// stochastic rounding on the avx512 paths too, bf16_rne_blocks_avx512 in nearest even on those;
/// convert and widen on the portable path): its floats must be the core's results widened (bfloat16's bits
/// << 16, exact) and its flags want_flags; with in_place, also converted in place (a copy of the
/// inputs). Element k has the stochastic index index0 + k.
template <lf::format F>
void check_quantize(std::span<const float> in, const std::uint32_t* want, std::uint8_t want_flags, lf::rounding m,
                    const lf::policy& p, std::uint64_t index0, std::vector<float>& qbuf, bool in_place,
                    const std::string& where, tally& t) {
  if constexpr (F == lf::bfloat16) {
    if (!kernel_tier(F, m, p) || (m != lf::rounding::nearest_even && m != lf::rounding::stochastic)) return;
    for (int pass = 0; pass < (in_place ? 2 : 1); ++pass) {
      const std::span<float> q(qbuf.data(), in.size());
      if (pass == 1) std::copy(in.begin(), in.end(), q.begin());
      const std::span<const float> qin = pass == 1 ? std::span<const float>(q) : in;
      lf::stochastic_source src = lf::stochastic_source{seed}.at(index0);
      const std::uint8_t fl = lf::to_bits(m == lf::rounding::stochastic ? lf::quantize(qin, q, F, src, p)
                                                                        : lf::quantize(qin, q, F, lf::env{m, p}));
      std::uint32_t diff = 0;
      for (std::size_t k = 0; k < in.size(); ++k) diff |= std::bit_cast<u32>(q[k]) ^ (want[k] << 16);
      const std::string how = std::string(pass == 1 ? "quantize in place, " : "quantize, ") + where;
      for (std::size_t k = 0; diff != 0 && k < in.size(); ++k)
        if (std::bit_cast<u32>(q[k]) != want[k] << 16 && t.mismatches++ == 0)
          t.note(how + ": input " + hex(std::bit_cast<u32>(in[k])) + ": core " + hex(want[k] << 16) + ", path " +
                 hex(std::bit_cast<u32>(q[k])));
      if (fl != want_flags && t.flag_mismatches++ == 0)
        t.note(how + ": flags " + hex(fl) + ", core's " + hex(want_flags));
    }
  }
}

/// The per-flags regrouping of one chunk (see the file comment): for each flags value g, the inputs
/// whose core flags are g, packed, with the core's bits.
struct groups {
  std::array<std::size_t, 33> start{};
  std::vector<float> in = std::vector<float>(chunk + 16);
  std::vector<std::uint32_t> want = std::vector<std::uint32_t>(chunk);
  void build(const float* x, const reference& ref) {
    std::array<std::size_t, 32> count{};
    for (std::size_t i = 0; i < chunk; ++i) ++count[ref.flags[i] & 31];
    start[0] = 0;
    for (int g = 0; g < 32; ++g) start[g + 1] = start[g] + count[g];
    std::array<std::size_t, 32> pos{};
    for (int g = 0; g < 32; ++g) pos[g] = start[g];
    for (std::size_t i = 0; i < chunk; ++i) {
      const std::size_t k = pos[ref.flags[i] & 31]++;
      in[k] = x[i];
      want[k] = ref.bits[i];
    }
  }
  std::size_t size(int g) const { return start[g + 1] - start[g]; }
  /// Group g2's inputs between the two halves of g1's, into pair_in / pair_want; returns their number.
  /// At most 2048 of each (two blocks of the kernels, every lane) and 64 of g1's second half.
  std::vector<float> pair_in = std::vector<float>(chunk);
  std::vector<std::uint32_t> pair_want = std::vector<std::uint32_t>(chunk);
  std::size_t build_pair(int g1, int g2) {
    const auto upto = [](std::size_t lo, std::size_t hi, std::size_t most) { return hi - lo < most ? hi : lo + most; };
    const std::size_t half = start[g1] + (size(g1) + 1) / 2;
    const std::pair<std::size_t, std::size_t> parts[] = {{start[g1], upto(start[g1], half, 2048)},
                                                         {start[g2], upto(start[g2], start[g2 + 1], 2048)},
                                                         {half, upto(half, start[g1 + 1], 64)}};
    std::size_t k = 0;
    for (const auto& [lo, hi] : parts)
      for (std::size_t i = lo; i < hi; ++i, ++k) {
        pair_in[k] = in[i];
        pair_want[k] = want[i];
      }
    return k;
  }
};

struct run_stats {
  std::uint64_t chunks = 0, failures = 0;
  double core_s = 0, path_s = 0;
};

/// CPU seconds of this (single-threaded) process: what the budget counts, whatever the load.
double cpu_now() { return static_cast<double>(std::clock()) / CLOCKS_PER_SEC; }
double seconds_since(double t0) { return cpu_now() - t0; }

/// Checks format F on the selected chunks for every mode, policy and present path.
template <lf::format F>
void prove_format(const std::vector<path_info>& paths, const selection& sel, run_stats& stats) {
  using T = lf::fp<F>;
  if (!want_format(lf::format_name(F))) return;
  const auto pols = policies();
  const std::size_t n_modes = std::size(modes);
  const auto wanted = [&](std::size_t mi, std::size_t pi) {
    return want_mode(std::string(lf::rounding_name(modes[mi]))) && want_policy(pols[pi].name);
  };
  // tallies[path][mode][policy]
  std::vector<tally> tallies(paths.size() * n_modes * pols.size());
  std::vector<float> buf(chunk + 16);
  std::vector<T> out(chunk);
  std::vector<float> qbuf(chunk);
  reference ref;
  groups grp;
  std::uint64_t chunks = 0, kernel_chunks = 0, slow_chunks = 0;
  for (std::size_t c = 0; c < n_chunks; ++c) {
    const bool in_kernel = sel.selected(c, n_parts), in_slow = sel.selected(c, n_slow_parts);
    if (!in_kernel && !in_slow) continue;
    ++chunks;
    kernel_chunks += in_kernel;
    slow_chunks += in_slow;
    const u32 base = static_cast<u32>(c * chunk);
    float* in = buf.data() + (c % 16);  // a different alignment per chunk
    for (std::size_t i = 0; i < chunk; ++i) in[i] = std::bit_cast<float>(base + static_cast<u32>(i));
    const std::span<const float> ins(in, chunk);
    for (std::size_t mi = 0; mi < n_modes; ++mi) {
      const lf::rounding m = modes[mi];
      for (std::size_t pi = 0; pi < pols.size(); ++pi) {
        const lf::policy& p = pols[pi].p;
        if (!(kernel_tier(F, m, p) ? in_kernel : in_slow) || !wanted(mi, pi)) continue;
        bool any = false;
        for (const auto& path : paths) any |= path.present && path_serves(path.path, F, m, p);
        if (!any) continue;
        double t0 = cpu_now();
        core_chunk<F>(m, p, base, ref);
        stats.core_s += seconds_since(t0);
        t0 = cpu_now();
        bool grouped = false;
        for (std::size_t k = 0; k < paths.size(); ++k) {
          if (!paths[k].present || !path_serves(paths[k].path, F, m, p)) continue;
          tally& t = tallies[(k * n_modes + mi) * pols.size() + pi];
          lf::set_array_dispatch(paths[k].path);
          const std::uint8_t fl = run_span<F>(ins, std::span<T>(out), m, p, base);
          compare<F>(out, ref.bits.data(), ins, fl, ref.all, "chunk " + hex(base), t);
          check_quantize<F>(ins, ref.bits.data(), ref.all, m, p, base, qbuf, true, "chunk " + hex(base), t);
          // The regrouped pass: where the path has flag logic of its own (the default policy: the
          // hardware and bit-trick kernels; and the lane), not for stochastic rounding (there the
          // regrouped inputs would take other random bits, and other flags: see class_pairs).
          if (m == lf::rounding::stochastic || !(p == lf::policy{})) continue;
          if (!grouped) grp.build(in, ref), grouped = true;
          for (int g = 0; g < 32; ++g) {
            const std::size_t lo = grp.start[g], n = grp.start[g + 1] - lo;
            if (n == 0) continue;
            const std::span<const float> gin(grp.in.data() + lo, n);
            const std::span<T> gout(out.data(), n);
            const std::uint8_t gfl = run_span<F>(gin, gout, m, p, 0);
            compare<F>(gout, grp.want.data() + lo, gin, gfl, static_cast<std::uint8_t>(g),
                       "chunk " + hex(base) + ", inputs with core flags " + hex(g), t);
            check_quantize<F>(gin, grp.want.data() + lo, static_cast<std::uint8_t>(g), m, p, 0, qbuf, false,
                              "chunk " + hex(base) + ", inputs with core flags " + hex(g), t);
          }
          for (int g1 = 0; g1 < 32; ++g1)  // the pairs of groups (see the file comment)
            for (int g2 = 0; g2 < 32; ++g2) {
              if (g1 == g2 || grp.size(g1) == 0 || grp.size(g2) == 0) continue;
              const std::size_t n = grp.build_pair(g1, g2);
              const std::span<const float> pin(grp.pair_in.data(), n);
              const std::span<T> pout(out.data(), n);
              const std::uint8_t pfl = run_span<F>(pin, pout, m, p, 0);
              const std::string where = "chunk " + hex(base) + ", inputs with core flags " + hex(g1) + " then " + hex(g2);
              compare<F>(pout, grp.pair_want.data(), pin, pfl, static_cast<std::uint8_t>(g1 | g2), where, t, false);
              check_quantize<F>(pin, grp.pair_want.data(), static_cast<std::uint8_t>(g1 | g2), m, p, 0, qbuf, false, where,
                                t);
            }
        }
        stats.path_s += seconds_since(t0);
      }
    }
  }
  lf::set_array_dispatch(lf::array_dispatch::automatic);
  stats.chunks = chunks;
  for (std::size_t k = 0; k < paths.size(); ++k) {
    if (!paths[k].present) continue;
    for (std::size_t mi = 0; mi < n_modes; ++mi)
      for (std::size_t pi = 0; pi < pols.size(); ++pi) {
        const tally& t = tallies[(k * n_modes + mi) * pols.size() + pi];
        if (!path_serves(paths[k].path, F, modes[mi], pols[pi].p) || !wanted(mi, pi)) continue;
        const std::string what = std::string(lf::array_dispatch_name(paths[k].path)) + " " + lf::format_name(F) + " " +
                                 std::string(lf::rounding_name(modes[mi])) + " " + pols[pi].name;
        INFO(what << ": " << t.mismatches << " wrong results, " << t.flag_mismatches << " wrong span flags; first: "
                  << t.first);
        CHECK(t.mismatches == 0);
        CHECK(t.flag_mismatches == 0);
        stats.failures += t.mismatches + t.flag_mismatches;
        const bool kernel = kernel_tier(F, modes[mi], pols[pi].p);
        const bool regrouped = kernel && modes[mi] != lf::rounding::stochastic;
        CHECK(t.elements == (regrouped ? 2 : 1) * (kernel ? kernel_chunks : slow_chunks) * chunk);
      }
  }
}

// ---- spans of one class of inputs, then another ------------------------------------------------------

/// Classes of binary32 inputs from across the whole range, 2112 each (k = 0, 1, ...; odd k negative
/// where it says so): the flags each class raises are mostly its own (for bfloat16 exactly so in the
/// deterministic modes, and in stochastic rounding whatever an element's random bits), which the
/// chunks of consecutive encodings cannot give in stochastic rounding: the regrouped pass does not run
/// there, since a regrouped element takes other random bits and may raise other flags.
constexpr std::size_t class_size = 2112;
u32 class_input(int cls, u32 k) {
  const u32 sign = (k & 1) << 31;
  switch (cls) {
    case 0: return sign | (0x3F800001u + k * 7919u);           // normal, inexact
    case 1: return sign | ((0x3F80u + k) << 16);               // bfloat16 values (exact there)
    case 2: return sign | (1u + k * 3967u);                    // subnormal: tiny, mostly inexact
    case 3: return sign | (0x007F8001u + k * 15u);             // just below 2^-126: tiny or not
    case 4: return sign | (0x7F7F0001u + k * 31u);             // above bfloat16's largest finite value
    case 5: return sign | (0x477FE000u + k);                   // around binary16's largest finite value
    case 6: return (k & 2 ? 0x80000000u : 0u) | (k & 1 ? 0x7F800000u : 0u);  // zeros and infinities
    default: return (k & 1 ? 0x7FC00000u : 0x7F800001u) + k;   // quiet and signaling NaNs
  }
}
constexpr int n_classes = 8;

/// For each (format, mode) with a kernel of its own (kernel_tier, default policy) and each present
/// path: every class alone, and every ordered pair of classes X, Y as one span: X's first 2048
/// inputs, Y's 2048, X's last 64 (as the regrouped pairs: a kernel that stops tracking a flag once
/// X's flags are raised misses Y's). Bits and flags against the core on the same span (core_span).
template <lf::format F>
void class_pairs(const std::vector<path_info>& paths, run_stats& stats) {
  using T = lf::fp<F>;
  if (!want_format(lf::format_name(F)) || !want_policy("default")) return;
  std::vector<float> in(2 * class_size + 16);
  std::vector<T> out(2 * class_size);
  std::vector<float> qbuf(2 * class_size);
  std::vector<std::uint32_t> want(2 * class_size);
  for (const lf::rounding m : modes) {
    if (!kernel_tier(F, m, lf::policy{}) || !want_mode(std::string(lf::rounding_name(m)))) continue;
    for (const auto& path : paths) {
      if (!path.present || !path_serves(path.path, F, m, lf::policy{})) continue;
      lf::set_array_dispatch(path.path);
      tally t;
      for (int x = 0; x < n_classes; ++x)
        for (int y = -1; y < n_classes; ++y) {  // y = -1: class x alone
          if (y == x) continue;
          std::size_t n = 0;
          float* span = in.data() + (x + y + 1) % 16;  // a different alignment per pair
          const auto put = [&](int cls, u32 k0, u32 k1) {
            for (u32 k = k0; k < k1; ++k) span[n++] = std::bit_cast<float>(class_input(cls, k));
          };
          if (y < 0) {
            put(x, 0, class_size);
          } else {
            put(x, 0, 2048);
            put(y, 0, 2048);
            put(x, 2048, class_size);
          }
          const std::span<const float> sin(span, n);
          const std::uint8_t want_flags = core_span<F>(sin, want.data(), m, lf::policy{});
          const std::span<T> sout(out.data(), n);
          const std::uint8_t fl = run_span<F>(sin, sout, m, lf::policy{}, 0);
          const std::string where = "input class " + std::to_string(x) + (y < 0 ? "" : " then " + std::to_string(y));
          compare<F>(sout, want.data(), sin, fl, want_flags, where, t);
          check_quantize<F>(sin, want.data(), want_flags, m, lf::policy{}, 0, qbuf, true, where, t);
        }
      const std::string what = std::string(lf::array_dispatch_name(path.path)) + " " + lf::format_name(F) + " " +
                               std::string(lf::rounding_name(m)) + " default, input classes";
      INFO(what << ": " << t.mismatches << " wrong results, " << t.flag_mismatches << " wrong span flags; first: "
                << t.first);
      CHECK(t.mismatches == 0);
      CHECK(t.flag_mismatches == 0);
      CHECK(t.spans == static_cast<std::uint64_t>(n_classes * n_classes));
      stats.failures += t.mismatches + t.flag_mismatches;
    }
  }
  lf::set_array_dispatch(lf::array_dispatch::automatic);
}

/// Every encoding of F through lf::widen to float on each present path, against the core (exact,
/// invalid for a signaling NaN).
template <lf::format F>
void prove_widen(const std::vector<path_info>& paths, run_stats& stats) {
  using T = lf::fp<F>;
  const std::size_t n = std::size_t{1} << F.bits();
  std::vector<T> in(n + 16);
  std::vector<float> out(n);
  std::vector<u32> want(n);
  lf::status want_all{};
  for (std::size_t i = 0; i < n; ++i) {
    in[i + 3] = T::from_bits(static_cast<typename T::storage_type>(i));  // off a 64-byte boundary
    want[i] = static_cast<u32>(lf::convert(lf::binary32, F, i, lf::env{}, want_all));
  }
  for (const auto& path : paths) {
    if (!path.present) continue;
    lf::set_array_dispatch(path.path);
    const lf::status st = lf::widen<F>(std::span<const T>(in.data() + 3, n), std::span<float>(out));
    std::size_t bad = 0;
    std::string first;
    for (std::size_t i = 0; i < n; ++i)
      if (std::bit_cast<u32>(out[i]) != want[i] && bad++ == 0)
        first = hex(i) + ": core " + hex(want[i]) + ", path " + hex(std::bit_cast<u32>(out[i]));
    INFO(lf::array_dispatch_name(path.path) << " widen " << lf::format_name(F) << ": " << bad << " wrong; " << first);
    CHECK(bad == 0);
    CHECK(st == want_all);
    stats.failures += bad + (st != want_all);
  }
  lf::set_array_dispatch(lf::array_dispatch::automatic);
}

}  // namespace

TEST_CASE("span kernels = the core on all 2^32 floats (the selected part), every path, format, mode, policy") {
  const selection sel = proof::select_chunks();
  const std::string verdict = env_str("LIBFLOAT_PROOF_VERDICT", "");
  if (!verdict.empty()) {  // the per-path verdict: see the file comment
    bool present = false, known = false;
    for (lf::array_dispatch d : {lf::array_dispatch::portable, lf::array_dispatch::avx2, lf::array_dispatch::avx512,
                                 lf::array_dispatch::avx512_bf16})
      if (verdict == lf::array_dispatch_name(d)) {
        known = true;
        const auto prev = lf::set_array_dispatch(d);
        present = lf::array_dispatch_in_use() == d;
        lf::set_array_dispatch(prev);
      }
    REQUIRE_MESSAGE(known, "LIBFLOAT_PROOF_VERDICT=" << verdict << " names no path");
    if (!present) {
      std::printf("array proof: %s SKIPPED: this CPU lacks it, so it is NOT proven here\n", verdict.c_str());
      std::fflush(stdout);
      std::exit(77);  // ctest SKIP_RETURN_CODE
    }
    std::printf("array proof: %s is on this CPU and was checked by the shard tests (ctest fixture proof_array, run "
                "before this one; it fails if any of them failed) on %s\n", verdict.c_str(), sel.how.c_str());
    return;
  }
  const auto paths = requested_paths();
  bool any = false;
  std::string which;
  for (const auto& p : paths) {
    which += std::string(" ") + lf::array_dispatch_name(p.path) + (p.present ? "" : " (SKIPPED: not on this CPU)");
    any |= p.present;
  }
  REQUIRE_MESSAGE(!paths.empty(), "LIBFLOAT_PROOF_PATHS names no path (portable, avx2, avx512, avx512_bf16, all)");
  {
    std::vector<std::string> formats, mode_names, policy_names;
    for (const lf::format& f : {lf::binary16, lf::bfloat16, lf::tfloat32, lf::float8_e4m3fn, lf::float8_e5m2})
      formats.emplace_back(lf::format_name(f));
    for (lf::rounding m : modes) mode_names.emplace_back(lf::rounding_name(m));
    for (const auto& p : policies()) policy_names.emplace_back(p.name);
    const auto join = [](const std::vector<std::string>& v) {
      std::string r;
      for (const auto& x : v) r += (r.empty() ? "" : ", ") + x;
      return r;
    };
    REQUIRE_MESSAGE(want_format.unknown(formats).empty(), "LIBFLOAT_PROOF_FORMATS: no format " << want_format.unknown(formats)
                                                          << "; accepted: all, " << join(formats));
    REQUIRE_MESSAGE(want_mode.unknown(mode_names).empty(), "LIBFLOAT_PROOF_MODES: no mode " << want_mode.unknown(mode_names)
                                                           << "; accepted: all, " << join(mode_names));
    REQUIRE_MESSAGE(want_policy.unknown(policy_names).empty(), "LIBFLOAT_PROOF_POLICIES: no policy "
                                                                   << want_policy.unknown(policy_names)
                                                                   << "; accepted: all, " << join(policy_names));
    if (want_format.list != "all" || want_mode.list != "all" || want_policy.list != "all")
      std::printf("array proof: only formats %s, modes %s, policies %s (LIBFLOAT_PROOF_FORMATS / _MODES / _POLICIES)\n",
                  want_format.list.c_str(), want_mode.list.c_str(), want_policy.list.c_str());
  }
  std::printf("array proof: paths%s\n", which.c_str());
  std::printf("array proof: chunks of 65536 floats c (inputs c * 65536 ...) with c %% %zu == %zu", sel.shards, sel.shard);
  std::printf(": %s", sel.how.c_str());
  if (!sel.all)
    std::printf("; of those, %s for default policy and deterministic modes (and bfloat16 stochastic), %s for the "
                "other policies and stochastic rounding", sel.part_text(n_parts).c_str(), sel.part_text(n_slow_parts).c_str());
  std::printf("\n");
  std::fflush(stdout);
  if (!any) {
    std::printf("array proof: SKIPPED: no requested path is on this CPU; nothing is proven\n");
    std::fflush(stdout);
    std::exit(77);  // ctest SKIP_RETURN_CODE
  }
  const double t0 = cpu_now();
  run_stats stats;
  prove_format<lf::binary16>(paths, sel, stats);
  prove_format<lf::bfloat16>(paths, sel, stats);
  prove_format<lf::tfloat32>(paths, sel, stats);
  prove_format<lf::float8_e4m3fn>(paths, sel, stats);
  prove_format<lf::float8_e5m2>(paths, sel, stats);
  if (sel.shard == 0) {  // 2^16 encodings at most: once, in shard 0, whatever the part
    class_pairs<lf::binary16>(paths, stats);
    class_pairs<lf::bfloat16>(paths, stats);
    class_pairs<lf::tfloat32>(paths, stats);
    class_pairs<lf::float8_e4m3fn>(paths, stats);
    class_pairs<lf::float8_e5m2>(paths, stats);
    prove_widen<lf::binary16>(paths, stats);
    prove_widen<lf::bfloat16>(paths, stats);
    prove_widen<lf::tfloat32>(paths, stats);
    prove_widen<lf::float8_e4m3fn>(paths, stats);
    prove_widen<lf::float8_e5m2>(paths, stats);
  }
  std::printf("array proof: %llu chunks selected, %.1f s of CPU (core %.1f s, paths %.1f s)\n",
              static_cast<unsigned long long>(stats.chunks), seconds_since(t0), stats.core_s, stats.path_s);
  if (stats.failures == 0)
    std::printf("array proof: proven on this slice for every path above not marked SKIPPED: every element's bits and each span's flags "
                "equal the core's\n");
}

TEST_CASE("the comparison catches one wrong element and one wrong flag") {
  // A real chunk near binary16's overflow threshold, its core reference, then one element and the
  // span flags corrupted: both must be counted.
  const u32 base = 0x477F0000u;  // 65280 up to above 65520 = 65504 + ulp/2
  reference ref;
  core_chunk<lf::binary16>(lf::rounding::nearest_even, {}, base, ref);
  std::vector<float> in(chunk);
  for (std::size_t i = 0; i < chunk; ++i) in[i] = std::bit_cast<float>(base + static_cast<u32>(i));
  std::vector<lf::fp16> out(chunk);
  const std::uint8_t fl = run_span<lf::binary16>(in, std::span<lf::fp16>(out), lf::rounding::nearest_even, {}, base);
  tally ok;
  compare<lf::binary16>(out, ref.bits.data(), in, fl, ref.all, "clean", ok);
  CHECK(ok.mismatches == 0);
  CHECK(ok.flag_mismatches == 0);
  out[1234] = lf::fp16::from_bits(static_cast<std::uint16_t>(out[1234].bits() ^ 1));
  tally bad;
  compare<lf::binary16>(out, ref.bits.data(), in, static_cast<std::uint8_t>(fl & ~lf::to_bits(lf::status::overflow)),
                        ref.all, "corrupted", bad);
  CHECK(bad.mismatches == 1);
  CHECK(bad.flag_mismatches == 1);
}
