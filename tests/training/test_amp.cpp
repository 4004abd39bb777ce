// training/amp.hpp: the mixed-precision training models, each against something that shares no code with
// the library:
//  - weight-update stagnation: the same loop in hardware arithmetic (_Float16, float, and
//    float + PyTorch's c10::BFloat16 rounding formula, c10/util/BFloat16.h), and step by step
//    against the exact-rational oracle (tests/support/oracle.hpp) in every rounding direction, for
//    mixed weight/update formats and for stochastic rounding with the same random words;
//  - grad_scaler: an independent re-statement of torch._amp_update_scale_ in float/double
//    (torch/amp/grad_scaler.py, AmpKernels.cu), on fixed and random overflow patterns;
//  - the autocast tables: the CUDA op lists of PyTorch's torch.amp documentation, typed here again;
//  - the memory calculator: plain integer arithmetic.
#include <libfloat/training/amp.hpp>

#include <doctest/doctest.h>

#include "../support/oracle.hpp"
#include "../support/oracle_mode.hpp"

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace {

using lf::training::simulate_stagnation;
using u64 = std::uint64_t;

// ---- independent roundings ---------------------------------------------------------------------

std::uint16_t bits_of_half(_Float16 h) { return std::bit_cast<std::uint16_t>(h); }
_Float16 half_of_bits(std::uint16_t b) { return std::bit_cast<_Float16>(b); }

/// PyTorch c10::BFloat16(float) (c10/util/BFloat16.h): round to nearest even on the bits.
std::uint16_t bf16_from_float(float f) {
  const std::uint32_t u = std::bit_cast<std::uint32_t>(f);
  return static_cast<std::uint16_t>((u + 0x7FFF + ((u >> 16) & 1)) >> 16);
}
float float_from_bf16(std::uint16_t b) { return std::bit_cast<float>(static_cast<std::uint32_t>(b) << 16); }

/// The loop w <- w + u in binary16 hardware arithmetic (GCC computes _Float16 sums in float and
/// rounds once more: innocuous, 24 >= 2*11 + 2). Returns {final bits, lost steps, first lost}.
struct replay {
  u64 final_bits;
  std::int64_t lost;
  std::int64_t first_lost;
};
replay replay_fp16(_Float16 w, _Float16 u, std::int64_t steps) {
  replay r{0, 0, 0};
  for (std::int64_t k = 1; k <= steps; ++k) {
    const _Float16 next = static_cast<_Float16>(w + u);
    if (bits_of_half(next) == bits_of_half(w)) {
      ++r.lost;
      if (r.first_lost == 0) r.first_lost = k;
    }
    w = next;
  }
  r.final_bits = bits_of_half(w);
  return r;
}
replay replay_bf16(std::uint16_t w, std::uint16_t u, std::int64_t steps) {
  replay r{0, 0, 0};
  for (std::int64_t k = 1; k <= steps; ++k) {
    // the float sum of two bf16 values, rounded to bf16: innocuous double rounding (24 >= 2*8 + 2)
    const std::uint16_t next = bf16_from_float(float_from_bf16(w) + float_from_bf16(u));
    if (next == w) {
      ++r.lost;
      if (r.first_lost == 0) r.first_lost = k;
    }
    w = next;
  }
  r.final_bits = w;
  return r;
}
replay replay_fp32(float w, float u, std::int64_t steps) {
  replay r{0, 0, 0};
  for (std::int64_t k = 1; k <= steps; ++k) {
    volatile float next = w + u;  // volatile: one binary32 rounding per step, as written
    if (std::bit_cast<std::uint32_t>(static_cast<float>(next)) == std::bit_cast<std::uint32_t>(w)) {
      ++r.lost;
      if (r.first_lost == 0) r.first_lost = k;
    }
    w = next;
  }
  r.final_bits = std::bit_cast<std::uint32_t>(w);
  return r;
}

oracle::target target_of(const lf::format& f) {
  if (f == lf::binary16) return oracle::binary16;
  if (f == lf::bfloat16) return oracle::bfloat16;
  if (f == lf::binary32) return oracle::binary32;
  if (f == lf::binary64) return oracle::binary64;
  if (f == lf::float8_e5m2) return oracle::e5m2;
  if (f == lf::float8_e4m3fn) return oracle::e4m3;
  throw std::logic_error("no oracle target");
}

/// The loop with every step's sum exact (cpp_int rationals) and rounded by the oracle into W;
/// stochastic rounding draws step k's random word as the k-th output of std::mt19937(seed).
replay replay_oracle(const lf::format& W, u64 w, const lf::format& U, u64 u, std::int64_t steps, lf::rounding mode,
                     std::uint32_t seed = 1) {
  const oracle::target tw = target_of(W), tu = target_of(U);
  const oracle::exact uv = oracle::decode(tu, u).value;
  std::mt19937 random(seed);
  replay r{0, 0, 0};
  for (std::int64_t k = 1; k <= steps; ++k) {
    const oracle::exact wv = oracle::decode(tw, w).value;
    u64 next;
    if (wv.is_inf()) {
      next = w;  // an overflowed weight: inf + finite u = inf (directed modes overflow in e5m2 here)
    } else if (uv.is_zero()) {
      next = w;  // w + 0 = w for nonzero w (the cases below have no zero weight with a zero update)
    } else {
      const oracle::exact s = wv.is_zero() ? uv : oracle::detail::exact_add(wv, uv);
      if (s.is_zero()) next = mode == lf::rounding::downward ? tw.sign_mask() : 0;
      else if (mode == lf::rounding::stochastic)
        next = oracle::round_stochastic(s, tw, static_cast<std::uint32_t>(random())).bits;
      else next = oracle::round(s, tw, oracle::mode_of(mode)).bits;
    }
    if (next == w) {
      ++r.lost;
      if (r.first_lost == 0) r.first_lost = k;
    }
    w = next;
  }
  r.final_bits = w;
  return r;
}

void check_against(const lf::training::stagnation_result& got, const replay& want) {
  CHECK(got.final_bits == want.final_bits);
  CHECK(got.lost_steps == want.lost);
  CHECK(got.first_lost_step == want.first_lost);
}

}  // namespace

