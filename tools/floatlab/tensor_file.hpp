// tools/floatlab/tensor_file.hpp: reading a tensor dump in constant memory, for `floatlab grads`.
//
// What a file is taken to be (in this order):
//   1. NumPy .npy (format versions 1.0, 2.0, 3.0) when it starts with the magic "\x93NUMPY", or
//      when its name ends in ".npy" (then a wrong magic is an error, not text);
//   2. raw little-endian binary of --dtype f16|f32|f64|bf16|e4m3|e5m2 when --dtype is given
//      (bf16, e4m3, e5m2 are widened exactly to binary32 through lf::convert);
//   3. text otherwise: numbers in lf::parse's grammar (0.1, 1e-8, 0x1.8p-3, inf, nan), one or
//      more per line separated by blanks or commas (numpy.savetxt's output), read as binary64
//      (correctly rounded); blank lines and lines starting with '#' are skipped; leading and
//      trailing spaces, tabs and a '\r' are ignored.
// The path "-" is standard input, read once into memory (stdin_bytes()).
// Containers of many tensors (.npz, safetensors, directories) are dump_reader.hpp's.
// .npy: descr '<f2', '<f4', '<f8' (also '|' or '=' as the byte order, read as little endian, and
// '>f2', '>f4', '>f8', byte-swapped); fortran_order True or False (the order does not matter for
// counting); any shape, including () (one value) and shapes with a 0 (no values). The data size
// must equal the product of the shape times the item size.
//
// Errors throw tensor_error, whose message names the file and the byte offset or line and column,
// says what was wrong and what is accepted. parse_npy_header() is a pure function of the bytes
// (the fuzz target tests/fuzz/fuzz_npy.cpp drives it).
#pragma once

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <libfloat/core/arith.hpp>
#include <libfloat/core/decimal.hpp>

