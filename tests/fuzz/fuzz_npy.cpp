// libFuzzer target for floatlab's tensor reader (tools/floatlab/tensor_file.hpp): the .npy
// preamble and header parser on arbitrary bytes and file sizes, then the whole reader on the
// bytes written to a file (as .npy, as raw f16/f32/f64 and as text), feeding a range_counter.
// Any exception other than tensor_error, any crash or sanitizer report is a bug.
//
// Built with clang only: tests/fuzz/run_all.sh (-fsanitize=fuzzer,address,undefined).
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>

#include <unistd.h>

#include <libfloat/training/range_report.hpp>

#include "../../tools/floatlab/tensor_file.hpp"

namespace {

void read_as(const std::string& path, std::optional<floatlab::dtype> raw) {
  static const lf::training::range_target targets[] = {{lf::binary16, {}, {}}, {lf::float8_e4m3fn, {}, {}}};
  static lf::training::range_counter c{std::span<const lf::training::range_target>(targets)};  // thresholds found once
  const std::uint64_t before = c.report(0).total();
  try {
    const floatlab::tensor_info info = floatlab::read_tensor(
        path, raw,
        [](const floatlab::tensor_chunk& ch) {
          c.add_binary16(ch.f16);
          c.add(ch.f32);
          c.add(ch.f64);
        },
        {}, 256);  // small chunks: exercise the chunk boundaries
    if (c.report(0).total() - before != info.count || c.report(1).total() != c.report(0).total()) __builtin_trap();
  } catch (const floatlab::tensor_error&) {
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::span<const unsigned char> bytes(data, size);
  // 1. The header parser with the true size and with sizes around it.
  for (std::uint64_t file_size : {std::uint64_t{size}, std::uint64_t{size} + 1, std::uint64_t{size} / 2,
                                   std::uint64_t{1} << 40}) {
    try {
      const floatlab::npy_header h = floatlab::parse_npy_header(bytes, file_size, "fuzz.npy");
      if (h.data_offset > size) __builtin_trap();  // the header must lie within the bytes given
      if (h.count * floatlab::dtype_size(h.type) != file_size - h.data_offset) __builtin_trap();
    } catch (const floatlab::tensor_error&) {
    }
  }
  // 2. The reader on a real file.
  static const std::string base = "/tmp/fuzz_npy_" + std::to_string(::getpid());
  for (const char* ext : {".npy", ".bin"}) {
    const std::string path = base + ext;
    std::FILE* f = std::fopen(path.c_str(), "wb");
    if (!f) return 0;
    std::fwrite(data, 1, size, f);
    std::fclose(f);
    if (ext[1] == 'n') read_as(path, std::nullopt);  // .npy: must be a .npy
    else {
      read_as(path, std::nullopt);  // magic, else text
      read_as(path, floatlab::dtype::f16);
      read_as(path, floatlab::dtype::f32);
      read_as(path, floatlab::dtype::f64);
      read_as(path, floatlab::dtype::bf16);
      read_as(path, floatlab::dtype::e4m3);
    }
    std::remove(path.c_str());
  }
  return 0;
}
