// libfloat/training/range_report.hpp: where a set of values lands in a format's range after loss scaling.
//
// For a target format F, a scale S > 0 and an lf::env (rounding direction and policies), every
// value x is classified by what the core makes of the exact product x*S rounded once to F:
//
//   exact_zero  x is ±0 (counted apart: nothing was lost)
//   zero        x != 0 but the result is ±0 ("underflows to zero", the gradient is lost)
//   subnormal   the result is subnormal (gradual underflow: fewer than p significant bits kept)
//   normal      the result is a normal number
//   overflow    the core raises overflow (IEEE 754-2019 §7.4): the result is infinity, the NaN of a
//               format without infinity (OCP E4M3; fnuz formats), or max finite (directed rounding,
//               saturation, and always in a finite_only format such as FP4 / FP6)
//   nan, infinity   x itself is not finite (counted, never fatal)
//
// The target must have a zero and a sign: an exponent-only format (E8M0) has neither, so values
// below its range round up to 2^emin and negative ones to its NaN, which fit none of the classes;
// such a target is rejected (std::invalid_argument).
//
// plus a histogram of the binary exponents floor(log2|x*S|) of the nonzero finite values.
//
// Exactness: classify_scaled() (one value, through lf::detail::round_pack, the same rounding as
// lf::convert) is the definition. range_counter never rounds per element: at construction it
// finds, with classify_scaled and a binary search over the monotone encodings of each input type
// (binary16, binary32, binary64), the smallest magnitude of each sign that reaches each class.
// Per element it only compares the encoding, read as an unsigned integer, with those thresholds,
// which loops over a block vectorise into compare-and-subtract, so a span is classified at memory
// speed and every count equals what classify_scaled would give element by element
// (tests/training/test_range_report.cpp checks this against an exact-rational oracle and F16C).
//
// Rounding: every deterministic lf::rounding and every policy (FTZ, DAZ, saturation, tininess).
// rounding::stochastic is rejected (std::invalid_argument): its result depends on random bits, so
// a value has no single class.
#pragma once

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <libfloat/core/arith.hpp>
#include <libfloat/fast/scalar.hpp>
#include <libfloat/core/detail/round.hpp>
#include <libfloat/core/format.hpp>
#include <libfloat/core/rounding.hpp>
#include <libfloat/core/env.hpp>
#include <libfloat/core/status.hpp>

namespace lf::training {

/// What one value becomes; see the file comment.
enum class range_class : std::uint8_t { exact_zero, zero, subnormal, normal, overflow, nan, infinity };

constexpr std::string_view range_class_name(range_class c) {
  switch (c) {
    case range_class::exact_zero: return "exact_zero";
    case range_class::zero: return "zero";
    case range_class::subnormal: return "subnormal";
    case range_class::normal: return "normal";
    case range_class::overflow: return "overflow";
    case range_class::nan: return "nan";
    case range_class::infinity: return "infinity";
  }
  return "?";
}

/// A format's exponent window, as binary exponents floor(log2|v|), for drawing it beside a
/// histogram: subnormals span [min_subnormal_exp, min_normal_exp), normals [min_normal_exp, max_exp].
struct range_window {
  int min_subnormal_exp;  ///< emin - p + 1: the smallest subnormal is 2^min_subnormal_exp
  int min_normal_exp;     ///< emin: the smallest normal is 2^emin
  int max_exp;            ///< emax: max finite lies in [2^emax, 2^(emax+1))
  friend constexpr bool operator==(const range_window&, const range_window&) = default;
};

constexpr range_window window_of(const format& f) {
  return {f.emin() - f.fraction_bits(), f.emin(), f.emax()};
}

/// A positive finite scale, taken apart exactly: value = sig * 2^exp with sig odd.
struct scale_factor {
  double value = 1.0;
  std::uint64_t sig = 1;
  int exp = 0;

  constexpr bool is_power_of_two() const { return sig == 1; }
  /// floor(log2(value)).
  constexpr int floor_log2() const { return exp + std::bit_width(sig) - 1; }

