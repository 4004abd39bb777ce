// tools/floatlab/accum_cli.hpp: what `floatlab sum`, `dot` and `gemm` share. The models by name
// (accumulation presets, matrix-unit presets, `exact`), the data (generated from a seeded
// distribution or read from text files, rounded once to --input-format), running one model,
// measuring its error against the exact value (exact.hpp), the trace excerpt, and the text and
// JSON output. Thin over the library: every number shown is computed by it.
//
// The definitions are in accum_cli.cpp, compiled once (library target floatlab_accum, linked by
// floatlab and by tests/docs/gen_accumulation_doc): they instantiate the library's run-time
// accumulation, matrix-unit and exact paths for every format, which is slow to compile.
#pragma once

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <memory>
#include <optional>
#include <random>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/core.h>

#include "common.hpp"

namespace floatlab::accum {

// ---- models -----------------------------------------------------------------------------------

enum class model_kind { accumulation, matrix_unit, block_scaled, exact };

/// One --model entry: an accumulation preset, a matrix-unit preset, a block-scaled GEMM model (a
/// scaling recipe's quantization, then a block-scaled matrix unit), or the exact reference.
struct model_spec {
  std::string name;
  model_kind kind = model_kind::exact;
  lf::accumulation acc{};
  lf::matrix_unit mu{};
  lf::block_format bf{};          ///< block_scaled: how a and b are quantized (along K)
  lf::block_scaled_unit bsu{};    ///< block_scaled: the unit
  bool fp8_current = false;       ///< matrix_unit with 8-bit inputs: --fp8-scaling current
  std::string description;

  /// Whether the model quantizes wider data with a scaling recipe before its unit computes
  /// (run_scaled_gemm): a block-scaled model always; an FP8 matrix unit under current scaling when
  /// the data is wider than 8 bits (FP8 data is fed as it is).
  bool uses_scaling(const lf::format& data) const {
    if (kind == model_kind::block_scaled) return true;
    return kind == model_kind::matrix_unit && fp8_current && is_fp8_unit(mu) && data.bits() > 8;
  }
  static bool is_fp8_unit(const lf::matrix_unit& u) {
    return u.model != lf::matrix_unit_model::cuda_core_fma && u.input.bits() == 8;
  }

