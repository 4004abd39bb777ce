// tools/floatlab/accum_cli.cpp: the definitions of accum_cli.hpp (see there), compiled once.
#include "accum_cli.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/core.h>

namespace floatlab::accum {

/// Picks the rows of a trace to show and finds the stalls. `nonzero(i)`: term i is nonzero.
template <class Nonzero>
void summarise_trace(const lf::trace& tr, const trace_options& o, Nonzero nonzero, dot_result& r) {
  const auto& S = tr.steps;
  r.traced = true;
  r.trace_steps = S.size();
  for (std::size_t i = 1; i < S.size(); ++i) {
    const auto &p = S[i - 1], &c = S[i];
    const bool next_term = c.kind == lf::step_kind::term && p.kind == lf::step_kind::term && p.first == c.first &&
                           c.last == p.last + 1;
    if (next_term && c.bits == p.bits && nonzero(c.last)) {
      ++r.absorbed;
      if (!r.first_stall) r.first_stall = i;
    }
  }
  if (S.size() == 1 && S[0].kind == lf::step_kind::term && S[0].bits == 0 && nonzero(0)) {
    ++r.absorbed;  // 0 + t == 0 cannot happen for a nonzero term unless it underflowed away
    r.first_stall = 0;
  }
  const std::size_t every =
      o.every < 0 ? std::max<std::size_t>(1, (S.size() + 15) / 16) : static_cast<std::size_t>(o.every);
  for (std::size_t i = 0; i < S.size(); ++i) {
    const bool stall = r.first_stall && *r.first_stall == i;
    if (i < o.head || i + o.tail >= S.size() || (every > 0 && i % every == 0) || stall)
      r.trace.push_back({i, S[i], stall});
  }
}

namespace {

/// The block-scaled GEMM models: a quantization recipe for a and b (blocks along K) and the
/// block-scaled unit that multiplies them.
struct block_scaled_model {
  std::string_view name;
  lf::block_format fmt;
  lf::block_scaled_unit unit;
  std::string_view unit_name;
  std::string_view recipe;
};

/// mxfp8 follows NVIDIA's MXFP8 recipe (TE MXFP8BlockScaling: the E8M0 scale rounded up, so that no
/// element saturates); the FP6 and FP4 MX formats the OCP MX v1.0 conversion (§6.3, floor); nvfp4
/// NVIDIA's NVFP4 (E4M3 scale per 16 and a binary32 tensor scale), 1 x 16 blocks on both operands.
constexpr lf::block_format mxfp8_round_up{"mxfp8", lf::float8_e4m3fn, lf::float8_e8m0fnu, 32,
                                          lf::scale_rule::round_up};
constexpr block_scaled_model block_scaled_models[] = {
    {"mxfp8", mxfp8_round_up, lf::block_scaled_units::blackwell_mxf8f6f4, "blackwell_mxf8f6f4",
     "E4M3 elements, an E8M0 scale per 32 rounded up (TE MXFP8BlockScaling)"},
    {"mxfp6_e3m2", lf::mxfp6_e3m2, lf::block_scaled_units::blackwell_mxf8f6f4, "blackwell_mxf8f6f4",
     "E3M2 elements, an E8M0 scale per 32 (OCP MX v1.0 floor rule)"},
    {"mxfp6_e2m3", lf::mxfp6_e2m3, lf::block_scaled_units::blackwell_mxf8f6f4, "blackwell_mxf8f6f4",
     "E2M3 elements, an E8M0 scale per 32 (OCP MX v1.0 floor rule)"},
    {"mxfp4", lf::mxfp4, lf::block_scaled_units::blackwell_mxf4, "blackwell_mxf4",
     "E2M1 elements, an E8M0 scale per 32 (OCP MX v1.0 floor rule)"},
    {"nvfp4", lf::nvfp4, lf::block_scaled_units::blackwell_mxf4, "blackwell_mxf4",
     "E2M1 elements, an E4M3 scale per 16 and a binary32 tensor scale (NVIDIA NVFP4, 1x16 blocks)"},
};

std::string describe_block_scaled(const block_scaled_model& m) {
  return fmt::format("a and b quantized along K: {}; then {} (K = {} per instruction, {}F={}, truncated; "
                     "MMA-Sim arXiv 2511.10909), binary32 output",
                     m.recipe, m.unit_name, m.unit.instruction_k,
                     m.unit.group > 1 ? fmt::format("products summed per {}, ", m.unit.group) : std::string(),
                     m.unit.alignment_bits);
}

}  // namespace

std::string known_model_names() {
  std::string out = lf::known_accumulation_names();
  for (const auto& p : lf::matrix_unit_presets) out += ", " + std::string(p.name);
  for (const auto& m : block_scaled_models) out += ", " + std::string(m.name);
  return out + ", exact";
}

std::string block_scaled_model_names() {
  std::string out;
  for (const auto& m : block_scaled_models) out += (out.empty() ? "" : ",") + std::string(m.name);
  return out;
}

bool fp8_scaling_or_throw(const std::string& name) {
  if (name == "current") return true;
  if (name == "none") return false;
  throw usage_error("--fp8-scaling: unknown recipe '" + name + "' (accepted: current, none)");
}

std::string rounding_phrase(lf::rounding r) {
  switch (r) {
    case lf::rounding::nearest_even: return "nearest even";
    case lf::rounding::toward_zero: return "toward zero";
    default: return std::string(lf::rounding_name(r));
  }
}

std::string describe_unit(const lf::matrix_unit& mu) {
  // The input conversion (lf::unit_converts_input): data wider than the operand type, e.g.
  // binary32 data on a tf32 unit, is converted under input_rounding before the unit computes.
  const std::string inputs = fmt::format("{} inputs (wider data converted {})", lf::format_name(mu.input),
                                         rounding_phrase(mu.input_rounding));
  switch (mu.model) {
    case lf::matrix_unit_model::cuda_core_fma:
      return fmt::format("{}, {} fma chain ({})", inputs, lf::format_name(mu.output), lf::rounding_name(mu.final_rounding));
    case lf::matrix_unit_model::fp8_promotion:
      return fmt::format("{}, block FMA N={} F={} ({} fraction bits kept), promoted to an {} add every {} "
                         "products",
                         inputs, mu.block_size, mu.alignment_bits, mu.output_fraction_bits,
                         lf::format_name(mu.output), mu.promotion_interval);
    case lf::matrix_unit_model::pairwise_tree:
      return fmt::format("{}, blocks of {}: products rounded to {}, a pairwise tree of adds, then c + the tree "
                         "({}; subnormal inputs {}, outputs {})",
                         inputs, mu.block_size, lf::format_name(mu.output), lf::rounding_name(mu.final_rounding),
                         mu.input_subnormals == lf::subnormal_handling::flush ? "flushed" : "kept",
                         mu.output_subnormals == lf::subnormal_handling::flush ? "flushed" : "kept");
    case lf::matrix_unit_model::late_accumulation:
      return fmt::format("{}, blocks of {}{}: products truncated onto F={} below their largest, then c added "
                         "rounding down ({} more bits when c is the larger{}), {} output ({})",
                         inputs, mu.block_size, mu.odd_even_halves ? " in even and odd halves" : "", mu.alignment_bits,
                         mu.late_extra_bits,
                         mu.late_c_drop > 0 ? fmt::format(", dropped {} binades below", mu.late_c_drop) : std::string(),
                         lf::format_name(mu.output), lf::rounding_name(mu.final_rounding));
    case lf::matrix_unit_model::block_fma: break;
  }
  std::string terms;
  switch (mu.alignment) {
    case lf::alignment_rounding::truncate: terms = fmt::format("F={}, terms truncated", mu.alignment_bits); break;
    case lf::alignment_rounding::floor: terms = fmt::format("F={}, terms rounded down", mu.alignment_bits); break;
    case lf::alignment_rounding::exact: terms = "terms exact (no alignment grid)"; break;
  }
  return fmt::format("{}, block FMA N={} {}, {} output ({} fraction bits, {})", inputs, mu.block_size, terms,
                     lf::format_name(mu.output), mu.output_fraction_bits, lf::rounding_name(mu.final_rounding));
}

std::string model_list_text() {
  std::string out = "Accumulation models (accumulate.hpp; -r changes their rounding):\n";
  for (const auto& n : lf::named_accumulations) out += fmt::format("  {:<24} {}\n", n.name, lf::describe(n.model));
  out += "Matrix units (matrix_unit.hpp; fixed hardware rounding):\n";
  for (const auto& p : lf::matrix_unit_presets)
    out += fmt::format("  {:<24} {}; {}; {}\n", p.name, describe_unit(p.unit), p.citation,
                       p.hardware.empty() ? std::string("model, not checked against recorded hardware results")
                                          : "reproduces recorded results of " + std::string(p.hardware));
  out += "Block-scaled GEMM models (block_scale.hpp, block_scaled_unit.hpp; model, not checked against hardware):\n";
  for (const auto& m : block_scaled_models) out += fmt::format("  {:<24} {}\n", m.name, describe_block_scaled(m));
  out += "FP8 matrix units scale wider data per tensor first (--fp8-scaling current, TE Float8CurrentScaling);\n"
         "--fp8-scaling none rounds it to FP8 as it is.\n";
  out += fmt::format("Reference:\n  {:<24} {}\n", "exact", exact_description);
  return out;
}

std::vector<model_spec> parse_models(std::string_view list, const std::optional<lf::rounding>& rounding,
                                     std::uint64_t seed, bool fp8_current) {
  std::vector<model_spec> out;
  std::size_t start = 0;
  while (start <= list.size()) {
    const std::size_t comma = std::min(list.find(',', start), list.size());
    const std::string name(list.substr(start, comma - start));
    start = comma + 1;
    if (name.empty()) throw usage_error("--model: empty model name in '" + std::string(list) + "' (accepted: " +
                                        known_model_names() + "; or 'list')");
    model_spec s;
    s.name = name;
    if (name == "exact") {
      s.kind = model_kind::exact;
      s.description = exact_description;
    } else if (auto a = lf::accumulation_by_name(name)) {
      s.kind = model_kind::accumulation;
      s.acc = *a;
      if (rounding) s.acc.accumulator_env.mode = *rounding;
      s.acc.seed = seed;
      s.description = lf::describe(s.acc);
    } else if (auto u = lf::matrix_unit_by_name(name)) {
      s.kind = model_kind::matrix_unit;
      s.mu = *u;
      s.fp8_current = fp8_current;
      s.description = describe_unit(s.mu);
      if (model_spec::is_fp8_unit(s.mu))
        s.description += fp8_current ? "; wider data scaled per tensor first (--fp8-scaling current)"
                                     : "; wider data rounded to FP8 unscaled (--fp8-scaling none)";
    } else if (auto m = std::find_if(std::begin(block_scaled_models), std::end(block_scaled_models),
                                     [&](const block_scaled_model& b) { return b.name == name; });
               m != std::end(block_scaled_models)) {
      s.kind = model_kind::block_scaled;
      s.bf = m->fmt;
      s.bsu = m->unit;
      s.description = describe_block_scaled(*m);
    } else {
      throw usage_error("--model: unknown model '" + name + "' (accepted: " + known_model_names() +
                        "; '--model list' describes them)");
    }
    for (const auto& o : out)
      if (o.name == name) throw usage_error("--model: '" + name + "' is given twice");
    out.push_back(std::move(s));
  }
  return out;
}

std::vector<std::string_view> flag_names(lf::status s) {
  std::vector<std::string_view> out;
  if (lf::has(s, lf::status::invalid)) out.push_back("invalid");
  if (lf::has(s, lf::status::divide_by_zero)) out.push_back("divide_by_zero");
  if (lf::has(s, lf::status::overflow)) out.push_back("overflow");
  if (lf::has(s, lf::status::underflow)) out.push_back("underflow");
  if (lf::has(s, lf::status::inexact)) out.push_back("inexact");
  return out;
}

std::string flags_text(lf::status s) {
  std::string out;
  for (auto n : flag_names(s)) {
    if (!out.empty()) out += ',';
    out += n;
  }
  return out.empty() ? "-" : out;
}

std::string json_string(std::string_view s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') (out += '\\') += c;
    else if (static_cast<unsigned char>(c) < 0x20) out += fmt::format("\\u{:04x}", static_cast<unsigned>(c));
    else out += c;
  }
  return out + '"';
}

