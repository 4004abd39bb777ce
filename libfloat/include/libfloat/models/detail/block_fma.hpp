// libfloat/models/detail/block_fma.hpp: the block fused multiply-add of a matrix unit, the general
// path (any formats and parameters), steps 1-5 of the model described in models/matrix_unit.hpp.
// Its one rounding is detail::round_pack's (core/detail/round.hpp); the alignment cut is
// detail::round_shift's. fast/matrix_block.hpp is the same computation for the common cases.
#pragma once

#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include <libfloat/core/arith.hpp>
#include <libfloat/core/detail/round.hpp>
#include <libfloat/core/env.hpp>
#include <libfloat/core/format.hpp>
#include <libfloat/core/status.hpp>
#include <libfloat/models/exact.hpp>
#include <libfloat/models/matrix_unit_types.hpp>

namespace lf::detail {


/// Reads operand i of a dot product: a run-time format plus a function from index to encoding.
template <class Get>
struct operand {
  const format& fmt;
  Get get;
};
template <class Get>
operand(const format&, Get) -> operand<Get>;

inline env unit_env(const matrix_unit& mu, rounding mode) {
  policy p{};
  if (mu.output_subnormals == subnormal_handling::flush) p.results = subnormal_results::flush_to_zero;
  return env{mode, p};
}

/// The output format with output_fraction_bits fraction bits (step 5's rounding target). It keeps
/// the output's kind and exponent bias (the 3-argument constructor would give the kind's standard
/// bias: wrong for a format such as E4M3B11FNUZ), so that the final conversion to the output is exact.
constexpr format unit_kept_format(const matrix_unit& mu) {
  return format{mu.output.exponent_bits, mu.output_fraction_bits + 1, mu.output.kind, mu.output.bias()};
}

__extension__ typedef __int128 late_i128;

/// floor(v / 2^k) for k >= 0 (toward -inf: the core's round_step in rounding::downward on |v|),
/// noting whether bits were dropped.
constexpr late_i128 late_floor_shift(late_i128 v, int k, bool& dropped) {
  const bool neg = v < 0;
  const u128 mag = neg ? u128{0} - static_cast<u128>(v) : static_cast<u128>(v);  // < 2^127
  const step<u128> s = round_step(mag, k, neg, rounding::downward, 0);
  dropped = dropped || s.inexact;
  return neg ? -static_cast<late_i128>(s.kept) : static_cast<late_i128>(s.kept);
}

/// One nonzero product a_i b_i of a late_accumulation block, exact: (-1)^negative sig 2^exp, with
/// align = its alignment exponent e(a_i) + e(b_i) and at = its position in the block.
struct late_product {
  bool negative;
  int exp, align;
  std::size_t at;
  u128 sig;
};

/// The products at the positions of one parity (0 even, 1 odd, -1 all), aligned among themselves
/// (step 3 with emax their largest alignment exponent M, c left out) and summed exactly into S,
/// each truncated toward zero onto the grid 2^(M - F). Returns false when none is nonzero.
inline bool late_half(const matrix_unit& mu, std::span<const late_product> prods, int parity, int& M, late_i128& S,
                      bool& dropped) {
  auto take = [&](const late_product& q) { return parity < 0 || static_cast<int>(q.at % 2) == parity; };
  bool any = false;
  for (const late_product& q : prods)
    if (take(q)) {
      M = any ? (q.align > M ? q.align : M) : q.align;
      any = true;
    }
  S = 0;
  if (!any) return false;
  const int g = M - mu.alignment_bits;
  for (const late_product& q : prods) {
    if (!take(q)) continue;
    u128 k;
    if (q.exp >= g) {
      k = q.sig << (q.exp - g);  // below 2^(F + 2)
    } else {
      const decision<u128> d = round_shift(q.sig, g - q.exp, false, rounding::toward_zero, 0);
      k = d.kept;
      dropped = dropped || d.frac != lost::zero;
    }
    S += q.negative ? -static_cast<late_i128>(k) : static_cast<late_i128>(k);
  }
  return true;
}

/// matrix_unit_model::late_accumulation, one block with finite operands (the file comment of
/// models/matrix_unit.hpp); z is c unpacked.
template <class A, class B>
bits_t late_block(const matrix_unit& mu, const operand<A>& a, const operand<B>& b, std::size_t first, std::size_t n,
                  const unpacked& z, status& st) {
  const format& fo = mu.output;
  const bool daz = mu.input_subnormals == subnormal_handling::flush;
  const int F = mu.alignment_bits;
  const int fba = a.fmt.fraction_bits(), fbb = b.fmt.fraction_bits();
  // The nonzero products, unpacked once (on the stack for the presets' blocks of up to 32).
  constexpr std::size_t on_stack = 32;
  std::array<late_product, on_stack> local;
  std::vector<late_product> heap;
  if (n > on_stack) heap.resize(n);
  late_product* const buf = n > on_stack ? heap.data() : local.data();
  std::size_t count = 0;
  // A product of magnitude 2^(emax + 1) or more makes the block +-inf (NaN with both signs),
  // whatever c and the other products (MATLAB-tensor-core prd_limit = 1; MMA-Sim).
  bool pos_big = false, neg_big = false;
  for (std::size_t i = 0; i < n; ++i) {
    const unpacked x = unpack(a.fmt, a.get(first + i), daz), y = unpack(b.fmt, b.get(first + i), daz);
    if (x.kind == kind::zero || y.kind == kind::zero) continue;
    const u128 p = u128{x.sig} * y.sig;
    const auto hi = static_cast<std::uint64_t>(p >> 64), lo = static_cast<std::uint64_t>(p);
    const int width = hi != 0 ? 64 + std::bit_width(hi) : std::bit_width(lo);
    const bool negative = x.negative != y.negative;
    if (x.exp + y.exp + width - 1 > fo.emax()) (negative ? neg_big : pos_big) = true;  // floor(log2 |a_i b_i|)
    buf[count++] = {negative, x.exp + y.exp, x.exp + fba + y.exp + fbb, i, p};
  }
  if (pos_big && neg_big) {
    st |= status::invalid;
    return fo.default_nan_bits();
  }
  if (pos_big || neg_big) {
    st |= status::overflow | status::inexact;
    return sign_bit(fo, neg_big) | fo.infinity_bits();
  }
  const std::span<const late_product> prods(buf, count);
  bool dropped = false;
  int M = 0;
  late_i128 S = 0;
  bool any;
  if (!mu.odd_even_halves) {
    any = late_half(mu, prods, -1, M, S, dropped);
  } else {
    int Me = 0, Mo = 0;
    late_i128 Se = 0, So = 0;
    const bool ae = late_half(mu, prods, 0, Me, Se, dropped);
    const bool ao = late_half(mu, prods, 1, Mo, So, dropped);
    any = ae || ao;
    if (ae && ao) {  // the half with the smaller exponent floored onto the other's grid
      M = Me > Mo ? Me : Mo;
      S = late_floor_shift(Se, M - Me, dropped) + late_floor_shift(So, M - Mo, dropped);
    } else {
      M = ae ? Me : Mo;
      S = ae ? Se : So;
    }
  }
  // c on the grid 2^(e_c - F): e_c its alignment exponent; a zero c has emin's (MATLAB-tensor-core
  // c_min_exp_limit = 1; MMA-Sim's exponent of a zero) and takes part in the maximum.
  const int fbo = fo.fraction_bits();
  const bool c_zero = z.kind == kind::zero;
  const int ec = c_zero ? fo.emin() : z.exp + fbo;
  const late_i128 C = c_zero ? 0 : (z.negative ? -1 : 1) * (static_cast<late_i128>(z.sig) << (F - fbo));
  late_i128 sum;
  int grid;
  if (!any) {  // no nonzero product: c itself
    sum = C;
    grid = ec - F;
  } else if (M < ec) {  // c's exponent the larger: the products' sum keeps late_extra_bits more bits
    const int X = mu.late_extra_bits, shift = ec - M - X;  // from the grid 2^(M - F) to 2^(ec - F - X)
    sum = (shift <= 0 ? S * (late_i128{1} << -shift) : late_floor_shift(S, shift, dropped)) + C * (late_i128{1} << X);
    grid = ec - F - X;
  } else if (mu.late_c_drop > 0 && ec < M - mu.late_c_drop) {  // c too far below: dropped
    dropped = dropped || C != 0;
    sum = S;
    grid = M - F;
  } else {
    sum = S + late_floor_shift(C, M - ec, dropped);
    grid = M - F;
  }
  if (dropped) st |= status::inexact;
  if (sum == 0) return zero_bits(fo, false);  // +0 (both models)
  const bool neg = sum < 0;
  status rs{};
  const format kept = unit_kept_format(mu);
  const bits_t r = round_pack(kept, neg, grid, static_cast<u128>(neg ? -sum : sum), false,
                              unit_env(mu, mu.final_rounding), rs);
  st |= rs;
  if (has(rs, status::overflow)) return sign_bit(fo, neg) | fo.infinity_bits();
  if (kept == fo) return r;
  status ignored{};
  return convert(fo, kept, r, env{}, ignored);
}

/// alignment_rounding::exact, one block with finite operands and some nonzero term (z: c
/// unpacked): the exact sum of the products and c on the grid of the lowest term's last bit, in an
/// __int128, rounded once by round_pack to the kept format (its bits; rs its flags), or nothing when
/// the terms' bits span more than that holds (or the block has more than 32 products): the caller
/// then sums in an exact_accumulator. An exact zero sum gives +0 and no flag.
template <class A, class B>
std::optional<bits_t> exact_window_block(const matrix_unit& mu, const operand<A>& a, const operand<B>& b,
                                         std::size_t first, std::size_t n, const unpacked& z, const env& final_env,
                                         status& rs) {
  struct term {
    bool negative;
    int exp;
    u128 sig;
  };
  constexpr std::size_t most = 32;
  if (n >= most) return std::nullopt;
  const bool daz = mu.input_subnormals == subnormal_handling::flush;
  std::array<term, most> t;
  std::size_t k = 0;
  int lo = 0, hi = 0;
  auto take = [&](bool negative, u128 sig, int exp) {
    const int top = exp + bit_width(sig);
    lo = k == 0 || exp < lo ? exp : lo;
    hi = k == 0 || top > hi ? top : hi;
    t[k++] = {negative, exp, sig};
  };
  for (std::size_t i = first; i < first + n; ++i) {
    const unpacked x = unpack(a.fmt, a.get(i), daz), y = unpack(b.fmt, b.get(i), daz);
    if (x.kind == kind::zero || y.kind == kind::zero) continue;
    take(x.negative != y.negative, u128{x.sig} * y.sig, x.exp + y.exp);
  }
  if (z.kind == kind::finite) take(z.negative, u128{z.sig}, z.exp);
  // Each term is below 2^(hi - lo) on the grid 2^lo, so |sum| < k 2^(hi - lo) <= 2^126.
  if (k == 0 || hi - lo + bit_width(u128{k}) > 126) return std::nullopt;
  __extension__ typedef __int128 i128;
  i128 sum = 0;
  for (std::size_t j = 0; j < k; ++j) {
    const auto v = static_cast<i128>(t[j].sig << (t[j].exp - lo));
    sum += t[j].negative ? -v : v;
  }
  if (sum == 0) return zero_bits(mu.output, false);
  const bool neg = sum < 0;
  return round_pack(unit_kept_format(mu), neg, lo, static_cast<u128>(neg ? -sum : sum), false, final_env, rs);
}

/// One block: d = sum_{i in [first, first + n)} a_i b_i + c (c and d in mu.output), steps 1-5.
/// The general path: any formats and parameters (block_fma_fast, fast/matrix_block.hpp, is the same
/// computation for the common cases; tests/fast/test_matrix_unit_fast.cpp compares the two).
template <class A, class B>
bits_t block_fma_general(const matrix_unit& mu, const operand<A>& a, const operand<B>& b, std::size_t first, std::size_t n,
                 bits_t c, status& st) {
  const format& fo = mu.output;
  const bool daz = mu.input_subnormals == subnormal_handling::flush;
  const int fba = a.fmt.fraction_bits(), fbb = b.fmt.fraction_bits(), fbo = fo.fraction_bits();
  // Pass 1: specials, zero signs, emax (alignment exponents e(a) + e(b), e(c); see step 2:
  // for an unpacked finite x = sig * 2^exp, e(x) = exp + fraction_bits, normal or subnormal).
  bool special = false, any_nonzero = false, all_negative_zero = true;
  int emax = 0;
  auto see = [&](int e) {
    emax = any_nonzero ? (e > emax ? e : emax) : e;
    any_nonzero = true;
  };
  for (std::size_t i = first; i < first + n; ++i) {
    const unpacked x = unpack(a.fmt, a.get(i), daz), y = unpack(b.fmt, b.get(i), daz);
    if (x.kind > kind::finite || y.kind > kind::finite) {
      special = true;
      continue;
    }
    if (x.kind == kind::zero || y.kind == kind::zero) {
      all_negative_zero = all_negative_zero && (x.negative != y.negative);
      continue;
    }
    see(x.exp + fba + y.exp + fbb);
  }
  const unpacked z = unpack(fo, c, daz);
  if (z.kind > kind::finite) special = true;
  else if (z.kind == kind::zero) all_negative_zero = all_negative_zero && z.negative;
  else see(z.exp + fbo);

  if (special) {
    // NaN operand, 0 * inf, +inf with -inf: NaN; otherwise the infinity.
    bool nan = false, pos_inf = false, neg_inf = false;
    auto note = [&](const unpacked& u, const format& f, bits_t bits) {
      if (u.is_nan()) {
        nan = true;
        if (is_snan_bits(f, bits)) st |= status::invalid;
      }
    };
    for (std::size_t i = first; i < first + n; ++i) {
      const bits_t ab = a.get(i), bb = b.get(i);
      const unpacked x = unpack(a.fmt, ab, daz), y = unpack(b.fmt, bb, daz);
      note(x, a.fmt, ab);
      note(y, b.fmt, bb);
      if (x.is_nan() || y.is_nan()) continue;
      const bool inf = x.kind == kind::infinite || y.kind == kind::infinite;
      if (inf && (x.kind == kind::zero || y.kind == kind::zero)) {
        st |= status::invalid;
        nan = true;
      } else if (inf) {
        (x.negative != y.negative ? neg_inf : pos_inf) = true;
      }
    }
    note(z, fo, c);
    if (z.kind == kind::infinite) (z.negative ? neg_inf : pos_inf) = true;
    if (!nan && pos_inf && neg_inf) st |= status::invalid;
    if (nan || (pos_inf && neg_inf)) return fo.default_nan_bits();
    status ignored{};
    return convert(fo, binary64, sign_bit(binary64, neg_inf) | binary64.infinity_bits(), unit_env(mu, mu.final_rounding),
                   ignored);
  }
  if (mu.model == matrix_unit_model::late_accumulation) return late_block(mu, a, b, first, n, z, st);
  if (!any_nonzero) return zero_bits(fo, all_negative_zero);

  const env final_env = unit_env(mu, mu.final_rounding);
  const format kept = unit_kept_format(mu);
  status rs{};
  bits_t r;
  if (mu.alignment == alignment_rounding::exact) {
    // No alignment loss: the exact block sum, rounded once, by the core either way.
    if (const std::optional<bits_t> w = exact_window_block(mu, a, b, first, n, z, final_env, rs)) {
      r = *w;
    } else {
      exact_accumulator acc;
      for (std::size_t i = first; i < first + n; ++i) {
        const bits_t ab = a.get(i), bb = b.get(i);
        if (daz && (unpack(a.fmt, ab, true).kind == kind::zero || unpack(b.fmt, bb, true).kind == kind::zero)) continue;
        acc.add_product(a.fmt, ab, b.fmt, bb);
      }
      if (z.kind == kind::finite) acc.add(fo, c);
      if (acc.is_zero()) return zero_bits(fo, false);
      r = acc.round_to(kept, final_env, rs);
    }
  } else {
    // Pass 2: cut every term onto the grid 2^g (step 3) and sum exactly (step 4). A term
    // sig * 2^exp with exp < g loses its bits below 2^g: round_shift decides (toward zero in
    // sign-magnitude for truncate, toward -inf for floor), as the hardware's shifter does.
    const int g = emax - mu.alignment_bits;
    const rounding cut = mu.alignment == alignment_rounding::floor ? rounding::downward : rounding::toward_zero;
    __extension__ typedef __int128 i128;
    i128 sum = 0;
    bool dropped = false;
    auto term = [&](bool neg, u128 sig, int exp) {
      u128 k;
      if (exp >= g) {
        k = sig << (exp - g);  // exact: a term is below 2^(emax + 2), so k < 2^(F + 2)
      } else {
        const decision<u128> d = round_shift(sig, g - exp, neg, cut, 0);
        k = d.kept;
        dropped = dropped || d.frac != lost::zero;
      }
      sum += neg ? -static_cast<i128>(k) : static_cast<i128>(k);
    };
    for (std::size_t i = first; i < first + n; ++i) {
      const unpacked x = unpack(a.fmt, a.get(i), daz), y = unpack(b.fmt, b.get(i), daz);
      if (x.kind == kind::zero || y.kind == kind::zero) continue;
      term(x.negative != y.negative, u128{x.sig} * y.sig, x.exp + y.exp);
    }
    if (z.kind == kind::finite) term(z.negative, u128{z.sig}, z.exp);
    if (dropped) st |= status::inexact;
    if (sum == 0) return zero_bits(fo, false);  // §6.3: an exact zero sum is +0 (rounding toward zero or nearest)
    const bool neg = sum < 0;
    // Step 5: the one normalisation, by the core.
    r = round_pack(kept, neg, g, static_cast<u128>(neg ? -sum : sum), false, final_env, rs);
  }
  st |= rs;
  if (has(rs, status::overflow)) return sign_bit(fo, (r & kept.sign_mask()) != 0) | fo.infinity_bits();
  if (kept == fo) return r;
  status ignored{};  // exact: `kept` has fo's exponent range and fewer fraction bits
  return convert(fo, kept, r, env{}, ignored);
}

/// A chain of blocks over [first, first + n) (step 6), starting from c: the general path.
template <class A, class B>
bits_t block_chain_general(const matrix_unit& mu, const operand<A>& a, const operand<B>& b, std::size_t first,
                           std::size_t n, bits_t c, status& st) {
  const auto N = static_cast<std::size_t>(mu.block_size);
  for (std::size_t s = 0; s < n; s += N) c = block_fma_general(mu, a, b, first + s, n - s < N ? n - s : N, c, st);
  return c;
}

}  // namespace lf::detail
