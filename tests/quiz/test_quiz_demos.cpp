// The quiz demos' key numbers (quiz/demos/), each against an independent computation: hardware
// _Float16 and float arithmetic, exact integers, the exact-rational oracle (tests/support/oracle.hpp),
// and hand-written reimplementations (GradScaler's rule, bfloat16 rounding). Compiled with
// -ffp-contract=off so that the hardware references round every operation as written.
#include <doctest/doctest.h>

#include <cfloat>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "demos/demos.hpp"
#include "demos/facts.hpp"
#include "../support/oracle.hpp"

using namespace mpq;

namespace {

/// x rounded (nearest even) to bfloat16 by the exact-rational oracle, back as a double.
double oracle_bf16(double x) {
  const oracle::result r =
      oracle::convert(oracle::bfloat16, oracle::binary64, std::bit_cast<std::uint64_t>(x), oracle::mode::nearest_even);
  const std::uint32_t f = static_cast<std::uint32_t>(r.bits) << 16;  // bfloat16 is binary32's top half
  return static_cast<double>(std::bit_cast<float>(f));
}

/// Largest finite value of an IEEE-style format from its spec parameters: (2 - 2^(1-p)) 2^emax.
double max_finite(const oracle::target& t) { return (2.0 - std::ldexp(1.0, 1 - t.p)) * std::ldexp(1.0, t.emax); }
double min_subnormal(const oracle::target& t) { return std::ldexp(1.0, t.emin - (t.p - 1)); }

/// Hardware binary16: every operation rounded to _Float16 by a cast (so no excess precision).
using h16 = _Float16;
h16 h(double x) { return static_cast<h16>(x); }

}  // namespace

TEST_CASE("Q1: fp16 and bf16 weights stay 1 under 10,000 updates of 1e-4; an fp32 master weight moves") {
  const demo::q1_result r = demo::run_q1();
  h16 w = 1;
  const h16 u = h(1e-4);
  int lost = 0;
  for (int k = 0; k < 10000; ++k) {
    const h16 next = static_cast<h16>(w + u);
    lost += next == w;
    w = next;
  }
  CHECK(static_cast<double>(w) == 1.0);
  CHECK(r.fp16.final_value == static_cast<double>(w));
  CHECK(r.fp16.lost_steps == lost);
  CHECK(lost == 10000);

  double wb = 1;  // bfloat16 weight; 1 + u is exact in binary64, rounded once by the oracle
  const double ub = oracle_bf16(1e-4);
  for (int k = 0; k < 10000; ++k) wb = oracle_bf16(wb + ub);
  CHECK(wb == 1.0);
  CHECK(r.bf16.final_value == wb);

  float wf = 1.0f;
  const float uf = 1e-4f;
  for (int k = 0; k < 10000; ++k) wf = wf + uf;
  CHECK(r.fp32.final_value == static_cast<double>(wf));
  CHECK(r.fp32.final_value > 1.99);
  CHECK(r.fp32.lost_steps == 0);
  CHECK(r.fp32.exact_value == doctest::Approx(1.0 + 10000.0 * static_cast<double>(uf)).epsilon(1e-15));

  // Half an ulp of 1 in binary16 is 2^-p = 2^-11; the rule's ratio is 2^p = 2048.
  CHECK(r.half_ulp_one_fp16 == std::ldexp(1.0, -oracle::binary16.p));
  CHECK(r.ratio_fp16 == 2048.0);
  // The rule at a power of two, on the hardware: w = 2048 u loses u (a tie, to even), w = 1024 u keeps it.
  const h16 small = h(std::ldexp(1.0, -12));
  CHECK(static_cast<h16>(h(0.5) + small) == h(0.5));
  CHECK(static_cast<h16>(h(0.25) + small) != h(0.25));
}