  /// nullopt unless s is finite and > 0.
  static std::optional<scale_factor> of(double s) {
    if (!(s > 0) || !std::isfinite(s)) return std::nullopt;
    const auto b = std::bit_cast<std::uint64_t>(s);
    const auto field = static_cast<int>(b >> 52);  // sign is 0
    std::uint64_t sig = b & ((std::uint64_t{1} << 52) - 1);
    int exp = -1074;
    if (field != 0) {
      sig |= std::uint64_t{1} << 52;
      exp = field - 1075;
    }
    const int tz = std::countr_zero(sig);
    return scale_factor{s, sig >> tz, exp + tz};
  }
  /// 2^k; value is ldexp(1, k) (0 or inf outside double's range, but sig and exp stay exact).
  static scale_factor power_of_two(int k) { return {std::ldexp(1.0, k), 1, k}; }
  friend constexpr bool operator==(const scale_factor& a, const scale_factor& b) {
    return a.sig == b.sig && a.exp == b.exp;
  }
};

/// THE definition: the class of encoding x of format `from` after multiplying by s and rounding
/// the exact product once to `to` under e (the core's round_pack, as lf::convert does; with s = 1
/// this is exactly lf::convert's result). With e.policy.inputs == treat_as_zero a subnormal x is
/// read as zero and, being nonzero, classes as `zero`. e.random is used for stochastic rounding.
inline range_class classify_scaled(const format& to, const format& from, bits_t x, const scale_factor& s,
                                   const env& e = {}) {
  // An exponent-only target has no zero, no sign and no subnormals: the tests on `mag` below
  // (0 = zero, field 0 = subnormal) would misread its encodings (see the file comment).
  if (!to.has_zero() || !to.has_sign())
    throw std::invalid_argument("classify_scaled: " + format_name(to) +
                                " is exponent-only (no zero, no sign): range classes do not apply");
  const lf::detail::unpacked u = lf::detail::unpack(from, x, false);
  switch (u.kind) {
    case lf::detail::kind::quiet_nan:
    case lf::detail::kind::signaling_nan: return range_class::nan;
    case lf::detail::kind::infinite: return range_class::infinity;
    case lf::detail::kind::zero: return range_class::exact_zero;
    case lf::detail::kind::finite: break;
  }
  // DAZ reads subnormals as zero. A format without subnormals (exponent-only) has none: its field 0
  // is 2^emin, as lf::detail::unpack reads it.
  if (e.policy.inputs == subnormal_inputs::treat_as_zero && from.has_subnormals() && (x & from.exponent_mask()) == 0)
    return range_class::zero;
  status st{};
  const bits_t r = lf::detail::round_pack(to, u.negative, u.exp + s.exp, lf::detail::u128{u.sig} * s.sig, false, e, st);
  if (has(st, status::overflow)) return range_class::overflow;
  const bits_t mag = r & ~to.sign_mask() & to.encoding_mask();
  if (mag == 0) return range_class::zero;
  if ((mag & to.exponent_mask()) == 0) return range_class::subnormal;
  return range_class::normal;
}

/// One (format, scale, env) a range_counter classifies into.
struct range_target {
  format fmt = binary16;
  scale_factor scale{};
  env e{};
};

/// The counts for one target; every counted value is in exactly one of the seven classes.
struct range_report {
  format fmt = binary16;
  scale_factor scale{};
  env e{};
  range_window window{};

  std::uint64_t exact_zero = 0, zero = 0, subnormal = 0, normal = 0, overflow = 0, nan = 0, infinity = 0;

  /// Histogram of floor(log2|x*S|) over the nonzero finite values: bin i counts exponent
  /// histogram_min + i; values below histogram_min go to below, above histogram_max to above.
  static constexpr int histogram_min = -256;
  static constexpr int histogram_max = 255;
  std::array<std::uint64_t, histogram_max - histogram_min + 1> histogram{};
  std::uint64_t below = 0, above = 0;
  /// Smallest and largest floor(log2|x*S|) seen (exact even outside the histogram); empty
  /// when no nonzero finite value was counted.
  std::optional<int> min_exponent, max_exponent;

