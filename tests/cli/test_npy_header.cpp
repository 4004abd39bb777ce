// floatlab's .npy header parser (tools/floatlab/tensor_file.hpp) on headers built byte by byte:
// what it accepts, and that each kind of damage is an error that names the byte and the cause.
// parse_npy_header takes the file size apart from the bytes, so these cases include a file size
// that disagrees with the bytes given (the fuzz_npy finding of 6136747: a header that ends past
// the file's end, with a shape of no elements, was accepted).
#include <doctest/doctest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "floatlab/tensor_file.hpp"

namespace {

/// A version 1.0 .npy preamble and header for `dict`, padded with spaces and a newline to a
/// multiple of 64 bytes as numpy writes it, followed by `data_bytes` zero bytes.
std::vector<unsigned char> npy_file(const std::string& dict, std::size_t data_bytes) {
  std::string header = dict;
  while ((10 + header.size() + 1) % 64 != 0) header += ' ';
  header += '\n';
  std::vector<unsigned char> out = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0};
  out.push_back(static_cast<unsigned char>(header.size() & 0xFF));
  out.push_back(static_cast<unsigned char>(header.size() >> 8));
  out.insert(out.end(), header.begin(), header.end());
  out.insert(out.end(), data_bytes, 0);
  return out;
}

/// The message parse_npy_header throws, or "" when it accepts the header.
std::string error_of(const std::vector<unsigned char>& bytes, std::uint64_t file_size) {
  try {
    floatlab::parse_npy_header(bytes, file_size, "t.npy");
  } catch (const floatlab::tensor_error& e) {
    return e.what();
  }
  return "";
}

bool contains(const std::string& s, const char* part) { return s.find(part) != std::string::npos; }

}  // namespace

TEST_CASE("parse_npy_header: a well-formed header gives dtype, shape, count and where the data starts") {
  const auto f = npy_file("{'descr': '<f2', 'fortran_order': False, 'shape': (3, 2), }", 12);
  const floatlab::npy_header h = floatlab::parse_npy_header(f, f.size(), "t.npy");
  CHECK(h.type == floatlab::dtype::f16);
  CHECK_FALSE(h.big_endian);
  CHECK(h.shape == std::vector<std::uint64_t>{3, 2});
  CHECK(h.count == 6);
  CHECK(h.data_offset == 128);  // 10 preamble bytes + 118 header bytes (the dict is 59)
  CHECK(h.data_offset + 12 == f.size());
}

TEST_CASE("parse_npy_header: a shape with no elements is accepted only when nothing follows the header") {
  const auto f = npy_file("{'descr': '<f4', 'fortran_order': False, 'shape': (0,), }", 0);
  const floatlab::npy_header h = floatlab::parse_npy_header(f, f.size(), "t.npy");
  CHECK(h.count == 0);
  CHECK(h.data_offset == f.size());
  // One byte too many after the header: the data size is wrong.
  const std::string extra = error_of(f, f.size() + 1);
  CHECK(contains(extra, "needs 0 data bytes after the header, the file has 1"));
}

TEST_CASE("parse_npy_header: a file that ends before its header does is a truncated header") {
  const auto f = npy_file("{'descr': '<f4', 'fortran_order': False, 'shape': (0,), }", 0);
  // All the header bytes are given, but the file is said to be shorter (the fuzz_npy case).
  const std::string short_file = error_of(f, f.size() - 1);
  CHECK(contains(short_file, "t.npy: byte 127: truncated .npy header"));
  CHECK(contains(short_file, "says 118 header bytes from byte 10, the file has 127 bytes"));
  // The bytes themselves stop inside the header.
  const std::vector<unsigned char> cut(f.begin(), f.begin() + 40);
  CHECK(contains(error_of(cut, cut.size()), "byte 40: truncated .npy header"));
  // ...inside the preamble, and inside the header length.
  CHECK(contains(error_of({0x93, 'N', 'U', 'M'}, 4), "ends inside the 8-byte preamble"));
  const std::vector<unsigned char> nine(f.begin(), f.begin() + 9);
  CHECK(contains(error_of(nine, 9), "ends inside the header length"));
}

TEST_CASE("parse_npy_header: data that does not match the shape is an error naming both sizes") {
  const auto f = npy_file("{'descr': '<f8', 'fortran_order': True, 'shape': (2,), }", 8);
  const std::string e = error_of(f, f.size());
  CHECK(contains(e, "t.npy: byte 128: shape (2,) of '<f8' needs 16 data bytes after the header, the file has 8"));
  // A shape whose byte count overflows 64 bits.
  const auto huge = npy_file("{'descr': '<f4', 'fortran_order': False, 'shape': (4294967296, 4294967296), }", 0);
  CHECK(contains(error_of(huge, huge.size()), "needs more than 2^64 data bytes"));
}