// =============================================================================================
// stagnation
// =============================================================================================

TEST_CASE("half an ulp of 1 is 2^-11 in fp16, 2^-8 in bf16, 2^-24 in fp32 (p = 11, 8, 24)") {
  CHECK(lf::training::half_ulp(lf::binary16, 1.0) == std::ldexp(1.0, -11));
  CHECK(lf::training::half_ulp(lf::bfloat16, 1.0) == std::ldexp(1.0, -8));
  CHECK(lf::training::half_ulp(lf::binary32, 1.0) == std::ldexp(1.0, -24));
  CHECK(lf::training::half_ulp(lf::binary16, u64{0x3C00}) == std::ldexp(1.0, -11));
  // 1024 <= 2000 < 2048: ulp 1, so half an ulp is 0.5; at the subnormals ulp is 2^-24
  CHECK(lf::training::half_ulp(lf::binary16, 2000.0) == 0.5);
  CHECK(lf::training::half_ulp(lf::binary16, u64{0x0001}) == std::ldexp(1.0, -25));
  CHECK(lf::training::half_ulp(lf::binary16, u64{0x0000}) == std::ldexp(1.0, -25));
  CHECK(std::isinf(lf::training::half_ulp(lf::binary16, u64{0x7C00})));
  // Micikevicius et al. 2018: an update is lost when |w| >= 2048 |u|; 2048 = 2^p for fp16
  CHECK(lf::training::stagnation_ratio(lf::binary16) == 2048.0);
  CHECK(lf::training::stagnation_ratio(lf::bfloat16) == 256.0);
}

