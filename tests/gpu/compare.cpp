// tests/gpu/compare.cpp: libfloat's matrix-unit presets against tensor-core results in the layout of
// tests/data/tensor-core-hw: the recorded sample there, or what tests/gpu/record_mma.cu wrote.
// Reads the files and evaluates the presets with tests/support/tensor_core_hw.hpp, as
// tests/models/test_tensor_core_hw.cpp does; prints cases matched per set and the first differences.
//
// Build (header-only libfloat, no CMake, no doctest or Boost):
//   g++ -std=c++20 -O2 -I libfloat/include tests/gpu/compare.cpp -o compare
// Run:
//   compare [--gpu NAME] [--family volta|turing|ampere|ada|hopper|blackwell] [--report-only] [--show N] DIR
// DIR holds GPU/INPUT/ folders. Which preset: --family, else the compute capability in
// DIR/manifest.txt (written by record_mma), else the GPU's name. Exit status: 0 when every gated
// set matches in every case (binary32 output, and binary16 output of fp16/bf16/tf32 inputs, as the
// test gates), 1 when one misses, 2 on an error (files missing or not parsing, nothing found).
//
// C: the sample's H100 and H200 FP8 sets were recorded with wgmma and C = 0 (their c files are not
// what was used), which tc_hw::evaluate applies. record_mma writes the C it used, so a folder with
// its manifest.txt is evaluated with C as recorded.
#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "../support/tensor_core_hw.hpp"