  /// The format the model's inputs must be in (data is converted to it when it differs).
  lf::format input(const lf::format& data) const {
    switch (kind) {
      case model_kind::accumulation: return acc.input;
      case model_kind::matrix_unit: {
        // The CUDA-core model converts its inputs to binary32 itself (exact for the formats that
        // fit); the FP8 units take both FP8 formats (wgmma / tcgen05 accept E4M3 and E5M2).
        const bool fp8 = [](const lf::format& f) { return f == lf::float8_e4m3fn || f == lf::float8_e5m2; }(mu.input);
        if (mu.model == lf::matrix_unit_model::cuda_core_fma && lf::fits_in(data, mu.output)) return data;
        if (fp8 && (data == lf::float8_e4m3fn || data == lf::float8_e5m2)) return data;
        return mu.input;
      }
      case model_kind::block_scaled: return bf.element;  // the quantization is its own note
      case model_kind::exact: return data;
    }
    return data;
  }
  /// How data is converted to input(data) when it differs: a matrix unit's own input conversion
  /// (lf::unit_input_env: its input_rounding; the tf32 presets truncate), else nearest even.
  lf::env input_env() const { return kind == model_kind::matrix_unit ? lf::unit_input_env(mu) : lf::env{}; }
  /// The format of the result (and of the errors' ulps and u).
  lf::format accumulator() const {
    switch (kind) {
      case model_kind::accumulation: return acc.accumulator;
      case model_kind::matrix_unit: return mu.output;
      case model_kind::block_scaled: return lf::binary32;
      case model_kind::exact: return lf::binary64;
    }
    return lf::binary64;
  }
  std::string_view kind_name() const {
    switch (kind) {
      case model_kind::accumulation: return "accumulation";
      case model_kind::matrix_unit: return "matrix_unit";
      case model_kind::block_scaled: return "block_scaled";
      case model_kind::exact: return "exact";
    }
    return "?";
  }
};

inline constexpr std::string_view exact_description =
    "the exact value (long accumulator, exact.hpp), shown rounded to fp64; the reference of every error";

/// Every name --model accepts, comma-separated.
std::string known_model_names();

/// The block-scaled GEMM models' names, comma-separated (mxfp8, ..., nvfp4).
std::string block_scaled_model_names();

/// What a matrix unit does, generated from its parameters.
std::string describe_unit(const lf::matrix_unit& mu);

/// `--model list`: every accepted name with a one-line description.
std::string model_list_text();

/// Parses "a,b,c" into model specs; `rounding`, when set, replaces the accumulation models'
/// accumulator rounding (seed: their stochastic-rounding seed); `fp8_current`: the FP8 matrix units
/// scale their operands (--fp8-scaling current). Throws usage_error.
std::vector<model_spec> parse_models(std::string_view list, const std::optional<lf::rounding>& rounding,
                                     std::uint64_t seed, bool fp8_current = true);

/// --fp8-scaling's value: true for "current", false for "none"; anything else throws usage_error.
bool fp8_scaling_or_throw(const std::string& name);

/// C = A * B on a model that quantizes with a scaling recipe first (model_spec::uses_scaling). A is
/// M x K and B is K x N, row-major, in format `data`; each is rounded to binary32 (exact for data of
/// at most 32 bits), then quantized along K: a block-scaled model by lf::mx_quantize and
/// lf::block_scaled_gemm; an FP8 unit by per-tensor current scaling
/// (lf::training::fp8_current_scaling), lf::dot on the unit, and the result times
/// fl(1/S_a) * fl(1/S_b) in the unit's output format (the GEMM's epilogue).
struct scaled_gemm_result {
  std::vector<lf::bits_t> c;  ///< M x N, in model_spec::accumulator()
  lf::status flags{};         ///< the unit's and the epilogue's
  std::string note;           ///< what the recipe did
  /// The exact value of each C element's dot product of the quantized values (their error against
  /// the data's is what the quantization alone costs).
  std::vector<lf::exact_accumulator> quantized_exact;
};
/// b_is_ones: a sum (B is all ones): the note speaks of the terms only.
scaled_gemm_result run_scaled_gemm(const model_spec& s, const lf::format& data, std::span<const lf::bits_t> A,
                                   std::span<const lf::bits_t> B, std::size_t M, std::size_t N, std::size_t K,
                                   bool b_is_ones = false);

// ---- flags and numbers as text ------------------------------------------------------------------

std::vector<std::string_view> flag_names(lf::status s);
std::string flags_text(lf::status s);

/// The shortest decimal of a binary64 value (lf::to_shortest).
inline std::string shortest(double v) { return lf::to_shortest(lf::binary64, std::bit_cast<std::uint64_t>(v)); }

/// An error measure for the text table: 3 significant digits (the JSON has every digit).
inline std::string short_number(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  if (v == 0) return "0";
  std::string s = shortest(v);
  return s.size() <= 8 ? s : fmt::format("{:.3g}", v);
}


// ---- JSON ---------------------------------------------------------------------------------------

std::string json_string(std::string_view s);
/// A double as JSON: a number (shortest round trip), or the strings "inf", "-inf", "nan".
std::string json_number(double v);
std::string json_flags(lf::status s);
std::string json_errors(const lf::error_measures& e);

// ---- data -------------------------------------------------------------------------------------

/// Generated data: --dist and its parameters, --seed.
struct dist_options {
  std::string dist = "normal";
  double mean = 0, stddev = 1, low = 0, high = 1, value = 1;
  std::uint64_t seed = 1;
};

/// "generated by --dist normal --mean 0 --stddev 1 --seed 1": the options that reproduce the data.
std::string generated_text(const dist_options& d);

/// Adds --dist, --mean, --stddev, --low, --high, --value and --seed.
void add_dist_options(CLI::App& cmd, dist_options& o);

/// Checks that the parameters given belong to the distribution. Throws usage_error.
void check_dist_options(const CLI::App& cmd, const dist_options& o);

/// A stream of generated doubles: std::mt19937_64 (fixed by the C++ standard) with the transforms
/// written here (uniform: 53 random bits; normal: Box-Muller), so a seed gives the same data with
/// any standard library.
class generator {
 public:
  explicit generator(const dist_options& o) : o_(o), g_(o.seed) {}
  double next() {
    if (o_.dist == "ones") return 1.0;
    if (o_.dist == "constant") return o_.value;
    if (o_.dist == "uniform") return o_.low + (o_.high - o_.low) * unit();
    const double z = normal();
    return o_.dist == "normal" ? o_.mean + o_.stddev * z : std::exp(o_.mean + o_.stddev * z);
  }