TEST_CASE("update_is_lost agrees with _Float16 addition, ties and the power-of-two gap below included") {
  // w = 1: the tie 1 + 2^-11 goes to even 1 (lost); just above it is kept
  CHECK(lf::training::update_is_lost(lf::binary16, 1.0, std::ldexp(1.0, -11)));
  CHECK_FALSE(lf::training::update_is_lost(lf::binary16, 1.0, std::ldexp(1.0, -11) + std::ldexp(1.0, -30)));
  // w = 1 + 2^-10 has an odd last bit: the tie goes up, the update is kept
  CHECK_FALSE(lf::training::update_is_lost(lf::binary16, 1.0 + std::ldexp(1.0, -10), std::ldexp(1.0, -11)));
  // below a power of two the gap is halved: -2^-12 is the tie towards 1 - 2^-11
  CHECK(lf::training::update_is_lost(lf::binary16, 1.0, -std::ldexp(1.0, -12)));
  CHECK_FALSE(lf::training::update_is_lost(lf::binary16, 1.0, -std::ldexp(1.0, -12) - std::ldexp(1.0, -30)));
  // the headline: 1e-4 < 2^-11 in fp16, not in fp32
  CHECK(lf::training::update_is_lost(lf::binary16, 1.0, 1e-4));
  CHECK(lf::training::update_is_lost(lf::bfloat16, 1.0, 1e-4));
  CHECK_FALSE(lf::training::update_is_lost(lf::binary32, 1.0, 1e-4));
  // directed rounding: upward never loses a positive update
  CHECK_FALSE(lf::training::update_is_lost(lf::binary16, 1.0, 1e-4, lf::rounding::upward));

  // every fp16 weight in [1/4, 4) with a sweep of fp16 updates, against the hardware
  std::mt19937 gen(12345);
  for (std::uint16_t wb = 0x3400; wb < 0x4400; wb = static_cast<std::uint16_t>(wb + 7)) {
    for (int i = 0; i < 8; ++i) {
      const std::uint16_t ub = static_cast<std::uint16_t>((gen() & 0x83FF) | ((gen() % 12 + 8) << 10));  // |u| in 2^-7..2^4 region
      const _Float16 w = half_of_bits(wb), u = half_of_bits(ub);
      const bool want = bits_of_half(static_cast<_Float16>(w + u)) == wb;
      CHECK(lf::training::update_is_lost(lf::binary16, wb, lf::binary16, ub) == want);
    }
  }
}

TEST_CASE("fp16 and bf16 weights stall at 1 under 10,000 updates of 1e-4; an fp32 master weight reaches about 2") {
  const _Float16 u16 = static_cast<_Float16>(1e-4);  // GCC: double -> _Float16 in one rounding
  const std::uint16_t ubf = bf16_from_float(static_cast<float>(1e-4));  // innocuous: 24 >= 2*8+2
  const float u32 = static_cast<float>(1e-4);

  const auto h = simulate_stagnation(lf::binary16, lf::binary16, 1.0, 1e-4, 10000);
  CHECK(h.params.update == bits_of_half(u16));
  CHECK(h.final_value == 1.0);
  CHECK(h.lost_steps == 10000);
  CHECK(h.first_lost_step == 1);
  check_against(h, replay_fp16(static_cast<_Float16>(1.0), u16, 10000));
  // the exact value uses u as stored in fp16: 1 + 10000 u, exact in double (11 + 14 bits)
  CHECK(h.exact_value == 1.0 + 10000.0 * static_cast<double>(u16));
  CHECK(h.exact_value_is_exact);
  CHECK(h.error == 1.0 - (1.0 + 10000.0 * static_cast<double>(u16)));
  CHECK(h.half_ulp_initial == std::ldexp(1.0, -11));
  CHECK(h.update_value < h.half_ulp_initial);

  const auto b = simulate_stagnation(lf::bfloat16, lf::bfloat16, 1.0, 1e-4, 10000);
  CHECK(b.params.update == ubf);
  CHECK(b.final_value == 1.0);
  CHECK(b.lost_steps == 10000);
  check_against(b, replay_bf16(bf16_from_float(1.0f), ubf, 10000));

  const auto m = simulate_stagnation(lf::binary32, lf::binary32, 1.0, 1e-4, 10000);
  CHECK(m.lost_steps == 0);
  CHECK(m.first_lost_step == 0);
  CHECK(std::fabs(m.final_value - 2.0) < 1e-3);
  check_against(m, replay_fp32(1.0f, u32, 10000));
  CHECK(m.final_value == static_cast<double>(std::bit_cast<float>(static_cast<std::uint32_t>(m.final_bits))));
  CHECK(m.exact_value == 1.0 + 10000.0 * static_cast<double>(u32));  // 24 + 14 bits: exact in double
}

