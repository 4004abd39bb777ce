// libfloat/training/amp.hpp: models of mixed-precision training (torch.amp) built on the library.
//
// Nothing here rounds by itself: every rounding is lf::add / lf::mul / lf::div / lf::convert or
// lf::exact_accumulator::round_to, i.e. the one rounding core (core/detail/round.hpp). These
// models only decide *when* to round and *into which format*.
//
// API (namespace lf::training):
//
//   Weight-update stagnation (Micikevicius et al., "Mixed Precision Training", ICLR 2018, §3.1)
//     half_ulp(format, bits_t w) / half_ulp(format, double w)     -> double: half an ulp of w
//     half_gap(format, bits_t w, toward_positive)                 -> double: the exact nearest-rounding threshold
//     stagnation_ratio(format)                                    -> double: 2^p (2048 for fp16)
//     update_is_lost(W, w, U, u, env) / update_is_lost(W, double w, double u, rounding)
//                                                                  -> bool: round_W(w + u) == w
//     struct stagnation_params, struct stagnation_result
//     simulate_stagnation(stagnation_params)                      -> stagnation_result
//     simulate_stagnation(W, U, double w0, double u, steps, rounding)
//   Range report: lf::training::range_counter / range_report (training/range_report.hpp).
//   Loss scaling (torch/amp/grad_scaler.py, aten/src/ATen/native/cuda/AmpKernels.cu)
//     struct grad_scaler_options, class grad_scaler {update, scale, inverse_scale, growth_tracker, last_event}
//     enum class scaler_event {none, growth, growth_blocked, backoff}, scaler_event_name
//     struct scaler_step, run_scaler(options, vector<bool>), run_scaler(options, steps, set<long>)
//     scaled_gradient(format, g, scale, status&)                  -> bits_t: g * scale rounded once
//     scaled_gradients_overflow(format, span<const double>, scale) -> bool: found_inf
//     run_scaler_on_gradients(options, vector<vector<double>>, format): overflows from the gradients
//   Autocast policy (aten/src/ATen/autocast_mode.cpp)
//     enum class device_kind, enum class cast_policy, struct autocast_entry
//     autocast_lookup(device_kind, op, input_dtype)               -> autocast_decision
//     autocast_table(device_kind)                                 -> span of entries
//   Memory footprint of weights, gradients and optimizer state
//     enum class training_recipe, enum class optimizer_kind
//     memory_footprint(params, recipe, optimizer)                 -> footprint
#pragma once

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <random>
#include <set>
#include <span>
#include <string_view>
#include <vector>

#include <libfloat/core/arith.hpp>
#include <libfloat/models/exact.hpp>
#include <libfloat/core/format.hpp>
#include <libfloat/core/rounding.hpp>
#include <libfloat/core/env.hpp>
#include <libfloat/core/status.hpp>

#include <libfloat/training/range_report.hpp>

