// floatlab dot: a dot product under several accumulation models and matrix units (tensor-core
// block FMA) side by side, each result's error against the exact dot product. Shared code:
// accum_cli.hpp.
#include <memory>
#include <string>

#include "accum_cli.hpp"
#include "commands.hpp"

namespace floatlab {

command register_dot(CLI::App& app) {
  auto o = std::make_shared<accum::vector_options>();
  CLI::App* cmd = app.add_subcommand("dot", "Dot product under several accumulation models and matrix units side "
                                            "by side, with each result's error against the exact value");
  accum::add_vector_options(*cmd, *o, /*is_dot=*/true);
  cmd->footer([] {
    return std::string(accum::error_columns_help) + R"(
Generated data: a is drawn first, then b, from the same generator.
Exit status: 0 success; 2 bad usage or input (an unknown model or format, a line that is not a
number ("FILE:LINE: ..."), files of different lengths, an empty file, a bad size).

)" + std::string(accum::json_schema_help) + R"(

Examples:
  floatlab dot --n 4096 --dist normal --seed 7      # fp16 vs fp32 accumulation vs tensor cores
  floatlab dot --n 4096 --model fp32-acc,volta_fp16,ampere_fp16,hopper_fp16,blackwell_fp16,exact
  floatlab dot --n 4096 --model hopper_fp8,deepseek_fp8_promote128,exact   # FP8: scaled per tensor, e4m3
  floatlab dot --n 4096 --stddev 1e-4 --model hopper_fp8,mxfp8,mxfp4,nvfp4,exact   # block-scaled GEMM models
  floatlab dot --n 4096 --stddev 1e-4 --model hopper_fp8 --fp8-scaling none   # unscaled: tiny data becomes 0
  floatlab dot a.txt b.txt --input-format bf16 --model bf16-acc,ampere_bf16,exact
  floatlab dot pairs.txt --model fp16-acc --trace --trace-every 0 --json)";
  });
  return {cmd, [cmd, o] { return accum::run_vector_command(*cmd, *o, /*is_dot=*/true); }};
}

const register_command registered_dot{71, register_dot};

}  // namespace floatlab