TEST_CASE("stagnation mid-run: fp16 + 1e-3 stalls at 4, and other weights and signs, against the hardware") {
  struct item {
    double w0, u;
    std::int64_t steps;
  };
  const item items[] = {{1.0, 1e-3, 10000}, {0.0, 1e-3, 5000}, {1000.0, 0.3, 3000}, {1.0, -1e-3, 3000},
                        {-2.0, 7e-4, 8000}, {0.5, 3e-5, 4000},  {100.0, 0.0, 10}};
  for (const item& it : items) {
    CAPTURE(it.w0);
    CAPTURE(it.u);
    const auto h = simulate_stagnation(lf::binary16, lf::binary16, it.w0, it.u, it.steps);
    check_against(h, replay_fp16(static_cast<_Float16>(it.w0), static_cast<_Float16>(it.u), it.steps));
    const auto b = simulate_stagnation(lf::bfloat16, lf::bfloat16, it.w0, it.u, it.steps);
    check_against(b, replay_bf16(bf16_from_float(static_cast<float>(it.w0)), bf16_from_float(static_cast<float>(it.u)),
                                 it.steps));
    const auto f = simulate_stagnation(lf::binary32, lf::binary32, it.w0, it.u, it.steps);
    check_against(f, replay_fp32(static_cast<float>(it.w0), static_cast<float>(it.u), it.steps));
  }
  // the stall point: 1 + k*fp16(1e-3) stops at 4, where half an ulp (2^-9) exceeds the update
  const auto h = simulate_stagnation(lf::binary16, lf::binary16, 1.0, 1e-3, 10000);
  CHECK(h.final_value == 4.0);
  CHECK(h.half_ulp_final == std::ldexp(1.0, -9));
  CHECK(h.update_value <= h.half_ulp_final);
}

TEST_CASE("every rounding direction, and mixed weight/update formats, step by step against the oracle") {
  const lf::format formats[] = {lf::binary16, lf::bfloat16, lf::binary32, lf::float8_e5m2};
  for (const lf::format& W : formats)
    for (const lf::format& U : formats)
      for (lf::rounding mode : lf::deterministic_roundings) {
        CAPTURE(lf::format_name(W));
        CAPTURE(lf::format_name(U));
        CAPTURE(lf::rounding_name(mode));
        const auto r = simulate_stagnation(W, U, 1.0, 3e-3, 400, mode);
        check_against(r, replay_oracle(W, r.params.weight, U, r.params.update, 400, mode));
        const auto n = simulate_stagnation(W, U, 0.75, -2e-3, 300, mode);
        check_against(n, replay_oracle(W, n.params.weight, U, n.params.update, 300, mode));
        const auto z = simulate_stagnation(W, U, 0.0, 1e-3, 50, mode);
        check_against(z, replay_oracle(W, z.params.weight, U, z.params.update, 50, mode));
      }
}

TEST_CASE("stochastic rounding: fp16 + 1e-4 keeps moving, reproducibly, as the oracle replays it") {
  lf::training::stagnation_params p;
  p.weight_format = p.update_format = lf::binary16;
  p.weight = 0x3C00;  // 0.01111.0000000000 = 1
  p.update = bits_of_half(static_cast<_Float16>(1e-4));
  p.steps = 3000;
  p.e = lf::env{lf::rounding::stochastic};
  p.seed = 7;
  const auto r = simulate_stagnation(p);
  check_against(r, replay_oracle(lf::binary16, p.weight, lf::binary16, p.update, p.steps, lf::rounding::stochastic, 7));
  CHECK(r.final_value > 1.2);  // nearest even stays at 1; 1 + 3000 u = 1.3
  CHECK(simulate_stagnation(p).final_bits == r.final_bits);
}

// =============================================================================================
// grad_scaler
// =============================================================================================

