// tests/docs/gen_accumulation_doc.cpp: writes the generated blocks of docs/accumulation.md.
//
//   gen_accumulation_doc DOC            check: exit 1 (and show the first difference) if DOC's
//                                       generated blocks differ from what this program computes
//   gen_accumulation_doc DOC --write    rewrite DOC's generated blocks in place
//
// A block sits between "<!-- generated:NAME begin -->" and "<!-- generated:NAME end -->"; the
// text outside the blocks is left alone. Every number in a block is computed here by the library,
// through the same code as `floatlab sum` / `floatlab dot` (tools/floatlab/accum_cli.hpp), so each
// table can be reproduced with the floatlab command printed under it.
#include <algorithm>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "floatlab/accum_cli.hpp"
#include "../support/tensor_core_hw.hpp"

namespace {

using namespace floatlab;

/// A Markdown table row.
std::string md_row(const std::vector<std::string>& cells) {
  std::string out = "|";
  for (const auto& c : cells) out += fmt::format(" {} |", c);
  return out + "\n";
}

/// One dot/sum experiment as a Markdown table, the way `floatlab dot/sum` computes it.
std::string experiment(bool is_dot, std::size_t n, const accum::dist_options& dist, const std::string& input_format,
                       const std::string& model_list, const std::string& cli_args) {
  const lf::format data = *lf::format_by_name(input_format);
  const auto models = accum::parse_models(model_list, std::nullopt, dist.seed);
  accum::generator g(dist);
  const accum::vec a = accum::generate(g, n, data);
  const accum::vec b = is_dot ? accum::generate(g, n, data) : accum::vec{};
  const accum::exact_reference ref = accum::exact_of(data, a.bits, b.bits, is_dot);
  const lf::exact_accumulator &exact = ref.value, &mag = ref.magnitude;
  accum::trace_options topt;
  topt.on = !is_dot;  // sums: find the stalls
  std::string out = md_row({"model", "inputs", "accumulator", "result", "abs error", "rel error", "ulps",
                            "err/(n*u)", "flags"});
  out += "|---|---|---|---|---|---|---|---|---|\n";
  std::string notes;
  for (const auto& s : models) {
    const accum::dot_result r = accum::run_dot(s, data, a.bits, b.bits, !is_dot, exact, mag, topt);
    const bool ex = s.kind == accum::model_kind::exact;
    lf::status display{};
    const double exact_d = std::bit_cast<double>(exact.round_to(lf::binary64, lf::env{}, display));
    const std::string result = ex ? fmt::format("{}{}", lf::has(display, lf::status::inexact) ? "~" : "",
                                                accum::shortest(exact_d))
                                  : lf::to_shortest(r.result.fmt, r.result.bits);
    out += md_row({fmt::format("`{}`", s.name), lf::format_name(s.input(data)), ex ? "exact" : lf::format_name(r.result.fmt),
                   result, accum::short_number(r.error.absolute), accum::short_number(r.error.relative),
                   accum::short_number(r.error.ulps), accum::short_number(r.error.bound_ratio),
                   accum::flags_text(r.flags)});
    if (r.first_stall) {
      std::string at;
      for (const auto& t : r.trace)
        if (t.first_stall) at = lf::to_shortest(r.result.fmt, t.s.bits);
      notes += fmt::format("- `{}`: {} of the {} terms left the partial sum unchanged; the first was term {} "
                           "(partial sum {}).\n",
                           s.name, r.absorbed, n, *r.first_stall, at);
    }
    if (!r.note.empty()) notes += fmt::format("- `{}`: {}.\n", s.name, r.note);  // (as floatlab prints them)
  }
  out += "\n";
  out += fmt::format("Data: {} terms; rounding the generated values to {} changed {} of {}{}.\n", n, input_format,
                     a.changed + b.changed, is_dot ? 2 * n : n,
                     (a.flags | b.flags) == lf::status::none ? std::string() : fmt::format(" (flags {})", accum::flags_text(a.flags | b.flags)));
  if (!notes.empty()) {
    out += '\n';
    out += notes;
  }
  out += fmt::format("\nReproduce: `floatlab {} {} --model {}`\n", is_dot ? "dot" : "sum", cli_args, model_list);
  return out;
}

std::string models_block() {
  std::string out = md_row({"name", "kind", "what it computes (from the model's parameters)", "in words / source"});
  out += "|---|---|---|---|\n";
  for (const auto& n : lf::named_accumulations)
    out += md_row({fmt::format("`{}`", n.name), "accumulation", lf::describe(n.model), std::string(n.description)});
  for (const auto& p : lf::matrix_unit_presets)
    out += md_row({fmt::format("`{}`", p.name), "matrix unit", accum::describe_unit(p.unit), std::string(p.citation)});
  for (const auto& s : accum::parse_models(accum::block_scaled_model_names(), std::nullopt, 0))
    out += md_row({fmt::format("`{}`", s.name), "block-scaled GEMM", s.description,
                   "block_scale.hpp, block_scaled_unit.hpp; model, not checked against hardware"});
  out += md_row({"`exact`", "reference", std::string(accum::exact_description), "exact.hpp"});
  return out;
}

/// Every recorded tensor-core set (tests/data/tensor-core-hw) against the preset that models it.
std::string hardware_block() {
  std::string out = md_row({"GPU", "input", "output", "K", "preset", "cases matched", "gated by the test"});
  out += "|---|---|---|---:|---|---:|---|\n";
  std::size_t matched = 0, total = 0;
  for (const auto& id : tc_hw::recorded_sets) {
    std::string error;
    const auto s = tc_hw::load(LIBFLOAT_TC_HW_DIR, id, error);
    if (!s) throw std::runtime_error(error);
    const auto* p = &lf::matrix_unit_presets[0];
    for (const auto& q : lf::matrix_unit_presets)
      if (q.name == id.preset) p = &q;
    const tc_hw::tally t = tc_hw::evaluate(p->unit, *s);
    matched += t.matched;
    total += t.total;
    out += md_row({std::string(id.gpu), std::string(id.input), std::string(id.output), std::to_string(id.k),
                   fmt::format("`{}`", id.preset), fmt::format("{} / {}", t.matched, t.total),
                   id.gated ? "yes" : "no (FP8 to fp16: reported)"});
  }
  out += fmt::format("\nIn all: {} of {} recorded cases in {} sets.\n", matched, total, std::size(tc_hw::recorded_sets));
  // B200 FP8 to fp32: which block FMAs fit the mma.sync results.
  std::vector<tc_hw::hw_set> b200;
  for (const auto& id : tc_hw::recorded_sets)
    if (id.gpu == "B200" && id.preset == "blackwell_fp8" && id.output == "fp32") {
      std::string error;
      b200.push_back(*tc_hw::load(LIBFLOAT_TC_HW_DIR, id, error));
    }
  const auto fits = [&](const lf::matrix_unit& u) {
    std::size_t m = 0, n = 0;
    for (const auto& s : b200) {
      const tc_hw::tally t = tc_hw::evaluate(u, s);
      m += t.matched;
      n += t.total;
    }
    return std::pair{m, n};
  };
  const auto [tm, tn] = fits(lf::matrix_units::blackwell_fp8_tcgen05);
  const auto [rm, rn] = fits(lf::matrix_units::blackwell_rn_fp8);
  int smallest = -1;
  for (int f = lf::matrix_units::blackwell_rn_fp8.alignment_bits; f <= 60 && smallest < 0; ++f) {
    lf::matrix_unit u = lf::matrix_units::blackwell_rn_fp8;
    u.alignment_bits = f;
    const auto [m, n] = fits(u);
    if (m == n) smallest = f;
  }
  out += fmt::format("\nB200 E4M3 and E5M2 to fp32 ({} cases): `blackwell_fp8_tcgen05` (N = {}, F = {}, truncated) "
                     "matches {}; `blackwell_rn_fp8` (F = {}, nearest even) {}; nearest even with truncated terms "
                     "matches all of them from F = {} on.\n",
                     tn, lf::matrix_units::blackwell_fp8_tcgen05.block_size,
                     lf::matrix_units::blackwell_fp8_tcgen05.alignment_bits, tm,
                     lf::matrix_units::blackwell_rn_fp8.alignment_bits, rm, smallest);
  return out;
}

std::map<std::string, std::string> blocks() {
  std::map<std::string, std::string> b;
  b["models"] = models_block();
  b["hardware"] = hardware_block();
  const std::string fp16_models =
      "fp16-acc,fp16-fma,fp16-pairwise,fp16-blocked,fp16-kahan,fp16-neumaier,fp16-mul-fp32-acc,fp32-acc,"
      "fp32-split-k,cuda_core_fp32,volta_fp16,turing_fp16,ampere_fp16,hopper_fp16,blackwell_fp16,hopper_fp8,"
      "deepseek_fp8_promote128,blackwell_fp8,exact";
  accum::dist_options normal;  // normal(0, 1), seed 1
  b["dot-normal"] = experiment(true, 4096, normal, "fp16", fp16_models, "--n 4096 --dist normal --seed 1");
  accum::dist_options uniform;
  uniform.dist = "uniform";
  b["dot-uniform"] = experiment(true, 4096, uniform, "fp16", fp16_models, "--n 4096 --dist uniform --seed 1");
  b["dot-e4m3"] = experiment(true, 4096, uniform, "e4m3",
                             "e4m3-fp32-acc,cuda_core_fp32,hopper_fp8,deepseek_fp8_promote128,blackwell_fp8,exact",
                             "--n 4096 --dist uniform --seed 1 --input-format e4m3");
  accum::dist_options small;  // gradient-sized: normal(0, 1e-3), seed 1
  small.stddev = 1e-3;
  b["dot-block-scaled"] = experiment(true, 4096, small, "fp32",
                                     "fp32-fma,bf16-fp32-acc,hopper_fp8,deepseek_fp8_promote128," +
                                         accum::block_scaled_model_names() + ",exact",
                                     "--n 4096 --stddev 1e-3 --input-format fp32");
  accum::dist_options ones;
  ones.dist = "ones";
  b["sum-ones"] = experiment(false, 4096, ones, "fp16", "fp16-acc,fp16-pairwise,fp16-kahan,fp32-acc,bf16-acc,exact",
                             "--n 4096 --dist ones");
  return b;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2 || argc > 3 || (argc == 3 && std::string(argv[2]) != "--write")) {
    std::fprintf(stderr, "usage: %s DOC [--write]\n", argv[0]);
    return 2;
  }
  const std::string path = argv[1];
  std::string doc;
  {
    std::ifstream in(path, std::ios::binary);
    if (!in) {
      std::fprintf(stderr, "%s: cannot read\n", path.c_str());
      return 2;
    }
    std::ostringstream ss;
    ss << in.rdbuf();
    doc = ss.str();
  }
  std::string out = doc;
  for (const auto& [name, text] : blocks()) {
    const std::string begin = "<!-- generated:" + name + " begin -->\n", end = "<!-- generated:" + name + " end -->";
    const auto b = out.find(begin);
    const auto e = out.find(end);
    if (b == std::string::npos || e == std::string::npos || e < b) {
      std::fprintf(stderr, "%s: no block '%s' (markers %s ... %s)\n", path.c_str(), name.c_str(),
                   begin.substr(0, begin.size() - 1).c_str(), end.c_str());
      return 2;
    }
    out.replace(b + begin.size(), e - b - begin.size(), text);
  }
  if (argc == 3) {
    std::ofstream(path, std::ios::binary) << out;
    return 0;
  }
  if (out == doc) {
    std::printf("%s: the generated blocks match\n", path.c_str());
    return 0;
  }
  std::size_t i = 0;
  while (i < out.size() && i < doc.size() && out[i] == doc[i]) ++i;
  const std::size_t line = static_cast<std::size_t>(std::count(doc.begin(), doc.begin() + static_cast<long>(i), '\n')) + 1;
  std::fprintf(stderr,
               "%s:%zu: differs from what the library computes now; regenerate with\n  %s %s --write\n"
               "expected around there:\n%s\n",
               path.c_str(), line, argv[0], path.c_str(), out.substr(i > 80 ? i - 80 : 0, 400).c_str());
  return 1;
}