 private:
  double unit() { return static_cast<double>(g_() >> 11) * 0x1p-53; }  // [0, 1)
  double normal() {
    if (have_spare_) {
      have_spare_ = false;
      return spare_;
    }
    const double u1 = 1.0 - unit(), u2 = unit();  // u1 in (0, 1]
    const double r = std::sqrt(-2.0 * std::log(u1));
    constexpr double two_pi = 6.283185307179586;
    spare_ = r * std::sin(two_pi * u2);
    have_spare_ = true;
    return r * std::cos(two_pi * u2);
  }
  dist_options o_;
  std::mt19937_64 g_;
  double spare_ = 0;
  bool have_spare_ = false;
};

/// A data vector in one format, with the flags raised by rounding it there.
struct vec {
  std::vector<lf::bits_t> bits;
  lf::status flags{};
  std::size_t changed = 0;  ///< values that the rounding changed (inexact)
};

vec generate(generator& g, std::size_t n, const lf::format& f);

/// A text file of numbers: rows of whitespace-separated numbers (one row per line), each rounded
/// once to f by lf::parse (nearest even). Blank lines and lines starting with '#' are skipped.
struct table_file {
  std::string path;
  std::vector<std::vector<lf::bits_t>> rows;
  std::vector<std::size_t> line_of_row;
  lf::status flags{};
  std::size_t changed = 0;
};

table_file read_table(const std::string& path, const lf::format& f);

/// The file as one column of numbers (one per line).
vec column_of(const table_file& t, std::size_t want_columns, std::size_t column);

/// The values of `x` (format from) in format `to`, rounded under `e` (default nearest even) where
/// needed; pass model_spec::input_env() for a model's inputs.
vec convert_all(const lf::format& from, const lf::format& to, std::span<const lf::bits_t> x, const lf::env& e = {});

/// "nearest even", "toward zero", or the rounding's name: how conversion notes and --model list
/// say a conversion rounds.
std::string rounding_phrase(lf::rounding r);

/// One line that says how a model's inputs were obtained from the data, or "" when unchanged.
std::string conversion_note(const model_spec& s, const lf::format& data, std::size_t changed,
                            lf::status flags, std::size_t total);

// ---- running a model on a dot product (sum = dot with ones for matrix units) -----------------------

struct trace_row {
  std::size_t step;
  lf::trace_step s;
  bool first_stall;
};

struct dot_result {
  lf::value result;
  lf::status flags{};
  lf::error_measures error{};
  std::string note;       // input conversion
  std::size_t absorbed = 0;  // trace: nonzero terms that left the partial sum unchanged
  std::optional<std::size_t> first_stall;  // step index
  std::vector<trace_row> trace;
  std::size_t trace_steps = 0;
  bool traced = false;
};

/// Trace excerpt options: --trace, --trace-every, --trace-head, --trace-tail.
struct trace_options {
  bool on = false;
  long every = -1;  // -1: automatic (about 16 rows)
  std::size_t head = 5, tail = 5;
};

void add_trace_options(CLI::App& cmd, trace_options& o);

/// The dot product of a and b (data format `data`) on one model, its error against `exact` with
/// magnitude `mag` (sum |a_i b_i|). For `as_sum`, b is all ones and accumulation models run lf::sum.
dot_result run_dot(const model_spec& s, const lf::format& data, std::span<const lf::bits_t> a,
                   std::span<const lf::bits_t> b, bool as_sum, const lf::exact_accumulator& exact,
                   const lf::exact_accumulator& mag, const trace_options& topt);

// ---- text output ----------------------------------------------------------------------------------

/// A left-aligned text table.
std::string text_table(const std::vector<std::vector<std::string>>& rows);

std::string trace_text(const model_spec& s, const dot_result& r);

std::string trace_json(const dot_result& r);

/// The JSON schema, for the --help footers (gemm's fields differ where noted).
inline constexpr std::string_view json_schema_help =
    R"(JSON (--json; schema "floatlab-accum/1", stable: fields are only ever added):
  {"schema":"floatlab-accum/1", "command":"sum"|"dot"|"gemm",
   "n":N (sum/dot: terms) | "m":M,"n":N,"k":K (gemm),
   "input_format":"fp16", "data":{"source":"generated","dist":..,"seed":..} | {"source":"file","files":[..]},
   "input_flags":[..], "inputs_changed":C   (rounding the data to input_format),
   "exact":{"value":"<shortest fp64>","exact_in_fp64":bool,"magnitude":"<sum |terms| as fp64>"}   (sum/dot),
   "models":[{"name":..,"kind":"accumulation"|"matrix_unit"|"block_scaled"|"exact","description":..,
              "input_format":..,"accumulator_format":..,"input_conversion":"<note or empty>",
              "result":"<shortest decimal>","bits":"0x..","flags":[..],
              "error":{"absolute":x,"relative":x,"ulps":x,"bound_ratio":x},
              "trace":{"steps":..,"absorbed_terms":..,"first_stall":i|null,"rows":[{"step","kind","first","last",
                       "value","flags"}]}   (only with --trace, accumulation models)}]}
  gemm models have "max_error" (each measure's maximum over C) and "worst":{"i","j","result","exact"}
  (the element with the largest ulps error) and "c":[row-major shortest decimals] instead of result/bits/error.
  Flags are names: invalid, divide_by_zero, overflow, underflow, inexact. Error numbers are JSON
  numbers, or the strings "inf"/"nan".)";

inline constexpr std::string_view error_columns_help =
    R"(Columns: the result (shortest decimal of the model's accumulator format); its error against the
exact value of the data: absolute, relative, in ulps of the accumulator format (ulp of the exact
value), and the ratio to the textbook bound n*u*sum|terms| (Higham §3.1/§4.2; u = 2^-p of the
accumulator; <= 1 means within the bound); the IEEE flags raised by the model's operations.
Inputs are the data rounded once (nearest even) to --input-format; a model whose input format
differs converts them first, and says so: its error then includes that conversion. Accumulation
models round to nearest even there; a matrix unit converts as its hardware does ('--model list':
the tf32 units truncate binary32 data, the others round to nearest even).)";