namespace {
/// torch._amp_update_scale_ re-stated from torch/amp/grad_scaler.py and AmpKernels.cu, in float/double.
struct reference_scaler {
  float scale;
  std::int64_t tracker = 0;
  double growth, backoff;
  std::int64_t interval;
  bool grew = false, blocked = false;  // what the last update did at growth_interval
  bool update(bool found_inf) {
    grew = blocked = false;
    if (found_inf) {
      scale = static_cast<float>(static_cast<double>(scale) * backoff);
      tracker = 0;
      return true;
    }
    if (tracker + 1 == interval) {
      const float grown = static_cast<float>(static_cast<double>(scale) * growth);
      if (std::isfinite(grown)) scale = grown;
      grew = std::isfinite(grown);
      blocked = !grew;
      tracker = 0;
    } else {
      ++tracker;
    }
    return false;
  }
};
}  // namespace

TEST_CASE("grad_scaler: PyTorch's defaults") {
  const lf::training::grad_scaler s;
  CHECK(s.scale() == 65536.0f);
  CHECK(s.options().growth_factor == 2.0);
  CHECK(s.options().backoff_factor == 0.5);
  CHECK(s.options().growth_interval == 2000);
  CHECK(s.options().enabled);
  CHECK(s.growth_tracker() == 0);
  CHECK(s.inverse_scale() == std::ldexp(1.0f, -16));
}

TEST_CASE("grad_scaler: 2000 clean steps double the scale, an overflow halves it and resets the tracker") {
  lf::training::grad_scaler s;
  for (int i = 1; i < 2000; ++i) CHECK_FALSE(s.update(false));
  CHECK(s.growth_tracker() == 1999);
  CHECK(s.scale() == 65536.0f);
  CHECK_FALSE(s.update(false));
  CHECK(s.scale() == 131072.0f);
  CHECK(s.growth_tracker() == 0);
  s.update(false);
  CHECK(s.update(true));  // skipped
  CHECK(s.scale() == 65536.0f);
  CHECK(s.growth_tracker() == 0);
}

TEST_CASE("grad_scaler: never grows to infinity; disabled does nothing") {
  lf::training::grad_scaler_options o;
  o.init_scale = std::ldexp(1.0, 127);
  o.growth_interval = 1;
  lf::training::grad_scaler s(o);
  for (int i = 0; i < 5; ++i) s.update(false);
  CHECK(s.last_event() == lf::training::scaler_event::growth_blocked);
  CHECK(s.scale() == std::ldexp(1.0f, 127));
  CHECK(s.growth_tracker() == 0);

  o.enabled = false;
  lf::training::grad_scaler off(o);
  CHECK(off.scale() == 1.0f);
  CHECK_FALSE(off.update(true));
  CHECK(off.inverse_scale() == 1.0f);
}

