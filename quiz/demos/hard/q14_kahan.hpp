// quiz/demos/hard/q14_kahan.hpp: hard question 14, bf16 sum and Kahan (see hard.hpp for the parts).
#pragma once

#include <cstdint>

#include "../demos.hpp"
#include "../../tryit.hpp"

namespace mpq::demo {

/// Where a plain sequential sum of n copies of x stops moving.
struct q14_stall {
  bool stalls = false;      ///< some acc + x rounded back to acc
  std::size_t terms = 0;    ///< how many terms were added before that (acc is the sum of `terms` copies)
  lf::bits_t value = 0;     ///< that acc, an encoding of the accumulator format
};

/// n copies of bf16(x) summed one after another: in bf16, in bf16 with Kahan's compensation
/// (every operation in bf16), in fp32, and exactly.
struct q14_result {
  std::uint64_t seed = default_seed;  ///< unused: nothing is random here
  std::size_t n = 10000;
  double x = 0.01;
  lf::bits_t x_bits = 0;             ///< bf16(x)
  lf::value plain, kahan, fp32;      ///< the three sums
  lf::value toward_zero;             ///< the plain bf16 sum with every addition rounded toward zero
  double exact = 0;                  ///< n x bf16(x), exact (a binary64 value)
  double plain_error = 0, kahan_error = 0, fp32_error = 0, toward_zero_error = 0;  ///< |sum - exact| / exact
  q14_stall stall;                   ///< where the plain bf16 sum stops
  double stall_half_gap = 0;         ///< half the gap from the stall value to the next bf16 number above
};
q14_result run_q14(std::uint64_t seed);
page page_q14(const q14_result& r, const language& l);
try_outcome try_q14(const language& l, std::string_view line);
void facts_q14(vars& v);

/// Try it: at most this many terms.
inline constexpr std::int64_t q14_max_n = 100000;

}  // namespace mpq::demo