std::string json_number(double v) {
  if (std::isnan(v)) return "\"nan\"";
  if (std::isinf(v)) return v > 0 ? "\"inf\"" : "\"-inf\"";
  return shortest(v);
}

std::string json_flags(lf::status s) {
  std::string out = "[";
  for (auto n : flag_names(s)) {
    if (out.size() > 1) out += ',';
    out += json_string(n);
  }
  return out + "]";
}

std::string json_errors(const lf::error_measures& e) {
  return fmt::format(R"({{"absolute":{},"relative":{},"ulps":{},"bound_ratio":{}}})", json_number(e.absolute),
                     json_number(e.relative), json_number(e.ulps), json_number(e.bound_ratio));
}

void add_dist_options(CLI::App& cmd, dist_options& o) {
  cmd.add_option("--dist", o.dist,
                 "Generated data: normal (--mean, --stddev), uniform in [--low, --high), lognormal (exp of a "
                 "normal with --mean, --stddev), ones, constant (--value)")
      ->check(CLI::IsMember({"normal", "uniform", "lognormal", "ones", "constant"}))
      ->type_name("DIST")
      ->capture_default_str();
  cmd.add_option("--mean", o.mean, "normal/lognormal: mean (of the log for lognormal)")->capture_default_str();
  cmd.add_option("--stddev", o.stddev, "normal/lognormal: standard deviation (>= 0)")->capture_default_str();
  cmd.add_option("--low", o.low, "uniform: lower end")->capture_default_str();
  cmd.add_option("--high", o.high, "uniform: upper end (> --low)")->capture_default_str();
  cmd.add_option("--value", o.value, "constant: the value of every element")->capture_default_str();
  cmd.add_option("--seed", o.seed, "Seed of the generator (std::mt19937_64); the same seed gives the same data")
      ->transform(whole_number_check(0, UINT64_MAX))
      ->type_name("N")
      ->capture_default_str();
}