TEST_CASE("grad_scaler trajectories match the re-statement bit for bit (odd factors round in double then float)") {
  std::mt19937 gen(2024);
  const double growths[] = {2.0, 1.1, 3.0, 1.0000001};
  const double backoffs[] = {0.5, 0.3, 0.9, 0.7071067811865476};
  const double inits[] = {65536.0, 3.0, 1e-3, 1e30};
  for (int trial = 0; trial < 64; ++trial) {
    lf::training::grad_scaler_options o;
    o.growth_factor = growths[trial % 4];
    o.backoff_factor = backoffs[(trial / 4) % 4];
    o.init_scale = inits[(trial / 16) % 4];
    o.growth_interval = 1 + static_cast<std::int64_t>(gen() % 9);
    const double p = (gen() % 5) / 10.0;
    std::vector<bool> pattern(300);
    for (std::size_t i = 0; i < pattern.size(); ++i) pattern[i] = (gen() % 1000) < p * 1000;
    const auto traj = lf::training::run_scaler(o, pattern);
    reference_scaler ref{static_cast<float>(o.init_scale), 0, o.growth_factor, o.backoff_factor, o.growth_interval};
    REQUIRE(std::isfinite(ref.scale));
    REQUIRE(traj.size() == pattern.size());
    for (std::size_t i = 0; i < pattern.size(); ++i) {
      CAPTURE(trial);
      CAPTURE(i);
      const float before = ref.scale;
      CHECK(std::bit_cast<std::uint32_t>(traj[i].scale_used) == std::bit_cast<std::uint32_t>(before));
      // GradScaler.unscale_: inv_scale = self._scale.double().reciprocal().float()
      const float inv = static_cast<float>(1.0 / static_cast<double>(before));
      CHECK(std::bit_cast<std::uint32_t>(traj[i].inverse_scale_used) == std::bit_cast<std::uint32_t>(inv));
      const bool skipped = ref.update(pattern[i]);
      CHECK(traj[i].step == static_cast<std::int64_t>(i) + 1);
      CHECK(traj[i].overflow == pattern[i]);
      CHECK(traj[i].skipped == skipped);
      CHECK(std::bit_cast<std::uint32_t>(traj[i].scale_after) == std::bit_cast<std::uint32_t>(ref.scale));
      CHECK(traj[i].tracker_after == ref.tracker);
      CHECK(traj[i].backed_off == pattern[i]);
      CHECK(traj[i].grew == ref.grew);
      CHECK((traj[i].event == lf::training::scaler_event::growth_blocked) == ref.blocked);
      CHECK((traj[i].event == lf::training::scaler_event::none) == (!pattern[i] && !ref.grew && !ref.blocked));
    }
  }
}

TEST_CASE("run_scaler with step numbers: growth interval 8, overflows at 3 and 17 (the quiz's Q6 shape)") {
  lf::training::grad_scaler_options o;
  o.growth_interval = 8;
  const auto t = lf::training::run_scaler(o, 40, std::set<std::int64_t>{3, 17, 0, 41});  // 0 and 41 ignored
  REQUIRE(t.size() == 40);
  float scale = 65536.0f;
  std::int64_t tracker = 0;
  for (const auto& s : t) {
    const bool inf = s.step == 3 || s.step == 17;
    CHECK(s.overflow == inf);
    if (inf) {
      scale /= 2;
      tracker = 0;
    } else if (++tracker == 8) {
      scale *= 2;
      tracker = 0;
    }
    CHECK(s.scale_after == scale);
  }
  CHECK(t[2].skipped);
  CHECK(t[2].scale_after == 32768.0f);
  CHECK(t[10].grew);  // step 11 = 3 + 8
  CHECK(t[10].scale_after == 65536.0f);
}

// =============================================================================================
// autocast
// =============================================================================================

