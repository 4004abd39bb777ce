// quiz/demos/hard/q09_tf32.hpp: hard question 9, TF32 on Ampere (see hard.hpp for the parts).
#pragma once

#include <vector>

#include "../demos.hpp"
#include "../../tryit.hpp"

namespace mpq::demo {

/// One model's dot product of Q9's fp32 data: its result, its error against the exact dot of the
/// fp32 data, and that error split in two (signed, each relative to the exact dot): rounding the
/// data to the model's inputs, then the model's products and sums on those inputs.
struct q9_model {
  std::string name;        ///< "ampere_tf32", "ampere_tf32 (nearest)", "fp32-fma"
  std::string key;         ///< its language key suffix (q9.demo.m.<key>)
  double value = 0;        ///< the result (binary32, widened exactly)
  double relative_error = 0;
  double input_error = 0;
  double accumulation_error = 0;
};

struct q9_result {
  std::uint64_t seed = default_seed;
  std::size_t n = 4096;
  std::vector<lf::fp32> a, b;   ///< seeded, uniform in [0, 1) with 24 random bits (exact in fp32)
  double exact = 0;             ///< the exact dot product of the fp32 data, rounded once to binary64
  /// ampere_tf32 (A100 Tensor Core, fp32 data converted toward zero to TF32, blocks of 4, F = 24);
  /// the same unit with the data rounded to nearest even instead; the fp32 fma chain (TF32 off).
  std::vector<q9_model> models;
  int block_size = 0;           ///< ampere_tf32's N (4)
  int alignment_bits = 0;       ///< ampere_tf32's F (24)
  // One input, a[0], and what TF32 keeps of it (in binary32 layout, the low 13 bits zero).
  std::uint32_t sample_fp32 = 0;     ///< a[0]'s binary32 encoding
  std::uint32_t sample_tf32 = 0;     ///< toward zero, as the A100 unit converts it (binary32 layout)
  std::uint32_t sample_tf32_rn = 0;  ///< nearest even (binary32 layout)
  double sample_error = 0;           ///< |tf32 - fp32| / fp32, toward zero
  double sample_error_rn = 0;        ///< the same, nearest even
};
q9_result run_q9(std::uint64_t seed);
page page_q9(const q9_result& r, const language& l);
try_outcome try_q9(const language& l, std::string_view line);
void facts_q9(vars& v);

/// The fraction field of a binary32 encoding as 23 binary digits, the 10 that TF32 keeps, '|', the
/// 13 it drops: "0101010101|0101010101010".
std::string q9_fraction_bits(std::uint32_t fp32_bits);

}  // namespace mpq::demo
