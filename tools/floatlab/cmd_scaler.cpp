// floatlab scaler: torch.amp.GradScaler's dynamic loss scale (lf::training::grad_scaler, training/amp.hpp) on a
// scripted or random overflow pattern: the scale at every step and the skipped steps.
#include <bit>
#include <cstdint>
#include <memory>
#include <random>
#include <set>
#include <string>
#include <vector>

#include <fmt/core.h>

#include "commands.hpp"
#include "explore.hpp"

namespace floatlab {

namespace {

/// Most steps one run prints.
constexpr std::int64_t max_scaler_steps = 1'000'000;

struct scaler_options {
  std::string steps = "40";
  std::string overflow_at;    // "3,17"
  std::string overflow_prob;  // "0.1"
  std::uint32_t seed = 1;
  std::string init_scale = "65536";  // 2^16, PyTorch's default
  std::string growth_factor = "2";
  std::string backoff_factor = "0.5";
  std::string growth_interval = "2000";
  bool json = false;
};

/// A whole number given on the command line, in [min, max] (the shared reader: see common.hpp).
std::int64_t integer_or_throw(std::string_view text, std::string_view what, std::int64_t min, std::int64_t max) {
  return static_cast<std::int64_t>(
      whole_number_or_throw(text, what, static_cast<std::uint64_t>(min), static_cast<std::uint64_t>(max)));
}

/// A number given on the command line, as a double (PyTorch takes these as Python floats).
double number_or_throw(const std::string& text, std::string_view option) {
  const number_argument n = parse_number_argument(lf::binary64, text, false, lf::env{}, option);
  if (!n) throw usage_error(n.error);
  return std::bit_cast<double>(n.bits);
}

/// The shortest text that reads back to the binary32 / binary64 value (the library's printer).
std::string text32(float f) { return lf::to_shortest(lf::binary32, std::bit_cast<std::uint32_t>(f)); }
std::string text64(double d) { return lf::to_shortest(lf::binary64, std::bit_cast<std::uint64_t>(d)); }
/// A binary32 value for JSON: the shortest text of the same value as a binary64 (exact widening),
/// so a reader that parses numbers as doubles gets the float32 value exactly.
std::string json32(float f) { return text64(static_cast<double>(f)); }

struct scaler_run {
  lf::training::grad_scaler_options options;
  std::vector<lf::training::scaler_step> steps;
  std::string pattern;  // how the overflows were chosen, in words
};

scaler_run compute(const scaler_options& o) {
  scaler_run run;
  const std::int64_t steps = integer_or_throw(o.steps, "--steps", 1, max_scaler_steps);
  lf::training::grad_scaler_options& opt = run.options;
  opt.init_scale = number_or_throw(o.init_scale, "--init-scale");
  opt.growth_factor = number_or_throw(o.growth_factor, "--growth-factor");
  opt.backoff_factor = number_or_throw(o.backoff_factor, "--backoff-factor");
  opt.growth_interval = integer_or_throw(o.growth_interval, "--growth-interval", 1, std::int64_t{1} << 31);
  // The scale is a float32 tensor: it must be a positive finite binary32 value.
  lf::status st{};
  const lf::bits_t s32 = lf::convert(lf::binary32, lf::binary64, std::bit_cast<std::uint64_t>(opt.init_scale), lf::env{}, st);
  const float scale32 = std::bit_cast<float>(static_cast<std::uint32_t>(s32));
  if (!(scale32 > 0) || !is_finite(lf::binary32, s32))
    throw usage_error("--init-scale '" + o.init_scale + "' must be positive and finite as a float32 (becomes " +
                      text32(scale32) + "; accepted: 0 < scale <= " + lf::to_shortest(lf::binary32, lf::binary32.max_finite_bits()) + ")");
  // torch.amp.GradScaler.__init__ asserts growth_factor > 1.0 and backoff_factor < 1.0.
  if (!(opt.growth_factor > 1.0) || !std::isfinite(opt.growth_factor))
    throw usage_error("--growth-factor '" + o.growth_factor + "' must be finite and greater than 1 (as GradScaler requires)");
  if (!(opt.backoff_factor > 0.0 && opt.backoff_factor < 1.0))
    throw usage_error("--backoff-factor '" + o.backoff_factor + "' must be between 0 and 1, both excluded (GradScaler requires < 1)");

  std::vector<bool> pattern(static_cast<std::size_t>(steps), false);
  if (!o.overflow_at.empty()) {
    std::set<std::int64_t> at;
    std::string_view list = o.overflow_at;
    std::size_t start = 0;
    for (;;) {
      const std::size_t comma = list.find(',', start);
      const std::string_view item = list.substr(start, comma == std::string_view::npos ? comma : comma - start);
      const std::int64_t k = integer_or_throw(item, "--overflow-at step", 1, steps);
      at.insert(k);
      pattern[static_cast<std::size_t>(k - 1)] = true;
      if (comma == std::string_view::npos) break;
      start = comma + 1;
    }
    run.pattern = "overflow at the steps given (--overflow-at)";
  } else if (!o.overflow_prob.empty()) {
    const double p = number_or_throw(o.overflow_prob, "--overflow-prob");
    if (!(p >= 0.0 && p <= 1.0))
      throw usage_error("--overflow-prob '" + o.overflow_prob + "' is not a probability (accepted: 0 to 1)");
    // Step k overflows when the k-th output of std::mt19937(seed), as a fraction of 2^32, is below p.
    std::mt19937 gen(o.seed);
    for (std::size_t k = 0; k < pattern.size(); ++k) pattern[k] = std::ldexp(static_cast<double>(gen()), -32) < p;
    run.pattern = "each step overflows with probability " + text64(p) + " (seed " + std::to_string(o.seed) + ")";
  } else {
    run.pattern = "no overflow (give --overflow-at or --overflow-prob)";
  }
  run.steps = lf::training::run_scaler(opt, pattern);
  return run;
}

std::vector<std::int64_t> skipped_steps(const scaler_run& run) {
  std::vector<std::int64_t> out;
  for (const auto& s : run.steps)
    if (s.skipped) out.push_back(s.step);
  return out;
}

std::string render_text(const scaler_run& run, const palette& colour) {
  const lf::training::grad_scaler_options& o = run.options;
  const lf::training::grad_scaler defaults;
  std::string out = fmt::format("{}GradScaler{}: init_scale {}, growth_factor {}, backoff_factor {},\n", colour.bold,
                                colour.reset, text32(run.steps.front().scale_used), text64(o.growth_factor),
                                text64(o.backoff_factor));
  out += fmt::format("growth_interval {}", o.growth_interval);
  if (o.growth_interval != defaults.options().growth_interval)
    out += fmt::format(" (PyTorch's default is {})", defaults.options().growth_interval);
  out += "\n" + run.pattern + "\n\n";
  auto line = [&out](std::string text) {  // right-trimmed
    text.erase(text.find_last_not_of(' ') + 1);
    out += text + "\n";
  };
  line(fmt::format("{:>5}  {:<7}  {:<9}  {:<13}  {:<15}  {:>7}  {}", "step", "grads", "optimizer", "scale",
                   "1/scale", "tracker", "update"));
  for (const auto& s : run.steps) {
    std::string event;
    switch (s.event) {
      case lf::training::scaler_event::backoff: event = "backoff x" + text64(o.backoff_factor); break;
      case lf::training::scaler_event::growth: event = "growth x" + text64(o.growth_factor); break;
      case lf::training::scaler_event::growth_blocked: event = "growth blocked"; break;
      case lf::training::scaler_event::none: break;
    }
    line(fmt::format("{:>5}  {}{:<7}  {:<9}{}  {:<13}  {:<15}  {:>7}  {}", s.step,
                     s.overflow ? colour.red : std::string_view{}, s.overflow ? "inf/NaN" : "finite",
                     s.skipped ? "skipped" : "step", s.overflow ? colour.reset : std::string_view{}, text32(s.scale_used),
                     text32(s.inverse_scale_used), s.tracker_after, event));
  }
  const std::vector<std::int64_t> skipped = skipped_steps(run);
  std::string list;
  for (std::int64_t k : skipped) {
    if (!list.empty()) list.append(", ");
    list.append(std::to_string(k));
  }
  out += fmt::format("\nskipped steps: {} ({} of {})\n", skipped.empty() ? "none" : list, skipped.size(), run.steps.size());
  out += "final scale: " + text32(run.steps.back().scale_after) + "\n";
  return out;
}

std::string render_json(const scaler_run& run) {
  const lf::training::grad_scaler_options& o = run.options;
  json_writer j;
  j.begin_object().field("command", "scaler");
  j.key("options").begin_object();
  j.key("init_scale").raw(json32(run.steps.front().scale_used));
  j.key("growth_factor").raw(text64(o.growth_factor));
  j.key("backoff_factor").raw(text64(o.backoff_factor));
  j.field("growth_interval", static_cast<long long>(o.growth_interval));
  j.end_object();
  j.field("pattern", run.pattern);
  j.key("steps").begin_array();
  for (const auto& s : run.steps) {
    j.begin_object().field("step", static_cast<long long>(s.step)).field("overflow", s.overflow).field("skipped", s.skipped);
    j.key("scale").raw(json32(s.scale_used));
    j.key("inverse_scale").raw(json32(s.inverse_scale_used));
    j.key("scale_after").raw(json32(s.scale_after));
    j.field("growth_tracker", static_cast<long long>(s.tracker_after));
    j.field("event", lf::training::scaler_event_name(s.event));
    j.end_object();
  }
  j.end_array();
  j.key("skipped_steps").begin_array();
  for (std::int64_t k : skipped_steps(run)) j.value(static_cast<long long>(k));
  j.end_array();
  j.key("final_scale").raw(json32(run.steps.back().scale_after));
  j.end_object();
  return j.str();
}

int run_scaler_command(const scaler_options& o) {
  const scaler_run run = compute(o);
  output_buffer out;
  if (o.json) out << render_json(run) << '\n';
  else out << render_text(run, palette::for_stream(stdout));
  return exit_success;
}

}  // namespace

command register_scaler(CLI::App& app) {
  auto o = std::make_shared<scaler_options>();
  CLI::App* cmd = app.add_subcommand("scaler", "Simulate torch.amp.GradScaler's dynamic loss scale on an overflow "
                                               "pattern: the scale at every step and the skipped steps");
  cmd->add_option("--steps", o->steps, "How many optimizer steps, 1 to " + std::to_string(max_scaler_steps))
      ->type_name("N")
      ->capture_default_str();
  auto* at = cmd->add_option("--overflow-at", o->overflow_at,
                             "Steps (from 1, separated by commas) whose gradients hold an inf or NaN")
                 ->type_name("K,...");
  auto* prob = cmd->add_option("--overflow-prob", o->overflow_prob,
                               "Instead: each step overflows with probability P (with --seed)")
                   ->type_name("P");
  at->excludes(prob);
  prob->excludes(at);
  add_whole_number_option(*cmd, "--seed", o->seed, "Seed of --overflow-prob's std::mt19937, 0 to 4294967295", 0, UINT32_MAX)
      ->type_name("N")
      ->capture_default_str();
  cmd->add_option("--init-scale", o->init_scale, "GradScaler init_scale (stored as float32)")
      ->type_name("S")
      ->capture_default_str();
  cmd->add_option("--growth-factor", o->growth_factor, "GradScaler growth_factor (> 1)")->type_name("G")->capture_default_str();
  cmd->add_option("--backoff-factor", o->backoff_factor, "GradScaler backoff_factor (between 0 and 1)")
      ->type_name("B")
      ->capture_default_str();
  cmd->add_option("--growth-interval", o->growth_interval, "GradScaler growth_interval: clean steps before growth")
      ->type_name("N")
      ->capture_default_str();
  cmd->add_flag("--json", o->json, std::string(json_option_help));
  cmd->footer([] {
    scaler_options ex;
    ex.steps = "12";
    ex.overflow_at = "3";
    ex.growth_interval = "4";
    const std::string example = render_text(compute(ex), palette{});
    return fmt::format(R"(Numbers: --init-scale, --growth-factor, --backoff-factor and --overflow-prob are read as
doubles (Python floats): a decimal (1e-3), a hex float (0x1p16), rounded once to binary64.

The model is torch._amp_update_scale_ (aten/src/ATen/native/cuda/AmpKernels.cu), with
torch/amp/grad_scaler.py's defaults: init_scale 2^16, growth_factor 2, backoff_factor 0.5,
growth_interval 2000. The scale is a float32; after each step:
  gradients held inf/NaN:  optimizer.step() skipped, scale = float(scale * backoff_factor),
                           growth tracker = 0;
  otherwise:               tracker + 1; when it reaches growth_interval, scale =
                           float(scale * growth_factor) if that is finite, and tracker = 0.
Products are computed in double and stored as float. Each row shows the scale the loss was
multiplied by at that step, 1/scale (what unscale_ multiplies the gradients by: computed in
double, stored as float), and the tracker after update(); "growth blocked" means
float(scale * growth_factor) was not finite, so the scale was kept.
--json prints {{"command":"scaler", "options": {{"init_scale", "growth_factor", "backoff_factor":
numbers, "growth_interval": integer}}, "pattern": text, "steps": [{{"step", "overflow": bool,
"skipped": bool, "scale", "inverse_scale", "scale_after": numbers, "growth_tracker": integer,
"event": "growth"|"growth_blocked"|"backoff"|"none"}}...], "skipped_steps": [integers],
"final_scale": number}}.
JSON numbers are the shortest decimals that read back to the same double (scales are float32
values, exact as doubles); the text table shows scales as the shortest float32 decimals.
Exit status: 0 success, 2 bad usage: a malformed number, steps out of range, a probability
outside [0, 1], a factor GradScaler would reject.

Examples:
  floatlab scaler --steps 12 --overflow-at 3 --growth-interval 4
{}  floatlab scaler --steps 40 --overflow-at 3,17 --growth-interval 8
  floatlab scaler --steps 1000 --overflow-prob 0.01 --seed 7 --json)",
                       example);
  });
  return {cmd, [o] { return run_scaler_command(*o); }};
}

const register_command registered_scaler{60, register_scaler};

}  // namespace floatlab