void check_dist_options(const CLI::App& cmd, const dist_options& o) {
  auto only_for = [&](const char* opt, std::initializer_list<std::string_view> dists) {
    if (cmd.count(opt) == 0) return;
    for (auto d : dists)
      if (d == o.dist) return;
    std::string list;
    for (auto d : dists) {
      if (!list.empty()) list += " or ";
      list += d;
    }
    throw usage_error(std::string(opt) + " applies to --dist " + list + ", not --dist " + o.dist);
  };
  only_for("--mean", {"normal", "lognormal"});
  only_for("--stddev", {"normal", "lognormal"});
  only_for("--low", {"uniform"});
  only_for("--high", {"uniform"});
  only_for("--value", {"constant"});
  if (!(o.stddev >= 0) || !std::isfinite(o.stddev)) throw usage_error("--stddev must be finite and >= 0");
  if (!(o.low < o.high) || !std::isfinite(o.low) || !std::isfinite(o.high))
    throw usage_error("--low must be below --high, both finite");
  if (!std::isfinite(o.mean) || !std::isfinite(o.value)) throw usage_error("--mean and --value must be finite");
}

vec generate(generator& g, std::size_t n, const lf::format& f) {
  vec v;
  v.bits.resize(n);
  for (auto& b : v.bits) {
    lf::status st{};
    b = lf::convert(f, lf::binary64, std::bit_cast<std::uint64_t>(g.next()), lf::env{}, st);
    v.flags |= st;
    v.changed += lf::has(st, lf::status::inexact);
  }
  return v;
}

table_file read_table(const std::string& path, const lf::format& f) {
  table_file t;
  t.path = path;
  input_file in(path);
  line_reader lines(in.get());
  std::string_view line;
  const std::string name = path == "-" ? "<stdin>" : path;
  while (lines.next(line)) {
    std::vector<lf::bits_t> row;
    std::size_t i = 0;
    auto space = [](char c) { return c == ' ' || c == '\t' || c == '\r' || c == ','; };
    while (i < line.size() && space(line[i])) ++i;
    if (i == line.size() || line[i] == '#') continue;
    while (i < line.size()) {
      std::size_t j = i;
      while (j < line.size() && !space(line[j])) ++j;
      const std::string_view word = line.substr(i, j - i);
      lf::status st{};
      const lf::parsed<lf::bits_t> r = lf::parse(f, word, lf::env{}, &st);
      if (!r) {
        std::string shown;
        for (char c : word) {
          if (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) >= 0x7F)
            shown += fmt::format("\\x{:02X}", static_cast<unsigned>(static_cast<unsigned char>(c)));
          else shown += c;
        }
        throw usage_error(fmt::format("{}:{}: '{}' is not a number: {} ({})", name, lines.line_number(), shown,
                                      r.error.message(), number_syntax_help));
      }
      row.push_back(r.value);
      t.flags |= st;
      t.changed += lf::has(st, lf::status::inexact);
      i = j;
      while (i < line.size() && space(line[i])) ++i;
    }
    t.rows.push_back(std::move(row));
    t.line_of_row.push_back(lines.line_number());
  }
  if (t.rows.empty()) throw usage_error(name + ": no numbers (empty input; one number per line expected)");
  return t;
}