TEST_CASE("Q2: fractions zero / subnormal / overflow in fp16 at scales 1, 8, 2^10, 2^16, against _Float16") {
  const demo::q2_result r = demo::run_q2(demo::default_seed);
  REQUIRE(r.grads.values.size() == 10000);
  for (const double g : r.grads.values) {
    REQUIRE(g > std::ldexp(1.0, -40));
    REQUIRE(g <= 1.0);
  }
  REQUIRE(r.rows.size() == 5);
  const double scales[] = {1, 8, 1024, 65536, 1048576};
  for (std::size_t i = 0; i < 5; ++i) {
    CAPTURE(scales[i]);
    CHECK(r.rows[i].scale == scales[i]);
    std::int64_t zero = 0, sub = 0, normal = 0, inf = 0;
    for (const double g : r.grads.values) {
      const h16 x = h(g * scales[i]);
      switch (std::fpclassify(static_cast<float>(x))) {
        case FP_ZERO: ++zero; break;
        case FP_SUBNORMAL: ++sub; break;  // binary16 subnormals are binary32 normals: classify by value
        case FP_INFINITE: ++inf; break;
        default: (std::fabs(static_cast<double>(x)) < std::ldexp(1.0, oracle::binary16.emin) ? sub : normal)++;
      }
    }
    CHECK(r.rows[i].zero == zero);
    CHECK(r.rows[i].subnormal == sub);
    CHECK(r.rows[i].normal == normal);
    CHECK(r.rows[i].overflow == inf);
  }
  // Scaling helps: fewer zeros at every larger scale, none left at 2^16 for this set.
  CHECK(r.rows[0].zero > r.rows[1].zero);
  CHECK(r.rows[1].zero > r.rows[2].zero);
  CHECK(r.rows[3].zero == 0);
  CHECK(r.rows[4].overflow > 0);  // 2^20 is too large: the top gradients overflow
  // The histogram holds every value once.
  std::int64_t in_bins = 0, in_range = 0;
  for (const demo::histogram_bin& b : r.histogram) in_bins += b.count;
  for (const double g : r.grads.values) in_range += g < 1.0;  // exponents -40..-1; g == 1 has exponent 0
  CHECK(in_bins == in_range);
  CHECK(r.histogram.size() == 10);

  CHECK(r.fp16_min_subnormal_exp == oracle::binary16.emin - (oracle::binary16.p - 1));  // -24
  CHECK(r.fp16_min_subnormal_exp == -24);
  CHECK(r.fp16_min_normal_exp == oracle::binary16.emin);
  CHECK(r.fp16_max == max_finite(oracle::binary16));
  CHECK(r.fp16_max == 65504.0);
  CHECK(r.tiny_fp16 == 0.0);
  CHECK(static_cast<double>(h(1e-8)) == 0.0);
  CHECK(r.tiny_scaled_fp16 == static_cast<double>(h(1e-8 * 1024)));
  CHECK(r.tiny_scaled_fp16 > 0.0);
  CHECK(r.tiny_scaled_fp16 < std::ldexp(1.0, oracle::binary16.emin));
  CHECK(r.tiny_scaled_is_subnormal);
}

TEST_CASE("Q3: the range table and the three samples, against the formats' spec parameters") {
  const demo::q3_result r = demo::run_q3();
  REQUIRE(r.formats.size() == 3);
  const oracle::target* t[] = {&oracle::binary16, &oracle::bfloat16, &oracle::binary32};
  for (std::size_t i = 0; i < 3; ++i) {
    CAPTURE(r.formats[i].name);
    CHECK(r.formats[i].max == max_finite(*t[i]));
    CHECK(r.formats[i].min_normal == std::ldexp(1.0, t[i]->emin));
    CHECK(r.formats[i].min_subnormal == min_subnormal(*t[i]));
    CHECK(r.formats[i].epsilon == std::ldexp(1.0, 1 - t[i]->p));
  }
  CHECK(r.formats[0].max == 65504.0);
  CHECK(r.formats[0].min_subnormal == std::ldexp(1.0, -24));
  CHECK(r.formats[2].max == static_cast<double>(FLT_MAX));
  for (std::size_t k = 0; k < r.samples.size(); ++k) {
    CAPTURE(r.samples[k]);
    CHECK(r.formats[0].converted[k] == static_cast<double>(h(r.samples[k])));
    CHECK(r.formats[1].converted[k] == oracle_bf16(r.samples[k]));
    CHECK(r.formats[2].converted[k] == static_cast<double>(static_cast<float>(r.samples[k])));
  }
  CHECK(r.formats[0].converted[0] == 0.0);                   // 1e-10 underflows in fp16
  CHECK(std::isinf(r.formats[0].converted[1]));              // 70000 > 65504
  CHECK(r.formats[1].converted[1] == 70144.0);               // bf16: 8 significant bits
  CHECK(std::isfinite(r.formats[1].converted[2]));           // 3e38 fits bf16's range
}