  constexpr std::uint64_t count(range_class c) const {
    switch (c) {
      case range_class::exact_zero: return exact_zero;
      case range_class::zero: return zero;
      case range_class::subnormal: return subnormal;
      case range_class::normal: return normal;
      case range_class::overflow: return overflow;
      case range_class::nan: return nan;
      case range_class::infinity: return infinity;
    }
    return 0;
  }
  constexpr std::uint64_t total() const { return exact_zero + zero + subnormal + normal + overflow + nan + infinity; }
  constexpr std::uint64_t finite_nonzero() const { return zero + subnormal + normal + overflow; }
  /// count(c) / total(), 0 for an empty set.
  double fraction(range_class c) const { return total() ? static_cast<double>(count(c)) / static_cast<double>(total()) : 0.0; }
  /// Count of floor(log2|x*S|) == exponent (0 outside the histogram's range).
  constexpr std::uint64_t at(int exponent) const {
    return exponent < histogram_min || exponent > histogram_max ? 0 : histogram[exponent - histogram_min];
  }
};

namespace internal {

/// The encodings a range_counter reads, as unsigned integers: binary16, binary32, binary64.
template <typename U>
struct range_source;
template <>
struct range_source<std::uint16_t> {
  static constexpr format fmt = binary16;
};
template <>
struct range_source<std::uint32_t> {
  static constexpr format fmt = binary32;
};
template <>
struct range_source<std::uint64_t> {
  static constexpr format fmt = binary64;
};

/// floor(log2|x|) for a nonzero finite encoding of f, and its significand normalised to p bits.
inline void normalised(const format& f, std::uint64_t x, int& e, std::uint64_t& nm) {
  const lf::detail::unpacked u = lf::detail::unpack(f, x);
  const int w = std::bit_width(u.sig);
  e = u.exp + w - 1;
  nm = u.sig << (f.precision - w);
}

/// Every binary exponent a binary64 (the widest input) can have, with room for the +1 carry.
inline constexpr int range_exp_lo = -1080;
inline constexpr int range_exp_hi = 1030;
inline constexpr std::size_t range_exp_bins = range_exp_hi - range_exp_lo + 1;

}  // namespace internal

/// Counts a stream of values against one or more targets in one pass (see the file comment).
/// Add spans of float, double or binary16 encodings in any mix and any number of calls; the
/// counts never depend on how the values were split. Not thread-safe; use one counter per thread
/// and merge().
class range_counter {
 public:
  /// Throws std::invalid_argument for stochastic rounding, an invalid format or a scale that is
  /// not finite and positive.
  explicit range_counter(std::span<const range_target> targets) : targets_(targets.begin(), targets.end()) {
    for (const range_target& t : targets_) {
      if (t.e.mode == rounding::stochastic)
        throw std::invalid_argument("range_counter: stochastic rounding gives no fixed class per value");
      if (!t.fmt.valid()) throw std::invalid_argument("range_counter: invalid format");
      if (!t.fmt.has_zero() || !t.fmt.has_sign())
        throw std::invalid_argument("range_counter: " + format_name(t.fmt) +
                                    " is exponent-only (no zero, no sign): range classes do not apply");
      if (t.scale.sig == 0) throw std::invalid_argument("range_counter: the scale must be finite and > 0");
      if (!t.scale.is_power_of_two() &&
          std::find(carry_scales_.begin(), carry_scales_.end(), t.scale) == carry_scales_.end())
        carry_scales_.push_back(t.scale);
    }
    base_.assign(internal::range_exp_bins, 0);
    carry_.assign(carry_scales_.size(), std::vector<std::uint64_t>(internal::range_exp_bins, 0));
    half_.init(targets_, carry_scales_);
    single_.init(targets_, carry_scales_);
    double_.init(targets_, carry_scales_);
  }
  /// One target: format f at scale s (finite, > 0) under e.
  explicit range_counter(const format& f, double s = 1.0, const env& e = {})
      : range_counter(std::array<range_target, 1>{range_target{f, checked_scale(s), e}}) {}

