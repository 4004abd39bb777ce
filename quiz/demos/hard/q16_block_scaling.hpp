// quiz/demos/hard/q16_block_scaling.hpp: hard question 16, block scaling (see hard.hpp for the parts).
#pragma once

#include <string>
#include <vector>

#include "../demos.hpp"
#include "../../tryit.hpp"

namespace mpq::demo {

/// What one recipe did to the values other than the outlier, split by whether they share the
/// outlier's block (its scale) or not.
struct q16_part {
  std::size_t values = 0;  ///< how many values (the outlier itself left out)
  std::size_t zero = 0;    ///< nonzero inputs that decoded to 0
  double rms_rel = 0;      ///< RMS of |q - x| / |x| over them (0 when none)
};
struct q16_recipe {
  std::string name;        ///< "fp8-current", "mxfp8", "nvfp4" (its language key q16.demo.recipe.<name>)
  std::size_t block = 0;   ///< elements per scale (the whole tensor for per-tensor scaling)
  q16_part own;            ///< the other values of the outlier's block
  q16_part others;         ///< the values of every other block
  q16_part clean_others;   ///< without the outlier (its position back to a moderate value): the same values as `others`
  q16_part clean_all;      ///< without the outlier: every value but the outlier's position
  double outlier_back = 0; ///< the outlier as it decodes
};

/// Q16's tensor: one row of n values sign * m * 2^-e, with m = 1 + k / 2^23 (k the low 23 bits of
/// a std::mt19937_64(seed) output) and e uniform in 0..max_exp (the next output mod max_exp + 1),
/// the sign from the next output's low bit: exact binary32 numbers in (2^-max_exp, 2). Position
/// `position` then holds `outlier` instead.
struct q16_result {
  std::uint64_t seed = default_seed;
  std::size_t n = 1024;
  int max_exp = 10;
  std::size_t position = 100;
  float outlier = 1000;
  float replaced = 0;           ///< the moderate value the outlier replaced
  std::vector<float> x;         ///< with the outlier
  std::vector<q16_recipe> recipes;  ///< per-tensor E4M3 (current scaling), MXFP8, NVFP4
};
/// The demo's tensor with its outlier (the default 1000, or the learner's).
q16_result run_q16(std::uint64_t seed, float outlier);
q16_result run_q16(std::uint64_t seed);
page page_q16(const q16_result& r, const language& l);
try_outcome try_q16(const language& l, std::string_view line);
void facts_q16(vars& v);

}  // namespace mpq::demo