TEST_CASE("autocast CUDA table holds the torch.amp documentation's CUDA op lists") {
  using lf::training::cast_policy;
  using lf::training::device_kind;
  const std::pair<const char*, cast_policy> facts[] = {
      {"conv1d", cast_policy::lower_precision}, {"conv2d", cast_policy::lower_precision},
      {"conv3d", cast_policy::lower_precision}, {"conv_transpose1d", cast_policy::lower_precision},
      {"conv_transpose2d", cast_policy::lower_precision}, {"conv_transpose3d", cast_policy::lower_precision},
      {"prelu", cast_policy::lower_precision}, {"addmm", cast_policy::lower_precision},
      {"addmv", cast_policy::lower_precision}, {"addr", cast_policy::lower_precision},
      {"matmul", cast_policy::lower_precision}, {"einsum", cast_policy::lower_precision},
      {"mm", cast_policy::lower_precision}, {"mv", cast_policy::lower_precision},
      {"linear", cast_policy::lower_precision}, {"addbmm", cast_policy::lower_precision},
      {"baddbmm", cast_policy::lower_precision}, {"bmm", cast_policy::lower_precision},
      {"chain_matmul", cast_policy::lower_precision}, {"linalg_multi_dot", cast_policy::lower_precision},
      {"lstm_cell", cast_policy::lower_precision}, {"gru_cell", cast_policy::lower_precision},
      {"scaled_dot_product_attention", cast_policy::lower_precision},
      {"acos", cast_policy::fp32}, {"asin", cast_policy::fp32}, {"cosh", cast_policy::fp32},
      {"erfinv", cast_policy::fp32}, {"exp", cast_policy::fp32}, {"expm1", cast_policy::fp32},
      {"log", cast_policy::fp32}, {"log10", cast_policy::fp32}, {"log2", cast_policy::fp32},
      {"log1p", cast_policy::fp32}, {"reciprocal", cast_policy::fp32}, {"rsqrt", cast_policy::fp32},
      {"sinh", cast_policy::fp32}, {"tan", cast_policy::fp32}, {"pow", cast_policy::fp32},
      {"softplus", cast_policy::fp32}, {"layer_norm", cast_policy::fp32}, {"group_norm", cast_policy::fp32},
      {"norm", cast_policy::fp32}, {"cosine_similarity", cast_policy::fp32}, {"nll_loss", cast_policy::fp32},
      {"kl_div", cast_policy::fp32}, {"l1_loss", cast_policy::fp32}, {"smooth_l1_loss", cast_policy::fp32},
      {"huber_loss", cast_policy::fp32}, {"mse_loss", cast_policy::fp32},
      {"binary_cross_entropy_with_logits", cast_policy::fp32}, {"dist", cast_policy::fp32},
      {"pdist", cast_policy::fp32}, {"cdist", cast_policy::fp32}, {"renorm", cast_policy::fp32},
      {"logsumexp", cast_policy::fp32},
      {"prod", cast_policy::fp32_unless_dtype}, {"softmax", cast_policy::fp32_unless_dtype},
      {"log_softmax", cast_policy::fp32_unless_dtype}, {"cumprod", cast_policy::fp32_unless_dtype},
      {"cumsum", cast_policy::fp32_unless_dtype}, {"sum", cast_policy::fp32_unless_dtype},
      {"addcdiv", cast_policy::promote}, {"addcmul", cast_policy::promote}, {"atan2", cast_policy::promote},
      {"bilinear", cast_policy::promote}, {"cross", cast_policy::promote}, {"dot", cast_policy::promote},
      {"vdot", cast_policy::unlisted},  // named in the torch.amp docs but not registered by autocast_mode.cpp
      {"grid_sampler", cast_policy::promote}, {"index_put", cast_policy::promote},
      {"tensordot", cast_policy::promote}, {"scatter_add", cast_policy::promote},
      {"binary_cross_entropy", cast_policy::banned},
  };
  for (const auto& [op, policy] : facts) {
    CAPTURE(op);
    CHECK(lf::training::autocast_lookup(device_kind::cuda, op).policy == policy);
  }
}

TEST_CASE("autocast lookups: dtypes per device, unlisted ops, float64 not eligible, no duplicates") {
  using lf::training::cast_policy;
  using lf::training::device_kind;
  CHECK(lf::training::autocast_lookup(device_kind::cuda, "matmul").dtype == "float16");
  CHECK(lf::training::autocast_lookup(device_kind::cpu, "matmul").dtype == "bfloat16");
  CHECK(lf::training::autocast_lookup(device_kind::cuda, "softmax").dtype == "float32");
  // CPU autocast has no fp32 rule for softmax or layer_norm: they run in the input dtype
  const auto cpu_softmax = lf::training::autocast_lookup(device_kind::cpu, "softmax", "bfloat16");
  CHECK(cpu_softmax.policy == cast_policy::unlisted);
  CHECK(cpu_softmax.dtype == "bfloat16");
  CHECK(lf::training::autocast_lookup(device_kind::cpu, "layer_norm", "bfloat16").dtype == "bfloat16");
  CHECK(lf::training::autocast_lookup(device_kind::cpu, "binary_cross_entropy").policy == cast_policy::fp32);
  CHECK(lf::training::autocast_lookup(device_kind::cuda, "binary_cross_entropy").dtype.empty());
  CHECK(lf::training::autocast_lookup(device_kind::cuda, "gelu", "float16").dtype == "float16");
  CHECK(lf::training::autocast_lookup(device_kind::cuda, "addcmul", "float32").dtype == "float32");
  CHECK(lf::training::autocast_lookup(device_kind::cuda, "matmul", "float64").dtype == "float64");
  CHECK(lf::training::autocast_lookup(device_kind::cuda, "cross_entropy").dtype == "float32");
  CHECK(lf::training::autocast_format(device_kind::cuda) == lf::binary16);
  CHECK(lf::training::autocast_format(device_kind::cpu) == lf::bfloat16);
  for (device_kind d : {device_kind::cuda, device_kind::cpu}) {
    std::set<std::string_view> seen;
    for (const auto& e : lf::training::autocast_table(d)) {
      CAPTURE(e.op);
      CHECK(seen.insert(e.op).second);
      CHECK(e.policy != cast_policy::unlisted);
    }
  }
}

