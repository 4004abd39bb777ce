// quiz/demos/hard/q12_unscale_clipping.hpp: hard question 12, unscale_ before gradient clipping
// (see hard.hpp for the parts).
#pragma once

#include <vector>

#include "../demos.hpp"
#include "../../tryit.hpp"

namespace mpq::demo {

/// One order of GradScaler.unscale_ and torch.nn.utils.clip_grad_norm_, every value a binary32
/// computed by libfloat (see q12_unscale_clipping.cpp for the model).
struct q12_order {
  float norm_seen = 0;   ///< the total norm clip_grad_norm_ computes from what the gradients hold
  float coef = 0;        ///< min(1, max_norm / (norm_seen + 1e-6)), the factor clipping applies
  bool clipped = false;  ///< coef < 1
  float final_norm = 0;  ///< the norm of the gradient optimizer.step() receives (after unscaling)
};

/// Both orders on one gradient: g_i x S rounded once to fp16 (the backward pass of a scaled loss),
/// held in the fp32 .grad.
struct q12_orders {
  float scale = 0;          ///< S as GradScaler stores it (binary32)
  float inverse_scale = 0;  ///< unscale_'s 1/S (binary64 reciprocal stored as binary32)
  bool found_inf = false;   ///< some g_i x S overflowed fp16: step() skips the step in both orders
  q12_order correct;        ///< scaler.unscale_(optimizer), clip_grad_norm_, scaler.step(optimizer)
  q12_order wrong;          ///< clip_grad_norm_ on the scaled gradients, then scaler.step(optimizer)
  double ratio = 0;         ///< correct.final_norm / wrong.final_norm (binary64 quotient)
};

/// The model of the two orders for the gradient g (binary64 values), a loss scale and max_norm.
q12_orders run_q12_orders(const std::vector<double>& g, double scale, double max_norm);

/// The demo's gradient: n components v_i = 2u - 1 (u: the top 53 bits of one std::mt19937_64(seed)
/// output times 2^-53), then g_i = norm * v_i / ||v||, all in binary64.
std::vector<double> q12_gradient(std::uint64_t seed, std::size_t n, double norm);

struct q12_result {
  std::uint64_t seed = default_seed;
  std::size_t n = 1000;     ///< gradient components
  double true_norm = 0.5;   ///< the gradient's norm before scaling (a parameter)
  double scale = 65536;     ///< GradScaler's default init_scale (set from grad_scaler_options)
  double max_norm = 1.0;    ///< clip_grad_norm_'s max_norm (a parameter)
  double eps = 1e-6;        ///< clip_grad_norm_'s 1e-6 (torch/nn/utils/clip_grad.py)
  std::vector<double> g;
  q12_orders orders;
};
q12_result run_q12(std::uint64_t seed);
page page_q12(const q12_result& r, const language& l);
try_outcome try_q12(const language& l, std::string_view line);
void facts_q12(vars& v);

}  // namespace mpq::demo
