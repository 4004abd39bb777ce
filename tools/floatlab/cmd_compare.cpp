// floatlab compare: two dumps of the same tensors (an fp32 run and a bf16 run, a reference and a
// quantized model), matched by name, with per-tensor error statistics. Inputs are anything
// dump_reader.hpp reads (.npy, .npz, safetensors, directories, raw with --dtype, text, - for stdin).
#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <fmt/core.h>

#include "commands.hpp"
#include "dump_reader.hpp"

namespace floatlab {

namespace {

struct compare_options {
  std::string a, b;
  std::string dtype;
  bool json = false;
};

struct pair_stats {
  std::string name;
  std::string shape_a, shape_b;
  std::string error;  ///< non-empty: not compared
  std::uint64_t count = 0, differ = 0, nan_mismatch = 0, inf_mismatch = 0, compared_rel = 0;
  double max_abs = 0, max_rel = 0, sum_rel2 = 0;
  double rms_rel() const { return compared_rel ? std::sqrt(sum_rel2 / static_cast<double>(compared_rel)) : 0.0; }
};

std::string cjstr(std::string_view s) {
  std::string out = "\"";
  for (char c : s) {
    const auto u = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') out += std::string("\\") + c;
    else if (u < 0x20) out += fmt::format("\\u{:04x}", u);
    else out += c;
  }
  return out + "\"";
}

/// Every value of a tensor, as binary64 (every format read is exact in it).
std::vector<double> values_of(const dump_tensor& t) {
  std::vector<double> v;
  t.read([&v](const tensor_chunk& c) {
    for (std::uint16_t h : c.f16) {
      lf::status st{};
      v.push_back(std::bit_cast<double>(lf::convert(lf::binary64, lf::binary16, h, lf::env{}, st)));
    }
    v.insert(v.end(), c.f32.begin(), c.f32.end());
    v.insert(v.end(), c.f64.begin(), c.f64.end());
  });
  return v;
}

pair_stats compare_pair(const dump_tensor& ta, const dump_tensor& tb) {
  pair_stats s;
  s.name = ta.name;
  s.shape_a = ta.shape ? shape_text(*ta.shape) : "-";
  s.shape_b = tb.shape ? shape_text(*tb.shape) : "-";
  if (!ta.skipped.empty() || !tb.skipped.empty()) {
    s.error = "skipped: " + (!ta.skipped.empty() ? ta.skipped : tb.skipped);
    return s;
  }
  if (ta.shape && tb.shape && *ta.shape != *tb.shape) {
    s.error = "shape mismatch: " + s.shape_a + " vs " + s.shape_b;
    return s;
  }
  const std::vector<double> a = values_of(ta);
  std::uint64_t i = 0;
  bool too_many = false;
  tb.read([&](const tensor_chunk& c) {
    auto one = [&](double y) {
      if (i >= a.size()) {
        too_many = true;
        ++i;
        return;
      }
      const double x = a[i++];
      const bool nx = std::isnan(x), ny = std::isnan(y);
      if (nx != ny) ++s.nan_mismatch;
      if (nx || ny) {
        s.differ += nx != ny;
        return;
      }
      if (x != y) ++s.differ;
      if (std::isinf(x) || std::isinf(y)) {
        s.inf_mismatch += x != y;
        return;
      }
      const double d = std::fabs(y - x);
      s.max_abs = std::max(s.max_abs, d);
      if (x != 0) {
        const double r = d / std::fabs(x);
        s.max_rel = std::max(s.max_rel, r);
        s.sum_rel2 += r * r;
        ++s.compared_rel;
      }
    };
    for (std::uint16_t h : c.f16) {
      lf::status st{};
      one(std::bit_cast<double>(lf::convert(lf::binary64, lf::binary16, h, lf::env{}, st)));
    }
    for (float f : c.f32) one(f);
    for (double d : c.f64) one(d);
  });
  if (too_many || i != a.size()) {
    pair_stats bad;
    bad.name = s.name;
    bad.shape_a = s.shape_a;
    bad.shape_b = s.shape_b;
    s = bad;
    s.error = fmt::format("value count mismatch: {} vs {}", a.size(), i);
    return s;
  }
  s.count = a.size();
  return s;
}

int run_compare(const compare_options& o) {
  std::optional<dtype> raw;
  if (!o.dtype.empty()) {
    raw = dtype_by_name(o.dtype);
    if (!raw) throw usage_error("--dtype '" + o.dtype + "': unknown (accepted: " + std::string(dtype_names_help) + ")");
  }
  if (o.a == "-" && o.b == "-") throw usage_error("A and B are both '-': standard input can be only one of them");
  std::vector<pair_stats> rows;
  std::vector<std::string> only_a, only_b;
  try {
    std::vector<dump_tensor> ta = list_tensors(o.a, raw), tb = list_tensors(o.b, raw);
    std::map<std::string, const dump_tensor*> bmap;
    for (const auto& t : tb) bmap[t.name] = &t;
    for (const auto& t : ta) {
      const auto it = bmap.find(t.name);
      if (it == bmap.end()) {
        only_a.push_back(t.name);
        continue;
      }
      rows.push_back(compare_pair(t, *it->second));
      bmap.erase(it);
    }
    for (const auto& [n, t] : bmap) only_b.push_back(n);
  } catch (const tensor_error& e) {
    throw usage_error(e.what());
  }
  std::sort(rows.begin(), rows.end(), [](const pair_stats& x, const pair_stats& y) { return x.name < y.name; });
  auto num = [](double v) { return fmt::format("{:.6g}", v); };
  output_buffer out;
  if (o.json) {
    out << fmt::format(R"({{"command":"compare","a":{},"b":{},"tensors":[)", cjstr(o.a), cjstr(o.b));
    for (std::size_t i = 0; i < rows.size(); ++i) {
      const pair_stats& s = rows[i];
      out << (i ? "," : "")
          << fmt::format(R"({{"name":{},"shape_a":{},"shape_b":{},"error":{},"count":{},"differ":{},"nan_mismatch":{},)"
                         R"("inf_mismatch":{},"max_abs":{},"max_rel":{},"rms_rel":{}}})",
                         cjstr(s.name), cjstr(s.shape_a), cjstr(s.shape_b), s.error.empty() ? "null" : cjstr(s.error), s.count,
                         s.differ, s.nan_mismatch, s.inf_mismatch, s.max_abs, s.max_rel, s.rms_rel());
    }
    out << R"(],"only_a":[)";
    for (std::size_t i = 0; i < only_a.size(); ++i) out << (i ? "," : "") << cjstr(only_a[i]);
    out << R"(],"only_b":[)";
    for (std::size_t i = 0; i < only_b.size(); ++i) out << (i ? "," : "") << cjstr(only_b[i]);
    out << "]}\n";
    return exit_success;
  }
  out << fmt::format("A = {}\nB = {}\n{} in both, {} only in A, {} only in B\n", o.a, o.b,
                     count_of(rows.size(), "tensor", "tensors"), only_a.size(), only_b.size());
  out << "Errors of B against A, in binary64: abs |b-a|, rel |b-a|/|a| (over a != 0, both finite)\n";
  std::vector<std::vector<std::string>> cells = {
      {"tensor", "shape", "values", "differ", "max_abs", "max_rel", "rms_rel", "nan_mismatch", "inf_mismatch"}};
  for (const pair_stats& s : rows)
    if (s.error.empty())
      cells.push_back({s.name.empty() ? "-" : s.name, s.shape_a, std::to_string(s.count), std::to_string(s.differ),
                       num(s.max_abs), num(s.max_rel), num(s.rms_rel()), std::to_string(s.nan_mismatch),
                       std::to_string(s.inf_mismatch)});
  std::vector<std::size_t> w(cells.front().size(), 0);
  for (const auto& c : cells)
    for (std::size_t j = 0; j < c.size(); ++j) w[j] = std::max(w[j], c[j].size());
  for (const auto& c : cells) {
    std::string line;
    for (std::size_t j = 0; j < c.size(); ++j)
      line += j == 0 ? fmt::format("{:<{}}", c[j], w[j]) : j == 1 ? fmt::format("  {:<{}}", c[j], w[j]) : fmt::format("  {:>{}}", c[j], w[j]);
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out << line << '\n';
  }
  for (const pair_stats& s : rows)
    if (!s.error.empty()) out << fmt::format("error: {}: {}\n", s.name.empty() ? "-" : s.name, s.error);
  for (const auto& n : only_a) out << fmt::format("only in A: {}\n", n);
  for (const auto& n : only_b) out << fmt::format("only in B: {}\n", n);
  return exit_success;
}

}  // namespace

command register_compare(CLI::App& app) {
  auto o = std::make_shared<compare_options>();
  CLI::App* cmd = app.add_subcommand(
      "compare", "Two dumps of the same tensors (e.g. an fp32 and a bf16 run), matched by name: per-tensor max "
                 "abs/rel error, RMS relative error, values that differ, NaN/inf mismatches");
  cmd->add_option("A", o->a, "The reference: .npy, .npz, safetensors, a directory, raw (--dtype) or text; - is stdin")
      ->required();
  cmd->add_option("B", o->b, "The dump compared against A (same kinds)")->required();
  cmd->add_option("--dtype", o->dtype, "Raw little-endian binary of this type: " + std::string(dtype_names_help))
      ->type_name("TYPE");
  cmd->add_flag("--json", o->json, "Print one JSON object");
  cmd->footer(R"(Tensors are matched by name (a .npy, raw or text file is one tensor with no name; in a directory
FILE or FILE/TENSOR). Per pair, in binary64: values that differ (NaN equals NaN, +0 equals -0),
NaN mismatches (NaN in one only), infinity mismatches, max |b-a| and max and RMS |b-a|/|a| over
pairs with both finite and a != 0. A shape or value-count mismatch is an error row; tensors
present in one dump only are listed.
--json: {"command":"compare","a","b","tensors":[{"name","shape_a","shape_b","error":null|TEXT,
 "count","differ","nan_mismatch","inf_mismatch","max_abs","max_rel","rms_rel"}],"only_a":[...],
 "only_b":[...]}
Exit status: 0 compared (whatever the differences), 2 bad usage or input.

Examples:
  floatlab compare fp32_run.safetensors bf16_run.safetensors
  floatlab compare ref.npz quant.npz --json)");
  return {cmd, [o] { return run_compare(*o); }};
}

const register_command registered_compare{55, register_compare};

}  // namespace floatlab