// ---- sum and dot: the whole command ---------------------------------------------------------------

/// The options of `sum` and `dot`.
struct vector_options {
  std::vector<std::string> files;
  std::size_t n = 4096;
  dist_options dist;
  std::string input_format = "fp16";
  std::string models;
  std::string rounding;
  std::string fp8_scaling = "current";
  trace_options trace;
  bool json = false;
};

void add_model_options(CLI::App& cmd, std::string& models, std::string& input_format, std::string& rounding,
                       bool& json, std::string& fp8_scaling);

lf::format input_format_or_throw(const std::string& name);
std::optional<lf::rounding> rounding_or_throw(const std::string& name);

/// Largest generated length / matrix size accepted (the data live in memory as 64-bit encodings).
inline constexpr std::size_t max_generated = std::size_t{1} << 28;

/// Throws when a FILE is given together with generation options.
void check_generated_or_file(const CLI::App& cmd, bool from_file,
                             std::initializer_list<const char*> generation_options);

std::string data_description(const vector_options& o, const lf::format& f, std::size_t changed,
                             lf::status flags);

/// The exact value of the data and its magnitude: sum a_i (is_dot false) or sum a_i * b_i, and the
/// same of the absolute values.
struct exact_reference {
  lf::exact_accumulator value, magnitude;
};
exact_reference exact_of(const lf::format& data, std::span<const lf::bits_t> a, std::span<const lf::bits_t> b,
                         bool is_dot);

/// floatlab sum / floatlab dot.
int run_vector_command(const CLI::App& cmd, const vector_options& o, bool is_dot);

/// Registers sum or dot with their options.
void add_vector_options(CLI::App& cmd, vector_options& o, bool is_dot);

}  // namespace floatlab::accum