TEST_CASE("Q4: the length-4096 fp16 dot product: exact value, fp16 and fp32 accumulation; 1.0 stalls at 2048") {
  const demo::q4_result r = demo::run_q4(demo::default_seed);
  REQUIRE(r.a.size() == 4096);
  REQUIRE(r.models.size() == 4);
  // Exact: every fp16 value in [0, 1] is a multiple of 2^-24, so a_i b_i 2^48 is an integer <= 2^48 and
  // the sum of 4096 of them fits an int64.
  std::int64_t exact = 0;
  h16 acc16 = 0;
  float acc32 = 0;
  for (std::size_t i = 0; i < r.a.size(); ++i) {
    const double a = static_cast<double>(r.a[i]), b = static_cast<double>(r.b[i]);
    REQUIRE(a >= 0.0);
    REQUIRE(a <= 1.0);  // uniform in [0, 1), rounded to fp16: 1.0 is possible
    exact += static_cast<std::int64_t>(std::ldexp(a, 24)) * static_cast<std::int64_t>(std::ldexp(b, 24));
    const h16 p = static_cast<h16>(h(a) * h(b));  // fp16-acc: product rounded to fp16, then the sum
    acc16 = static_cast<h16>(acc16 + p);
    acc32 = acc32 + static_cast<float>(a) * static_cast<float>(b);  // product exact in binary32
  }
  const double exact_d = std::ldexp(static_cast<double>(exact), -48);
  CHECK(r.exact == exact_d);
  CHECK(r.models[0].name == "fp16-acc");
  CHECK(r.models[0].value == static_cast<double>(acc16));
  CHECK(r.models[0].relative_error == doctest::Approx(std::fabs(static_cast<double>(acc16) - exact_d) / exact_d).epsilon(1e-12));
  CHECK(r.models[1].name == "fp32-acc");
  CHECK(r.models[1].value == static_cast<double>(acc32));
  CHECK(r.models[1].relative_error == doctest::Approx(std::fabs(static_cast<double>(acc32) - exact_d) / exact_d).epsilon(1e-9));
  // The Tensor Core models accumulate in binary32 (truncated): far closer than fp16 accumulation.
  CHECK(r.models[2].name == "ampere_fp16");
  CHECK(r.models[2].relative_error < 1e-3);
  CHECK(r.models[0].relative_error > 10 * r.models[2].relative_error);
  CHECK(r.models[3].name == "hopper_fp8");

  h16 ones = 0;
  for (std::size_t i = 0; i < r.ones; ++i) ones = static_cast<h16>(ones + h(1.0));
  CHECK(r.fp16_ones_sum == static_cast<double>(ones));
  CHECK(r.fp16_ones_sum == 2048.0);
  double ones_bf16 = 0;
  for (std::size_t i = 0; i < r.ones; ++i) ones_bf16 = oracle_bf16(ones_bf16 + 1.0);
  CHECK(r.bf16_ones_sum == ones_bf16);
  CHECK(r.bf16_ones_sum == 256.0);
  CHECK(r.fp32_ones_sum == static_cast<double>(r.ones));
}

TEST_CASE("Q5: Adam training state is 16 bytes per parameter in fp32, torch.amp and apex O2-style fp16") {
  const demo::q5_result r = demo::run_q5(false);
  CHECK_FALSE(r.measured.has_value());
  const std::uint64_t n = r.parameters;
  CHECK(r.fp32.total_bytes == n * (4 * sizeof(float)));       // weights, gradients, Adam m and v
  CHECK(r.torch_amp.total_bytes == n * (4 * sizeof(float)));  // the same: parameters stay fp32
  CHECK(r.apex_o2.total_bytes == n * (2 * sizeof(h16) + 3 * sizeof(float)));  // + fp32 master weights
  CHECK(r.fp32.total_bytes == r.apex_o2.total_bytes);
  CHECK(r.autocast_copy_bytes == sizeof(h16));
}

TEST_CASE("Q6: the GradScaler trajectory against PyTorch's update rule written out") {
  const demo::q6_result r = demo::run_q6();
  CHECK(r.defaults.init_scale == 65536.0);
  CHECK(r.defaults.growth_interval == 2000);
  REQUIRE(r.trajectory.size() == 40);
  REQUIRE(r.gradients.size() == 40);
  double scale = 65536;
  int tracker = 0;
  for (std::int64_t k = 1; k <= 40; ++k) {
    CAPTURE(k);
    // found_inf: some gradient times the scale rounds to inf in hardware binary16.
    bool inf = false;
    for (const double g : r.gradients[static_cast<std::size_t>(k - 1)]) inf = inf || std::isinf(static_cast<double>(h(g * scale)));
    const lf::training::scaler_step& s = r.trajectory[static_cast<std::size_t>(k - 1)];
    CHECK(static_cast<double>(s.scale_used) == scale);
    CHECK(s.skipped == inf);
    if (inf) {
      scale *= 0.5;
      tracker = 0;
    } else if (++tracker == 8) {
      scale *= 2;
      tracker = 0;
    }
    CHECK(static_cast<double>(s.scale_after) == scale);
  }
}

