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
#include <string>
#include <vector>

#include <fmt/core.h>

#include <libfloat/training/range_report.hpp>

#include "commands.hpp"
#include "grads_recipes.hpp"
#include "svg_plot.hpp"
#include "tensor_file.hpp"

namespace floatlab {

namespace {

struct grads_options {
  std::string file;
  std::string formats = "fp16,bf16,e4m3,e5m2";
  std::string scale = "1";
  std::string dtype;
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

void check_mode_options(const grads_options& o, const CLI::App& cmd) {
  const bool recipes = !o.recipe.recipes.empty();
  for (const char* name : recipes ? range_only_options : recipe_only_options)
    if (cmd.count(name) > 0)
      throw usage_error(recipes ? std::string(name) + ": not used with --recipe (each recipe chooses its own formats, "
                                                      "scales and rounding); drop it, or drop --recipe"
                                : std::string(name) + ": only used with --recipe (e.g. --recipe " +
                                      grads_recipes::recipe_names_help() + ")");
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

int run_grads(const grads_options& o, const CLI::App& cmd) {
  check_mode_options(o, cmd);
  if (o.plot_log && o.plot.empty()) throw usage_error("--plot-log changes the --plot chart; give --plot OUT.svg too");
  if (o.plot_log && !o.recipe.recipes.empty())
    throw usage_error("--plot-log applies to the exponent histogram; the --recipe chart is on a log10 axis already");
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

  std::vector<lf::training::range_target> targets;
  for (const lf::format& f : formats) targets.push_back({f, fixed ? *fixed : lf::training::scale_factor{}, e});
  tensor_info info;
  const lf::training::range_counter first = count_file(o, targets, raw, info, automatic ? "pass 1 of 2: " : "");
  std::vector<lf::training::range_report> reports;
  for (std::size_t i = 0; i < formats.size(); ++i) reports.push_back(first.report(i));

  // --scale auto: the largest safe power of two per format, then one more pass at those scales.
  std::vector<std::optional<int>> ks;
  std::vector<char> capped;
  constexpr int max_loss_scale_log2 = 127;
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
  cmd->add_option("FILE", o->file, "A .npy file, raw little-endian binary (with --dtype) or text, one number per line")
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
Exit status: 0 success, 2 bad usage or input (unknown format or recipe, bad --scale or --shape,
missing or empty file, bad .npy magic, truncated header, unsupported dtype, shape not matching
the file size, a line that is not a number), with the file position in the message.

Examples:
  floatlab grads grads.npy                          # fp16, bf16, e4m3, e5m2 at scale 1
  floatlab grads grads.npy -f fp16 --scale 1024     # what loss scale 2^10 does in fp16
  floatlab grads grads.npy --scale auto --plot grads.svg
  floatlab grads dump.bin --dtype f32 -f bf16,e4m3 --json | python3 -m json.tool
  printf '1e-8\n0.5\n70000\n' > g.txt && floatlab grads g.txt -f fp16
  floatlab grads grads.npy --recipe fp8-current,mxfp8,nvfp4 --role gradient
  floatlab grads acts.npy --recipe fp8-delayed --steps 8 --role activation --json)");
  });
  return {cmd, [o, cmd] { return run_grads(*o, *cmd); }};
}

const register_command registered_grads{50, register_grads};

}  // namespace floatlab
