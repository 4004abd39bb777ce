// tests/support/tensor_core_hw.hpp: the tensor-core results recorded on real GPUs
// (tests/data/tensor-core-hw, from MATLAB-tensor-core's model_validation; see its README) read back,
// and every matrix-unit preset run on them. Used by tests/models/test_tensor_core_hw.cpp (the gate)
// and tests/docs/gen_accumulation_doc.cpp (the table of docs/accumulation.md).
//
// A recorded case is D = A*B + C with K products. Its A and B words are binary32 encodings of values
// of the input format (converted to that format's encodings here; an inexact conversion is an error
// in the data), C is a binary32 and D a binary32 (binary16 results are stored as the binary32 of the
// same value). For binary16 output the recording rounded C to binary16 first, nearest even (the
// comment of model_validation/Validate_TC_models.m), and so does evaluate(); the H100 and H200 FP8
// recordings used wgmma with C = 0.
#pragma once

#include <libfloat/libfloat.hpp>
#include <libfloat/models.hpp>

#include <cstdint>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

namespace tc_hw {

/// One recorded set: GPU, input format name (the folder), output ("fp32" or "fp16"), K.
struct set_id {
  std::string_view gpu, input, output;
  std::size_t k;
  /// The preset that models it (lf::matrix_unit_presets).
  std::string_view preset;
  /// Whether the test requires every case to match: every set with binary32 output, and binary16
  /// output for the fp16/bf16/tf32 inputs. The FP8 sets with binary16 output are reported only
  /// (the upstream models do not validate them either).
  bool gated;
};

// The sets of the sample, with the preset each GPU generation's model is.
inline constexpr set_id recorded_sets[] = {
    {"V100", "fp16", "fp32", 4, "volta_fp16", true},       {"V100", "fp16", "fp16", 4, "volta_fp16", true},
    {"A100", "fp16", "fp32", 8, "ampere_fp16", true},      {"A100", "fp16", "fp16", 8, "ampere_fp16", true},
    {"A100", "bf16", "fp32", 8, "ampere_bf16", true},      {"A100", "tf32", "fp32", 4, "ampere_tf32", true},
    {"A2", "fp16", "fp32", 8, "ampere_fp16", true},        {"A2", "fp16", "fp16", 8, "ampere_fp16", true},
    {"A2", "bf16", "fp32", 8, "ampere_bf16", true},        {"A2", "tf32", "fp32", 4, "ampere_tf32", true},
    {"Ada", "fp16", "fp32", 8, "ada_fp16", true},          {"Ada", "fp16", "fp16", 8, "ada_fp16", true},
    {"Ada", "bf16", "fp32", 8, "ada_bf16", true},          {"Ada", "tf32", "fp32", 4, "ada_tf32", true},
    {"Ada", "E4M3", "fp32", 32, "ada_fp8", true},          {"Ada", "E4M3", "fp16", 32, "ada_fp8", false},
    {"Ada", "E5M2", "fp32", 32, "ada_fp8", true},          {"Ada", "E5M2", "fp16", 32, "ada_fp8", false},
    {"L40S", "fp16", "fp32", 8, "ada_fp16", true},         {"L40S", "fp16", "fp16", 8, "ada_fp16", true},
    {"L40S", "bf16", "fp32", 8, "ada_bf16", true},         {"L40S", "tf32", "fp32", 4, "ada_tf32", true},
    {"L40S", "E4M3", "fp32", 32, "ada_fp8", true},         {"L40S", "E5M2", "fp32", 32, "ada_fp8", true},
    {"H100", "fp16", "fp32", 16, "hopper_fp16", true},     {"H100", "fp16", "fp16", 16, "hopper_fp16", true},
    {"H100", "bf16", "fp32", 16, "hopper_bf16", true},     {"H100", "tf32", "fp32", 4, "hopper_tf32", true},
    {"H100", "E4M3", "fp32", 32, "hopper_fp8", true},      {"H100", "E4M3", "fp16", 32, "hopper_fp8", false},
    {"H100", "E5M2", "fp32", 32, "hopper_fp8", true},      {"H100", "E5M2", "fp16", 32, "hopper_fp8", false},
    {"H200", "fp16", "fp32", 16, "hopper_fp16", true},     {"H200", "fp16", "fp16", 16, "hopper_fp16", true},
    {"H200", "bf16", "fp32", 16, "hopper_bf16", true},     {"H200", "tf32", "fp32", 4, "hopper_tf32", true},
    {"H200", "E4M3", "fp32", 32, "hopper_fp8", true},      {"H200", "E4M3", "fp16", 32, "hopper_fp8", false},
    {"H200", "E5M2", "fp32", 32, "hopper_fp8", true},      {"H200", "E5M2", "fp16", 32, "hopper_fp8", false},
    {"B200", "fp16", "fp32", 16, "blackwell_fp16", true},  {"B200", "fp16", "fp16", 16, "blackwell_fp16", true},
    {"B200", "bf16", "fp32", 16, "blackwell_bf16", true},  {"B200", "tf32", "fp32", 4, "blackwell_tf32", true},
    {"B200", "E4M3", "fp32", 32, "blackwell_fp8", true},   {"B200", "E4M3", "fp16", 32, "blackwell_fp8", false},
    {"B200", "E5M2", "fp32", 32, "blackwell_fp8", true},   {"B200", "E5M2", "fp16", 32, "blackwell_fp8", false},
};

struct hw_case {
  std::vector<std::uint64_t> a, b;  ///< encodings of the input format
  std::uint32_t c = 0;              ///< binary32
  std::uint32_t d = 0;              ///< the GPU's result, binary32 (also for binary16 output)
};

struct hw_set {
  set_id id;
  lf::format input;
  std::vector<hw_case> cases;
};

inline std::optional<lf::format> input_format(std::string_view folder) {
  if (folder == "fp16") return lf::binary16;
  if (folder == "bf16") return lf::bfloat16;
  if (folder == "tf32") return lf::tfloat32;
  if (folder == "E4M3") return lf::float8_e4m3fn;
  if (folder == "E5M2") return lf::float8_e5m2;
  return std::nullopt;
}

namespace detail {
inline bool read_lines(const std::string& path, std::vector<std::string>& out, std::string& error) {
  std::ifstream f(path);
  if (!f) {
    error = "cannot open " + path;
    return false;
  }
  for (std::string line; std::getline(f, line);)
    if (!line.empty() && line != "\r") out.push_back(line);
  return true;
}
/// A binary32 given as 32 binary digits.
inline bool parse_bits32(std::string_view s, std::uint32_t& v) {
  if (s.size() < 32) return false;
  v = 0;
  for (std::size_t i = 0; i < 32; ++i) {
    if (s[i] != '0' && s[i] != '1') return false;
    v = (v << 1) | static_cast<std::uint32_t>(s[i] - '0');
  }
  return true;
}
/// K binary32 words in hex, each exactly a value of `f`, as f's encodings.
inline bool parse_words(const std::string& line, const lf::format& f, std::size_t k, std::vector<std::uint64_t>& out) {
  std::istringstream is(line);
  std::string w;
  while (is >> w) {
    std::size_t used = 0;
    const unsigned long v = std::stoul(w, &used, 16);
    if (used != w.size() || v > 0xFFFFFFFFul) return false;
    lf::status st{};
    out.push_back(lf::convert(f, lf::binary32, v, lf::env{}, st));
    if (st != lf::status::none) return false;  // not a value of the input format
  }
  return out.size() == k;
}
}  // namespace detail

/// Reads one set from `dir` (tests/data/tensor-core-hw); nullopt with `error` set when a file is
/// missing or a line does not parse.
inline std::optional<hw_set> load(const std::string& dir, const set_id& id, std::string& error) {
  const std::string g(id.gpu), in(id.input), out(id.output);
  const std::string base = dir + "/" + g + "/" + in + "/";
  std::vector<std::string> la, lb, lc, ld;
  if (!detail::read_lines(base + "a_" + g + "_" + in + ".txt", la, error) ||
      !detail::read_lines(base + "b_" + g + "_" + in + ".txt", lb, error) ||
      !detail::read_lines(base + "c_" + g + "_fp32.txt", lc, error) ||
      !detail::read_lines(base + "d_" + g + "_" + out + ".txt", ld, error))
    return std::nullopt;
  if (la.size() != lb.size() || la.size() != lc.size() || la.size() != ld.size() || la.empty()) {
    error = base + ": the a, b, c and d files have different numbers of lines";
    return std::nullopt;
  }
  hw_set s{id, *input_format(id.input), {}};
  for (std::size_t i = 0; i < la.size(); ++i) {
    hw_case c;
    if (!detail::parse_words(la[i], s.input, id.k, c.a) || !detail::parse_words(lb[i], s.input, id.k, c.b) ||
        !detail::parse_bits32(lc[i], c.c) || !detail::parse_bits32(ld[i], c.d)) {
      error = base + ": line " + std::to_string(i + 1) + " does not parse";
      return std::nullopt;
    }
    s.cases.push_back(std::move(c));
  }
  return s;
}

/// The unit a preset is for binary16 output: c and d in binary16, the block result rounded to
/// nearest even (every MATLAB model's frmode 'rne' for fp16 output; MMA-Sim's f16 output), at most
/// binary16's 10 fraction bits.
inline lf::matrix_unit with_output(lf::matrix_unit u, std::string_view output) {
  if (output == "fp16") {
    u.output = lf::binary16;
    u.output_fraction_bits = u.output_fraction_bits < 10 ? u.output_fraction_bits : 10;
    u.final_rounding = lf::rounding::nearest_even;
  }
  return u;
}

/// The unit's result for one recorded case, as a binary32 encoding (as d is stored).
inline std::uint32_t model_result(const lf::matrix_unit& preset, const hw_set& s, const hw_case& c) {
  const lf::matrix_unit u = with_output(preset, s.id.output);
  const bool fp8 = s.input == lf::float8_e4m3fn || s.input == lf::float8_e5m2;
  const bool c_zero = fp8 && (s.id.gpu == "H100" || s.id.gpu == "H200");
  lf::status st{};
  std::uint64_t cc = c_zero ? 0 : c.c;
  if (u.output == lf::binary16) cc = lf::convert(lf::binary16, lf::binary32, cc, lf::env{}, st);
  std::uint64_t d = lf::dot(u, s.input, c.a, s.input, c.b, cc, st);
  if (u.output == lf::binary16) d = lf::convert(lf::binary32, lf::binary16, d, lf::env{}, st);  // exact
  return static_cast<std::uint32_t>(d);
}

struct tally {
  std::size_t matched = 0, total = 0;
  std::size_t first_miss = 0;  ///< index of the first case that differs (valid when matched < total)
  bool all() const { return matched == total; }
};

inline tally evaluate(const lf::matrix_unit& preset, const hw_set& s) {
  tally t;
  for (std::size_t i = 0; i < s.cases.size(); ++i) {
    ++t.total;
    if (model_result(preset, s, s.cases[i]) == s.cases[i].d) ++t.matched;
    else if (t.matched + 1 == t.total) t.first_miss = i;
  }
  return t;
}

}  // namespace tc_hw
