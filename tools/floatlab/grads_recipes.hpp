// tools/floatlab/grads_recipes.hpp: `floatlab grads FILE --recipe NAMES`: the dump quantized by
// each scaling recipe of lf::training (training/scaling_recipes.hpp), side by side: how many values
// became zero, saturated or lost precision, the relative error, the scales chosen; --json and an SVG
// of the error along the tensor (svg_plot.hpp). cmd_grads.cpp parses the options and calls
// run_grads_recipes; the plain report (no --recipe) is not touched by anything here.
#pragma once

#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/core.h>

#include <libfloat/training/scaling_recipes.hpp>

#include "common.hpp"
#include "svg_plot.hpp"
#include "tensor_file.hpp"

namespace floatlab::grads_recipes {

/// The recipe names --recipe accepts, in the order of the table.
struct recipe_name {
  std::string_view name;
  std::string_view what;
};
inline constexpr recipe_name recipe_names[] = {
    {"fp8-current", "TE Float8CurrentScaling: one FP32 scale per tensor, fp8_max / amax"},
    {"fp8-delayed", "TE DelayedScaling: the scale from the amax history of the earlier steps"},
    {"fp8-blockwise", "TE Float8BlockScaling (DeepSeek-V3): E4M3, 1x128 tiles, 128x128 for weights"},
    {"mxfp8", "TE MXFP8BlockScaling: E4M3, an E8M0 scale per 32 values, rounded up"},
    {"mxfp8-ocp", "MXFP8 with OCP MX v1.0's scale 2^(floor(log2 amax) - 8): values above 448 clamp"},
    {"nvfp4", "NVFP4: E2M1, an E4M3 scale per 16 values (16x16 for weights), an FP32 tensor scale"},
};

inline std::string recipe_names_help() {
  std::string out;
  for (const recipe_name& r : recipe_names) out += (out.empty() ? "" : ", ") + std::string(r.name);
  return out;
}

/// The options of recipe mode, as cmd_grads.cpp parsed them.
struct settings {
  std::vector<std::string> recipes;  ///< as typed: repeatable, each comma-separated
  std::string shape;                 ///< ROWSxCOLS, or empty: from the file
  std::string role = "gradient";
  std::string fp8_format = "hybrid";
  std::uint64_t steps = 1, margin = 0, history = 1024;
  std::string amax_algo = "max";
  std::uint32_t seed = 1;
};

/// --recipe's names, split at commas, checked, duplicates dropped, in the order given.
inline std::vector<std::string_view> parse_recipes(const std::vector<std::string>& typed) {
  std::vector<std::string_view> out;
  for (const std::string& arg : typed) {
    std::size_t start = 0;
    for (;;) {
      const std::size_t comma = arg.find(',', start);
      const std::string name = arg.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
      const recipe_name* found = nullptr;
      for (const recipe_name& r : recipe_names)
        if (r.name == name) found = &r;
      if (!found)
        throw usage_error("--recipe '" + arg + "': " +
                          (name.empty() ? std::string("an empty recipe name") : "unknown recipe '" + name + "'") +
                          " (accepted: " + recipe_names_help() + "; several separated by commas, or --recipe again)");
      if (std::find(out.begin(), out.end(), found->name) == out.end()) out.push_back(found->name);
      if (comma == std::string::npos) break;
      start = comma + 1;
    }
  }
  return out;
}

// ---- the tensor ----------------------------------------------------------------------------------

/// The whole dump as binary32 (recipes quantize from FP32), and its matrix shape.
struct tensor {
  std::vector<float> values;
  tensor_info info;
  std::size_t rows = 1, cols = 0;
  std::string shape_from;            ///< how rows x cols was decided, for the report
  std::uint64_t rounded_to_f32 = 0;  ///< f64 values that binary32 does not hold exactly
  std::uint64_t nan = 0, infinity = 0, exact_zero = 0;
};

/// Reads FILE into memory: binary16 widened exactly, binary64 rounded to nearest even.
inline tensor load(const std::string& file, std::optional<dtype> raw) {
  tensor t;
  auto to_f32 = [&t](const lf::format& from, lf::bits_t b) {
    lf::status st{};
    const lf::bits_t f = lf::convert(lf::binary32, from, b, lf::env{}, st);
    if (lf::has(st, lf::status::inexact)) ++t.rounded_to_f32;
    t.values.push_back(std::bit_cast<float>(static_cast<std::uint32_t>(f)));
  };
  try {
    t.info = read_tensor(file, raw, [&](const tensor_chunk& ch) {
      for (std::uint16_t h : ch.f16) to_f32(lf::binary16, h);
      t.values.insert(t.values.end(), ch.f32.begin(), ch.f32.end());
      for (double d : ch.f64) to_f32(lf::binary64, std::bit_cast<std::uint64_t>(d));
    });
  } catch (const tensor_error& e) {
    throw usage_error(e.what());
  }
  for (float v : t.values) {
    t.nan += std::isnan(v);
    t.infinity += std::isinf(v);
    t.exact_zero += v == 0;
  }
  return t;
}

/// rows x cols: --shape ROWSxCOLS; else a .npy of two or more dimensions as (all but the last) x
/// last (Fortran order: its transpose, which is how its bytes run); else one row.
inline void decide_shape(tensor& t, const std::string& file, const std::string& shape) {
  const std::size_t n = t.values.size();
  if (n == 0) throw usage_error(file + ": no values, nothing to quantize");
  if (!shape.empty()) {
    const std::size_t x = shape.find('x');
    const std::string bad = "--shape '" + shape + "': ";
    if (x == std::string::npos) throw usage_error(bad + "expected ROWSxCOLS, e.g. 64x1024");
    const std::uint64_t r = whole_number_or_throw(shape.substr(0, x), "--shape ROWS", 1, std::uint64_t{1} << 40);
    const std::uint64_t c = whole_number_or_throw(shape.substr(x + 1), "--shape COLS", 1, std::uint64_t{1} << 40);
    if (r * c != n)
      throw usage_error(bad + std::to_string(r) + " x " + std::to_string(c) + " = " + std::to_string(r * c) +
                        " values, but " + file + " holds " + std::to_string(n) +
                        " (accepted: ROWSxCOLS whose product is the number of values)");
    t.rows = r, t.cols = c, t.shape_from = "--shape";
    return;
  }
  t.rows = 1, t.cols = n, t.shape_from = "one row";
  if (t.info.npy && t.info.npy->shape.size() >= 2) {
    const std::vector<std::uint64_t>& s = t.info.npy->shape;
    const bool f = t.info.npy->fortran_order;
    t.cols = static_cast<std::size_t>(f ? s.front() : s.back());
    t.rows = n / t.cols;
    t.shape_from = f ? "the .npy shape, transposed (Fortran order)" : "the .npy shape";
  }
}

// ---- running the recipes ---------------------------------------------------------------------------

/// One recipe's result and how to describe it.
struct row {
  std::string_view name;
  lf::training::recipe_result r;
  std::string block;         ///< "tensor", "1x128", "16x16", ...
  std::string scale_format;  ///< "fp32", "e8m0", "e4m3 x fp32"
  std::vector<lf::training::delayed_step> steps;  ///< fp8-delayed only
};

inline lf::training::tensor_role role_of(const settings& s) {
  if (s.role == "activation") return lf::training::tensor_role::activation;
  if (s.role == "weight") return lf::training::tensor_role::weight;
  return lf::training::tensor_role::gradient;
}

/// fp8-delayed: the tensor as `steps` equal steps stacked along its rows (one row: its values).
inline row run_delayed(const tensor& t, const settings& s, const lf::format& fp8) {
  std::size_t rows = t.rows, cols = t.cols;
  if (rows % s.steps != 0 && rows == 1 && cols % s.steps == 0) rows = s.steps, cols = t.cols / s.steps;
  if (rows % s.steps != 0)
    throw usage_error("--steps " + std::to_string(s.steps) + ": the " + std::to_string(t.rows) + " x " +
                      std::to_string(t.cols) + " tensor does not split into " + std::to_string(s.steps) +
                      " equal steps (accepted: a number of steps that divides the rows, or the values of a "
                      "one-row tensor)");
  lf::training::delayed_scaling_config c;
  c.fp8 = fp8;
  c.history_len = static_cast<std::size_t>(s.history);
  c.algo = s.amax_algo == "most_recent" ? lf::training::amax_algo::most_recent : lf::training::amax_algo::max;
  c.margin = static_cast<int>(s.margin);
  lf::training::fp8_delayed_scaling d(c);
  row out{"fp8-delayed", d.run(t.values, rows, cols, static_cast<std::size_t>(s.steps)), "tensor", "fp32", {}};
  out.steps = d.steps();
  return out;
}

inline row run_one(std::string_view name, const tensor& t, const settings& s) {
  namespace tr = lf::training;
  const tr::tensor_role role = role_of(s);
  const tr::fp8_format_choice choice = s.fp8_format == "e4m3" ? tr::fp8_format_choice::e4m3 : tr::fp8_format_choice::hybrid;
  const lf::format fp8 = tr::fp8_format_for(choice, role);
  const std::span<const float> x(t.values);
  if (name == "fp8-current") return {name, tr::fp8_current_scaling(x, t.rows, t.cols, fp8), "tensor", "fp32", {}};
  if (name == "fp8-delayed") return run_delayed(t, s, fp8);
  if (name == "fp8-blockwise")
    return {name, tr::fp8_blockwise_scaling(x, t.rows, t.cols, role), role == tr::tensor_role::weight ? "128x128" : "1x128",
            "fp32", {}};
  if (name == "mxfp8") return {name, tr::mxfp8_scaling(x, t.rows, t.cols), "1x32", "e8m0", {}};
  if (name == "mxfp8-ocp") return {name, tr::mxfp8_scaling(x, t.rows, t.cols, lf::scale_rule::ocp_floor), "1x32", "e8m0", {}};
  return {name, tr::nvfp4_scaling(x, t.rows, t.cols, tr::nvfp4_options::for_role(role, s.seed)),
          role == tr::tensor_role::weight ? "16x16" : "1x16", "e4m3 x fp32", {}};
}

// ---- text ---------------------------------------------------------------------------------------------

inline std::string pct(std::uint64_t n, std::uint64_t total) {
  if (total == 0) return "    -  ";
  const double p = 100.0 * static_cast<double>(n) / static_cast<double>(total);
  if (n != 0 && p < 0.005) return " <0.01%";
  return fmt::format("{:6.2f}%", p);
}

/// A scale for the report: 2^k for a power of two (the MX scales; 2^0 as 1), else 4 digits.
inline std::string scale_text(double s) {
  if (std::isinf(s)) return "inf";
  int e = 0;
  if (s > 0 && std::frexp(s, &e) == 0.5 && e - 1 != 0) return fmt::format("2^{}", e - 1);
  return fmt::format("{:.4g}", s);
}

inline std::string scales_line(const row& w) {
  const lf::training::recipe_stats& st = w.r.stats;
  if (w.name == "fp8-delayed") {
    std::string out = w.steps.size() == 1 ? "1 (step 1: empty amax history, TE's initial scale)"
                                          : fmt::format("{} .. {} over {} steps (step 1: 1, empty history)",
                                                        scale_text(st.min_scale), scale_text(st.max_scale), w.steps.size());
    std::vector<std::size_t> sat;
    for (const auto& s : w.steps)
      if (s.saturated) sat.push_back(s.step);
    std::string list;
    for (std::size_t i = 0; i < sat.size() && i < 8; ++i) list += (i ? ", " : "") + std::to_string(sat[i]);
    if (sat.size() > 8) list += fmt::format(", ... ({} steps)", sat.size());
    return out + "\n" + std::string(17, ' ') + (sat.empty() ? "no step saturated" : "saturated in step " + list);
  }
  if (st.scaled_blocks == 0) return "none (no nonzero finite value)";
  std::string out = w.block == "tensor" ? scale_text(st.min_scale) + " (one per tensor)"
                     : st.scaled_blocks == 1 ? scale_text(st.min_scale) + " (one block)"
                                          : fmt::format("{} .. {} over {} blocks", scale_text(st.min_scale),
                                                        scale_text(st.max_scale), st.scaled_blocks);
  if (w.r.block_scaled && w.r.block_scaled->fmt.rule == lf::scale_rule::nvfp4)
    out += fmt::format(", tensor scale T = {:.4g}", w.r.block_scaled->tensor_scale);
  return out;
}

inline void text_report(output_buffer& out, const std::string& file, const tensor& t, const settings& s,
                        const std::vector<row>& rows) {
  const tensor_info& info = t.info;
  const std::string what = info.kind == "npy" ? fmt::format(".npy '{}' shape {}, {} order", info.npy->descr,
                                                            shape_text(info.npy->shape), info.npy->fortran_order ? "Fortran" : "C")
                           : info.kind == "raw" ? fmt::format("raw little-endian {}", dtype_name(info.type))
                                                : std::string("text, read as binary64");
  out << fmt::format("{}\n{} ({})\n", file, count_of(t.values.size(), "value", "values"), what);
  out << fmt::format("as {} x {} (rows x cols, {}), role {}, fp8 format {}, seed {}\n", t.rows, t.cols, t.shape_from,
                     s.role, s.fp8_format, s.seed);
  out << fmt::format("counted apart: {} NaN, {} infinite; {}\n", t.nan, t.infinity,
                     count_of(t.exact_zero, "exact zero", "exact zeros"));
  if (t.rounded_to_f32)
    out << fmt::format("{} rounded to binary32 first (recipes quantize from FP32)\n",
                       count_of(t.rounded_to_f32, "value", "values"));
  out << fmt::format("\n{:<14} {:<6} {:<7} {:>7} {:>7} {:>8} {:>9} {:>9}\n", "recipe", "format", "block", "zero", "sat",
                     "inexact", "max rel", "rms rel");
  for (const row& w : rows) {
    const lf::training::recipe_stats& st = w.r.stats;
    out << fmt::format("{:<14} {:<6} {:<7} {} {} {:>8} {:9.2e} {:9.2e}\n", w.name, lf::format_name(w.r.element), w.block,
                       pct(st.zero, st.values), pct(st.saturated, st.values), pct(st.inexact, st.values),
                       st.max_rel_error, st.rms_rel_error());
  }
  out << "\nscales (x * scale is rounded; a value decodes as element / scale):\n";
  for (const row& w : rows) out << fmt::format("  {:<14} {}\n", w.name, scales_line(w));
  out << "\nzero: nonzero, became 0; sat: overflowed, clamped to max; inexact: other\n"
         "values not kept exactly. Percentages are of all values; relative errors are\n"
         "over the nonzero finite ones (a value that became 0 counts 1).\n";
  for (const row& w : rows)
    if (!w.r.transformed.empty() || w.r.stochastic)
      out << fmt::format("{}: {}{}{}, seed {};\n  its errors are against the values it quantized.\n", w.name,
                         w.r.transformed.empty() ? "" : "16-point random Hadamard transform",
                         !w.r.transformed.empty() && w.r.stochastic ? " and " : "",
                         w.r.stochastic ? "stochastic rounding" : "", s.seed);
}

// ---- JSON ---------------------------------------------------------------------------------------------

inline std::string jstr(std::string_view s) {
  std::string out = "\"";
  for (char c : s) {
    const auto u = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') out += std::string("\\") + c;
    else if (u < 0x20) out += fmt::format("\\u{:04x}", u);
    else out += c;
  }
  return out + "\"";
}

/// A number, or null when it is not finite (JSON has no NaN or infinity).
inline std::string jnum(double v) { return std::isfinite(v) ? fmt::format("{}", v) : std::string("null"); }

inline std::string row_json(const row& w) {
  const lf::training::recipe_result& r = w.r;
  const lf::training::recipe_stats& st = r.stats;
  std::string steps = "null";
  if (!w.steps.empty()) {
    steps = "[";
    for (const auto& s : w.steps)
      steps += fmt::format(R"({}{{"step":{},"scale":{},"amax":{},"saturated":{}}})", s.step == 1 ? "" : ",", s.step,
                           jnum(s.scale), jnum(s.amax), s.saturated);
    steps += "]";
  }
  const bool nv = r.block_scaled && r.block_scaled->fmt.rule == lf::scale_rule::nvfp4;
  return fmt::format(
      R"({{"recipe":{},"format":{},"scale_format":{},"block":[{},{}],"blocks":{},"rounding":{},"hadamard":{},)"
      R"("zero":{},"saturated":{},"inexact":{},"exact":{},"nonfinite":{},"nan_block":{},)"
      R"("fractions":{{"zero":{},"saturated":{},"inexact":{},"exact":{}}},)"
      R"("error":{{"max_abs":{},"rms_abs":{},"max_rel":{},"rms_rel":{}}},)"
      R"("scale":{{"min":{},"max":{},"blocks":{}}},"tensor_scale":{},"steps":{}}})",
      jstr(w.name), jstr(lf::format_name(r.element)), jstr(w.scale_format), r.tile_rows, r.tile_cols, r.block_count(),
      jstr(r.stochastic ? "stochastic" : "nearest_even"), r.transformed.empty() ? "false" : "true", st.zero, st.saturated,
      st.inexact, st.exact, st.nonfinite, st.nan_block, st.fraction(st.zero), st.fraction(st.saturated),
      st.fraction(st.inexact), st.fraction(st.exact), jnum(st.max_abs_error), jnum(st.rms_abs_error()),
      jnum(st.max_rel_error), jnum(st.rms_rel_error()), st.scaled_blocks ? jnum(st.min_scale) : "null",
      st.scaled_blocks ? jnum(st.max_scale) : "null", st.scaled_blocks,
      nv ? jnum(r.block_scaled->tensor_scale) : "null", steps);
}

/// The .npy shape and order as JSON values ("[2,3]", "false"), or null for the other inputs; shared by
/// both JSON reports of grads.
inline std::pair<std::string, std::string> npy_shape_json(const tensor_info& info) {
  if (!info.npy) return {"null", "null"};
  std::string shape = "[";
  for (std::size_t i = 0; i < info.npy->shape.size(); ++i) shape += (i ? "," : "") + std::to_string(info.npy->shape[i]);
  return {shape + "]", info.npy->fortran_order ? "true" : "false"};
}

inline void json_report(output_buffer& out, const std::string& file, const tensor& t, const settings& s,
                        const std::vector<row>& rows) {
  const tensor_info& info = t.info;
  const auto [shape, order] = npy_shape_json(info);
  out << fmt::format(
      R"({{"command":"grads","schema":1,"file":{},"input":{{"kind":{},"dtype":{},"count":{},"bytes":{},"shape":{},"fortran_order":{}}},)"
      R"("rounding":"nearest_even","nan":{},"infinity":{},"exact_zero":{},"results":[],"auto":null,)"
      R"("matrix":{{"rows":{},"cols":{}}},"role":{},"fp8_format":{},"seed":{},"rounded_to_f32":{},"recipes":[)",
      jstr(file), jstr(info.kind), jstr(dtype_name(info.type)), info.count, info.bytes, shape, order, t.nan, t.infinity,
      t.exact_zero, t.rows, t.cols, jstr(s.role), jstr(s.fp8_format), s.seed, t.rounded_to_f32);
  for (std::size_t i = 0; i < rows.size(); ++i) out << (i ? "," : "") << row_json(rows[i]);
  out << "]}\n";
}

// ---- plot -----------------------------------------------------------------------------------------

/// Each recipe's RMS relative error over runs of its blocks (at most 400 runs, in block order),
/// against the position of the run in the tensor's blocks, 0 to 1.
inline void plot(const std::string& path, const std::string& file, const std::vector<row>& rows) {
  std::vector<svg_steps> series;
  for (const row& w : rows) {
    const std::vector<lf::training::block_error>& be = w.r.block_errors;
    const std::size_t nb = be.size(), runs = std::min<std::size_t>(nb, 400);
    svg_steps s{std::string(w.name), {}};
    for (std::size_t k = 0; k < runs; ++k) {
      const std::size_t b0 = k * nb / runs, b1 = (k + 1) * nb / runs;
      std::uint64_t n = 0;
      double sq = 0;
      for (std::size_t b = b0; b < b1; ++b) n += be[b].nonzero, sq += be[b].sum_sq_rel;
      const double v = n ? std::sqrt(sq / static_cast<double>(n)) : std::numeric_limits<double>::quiet_NaN();
      s.steps.push_back({static_cast<double>(b0) / static_cast<double>(nb), static_cast<double>(b1) / static_cast<double>(nb), v});
    }
    series.push_back(std::move(s));
  }
  if (!write_error_steps_svg(path, file + ": RMS relative error by block, per recipe",
                             "position in the tensor (block index / blocks, row-major)", "RMS relative error", series))
    throw usage_error("--plot '" + path + "': cannot write: " + std::strerror(errno));
}

/// Recipe mode: load, run each recipe, print text or JSON, write the plot.
inline int run(const std::string& file, std::optional<dtype> raw, const settings& s, bool json,
               const std::string& plot_path) {
  const std::vector<std::string_view> names = parse_recipes(s.recipes);
  tensor t = load(file, raw);
  decide_shape(t, file, s.shape);
  std::vector<row> rows;
  for (std::string_view n : names) rows.push_back(run_one(n, t, s));
  if (!plot_path.empty()) plot(plot_path, file, rows);
  output_buffer out;
  if (json) {
    json_report(out, file, t, s, rows);
    return exit_success;
  }
  text_report(out, file, t, s, rows);
  if (!plot_path.empty()) out << fmt::format("Wrote {}\n", plot_path);
  return exit_success;
}

}  // namespace floatlab::grads_recipes
