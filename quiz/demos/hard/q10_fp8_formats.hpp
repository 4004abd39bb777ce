// quiz/demos/hard/q10_fp8_formats.hpp: hard question 10, E4M3 vs E5M2 (see hard.hpp for the parts).
#pragma once

#include <vector>

#include "../demos.hpp"
#include "../../tryit.hpp"

namespace mpq::demo {

/// One FP8 format: its limits, and what TE current scaling makes of Q10's gradients in it.
struct q10_format {
  std::string name;                 ///< "E4M3", "E5M2"
  lf::format fmt = lf::float8_e4m3fn;
  double max = 0, min_normal = 0, min_subnormal = 0;
  int precision = 0;                ///< significant bits p, the hidden bit included
  int binades = 0;                  ///< powers of two from min subnormal's to max's, both included
  double unit_roundoff = 0;         ///< 2^-p: nearest's largest relative error in the normal range
  // The gradients, per-tensor current scaling (lf::training::fp8_current_scaling).
  double scale = 0;                 ///< fmt max / amax rounded to binary32 (TE compute_scale_from_amax)
  std::int64_t zero = 0, subnormal = 0, normal = 0, saturated = 0;
  double smallest_kept = 0;         ///< the smallest gradient whose result is not 0
  double largest_lost = 0;          ///< the largest gradient whose result is 0 (0 when none)
  double max_rel_normal = 0;        ///< the largest |q - x s| / (x s) over the x s in the normal range
};

struct q10_result {
  gradient_set grads;               ///< demo::make_gradients(seed): magnitudes over (2^-40, 2^0]
  std::vector<float> values;        ///< the gradients as a float32 tensor (nearest even)
  double amax = 0;
  std::vector<q10_format> formats;  ///< E4M3, E5M2
};
q10_result run_q10(std::uint64_t seed);
page page_q10(const q10_result& r, const language& l);
try_outcome try_q10(const language& l, std::string_view line);
void facts_q10(vars& v);

}  // namespace mpq::demo
