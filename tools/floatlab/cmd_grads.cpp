// floatlab grads: will a tensor dump (gradients, activations) survive a narrower format? For each
// format and scale: how many values would flush to zero, become subnormal, stay normal or
// overflow, an exponent histogram with each format's window, and with --scale auto the largest
// power-of-two loss scale that overflows nothing. Thin over lf::training::range_counter (training/range_report.hpp);
// files are read in constant memory (tensor_file.hpp), the chart is svg_plot.hpp. With --recipe, the
// dump is instead quantized by FP8 / MXFP8 / NVFP4 scaling recipes side by side (grads_recipes.hpp).
#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <memory>
#include <optional>
#include <regex>
#include <string>
#include <vector>

#include <fmt/core.h>

#include <libfloat/training/range_report.hpp>

#include "commands.hpp"
#include "grads_recipes.hpp"
#include "svg_plot.hpp"
#include "dump_reader.hpp"
#include "tensor_file.hpp"

namespace floatlab {

namespace {

struct grads_options {
  std::string file;
  std::string formats = "fp16,bf16,e4m3,e5m2";
  std::string scale = "1";
  std::string dtype;
  std::string select;
  std::string plot;
  bool plot_log = false;
  bool json = false;
  rounding_options rounding;
  grads_recipes::settings recipe;  ///< --recipe and the options only it reads
};

/// The options that only recipe mode reads, and those it does not read: either is an error on the
/// wrong side, rather than silently ignored.
constexpr const char* recipe_only_options[] = {"--shape", "--role", "--fp8-format", "--steps", "--margin",
                                               "--amax-history", "--amax-algo"};
constexpr const char* range_only_options[] = {"--formats", "--scale", "--rounding", "--tininess", "--ftz", "--daz",
                                              "--saturate"};

/// Within recipe mode, the options that only some recipes read: given without one of them, an error.
struct recipe_option_reader {
  const char* option;
  std::vector<std::string_view> recipes;
};
const recipe_option_reader recipe_option_readers[] = {
    {"--steps", {"fp8-delayed"}},
    {"--margin", {"fp8-delayed"}},
    {"--amax-history", {"fp8-delayed"}},
    {"--amax-algo", {"fp8-delayed"}},
    {"--fp8-format", {"fp8-current", "fp8-delayed"}},
};

void check_mode_options(const grads_options& o, const CLI::App& cmd) {
  const bool recipes = !o.recipe.recipes.empty();
  for (const char* name : recipes ? range_only_options : recipe_only_options)
    if (cmd.count(name) > 0)
      throw usage_error(recipes ? std::string(name) + ": not used with --recipe (each recipe chooses its own formats, "
                                                      "scales and rounding); drop it, or drop --recipe"
                                : std::string(name) + ": only used with --recipe (e.g. --recipe " +
                                      grads_recipes::recipe_names_help() + ")");
  if (!recipes) return;
  const std::vector<std::string_view> chosen = grads_recipes::parse_recipes(o.recipe.recipes);
  for (const recipe_option_reader& r : recipe_option_readers) {
    if (cmd.count(r.option) == 0) continue;
    bool read = false;
    for (const std::string_view name : r.recipes) read |= std::find(chosen.begin(), chosen.end(), name) != chosen.end();
    if (read) continue;
    std::string readers, given;
    for (const std::string_view name : r.recipes) readers += (readers.empty() ? "" : " or ") + std::string(name);
    for (const std::string_view name : chosen) given += (given.empty() ? "" : ",") + std::string(name);
    throw usage_error(std::string(r.option) + ": only read by --recipe " + readers + ", and --recipe " + given +
                      " has none of them; add one, or drop " + r.option);
  }
}

std::vector<lf::format> parse_formats(std::string_view list) {
  std::vector<lf::format> out;
  std::size_t start = 0;
  for (;;) {
    const std::size_t comma = list.find(',', start);
    const std::string_view name = list.substr(start, comma == std::string_view::npos ? comma : comma - start);
    std::string error;
    const std::optional<lf::format> f = name.empty() ? std::nullopt : lf::format_by_name(name, &error);
    if (!f)
      throw usage_error("-f '" + std::string(list) + "': " +
                        (name.empty() ? "an empty format name (give names separated by commas, e.g. fp16,bf16; known: " +
                                            lf::known_format_names() + ")"
                                      : error));
    // The classes (zero, subnormal, normal, overflow) need a zero and a sign (range_report.hpp).
    if (!f->has_zero() || !f->has_sign())
      throw usage_error("-f '" + std::string(list) + "': " + lf::format_name(*f) +
                        " is exponent-only (no zero, no sign: a scale format), so gradients have no range classes "
                        "in it; give formats with a zero, e.g. fp16,bf16,e4m3,fp4");
    out.push_back(*f);
    if (comma == std::string_view::npos) return out;
    start = comma + 1;
  }
}

/// --scale: "auto", a positive finite number in lf::parse's grammar, or 2^K.
std::optional<lf::training::scale_factor> parse_scale(const std::string& s) {
  if (s == "auto") return std::nullopt;
  auto bad = [&s](const std::string& why) {
    return usage_error("--scale '" + s + "': " + why +
                       " (accepted: auto, a positive finite number like 1024, 0.5 or 6.5e4, or 2^K with an integer K "
                       "from -1074 to 1023)");
  };
  if (s.size() > 2 && s[0] == '2' && s[1] == '^') {
    const std::string k = s.substr(2);
    char* end = nullptr;
    errno = 0;
    const long v = std::strtol(k.c_str(), &end, 10);
    if (k.empty() || *end != '\0' || errno != 0 || v < -1074 || v > 1023) throw bad("K is not an integer in range");
    return lf::training::scale_factor::power_of_two(static_cast<int>(v));
  }
  const lf::parsed<lf::bits_t> r = lf::parse(lf::binary64, s);
  if (!r) throw bad("not a number: " + r.error.message());
  const auto f = lf::training::scale_factor::of(std::bit_cast<double>(r.value));
  if (!f) throw bad("the scale must be finite and greater than 0");
  return f;
}

std::string scale_text(const lf::training::scale_factor& s) {
  if (s.is_power_of_two()) return fmt::format("2^{} = {}", s.exp, s.value);
  return fmt::format("{}", s.value);
}

std::string percent(std::uint64_t n, std::uint64_t total) {
  if (total == 0) return "    -  ";
  const double p = 100.0 * static_cast<double>(n) / static_cast<double>(total);
  if (n != 0 && p < 0.005) return " <0.01%";
  return fmt::format("{:6.2f}%", p);
}

/// Reads the file once into a counter for `targets`.
lf::training::range_counter count_file(const grads_options& o, const std::vector<lf::training::range_target>& targets,
                             std::optional<dtype> raw, tensor_info& info, const char* pass) {
  lf::training::range_counter c{std::span<const lf::training::range_target>(targets)};
  const bool show = is_terminal(stderr);
  int shown = -1;
  auto progress = [&](std::uint64_t done, std::uint64_t total) {
    if (!show || total == 0) return;
    const int pct = static_cast<int>(100.0 * static_cast<double>(done) / static_cast<double>(total));
    if (pct == shown) return;
    shown = pct;
    std::fprintf(stderr, "\rfloatlab grads: %s%3d%% of %.1f MiB", pass, pct, static_cast<double>(total) / (1 << 20));
    std::fflush(stderr);
  };
  try {
    info = read_tensor(
        o.file, raw,
        [&c](const tensor_chunk& ch) {
          if (!ch.f16.empty()) c.add_binary16(ch.f16);
          if (!ch.f32.empty()) c.add(ch.f32);
          if (!ch.f64.empty()) c.add(ch.f64);
        },
        progress);
  } catch (const tensor_error& e) {
    if (show && shown >= 0) std::fprintf(stderr, "\r%60s\r", "");
    throw usage_error(e.what());
  }
  if (show && shown >= 0) std::fprintf(stderr, "\r%60s\r", "");
  return c;
}

void block_text(output_buffer& out, const lf::training::range_report& r, const char* note) {
  const lf::training::range_window w = r.window;
  out << fmt::format("{} at scale {}{}\n  window: subnormal from 2^{}, normal from 2^{}, top binade 2^{}\n",
                     lf::format_name(r.fmt), scale_text(r.scale), note, w.min_subnormal_exp, w.min_normal_exp, w.max_exp);
  const std::uint64_t t = r.total();
  out << fmt::format("  zero      {:>13} {}   lost: nonzero, round to 0\n", r.zero, percent(r.zero, t));
  out << fmt::format("  subnormal {:>13} {}   fewer significant bits\n", r.subnormal, percent(r.subnormal, t));
  out << fmt::format("  normal    {:>13} {}\n", r.normal, percent(r.normal, t));
  out << fmt::format("  overflow  {:>13} {}   {}\n", r.overflow, percent(r.overflow, t),
                     r.fmt.has_infinity() ? "become inf (max if rounding toward 0)"
                     : !r.fmt.has_nan()   ? "become max finite (no inf, no NaN)"
                                          : "become NaN (max if saturating)");
}

/// The text histogram: one row per binary exponent of the data (rows merged when there are more
/// than 48), the count, one mark per format and a bar.
void histogram_text(output_buffer& out, const lf::training::range_report& base, const std::vector<lf::training::range_report>& reports) {
  if (!base.min_exponent) {
    out << "No nonzero finite values: no exponent histogram.\n";
    return;
  }
  const int lo = *base.min_exponent, hi = *base.max_exponent;
  const int rows_wanted = 48;
  const int width = std::max(1, (hi - lo + rows_wanted) / rows_wanted);
  auto count_in = [&](int a, int b) {  // exponents [a, b]
    std::uint64_t n = 0;
    for (int e = a; e <= b; ++e) n += base.at(e);
    if (a < lf::training::range_report::histogram_min) n += base.below;  // only when the data reaches there
    if (b > lf::training::range_report::histogram_max) n += base.above;
    return n;
  };
  std::uint64_t top = 0;
  for (int a = lo; a <= hi; a += width) top = std::max(top, count_in(a, std::min(hi, a + width - 1)));
  const std::size_t nf = reports.size();
  const std::size_t prefix = 7 + 1 + 13 + 2 + 5 * nf + 1;
  const std::size_t bar_w = prefix + 10 < 80 ? 80 - prefix : 10;
  auto mark = [](const lf::training::range_window& w, int e) {
    if (e < w.min_subnormal_exp) return '.';
    if (e < w.min_normal_exp) return 's';
    if (e <= w.max_exp) return 'N';
    return '!';
  };
  out << fmt::format("Binary exponents floor(log2|x*S|) at scale {}{}:\n", scale_text(base.scale),
                     width > 1 ? fmt::format(", {} exponents per row", width) : std::string());
  std::string head = fmt::format("  {:>5} {:>13}  ", width > 1 ? "from" : "exp", "values");
  for (const auto& r : reports) head += fmt::format("{:<5}", lf::format_name(r.fmt).substr(0, 4));
  while (!head.empty() && head.back() == ' ') head.pop_back();
  out << head << '\n';
  for (int a = lo; a <= hi; a += width) {
    const int b = std::min(hi, a + width - 1);
    const std::uint64_t n = count_in(a, b);
    std::string line = fmt::format("  {:>5} {:>13}  ", a, n);
    for (const auto& r : reports) {
      char m = mark(r.window, a);
      for (int e = a + 1; e <= b; ++e)
        if (mark(r.window, e) != m) m = '+';
      line += m;
      line += "    ";
    }
    std::size_t len = top ? static_cast<std::size_t>(std::llround(static_cast<double>(n) / static_cast<double>(top) *
                                                                  static_cast<double>(bar_w)))
                          : 0;
    if (n > 0 && len == 0) len = 1;
    line += std::string(len, '#');
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out << line << '\n';
  }
  out << "  marks: . below window (to zero)  s subnormal  N normal  ! overflow  + mixed\n";
}

// ---- JSON --------------------------------------------------------------------------------------

std::string jstr(std::string_view s) {
  std::string out = "\"";
  for (char c : s) {
    const auto u = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') out += std::string("\\") + c;
    else if (u < 0x20) out += fmt::format("\\u{:04x}", u);
    else out += c;
  }
  return out + "\"";
}

std::string report_json(const lf::training::range_report& r) {
  const std::uint64_t t = r.total();
  auto frac = [t](std::uint64_t n) { return t ? static_cast<double>(n) / static_cast<double>(t) : 0.0; };
  std::string bins;
  for (int e = lf::training::range_report::histogram_min; e <= lf::training::range_report::histogram_max; ++e)
    if (r.at(e)) bins += fmt::format("{}[{},{}]", bins.empty() ? "" : ",", e, r.at(e));
  auto opt = [](const std::optional<int>& v) { return v ? std::to_string(*v) : std::string("null"); };
  return fmt::format(
      R"({{"format":{},"scale":{},"log2_scale":{},"window":{{"min_subnormal_exp":{},"min_normal_exp":{},"max_exp":{}}},)"
      R"("zero":{},"subnormal":{},"normal":{},"overflow":{},)"
      R"("fractions":{{"zero":{},"subnormal":{},"normal":{},"overflow":{}}},)"
      R"("histogram":{{"min_exponent":{},"max_exponent":{},"below":{},"above":{},"bins":[{}]}}}})",
      jstr(lf::format_name(r.fmt)), r.scale.value, r.scale.is_power_of_two() ? std::to_string(r.scale.exp) : "null",
      r.window.min_subnormal_exp, r.window.min_normal_exp, r.window.max_exp, r.zero, r.subnormal, r.normal, r.overflow,
      frac(r.zero), frac(r.subnormal), frac(r.normal), frac(r.overflow), opt(r.min_exponent), opt(r.max_exponent),
      r.below, r.above, bins);
}

// ---- many tensors: one row each --------------------------------------------------------------

constexpr int max_loss_scale_log2 = 127;

/// The single-tensor analysis the table shows: one pass over a tensor's values at scale S, the
/// counts per format and the largest safe power-of-two scale per format (capped at 2^127, the
/// largest a float32 loss scale holds).
struct tensor_analysis {
  std::vector<lf::training::range_report> reports;
  std::vector<std::optional<int>> ks;
  std::vector<char> capped;
  std::uint64_t values = 0;
};

tensor_analysis analyze_tensor(const std::function<void(const chunk_sink&)>& read, const std::vector<lf::format>& formats,
                               const lf::env& e, const lf::training::scale_factor& scale) {
  std::vector<lf::training::range_target> targets;
  for (const lf::format& f : formats) targets.push_back({f, scale, e});
  lf::training::range_counter c{std::span<const lf::training::range_target>(targets)};
  tensor_analysis a;
  read([&](const tensor_chunk& ch) {
    if (!ch.f16.empty()) c.add_binary16(ch.f16);
    if (!ch.f32.empty()) c.add(ch.f32);
    if (!ch.f64.empty()) c.add(ch.f64);
    a.values += ch.f16.size() + ch.f32.size() + ch.f64.size();
  });
  for (std::size_t i = 0; i < formats.size(); ++i) {
    a.reports.push_back(c.report(i));
    a.ks.push_back(lf::training::largest_safe_scale_log2(c, formats[i], e));
    a.capped.push_back(a.ks.back() && *a.ks.back() > max_loss_scale_log2);
    if (a.capped.back()) a.ks.back() = max_loss_scale_log2;
  }
  return a;
}

/// Values lost in format i: nonzero values that round to zero, subnormals, overflows.
std::uint64_t lost_in(const lf::training::range_report& r) { return r.zero + r.subnormal + r.overflow; }

int run_table(const grads_options& o, const std::vector<lf::format>& formats, const lf::env& e,
              const lf::training::scale_factor& scale, bool automatic, std::optional<dtype> raw) {
  std::optional<std::regex> select;
  if (!o.select.empty()) {
    try {
      select.emplace(o.select, std::regex::ECMAScript);
    } catch (const std::regex_error& err) {
      throw usage_error("--select '" + o.select + "': not a valid regular expression (ECMAScript): " + err.what());
    }
  }
  struct row {
    dump_tensor t;
    tensor_analysis a;
    std::uint64_t worst = 0;
  };
  std::vector<row> rows;
  std::size_t total = 0;
  try {
    for (dump_tensor& t : list_tensors(o.file, raw)) {
      ++total;
      if (select && !std::regex_search(t.name, *select)) continue;
      row r{std::move(t), {}, 0};
      if (r.t.skipped.empty()) {
        r.a = analyze_tensor(r.t.read, formats, e, scale);
        for (const auto& rep : r.a.reports) r.worst = std::max(r.worst, lost_in(rep));
      }
      rows.push_back(std::move(r));
    }
  } catch (const tensor_error& err) {
    throw usage_error(err.what());
  }
  // Worst first; skipped tensors last; ties by name.
  std::stable_sort(rows.begin(), rows.end(), [](const row& a, const row& b) {
    if (a.t.skipped.empty() != b.t.skipped.empty()) return a.t.skipped.empty();
    if (a.worst != b.worst) return a.worst > b.worst;
    return a.t.name < b.t.name;
  });
  auto shape_of = [](const dump_tensor& t) { return t.shape ? shape_text(*t.shape) : std::string("-"); };
  output_buffer out;
  if (o.json) {
    out << '[';
    for (std::size_t i = 0; i < rows.size(); ++i) {
      const row& r = rows[i];
      std::string shape = "null";
      if (r.t.shape) {
        shape = "[";
        for (std::size_t d = 0; d < r.t.shape->size(); ++d) shape += (d ? "," : "") + std::to_string((*r.t.shape)[d]);
        shape += "]";
      }
      out << (i ? ",\n" : "")
          << fmt::format(R"({{"name":{},"file":{},"kind":{},"dtype":{},"shape":{},)", jstr(r.t.name), jstr(r.t.file),
                         jstr(r.t.kind), jstr(r.t.dtype_text), shape);
      if (!r.t.skipped.empty()) {
        out << fmt::format(R"("skipped":{}}})", jstr(r.t.skipped));
        continue;
      }
      const auto& any = r.a.reports.front();
      out << fmt::format(R"("skipped":null,"count":{},"nan":{},"infinity":{},"exact_zero":{},"lost":{},"results":[)",
                         r.a.values, any.nan, any.infinity, any.exact_zero, r.worst);
      for (std::size_t j = 0; j < r.a.reports.size(); ++j) out << (j ? "," : "") << report_json(r.a.reports[j]);
      out << R"(],"safe_scale":[)";
      for (std::size_t j = 0; j < formats.size(); ++j)
        out << (j ? "," : "")
            << fmt::format(R"({{"format":{},"log2_scale":{},"capped":{}}})", jstr(lf::format_name(formats[j])),
                           r.a.ks[j] ? std::to_string(*r.a.ks[j]) : "null", r.a.capped[j] ? "true" : "false");
      out << "]}";
    }
    out << "]\n";
    return exit_success;
  }
  std::size_t skipped = 0;
  for (const row& r : rows) skipped += !r.t.skipped.empty();
  out << fmt::format("{}: {} ({} read{}{}), at scale {}; rounding {}\n", o.file,
                     count_of(total, "tensor", "tensors"), rows.size() - skipped,
                     skipped ? fmt::format(", {} skipped", skipped) : std::string(),
                     select ? fmt::format(", {} not matching --select", total - rows.size()) : std::string(),
                     scale_text(scale), lf::rounding_name(e.mode));
  out << "Worst first: lost = zero (nonzero, rounds to 0) + subnormal + overflow, the most over the formats;\n"
         "safe = the largest power-of-two loss scale that overflows nothing (2^127 at most).\n";
  std::vector<std::vector<std::string>> cells;
  std::vector<std::string> head = {"tensor", "dtype", "shape", "values", "nan+inf", "lost"};
  for (const lf::format& f : formats) {
    const std::string n(lf::format_name(f));
    for (const char* c : {" zero", " subn", " over", " safe"}) head.push_back(n + c);
  }
  cells.push_back(head);
  for (const row& r : rows) {
    if (!r.t.skipped.empty()) continue;
    const auto& any = r.a.reports.front();
    std::vector<std::string> c = {r.t.name.empty() ? std::string("-") : r.t.name, r.t.dtype_text, shape_of(r.t),
                                  std::to_string(r.a.values), std::to_string(any.nan + any.infinity),
                                  std::to_string(r.worst)};
    for (std::size_t j = 0; j < formats.size(); ++j) {
      const auto& rep = r.a.reports[j];
      c.push_back(std::to_string(rep.zero));
      c.push_back(std::to_string(rep.subnormal));
      c.push_back(std::to_string(rep.overflow));
      c.push_back(r.a.ks[j] ? fmt::format("2^{}", *r.a.ks[j]) : std::string("-"));
    }
    cells.push_back(std::move(c));
  }
  std::vector<std::size_t> w(head.size(), 0);
  for (const auto& c : cells)
    for (std::size_t j = 0; j < c.size(); ++j) w[j] = std::max(w[j], c[j].size());
  for (const auto& c : cells) {
    std::string line;
    for (std::size_t j = 0; j < c.size(); ++j)
      line += j == 0 ? fmt::format("{:<{}}", c[j], w[j]) : j < 3 ? fmt::format("  {:<{}}", c[j], w[j]) : fmt::format("  {:>{}}", c[j], w[j]);
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out << line << '\n';
  }
  for (const row& r : rows)
    if (!r.t.skipped.empty()) out << fmt::format("skipped: {} ({}): {}\n", r.t.name, r.t.kind, r.t.skipped);
  if (automatic) out << "--scale auto: the counts are at scale 1; the safe columns are the recommendation.\n";
  return exit_success;
}

int run_grads(const grads_options& o, const CLI::App& cmd) {
  check_mode_options(o, cmd);
  if (o.plot_log && o.plot.empty()) throw usage_error("--plot-log changes the --plot chart; give --plot OUT.svg too");
  if (o.plot_log && !o.recipe.recipes.empty())
    throw usage_error("--plot-log applies to the exponent histogram; the --recipe chart is on a log10 axis already");
  const bool many = is_multi_tensor(o.file);
  if (!o.select.empty() && !many)
    throw usage_error("--select picks tensors of a .npz or safetensors file or a directory; '" + o.file +
                      "' holds one tensor");
  if (!o.recipe.recipes.empty() && many)
    throw usage_error("--recipe is per file: it reads one tensor, and '" + o.file +
                      "' holds several (or is a directory); give one .npy, raw or text file");
  if (many && !o.plot.empty()) throw usage_error("--plot draws one tensor; '" + o.file + "' holds several");
  if (!o.recipe.recipes.empty()) {
    std::optional<dtype> raw;
    if (!o.dtype.empty()) {
      raw = dtype_by_name(o.dtype);
      if (!raw) throw usage_error("--dtype '" + o.dtype + "': unknown (accepted: " + std::string(dtype_names_help) + ")");
    }
    grads_recipes::settings s = o.recipe;
    s.seed = o.rounding.seed;
    return grads_recipes::run(o.file, raw, s, o.json, o.plot);
  }
  const std::vector<lf::format> formats = parse_formats(o.formats);
  const lf::env e = o.rounding.env();  // never stochastic: add_rounding_options refuses it for grads
  const std::optional<lf::training::scale_factor> fixed = parse_scale(o.scale);
  const bool automatic = !fixed;
  std::optional<dtype> raw;
  if (!o.dtype.empty()) {
    raw = dtype_by_name(o.dtype);
    if (!raw) throw usage_error("--dtype '" + o.dtype + "': unknown (accepted: " + std::string(dtype_names_help) + ")");
  }

  if (many) return run_table(o, formats, e, fixed ? *fixed : lf::training::scale_factor{}, automatic, raw);

  std::vector<lf::training::range_target> targets;
  for (const lf::format& f : formats) targets.push_back({f, fixed ? *fixed : lf::training::scale_factor{}, e});
  tensor_info info;
  const lf::training::range_counter first = count_file(o, targets, raw, info, automatic ? "pass 1 of 2: " : "");
  std::vector<lf::training::range_report> reports;
  for (std::size_t i = 0; i < formats.size(); ++i) reports.push_back(first.report(i));

  // --scale auto: the largest safe power of two per format, then one more pass at those scales.
  std::vector<std::optional<int>> ks;
  std::vector<char> capped;
  std::vector<std::optional<lf::training::range_report>> at_k(formats.size());
  if (automatic) {
    std::vector<lf::training::range_target> second;
    std::vector<std::size_t> which;
    for (std::size_t i = 0; i < formats.size(); ++i) {
      ks.push_back(lf::training::largest_safe_scale_log2(first, formats[i], e));
      // A loss scale lives in a float32 (torch.amp.GradScaler's _scale tensor): 2^127 is the
      // largest power of two it holds. bf16 and fp32 data would otherwise get scales up to 2^130.
      capped.push_back(ks.back() && *ks.back() > max_loss_scale_log2);
      if (capped.back()) ks.back() = max_loss_scale_log2;
      if (ks.back()) {
        second.push_back({formats[i], lf::training::scale_factor::power_of_two(*ks.back()), e});
        which.push_back(i);
      }
    }
    if (!second.empty()) {
      tensor_info again;
      const lf::training::range_counter c2 = count_file(o, second, raw, again, "pass 2 of 2: ");
      for (std::size_t j = 0; j < which.size(); ++j) at_k[which[j]] = c2.report(j);
    }
  }

  if (!o.plot.empty()) {
    std::vector<std::pair<int, std::uint64_t>> bins;
    const lf::training::range_report& r0 = reports.front();
    for (int x = lf::training::range_report::histogram_min; x <= lf::training::range_report::histogram_max; ++x)
      if (r0.at(x)) bins.emplace_back(x, r0.at(x));
    std::vector<svg_window> windows;
    // With --scale auto each format has its own scale 2^k: its window is drawn where x lands after
    // scaling, i.e. shifted by -k on the axis of x's own exponents.
    for (std::size_t i = 0; i < reports.size(); ++i) {
      lf::training::range_window w = reports[i].window;
      std::string name(lf::format_name(reports[i].fmt));
      if (automatic && ks[i] && *ks[i] != 0) {
        w = {w.min_subnormal_exp - *ks[i], w.min_normal_exp - *ks[i], w.max_exp - *ks[i]};
        name += fmt::format(" x2^{}", *ks[i]);
      }
      windows.push_back({name, w});
    }
    const std::string title =
        automatic ? fmt::format("{}: {}, binary exponents of x; each window at its format's auto scale", o.file,
                                count_of(r0.total(), "value", "values"))
                  : fmt::format("{}: {}, binary exponents at scale {}", o.file, count_of(r0.total(), "value", "values"),
                                scale_text(r0.scale));
    if (!write_histogram_svg(o.plot, title, automatic ? "floor(log2 |x|)" : "floor(log2 |x*S|)", bins, windows,
                             o.plot_log))
      throw usage_error("--plot '" + o.plot + "': cannot write: " + std::strerror(errno));
  }

  const lf::training::range_report& any = reports.front();
  output_buffer out;
  if (o.json) {
    const auto [shape, order] = grads_recipes::npy_shape_json(info);
    out << fmt::format(
        R"({{"command":"grads","schema":1,"file":{},"input":{{"kind":{},"dtype":{},"count":{},"bytes":{},"shape":{},"fortran_order":{}}},)"
        R"("rounding":{},"nan":{},"infinity":{},"exact_zero":{},"results":[)",
        jstr(o.file), jstr(info.kind), jstr(dtype_name(info.type)), info.count, info.bytes, shape, order,
        jstr(lf::rounding_name(e.mode)), any.nan, any.infinity, any.exact_zero);
    for (std::size_t i = 0; i < reports.size(); ++i) out << (i ? "," : "") << report_json(reports[i]);
    out << "],\"auto\":";
    if (!automatic) out << "null";
    else {
      out << '[';
      for (std::size_t i = 0; i < formats.size(); ++i) {
        out << (i ? "," : "");
        if (!ks[i]) {
          out << fmt::format(R"({{"format":{},"log2_scale":null,"scale":null,"at_scale":null,"saved_from_zero":0,"saved_from_zero_or_subnormal":0,"capped":false}})",
                             jstr(lf::format_name(formats[i])));
          continue;
        }
        const lf::training::scale_recommendation rec{*ks[i], reports[i], *at_k[i]};
        out << fmt::format(R"({{"format":{},"log2_scale":{},"scale":{},"at_scale":{},"saved_from_zero":{},"saved_from_zero_or_subnormal":{},"capped":{}}})",
                           jstr(lf::format_name(formats[i])), *ks[i], rec.at_scale.scale.value,
                           report_json(rec.at_scale), rec.saved_from_zero(), rec.saved_from_zero_or_subnormal(),
                           capped[i] ? "true" : "false");
      }
      out << ']';
    }
    out << "}\n";
    return exit_success;
  }

  std::string what = info.kind == "npy" ? fmt::format(".npy '{}' shape {}, {} order", info.npy->descr,
                                                      shape_text(info.npy->shape), info.npy->fortran_order ? "Fortran" : "C")
                     : info.kind == "raw" ? fmt::format("raw little-endian {}", dtype_name(info.type))
                                          : std::string("text, read as binary64");
  out << fmt::format("{}\n{} ({})\n", o.file, count_of(info.count, "value", "values"), what);
  out << fmt::format("counted apart: {} NaN, {} infinite, {}; rounding {}\n\n", any.nan, any.infinity,
                     count_of(any.exact_zero, "exact zero", "exact zeros"), lf::rounding_name(e.mode));
  for (const auto& r : reports) {
    block_text(out, r, "");
    out << '\n';
  }
  if (automatic) {
    out << "--scale auto: the largest power-of-two scale that overflows nothing, per format\n";
    for (std::size_t i = 0; i < formats.size(); ++i) {
      if (!ks[i]) {
        out << fmt::format("  {}: no nonzero finite value, nothing to scale\n", lf::format_name(formats[i]));
        continue;
      }
      const lf::training::scale_recommendation rec{*ks[i], reports[i], *at_k[i]};
      const long long saved = rec.saved_from_zero_or_subnormal();
      const bool nothing_to_save = rec.at_one.zero == 0 && rec.at_one.subnormal == 0;
      out << fmt::format("  {}: scale {}{}\n    zero {} -> {}, subnormal {} -> {}\n    {}\n",
                         lf::format_name(formats[i]), scale_text(rec.at_scale.scale),
                         capped[i] ? fmt::format(" (capped: 2^{} is the largest power of two a float32 loss scale "
                                                 "holds)", max_loss_scale_log2)
                                   : std::string(),
                         rec.at_one.zero, rec.at_scale.zero, rec.at_one.subnormal, rec.at_scale.subnormal,
                         nothing_to_save ? std::string("no scaling needed: no value is zero or subnormal at scale 1")
                         : saved == 0    ? std::string("no value leaves or joins zero and subnormal")
                                    : fmt::format("{} {} from zero or subnormal", saved > 0 ? "saves" : "loses",
                                                  count_of(static_cast<std::uint64_t>(std::llabs(saved)), "value", "values")));
    }
    out << '\n';
    for (std::size_t i = 0; i < formats.size(); ++i)
      if (at_k[i]) {
        block_text(out, *at_k[i], " (auto)");
        out << '\n';
      }
  }
  histogram_text(out, reports.front(), reports);
  if (!o.plot.empty()) out << fmt::format("Wrote {}\n", o.plot);
  return exit_success;
}

}  // namespace

command register_grads(CLI::App& app) {
  auto o = std::make_shared<grads_options>();
  CLI::App* cmd = app.add_subcommand(
      "grads", "Will a tensor dump survive FP16/BF16/FP8? Zero, subnormal, normal and overflow counts per format "
               "and loss scale, an exponent histogram, the largest safe power-of-two scale");
  cmd->add_option("FILE", o->file,
                  "A .npy, .npz or safetensors file, a directory of dumps, raw little-endian binary (with --dtype) or "
                  "text; - reads standard input")
      ->required();
  cmd->add_option("-f,--formats", o->formats, "Formats, separated by commas; known: " + lf::known_format_names())
      ->type_name("FORMATS")
      ->capture_default_str();
  cmd->add_option("--scale", o->scale,
                  "Loss scale S multiplied in before rounding: a positive number, 2^K, or auto (the largest power of "
                  "two that overflows nothing, per format)")
      ->type_name("S|auto")
      ->capture_default_str();
  cmd->add_option("--dtype", o->dtype, "Read FILE as raw little-endian binary of this type: " + std::string(dtype_names_help))
      ->type_name("TYPE");
  cmd->add_option("--select", o->select,
                  "With a .npz, safetensors file or directory: only the tensors whose name matches this regular "
                  "expression (ECMAScript, searched anywhere in the name)")
      ->type_name("REGEX");
  cmd->add_option("--plot", o->plot, "Also write the exponent histogram with each format's window as an SVG chart (with --recipe: "
                  "each recipe's RMS relative error along the tensor's blocks)")
      ->type_name("OUT.svg")
      ->check(CLI::Validator(
          [](std::string& path) -> std::string {
            // The chart is SVG only: a .png (or any other) name would get SVG bytes under a wrong name.
            const auto dot = path.rfind('.');
            std::string ext = dot == std::string::npos ? std::string() : path.substr(dot);
            for (char& c : ext) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
            if (ext == ".svg") return {};
            return "'" + path + "': the chart is written as SVG only; give a name ending in .svg (convert it to "
                   "PNG with e.g. rsvg-convert)";
          },
          "", "svg_name"));
  cmd->add_flag("--plot-log", o->plot_log, "With --plot: the counts on a log10 axis (small bins stay visible)");
  add_rounding_options(*cmd, o->rounding,
                       "grads needs a deterministic rounding (a value's class would depend on random bits)");
  cmd->add_flag("--json", o->json, "Print one JSON object instead of text (schema: see below)");
  cmd->add_option("--recipe", o->recipe.recipes,
                  "Instead of the range report: quantize the dump with these scaling recipes side by side "
                  "(repeatable or comma-separated): " + grads_recipes::recipe_names_help())
      ->type_name("NAMES")
      ->allow_extra_args(false);
  cmd->add_option("--shape", o->recipe.shape,
                  "With --recipe: the dump as a ROWSxCOLS row-major matrix (default: a .npy's shape, "
                  "(all but the last) x last; otherwise one row)")
      ->type_name("ROWSxCOLS");
  cmd->add_option("--role", o->recipe.role,
                  "With --recipe: which GEMM operand the dump is; chooses E4M3/E5M2 (HYBRID), block shapes and "
                  "NVFP4's stochastic rounding and Hadamard transform")
      ->check(CLI::IsMember({"activation", "weight", "gradient"}))
      ->type_name("ROLE")
      ->capture_default_str();
  cmd->add_option("--fp8-format", o->recipe.fp8_format,
                  "With --recipe: fp8-current and fp8-delayed in E4M3, or HYBRID (E5M2 for gradients), as TE's "
                  "Format")
      ->check(CLI::IsMember({"hybrid", "e4m3"}))
      ->type_name("hybrid|e4m3")
      ->capture_default_str();
  add_whole_number_option(*cmd, "--steps", o->recipe.steps,
                          "With --recipe fp8-delayed: the dump holds this many training steps' tensors, stacked "
                          "along its rows (one row: its values), quantized in order",
                          1, 1u << 20)
      ->type_name("N")
      ->capture_default_str();
  add_whole_number_option(*cmd, "--margin", o->recipe.margin,
                          "With --recipe fp8-delayed: scale = (fp8_max / amax) / 2^margin", 0, 64)
      ->type_name("M")
      ->capture_default_str();
  add_whole_number_option(*cmd, "--amax-history", o->recipe.history,
                          "With --recipe fp8-delayed: the amax history's length (TE amax_history_len)", 1, 1u << 20)
      ->type_name("LEN")
      ->capture_default_str();
  cmd->add_option("--amax-algo", o->recipe.amax_algo,
                  "With --recipe fp8-delayed: the history's max, or its most recent entry (TE amax_compute_algo)")
      ->check(CLI::IsMember({"max", "most_recent"}))
      ->type_name("max|most_recent")
      ->capture_default_str();
  cmd->footer([] {
    return std::string(R"(Input: FILE is read as NumPy .npy when it starts with \x93NUMPY or its name ends in .npy
(versions 1-3; '<f2', '<f4', '<f8', also '>' byte-swapped; C or Fortran order; any shape); else
as raw little-endian binary when --dtype is given (f16, f32, f64; --dtype is ignored for .npy);
else as text: one number per line (0.1, -1e-8, 0x1.8p-3, inf, nan; blank lines skipped), each
read as binary64. Files stream in 4 MiB chunks; a progress line appears on a terminal only.
Each value x is multiplied by S exactly and rounded once to each format under -r and the policy
options; NaN and infinite inputs are counted apart. Percentages are of all values read.
--scale auto reads the file twice: once at scale 1, once at each format's recommended 2^K
(checked exactly on the largest magnitudes) to say how many values it saves from zero or
subnormal. --plot draws the histogram at S (at 1 with auto).
--json prints one object (schema 1; stable, fields are only ever added):
  {"command":"grads","schema":1,"file","input":{"kind":"npy"|"raw"|"text","dtype":"f16"|"f32"|"f64",
   "count","bytes","shape":[...]|null,"fortran_order":bool|null},"rounding","nan","infinity",
   "exact_zero","results":[R...] (one per format, at S; at 1 with auto),"auto":null|[A...]}
  R = {"format","scale","log2_scale":int|null,"window":{"min_subnormal_exp","min_normal_exp",
   "max_exp"},"zero","subnormal","normal","overflow","fractions":{"zero","subnormal","normal",
   "overflow"} (of all values),"histogram":{"min_exponent","max_exponent","below","above",
   "bins":[[exponent,count],...]}} (exponents floor(log2|x*S|), bins from -256 to 255)
  A = {"format","log2_scale":int|null,"scale","at_scale":R|null,"saved_from_zero",
   "saved_from_zero_or_subnormal","capped" (true: the largest safe scale was above 2^127,
   the largest a float32 loss scale holds)}
--recipe NAMES replaces the range report with scaling recipes side by side (lf::training,
training/scaling_recipes.hpp): fp8-current, fp8-delayed (TE Float8CurrentScaling, DelayedScaling:
one FP32 scale per tensor; E5M2 for --role gradient under --fp8-format hybrid, else E4M3),
fp8-blockwise (DeepSeek-V3: E4M3, 1x128 tiles, 128x128 for weights), mxfp8 (E4M3, an E8M0 scale
per 32 values rounded up, as NVIDIA's MXFP8 recipe), mxfp8-ocp (OCP MX's floor scale), nvfp4
(E2M1, an E4M3 scale per 16 values, 16x16 for weights, an FP32 tensor scale; for gradients a
16-point random Hadamard transform and stochastic rounding, both seeded by --seed). The whole
file is read into memory as binary32 (f64 values rounded); --shape ROWSxCOLS gives the matrix
(default: a .npy's (all but the last) x last dimension, else one row). fp8-delayed's first step
has an empty amax history and uses scale 1; --steps N splits the rows into N steps.
Per recipe: zero (nonzero, became 0), saturated (the rounding overflowed: clamped to max),
inexact, exact; errors in double; the scales, as TE's (x * scale is rounded). --plot draws each
recipe's RMS relative error along the tensor's blocks. --json (recipe mode) prints the object
above with "results":[] and "auto":null, plus "matrix":{"rows","cols"},"role","fp8_format",
"seed","rounded_to_f32","recipes":[Q...]:
  Q = {"recipe","format","scale_format","block":[rows,cols],"blocks","rounding":"nearest_even"|
   "stochastic","hadamard","zero","saturated","inexact","exact","nonfinite","nan_block",
   "fractions":{"zero","saturated","inexact","exact"} (of all values),"error":{"max_abs",
   "rms_abs","max_rel","rms_rel"},"scale":{"min","max","blocks"} (over blocks holding a nonzero
   finite value; null if none),"tensor_scale":null|T (nvfp4),"steps":null|[{"step","scale",
   "amax","saturated"}] (fp8-delayed)}
Many tensors: a .npz (stored or deflated members), a safetensors file (F64, F32, F16, BF16,
F8_E4M3, F8_E5M2; integer tensors are listed as skipped) or a directory (every .npy, .npz,
safetensors, *.txt/*.csv text and, with --dtype, *.bin/*.raw file in it, sorted) give one row
per tensor, worst first (lost = zero + subnormal + overflow, the most over the formats), with
zero, subnormal, overflow and the largest safe power-of-two scale per format; --select REGEX
(ECMAScript) keeps the tensors whose name it matches. --json then prints an array, one object
per tensor: {"name","file","kind","dtype","shape","skipped":null|TEXT,"count","nan","infinity",
"exact_zero","lost","results":[R...],"safe_scale":[{"format","log2_scale","capped"}]}.
--recipe and --plot are per file (one tensor). torch.save files are refused, never unpickled.
FILE - reads standard input (recognized by its first bytes). --dtype also takes bf16
(u16-as-bf16), e4m3 (OCP e4m3fn) and e5m2; text may hold several numbers per line separated
by blanks or commas (numpy.savetxt), '#' lines are comments.
Exit status: 0 success, 2 bad usage or input (unknown format or recipe, bad --scale or --shape,
missing or empty file, bad .npy magic, truncated header, unsupported dtype, shape not matching
the file size, a field that is not a number, a damaged zip or safetensors file, a zip entry
over the 1100:1 compression limit, a bad --select), with the file position in the message.

Examples:
  floatlab grads grads.npy                          # fp16, bf16, e4m3, e5m2 at scale 1
  floatlab grads grads.npy -f fp16 --scale 1024     # what loss scale 2^10 does in fp16
  floatlab grads grads.npy --scale auto --plot grads.svg
  floatlab grads dump.bin --dtype f32 -f bf16,e4m3 --json | python3 -m json.tool
  floatlab grads model.safetensors -f bf16,e4m3 --select 'attn'
  cat grads.npz | floatlab grads - -f fp16
  printf '1e-8\n0.5\n70000\n' > g.txt && floatlab grads g.txt -f fp16
  floatlab grads grads.npy --recipe fp8-current,mxfp8,nvfp4 --role gradient
  floatlab grads acts.npy --recipe fp8-delayed --steps 8 --role activation --json)");
  });
  return {cmd, [o, cmd] { return run_grads(*o, *cmd); }};
}

const register_command registered_grads{50, register_grads};

}  // namespace floatlab