vec column_of(const table_file& t, std::size_t want_columns, std::size_t column) {
  vec v;
  const std::string name = t.path == "-" ? "<stdin>" : t.path;
  for (std::size_t r = 0; r < t.rows.size(); ++r) {
    if (t.rows[r].size() != want_columns)
      throw usage_error(fmt::format("{}:{}: {} numbers on the line, expected {}", name, t.line_of_row[r],
                                    t.rows[r].size(), want_columns == 1 ? "one per line" : "two (a b) per line"));
    v.bits.push_back(t.rows[r][column]);
  }
  v.flags = t.flags;
  v.changed = t.changed;
  return v;
}

vec convert_all(const lf::format& from, const lf::format& to, std::span<const lf::bits_t> x, const lf::env& e) {
  vec v;
  v.bits.resize(x.size());
  if (from == to) {
    std::copy(x.begin(), x.end(), v.bits.begin());
    return v;
  }
  for (std::size_t i = 0; i < x.size(); ++i) {
    lf::status st{};
    v.bits[i] = lf::convert(to, from, x[i], e, st);
    v.flags |= st;
    v.changed += lf::has(st, lf::status::inexact);
  }
  return v;
}

std::string conversion_note(const model_spec& s, const lf::format& data, std::size_t changed,
                            lf::status flags, std::size_t total) {
  const lf::format in = s.input(data);
  if (in == data) return {};
  return fmt::format("inputs converted {} -> {} ({}) as the {} requires: {} of {} values changed{}",
                     lf::format_name(data), lf::format_name(in), rounding_phrase(s.input_env().mode),
                     s.kind == model_kind::matrix_unit ? "unit" : "model", changed, total,
                     flags == lf::status::none ? std::string() : ", flags " + flags_text(flags));
}

void add_trace_options(CLI::App& cmd, trace_options& o) {
  cmd.add_flag("--trace", o.on,
               "Show the partial sums of the accumulation models (not of matrix units): the first and last "
               "steps, every K-th, and the first step where a nonzero term left the sum unchanged (a stall)");
  cmd.add_option("--trace-every", o.every, "With --trace: also every K-th step (0: none; default: about 16 rows)")
      ->type_name("K")
      ->transform(whole_number_check(0, std::uint64_t{1} << 40));
  cmd.add_option("--trace-head", o.head, "With --trace: the first H steps")
      ->transform(whole_number_check(0, std::uint64_t{1} << 40))
      ->type_name("H")
      ->capture_default_str();
  cmd.add_option("--trace-tail", o.tail, "With --trace: the last T steps")
      ->transform(whole_number_check(0, std::uint64_t{1} << 40))
      ->type_name("T")
      ->capture_default_str();
}

namespace {

lf::bits_t f32_bits(float v) { return std::bit_cast<std::uint32_t>(v); }
float f32_value(lf::bits_t b) { return std::bit_cast<float>(static_cast<std::uint32_t>(b)); }
std::string short32(float v) { return lf::to_shortest(lf::binary32, f32_bits(v)); }

/// x (format data) as floats, rounded to nearest even where data is wider.
std::vector<float> floats_of(const lf::format& data, std::span<const lf::bits_t> x, lf::status& st) {
  std::vector<float> out(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) out[i] = f32_value(lf::convert(lf::binary32, data, x[i], lf::env{}, st));
  return out;
}

}  // namespace

