// floatlab: explore floating-point rounding. This file sets up the application; each subcommand
// lives in its own cmd_<name>.cpp (see commands.hpp).
#include <cstdio>
#include <vector>

#include <CLI/CLI.hpp>

#include "commands.hpp"
#include "common.hpp"

int main(int argc, char** argv) {
  using namespace floatlab;
  CLI::App app{"floatlab: explore floating-point rounding with libfloat", "floatlab"};
  app.set_version_flag("--version", "floatlab " LIBFLOAT_VERSION);
  app.require_subcommand(1);

  const std::vector<command> commands{
      register_eval(app),
      register_check(app),
  };

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // --help and --version are "errors" with exit code 0; every real usage error exits 2.
    return app.exit(e) == 0 ? exit_success : exit_usage;
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
