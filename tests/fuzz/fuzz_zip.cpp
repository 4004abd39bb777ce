// libFuzzer target for floatlab's zip reader (tools/floatlab/zip_reader.hpp), as .npz files use it:
// zip_list() on arbitrary bytes, then zip_read() of every entry it accepts (stored or deflated,
// CRC-32 and size checked), and the .npz member decoder (dump_reader.hpp's npy_stream) on what
// it yields. Any exception other than tensor_error, any crash or sanitizer report is a bug; so is
// an entry that streams more bytes than its declared size.
//
// Built with clang only: tests/fuzz/run_all.sh (-fsanitize=fuzzer,address,undefined, -lz).
#include <cstddef>
#include <cstdint>

#include "../../tools/floatlab/dump_reader.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::span<const unsigned char> bytes(data, size);
  try {
    const std::vector<floatlab::zip_entry> entries = floatlab::zip_list(bytes, "fuzz.npz");
    for (const floatlab::zip_entry& e : entries) {
      if (e.data_offset > size || e.compressed > size - e.data_offset) __builtin_trap();
      std::uint64_t got = 0, values = 0;
      const floatlab::chunk_sink sink = [&values](const floatlab::tensor_chunk& c) {
        values += c.f16.size() + c.f32.size() + c.f64.size();
      };
      floatlab::npy_stream npy("fuzz.npz: entry", e.size, &sink);
      try {
        floatlab::zip_read(
            bytes, e, "fuzz.npz",
            [&](const unsigned char* p, std::size_t n) {
              got += n;
              if (got > e.size) __builtin_trap();
              npy.feed(p, n);
            },
            64);
        if (got != e.size) __builtin_trap();
        if (npy.header && values != npy.header->count) __builtin_trap();
      } catch (const floatlab::tensor_error&) {
      }
    }
  } catch (const floatlab::tensor_error&) {
  }
  return 0;
}