scaled_gemm_result run_scaled_gemm(const model_spec& s, const lf::format& data, std::span<const lf::bits_t> A,
                                   std::span<const lf::bits_t> B, std::size_t M, std::size_t N, std::size_t K,
                                   bool b_is_ones) {
  scaled_gemm_result r;
  const std::string operands = b_is_ones ? "the terms" : "a and b";
  lf::status in_flags{};
  const std::vector<float> fa = floats_of(data, A, in_flags);
  std::vector<lf::bits_t> bt(N * K);  // B transposed: the operand is quantized along K
  for (std::size_t k = 0; k < K; ++k)
    for (std::size_t j = 0; j < N; ++j) bt[j * K + k] = B[k * N + j];
  const std::vector<float> fb = floats_of(data, bt, in_flags);
  const std::string widened =
      data.bits() > 32 ? fmt::format("{} data rounded to fp32 first{}; ", lf::format_name(data),
                                     lf::has(in_flags, lf::status::inexact) ? " (inexact)" : "")
                       : std::string();
  r.quantized_exact.resize(M * N);
  // Values that the quantization changed: the decoded value differs from the float.
  auto count_changed = [](const std::vector<float>& x, auto value_of) {
    std::size_t n = 0;
    for (std::size_t i = 0; i < x.size(); ++i) n += value_of(i) != static_cast<double>(x[i]);
    return n;
  };
  if (s.kind == model_kind::block_scaled) {
    const lf::block_quantized qa = lf::mx_quantize(fa, M, K, s.bf), qb = lf::mx_quantize(fb, N, K, s.bf);
    std::vector<float> c(M * N, 0.0f);
    lf::block_scaled_gemm(s.bsu, qa, qb, c, r.flags);
    r.c.resize(M * N);
    for (std::size_t i = 0; i < M * N; ++i) r.c[i] = f32_bits(c[i]);
    for (std::size_t i = 0; i < M; ++i)
      for (std::size_t j = 0; j < N; ++j)
        for (std::size_t k = 0; k < K; ++k)
          r.quantized_exact[i * N + j].add_product(lf::binary64, std::bit_cast<std::uint64_t>(lf::mx_value(qa, i * K + k)),
                                                   lf::binary64, std::bit_cast<std::uint64_t>(lf::mx_value(qb, j * K + k)));
    const std::size_t changed = count_changed(fa, [&](std::size_t i) { return lf::mx_value(qa, i); }) +
                                (b_is_ones ? 0 : count_changed(fb, [&](std::size_t i) { return lf::mx_value(qb, i); }));
    r.note = fmt::format("{}{} quantized to {}: {} of {} values changed{}", widened, operands, s.name, changed,
                         fa.size() + (b_is_ones ? 0 : fb.size()),
                         (qa.flags | qb.flags) == lf::status::none ? std::string()
                                                                   : ", flags " + flags_text(qa.flags | qb.flags));
    return r;
  }
  // An FP8 matrix unit under per-tensor current scaling.
  const lf::format f8 = s.mu.input;
  const lf::training::recipe_result ra = lf::training::fp8_current_scaling(fa, M, K, f8),
                                    rb = lf::training::fp8_current_scaling(fb, N, K, f8);
  const float sa = static_cast<float>(ra.scales[0]), sb = static_cast<float>(rb.scales[0]);
  lf::status epi{};
  const lf::bits_t one = f32_bits(1.0f);
  const lf::bits_t inv_a = lf::div(lf::binary32, one, f32_bits(sa), lf::env{}, epi),
                   inv_b = lf::div(lf::binary32, one, f32_bits(sb), lf::env{}, epi);
  const lf::bits_t alpha32 = lf::mul(lf::binary32, inv_a, inv_b, lf::env{}, epi);
  const lf::bits_t alpha = lf::convert(s.mu.output, lf::binary32, alpha32, lf::env{}, epi);
  std::vector<lf::bits_t> ca(ra.codes.begin(), ra.codes.end()), cb(rb.codes.begin(), rb.codes.end());
  r.c.resize(M * N);
  for (std::size_t i = 0; i < M; ++i)
    for (std::size_t j = 0; j < N; ++j) {
      const auto ai = std::span<const lf::bits_t>(ca).subspan(i * K, K), bj = std::span<const lf::bits_t>(cb).subspan(j * K, K);
      const lf::bits_t acc = lf::dot(s.mu, f8, ai, f8, bj, 0, r.flags);
      r.c[i * N + j] = lf::mul(s.mu.output, acc, alpha, lf::env{}, r.flags);
      for (std::size_t k = 0; k < K; ++k)
        r.quantized_exact[i * N + j].add_product(lf::binary64, std::bit_cast<std::uint64_t>(ra.value(i * K + k)),
                                                 lf::binary64, std::bit_cast<std::uint64_t>(rb.value(j * K + k)));
    }
  const std::size_t changed = count_changed(fa, [&](std::size_t i) { return ra.value(i); }) +
                              (b_is_ones ? 0 : count_changed(fb, [&](std::size_t i) { return rb.value(i); }));
  r.note = fmt::format("{}current scaling (TE Float8CurrentScaling): {} rounded to {} (saturating), "
                       "{} of {} values changed; the result times {} (1/S_a * 1/S_b in fp32)",
                       widened,
                       b_is_ones ? fmt::format("the terms x {} and the ones x {}", short32(sa), short32(sb))
                                 : fmt::format("a x {} and b x {}", short32(sa), short32(sb)),
                       lf::format_name(f8), changed, fa.size() + (b_is_ones ? 0 : fb.size()),
                       lf::to_shortest(lf::binary32, alpha32));
  return r;
}