  void add(std::span<const float> v) { single_.add(reinterpret_cast<const std::uint32_t*>(v.data()), v.size(), *this); }
  void add(std::span<const double> v) { double_.add(reinterpret_cast<const std::uint64_t*>(v.data()), v.size(), *this); }
  /// binary16 encodings (e.g. a torch.float16 tensor's raw bytes).
  void add_binary16(std::span<const std::uint16_t> v) { half_.add(v.data(), v.size(), *this); }
  /// Encodings of binary16, binary32 or binary64 given as raw integers of that width.
  void add_bits(std::span<const std::uint32_t> v) { single_.add(v.data(), v.size(), *this); }
  void add_bits(std::span<const std::uint64_t> v) { double_.add(v.data(), v.size(), *this); }

  /// Adds another counter's counts; both must have the same targets (std::invalid_argument).
  void merge(const range_counter& o) {
    if (o.targets_.size() != targets_.size())
      throw std::invalid_argument("range_counter::merge: different targets");
    for (std::size_t i = 0; i < targets_.size(); ++i)
      if (!(targets_[i].fmt == o.targets_[i].fmt && targets_[i].scale == o.targets_[i].scale &&
            targets_[i].e.mode == o.targets_[i].e.mode && targets_[i].e.policy == o.targets_[i].e.policy))
        throw std::invalid_argument("range_counter::merge: different targets");
    half_.merge(o.half_);
    single_.merge(o.single_);
    double_.merge(o.double_);
    for (std::size_t i = 0; i < base_.size(); ++i) base_[i] += o.base_[i];
    for (std::size_t j = 0; j < carry_.size(); ++j)
      for (std::size_t i = 0; i < base_.size(); ++i) carry_[j][i] += o.carry_[j][i];
    max_pos_ = std::max(max_pos_, o.max_pos_);
    max_neg_ = std::max(max_neg_, o.max_neg_);
  }

  std::size_t size() const { return targets_.size(); }
  const range_target& target(std::size_t i) const { return targets_.at(i); }
  /// Number of values added.
  std::uint64_t count() const { return half_.n + single_.n + double_.n; }
  /// Largest |x| among the finite positive (negative) values added; 0 when there is none.
  double max_positive() const { return max_pos_; }
  double max_negative_magnitude() const { return max_neg_; }

  /// The class the counter gives a float (the same thresholds as add(); for tests and callers
  /// that need one value).
  range_class classify(std::size_t target, float x) const {
    return single_.classify(target, std::bit_cast<std::uint32_t>(x));
  }
  range_class classify(std::size_t target, double x) const {
    return double_.classify(target, std::bit_cast<std::uint64_t>(x));
  }

  range_report report(std::size_t i = 0) const {
    const range_target& t = targets_.at(i);
    range_report r;
    r.fmt = t.fmt;
    r.scale = t.scale;
    r.e = t.e;
    r.window = window_of(t.fmt);
    half_.accumulate(i, r);
    single_.accumulate(i, r);
    double_.accumulate(i, r);
    // Histogram: floor(log2|x*S|) = floor(log2|x|) + floor(log2 S) + carry, where the carry is 1
    // when the normalised significands' product reaches 2 (never for a power of two).
    const int shift = t.scale.floor_log2();
    std::vector<std::uint64_t> base = base_;
    std::vector<std::vector<std::uint64_t>> carries = carry_;
    fold(half_, base, carries);
    fold(single_, base, carries);
    fold(double_, base, carries);
    const std::vector<std::uint64_t>* carry = nullptr;
    if (!t.scale.is_power_of_two())
      carry = &carries[static_cast<std::size_t>(std::find(carry_scales_.begin(), carry_scales_.end(), t.scale) -
                                                carry_scales_.begin())];
    auto put = [&r](long long e, std::uint64_t n) {
      if (n == 0) return;
      if (e < range_report::histogram_min) r.below += n;
      else if (e > range_report::histogram_max) r.above += n;
      else r.histogram[static_cast<std::size_t>(e - range_report::histogram_min)] += n;
      const int ei = static_cast<int>(e);
      if (!r.min_exponent || ei < *r.min_exponent) r.min_exponent = ei;
      if (!r.max_exponent || ei > *r.max_exponent) r.max_exponent = ei;
    };
    for (std::size_t b = 0; b < base.size(); ++b) {
      const long long e = static_cast<long long>(b) + internal::range_exp_lo + shift;
      const std::uint64_t up = carry ? (*carry)[b] : 0;
      put(e, base[b] - up);
      put(e + 1, up);
    }
    return r;
  }

