// quiz/demos/hard/q15_growth_interval.hpp: hard question 15, GradScaler's growth interval (see
// hard.hpp for the parts).
#pragma once

#include <vector>

#include "../demos.hpp"
#include "../../tryit.hpp"

namespace mpq::demo {

/// One run of lf::training's GradScaler model over `steps` steps whose largest gradient is g at
/// every step (gradient x scale rounded once to fp16: inf from 65520 up).
struct q15_run {
  std::int64_t interval = 0;           ///< growth_interval
  std::vector<std::int64_t> skipped;   ///< the skipped steps (from 1)
  double skipped_fraction = 0;         ///< skipped.size() / steps
  double mean_scale = 0;               ///< the mean of the scales the steps used (binary64 sum / steps)
  float final_scale = 0;               ///< the scale after the last update()
  float largest_safe = 0;              ///< the largest scale a step used without overflowing (0: none)
  float smallest_unsafe = 0;           ///< the smallest scale a step overflowed at (0: none)
  /// The steady cycle: from the skipped step `cycle_from` on, every later skipped step comes
  /// `interval + 1` steps after the one before, each at smallest_unsafe, and there are at least
  /// two of them; 0 when the run has no such cycle.
  std::int64_t cycle_from = 0;
};

/// Runs GradScaler (PyTorch's defaults but growth_interval) for `steps` steps of largest gradient g.
q15_run run_q15_interval(double g, std::int64_t interval, std::int64_t steps);

struct q15_result {
  std::uint64_t seed = default_seed;  ///< unused: the stream is deterministic
  double g = 1.5;                     ///< every step's largest gradient magnitude (a parameter)
  std::int64_t steps = 10000;
  std::vector<std::int64_t> intervals{1, 100, 2000};
  double overflow_from = 0;           ///< 65504 + half an ulp: fp16's overflow threshold (65520)
  double init_scale = 0;              ///< GradScaler's default init_scale (2^16)
  std::int64_t default_interval = 0;  ///< GradScaler's default growth_interval (2000)
  std::vector<q15_run> runs;
};
q15_result run_q15(std::uint64_t seed);
page page_q15(const q15_result& r, const language& l);
try_outcome try_q15(const language& l, std::string_view line);
void facts_q15(vars& v);

}  // namespace mpq::demo
