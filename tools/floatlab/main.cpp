// floatlab: explore floating-point rounding. This file sets up the application; each subcommand
// lives in its own cmd_<name>.cpp (see commands.hpp).
#include <algorithm>
#include <cstdio>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <CLI/CLI.hpp>

#include "commands.hpp"
#include "common.hpp"

int main(int argc, char** argv) {
  using namespace floatlab;
  CLI::App app{"floatlab: explore floating-point rounding with libfloat", "floatlab"};
  // CLI11 2.1 writes a positional that takes 0 to 2 words as "[FILE(0x)]"; say "[FILE...]" (dot, gemm).
  struct usage_formatter : CLI::Formatter {
    std::string make_option_usage(const CLI::Option* opt) const override {
      if (opt->get_expected_max() <= 1 || opt->get_expected_min() == opt->get_expected_max())
        return CLI::Formatter::make_option_usage(opt);
      const std::string text = make_option_name(opt, true) + "...";
      return opt->get_required() ? text : "[" + text + "]";
    }
  };
  app.formatter(std::make_shared<usage_formatter>());
  app.set_version_flag("--version", "floatlab " LIBFLOAT_VERSION);
  app.require_subcommand(1);

  std::vector<command> commands;
  for (const command_registration& r : registered_commands()) commands.push_back(r.factory(app));

  app.footer(
      "Examples:\n"
      "  floatlab show 0.1 -f bf16                    # what 0.1 becomes in bfloat16, and why\n"
      "  floatlab range -f fp16,bf16,e4m3             # max, min normal, min subnormal, epsilon, ...\n"
      "  floatlab calc \"1 + 1e-4\" -f fp16 --steps     # every rounding of an expression\n"
      "  floatlab grads grads.npy --scale auto        # will this gradient dump survive fp16?\n"
      "  floatlab dot --n 4096 --model fp16-acc,fp32-acc,ampere_fp16,exact\n"
      "  echo \"3C00 3C00\" | floatlab eval f16_add     # TestFloat line: operands, result, flags\n"
      "  gzip -dc f16_add.minMag.tv.gz | floatlab check f16_add -r minMag\n"
      "Run 'floatlab SUBCOMMAND --help' for the options of each.\n"
      "Exit status: 0 success, 1 a check found differences, 2 bad usage or input.");

  // --version anywhere (floatlab show --version too) prints the version, as the top level does.
  for (int i = 1; i < argc && std::string_view(argv[i]) != "--"; ++i)
    if (std::string_view(argv[i]) == "--version") {
      std::printf("floatlab %s\n", LIBFLOAT_VERSION);
      return exit_success;
    }

  // Name an unknown subcommand instead of CLI11's generic "A subcommand is required".
  if (argc > 1 && argv[1][0] != '-') {
    bool known = false;
    std::string names;
    for (const command& c : commands) {
      known = known || c.app->get_name() == argv[1];
      names += (names.empty() ? "" : ", ") + c.app->get_name();
    }
    if (!known) {
      std::fprintf(stderr, "floatlab: unknown subcommand '%s' (accepted: %s; see floatlab --help)\n", argv[1],
                   names.c_str());
      return exit_usage;
    }
  }

  // calc's EXPR may start with '-': "-(1+2)", "-sqrt(2)", "-.5". CLI11 would read such a word as
  // options and then report "EXPR is required". A word that starts with one '-' and then '.', or
  // holds a parenthesis, a space or an operator other than a sign (so it is neither an option nor a number,
  // such as the value in --seed -1, which CLI11 reads and refuses itself) is moved after a "--",
  // where CLI11 takes it as the positional EXPR.
  std::vector<std::string> words(argv, argv + argc);
  if (argc > 1 && words[1] == "calc" && std::find(words.begin(), words.end(), "--") == words.end()) {
    const auto is_expression = [](const std::string& w) {
      if (w.size() < 2 || w[0] != '-' || w[1] == '-') return false;
      return w[1] == '.' || w.find_first_of("()+*/ ,", 1) != std::string::npos;
    };
    const auto it = std::find_if(words.begin() + 2, words.end(), is_expression);
    if (it != words.end()) {
      std::string expression = *it;
      words.erase(it);
      words.push_back("--");
      words.push_back(std::move(expression));
    }
  }
  std::vector<char*> args;
  for (auto& w : words) args.push_back(w.data());

  try {
    app.parse(static_cast<int>(args.size()), args.data());
  } catch (const CLI::ParseError& e) {
    // --help and --version are "errors" with exit code 0; every real usage error exits 2, with the
    // same "floatlab: " prefix as the subcommands' own errors.
    if (e.get_exit_code() == 0) return app.exit(e) == 0 ? exit_success : exit_usage;
    std::string where = "floatlab";
    for (const command& c : commands)
      if (c.app->parsed()) where += " " + c.app->get_name();
    std::fflush(stdout);
    std::fprintf(stderr, "floatlab: %s (see '%s --help')\n", e.what(), where.c_str());
    return exit_usage;
  }

  try {
    for (const command& c : commands)
      if (c.app->parsed()) return c.run();
  } catch (const usage_error& e) {
    std::fflush(stdout);
    std::fprintf(stderr, "floatlab: %s\n", e.what());
    return exit_usage;
  }
  return exit_usage;  // unreachable: require_subcommand(1)
}
