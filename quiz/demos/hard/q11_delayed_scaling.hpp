// quiz/demos/hard/q11_delayed_scaling.hpp: hard question 11, delayed scaling (see hard.hpp for the parts).
#pragma once

#include <vector>

#include "../demos.hpp"
#include "../../tryit.hpp"

namespace mpq::demo {

/// One step of Q11's run: the same tensor cast to E4M3 with delayed scaling (the scale from the
/// amax history of the steps before) and with current scaling (the scale from its own amax).
struct q11_step {
  std::size_t step = 0;          ///< from 1
  bool has_history = false;      ///< false at step 1 (the history is empty)
  float history_amax = 0;        ///< max over the history before this step (when has_history)
  float scale = 1;               ///< delayed scaling's scale for this step
  float amax = 0;                ///< this tensor's own amax
  std::uint64_t saturated = 0;   ///< delayed: values whose x * scale overflowed and were clamped
  std::uint64_t zero = 0;        ///< delayed: nonzero values that became 0
  double rms_rel = 0;            ///< delayed: RMS relative error over the nonzero values
  float cur_scale = 1;           ///< current scaling's scale (448 / amax)
  std::uint64_t cur_saturated = 0, cur_zero = 0;
  double cur_rms_rel = 0;
};

/// Q11's tensors: step t holds n values A_t * (2u - 1), u = k / 2^24 with k the top 24 bits of one
/// std::mt19937_64(seed) output (fixed by the C++ standard), so every value is an exact binary32
/// in (-A_t, A_t); A_t = 1 before jump_step and factor from jump_step on.
struct q11_result {
  std::uint64_t seed = default_seed;
  std::size_t n = 1024;
  std::size_t steps = 6;
  std::size_t jump_step = 4;
  float factor = 16;
  std::size_t history_len = 0;  ///< TE's default amax_history_len (1024)
  double fp8_max = 0;           ///< E4M3's largest finite value (448)
  double saturate_above = 0;    ///< 448 + half an ulp of 448 (464): beyond it a product is clamped
  std::vector<std::vector<float>> x;  ///< per step
  std::vector<q11_step> rows;
};
q11_result run_q11(std::uint64_t seed);
page page_q11(const q11_result& r, const language& l);
try_outcome try_q11(const language& l, std::string_view line);
void facts_q11(vars& v);

}  // namespace mpq::demo
