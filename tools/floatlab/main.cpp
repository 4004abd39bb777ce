// floatlab: explore floating-point rounding. Placeholder entry point; subcommands come later.
#include <CLI/CLI.hpp>
#include <fmt/core.h>

int main(int argc, char** argv) {
    CLI::App app{"floatlab: explore floating-point rounding", "floatlab"};
    app.set_version_flag("--version", "floatlab " LIBFLOAT_VERSION);
    CLI11_PARSE(app, argc, argv);

    fmt::print("{}\n", app.get_description());
    return 0;
}
