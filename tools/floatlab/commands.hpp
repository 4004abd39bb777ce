// tools/floatlab/commands.hpp: the subcommands, one file each (cmd_<name>.cpp).
//
// To add a subcommand: write cmd_<name>.cpp defining `command register_<name>(CLI::App& app)`,
// which adds the subcommand with its options and returns how to run it; declare it here; add it
// to the list in main.cpp and the source to CMakeLists.txt.
#pragma once

#include "common.hpp"

namespace floatlab {

command register_eval(CLI::App& app);   // evaluate TestFloat cases read from the input
command register_check(CLI::App& app);  // compare TestFloat lines with the library's results

}  // namespace floatlab