namespace floatlab {

struct tensor_error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

enum class dtype : std::uint8_t { f16, f32, f64, bf16, e4m3, e5m2 };

inline std::string_view dtype_name(dtype d) {
  switch (d) {
    case dtype::f16: return "f16";
    case dtype::f32: return "f32";
    case dtype::f64: return "f64";
    case dtype::bf16: return "bf16";
    case dtype::e4m3: return "e4m3";
    case dtype::e5m2: return "e5m2";
  }
  return "?";
}
inline std::size_t dtype_size(dtype d) {
  switch (d) {
    case dtype::f16:
    case dtype::bf16: return 2;
    case dtype::f32: return 4;
    case dtype::f64: return 8;
    case dtype::e4m3:
    case dtype::e5m2: return 1;
  }
  return 1;
}

/// The libfloat format of each dtype (bf16: bfloat16; e4m3: OCP float8_e4m3fn; e5m2: float8_e5m2).
inline const lf::format& dtype_format(dtype d) {
  switch (d) {
    case dtype::f16: return lf::binary16;
    case dtype::f32: return lf::binary32;
    case dtype::f64: return lf::binary64;
    case dtype::bf16: return lf::bfloat16;
    case dtype::e4m3: return lf::float8_e4m3fn;
    case dtype::e5m2: return lf::float8_e5m2;
  }
  return lf::binary64;
}

inline constexpr std::string_view dtype_names_help =
    "f16|fp16 (float16), f32|fp32 (float32), f64|fp64 (float64), bf16 (bfloat16; also u16-as-bf16: uint16 words "
    "holding bfloat16 bits), e4m3 (OCP float8_e4m3fn), e5m2 (float8_e5m2)";

/// "f32", "float32", "f4", "bf16", "e4m3", ... -> dtype.
inline std::optional<dtype> dtype_by_name(std::string_view s) {
  if (s == "f16" || s == "fp16" || s == "float16" || s == "f2" || s == "half") return dtype::f16;
  if (s == "f32" || s == "fp32" || s == "float32" || s == "f4" || s == "float") return dtype::f32;
  if (s == "f64" || s == "fp64" || s == "float64" || s == "f8" || s == "double") return dtype::f64;
  if (s == "bf16" || s == "bfloat16" || s == "u16-as-bf16") return dtype::bf16;
  if (s == "e4m3" || s == "fp8-e4m3" || s == "e4m3fn" || s == "float8_e4m3fn") return dtype::e4m3;
  if (s == "e5m2" || s == "fp8-e5m2" || s == "float8_e5m2") return dtype::e5m2;
  return std::nullopt;
}

/// Widens n values of a narrow dtype (bf16, e4m3, e5m2: every value is a binary32 value) to
/// binary32, exactly, through tables decoded once with lf::convert.
inline void widen_to_f32(dtype d, const unsigned char* p, std::size_t n, float* out) {
  auto make = [](const lf::format& f, std::size_t entries) {
    std::vector<float> t(entries);
    for (std::size_t i = 0; i < entries; ++i) {
      lf::status st{};
      t[i] = std::bit_cast<float>(static_cast<std::uint32_t>(lf::convert(lf::binary32, f, i, lf::env{}, st)));
    }
    return t;
  };
  if (d == dtype::bf16) {
    static const std::vector<float> t = make(lf::bfloat16, 65536);
    for (std::size_t i = 0; i < n; ++i) out[i] = t[static_cast<std::size_t>(p[2 * i] | p[2 * i + 1] << 8)];
  } else if (d == dtype::e4m3) {
    static const std::vector<float> t = make(lf::float8_e4m3fn, 256);
    for (std::size_t i = 0; i < n; ++i) out[i] = t[p[i]];
  } else {
    static const std::vector<float> t = make(lf::float8_e5m2, 256);
    for (std::size_t i = 0; i < n; ++i) out[i] = t[p[i]];
  }
}

inline constexpr unsigned char npy_magic[6] = {0x93, 'N', 'U', 'M', 'P', 'Y'};

struct npy_header {
  int major = 1, minor = 0;
  dtype type = dtype::f32;
  bool big_endian = false;
  bool fortran_order = false;
  std::vector<std::uint64_t> shape;
  std::uint64_t count = 1;        ///< product of the shape
  std::uint64_t data_offset = 0;  ///< where the data starts
  std::string descr;              ///< as written, e.g. "<f4"
};

inline std::string shape_text(const std::vector<std::uint64_t>& shape) {
  std::string s = "(";
  for (std::size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  if (shape.size() == 1) s += ",";
  return s + ")";
}

namespace npy_detail {

/// A cursor over the header dict text, which starts at byte `base` of the file.
struct cursor {
  std::string_view text;
  std::size_t pos = 0;
  std::uint64_t base = 0;
  std::string_view file;

  [[noreturn]] void fail(const std::string& what) const {
    throw tensor_error(std::string(file) + ": byte " + std::to_string(base + pos) + ": bad .npy header: " + what +
                       " (expected a Python dict like {'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), })");
  }
  void skip_space() {
    while (pos < text.size() && (text[pos] == ' ' || text[pos] == '\t' || text[pos] == '\n' || text[pos] == '\r')) ++pos;
  }
  bool at(char c) {
    skip_space();
    return pos < text.size() && text[pos] == c;
  }
  void expect(char c) {
    if (!at(c)) fail(std::string("expected '") + c + "'" + found());
    ++pos;
  }
  std::string found() const {
    if (pos >= text.size()) return ", found the end of the header";
    const auto ch = static_cast<unsigned char>(text[pos]);
    if (ch >= 0x20 && ch < 0x7F) return std::string(", found '") + static_cast<char>(ch) + "'";
    char buf[8];
    std::snprintf(buf, sizeof buf, "\\x%02X", ch);
    return std::string(", found byte ") + buf;
  }
  std::string string_literal() {
    skip_space();
    if (pos >= text.size() || (text[pos] != '\'' && text[pos] != '"')) fail("expected a quoted string" + found());
    const char q = text[pos++];
    const std::size_t start = pos;
    while (pos < text.size() && text[pos] != q) {
      if (text[pos] == '\\') fail("escapes in strings are not supported");
      ++pos;
    }
    if (pos >= text.size()) fail("unterminated string");
    return std::string(text.substr(start, pos++ - start));
  }
  bool boolean() {
    skip_space();
    if (text.substr(pos, 4) == "True") {
      pos += 4;
      return true;
    }
    if (text.substr(pos, 5) == "False") {
      pos += 5;
      return false;
    }
    fail("expected True or False" + found());
  }
  std::uint64_t integer() {
    skip_space();
    if (pos >= text.size() || text[pos] < '0' || text[pos] > '9') fail("expected a dimension (a non-negative integer)" + found());
    std::uint64_t v = 0;
    while (pos < text.size() && text[pos] >= '0' && text[pos] <= '9') {
      const std::uint64_t d = static_cast<std::uint64_t>(text[pos] - '0');
      if (v > (UINT64_MAX - d) / 10) fail("dimension too large");
      v = v * 10 + d;
      ++pos;
    }
    if (pos < text.size() && (text[pos] == 'L' || text[pos] == 'l')) ++pos;  // Python 2 longs
    return v;
  }
  std::vector<std::uint64_t> tuple() {
    expect('(');
    std::vector<std::uint64_t> out;
    if (at(')')) {
      ++pos;
      return out;
    }
    for (;;) {
      out.push_back(integer());
      if (out.size() > 64) fail("more than 64 dimensions");
      if (at(',')) {
        ++pos;
        if (at(')')) {
          ++pos;
          return out;
        }
        continue;
      }
      expect(')');
      return out;
    }
  }
};

inline std::uint64_t le(const unsigned char* p, int n) {
  std::uint64_t v = 0;
  for (int i = n - 1; i >= 0; --i) v = v << 8 | p[i];
  return v;
}

}  // namespace npy_detail

/// True when the bytes start with the .npy magic.
inline bool has_npy_magic(std::span<const unsigned char> head) {
  return head.size() >= sizeof npy_magic && std::memcmp(head.data(), npy_magic, sizeof npy_magic) == 0;
}

/// Parses the .npy preamble and header dict from the file's first bytes `head` (at least the
/// whole header when the file has one; fewer bytes means a truncated header) and checks the data
/// size against file_size. `name` is used in messages.
inline npy_header parse_npy_header(std::span<const unsigned char> head, std::uint64_t file_size, std::string_view name) {
  const std::string file(name);
  auto fail_at = [&](std::uint64_t offset, const std::string& what) -> void {
    throw tensor_error(file + ": byte " + std::to_string(offset) + ": " + what);
  };
  if (file_size == 0) throw tensor_error(file + ": the file is empty (expected a .npy file, raw binary with --dtype, or text)");
  const std::size_t magic_n = std::min(head.size(), sizeof npy_magic);
  for (std::size_t i = 0; i < magic_n; ++i)
    if (head[i] != npy_magic[i])
      fail_at(i, "bad .npy magic (a .npy file starts with \\x93NUMPY; for raw binary give --dtype " +
                     std::string(dtype_names_help) + ", or name a text file without .npy)");
  if (head.size() < 8) fail_at(head.size(), "truncated .npy header: the file ends inside the 8-byte preamble");
  npy_header h;
  h.major = head[6];
  h.minor = head[7];
  if (h.major < 1 || h.major > 3)
    fail_at(6, "unsupported .npy format version " + std::to_string(h.major) + "." + std::to_string(h.minor) +
                   " (accepted: 1.0, 2.0, 3.0)");
  const int len_bytes = h.major == 1 ? 2 : 4;
  if (head.size() < static_cast<std::size_t>(8 + len_bytes))
    fail_at(head.size(), "truncated .npy header: the file ends inside the header length");
  const std::uint64_t header_len = npy_detail::le(head.data() + 8, len_bytes);
  const std::uint64_t start = 8 + static_cast<std::uint64_t>(len_bytes);
  h.data_offset = start + header_len;
  if (h.data_offset > head.size() || h.data_offset > file_size)
    fail_at(std::min<std::uint64_t>(head.size(), file_size), "truncated .npy header: it says " + std::to_string(header_len) + " header bytes from byte " +
                             std::to_string(start) + ", the file has " + std::to_string(file_size) + " bytes");
  npy_detail::cursor c{std::string_view(reinterpret_cast<const char*>(head.data() + start), static_cast<std::size_t>(header_len)),
                       0, start, file};
  bool have_descr = false, have_order = false, have_shape = false;
  c.expect('{');
  while (!c.at('}')) {
    const std::size_t key_pos = c.pos;
    const std::string key = c.string_literal();
    c.expect(':');
    if (key == "descr") {
      const std::size_t vpos = c.pos;
      h.descr = c.string_literal();
      const std::string_view d = h.descr;
      const bool ok = d.size() == 3 && (d[0] == '<' || d[0] == '>' || d[0] == '|' || d[0] == '=') && d[1] == 'f' &&
                      (d[2] == '2' || d[2] == '4' || d[2] == '8');
      if (!ok) {
        c.pos = vpos;
        c.skip_space();
        c.fail("unsupported dtype '" + h.descr +
               "' (accepted: '<f2' float16, '<f4' float32, '<f8' float64, also with '>' (big endian), '|' or '=')");
      }
      h.big_endian = d[0] == '>';
      h.type = d[2] == '2' ? dtype::f16 : d[2] == '4' ? dtype::f32 : dtype::f64;
      have_descr = true;
    } else if (key == "fortran_order") {
      h.fortran_order = c.boolean();
      have_order = true;
    } else if (key == "shape") {
      h.shape = c.tuple();
      have_shape = true;
    } else {
      c.pos = key_pos;
      c.skip_space();
      c.fail("unknown key '" + key + "' (accepted: 'descr', 'fortran_order', 'shape')");
    }
    if (c.at(',')) {
      ++c.pos;
      continue;
    }
    if (!c.at('}')) c.fail("expected ',' or '}'" + c.found());
  }
  ++c.pos;
  for (c.skip_space(); c.pos < c.text.size(); ++c.pos)
    if (c.text[c.pos] != ' ' && c.text[c.pos] != '\n' && c.text[c.pos] != '\0') c.fail("unexpected text after the dict");
  if (!have_descr) c.fail("missing key 'descr'");
  if (!have_order) c.fail("missing key 'fortran_order'");
  if (!have_shape) c.fail("missing key 'shape'");
  // The data: product of the shape times the item size, exactly what follows the header.
  std::uint64_t count = 1;
  bool too_big = false;
  for (std::uint64_t d : h.shape) too_big = too_big || __builtin_mul_overflow(count, d, &count);
  std::uint64_t bytes = 0;
  too_big = too_big || __builtin_mul_overflow(count, dtype_size(h.type), &bytes);
  const std::uint64_t have = file_size >= h.data_offset ? file_size - h.data_offset : 0;
  if (too_big || bytes != have)
    fail_at(h.data_offset, "shape " + shape_text(h.shape) + " of '" + h.descr + "' needs " +
                               (too_big ? std::string("more than 2^64") : std::to_string(bytes)) +
                               " data bytes after the header, the file has " + std::to_string(have));
  h.count = count;
  return h;
}

/// What was read, for reports.
struct tensor_info {
  std::string kind;  ///< "npy", "raw" or "text"
  dtype type = dtype::f64;
  std::uint64_t count = 0;
  std::uint64_t bytes = 0;  ///< file size
  std::optional<npy_header> npy;
};

/// The values of one chunk: exactly one of the spans is non-empty.
struct tensor_chunk {
  std::span<const std::uint16_t> f16;
  std::span<const float> f32;
  std::span<const double> f64;
};

/// Standard input (FILE "-"), read once in full and kept: a command may read it twice, and zip
/// and safetensors need to seek.
inline const std::vector<unsigned char>& stdin_bytes() {
  static const std::vector<unsigned char> bytes = [] {
    std::vector<unsigned char> b;
    unsigned char buf[1 << 16];
    for (;;) {
      const std::size_t got = std::fread(buf, 1, sizeof buf, stdin);
      b.insert(b.end(), buf, buf + got);
      if (got < sizeof buf) break;
    }
    if (std::ferror(stdin)) throw tensor_error(std::string("-: cannot read standard input: ") + std::strerror(errno));
    return b;
  }();
  return bytes;
}

/// Opens FILE for reading; "-" is standard input (read into memory).
inline std::FILE* open_input(const std::string& path) {
  if (path == "-") {
    const std::vector<unsigned char>& b = stdin_bytes();
    if (b.empty())
      throw tensor_error("-: standard input is empty (expected a .npy, .npz or .safetensors file, raw binary with "
                         "--dtype, or text)");
    std::FILE* f = fmemopen(const_cast<unsigned char*>(b.data()), b.size(), "rb");
    if (!f) throw tensor_error(std::string("-: cannot read standard input: ") + std::strerror(errno));
    return f;
  }
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) throw tensor_error("cannot open '" + path + "': " + std::strerror(errno));
  return f;
}

/// Reads `path` as described at the top of this file, calling sink for each chunk of at most
/// chunk_bytes, and progress(done_bytes, total_bytes) after each. Memory stays constant.
inline tensor_info read_tensor(const std::string& path, std::optional<dtype> raw_type,
                               const std::function<void(const tensor_chunk&)>& sink,
                               const std::function<void(std::uint64_t, std::uint64_t)>& progress = {},
                               std::size_t chunk_bytes = std::size_t{4} << 20) {
  std::FILE* f = open_input(path);
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> closer(f, &std::fclose);
  if (std::fseek(f, 0, SEEK_END) != 0) throw tensor_error(path + ": cannot seek (grads reads regular files)");
  const long long end = ftello(f);
  if (end < 0) throw tensor_error(path + ": cannot tell the file size (grads reads regular files)");
  std::rewind(f);
  const auto size = static_cast<std::uint64_t>(end);
  tensor_info info;
  info.bytes = size;
  if (size == 0) throw tensor_error(path + ": the file is empty (expected a .npy file, raw binary with --dtype, or text)");

  // Buffer: 8-byte aligned, a multiple of every item size.
  chunk_bytes = std::max<std::size_t>(chunk_bytes / 8 * 8, 8);
  // operator new[] aligns for every fundamental type (16 bytes on x86-64).
  const std::unique_ptr<unsigned char[]> storage(new unsigned char[chunk_bytes]);
  unsigned char* const buf = storage.get();

  auto read_exact = [&](unsigned char* dst, std::size_t n) {
    const std::size_t got = std::fread(dst, 1, n, f);
    if (got != n) throw tensor_error(path + ": read error or unexpected end of file: " + std::strerror(errno));
  };

  const std::size_t head_n = static_cast<std::size_t>(std::min<std::uint64_t>(size, 12));
  read_exact(buf, head_n);
  const bool named_npy = path.size() >= 4 && path.compare(path.size() - 4, 4, ".npy") == 0;
  const bool npy = has_npy_magic({buf, head_n}) || named_npy;
  std::uint64_t offset = 0;
  dtype type;
  bool swap = false;
  if (npy) {
    // Read the preamble, then the whole header (capped: a real header is a few hundred bytes).
    std::vector<unsigned char> head(buf, buf + head_n);
    if (head_n >= 12 || (head_n >= 10 && head[6] == 1)) {
      const int len_bytes = head[6] == 1 ? 2 : 4;
      const std::uint64_t want = 8 + static_cast<std::uint64_t>(len_bytes) + npy_detail::le(head.data() + 8, len_bytes);
      const std::uint64_t take = std::min<std::uint64_t>({want, size, std::uint64_t{1} << 24});
      if (take > head.size()) {
        const std::size_t old = head.size();
        head.resize(static_cast<std::size_t>(take));
        read_exact(head.data() + old, head.size() - old);
      }
    }
    const npy_header h = parse_npy_header(head, size, path);
    info.kind = "npy";
    info.npy = h;
    type = h.type;
    swap = h.big_endian;
    offset = h.data_offset;
  } else if (raw_type) {
    type = *raw_type;
    info.kind = "raw";
    if (size % dtype_size(type) != 0)
      throw tensor_error(path + ": byte " + std::to_string(size - size % dtype_size(type)) + ": raw " +
                         std::string(dtype_name(type)) + " data must be a whole number of " +
                         std::to_string(dtype_size(type)) + "-byte values; the file has " + std::to_string(size) +
                         " bytes (" + std::to_string(size % dtype_size(type)) + " left over)");
  } else {
    // Text: one number per line, parsed to binary64.
    info.kind = "text";
    info.type = dtype::f64;
    std::rewind(f);
    std::vector<double> values;
    values.reserve(1 << 16);
    std::string carry;
    std::uint64_t line_no = 0, done = 0;
    auto flush = [&] {
      if (values.empty()) return;
      sink(tensor_chunk{{}, {}, values});
      info.count += values.size();
      values.clear();
    };
    auto handle = [&](std::string_view line) {
      ++line_no;
      const char* const line_start = line.data();
      while (!line.empty() && (line.back() == '\r' || line.back() == ' ' || line.back() == '\t')) line.remove_suffix(1);
      while (!line.empty() && (line.front() == ' ' || line.front() == '\t')) line.remove_prefix(1);
      if (line.empty() || line.front() == '#') return;  // numpy.savetxt's header and comments
      // Fields separated by blanks or commas (numpy.savetxt's 2-D output).
      std::size_t i = 0;
      const std::size_t lead = static_cast<std::size_t>(line.data() - line_start);
      for (;;) {
        while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
        std::size_t j = i;
        while (j < line.size() && line[j] != ' ' && line[j] != '\t' && line[j] != ',') ++j;
        const std::string_view field = line.substr(i, j - i);
        const std::string where = path + ": line " + std::to_string(line_no) + ", column " + std::to_string(lead + i + 1);
        if (field.empty())
          throw tensor_error(where + ": an empty field (accepted: numbers separated by blanks or by commas, as "
                                     "numpy.savetxt writes them)");
        const lf::parsed<lf::bits_t> r = lf::parse(lf::binary64, field);
        if (!r) {
          std::string shown;
          for (char ch : field.substr(0, 40)) {
            const auto u = static_cast<unsigned char>(ch);
            if (u >= 0x20 && u < 0x7F) shown += ch;
            else {
              char b[8];
              std::snprintf(b, sizeof b, "\\x%02X", u);
              shown += b;
            }
          }
          if (field.size() > 40) shown += "...";
          throw tensor_error(where + ": '" + shown + "' is not a number: " + r.error.message() +
                             " (accepted: numbers separated by blanks or commas, one or more per line: a decimal like "
                             "0.1 or 1e-8, a hex float like 0x1.8p-3, inf or nan; for binary data give --dtype " +
                             std::string(dtype_names_help) + ")");
        }
        values.push_back(std::bit_cast<double>(r.value));
        if (values.size() == (1u << 16)) flush();
        while (j < line.size() && (line[j] == ' ' || line[j] == '\t')) ++j;
        if (j >= line.size()) break;
        if (line[j] == ',') ++j;
        i = j;
        if (i >= line.size())
          throw tensor_error(path + ": line " + std::to_string(line_no) + ", column " + std::to_string(lead + i + 1) +
                             ": an empty field after a trailing comma");
      }
      if (values.size() == (1u << 16)) flush();
    };
    for (;;) {
      const std::size_t got = std::fread(buf, 1, chunk_bytes, f);
      if (got == 0) {
        if (std::ferror(f)) throw tensor_error(path + ": read error: " + std::strerror(errno));
        break;
      }
      done += got;
      std::string_view block(reinterpret_cast<const char*>(buf), got);
      while (!block.empty()) {
        const std::size_t nl = block.find('\n');
        if (nl == std::string_view::npos) {
          carry.append(block);
          if (carry.size() > (1u << 20)) throw tensor_error(path + ": line " + std::to_string(line_no + 1) +
                                                            ": longer than 1 MiB; is this binary data? (give --dtype " +
                                                            std::string(dtype_names_help) + ")");
          break;
        }
        if (carry.empty()) handle(block.substr(0, nl));
        else {
          carry.append(block.substr(0, nl));
          handle(carry);
          carry.clear();
        }
        block.remove_prefix(nl + 1);
      }
      if (progress) progress(done, size);
    }
    if (!carry.empty()) handle(carry);
    flush();
    return info;
  }

  info.type = type;
  const std::size_t item = dtype_size(type);
  info.count = (size - offset) / item;
  if (std::fseek(f, static_cast<long>(offset), SEEK_SET) != 0) throw tensor_error(path + ": cannot seek to the data");
  std::uint64_t left = size - offset, done = offset;
  // Narrow types are widened to binary32 in a second buffer of at most chunk_bytes.
  const std::size_t per = item < 4 ? std::max<std::size_t>(chunk_bytes / 4, 1) * item : chunk_bytes / item * item;
  std::vector<float> widened;
  while (left > 0) {
    const std::size_t n = static_cast<std::size_t>(std::min<std::uint64_t>(left, per));
    read_exact(buf, n);
    if (swap) {
      for (std::size_t i = 0; i < n; i += item)
        for (std::size_t a = 0, b = item - 1; a < b; ++a, --b) std::swap(buf[i + a], buf[i + b]);
    }
    const std::size_t k = n / item;
    tensor_chunk c;
    if (type == dtype::bf16 || type == dtype::e4m3 || type == dtype::e5m2) {
      widened.resize(k);
      widen_to_f32(type, buf, k, widened.data());
      c.f32 = widened;
    } else if (type == dtype::f16) c.f16 = {reinterpret_cast<const std::uint16_t*>(buf), k};
    else if (type == dtype::f32) c.f32 = {reinterpret_cast<const float*>(buf), k};
    else c.f64 = {reinterpret_cast<const double*>(buf), k};
    sink(c);
    left -= n;
    done += n;
    if (progress) progress(done, size);
  }
  return info;
}

}  // namespace floatlab