 private:
  static scale_factor checked_scale(double s) {
    const auto f = scale_factor::of(s);
    if (!f) throw std::invalid_argument("range_counter: the scale must be finite and > 0");
    return *f;
  }

  /// Per input type: the thresholds as sorted unique keys, and how many elements reach each.
  template <typename U>
  struct lane {
    static constexpr format from = internal::range_source<U>::fmt;
    static constexpr U sign = static_cast<U>(U{1} << (from.bits() - 1));
    static constexpr U inf = static_cast<U>(from.exponent_mask());
    static constexpr std::size_t block = 4096;

    struct target_keys {
      std::size_t nz[2], norm[2], over[2];  ///< per sign: indices into keys
      U raw_nz[2], raw_norm[2], raw_over[2];  ///< the magnitudes themselves
    };
    std::vector<U> keys;
    std::vector<std::uint64_t> ge;  ///< ge[k]: elements whose encoding, unsigned, is >= keys[k]
    std::vector<target_keys> tk;
    std::size_t k_one = 0, k_sign = 0, k_sign_one = 0, k_inf = 0, k_inf1 = 0, k_sign_inf = 0, k_sign_inf1 = 0;
    /// By biased exponent field, either sign, in four interleaved copies (runs of one exponent
    /// would otherwise serialise on one counter); only the normal fields are read back.
    std::vector<std::uint64_t> raw_hist;
    std::vector<std::vector<std::uint64_t>> raw_carry;
    std::vector<std::uint64_t> carry_thr;  ///< per carry scale: normalised significand threshold
    std::uint64_t n = 0;

    /// The smallest magnitude m in [1, inf] of the given sign whose class is at least `level`
    /// (zero < subnormal < normal < overflow), by binary search: the class never decreases as
    /// the magnitude grows. inf itself stands for "no finite magnitude reaches it".
    static U threshold(const range_target& t, bool negative, range_class level) {
      auto reaches = [&](U m) {
        if (m >= inf) return true;
        const range_class c = classify_scaled(t.fmt, from, (negative ? sign : U{0}) | m, t.scale, t.e);
        return static_cast<int>(c) >= static_cast<int>(level);
      };
      U lo = 1, hi = inf;  // invariant: reaches(hi); answer in [lo, hi]
      while (lo < hi) {
        const U mid = static_cast<U>(lo + (hi - lo) / 2);
        if (reaches(mid)) hi = mid;
        else lo = static_cast<U>(mid + 1);
      }
      return hi;
    }