namespace lf::training {

namespace internal {

/// The binary64 encoding of d (exact, no rounding).
constexpr bits_t bits_of(double d) { return std::bit_cast<std::uint64_t>(d); }

/// The value of encoding a of format f as a double: lf::convert, exact for every format whose
/// values are binary64 values (all the named formats); otherwise rounded to nearest even.
inline double to_double(const format& f, bits_t a) {
  status ignored{};
  return std::bit_cast<double>(lf::convert(binary64, f, a, env{}, ignored));
}

/// d rounded once into f under e (lf::convert from binary64).
inline bits_t from_double(const format& f, double d, const env& e, status& st) {
  return lf::convert(f, binary64, bits_of(d), e, st);
}

}  // namespace internal

// =============================================================================================
// 1. Weight-update stagnation
// =============================================================================================

/// Half an ulp of the finite value w (an encoding of f): ulp(w) / 2, where ulp(w) =
/// 2^(max(e, emin) - p + 1) (lf::ulp). In round-to-nearest-even, w + u rounds back to w when
/// |u| < half_ulp(w), and also when |u| == half_ulp(w) and w's last significand bit is even
/// (ties to even); Micikevicius et al. 2018 §3.1 state this as "the update is lost". One
/// asymmetry: when |w| is a power of two and u points towards zero, the gap below w is half the
/// gap above, so the threshold for that direction is half_ulp(w) / 2. update_is_lost() decides
/// exactly; this is the textbook threshold. Exact for every format whose half ulps are binary64
/// values (all named formats but binary64's subnormal range); +inf for an infinity, NaN for NaN.
inline double half_ulp(const format& f, bits_t w) { return std::ldexp(internal::to_double(f, lf::ulp(f, w)), -1); }

/// half_ulp of w rounded (nearest even) into f: half_ulp(binary16, 1.0) = 2^-11.
inline double half_ulp(const format& f, double w) {
  status ignored{};
  return half_ulp(f, internal::from_double(f, w, env{}, ignored));
}

/// Half the distance from the finite w (an encoding of f) to its neighbour on the side an update
/// of sign `toward_positive` moves it: the exact threshold of the nearest roundings (an update u
/// of that sign with |u| below it is lost; at |u| equal to it the tie rule decides). It is
/// half_ulp(w) except when |w| is a power of two (not the smallest normal) and u points towards
/// zero: the gap below is then half an ulp, so this is half_ulp(w) / 2. Computed from
/// lf::next_up / lf::next_down; +inf when the neighbour is not finite (the other side of max finite).
inline double half_gap(const format& f, bits_t w, bool toward_positive) {
  status ignored{};
  const bits_t n = toward_positive ? lf::next_up(f, w, ignored) : lf::next_down(f, w, ignored);
  const lf::detail::unpacked x = lf::detail::unpack(f, n);
  if (x.kind != lf::detail::kind::finite && x.kind != lf::detail::kind::zero) return INFINITY;
  exact_accumulator gap;
  gap.add(f, n).sub(exact_accumulator().add(f, w));
  return std::ldexp(std::fabs(gap.to_double()), -1);  // a power of two: exact
}

/// 2^p: Micikevicius et al. 2018 §3.1's rule "an update is lost when |w| >= 2048 |update|" is
/// this ratio for binary16 (p = 11). It is exact when |w| is a power of two (|u| <= |w| / 2^p
/// is then |u| <= half_ulp(w)); inside a binade the true threshold is half_ulp(w), smaller than
/// |w| / 2^p, so the rule is an approximation there. Computed from the format: 2048 for fp16,
/// 256 for bf16, 2^24 for fp32.
inline double stagnation_ratio(const format& f) { return std::ldexp(1.0, f.precision); }

/// Whether adding the update u (an encoding of format U) to the weight w (an encoding of W)
/// leaves w unchanged: round_W(w + u) == w, bit for bit, under e. The sum w + u is exact
/// (lf::add when U == W; otherwise lf::exact_accumulator) and rounded once into W. For
/// rounding::stochastic the answer depends on e.random.
inline bool update_is_lost(const format& W, bits_t w, const format& U, bits_t u, const env& e = {}) {
  status st{};
  bits_t next;
  if (W == U) {
    next = lf::add(W, w, u, e, st);
  } else {
    exact_accumulator acc;
    acc.add(W, w).add(U, u);
    next = acc.round_to(W, e, st);
  }
  return next == w;
}

/// update_is_lost with w rounded (nearest even) into W and the update u taken exactly as a
/// binary64 value: update_is_lost(binary16, 1.0, 1e-4) is true, (binary32, 1.0, 1e-4) false.
inline bool update_is_lost(const format& W, double w, double u, rounding mode = rounding::nearest_even) {
  status ignored{};
  return update_is_lost(W, internal::from_double(W, w, env{}, ignored), binary64, internal::bits_of(u), env{mode});
}

/// One weight-update experiment: w_0 = weight, then for k = 1..steps
///     w_k = round_W(w_{k-1} + u),   u = the update, already a value of format U,
/// each sum exact and rounded once into W under `e` (lf::add when U == W, else
/// lf::exact_accumulator). An "fp32 master weight" is weight_format = binary32.
struct stagnation_params {
  format weight_format = binary16;  ///< W: where the weight is stored between steps
  format update_format = binary16;  ///< U: the format the update was computed in
  bits_t weight = 0;                ///< w_0, an encoding of W
  bits_t update = 0;                ///< u, an encoding of U
  std::int64_t steps = 0;           ///< N >= 0
  env e{};                          ///< rounding of each step (default: nearest even)
  /// rounding::stochastic only: step k (from 1) uses the k-th output of std::mt19937(seed) as
  /// its 32 random bits.
  std::uint32_t seed = 1;
};

struct stagnation_result {
  stagnation_params params;
  bits_t final_bits = 0;       ///< w_N, an encoding of W
  double final_value = 0;      ///< w_N as a double (exact for the named formats)
  double exact_value = 0;      ///< w_0 + N*u computed exactly, rounded once to binary64
  bool exact_value_is_exact = false;  ///< exact_value is w_0 + N*u itself (nothing was rounded)
  double error = 0;            ///< w_N - (w_0 + N*u), exact difference rounded once to binary64
  double relative_error = 0;   ///< |error| / |w_0 + N*u| correctly rounded (0 when both are 0)
  std::int64_t lost_steps = 0;       ///< steps k with w_k == w_{k-1} (bit for bit)
  std::int64_t first_lost_step = 0;  ///< the first such k (from 1), or 0 when none
  double initial_value = 0;    ///< w_0 as a double
  double update_value = 0;     ///< u as a double
  double half_ulp_initial = 0; ///< half_ulp(W, w_0)
  double half_ulp_final = 0;   ///< half_ulp(W, w_N)
  status flags{};              ///< every flag raised by the N roundings
};

/// Runs the experiment of stagnation_params. Deterministic roundings stop early once a step is
/// lost (w no longer changes, so every later step is lost too: they are counted, not run), so
/// the cost is at most the number of steps that changed w. Stochastic rounding runs every step.
inline stagnation_result simulate_stagnation(const stagnation_params& p) {
  stagnation_result r;
  r.params = p;
  const format& W = p.weight_format;
  const format& U = p.update_format;
  const bool stochastic = p.e.mode == rounding::stochastic;
  std::mt19937 random(p.seed);
  bits_t w = p.weight;
  for (std::int64_t k = 1; k <= p.steps; ++k) {
    env e = p.e;
    if (stochastic) e.random = static_cast<std::uint32_t>(random());
    bits_t next;
    if (W == U) {
      next = lf::add(W, w, p.update, e, r.flags);
    } else {
      exact_accumulator acc;
      acc.add(W, w).add(U, p.update);
      next = acc.round_to(W, e, r.flags);
    }
    if (next == w) {
      if (r.first_lost_step == 0) r.first_lost_step = k;
      if (!stochastic) {  // a fixed point: every remaining step is lost as well
        r.lost_steps += p.steps - k + 1;
        break;
      }
      ++r.lost_steps;
    }
    w = next;
  }
  r.final_bits = w;
  r.final_value = internal::to_double(W, w);
  r.initial_value = internal::to_double(W, p.weight);
  r.update_value = internal::to_double(U, p.update);
  r.half_ulp_initial = half_ulp(W, p.weight);
  r.half_ulp_final = half_ulp(W, w);

  // The exact w_0 + N*u and the error of w_N against it, each rounded once.
  exact_accumulator exact;
  exact.add(W, p.weight);
  exact_accumulator u;
  u.add(U, p.update);
  exact.add(u.scaled(static_cast<std::uint64_t>(p.steps), 0));
  r.exact_value = exact.to_double();
  r.exact_value_is_exact = lf::compare(exact, binary64, internal::bits_of(r.exact_value)) == std::partial_ordering::equivalent;
  exact_accumulator err;
  err.add(W, w).sub(exact);
  r.error = err.to_double();
  r.relative_error = exact.is_zero() ? (err.is_zero() ? 0.0 : INFINITY) : exact_accumulator::quotient(err, exact);
  return r;
}

/// Convenience: w0 rounded into W and u rounded into U (both nearest even, from binary64), then
/// simulate_stagnation. Example (Micikevicius et al. 2018, §3.1): W = U = binary16, w0 = 1, u = 1e-4,
/// 10000 steps: every step is lost and w stays 1; W = U = binary32 ends near 2.
inline stagnation_result simulate_stagnation(const format& W, const format& U, double w0, double u,
                                             std::int64_t steps, rounding mode = rounding::nearest_even) {
  stagnation_params p;
  p.weight_format = W;
  p.update_format = U;
  status ignored{};
  p.weight = internal::from_double(W, w0, env{}, ignored);
  p.update = internal::from_double(U, u, env{}, ignored);
  p.steps = steps;
  p.e = env{mode};
  return simulate_stagnation(p);
}

// =============================================================================================
// 3. Dynamic loss scaling: torch.amp.GradScaler
// =============================================================================================

/// GradScaler's constructor arguments and PyTorch's defaults (torch/amp/grad_scaler.py,
/// GradScaler.__init__: init_scale=2.0**16, growth_factor=2.0, backoff_factor=0.5,
/// growth_interval=2000, enabled=True).
struct grad_scaler_options {
  double init_scale = 65536.0;  ///< 2^16; stored as a float32 tensor (rounded to binary32)
  double growth_factor = 2.0;
  double backoff_factor = 0.5;
  std::int64_t growth_interval = 2000;
  bool enabled = true;
};

/// What update() did to the scale.
enum class scaler_event : std::uint8_t {
  none,            ///< a clean step below growth_interval: the tracker counted it
  growth,          ///< growth_interval clean steps: scale *= growth_factor
  growth_blocked,  ///< growth_interval clean steps, but scale * growth_factor is not finite as a float: kept
  backoff,         ///< inf/NaN gradients: scale *= backoff_factor, step skipped
};

constexpr std::string_view scaler_event_name(scaler_event e) {
  switch (e) {
    case scaler_event::none: return "none";
    case scaler_event::growth: return "growth";
    case scaler_event::growth_blocked: return "growth_blocked";
    case scaler_event::backoff: return "backoff";
  }
  return "?";
}

/// A model of torch.amp.GradScaler's scale state. The scale is a float32 tensor; the growth
/// tracker an int32 tensor. update(found_inf) is torch._amp_update_scale_
/// (aten/src/ATen/native/cuda/AmpKernels.cu, amp_update_scale_cuda_kernel; the CPU kernel in
/// aten/src/ATen/native/cpu/AmpGradScalerKernels.cpp is the same rule):
///
///     if found_inf:  scale = float(scale * backoff_factor); tracker = 0
///     else:          successful = tracker + 1
///                    if successful == growth_interval:
///                        new_scale = float(scale * growth_factor)
///                        if isfinite(new_scale): scale = new_scale
///                        tracker = 0
///                    else: tracker = successful
///
/// The products are computed in double (the factors are doubles) and stored as float: here
/// lf::mul in binary64, then lf::convert to binary32, both nearest even. GradScaler.step()
/// skips optimizer.step() when unscale_ found an inf or NaN.
class grad_scaler {
 public:
  explicit grad_scaler(const grad_scaler_options& o = {}) : opt_(o) {
    status ignored{};
    scale_ = static_cast<std::uint32_t>(internal::from_double(binary32, o.init_scale, env{}, ignored));
  }

