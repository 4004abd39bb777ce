// floatlab stagnation: the weight-update experiment of Micikevicius et al. 2018 (lf::training,
// training/amp.hpp): w <- round_W(w + u) for N steps, in each weight format, and why updates are lost.
#include <bit>
#include <cmath>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <fmt/core.h>

#include "commands.hpp"
#include "explore.hpp"

namespace floatlab {

namespace {

/// Most steps one run may ask for: a deterministic run stops at the first lost step (a fixed
/// point), but a run that never stalls, or a stochastic one, costs one addition per step.
constexpr std::int64_t max_stagnation_steps = 1'000'000'000;

struct stagnation_options {
  std::string weight = "1";
  std::string update = "1e-4";
  std::string steps = "10000";
  std::string formats = "fp16,bf16,fp32";
  std::string update_format;  // empty: the same as each weight format
  rounding_options rounding;
  bool bits = false;
  bool json = false;
};

/// A count given on the command line, in [1, max] (the shared reader: see common.hpp).
std::int64_t count_or_throw(const std::string& text, std::string_view option, std::int64_t max) {
  return static_cast<std::int64_t>(whole_number_or_throw(text, option, 1, static_cast<std::uint64_t>(max)));
}

/// `text` wrapped at spaces to lines of at most `width` bytes, later lines starting with `indent`.
/// (Like explore.hpp's wrap, written with appends only: GCC 12 -O3 reports a false -Wrestrict on
/// `"literal" + std::string` once that one is inlined here.)
std::string wrap_text(std::string_view text, std::size_t width, std::string_view indent) {
  std::string out, line;
  std::size_t limit = width, start = 0;
  while (start < text.size()) {
    std::size_t end = text.find(' ', start);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view word = text.substr(start, end - start);
    if (!line.empty() && line.size() + 1 + word.size() > limit) {
      if (!out.empty()) out.append(1, '\n').append(indent);
      out.append(line);
      line.clear();
      limit = width > indent.size() ? width - indent.size() : 1;
    }
    if (!line.empty()) line.append(1, ' ');
    line.append(word);
    start = end + 1;
  }
  if (!line.empty()) {
    if (!out.empty()) out.append(1, '\n').append(indent);
    out.append(line);
  }
  return out;
}

/// A double as the shortest text that reads back to it (the library's printer).
std::string shortest(double d) { return lf::to_shortest(lf::binary64, std::bit_cast<std::uint64_t>(d)); }

/// "2^-11" for a positive power of two, else its shortest text.
std::string power_text(double d) {
  if (d > 0 && std::isfinite(d)) {
    int e = 0;
    const double m = std::frexp(d, &e);  // exact: splits the binary64 encoding
    if (m == 0.5) return "2^" + std::to_string(e - 1) + " = " + shortest(d);
  }
  return shortest(d);
}

struct run_result {
  lf::training::stagnation_result r;
  std::string reason;
};

/// The sentence that says why updates were or were not lost, from the computed numbers.
std::string reason_of(const lf::training::stagnation_result& r) {
  const lf::format& W = r.params.weight_format;
  const std::string wname = lf::format_name(W);
  const lf::rounding mode = r.params.e.mode;
  const double u = std::fabs(r.update_value);
  const std::string u_text = value_text(r.params.update_format, lf::abs(r.params.update_format, r.params.update));
  if (!is_finite(W, r.final_bits))
    return "w left the finite range of " + wname + " (it is now " + lf::to_shortest(W, r.final_bits) +
           "): the sum overflowed, and " + lf::to_shortest(W, r.final_bits) + " + u stays " +
           lf::to_shortest(W, r.final_bits) + ".";
  if (r.update_value == 0) return "the update is zero: nothing to add.";
  const bool up = r.update_value > 0;
  // Where the weight stood when updates started being lost (deterministic modes stop there), or
  // the final weight.
  const lf::bits_t at = r.first_lost_step == 1 ? r.params.weight : r.final_bits;
  const double hg = lf::training::half_gap(W, at, up);
  const double hu = lf::training::half_ulp(W, at);
  const std::string w_text = value_text(W, at);
  const std::string threshold =
      hg == hu ? "half an ulp of w = " + w_text + " in " + wname + " is " + power_text(hg)
               : "w = " + w_text + " is a power of two, so the gap below it is half an ulp: half of that gap is " +
                     power_text(hg);
  const double ratio = lf::training::stagnation_ratio(W);
  const std::string rule = "(rule of thumb, Micikevicius et al. 2018: an update is lost once |w| >= " +
                           shortest(ratio) + " |u|, " + shortest(ratio) + " = 2^p for " + wname + ")";
  const std::string lost = std::to_string(r.lost_steps) + " of " + std::to_string(r.params.steps);
  switch (mode) {
    case lf::rounding::stochastic:
      return "stochastic rounding: each step rounds away from w with a probability equal to the discarded "
             "fraction, so small updates still move w on average; " + lost + " steps were lost.";
    case lf::rounding::nearest_even:
    case lf::rounding::nearest_away:
      if (r.lost_steps == 0)
        return "no update lost: |u| = " + u_text + " stayed above the rounding threshold; at the final w, " + threshold +
               ". " + rule;
      if (r.first_lost_step == 1)
        return "every update lost: " + threshold + ", and |u| = " + u_text + (u < hg ? " is below it" : " is not above it") +
               ", so w + u rounds back to w. " + rule;
      return "w moved for " + std::to_string(r.first_lost_step - 1) + " steps, then stalled: " + threshold +
             ", and |u| = " + u_text + (u < hg ? " is below it" : " is not above it") + ". " + rule;
    default: break;
  }
  return std::string("directed rounding (") + std::string(lf::rounding_name(mode)) +
         "): w + u is rounded to one of its two neighbours by direction, not by distance; the gap on u's side of w = " +
         w_text + " is " + power_text(2 * hg) + ", and " + lost + " steps were lost.";
}

run_result run_one(const stagnation_options& o, const lf::format& W, const lf::format& U, std::int64_t steps) {
  lf::env e = o.rounding.env();
  // Numbers are rounded into their format under -r; under stochastic rounding, to nearest even
  // (the random words belong to the steps).
  lf::env parse_env = e;
  if (parse_env.mode == lf::rounding::stochastic) parse_env.mode = lf::rounding::nearest_even;
  const number_argument w = parse_number_argument(W, o.weight, o.bits, parse_env, "--weight");
  if (!w) throw usage_error(w.error);
  const number_argument u = parse_number_argument(U, o.update, o.bits, parse_env, "--update");
  if (!u) throw usage_error(u.error);
  lf::training::stagnation_params p;
  p.weight_format = W;
  p.update_format = U;
  p.weight = w.bits;
  p.update = u.bits;
  p.steps = steps;
  p.e = e;
  p.seed = o.rounding.seed;
  run_result out{lf::training::simulate_stagnation(p), {}};
  out.reason = reason_of(out.r);
  return out;
}

std::string render_text(const run_result& x, const palette& colour) {
  const lf::training::stagnation_result& r = x.r;
  const lf::format& W = r.params.weight_format;
  const lf::format& U = r.params.update_format;
  std::string out = fmt::format("{}{} weight, {} update{} ({})\n", colour.bold, lf::format_name(W), lf::format_name(U),
                                colour.reset, lf::rounding_name(r.params.e.mode));
  auto row = [&](std::string_view label, const std::string& text) {
    out += "  " + fmt::format("{:<11}", label) + " " + wrap_text(text, 66, "              ") + "\n";
  };
  row("w0", value_text(W, r.params.weight) + "  (" + hex_of(W, r.params.weight) + ")");
  row("u", value_text(U, r.params.update) + "  (" + hex_of(U, r.params.update) + ")");
  row("final w", value_text(W, r.final_bits) + "  (" + hex_of(W, r.final_bits) + ")");
  const lf::bits_t exact_bits = std::bit_cast<std::uint64_t>(r.exact_value);
  row("exact", (r.exact_value_is_exact ? value_text(lf::binary64, exact_bits, 40) : "≈" + shortest(r.exact_value)) + "  (w0 + " +
                   std::to_string(r.params.steps) + " u)");
  if (std::isfinite(r.error))
    row("error", (r.error == 0 ? "0" : shortest(r.error)) + "  (relative " + shortest(r.relative_error) + ")");
  const bool all = r.lost_steps == r.params.steps;
  row("steps lost", std::string(r.lost_steps ? (all ? colour.red : colour.bold) : colour.green) +
                        std::to_string(r.lost_steps) + " of " + std::to_string(r.params.steps) + std::string(colour.reset) +
                        (r.first_lost_step ? ", the first at step " + std::to_string(r.first_lost_step) : ""));
  row("flags", flags_text(r.flags));
  out += "  " + wrap_text(x.reason, 78, "  ") + "\n";
  return out;
}

void render_json(json_writer& j, const run_result& x) {
  const lf::training::stagnation_result& r = x.r;
  const lf::format& W = r.params.weight_format;
  const lf::format& U = r.params.update_format;
  auto value_object = [&](const lf::format& f, lf::bits_t b) -> json_writer& {
    return j.begin_object().field("bits", hex_of(f, b)).field("exact", lf::to_exact_decimal(f, b))
        .field("shortest", lf::to_shortest(f, b)).end_object();
  };
  j.begin_object();
  j.field("weight_format", lf::format_name(W)).field("update_format", lf::format_name(U));
  j.key("initial");
  value_object(W, r.params.weight);
  j.key("update");
  value_object(U, r.params.update);
  j.key("final");
  value_object(W, r.final_bits);
  j.field("exact_value", shortest(r.exact_value)).field("exact_value_is_exact", r.exact_value_is_exact);
  j.field("error", shortest(r.error)).field("relative_error", shortest(r.relative_error));
  j.field("steps_lost", static_cast<long long>(r.lost_steps));
  j.key("first_lost_step");
  if (r.first_lost_step) j.value(static_cast<long long>(r.first_lost_step));
  else j.null();
  j.field("half_ulp_initial", shortest(r.half_ulp_initial)).field("half_ulp_final", shortest(r.half_ulp_final));
  j.field("stagnation_ratio", shortest(lf::training::stagnation_ratio(W)));
  j.key("flags").strings(flag_names(r.flags));
  j.field("reason", x.reason);
  j.end_object();
}

int run_stagnation(const stagnation_options& o) {
  const std::vector<lf::format> formats = format_list_or_throw(o.formats, "-f/--formats");
  std::optional<lf::format> update_format;
  if (!o.update_format.empty()) update_format = format_or_throw(o.update_format, "--update-format");
  const std::int64_t steps = count_or_throw(o.steps, "--steps", max_stagnation_steps);
  std::vector<run_result> results;
  for (const lf::format& W : formats) results.push_back(run_one(o, W, update_format.value_or(W), steps));

  output_buffer out;
  if (o.json) {
    json_writer j;
    j.begin_object().field("command", "stagnation").field("weight", o.weight).field("update", o.update);
    j.field("steps", static_cast<long long>(steps)).field("rounding", lf::rounding_name(o.rounding.env().mode));
    j.key("results").begin_array();
    for (const run_result& r : results) render_json(j, r);
    j.end_array().end_object();
    out << j.str() << '\n';
    return exit_success;
  }
  const palette colour = palette::for_stream(stdout);
  out << fmt::format("w <- round(w + u), {} steps, from w0 = {} with u = {}\n", steps, o.weight, o.update);
  for (const run_result& r : results) out << '\n' << render_text(r, colour);
  return exit_success;
}

}  // namespace

command register_stagnation(CLI::App& app) {
  auto o = std::make_shared<stagnation_options>();
  CLI::App* cmd = app.add_subcommand("stagnation", "Weight-update stagnation: add a small update to a weight N times "
                                                   "in each format and see how many updates are lost, and why");
  cmd->add_option("--weight", o->weight, "The initial weight w0 (see Numbers below)")->type_name("W")->capture_default_str();
  cmd->add_option("--update", o->update, "The update u added at every step")->type_name("U")->capture_default_str();
  cmd->add_option("--steps", o->steps, "How many steps, 1 to " + std::to_string(max_stagnation_steps))
      ->type_name("N")
      ->capture_default_str();
  cmd->add_option("-f,--formats", o->formats,
                  "Weight formats, separated by commas (fp32 is an fp32 master weight); known: " + lf::known_format_names())
      ->type_name("FORMATS")
      ->capture_default_str();
  cmd->add_option("--update-format", o->update_format,
                  "The format the update is computed in (default: the weight's format)")
      ->type_name("FORMAT");
  cmd->add_flag("--bits", o->bits,
                "--weight and --update are raw encodings in hex of the weight format and the update format");
  add_rounding_options(*cmd, o->rounding);
  cmd->add_flag("--json", o->json, std::string(json_option_help));
  cmd->footer([] {
    const palette none{};
    stagnation_options d;
    d.formats = "fp16";
    const std::string fp16 = render_text(run_one(d, lf::binary16, lf::binary16, 10000), none);
    stagnation_options m;
    m.update = "1e-3";
    const std::string stall = render_text(run_one(m, lf::binary16, lf::binary16, 10000), none);
    return fmt::format(R"({}

Each step computes w + u exactly and rounds it once into the weight format under -r (lf::add, or
the exact accumulator when the update format differs). A step is lost when the rounded sum is w
again; a deterministic rounding then never moves again, so the rest are counted without being
run. "exact" is w0 + N u with u as stored in its format (≈: rounded to binary64 for display);
error = final w - exact. Under -r stochastic, step k draws the k-th output of std::mt19937(--seed),
and the numbers are rounded to nearest even.
--json prints {{"command":"stagnation","weight","update","steps","rounding","results":[R...]}}, one R
per weight format, in -f order:
  {{"weight_format", "update_format", "initial", "update", "final": {{"bits", "exact", "shortest"}},
   "exact_value", "exact_value_is_exact": bool, "error", "relative_error" (decimal texts),
   "steps_lost", "first_lost_step": integer or null, "half_ulp_initial", "half_ulp_final",
   "stagnation_ratio" (2^p), "flags": [names], "reason"}}
Exit status: 0 success, 2 bad usage: an unknown format, a malformed number, steps out of range.

Examples:
  floatlab stagnation                      # fp16, bf16 and an fp32 master weight, w = 1, u = 1e-4
  floatlab stagnation -f fp16
{}  floatlab stagnation -f fp16 --update 1e-3          # moves, then stalls
{}  floatlab stagnation -f fp16 -r stochastic --seed 3  # stochastic rounding keeps moving
  floatlab stagnation -f bf16 --update-format fp32 --json)",
                       number_argument_help, fp16, stall);
  });
  return {cmd, [o] { return run_stagnation(*o); }};
}

const register_command registered_stagnation{61, register_stagnation};

}  // namespace floatlab