    void init(const std::vector<range_target>& targets, const std::vector<scale_factor>& carry_scales) {
      std::vector<U> all{U{1}, sign, static_cast<U>(sign | 1), inf, static_cast<U>(inf + 1),
                         static_cast<U>(sign | inf), static_cast<U>(sign | inf | 1)};
      tk.resize(targets.size());
      for (std::size_t i = 0; i < targets.size(); ++i)
        for (int s = 0; s < 2; ++s) {
          tk[i].raw_nz[s] = threshold(targets[i], s != 0, range_class::subnormal);
          tk[i].raw_norm[s] = threshold(targets[i], s != 0, range_class::normal);
          tk[i].raw_over[s] = threshold(targets[i], s != 0, range_class::overflow);
          const U sb = s ? sign : U{0};
          all.push_back(static_cast<U>(sb | tk[i].raw_nz[s]));
          all.push_back(static_cast<U>(sb | tk[i].raw_norm[s]));
          all.push_back(static_cast<U>(sb | tk[i].raw_over[s]));
        }
      std::sort(all.begin(), all.end());
      all.erase(std::unique(all.begin(), all.end()), all.end());
      keys = all;
      ge.assign(keys.size(), 0);
      auto index = [this](U key) {
        return static_cast<std::size_t>(std::lower_bound(keys.begin(), keys.end(), key) - keys.begin());
      };
      k_one = index(1);
      k_sign = index(sign);
      k_sign_one = index(static_cast<U>(sign | 1));
      k_inf = index(inf);
      k_inf1 = index(static_cast<U>(inf + 1));
      k_sign_inf = index(static_cast<U>(sign | inf));
      k_sign_inf1 = index(static_cast<U>(sign | inf | 1));
      for (auto& t : tk)
        for (int s = 0; s < 2; ++s) {
          const U sb = s ? sign : U{0};
          t.nz[s] = index(static_cast<U>(sb | t.raw_nz[s]));
          t.norm[s] = index(static_cast<U>(sb | t.raw_norm[s]));
          t.over[s] = index(static_cast<U>(sb | t.raw_over[s]));
        }
      raw_hist.assign(4 * (std::size_t{from.exponent_field_max()} + 1), 0);
      raw_carry.assign(carry_scales.size(), std::vector<std::uint64_t>(std::size_t{from.exponent_field_max()} + 1, 0));
      // The carry: nm * sig >= 2^(p - 1 + bw - 1 + 1), nm the p-bit normalised significand.
      carry_thr.clear();
      for (const scale_factor& s : carry_scales) {
        const int bw = std::bit_width(s.sig);
        const lf::detail::u128 num = lf::detail::u128{1} << (from.precision + bw - 1);
        carry_thr.push_back(static_cast<std::uint64_t>((num + s.sig - 1) / s.sig));
      }
    }

    range_class classify(std::size_t i, U x) const {
      const U mag = static_cast<U>(x & ~sign);
      if (mag > inf) return range_class::nan;
      if (mag == inf) return range_class::infinity;
      if (mag == 0) return range_class::exact_zero;
      const int s = x >= sign;
      const target_keys& t = tk.at(i);
      return mag >= t.raw_over[s] ? range_class::overflow
             : mag >= t.raw_norm[s] ? range_class::normal
             : mag >= t.raw_nz[s]   ? range_class::subnormal
                                    : range_class::zero;
    }

    void add(const U* x, std::size_t count, range_counter& c) {
      n += count;
      constexpr U frac_mask = static_cast<U>(from.fraction_mask());
      constexpr int fb = from.fraction_bits();
      constexpr U field_max = static_cast<U>(from.exponent_field_max());
      for (std::size_t start = 0; start < count; start += block) {
        const U* p = x + start;
        const std::size_t m = std::min(block, count - start);
        // 1. Threshold counts: one compare-and-add loop per key (vectorises; the block is in L1).
        for (std::size_t k = 0; k < keys.size(); ++k) {
          const U key = keys[k];
          std::uint32_t acc = 0;
          for (std::size_t j = 0; j < m; ++j) acc += static_cast<std::uint32_t>(p[j] >= key);
          ge[k] += acc;
        }
        // 2. Exponent histogram by the biased exponent field, largest finite magnitude of each sign.
        constexpr std::size_t bins = std::size_t{field_max} + 1;
        std::uint64_t* const h = raw_hist.data();
        const std::uint64_t field0_before = h[0] + h[bins] + h[2 * bins] + h[3 * bins];
        U mp = 0, mn = 0;
        std::size_t j = 0;
        for (; j + 4 <= m; j += 4)
          for (std::size_t q = 0; q < 4; ++q) ++h[q * bins + ((p[j + q] >> fb) & field_max)];
        for (; j < m; ++j) ++h[(p[j] >> fb) & field_max];
        for (j = 0; j < m; ++j) {
          const U v = p[j];
          const U mag = static_cast<U>(v & ~sign);
          const U fin = mag < inf ? mag : U{0};
          mp = std::max(mp, v < sign ? fin : U{0});
          mn = std::max(mn, v >= sign ? fin : U{0});
        }
        const bool any_subnormal = h[0] + h[bins] + h[2 * bins] + h[3 * bins] != field0_before;
        for (std::size_t q = 0; q < carry_thr.size(); ++q) {
          const U thr = static_cast<U>(carry_thr[q] & frac_mask);  // compared below the hidden bit
          for (j = 0; j < m; ++j) {
            const U v = p[j];
            const U field = static_cast<U>((v >> fb) & field_max);
            if (field != 0 && field != field_max) raw_carry[q][field] += (v & frac_mask) >= thr;
          }
        }
        // Zeros and subnormals (exponent field 0): exact exponent from the significand.
        if (any_subnormal)
          for (j = 0; j < m; ++j) {
            const U v = p[j];
            if ((v & static_cast<U>(from.exponent_mask())) != 0 || (v & frac_mask) == 0) continue;
            int e;
            std::uint64_t nm;
            internal::normalised(from, v, e, nm);
            c.base_[static_cast<std::size_t>(e - internal::range_exp_lo)] += 1;
            for (std::size_t q = 0; q < carry_thr.size(); ++q)
              c.carry_[q][static_cast<std::size_t>(e - internal::range_exp_lo)] += nm >= carry_thr[q];
          }
        c.max_pos_ = std::max(c.max_pos_, magnitude(mp));
        c.max_neg_ = std::max(c.max_neg_, magnitude(mn));
      }
    }

