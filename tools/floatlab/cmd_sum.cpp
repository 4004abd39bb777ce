// floatlab sum: a sum under several accumulation models side by side, each result's error
// against the exact sum, and (--trace) where the partial sums stall. Shared code: accum_cli.hpp.
#include <memory>
#include <string>

#include "accum_cli.hpp"
#include "commands.hpp"

namespace floatlab {

command register_sum(CLI::App& app) {
  auto o = std::make_shared<accum::vector_options>();
  CLI::App* cmd = app.add_subcommand("sum", "Sum numbers under several accumulation models and matrix units side "
                                            "by side, with each result's error against the exact sum");
  accum::add_vector_options(*cmd, *o, /*is_dot=*/false);
  cmd->footer([] {
    return std::string(accum::error_columns_help) + R"(
A sum on a matrix unit is its dot product with a vector of ones.
Exit status: 0 success; 2 bad usage or input (an unknown model or format, a line that is not a
number ("FILE:LINE: ..."), an empty file, a bad size).

)" + std::string(accum::json_schema_help) + R"(

Examples:
  floatlab sum --dist ones --n 4096 --model fp16-acc,fp32-acc,exact --trace
      # 4096 ones in an fp16 accumulator: the trace shows where the sum stalls
  floatlab sum --dist normal --mean 1 --stddev 0.5 --n 100000 --model fp16-acc,fp16-pairwise,fp16-kahan,exact
  floatlab sum gradients.txt --input-format bf16 --model bf16-acc,bf16-fp32-acc,exact --json
  floatlab sum --model list)";
  });
  return {cmd, [cmd, o] { return accum::run_vector_command(*cmd, *o, /*is_dot=*/false); }};
}

const register_command registered_sum{70, register_sum};

}  // namespace floatlab