TEST_CASE("Q7: unscaled gradients: fp16 loses many, bf16 none; unit roundoff 2^-11 against 2^-8") {
  const demo::q7_result r = demo::run_q7(demo::default_seed);
  REQUIRE(r.formats.size() == 2);
  std::int64_t zero16 = 0, zero_bf16 = 0;
  for (const double g : r.grads.values) {
    zero16 += static_cast<double>(h(g)) == 0.0;
    zero_bf16 += oracle_bf16(g) == 0.0;
  }
  CHECK(r.formats[0].unscaled.zero == zero16);
  CHECK(zero16 > 1000);
  CHECK(r.formats[1].unscaled.zero == zero_bf16);
  CHECK(zero_bf16 == 0);
  CHECK(r.formats[0].unit_roundoff == std::ldexp(1.0, -oracle::binary16.p));
  CHECK(r.formats[1].unit_roundoff == std::ldexp(1.0, -oracle::bfloat16.p));
  // The measured worst relative error of a rounding approaches u from below.
  for (const demo::q7_format& f : r.formats) {
    CHECK(f.max_relative_error <= f.unit_roundoff);
    CHECK(f.max_relative_error > 0.9 * f.unit_roundoff);
  }
}

TEST_CASE("Q8: naive softmax of [12, 11, 10] is NaN in fp16 and right in fp32; 10,000 x 0.01") {
  const demo::q8_result r = demo::run_q8();
  // fp16: exp rounded to fp16 (exp(12) > 65504 overflows), the sum and the quotients in fp16.
  std::vector<h16> e;
  h16 sum = 0;
  for (const double x : r.logits) {
    e.push_back(h(std::exp(x)));
    sum = static_cast<h16>(sum + e.back());
  }
  REQUIRE(r.softmax_fp16.size() == 3);
  CHECK(std::isinf(static_cast<double>(e[0])));
  for (std::size_t i = 0; i < 3; ++i) {
    const double p = static_cast<double>(static_cast<h16>(e[i] / sum));
    CHECK(std::isnan(p) == std::isnan(r.softmax_fp16[i]));
    if (!std::isnan(p)) CHECK(p == r.softmax_fp16[i]);
  }
  CHECK(std::isnan(r.softmax_fp16[0]));
  // fp32 agrees with the binary64 softmax to binary32's precision, and sums to 1.
  double total = 0, ref_sum = 0;
  for (const double x : r.logits) ref_sum += std::exp(x);
  for (std::size_t i = 0; i < 3; ++i) {
    CHECK(r.softmax_fp32[i] == doctest::Approx(std::exp(r.logits[i]) / ref_sum).epsilon(1e-6));
    total += r.softmax_fp32[i];
  }
  CHECK(total == doctest::Approx(1.0).epsilon(1e-6));

  h16 s16 = 0;
  float s32 = 0, s16_32 = 0;
  for (int i = 0; i < 10000; ++i) {
    s16 = static_cast<h16>(s16 + h(0.01));
    s32 = s32 + 0.01f;
    s16_32 = s16_32 + static_cast<float>(h(0.01));
  }
  CHECK(r.sum_fp16 == static_cast<double>(s16));
  CHECK(r.sum_fp16 < 50.0);  // stalls far below 100
  CHECK(r.sum_fp32 == static_cast<double>(s32));
  CHECK(r.sum_fp16_fp32acc == static_cast<double>(s16_32));
  CHECK(r.fp16_max == 65504.0);
}

TEST_CASE("facts quoted by the text and the guide: 65504, 2^-24, 2048, stalls, GradScaler defaults") {
  const vars& f = demo::facts();
  CHECK(f.at("fp16_max") == std::to_string(static_cast<long>(max_finite(oracle::binary16))));
  CHECK(f.at("fp16_min_subnormal") == "2^" + std::to_string(oracle::binary16.emin - oracle::binary16.p + 1));
  CHECK(f.at("fp16_min_normal") == "2^" + std::to_string(oracle::binary16.emin));
  CHECK(f.at("ratio_fp16") == std::to_string(1 << oracle::binary16.p));
  CHECK(f.at("half_ulp_1_fp16") == "2^-" + std::to_string(oracle::binary16.p));
  CHECK(f.at("fp16_stall") == "2048");
  CHECK(f.at("bf16_stall") == "256");
  CHECK(f.at("bf16_min_subnormal") == "2^" + std::to_string(oracle::bfloat16.emin - oracle::bfloat16.p + 1));
  CHECK(f.at("scaler_init") == "65536");
  CHECK(f.at("scaler_interval") == "2000");
  CHECK(f.at("fp16_overflow_from") == "65520");
}

TEST_CASE("every demo renders in every language within 79 columns, from the same numbers") {
  for (const char* code : {"en", "fr"}) {
    const language* l = find_language(code);
    REQUIRE(l != nullptr);
    for (int n = 1; n <= question_count; ++n) {
      CAPTURE(code);
      CAPTURE(n);
      const std::string text = demo::show(n, *l, demo::default_seed, false);
      CHECK(!text.empty());
      std::size_t start = 0;
      while (start < text.size()) {
        const std::size_t nl = text.find('\n', start);
        const std::string line = text.substr(start, nl - start);
        CAPTURE(line);
        CHECK(display_width(line) <= screen_width());
        start = nl == std::string::npos ? text.size() : nl + 1;
      }
    }
  }
}