    static double magnitude(U mag) {
      if constexpr (sizeof(U) == 2) return static_cast<double>(std::bit_cast<float>(lf::detail::f16_to_f32_bits(mag)));
      else if constexpr (sizeof(U) == 4) return static_cast<double>(std::bit_cast<float>(mag));
      else return std::bit_cast<double>(mag);
    }

    void merge(const lane& o) {
      n += o.n;
      for (std::size_t k = 0; k < ge.size(); ++k) ge[k] += o.ge[k];
      for (std::size_t b = 0; b < raw_hist.size(); ++b) raw_hist[b] += o.raw_hist[b];
      for (std::size_t q = 0; q < raw_carry.size(); ++q)
        for (std::size_t b = 0; b < raw_carry[q].size(); ++b) raw_carry[q][b] += o.raw_carry[q][b];
    }

    /// Adds this lane's counts for target i to r, and its normal-encoding exponents to nothing:
    /// see range_counter::base() for the histogram.
    void accumulate(std::size_t i, range_report& r) const {
      if (n == 0) return;
      auto G = [this](std::size_t k) { return ge[k]; };
      const std::uint64_t all = n;
      r.exact_zero += (all - G(k_one)) + (G(k_sign) - G(k_sign_one));
      r.nan += (G(k_inf1) - G(k_sign)) + G(k_sign_inf1);
      r.infinity += (G(k_inf) - G(k_inf1)) + (G(k_sign_inf) - G(k_sign_inf1));
      const target_keys& t = tk[i];
      // Finite nonzero magnitudes >= a threshold m (m <= inf): positive G(m) - G(inf), negative
      // G(sign|m) - G(sign|inf).
      for (int s = 0; s < 2; ++s) {
        const std::size_t top = s ? k_sign_inf : k_inf;
        const std::size_t one = s ? k_sign_one : k_one;
        const std::uint64_t fin = G(one) - G(top);
        const std::uint64_t nz = G(t.nz[s]) - G(top), norm = G(t.norm[s]) - G(top), over = G(t.over[s]) - G(top);
        r.zero += fin - nz;
        r.subnormal += nz - norm;
        r.normal += norm - over;
        r.overflow += over;
      }
    }
  };

  /// Folds the lanes' per-field histograms into base_/carry_ (called lazily by report()).
  template <typename U>
  void fold(const lane<U>& l, std::vector<std::uint64_t>& base, std::vector<std::vector<std::uint64_t>>& carry) const {
    constexpr format f = lane<U>::from;
    // f is the input's format (binary16, binary32, binary64), not a target: IEEE, standard bias,
    // so field b of a normal is 2^(b - bias). The targets' kinds do not enter here.
    static_assert(f.kind == nonfinite::ieee && f.bias() == format::standard_bias(f.exponent_bits, f.kind));
    const std::size_t bins = std::size_t{f.exponent_field_max()} + 1;
    for (std::size_t b = 1; b + 1 < bins; ++b) {
      const int e = static_cast<int>(b) - f.bias();
      base[static_cast<std::size_t>(e - internal::range_exp_lo)] +=
          l.raw_hist[b] + l.raw_hist[bins + b] + l.raw_hist[2 * bins + b] + l.raw_hist[3 * bins + b];
      for (std::size_t q = 0; q < carry.size(); ++q)
        carry[q][static_cast<std::size_t>(e - internal::range_exp_lo)] += l.raw_carry[q][b];
    }
  }