namespace {

namespace fs = std::filesystem;

// What record_mma wrote in DIR/manifest.txt (absent for the recorded sample).
struct manifest {
  bool present = false, dry_run = false;
  int cc = 0;
  std::vector<std::string> families;  // the random families in turn, after the crafted cases
  std::map<std::string, std::size_t> crafted;  // "GPU/INPUT" -> how many crafted cases come first
};

manifest read_manifest(const fs::path& dir) {
  manifest m;
  std::ifstream f(dir / "manifest.txt");
  if (!f) return m;
  m.present = true;
  for (std::string line; std::getline(f, line);) {
    std::istringstream is(line);
    std::string key;
    is >> key;
    if (key == "compute_capability") is >> m.cc;
    else if (key == "dry_run") {
      int v = 0;
      is >> v;
      m.dry_run = v != 0;
    } else if (key == "families") {
      for (std::string w; is >> w;) m.families.push_back(w);
    } else if (key == "set") {
      std::string name, word;
      is >> name;
      while (is >> word)
        if (word == "crafted") is >> m.crafted[name];
    }
  }
  return m;
}

// The preset family of a GPU: from the compute capability, else from the name.
std::string family_of_cc(int cc) {
  if (cc == 70 || cc == 72) return "volta";
  if (cc == 75) return "turing";
  if (cc >= 80 && cc < 89) return "ampere";
  if (cc == 89) return "ada";
  if (cc >= 90 && cc < 100) return "hopper";
  if (cc >= 100) return "blackwell";  // 12.x (RTX 50, RTX PRO) too: not checked against them
  return "";
}

std::string family_of_name(const std::string& gpu) {
  auto starts = [&](const char* p) { return gpu.rfind(p, 0) == 0; };
  if (gpu == "V100" || starts("TitanV")) return "volta";
  if (gpu == "T4" || starts("RTX20")) return "turing";
  if (gpu == "A100" || gpu == "A800" || gpu == "A40" || gpu == "A30" || gpu == "A10" || gpu == "A10G" || gpu == "A16" ||
      gpu == "A2" || starts("RTX30") || gpu == "RTXA6000")
    return "ampere";
  if (gpu == "Ada" || gpu == "L40S" || gpu == "L40" || gpu == "L4" || starts("RTX40") || gpu == "RTX6000")
    return "ada";
  if (gpu == "H100" || gpu == "H200" || gpu == "H800" || gpu == "H20" || gpu == "GH200") return "hopper";
  if (gpu == "B200" || gpu == "B100" || gpu == "GB200" || gpu == "B300" || gpu == "GB300") return "blackwell";
  return "";
}

std::string preset_suffix(std::string_view input) {
  if (input == "E4M3" || input == "E5M2") return "fp8";
  return std::string(input);
}

const lf::named_matrix_unit* preset_named(std::string_view name) {
  for (const auto& p : lf::matrix_unit_presets)
    if (p.name == name) return &p;
  return nullptr;
}

// The unit's result for a case with C as recorded (record_mma's folders).
std::uint32_t model_result_c_as_recorded(const lf::matrix_unit& preset, const tc_hw::hw_set& s, const tc_hw::hw_case& c) {
  const lf::matrix_unit u = tc_hw::with_output(preset, s.id.output);
  lf::status st{};
  std::uint64_t cc = c.c;
  if (u.output == lf::binary16) cc = lf::convert(lf::binary16, lf::binary32, cc, lf::env{}, st);
  std::uint64_t d = lf::dot(u, s.input, c.a, s.input, c.b, cc, st);
  if (u.output == lf::binary16) d = lf::convert(lf::binary32, lf::binary16, d, lf::env{}, st);  // exact
  return static_cast<std::uint32_t>(d);
}

// How many K words the first line of a file holds.
std::size_t words_in_first_line(const fs::path& p) {
  std::ifstream f(p);
  std::string line;
  std::getline(f, line);
  std::istringstream is(line);
  std::size_t n = 0;
  for (std::string w; is >> w;) ++n;
  return n;
}

float as_float(std::uint32_t u) { return std::bit_cast<float>(u); }

// ---- block-scaled sets (record_block_scaled.cu): DIR/GPU/block_scaled/SET.txt ------------------------
// '#' header lines, then per case: sa sb c d a_0..a_{K-1} b_0..b_{K-1} in hex (one scale code per
// operand, used for every block of the case). Evaluated with lf::block_scaled_dot on a 1 x K
// block_quantized A and B (B given transposed), C as recorded.
struct bs_result {
  bool found = false, error = false, dry = false;
  std::size_t cases = 0, matched = 0;
};

bs_result block_scaled_set(const fs::path& file, const std::string& gpu, std::size_t show) {
  bs_result r;
  std::ifstream f(file);
  if (!f) return r;
  r.found = true;
  const std::string set = file.stem().string();
  // record_block_scaled_cublaslt.cu's sets (cuBLASLt, c = 0) take the presets of the same inputs.
  const std::string kind = set == "cublaslt_mxfp8_e4m3"   ? "mxf8f6f4_e4m3"
                           : set == "cublaslt_mxfp4_e2m1" ? "mxf4_e2m1"
                           : set == "cublaslt_nvfp4_e2m1" ? "mxf4nvf4_e2m1"
                                                          : set;
  const lf::block_format* fmt = kind == "mxf8f6f4_e4m3" ? &lf::mxfp8_e4m3
                                : kind == "mxf4_e2m1"   ? &lf::mxfp4
                                : kind == "mxf4nvf4_e2m1" ? &lf::nvfp4
                                                          : nullptr;
  const lf::block_scaled_unit unit =
      kind == "mxf8f6f4_e4m3" ? lf::block_scaled_units::blackwell_mxf8f6f4 : lf::block_scaled_units::blackwell_mxf4;
  const char* preset = kind == "mxf8f6f4_e4m3" ? "blackwell_mxf8f6f4" : "blackwell_mxf4";
  std::size_t k = 0, crafted = 0;
  std::vector<std::string> families;
  std::vector<std::size_t> misses;
  std::vector<std::string> shown;
  char label[96];
  for (std::string line; std::getline(f, line);) {
    if (line.empty()) continue;
    std::istringstream is(line);
    if (line[0] == '#') {
      std::string hash, key;
      is >> hash >> key;
      if (key == "K") is >> k;
      else if (key == "dry_run") { int v = 0; is >> v; r.dry = v != 0; }
      else if (key == "crafted") is >> crafted;
      else if (key == "families") for (std::string w; is >> w;) families.push_back(w);
      continue;
    }
    if (!fmt || k == 0) { r.error = true; break; }
    std::string sa, sb, cw, dw;
    is >> sa >> sb >> cw >> dw;
    std::vector<std::uint8_t> a(k), b(k);
    bool ok = static_cast<bool>(is);
    for (std::size_t j = 0; j < 2 * k && ok; ++j) {
      std::string w;
      ok = static_cast<bool>(is >> w);
      if (ok) (j < k ? a[j] : b[j - k]) = static_cast<std::uint8_t>(std::stoul(w, nullptr, 16));
    }
    if (!ok) { r.error = true; break; }
    const std::size_t i = r.cases++;
    if (r.dry) continue;
    auto quantized = [&](const std::vector<std::uint8_t>& el, const std::string& sc) {
      lf::block_quantized q;
      q.fmt = *fmt;
      q.rows = 1;
      q.cols = k;
      q.elements = el;
      q.scales.assign(q.block_cols(), static_cast<std::uint8_t>(std::stoul(sc, nullptr, 16)));
      return q;
    };
    const lf::block_quantized qa = quantized(a, sa), qb = quantized(b, sb);
    const auto c = static_cast<std::uint32_t>(std::stoul(cw, nullptr, 16));
    const auto d = static_cast<std::uint32_t>(std::stoul(dw, nullptr, 16));
    lf::status st{};
    std::uint32_t m = 0;
    try {
      m = std::bit_cast<std::uint32_t>(lf::block_scaled_dot(unit, qa, 0, qb, 0, std::bit_cast<float>(c), st));
    } catch (const std::exception& e) {
      std::printf("    case %zu: %s\n", i, e.what());
      r.error = true;
      break;
    }
    if (m == d) { ++r.matched; continue; }
    misses.push_back(i);
    if (shown.size() < show) {
      char buf[200];
      std::snprintf(buf, sizeof buf, "    case %zu (sa %s sb %s): GPU 0x%08x (%.9g), model 0x%08x (%.9g), c 0x%08x (%.9g)", i,
                    sa.c_str(), sb.c_str(), d, as_float(d), m, as_float(m), c, as_float(c));
      shown.push_back(buf);
    }
  }
  std::snprintf(label, sizeof label, "%-6s %-13s -> fp32 K = %-2zu", gpu.c_str(), set.c_str(), k);
  if (r.error) {
    std::printf("%s  cannot read or evaluate %s\n", label, file.string().c_str());
    return r;
  }
  if (r.dry) {
    std::printf("%s  %zu cases: inputs only (d not measured)\n", label, r.cases);
    return r;
  }
  std::printf("%s  %-18s %5zu/%-5zu gated%s\n", label, preset, r.matched, r.cases, misses.empty() ? "" : "  MISSES");
  if (!misses.empty() && !families.empty()) {
    std::map<std::string, std::size_t> by;
    for (std::size_t i : misses) ++by[i < crafted ? std::string("crafted") : families[(i - crafted) % families.size()]];
    std::printf("    differences by family:");
    for (const auto& [fam, n] : by) std::printf(" %s %zu", fam.c_str(), n);
    std::printf("\n");
  }
  for (const auto& line : shown) std::printf("%s\n", line.c_str());
  return r;
}

void usage() {
  std::fprintf(stderr,
               "usage: compare [--gpu NAME] [--family volta|turing|ampere|ada|hopper|blackwell] [--report-only]\n"
               "               [--show N] DIR\n");
}

}  // namespace