  /// The current scale (a binary32 value). Disabled: 1, as GradScaler.get_scale() returns 1.0.
  float scale() const { return opt_.enabled ? std::bit_cast<float>(scale_) : 1.0f; }
  /// The scale's binary32 encoding.
  std::uint32_t scale_bits() const { return scale_; }

  /// GradScaler.unscale_'s inv_scale = self._scale.double().reciprocal().float(): 1/scale
  /// computed in binary64 (lf::div), then stored as binary32 (lf::convert), both nearest even.
  float inverse_scale() const {
    if (!opt_.enabled) return 1.0f;
    status ignored{};
    const bits_t s64 = lf::convert(binary64, binary32, scale_, env{}, ignored);
    const bits_t inv64 = lf::div(binary64, internal::bits_of(1.0), s64, env{}, ignored);
    return std::bit_cast<float>(static_cast<std::uint32_t>(lf::convert(binary32, binary64, inv64, env{}, ignored)));
  }

  /// Successful steps since the last growth or backoff (the _growth_tracker tensor).
  std::int64_t growth_tracker() const { return tracker_; }
  const grad_scaler_options& options() const { return opt_; }

  /// One GradScaler.step() + update() with the found_inf that unscale_ reported. Returns true
  /// when the optimizer step was skipped (found_inf). Disabled: nothing changes, never skipped.
  bool update(bool found_inf) {
    last_ = scaler_event::none;
    if (!opt_.enabled) return false;
    if (found_inf) {
      scale_ = times(opt_.backoff_factor);
      tracker_ = 0;
      last_ = scaler_event::backoff;
      return true;
    }
    const std::int64_t successful = tracker_ + 1;
    if (successful == opt_.growth_interval) {
      const std::uint32_t grown = times(opt_.growth_factor);
      const bool finite = !is_nonfinite(grown);
      if (finite) scale_ = grown;
      last_ = finite ? scaler_event::growth : scaler_event::growth_blocked;
      tracker_ = 0;
    } else {
      tracker_ = successful;
    }
    return false;
  }