// =============================================================================================
// memory
// =============================================================================================

TEST_CASE("memory footprint: 1B parameters with Adam take 16 GB in fp32 and in fp16 mixed precision") {
  const std::uint64_t n = 1'000'000'000;
  const auto fp32 = lf::training::memory_footprint(n, lf::training::training_recipe::fp32);
  REQUIRE(fp32.components.size() == 4);  // weights, gradients, m, v
  CHECK(fp32.bytes_per_parameter == 4 + 4 + 4 + 4);
  CHECK(fp32.total_bytes == 16 * n);

  const auto mixed = lf::training::memory_footprint(n, lf::training::training_recipe::mixed_fp16);
  REQUIRE(mixed.components.size() == 5);  // fp16 weights and gradients, fp32 master, m, v
  CHECK(mixed.components[0].bytes_per_parameter == 2);
  CHECK(mixed.components[1].bytes_per_parameter == 2);
  CHECK(mixed.components[2].bytes_per_parameter == 4);
  CHECK(mixed.components[2].storage == lf::binary32);
  CHECK(mixed.total_bytes == (2 + 2 + 4 + 4 + 4) * n);
  std::uint64_t sum = 0;
  for (const auto& c : mixed.components) {
    CHECK(c.bytes == c.bytes_per_parameter * n);
    sum += c.bytes;
  }
  CHECK(sum == mixed.total_bytes);

  const auto bf = lf::training::memory_footprint(n, lf::training::training_recipe::mixed_bf16, lf::training::optimizer_kind::sgd);
  CHECK(bf.total_bytes == (2 + 2 + 4) * n);
  CHECK(bf.components[0].storage == lf::bfloat16);
  const auto mom = lf::training::memory_footprint(7, lf::training::training_recipe::fp32, lf::training::optimizer_kind::sgd_momentum);
  CHECK(mom.total_bytes == 7 * 12);
}

TEST_CASE("half_gap: half an ulp, except below a power of two, where the gap is halved") {
  CHECK(lf::training::half_gap(lf::binary16, u64{0x3C00}, true) == std::ldexp(1.0, -11));   // 1 -> 1 + 2^-10
  CHECK(lf::training::half_gap(lf::binary16, u64{0x3C00}, false) == std::ldexp(1.0, -12));  // 1 -> 1 - 2^-11
  CHECK(lf::training::half_gap(lf::binary16, u64{0x3C01}, false) == std::ldexp(1.0, -11));
  CHECK(lf::training::half_gap(lf::binary16, u64{0x0400}, false) == std::ldexp(1.0, -25));  // min normal: subnormal spacing
  CHECK(std::isinf(lf::training::half_gap(lf::binary16, u64{0x7BFF}, true)));               // 65504: nothing finite above
  // the threshold it names is the hardware's: just below it is lost, just above it is kept
  for (std::uint16_t wb : {std::uint16_t{0x3C00}, std::uint16_t{0x4400}, std::uint16_t{0x3555}, std::uint16_t{0xBC00}}) {
    for (bool up : {true, false}) {
      const double h = lf::training::half_gap(lf::binary16, u64{wb}, up);
      const double below = (up ? 1 : -1) * h * 0.75, above = (up ? 1 : -1) * h * 1.25;
      const double w = static_cast<double>(half_of_bits(wb));
      CHECK(bits_of_half(static_cast<_Float16>(w + below)) == wb);
      CHECK(bits_of_half(static_cast<_Float16>(w + above)) != wb);
    }
  }
}
