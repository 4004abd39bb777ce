// tools/floatlab/commands.hpp: the subcommands, one file each (cmd_<name>.cpp).
//
// To add a subcommand: write cmd_<name>.cpp defining a function `command register_<name>(CLI::App&)`
// that adds the subcommand with its options and returns how to run it, and register it in that
// file with
//     const floatlab::register_command registered{ORDER, register_<name>};
// ORDER places it in `floatlab --help` (smaller first). CMakeLists.txt compiles every cmd_*.cpp,
// so no other file changes.
#pragma once

#include <algorithm>
#include <vector>

#include "common.hpp"

namespace floatlab {

using command_factory = command (*)(CLI::App& app);

struct command_registration {
  int order;  // position in --help: explore (show, range, table, calc) < training (grads, scaler,
              // stagnation) < accumulation (sum, dot, gemm) < conformance (eval, check)
  command_factory factory;
};

/// Every subcommand linked into the program, filled during static initialisation.
inline std::vector<command_registration>& command_registry() {
  static std::vector<command_registration> registry;
  return registry;
}

/// Adds a subcommand to the registry; define one at namespace scope in each cmd_<name>.cpp.
struct register_command {
  register_command(int order, command_factory factory) { command_registry().push_back({order, factory}); }
};

/// The registered factories sorted by their order.
inline std::vector<command_registration> registered_commands() {
  std::vector<command_registration> sorted = command_registry();
  std::stable_sort(sorted.begin(), sorted.end(),
                   [](const command_registration& a, const command_registration& b) { return a.order < b.order; });
  return sorted;
}

}  // namespace floatlab