dot_result run_dot(const model_spec& s, const lf::format& data, std::span<const lf::bits_t> a,
                   std::span<const lf::bits_t> b, bool as_sum, const lf::exact_accumulator& exact,
                   const lf::exact_accumulator& mag, const trace_options& topt) {
  dot_result r;
  const std::size_t n = a.size();
  if (s.kind == model_kind::exact) {
    lf::status st{};
    const lf::bits_t v = exact.round_to(lf::binary64, lf::env{}, st);
    r.result = lf::value{lf::binary64, v};
    r.flags = exact.flags();  // the fp64 display rounding is reported separately (exact_in_fp64)
    r.error = {0, 0, 0, 0};   // the reference itself
    return r;
  }
  if (s.uses_scaling(data)) {
    std::vector<lf::bits_t> ones;
    if (as_sum) {
      lf::status ignored{};
      ones.assign(n, lf::convert(data, lf::binary64, std::bit_cast<std::uint64_t>(1.0), lf::env{}, ignored));
    }
    scaled_gemm_result g = run_scaled_gemm(s, data, a, as_sum ? std::span<const lf::bits_t>(ones) : b, 1, 1, n, as_sum);
    r.result = lf::value{s.accumulator(), g.c[0]};
    r.flags = g.flags;
    r.error = lf::measure_error(r.result.fmt, r.result.bits, exact, n, &mag);
    // What the quantization alone costs: the quantized values' exact dot against the data's.
    lf::exact_accumulator diff = g.quantized_exact[0];
    diff.sub(exact);
    const double ex = exact.to_double();
    r.note = g.note + fmt::format("; the quantized values' exact {} has relative error {}", as_sum ? "sum" : "dot",
                                  short_number(ex == 0 ? (diff.is_zero() ? 0.0 : INFINITY) : std::fabs(diff.to_double() / ex)));
    return r;
  }
  const lf::format in = s.input(data);
  vec ca = convert_all(data, in, a, s.input_env());
  vec cb = as_sum ? vec{} : convert_all(data, in, b, s.input_env());
  r.note = conversion_note(s, data, ca.changed + cb.changed, ca.flags | cb.flags, as_sum ? n : 2 * n);
  lf::status st{};
  if (s.kind == model_kind::accumulation) {
    lf::trace tr;
    lf::trace* trp = topt.on ? &tr : nullptr;
    r.result = as_sum ? lf::sum(s.acc, ca.bits, &st, trp) : lf::dot(s.acc, ca.bits, cb.bits, &st, trp);
    if (trp) {
      const lf::format inf = in;
      auto nz = [&](std::size_t i) {
        // lf::classify, not a mask: E8M0's 0x00 is 2^-127 and a fnuz 0x80 is its NaN, not zeros.
        auto nzb = [&](lf::bits_t x) {
          const lf::fp_class c = lf::classify(inf, x);
          return c != lf::fp_class::positive_zero && c != lf::fp_class::negative_zero;
        };
        return as_sum ? nzb(ca.bits[i]) : nzb(ca.bits[i]) && nzb(cb.bits[i]);
      };
      summarise_trace(tr, topt, nz, r);
    }
  } else {
    if (as_sum) {
      lf::status ignored{};
      const lf::bits_t one = lf::convert(in, lf::binary64, std::bit_cast<std::uint64_t>(1.0), lf::env{}, ignored);
      cb.bits.assign(n, one);
    }
    const lf::bits_t c0 = 0;  // +0 in the output format
    const lf::bits_t v = lf::dot(s.mu, in, ca.bits, in, cb.bits, c0, st);
    r.result = lf::value{s.mu.output, v};
  }
  r.flags = st;
  r.error = lf::measure_error(r.result.fmt, r.result.bits, exact, n, &mag);
  return r;
}

std::string text_table(const std::vector<std::vector<std::string>>& rows) {
  std::vector<std::size_t> w;
  for (const auto& r : rows)
    for (std::size_t i = 0; i < r.size(); ++i) {
      if (w.size() <= i) w.push_back(0);
      w[i] = std::max(w[i], r[i].size());
    }
  std::string out;
  for (const auto& r : rows) {
    std::string line;
    for (std::size_t i = 0; i < r.size(); ++i) {
      line += r[i];
      if (i + 1 < r.size()) line += std::string(w[i] - r[i].size() + 2, ' ');
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out += "  ";
    out += line;
    out += '\n';
  }
  return out;
}

std::string trace_text(const model_spec& s, const dot_result& r) {
  std::string out = fmt::format("trace {} ({} steps in {}", s.name, r.trace_steps, lf::format_name(r.result.fmt));
  if (r.first_stall)
    out += fmt::format("; {} nonzero terms left the sum unchanged, the first at step {}", r.absorbed, *r.first_stall);
  else out += "; no stall";
  out += "):\n";
  std::vector<std::vector<std::string>> rows{{"step", "kind", "terms", "partial sum", "flags", ""}};
  std::size_t prev = 0;
  bool first = true;
  for (const auto& t : r.trace) {
    if (!first && t.step != prev + 1) rows.push_back({"...", "", "", "", "", ""});
    first = false;
    prev = t.step;
    rows.push_back({std::to_string(t.step), std::string(lf::step_kind_name(t.s.kind)),
                    fmt::format("{}..{}", t.s.first, t.s.last), lf::to_shortest(r.result.fmt, t.s.bits),
                    flags_text(t.s.flags), t.first_stall ? "<- first stall: the term was absorbed" : ""});
  }
  return out + text_table(rows);
}

std::string trace_json(const dot_result& r) {
  std::string out = fmt::format(R"({{"steps":{},"absorbed_terms":{},"first_stall":{},"rows":[)", r.trace_steps,
                                r.absorbed, r.first_stall ? std::to_string(*r.first_stall) : "null");
  bool first = true;
  for (const auto& t : r.trace) {
    out += fmt::format(R"({}{{"step":{},"kind":{},"first":{},"last":{},"value":{},"flags":{}}})", first ? "" : ",",
                       t.step, json_string(lf::step_kind_name(t.s.kind)), t.s.first, t.s.last,
                       json_string(lf::to_shortest(r.result.fmt, t.s.bits)), json_flags(t.s.flags));
    first = false;
  }
  return out + "]}";
}

void add_model_options(CLI::App& cmd, std::string& models, std::string& input_format, std::string& rounding,
                       bool& json, std::string& fp8_scaling) {
  cmd.add_option("--model", models,
                 "Models side by side, comma-separated: accumulation presets, matrix-unit presets, exact; "
                 "'--model list' describes every one")
      ->type_name("LIST")
      ->capture_default_str();
  cmd.add_option("--input-format", input_format,
                 "Format of the data: every number is rounded once (nearest even) to it; accepted: " +
                     lf::known_format_names())
      ->type_name("FORMAT")
      ->capture_default_str();
  cmd.add_option("-r,--rounding", rounding,
                 "Rounding of the accumulation models' operations (default: the preset's, nearest even); "
                 "matrix units keep their hardware rounding; accepted: " + std::string(lf::rounding_names_help))
      ->type_name("MODE");
  cmd.add_option("--fp8-scaling", fp8_scaling,
                 "How FP8 matrix units (hopper_fp8, ada_fp8, blackwell_fp8, cdna3_fp8, ...) get wider data: "
                 "current (scaled per tensor to the FP8 range first, TE Float8CurrentScaling; the result "
                 "unscaled after) or none (rounded to FP8 as it is: small data becomes 0)")
      ->type_name("RECIPE")
      ->capture_default_str();
  cmd.add_flag("--json", json, "Machine-readable output (schema in the footer)");
}

lf::format input_format_or_throw(const std::string& name) {
  std::string err;
  if (auto f = lf::format_by_name(name, &err)) return *f;
  throw usage_error("--input-format: " + err);
}

std::optional<lf::rounding> rounding_or_throw(const std::string& name) {
  if (name.empty()) return std::nullopt;
  if (auto r = lf::rounding_by_name(name)) return *r;
  throw usage_error("--rounding: unknown rounding '" + name + "' (accepted: " + std::string(lf::rounding_names_help) +
                    ")");
}

void check_generated_or_file(const CLI::App& cmd, bool from_file,
                             std::initializer_list<const char*> generation_options) {
  if (!from_file) return;
  for (const char* o : generation_options)
    if (cmd.count(o) > 0) throw usage_error(std::string(o) + " generates data; it cannot be combined with FILE");
}

std::string generated_text(const dist_options& d) {
  std::string out = fmt::format("generated by --dist {}", d.dist);
  if (d.dist == "normal" || d.dist == "lognormal")
    out += fmt::format(" --mean {} --stddev {}", shortest(d.mean), shortest(d.stddev));
  if (d.dist == "uniform") out += fmt::format(" --low {} --high {}", shortest(d.low), shortest(d.high));
  if (d.dist == "constant") out += fmt::format(" --value {}", shortest(d.value));
  return out + fmt::format(" --seed {}", d.seed);
}

std::string data_description(const vector_options& o, const lf::format& f, std::size_t changed,
                             lf::status flags) {
  std::string out;
  if (o.files.empty()) {
    out = fmt::format("{} data {}", lf::format_name(f), generated_text(o.dist));
  } else {
    out = fmt::format("{} data read from", lf::format_name(f));
    for (const auto& p : o.files) out += " " + p;
  }
  out += fmt::format("; rounding to {} changed {} values", lf::format_name(f), changed);
  if (flags != lf::status::none) out += " (flags " + flags_text(flags) + ")";
  return out;
}

exact_reference exact_of(const lf::format& data, std::span<const lf::bits_t> a, std::span<const lf::bits_t> b,
                         bool is_dot) {
  exact_reference r;
  // lf::abs, not a mask: a fnuz NaN is the sign bit itself (masked, it would read as +0).
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (is_dot) {
      r.value.add_product(data, a[i], data, b[i]);
      r.magnitude.add_product(data, lf::abs(data, a[i]), data, lf::abs(data, b[i]));
    } else {
      r.value.add(data, a[i]);
      r.magnitude.add(data, lf::abs(data, a[i]));
    }
  }
  return r;
}