int main(int argc, char** argv) {
  std::string dir_arg, only_gpu, family_arg;
  bool report_only = false;
  std::size_t show = 3;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if ((a == "--gpu" || a == "--family" || a == "--show") && i + 1 < argc) {
      const std::string v = argv[++i];
      if (a == "--gpu") only_gpu = v;
      else if (a == "--family") family_arg = v;
      else show = static_cast<std::size_t>(std::stoul(v));
    } else if (a == "--report-only") {
      report_only = true;
    } else if (!a.empty() && a[0] != '-' && dir_arg.empty()) {
      dir_arg = a;
    } else {
      usage();
      return 2;
    }
  }
  if (dir_arg.empty()) {
    usage();
    return 2;
  }
  const fs::path dir(dir_arg);
  const manifest man = read_manifest(dir);
  std::printf("compare: %s (%s)\n", dir.string().c_str(),
              man.present ? (man.dry_run ? "written by record_mma --dry-run: inputs only, d not measured"
                                         : "recorded by record_mma: C as recorded")
                          : "the recorded sample: H100/H200 FP8 with C = 0, as recorded with wgmma");

  std::vector<std::string> gpus;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec))
    if (e.is_directory()) gpus.push_back(e.path().filename().string());
  std::sort(gpus.begin(), gpus.end());
  const char* inputs[] = {"fp16", "bf16", "tf32", "E4M3", "E5M2"};
  const char* outputs[] = {"fp32", "fp16"};

  std::size_t sets = 0, gated_sets = 0, gated_missed = 0, cases_total = 0, cases_matched = 0;
  bool error = false;
  for (const auto& gpu : gpus) {
    if (!only_gpu.empty() && gpu != only_gpu) continue;
    const std::string family =
        !family_arg.empty() ? family_arg : (man.present && man.cc ? family_of_cc(man.cc) : family_of_name(gpu));
    for (const char* input : inputs) {
      const fs::path sub = dir / gpu / input;
      if (!fs::is_directory(sub)) continue;
      const std::size_t k = words_in_first_line(sub / ("a_" + gpu + "_" + input + ".txt"));
      for (const char* output : outputs) {
        if (!fs::exists(sub / ("d_" + gpu + "_" + output + ".txt"))) continue;
        const bool fp8 = std::string_view(input) == "E4M3" || std::string_view(input) == "E5M2";
        const std::string preset_name = family.empty() ? "" : family + "_" + preset_suffix(input);
        const bool gated = std::string_view(output) == "fp32" || !fp8;
        const tc_hw::set_id id{gpu, input, output, k, preset_name, gated};
        char label[96];
        std::snprintf(label, sizeof label, "%-6s %-4s -> %-4s K = %-2zu", gpu.c_str(), input, output, k);
        // The sample's own list (tc_hw::recorded_sets) must agree with what is read here.
        if (!man.present)
          for (const auto& r : tc_hw::recorded_sets)
            if (r.gpu == id.gpu && r.input == id.input && r.output == id.output &&
                (r.k != id.k || r.preset != id.preset || r.gated != id.gated)) {
              std::printf("%s  differs from tc_hw::recorded_sets (K %zu, %s, %s)\n", label, r.k,
                          std::string(r.preset).c_str(), r.gated ? "gated" : "reported");
              error = true;
            }
        std::string err;
        const auto s = tc_hw::load(dir.string(), id, err);
        if (!s) {
          std::printf("%s  cannot read: %s\n", label, err.c_str());
          error = true;
          continue;
        }
        ++sets;
        if (man.dry_run) {
          std::printf("%s  %zu cases: inputs are values of %s (d not measured)\n", label, s->cases.size(), input);
          continue;
        }
        const lf::named_matrix_unit* p = preset_name.empty() ? nullptr : preset_named(preset_name);
        if (!p) {
          std::printf("%s  no preset for this GPU (%s): not evaluated\n", label,
                      preset_name.empty() ? "unknown family; use --family" : preset_name.c_str());
          continue;
        }
        std::vector<std::size_t> misses;
        for (std::size_t i = 0; i < s->cases.size(); ++i) {
          const std::uint32_t m = man.present ? model_result_c_as_recorded(p->unit, *s, s->cases[i])
                                              : tc_hw::model_result(p->unit, *s, s->cases[i]);
          if (m != s->cases[i].d) misses.push_back(i);
        }
        const std::size_t total = s->cases.size(), matched = total - misses.size();
        cases_total += total;
        cases_matched += matched;
        if (gated) ++gated_sets;
        if (gated && !misses.empty()) ++gated_missed;
        std::printf("%s  %-15s %5zu/%-5zu %s%s\n", label, preset_name.c_str(), matched, total,
                    gated ? "gated" : "reported", gated && !misses.empty() ? "  MISSES" : "");
        if (misses.empty()) continue;
        // Differences by family (record_mma's folders): crafted first, then the random families in turn.
        const auto cr = man.crafted.find(gpu + "/" + input);
        if (cr != man.crafted.end() && !man.families.empty()) {
          std::map<std::string, std::size_t> by;
          for (std::size_t i : misses)
            ++by[i < cr->second ? std::string("crafted") : man.families[(i - cr->second) % man.families.size()]];
          std::printf("    differences by family:");
          for (const auto& [fam, n] : by) std::printf(" %s %zu", fam.c_str(), n);
          std::printf("\n");
        }
        for (std::size_t j = 0; j < misses.size() && j < show; ++j) {
          const std::size_t i = misses[j];
          const auto& c = s->cases[i];
          const std::uint32_t m = man.present ? model_result_c_as_recorded(p->unit, *s, c) : tc_hw::model_result(p->unit, *s, c);
          std::printf("    case %zu (line %zu): GPU 0x%08x (%.9g), model 0x%08x (%.9g), c 0x%08x (%.9g)\n", i, i + 1, c.d,
                      as_float(c.d), m, as_float(m), c.c, as_float(c.c));
        }
      }
    }
    // The block-scaled sets (binary32 output: gated, as the binary32-output sets above).
    const fs::path bsdir = dir / gpu / "block_scaled";
    if (fs::is_directory(bsdir)) {
      std::vector<fs::path> files;
      for (const auto& e : fs::directory_iterator(bsdir, ec))
        if (e.path().extension() == ".txt") files.push_back(e.path());
      std::sort(files.begin(), files.end());
      for (const auto& file : files) {
        const bs_result r = block_scaled_set(file, gpu, show);
        if (r.error) { error = true; continue; }
        ++sets;
        if (r.dry) continue;
        cases_total += r.cases;
        cases_matched += r.matched;
        ++gated_sets;
        if (r.matched != r.cases) ++gated_missed;
      }
    }
  }
  if (sets == 0) {
    std::printf("compare: no set found under %s (expected GPU/INPUT/a_GPU_INPUT.txt ...)\n", dir.string().c_str());
    return 2;
  }
  std::printf("compare: %zu sets, %zu of %zu cases matched; %zu gated sets, %zu missed\n", sets, cases_matched,
              cases_total, gated_sets, gated_missed);
  if (error) return 2;
  return gated_missed && !report_only ? 1 : 0;
}
