// libFuzzer target for floatlab's safetensors reader (tools/floatlab/safetensors.hpp): the header
// length, the JSON parser and every tensor's dtype, shape and data_offsets on arbitrary bytes,
// with the true file size and sizes around it; then every accepted floating-point tensor decoded
// (dump_reader.hpp's decode_values). Any exception other than tensor_error, any crash or
// sanitizer report is a bug; so is an accepted tensor whose data lies outside the file or
// overlaps another's.
//
// Built with clang only: tests/fuzz/run_all.sh (-fsanitize=fuzzer,address,undefined).
#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "../../tools/floatlab/dump_reader.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::span<const unsigned char> bytes(data, size);
  for (std::uint64_t file_size : {std::uint64_t{size}, std::uint64_t{size} / 2}) {
    try {
      const floatlab::st_file f = floatlab::parse_safetensors(bytes.first(static_cast<std::size_t>(file_size)), file_size, "fuzz.safetensors");
      std::uint64_t prev_end = 0;
      std::vector<std::pair<std::uint64_t, std::uint64_t>> ranges;
      for (const floatlab::st_tensor& t : f.tensors) {
        if (f.data_start + t.end > file_size || t.begin > t.end) __builtin_trap();
        if (t.count * t.item != t.end - t.begin) __builtin_trap();
        if (t.end > t.begin) ranges.emplace_back(t.begin, t.end);
        if (!t.type) continue;
        std::uint64_t n = 0;
        floatlab::decode_values(*t.type, false, data + f.data_start + t.begin, t.count,
                                [&n](const floatlab::tensor_chunk& c) { n += c.f16.size() + c.f32.size() + c.f64.size(); });
        if (n != t.count) __builtin_trap();
      }
      std::sort(ranges.begin(), ranges.end());
      for (const auto& [b, e] : ranges) {
        if (b < prev_end) __builtin_trap();
        prev_end = e;
      }
    } catch (const floatlab::tensor_error&) {
    }
  }
  return 0;
}
