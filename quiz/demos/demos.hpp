// quiz/demos/demos.hpp: the eight demonstrations, one per question (q1_master_weights.cpp ...
// q8_autocast.cpp). Each has a run_qN() that computes with libfloat and returns a plain struct,
// and a show_qN() that formats that struct in a language. Tests call run_qN() and check its
// numbers against independent computations (tests/quiz/test_quiz_demos.cpp); nothing shown is
// typed in as a literal result: every number comes from the struct.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <libfloat/training.hpp>

#include "../text.hpp"

namespace mpq::demo {

/// --seed's default: the demos' data are reproducible run to run.
inline constexpr std::uint64_t default_seed = 2018;

/// The seeded gradient magnitudes of Q2 and Q7: n values 2^(-40 u), u uniform in [0, 1), so their
/// binary exponents are spread evenly over [-40, 0). u is the top 53 bits of std::mt19937_64's
/// output (fixed by the C++ standard), so the set is the same on every platform.
struct gradient_set {
  std::uint64_t seed = default_seed;
  int lowest_exponent = -40;
  int highest_exponent = 0;
  std::vector<double> values;
};
gradient_set make_gradients(std::uint64_t seed, std::size_t n = 10000);

// ---- Q1: master weights ---------------------------------------------------------------------
struct q1_result {
  double w0 = 1.0;
  double update = 1e-4;
  std::int64_t steps = 10000;
  lf::training::stagnation_result fp16, bf16, fp32;  ///< weight and update in that format
  double half_ulp_one_fp16 = 0;  ///< half an ulp of 1 in fp16: 2^-11
  double ratio_fp16 = 0;         ///< 2^p = 2048: an update is lost when |w| >= ratio * |update|
  double lost_from_fp16 = 0;     ///< ratio_fp16 * fp16(update): the rule of thumb's bound (0.2048...)
  // The exact threshold, from the fp16 update tried on every positive finite fp16 weight w.
  double lost_from_up = 0;       ///< w + u: the smallest w from which on every weight loses u (0.25)
  double moving_below_up = 0;    ///< the largest w whose w + u still moves (next below lost_from_up)
  double moving_below_up_half_ulp = 0;  ///< half an ulp of moving_below_up (2^-14, less than u)
  bool up_is_sharp = false;      ///< w + u == w exactly for the w >= lost_from_up
  double lost_from_down = 0;     ///< w - u (towards zero): the same threshold (0.250244140625)
  bool down_is_sharp = false;    ///< w - u == w exactly for the w >= lost_from_down
  // Why the fp32 weight is not the exact w0 + N u either.
  double fp32_step = 0;          ///< fp32(1 + u) - 1: what one fp32 sum adds to a w in [1, 2)
  bool fp32_steps_equal = false; ///< every fp32 step whose exact sum w + u is below 2 added fp32_step
};
q1_result run_q1();
page page_q1(const q1_result& r, const language& l);
/// page_q1 laid out at the screen width.
std::string show_q1(const q1_result& r, const language& l);

// ---- Q2: loss scaling -----------------------------------------------------------------------
/// What happens to a set of values converted to a format at a scale (lf::training::range_counter: each
/// value * scale rounded once to the format, then classified).
struct range_row {
  double scale = 1;
  std::int64_t zero = 0, subnormal = 0, normal = 0, overflow = 0;
  std::int64_t total() const { return zero + subnormal + normal + overflow; }
};
range_row classify_at_scale(const lf::format& f, const std::vector<double>& values, double scale);

struct histogram_bin {
  int lo = 0, hi = 0;                ///< exponents lo..hi: values in [2^lo, 2^(hi+1))
  std::int64_t count = 0;
  range_row at_scale_1, at_loss_scale;  ///< what this bin's values become in fp16
};

struct q2_result {
  gradient_set grads;
  std::vector<range_row> rows;       ///< fp16 at scales 1, 8, 2^10, 2^16, 2^20
  double loss_scale = 1024;          ///< the histogram's second column
  std::vector<histogram_bin> histogram;
  int fp16_min_subnormal_exp = 0;    ///< -24
  int fp16_min_normal_exp = 0;       ///< -14
  double fp16_max = 0;               ///< 65504
  double fp16_zero_up_to = 0;        ///< 2^-25, half the smallest subnormal: x <= it rounds to 0
  double fp16_overflow_from = 0;     ///< 65520, max + half an ulp: x >= it rounds to infinity
  double tiny = 1e-8;
  double tiny_fp16 = 0;              ///< fp16(1e-8) = 0
  double tiny_scaled = 0;            ///< 1e-8 * 1024
  double tiny_scaled_fp16 = 0;       ///< fp16(1e-8 * 1024), a subnormal
  bool tiny_scaled_is_subnormal = false;
};
q2_result run_q2(std::uint64_t seed);
page page_q2(const q2_result& r, const language& l);
/// page_q2 laid out at the screen width.
std::string show_q2(const q2_result& r, const language& l);

// ---- Q3: bfloat16 range ---------------------------------------------------------------------
struct format_limits {
  std::string name;
  lf::format fmt;
  double max = 0, min_normal = 0, min_subnormal = 0, epsilon = 0;
  double unit_roundoff = 0;       ///< half_ulp(1) = 2^-p = epsilon / 2: nearest's largest relative error
  std::vector<double> converted;  ///< each of q3_result::samples converted (nearest even)
  std::vector<lf::fp_class> classes;
  std::vector<double> relative_error;  ///< |converted - sample| / sample, exact then rounded; inf on overflow
};
struct q3_result {
  std::vector<double> samples{1e-10, 70000.0, 3e38};
  std::vector<format_limits> formats;  ///< fp16, bf16, fp32
};
q3_result run_q3();
page page_q3(const q3_result& r, const language& l);
/// page_q3 laid out at the screen width.
std::string show_q3(const q3_result& r, const language& l);

// ---- Q4: Tensor Core accumulation -----------------------------------------------------------
struct dot_model {
  std::string name;   ///< fp16-acc, fp32-acc, ampere_fp16, hopper_fp8
  lf::format fmt = lf::binary32;  ///< the result's format
  double value = 0;
  double relative_error = 0;  ///< against the exact dot of the fp16 inputs
  // The error split in two, signed, each relative to the exact dot of the fp16 data (they add up):
  double input_error = 0;         ///< (exact dot of the model's converted inputs - exact) / exact
  double accumulation_error = 0;  ///< (value - exact dot of the converted inputs) / exact
};
struct q4_result {
  std::size_t n = 4096;
  std::vector<lf::fp16> a, b;  ///< seeded, uniform in [0, 1) rounded to fp16 (so in [0, 1])
  double exact = 0;            ///< the exact dot product, rounded once to binary64
  std::vector<dot_model> models;
  /// ampere_fp16 with nothing truncated: the same blocks of 8 products and the running sum, each
  /// block's exact sum rounded once to nearest even (alignment_rounding::exact, nearest_even).
  dot_model ampere_nearest;
  std::size_t ones = 4096;     ///< how many 1.0 are summed
  double fp16_ones_sum = 0;    ///< stalls at 2048
  double bf16_ones_sum = 0;    ///< stalls at 256
  double fp32_ones_sum = 0;    ///< 4096
};
q4_result run_q4(std::uint64_t seed);
page page_q4(const q4_result& r, const language& l);
/// page_q4 laid out at the screen width.
std::string show_q4(const q4_result& r, const language& l);

// ---- Q5: memory and throughput --------------------------------------------------------------
/// A live measurement on this machine (never in the guide: it changes run to run).
struct q5_measurement {
  std::size_t copy_n = 0;         ///< values moved by each copy
  double copy_fp32_s = 0, copy_fp16_s = 0;  ///< best time of one copy of copy_n values
  std::size_t arith_n = 0;        ///< elements of y = a*x + y
  double arith_fp32_s = 0, arith_fp16_s = 0;  ///< native binary32 against libfloat's emulated binary16
  double total_s = 0;             ///< wall time of the whole measurement (kept under 0.5 s)
};
struct q5_result {
  std::uint64_t parameters = 1000000000;
  /// fp32 training; torch.amp with fp16 autocast (parameters and gradients stay fp32, no master
  /// weights); apex O2-style (fp16 weights and gradients, fp32 master weights). All with Adam.
  lf::training::footprint fp32, torch_amp, apex_o2;
  /// Bytes per parameter of the fp16 copies autocast makes of the weights it casts (temporary:
  /// cached for the forward pass, kept by autograd for the backward pass): binary16's bits / 8.
  std::uint64_t autocast_copy_bytes = 0;
  std::optional<q5_measurement> measured;
};
/// measure = false: the memory table only (the guide, the tests).
q5_result run_q5(bool measure);
q5_measurement measure_q5(double budget_s = 0.4);
page page_q5(const q5_result& r, const language& l);
/// page_q5 laid out at the screen width.
std::string show_q5(const q5_result& r, const language& l);

// ---- Q6: torch.amp and GradScaler -----------------------------------------------------------
/// Q6's gradient stream, drawn from std::mt19937_64(seed) (its output is fixed by the C++
/// standard), with u = the top 53 bits of one output times 2^-53 (uniform in [0, 1)). For each
/// step, in this order: t = top_lo + (top_hi - top_lo) u; the step has a spike when the next
/// output is divisible by spike_one_in; then per_step magnitudes g_i = 2^(t - span u_i); a spike
/// replaces g_0 by spike_factor * 2^t (spike_factor times the top of the step's range).
struct q6_result {
  lf::training::grad_scaler_options defaults;  ///< PyTorch's
  lf::training::grad_scaler_options shown;     ///< growth_interval shortened for display
  std::uint64_t seed = default_seed;
  std::int64_t steps = 40;
  std::size_t per_step = 1000;       ///< gradient magnitudes per step
  int span = 24;                     ///< a step's magnitudes lie in (2^(t - span), 2^t]
  int top_lo = 0, top_hi = 2;        ///< t is uniform in [top_lo, top_hi)
  std::uint64_t spike_one_in = 16;   ///< the chance of a spike at each step is 1 / spike_one_in
  double spike_factor = 16;          ///< a spike: the step's first gradient becomes spike_factor * 2^t
  std::vector<std::vector<double>> gradients;  ///< per step
  std::vector<bool> spiked;                    ///< per step
  std::vector<double> largest_scaled;  ///< per step: fp16(max g x scale used), +inf when it overflows
  double overflow_from = 0;            ///< 65520: from there on a product rounds to inf in fp16
  std::vector<lf::training::scaler_step> trajectory;  ///< lf::training::run_scaler_on_gradients
};
q6_result run_q6(std::uint64_t seed = default_seed);
page page_q6(const q6_result& r, const language& l);
/// page_q6 laid out at the screen width.
std::string show_q6(const q6_result& r, const language& l);

// ---- Q7: bfloat16 and loss scaling ----------------------------------------------------------
struct q7_format {
  std::string name;
  range_row unscaled;
  double unit_roundoff = 0;       ///< 2^-p: fp16 2^-11, bf16 2^-8
  double epsilon = 0;             ///< next_up(1) - 1 = 2^(1-p): twice the unit roundoff
  double max_relative_error = 0;  ///< the largest |fp(g) - g| / g over the normal results
};
struct q7_result {
  gradient_set grads;
  std::vector<q7_format> formats;  ///< fp16, bf16
};
q7_result run_q7(std::uint64_t seed);
page page_q7(const q7_result& r, const language& l);
/// page_q7 laid out at the screen width.
std::string show_q7(const q7_result& r, const language& l);

// ---- Q8: autocast ---------------------------------------------------------------------------
struct q8_op {
  std::string op;           ///< the ATen op name
  std::string role;         ///< its language key suffix (q8.demo.role.<role>)
  lf::training::autocast_decision cuda, cpu;
};
struct q8_result {
  std::vector<q8_op> ops;
  std::vector<double> logits{12, 11, 10};
  std::vector<double> exp_fp16, softmax_fp16;  ///< naive softmax, every step rounded to fp16
  std::vector<double> exp_fp32, softmax_fp32;  ///< the same in fp32
  std::vector<double> exp_fp16_max, softmax_fp16_max;  ///< fp16, max subtracted first (as PyTorch's softmax)
  double fp16_max = 0;                         ///< 65504
  double fp16_overflow_from = 0;               ///< 65520 = 65504 + half an ulp: rounds to inf
  std::int64_t count = 10000;
  double term = 0.01;
  double sum_fp16 = 0;          ///< fp16 values summed in fp16: stalls
  double sum_fp16_fp32acc = 0;  ///< fp16 values summed in fp32 (what autocast's fp32 sum does)
  double sum_fp32 = 0;          ///< fp32 values summed in fp32
};
q8_result run_q8();
/// Q8's softmax of `logits` with every step in binary16 (fp16) or binary32: exp(x) (or exp(x - max)
/// with subtract_max) computed in binary64 and rounded once, then the sum and each quotient in
/// the format. e and p receive the exponentials and the probabilities.
void naive_softmax(bool fp16, const std::vector<double>& logits, std::vector<double>& e, std::vector<double>& p,
                   bool subtract_max = false);
page page_q8(const q8_result& r, const language& l);
/// page_q8 laid out at the screen width.
std::string show_q8(const q8_result& r, const language& l);

// ---- all of them ----------------------------------------------------------------------------
/// The demo of question n (1..8), computed and formatted. live = false leaves out Q5's
/// measurement (for the guide, whose generated blocks must not change run to run).
std::string show(int n, const language& l, std::uint64_t seed, bool live);
/// The same, before layout (for --json).
page show_page(int n, const language& l, std::uint64_t seed, bool live);

// ---- formatting helpers shared by the demos -------------------------------------------------
/// lf::to_shortest of a value of format f given as a double (exact for the named formats).
std::string shortest(const lf::format& f, double v);
/// "2^-24" when v is a power of two, else shortest(binary64).
std::string power_or_shortest(const lf::format& f, double v);
/// 100 * part / whole with two decimals: "12.34%".
std::string percent(std::int64_t part, std::int64_t whole);
/// n with its digits grouped by threes: group_digits(1000000000, ",") = "1,000,000,000".
std::string group_digits(std::uint64_t n, std::string_view sep);
/// A relative error in scientific notation with 2 digits ("3.1e-04"), "0" when exact.
std::string sci(double v);
/// sci(v) with a "+" in front of a positive value (a signed error).
std::string signed_sci(double v);
/// (a - b) / c, signed, from exact values: exact until the one rounding of the quotient.
double signed_ratio(const lf::exact_accumulator& a, const lf::exact_accumulator& b, const lf::exact_accumulator& c);

}  // namespace mpq::demo