int run_vector_command(const CLI::App& cmd, const vector_options& o, bool is_dot) {
  const char* what = is_dot ? "dot" : "sum";
  if (o.models == "list") {
    output_buffer out;
    out << model_list_text();
    return exit_success;
  }
  const lf::format data = input_format_or_throw(o.input_format);
  const auto rounding = rounding_or_throw(o.rounding);
  const std::vector<model_spec> models = parse_models(o.models, rounding, o.dist.seed, fp8_scaling_or_throw(o.fp8_scaling));
  check_generated_or_file(cmd, !o.files.empty(),
                          {"--n", "--dist", "--mean", "--stddev", "--low", "--high", "--value", "--seed"});
  if (o.trace.on == false && (cmd.count("--trace-every") || cmd.count("--trace-head") || cmd.count("--trace-tail")))
    throw usage_error("--trace-every, --trace-head and --trace-tail need --trace");

  vec a, b;
  if (o.files.empty()) {
    check_dist_options(cmd, o.dist);
    if (o.n < 1 || o.n > max_generated)
      throw usage_error(fmt::format("--n {}: the length must be between 1 and {}", o.n, max_generated));
    generator g(o.dist);
    a = generate(g, o.n, data);
    if (is_dot) b = generate(g, o.n, data);
  } else if (!is_dot) {
    if (o.files.size() != 1) throw usage_error("sum reads one FILE (one number per line)");
    a = column_of(read_table(o.files[0], data), 1, 0);
  } else if (o.files.size() == 1) {
    const table_file t = read_table(o.files[0], data);
    a = column_of(t, 2, 0);
    b = column_of(t, 2, 1);
    b.flags = lf::status::none;  // counted once, in a
    b.changed = 0;
  } else if (o.files.size() == 2) {
    if (o.files[0] == "-" && o.files[1] == "-") throw usage_error("only one FILE can be '-' (stdin)");
    a = column_of(read_table(o.files[0], data), 1, 0);
    b = column_of(read_table(o.files[1], data), 1, 0);
    if (a.bits.size() != b.bits.size())
      throw usage_error(fmt::format("mismatched lengths: {} has {} numbers, {} has {}; a dot product needs the same "
                                    "number in both",
                                    o.files[0], a.bits.size(), o.files[1], b.bits.size()));
  } else {
    throw usage_error("dot reads one FILE with two numbers per line, or two FILEs with one number per line");
  }
  const std::size_t n = a.bits.size();
  if (!is_dot) b.bits.clear();

  // The exact value of the data and sum |terms|.
  const exact_reference ref = exact_of(data, a.bits, b.bits, is_dot);
  const lf::exact_accumulator &exact = ref.value, &mag = ref.magnitude;
  lf::status display{};
  const double exact_d = std::bit_cast<double>(exact.round_to(lf::binary64, lf::env{}, display));
  const bool exact_in_fp64 = !lf::has(display, lf::status::inexact);  // NaN and infinities are shown as they are
  const double mag_d = mag.to_double();

  std::vector<dot_result> results;
  for (const auto& s : models) results.push_back(run_dot(s, data, a.bits, b.bits, !is_dot, exact, mag, o.trace));

  const lf::status input_flags = a.flags | b.flags;
  const std::size_t changed = a.changed + b.changed;
  output_buffer out;
  if (o.json) {
    out << fmt::format(R"({{"schema":"floatlab-accum/1","command":{},"n":{},"input_format":{},"data":)",
                       json_string(what), n, json_string(lf::format_name(data)));
    if (o.files.empty()) {
      out << fmt::format(R"({{"source":"generated","dist":{},"seed":{}}})", json_string(o.dist.dist), o.dist.seed);
    } else {
      std::string files;
      for (const auto& p : o.files) {
        if (!files.empty()) files += ',';
        files += json_string(p);
      }
      out << fmt::format(R"({{"source":"file","files":[{}]}})", files);
    }
    out << fmt::format(R"(,"input_flags":{},"inputs_changed":{},"exact":{{"value":{},"exact_in_fp64":{},"magnitude":{}}},"models":[)",
                       json_flags(input_flags), changed, json_string(shortest(exact_d)),
                       exact_in_fp64 ? "true" : "false", json_string(shortest(mag_d)));
    for (std::size_t k = 0; k < models.size(); ++k) {
      const auto& s = models[k];
      const auto& r = results[k];
      out << fmt::format(
          R"({}{{"name":{},"kind":{},"description":{},"input_format":{},"accumulator_format":{},"input_conversion":{},"result":{},"bits":"0x{:X}","flags":{},"error":{})",
          k ? "," : "", json_string(s.name), json_string(s.kind_name()), json_string(s.description),
          json_string(lf::format_name(s.input(data))), json_string(lf::format_name(r.result.fmt)), json_string(r.note),
          json_string(lf::to_shortest(r.result.fmt, r.result.bits)), r.result.bits, json_flags(r.flags),
          json_errors(r.error));
      if (r.traced) out << ",\"trace\":" << trace_json(r);
      out << "}";
    }
    out << "]}\n";
    return exit_success;
  }

  out << fmt::format("floatlab {}: {} terms; {}\n", what, n, data_description(o, data, changed, input_flags));
  out << fmt::format("exact {}: {}{}{}   (sum |terms| = {})\n\n", what, exact_in_fp64 ? "" : "~", shortest(exact_d),
                     exact_in_fp64 ? "" : " (rounded to fp64 for display)", shortest(mag_d));
  std::vector<std::vector<std::string>> rows{
      {"model", "accumulator", "result", "abs error", "rel error", "ulps", "err/(n*u)", "flags"}};
  for (std::size_t k = 0; k < models.size(); ++k) {
    const auto& r = results[k];
    rows.push_back({models[k].name, models[k].kind == model_kind::exact ? "exact" : lf::format_name(r.result.fmt),
                    models[k].kind == model_kind::exact ? fmt::format("{}{}", exact_in_fp64 ? "" : "~", shortest(exact_d))
                                                        : lf::to_shortest(r.result.fmt, r.result.bits),
                    short_number(r.error.absolute), short_number(r.error.relative), short_number(r.error.ulps),
                    short_number(r.error.bound_ratio), flags_text(r.flags)});
  }
  out << text_table(rows);
  bool any_note = false;
  for (std::size_t k = 0; k < models.size(); ++k) {
    std::string note = results[k].note;
    if (!is_dot && (models[k].kind == model_kind::matrix_unit || models[k].kind == model_kind::block_scaled))
      note += note.empty() ? "a sum on a matrix unit is its dot product with ones"
                           : "; a sum on a matrix unit is its dot product with ones";
    if (note.empty()) continue;
    if (!any_note) out << "\n";
    any_note = true;
    out << fmt::format("  {}: {}\n", models[k].name, note);
  }
  for (std::size_t k = 0; k < models.size(); ++k)
    if (results[k].traced) out << "\n" << trace_text(models[k], results[k]);
  if (o.trace.on) {
    for (const auto& s : models)
      if (s.kind == model_kind::matrix_unit || s.kind == model_kind::block_scaled) {
        out << "\n(--trace: matrix units have no partial sums to show; their block FMA rounds once per block)\n";
        break;
      }
  }
  return exit_success;
}

void add_vector_options(CLI::App& cmd, vector_options& o, bool is_dot) {
  o.models = is_dot ? "fp16-acc,fp32-acc,ampere_fp16,hopper_fp8,exact" : "fp16-acc,fp16-pairwise,fp32-acc,exact";
  if (is_dot)
    cmd.add_option("FILE", o.files,
                   "Data: one file with two numbers (a b) per line, or two files A B with one number per line "
                   "('-' is stdin); without FILE, data is generated (--n, --dist, --seed)")
        ->expected(0, 2);
  else
    cmd.add_option("FILE", o.files, "Data: one number per line ('-' is stdin); without FILE, data is generated")
        ->expected(0, 1);
  cmd.add_option("-n,--n", o.n, is_dot ? "Generated data: the length of a and b" : "Generated data: how many terms")
      ->transform(whole_number_check(1, max_generated))
      ->type_name("N")
      ->capture_default_str();
  add_dist_options(cmd, o.dist);
  add_model_options(cmd, o.models, o.input_format, o.rounding, o.json, o.fp8_scaling);
  add_trace_options(cmd, o.trace);
}

}  // namespace floatlab::accum
