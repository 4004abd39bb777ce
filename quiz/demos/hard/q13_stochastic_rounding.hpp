// quiz/demos/hard/q13_stochastic_rounding.hpp: hard question 13, stochastic rounding (see hard.hpp for the parts).
#pragma once

#include <cstdint>
#include <vector>

#include "../demos.hpp"
#include "../../tryit.hpp"

namespace mpq::demo {

/// w = w0 plus `steps` updates, the weight kept in bf16 without an fp32 master copy, the update
/// computed in fp32 (lf::training::simulate_stagnation, weight_format bf16, update_format fp32).
struct q13_result {
  std::uint64_t seed = default_seed;
  double w0 = 1.0;
  double update = 1e-4;
  std::int64_t steps = 10000;
  int seeds = 8;                                ///< stochastic runs with seeds first_seed, first_seed + 1, ...
  std::uint32_t first_seed = 0;                 ///< the low 32 bits of `seed`
  lf::training::stagnation_result nearest;      ///< bf16 weight, round to nearest even
  lf::training::stagnation_result stochastic;   ///< bf16 weight, stochastic rounding, seed first_seed
  lf::training::stagnation_result fp32;         ///< fp32 weight (a master weight), nearest even
  std::vector<double> spread;                   ///< the final w of each of the `seeds` stochastic runs
  double spread_min = 0, spread_max = 0;
  double spread_mean = 0;                       ///< their sum / seeds (exact sum, one rounding)
  double spread_mean_error = 0;                 ///< |spread_mean - exact| / exact
  double gap = 0;                               ///< the gap from w0 to the next bf16 number above (2^-7)
  double p_up = 0;                              ///< (w0 + u - w0) / gap: stochastic rounding's P(up) at w0
  double half_gap = 0;                          ///< half that gap (2^-8): nearest loses any u <= it at w0
};
q13_result run_q13(std::uint64_t seed);
page page_q13(const q13_result& r, const language& l);
try_outcome try_q13(const language& l, std::string_view line);
void facts_q13(vars& v);

/// Try it: at most this many steps, and the seed of its stochastic run.
inline constexpr std::int64_t q13_max_steps = 100000;
inline constexpr std::uint32_t q13_try_seed = 1;

}  // namespace mpq::demo