  /// What the last update() did (none before the first, and always none when disabled).
  scaler_event last_event() const { return last_; }

 private:
  /// float(scale * factor): the product in binary64, stored as binary32.
  std::uint32_t times(double factor) const {
    status ignored{};
    const bits_t s64 = lf::convert(binary64, binary32, scale_, env{}, ignored);
    const bits_t p64 = lf::mul(binary64, s64, internal::bits_of(factor), env{}, ignored);
    return static_cast<std::uint32_t>(lf::convert(binary32, binary64, p64, env{}, ignored));
  }
  static bool is_nonfinite(std::uint32_t b) { return (b & binary32.exponent_mask()) == binary32.exponent_mask(); }

  grad_scaler_options opt_;
  std::uint32_t scale_ = 0;
  std::int64_t tracker_ = 0;
  scaler_event last_ = scaler_event::none;
};

/// One step of a scaler trajectory.
struct scaler_step {
  std::int64_t step = 0;           ///< from 1
  bool overflow = false;           ///< the gradients held an inf or NaN at this step
  bool skipped = false;            ///< optimizer.step() was skipped
  float scale_used = 0;            ///< the scale the loss was multiplied by at this step
  float inverse_scale_used = 0;    ///< what unscale_ multiplied the gradients by
  float scale_after = 0;           ///< the scale after update()
  std::int64_t tracker_after = 0;  ///< the growth tracker after update()
  scaler_event event = scaler_event::none;  ///< what update() did
  bool grew = false;               ///< event == growth: the scale was multiplied by growth_factor
  bool backed_off = false;         ///< event == backoff: the scale was multiplied by backoff_factor
};

namespace internal {
/// The step loop shared by run_scaler and run_scaler_on_gradients: `found_inf(i, scale)` says
/// whether step i (from 0), computed at that scale, finds an infinity or NaN.
template <typename FoundInf>
std::vector<scaler_step> drive_scaler(const grad_scaler_options& o, std::size_t steps, FoundInf found_inf) {
  grad_scaler s(o);
  std::vector<scaler_step> out;
  out.reserve(steps);
  for (std::size_t i = 0; i < steps; ++i) {
    scaler_step st;
    st.step = static_cast<std::int64_t>(i) + 1;
    st.scale_used = s.scale();
    st.inverse_scale_used = s.inverse_scale();
    st.overflow = found_inf(i, st.scale_used);
    st.skipped = s.update(st.overflow);
    st.scale_after = s.scale();
    st.tracker_after = s.growth_tracker();
    st.event = s.last_event();
    st.backed_off = st.event == scaler_event::backoff;
    st.grew = st.event == scaler_event::growth;
    out.push_back(st);
  }
  return out;
}
}  // namespace internal

/// Runs a grad_scaler for overflow.size() steps; step k (from 1) overflows when overflow[k-1].
inline std::vector<scaler_step> run_scaler(const grad_scaler_options& o, const std::vector<bool>& overflow) {
  return internal::drive_scaler(o, overflow.size(), [&](std::size_t i, float) { return static_cast<bool>(overflow[i]); });
}

/// run_scaler for `steps` steps, overflowing at the step numbers in `overflow_steps` (from 1;
/// numbers outside 1..steps are ignored).
inline std::vector<scaler_step> run_scaler(const grad_scaler_options& o, std::int64_t steps,
                                           const std::set<std::int64_t>& overflow_steps) {
  std::vector<bool> pattern(static_cast<std::size_t>(steps > 0 ? steps : 0), false);
  for (std::int64_t k : overflow_steps)
    if (k >= 1 && k <= steps) pattern[static_cast<std::size_t>(k - 1)] = true;
  return run_scaler(o, pattern);
}

/// A gradient g computed at loss scale `scale` in format f: the exact product g * scale (g a
/// binary64 value, scale a binary32 one; exact_accumulator::add_product) rounded once into f,
/// nearest even. In binary16 every product of magnitude 65520 (65504 plus half an ulp) or more
/// rounds to infinity and raises overflow (IEEE 754-2019 §7.4); a NaN g stays NaN.
inline bits_t scaled_gradient(const format& f, double g, float scale, status& st) {
  exact_accumulator acc;
  acc.add_product(binary64, internal::bits_of(g), binary32, std::bit_cast<std::uint32_t>(scale));
  return acc.round_to(f, env{}, st);
}

/// GradScaler.unscale_'s found_inf for one step whose gradients were computed in f at `scale`:
/// whether some scaled_gradient(f, g, scale) is an infinity or a NaN (what
/// torch._amp_foreach_non_finite_check_and_unscale_ looks for). lf::classify reads every kind (a
/// fnuz overflow is its NaN 0x80, found); a finite_only format (FP4, FP6) has neither, so there an
/// overflowing gradient saturates to max finite and is not found, as a check on such data would not.
inline bool scaled_gradients_overflow(const format& f, std::span<const double> gradients, float scale) {
  for (const double g : gradients) {
    status st{};
    const fp_class c = lf::classify(f, scaled_gradient(f, g, scale, st));
    if (c == fp_class::positive_infinity || c == fp_class::negative_infinity || c == fp_class::quiet_nan ||
        c == fp_class::signaling_nan)
      return true;
  }
  return false;
}

/// A grad_scaler driven by a gradient stream instead of a given overflow pattern: step k (from
/// 1) multiplies gradients[k-1] by the scale of that step and rounds them into f
/// (scaled_gradients_overflow); an infinity or NaN is found_inf, so the step is skipped and the
/// scale backs off, exactly as GradScaler.step() + update() do.
inline std::vector<scaler_step> run_scaler_on_gradients(const grad_scaler_options& o,
                                                        const std::vector<std::vector<double>>& gradients,
                                                        const format& f = binary16) {
  return internal::drive_scaler(o, gradients.size(), [&](std::size_t i, float scale) {
    return scaled_gradients_overflow(f, gradients[i], scale);
  });
}

// =============================================================================================
// 4. Autocast op policy (torch.amp.autocast)
// =============================================================================================

/// The autocast device and its default lower-precision dtype (CUDA: float16, CPU: bfloat16).
enum class device_kind : std::uint8_t { cuda, cpu };

/// What autocast does with an op (aten/src/ATen/autocast_mode.cpp, the KERNEL_* registrations;
/// the lists are documented at https://pytorch.org/docs/stable/amp.html#autocast-op-reference).
enum class cast_policy : std::uint8_t {
  lower_precision,  ///< inputs cast to the device's autocast dtype (fp16 / bf16): "lower_precision_fp"
  fp32,             ///< inputs cast to float32: "fp32"
  fp32_unless_dtype,  ///< float32 unless the call passes dtype=: "fp32_set_opt_dtype"
  promote,          ///< run in the widest input dtype: "promote"
  banned,           ///< raises an error under autocast (binary_cross_entropy on CUDA)
  unlisted,         ///< not in any list: runs in the dtype of its inputs
};

constexpr std::string_view policy_name(cast_policy p) {
  switch (p) {
    case cast_policy::lower_precision: return "lower_precision";
    case cast_policy::fp32: return "fp32";
    case cast_policy::fp32_unless_dtype: return "fp32_unless_dtype";
    case cast_policy::promote: return "promote";
    case cast_policy::banned: return "banned";
    case cast_policy::unlisted: return "unlisted";
  }
  return "?";
}

constexpr std::string_view device_name(device_kind d) { return d == device_kind::cuda ? "cuda" : "cpu"; }

/// torch.get_autocast_dtype's default per device: CUDA float16, CPU bfloat16.
constexpr std::string_view autocast_dtype_name(device_kind d) { return d == device_kind::cuda ? "float16" : "bfloat16"; }
/// The same as a libfloat format.
constexpr format autocast_format(device_kind d) { return d == device_kind::cuda ? binary16 : bfloat16; }

struct autocast_entry {
  std::string_view op;
  cast_policy policy;
};

namespace internal {
// The tables list the aten op names (overloads collapsed) of PyTorch's
// aten/src/ATen/autocast_mode.cpp (PyTorch 2.x: AT_FORALL_LOWER_PRECISION_FP, AT_FORALL_FP32,
// AT_FORALL_FP32_SET_OPT_DTYPE, AT_FORALL_PROMOTE and the KERNEL_CPU registrations), in its order.
// Some summaries of the CUDA lists also name upsample_*, which PyTorch 1.x
// listed as fp32 and current PyTorch no longer registers, so they are not here (unlisted).
// Python-level composites are added where the docs' op reference names them and every op they
// decompose into has one policy: cross_entropy = log_softmax + nll_loss (both float32).

// CUDA: TORCH_LIBRARY_IMPL(aten, Autocast, m).
inline constexpr autocast_entry cuda_autocast_table[] = {
    // lower_precision_fp: cast to float16 (the autocast dtype)
    {"_convolution", cast_policy::lower_precision}, {"conv1d", cast_policy::lower_precision},
    {"conv2d", cast_policy::lower_precision}, {"conv3d", cast_policy::lower_precision},
    {"conv_tbc", cast_policy::lower_precision}, {"conv_transpose1d", cast_policy::lower_precision},
    {"conv_transpose2d", cast_policy::lower_precision}, {"conv_transpose3d", cast_policy::lower_precision},
    {"convolution", cast_policy::lower_precision}, {"prelu", cast_policy::lower_precision},
    {"addmm", cast_policy::lower_precision}, {"addmv", cast_policy::lower_precision},
    {"addr", cast_policy::lower_precision}, {"matmul", cast_policy::lower_precision},
    {"einsum", cast_policy::lower_precision}, {"mm", cast_policy::lower_precision},
    {"mv", cast_policy::lower_precision}, {"linalg_vecdot", cast_policy::lower_precision},
    {"linear", cast_policy::lower_precision}, {"addbmm", cast_policy::lower_precision},
    {"baddbmm", cast_policy::lower_precision}, {"bmm", cast_policy::lower_precision},
    {"chain_matmul", cast_policy::lower_precision}, {"linalg_multi_dot", cast_policy::lower_precision},
    {"_thnn_fused_lstm_cell", cast_policy::lower_precision},
    {"_thnn_fused_gru_cell", cast_policy::lower_precision}, {"lstm_cell", cast_policy::lower_precision},
    {"gru_cell", cast_policy::lower_precision}, {"rnn_tanh_cell", cast_policy::lower_precision},
    {"rnn_relu_cell", cast_policy::lower_precision},
    {"_scaled_dot_product_flash_attention", cast_policy::lower_precision},
    {"scaled_dot_product_attention", cast_policy::lower_precision},
    {"cudnn_convolution", cast_policy::lower_precision},
    {"cudnn_convolution_transpose", cast_policy::lower_precision},
    // fp32: cast to float32 (norm: fp32_append_dtype, the same effect)
    {"acos", cast_policy::fp32}, {"asin", cast_policy::fp32}, {"cosh", cast_policy::fp32},
    {"erfinv", cast_policy::fp32}, {"exp", cast_policy::fp32}, {"expm1", cast_policy::fp32},
    {"log", cast_policy::fp32}, {"log10", cast_policy::fp32}, {"log2", cast_policy::fp32},
    {"log1p", cast_policy::fp32}, {"reciprocal", cast_policy::fp32}, {"rsqrt", cast_policy::fp32},
    {"sinh", cast_policy::fp32}, {"tan", cast_policy::fp32}, {"pow", cast_policy::fp32},
    {"softplus", cast_policy::fp32}, {"layer_norm", cast_policy::fp32},
    {"native_layer_norm", cast_policy::fp32}, {"group_norm", cast_policy::fp32},
    {"frobenius_norm", cast_policy::fp32}, {"nuclear_norm", cast_policy::fp32},
    {"cosine_similarity", cast_policy::fp32}, {"poisson_nll_loss", cast_policy::fp32},
    {"cosine_embedding_loss", cast_policy::fp32}, {"nll_loss", cast_policy::fp32},
    {"nll_loss2d", cast_policy::fp32}, {"hinge_embedding_loss", cast_policy::fp32},
    {"kl_div", cast_policy::fp32}, {"l1_loss", cast_policy::fp32}, {"smooth_l1_loss", cast_policy::fp32},
    {"huber_loss", cast_policy::fp32}, {"mse_loss", cast_policy::fp32},
    {"margin_ranking_loss", cast_policy::fp32}, {"multilabel_margin_loss", cast_policy::fp32},
    {"soft_margin_loss", cast_policy::fp32}, {"triplet_margin_loss", cast_policy::fp32},
    {"multi_margin_loss", cast_policy::fp32}, {"binary_cross_entropy_with_logits", cast_policy::fp32},
    {"dist", cast_policy::fp32}, {"pdist", cast_policy::fp32}, {"cdist", cast_policy::fp32},
    {"renorm", cast_policy::fp32}, {"logsumexp", cast_policy::fp32}, {"norm", cast_policy::fp32},
    {"cross_entropy", cast_policy::fp32},
    // fp32_set_opt_dtype: float32 unless the call passes dtype=
    {"prod", cast_policy::fp32_unless_dtype}, {"softmax", cast_policy::fp32_unless_dtype},
    {"log_softmax", cast_policy::fp32_unless_dtype}, {"cumprod", cast_policy::fp32_unless_dtype},
    {"cumsum", cast_policy::fp32_unless_dtype}, {"linalg_vector_norm", cast_policy::fp32_unless_dtype},
    {"linalg_matrix_norm", cast_policy::fp32_unless_dtype}, {"sum", cast_policy::fp32_unless_dtype},
    // promote: the widest input type
    {"addcdiv", cast_policy::promote}, {"addcmul", cast_policy::promote}, {"atan2", cast_policy::promote},
    {"bilinear", cast_policy::promote}, {"cross", cast_policy::promote}, {"dot", cast_policy::promote},
    {"grid_sampler", cast_policy::promote}, {"index_put", cast_policy::promote},
    {"tensordot", cast_policy::promote}, {"scatter_add", cast_policy::promote},
    // binary_cross_entropy_banned: "torch.nn.functional.binary_cross_entropy and torch.nn.BCELoss
    // are unsafe to autocast" (use binary_cross_entropy_with_logits)
    {"binary_cross_entropy", cast_policy::banned},
};

// CPU: TORCH_LIBRARY_IMPL(aten, AutocastCPU, m). There is no fp32_set_opt_dtype list on CPU:
// softmax, log_softmax, layer_norm, exp, sum, ... are unlisted and run in their input dtype.
inline constexpr autocast_entry cpu_autocast_table[] = {
    // lower_precision_fp: cast to bfloat16 (the autocast dtype)
    {"conv1d", cast_policy::lower_precision}, {"conv2d", cast_policy::lower_precision},
    {"conv3d", cast_policy::lower_precision}, {"bmm", cast_policy::lower_precision},
    {"mm", cast_policy::lower_precision}, {"linalg_vecdot", cast_policy::lower_precision},
    {"baddbmm", cast_policy::lower_precision}, {"addmm", cast_policy::lower_precision},
    {"_addmm_activation", cast_policy::lower_precision}, {"addbmm", cast_policy::lower_precision},
    {"linear", cast_policy::lower_precision}, {"_convolution", cast_policy::lower_precision},
    {"matmul", cast_policy::lower_precision}, {"conv_tbc", cast_policy::lower_precision},
    {"mkldnn_rnn_layer", cast_policy::lower_precision}, {"conv_transpose1d", cast_policy::lower_precision},
    {"conv_transpose2d", cast_policy::lower_precision}, {"conv_transpose3d", cast_policy::lower_precision},
    {"prelu", cast_policy::lower_precision}, {"scaled_dot_product_attention", cast_policy::lower_precision},
    {"_native_multi_head_attention", cast_policy::lower_precision},
    // fp32: cast to float32
    {"avg_pool3d", cast_policy::fp32}, {"binary_cross_entropy", cast_policy::fp32},
    {"grid_sampler", cast_policy::fp32}, {"polar", cast_policy::fp32}, {"prod", cast_policy::fp32},
    {"quantile", cast_policy::fp32}, {"nanquantile", cast_policy::fp32}, {"stft", cast_policy::fp32},
    {"cdist", cast_policy::fp32}, {"grid_sampler_2d", cast_policy::fp32},
    {"_grid_sampler_2d_cpu_fallback", cast_policy::fp32}, {"grid_sampler_3d", cast_policy::fp32},
    {"trace", cast_policy::fp32}, {"view_as_complex", cast_policy::fp32}, {"cholesky", cast_policy::fp32},
    {"cholesky_inverse", cast_policy::fp32}, {"cholesky_solve", cast_policy::fp32},
    {"inverse", cast_policy::fp32}, {"lu_solve", cast_policy::fp32}, {"orgqr", cast_policy::fp32},
    {"ormqr", cast_policy::fp32}, {"pinverse", cast_policy::fp32}, {"max_pool3d", cast_policy::fp32},
    {"max_unpool2d", cast_policy::fp32}, {"max_unpool3d", cast_policy::fp32},
    {"adaptive_avg_pool3d", cast_policy::fp32}, {"reflection_pad1d", cast_policy::fp32},
    {"reflection_pad2d", cast_policy::fp32}, {"replication_pad1d", cast_policy::fp32},
    {"replication_pad2d", cast_policy::fp32}, {"replication_pad3d", cast_policy::fp32},
    {"mse_loss", cast_policy::fp32}, {"cosine_embedding_loss", cast_policy::fp32},
    {"nll_loss", cast_policy::fp32}, {"nll_loss2d", cast_policy::fp32},
    {"hinge_embedding_loss", cast_policy::fp32}, {"poisson_nll_loss", cast_policy::fp32},
    {"smooth_l1_loss", cast_policy::fp32}, {"cross_entropy_loss", cast_policy::fp32},
    {"l1_loss", cast_policy::fp32}, {"huber_loss", cast_policy::fp32},
    {"margin_ranking_loss", cast_policy::fp32}, {"soft_margin_loss", cast_policy::fp32},
    {"triplet_margin_loss", cast_policy::fp32}, {"multi_margin_loss", cast_policy::fp32},
    {"ctc_loss", cast_policy::fp32}, {"kl_div", cast_policy::fp32},
    {"multilabel_margin_loss", cast_policy::fp32}, {"binary_cross_entropy_with_logits", cast_policy::fp32},
    {"fft_fft", cast_policy::fp32}, {"fft_ifft", cast_policy::fp32}, {"fft_fft2", cast_policy::fp32},
    {"fft_ifft2", cast_policy::fp32}, {"fft_fftn", cast_policy::fp32}, {"fft_ifftn", cast_policy::fp32},
    {"fft_rfft", cast_policy::fp32}, {"fft_irfft", cast_policy::fp32}, {"fft_rfft2", cast_policy::fp32},
    {"fft_irfft2", cast_policy::fp32}, {"fft_rfftn", cast_policy::fp32}, {"fft_irfftn", cast_policy::fp32},
    {"fft_hfft", cast_policy::fp32}, {"fft_ihfft", cast_policy::fp32}, {"linalg_cond", cast_policy::fp32},
    {"linalg_matrix_rank", cast_policy::fp32}, {"linalg_solve", cast_policy::fp32},
    {"linalg_cholesky", cast_policy::fp32}, {"linalg_svdvals", cast_policy::fp32},
    {"linalg_eigvals", cast_policy::fp32}, {"linalg_eigvalsh", cast_policy::fp32},
    {"linalg_inv", cast_policy::fp32}, {"linalg_householder_product", cast_policy::fp32},
    {"linalg_tensorinv", cast_policy::fp32}, {"linalg_tensorsolve", cast_policy::fp32},
    {"fake_quantize_per_tensor_affine", cast_policy::fp32}, {"geqrf", cast_policy::fp32},
    {"_lu_with_info", cast_policy::fp32}, {"qr", cast_policy::fp32}, {"svd", cast_policy::fp32},
    {"triangular_solve", cast_policy::fp32}, {"fractional_max_pool2d", cast_policy::fp32},
    {"fractional_max_pool3d", cast_policy::fp32}, {"adaptive_max_pool3d", cast_policy::fp32},
    {"multilabel_margin_loss_forward", cast_policy::fp32}, {"linalg_qr", cast_policy::fp32},
    {"linalg_cholesky_ex", cast_policy::fp32}, {"linalg_svd", cast_policy::fp32},
    {"linalg_eig", cast_policy::fp32}, {"linalg_eigh", cast_policy::fp32},
    {"linalg_lstsq", cast_policy::fp32}, {"linalg_inv_ex", cast_policy::fp32},
    {"cross_entropy", cast_policy::fp32},
    // promote: the widest input type
    {"stack", cast_policy::promote}, {"cat", cast_policy::promote}, {"index_copy", cast_policy::promote},
};
}  // namespace internal

/// The policy table of a device, in PyTorch's registration order.
inline std::span<const autocast_entry> autocast_table(device_kind d) {
  if (d == device_kind::cuda) return internal::cuda_autocast_table;
  return internal::cpu_autocast_table;
}

/// What autocast does with one op call.
struct autocast_decision {
  cast_policy policy = cast_policy::unlisted;
  std::string_view dtype;  ///< the dtype the op computes in: "float16", "bfloat16", "float32", or
                           ///< the input dtype (promote: the widest; here the one given); empty if banned
};

/// Looks op up in device d's table: the policy and the dtype it runs in, for floating inputs of
/// dtype `input_dtype` ("float32", "float16", "bfloat16"; for promote, pass the widest input's).
/// Autocast leaves float64 inputs alone (not eligible), and ops not listed run in their input dtype.
inline autocast_decision autocast_lookup(device_kind d, std::string_view op, std::string_view input_dtype = "float32") {
  autocast_decision out;
  for (const autocast_entry& e : autocast_table(d))
    if (e.op == op) {
      out.policy = e.policy;
      break;
    }
  if (input_dtype == "float64") {
    out.dtype = input_dtype;
    return out;
  }
  switch (out.policy) {
    case cast_policy::lower_precision: out.dtype = autocast_dtype_name(d); break;
    case cast_policy::fp32:
    case cast_policy::fp32_unless_dtype: out.dtype = "float32"; break;
    case cast_policy::promote:
    case cast_policy::unlisted: out.dtype = input_dtype; break;
    case cast_policy::banned: out.dtype = {}; break;
  }
  return out;
}

// =============================================================================================
// 5. Memory footprint of the training state
// =============================================================================================

/// How weights, gradients and optimizer state are stored.
enum class training_recipe : std::uint8_t {
  fp32,        ///< everything binary32
  mixed_fp16,  ///< apex O2-style (Micikevicius et al. 2018): binary16 weights and gradients,
               ///< binary32 master weights and optimizer state
  mixed_bf16,  ///< the same with bfloat16 weights and gradients
  autocast_fp16,  ///< torch.amp: the parameters and their gradients stay binary32 and autocast
                  ///< casts to binary16 for the ops it runs in binary16 (autocast_table), so
                  ///< there are no master weights. The
                  ///< binary16 copies autocast makes of the weights (cached for the forward pass,
                  ///< kept by autograd for the backward pass) are temporary and not counted.
  autocast_bf16,  ///< the same with bfloat16 (CPU autocast's default)
};

enum class optimizer_kind : std::uint8_t {
  adam,          ///< two binary32 moments per parameter (m and v)
  sgd_momentum,  ///< one binary32 momentum buffer per parameter
  sgd,           ///< no state
};

struct memory_component {
  std::string_view name;    ///< "weights (fp16)", "master weights (fp32)", "Adam m (fp32)", ...
  format storage;           ///< the format each value is stored in
  std::uint64_t bytes_per_parameter = 0;
  std::uint64_t bytes = 0;  ///< parameters * bytes_per_parameter
};

struct footprint {
  std::uint64_t parameters = 0;
  std::vector<memory_component> components;
  std::uint64_t total_bytes = 0;
  std::uint64_t bytes_per_parameter = 0;
};

/// Bytes of the persistent training state for `parameters` parameters: weights, gradients,
/// master weights (mixed recipes) and optimizer state. Each value's size is its format's
/// bits() / 8. Activations, workspace and framework overhead are out of scope: they depend on
/// the model, batch and sequence length, and they are where mixed precision saves most memory
/// (with Adam the state above is 16 bytes per parameter in fp32, in torch.amp and in apex
/// O2-style mixed precision: 4+4+4+4, 4+4+4+4 and 2+2+4+4+4, the last as ZeRO, Rajbhandari et
/// al. 2020 §3.1, counts it; apex O2 with a non-fused optimizer also allocates binary32 gradients
/// for the master weights between backward and step, not counted here).
inline footprint memory_footprint(std::uint64_t parameters, training_recipe recipe,
                                  optimizer_kind opt = optimizer_kind::adam) {
  footprint f;
  f.parameters = parameters;
  auto add = [&](std::string_view name, const format& storage) {
    const std::uint64_t b = static_cast<std::uint64_t>(storage.bits()) / 8;
    f.components.push_back({name, storage, b, b * parameters});
    f.total_bytes += b * parameters;
    f.bytes_per_parameter += b;
  };
  switch (recipe) {
    case training_recipe::fp32:
    case training_recipe::autocast_fp16:
    case training_recipe::autocast_bf16:
      add("weights (fp32)", binary32);
      add("gradients (fp32)", binary32);
      break;
    case training_recipe::mixed_fp16:
      add("weights (fp16)", binary16);
      add("gradients (fp16)", binary16);
      add("master weights (fp32)", binary32);
      break;
    case training_recipe::mixed_bf16:
      add("weights (bf16)", bfloat16);
      add("gradients (bf16)", bfloat16);
      add("master weights (fp32)", binary32);
      break;
  }
  switch (opt) {
    case optimizer_kind::adam:
      add("Adam m (fp32)", binary32);
      add("Adam v (fp32)", binary32);
      break;
    case optimizer_kind::sgd_momentum: add("momentum (fp32)", binary32); break;
    case optimizer_kind::sgd: break;
  }
  return f;
}

}  // namespace lf::training