  std::vector<range_target> targets_;
  std::vector<scale_factor> carry_scales_;
  lane<std::uint16_t> half_;
  lane<std::uint32_t> single_;
  lane<std::uint64_t> double_;
  // Exponents of subnormal inputs (exact, added per element); normal inputs' exponents live in
  // the lanes' per-field histograms until report() folds them in.
  std::vector<std::uint64_t> base_;
  std::vector<std::vector<std::uint64_t>> carry_;
  double max_pos_ = 0, max_neg_ = 0;

 public:
  /// floor(log2|x|) counts of the nonzero finite values added (unscaled), indexed from
  /// internal::range_exp_lo; for callers that draw one histogram for several scales.
  std::vector<std::uint64_t> exponent_counts() const {
    std::vector<std::uint64_t> b = base_;
    std::vector<std::vector<std::uint64_t>> none;
    fold(half_, b, none);
    fold(single_, b, none);
    fold(double_, b, none);
    return b;
  }
};

/// The largest k such that no finite value counted by c overflows format f at scale 2^k under e
/// (checked exactly with classify_scaled on the largest magnitude of each sign: overflow is
/// monotone in the magnitude). nullopt when c holds no nonzero finite value. k is kept within
/// [-1074, 1023] so that 2^k is a double.
inline std::optional<int> largest_safe_scale_log2(const range_counter& c, const format& f, const env& e = {}) {
  const double mags[2] = {c.max_positive(), c.max_negative_magnitude()};
  if (mags[0] == 0 && mags[1] == 0) return std::nullopt;
  const double top = std::max(mags[0], mags[1]);
  int k = f.emax() - std::ilogb(top);  // top * 2^k < 2^(emax+1); one more would surely overflow
  k = std::clamp(k, -1074, 1023);
  auto overflows = [&](int kk) {
    for (int s = 0; s < 2; ++s) {
      if (mags[s] == 0) continue;
      const auto bits = std::bit_cast<std::uint64_t>(s ? -mags[s] : mags[s]);
      if (classify_scaled(f, binary64, bits, scale_factor::power_of_two(kk), e) == range_class::overflow) return true;
    }
    return false;
  };
  while (k > -1074 && overflows(k)) --k;
  return k;
}

/// A recommended loss scale: the power of two and the counts at scale 1 and at it.
struct scale_recommendation {
  int log2_scale = 0;
  range_report at_one, at_scale;
  /// Values that are zero at scale 1 but not at the recommended scale (negative if k < 0 loses some).
  std::int64_t saved_from_zero() const {
    return static_cast<std::int64_t>(at_one.zero) - static_cast<std::int64_t>(at_scale.zero);
  }
  /// Values that are zero or subnormal at scale 1 and normal at the recommended scale, net.
  std::int64_t saved_from_zero_or_subnormal() const {
    return static_cast<std::int64_t>(at_one.zero + at_one.subnormal) -
           static_cast<std::int64_t>(at_scale.zero + at_scale.subnormal);
  }
};

/// Two passes over `values`: counts at scale 1, the largest safe power of two, and the counts
/// there. nullopt when there is no nonzero finite value.
template <typename T>
  requires(std::same_as<T, float> || std::same_as<T, double>)
std::optional<scale_recommendation> recommend_scale(const format& f, std::span<const T> values, const env& e = {}) {
  range_counter one(f, 1.0, e);
  one.add(values);
  const std::optional<int> k = largest_safe_scale_log2(one, f, e);
  if (!k) return std::nullopt;
  const range_target t{f, scale_factor::power_of_two(*k), e};
  range_counter there(std::span<const range_target>(&t, 1));
  there.add(values);
  return scale_recommendation{*k, one.report(), there.report()};
}

}  // namespace lf::training
