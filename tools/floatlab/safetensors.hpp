// tools/floatlab/safetensors.hpp: the safetensors header (8-byte little-endian length N, N bytes
// of JSON, then the tensors' raw little-endian data), with a minimal JSON parser of its own (objects,
// arrays, strings with escapes, numbers, true/false/null; 64 levels deep at most).
//
// parse_safetensors() is a pure function of the bytes (tests/fuzz/fuzz_safetensors.cpp drives it):
// it checks the header length against the file, every tensor's dtype, shape and data_offsets
// (inside the data, end - begin == product(shape) * item size) and that no two tensors' data
// overlap. Errors throw tensor_error naming the file and the tensor.
#pragma once

#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "tensor_file.hpp"

namespace floatlab {

struct st_tensor {
  std::string name;
  std::string dtype_text;          ///< as written: "F32", "BF16", "I8", ...
  std::optional<dtype> type;       ///< the floating-point types floatlab reads; nullopt: not one
  std::size_t item = 0;            ///< bytes per value
  std::vector<std::uint64_t> shape;
  std::uint64_t count = 1;
  std::uint64_t begin = 0, end = 0;  ///< relative to the data (after the header)
};

struct st_file {
  std::uint64_t header_len = 0;
  std::uint64_t data_start = 0;  ///< 8 + header_len
  std::vector<st_tensor> tensors;  ///< in the order of their names (the JSON object's keys sorted)
};

/// The dtypes of the safetensors format and their sizes; `type` for those floatlab reads.
inline std::optional<std::pair<std::size_t, std::optional<dtype>>> st_dtype(std::string_view s) {
  using r = std::pair<std::size_t, std::optional<dtype>>;
  if (s == "F64") return r{8, dtype::f64};
  if (s == "F32") return r{4, dtype::f32};
  if (s == "F16") return r{2, dtype::f16};
  if (s == "BF16") return r{2, dtype::bf16};
  if (s == "F8_E4M3") return r{1, dtype::e4m3};
  if (s == "F8_E5M2") return r{1, dtype::e5m2};
  if (s == "I8" || s == "U8" || s == "BOOL" || s == "F8_E8M0") return r{1, std::nullopt};
  if (s == "I16" || s == "U16") return r{2, std::nullopt};
  if (s == "I32" || s == "U32") return r{4, std::nullopt};
  if (s == "I64" || s == "U64" || s == "C64") return r{8, std::nullopt};
  return std::nullopt;
}
inline constexpr std::string_view st_dtypes_help =
    "F64, F32, F16, BF16, F8_E4M3, F8_E5M2 read; I8, U8, I16, U16, I32, U32, I64, U64, BOOL, F8_E8M0, C64 skipped";

namespace json {

/// A parsed JSON value (only what a safetensors header holds).
struct value {
  enum kind_t { null, boolean, number, string, array, object } kind = null;
  bool b = false;
  std::string text;                     ///< string contents, or a number as written
  std::vector<value> items;             ///< array
  std::vector<std::string> keys;        ///< object: its keys, in order
  std::vector<value> members;           ///< object: the value of each key
};

struct parser {
  std::string_view s;
  std::size_t pos = 0;
  std::string file;
  std::uint64_t base = 0;  ///< the file offset of s[0]
  int depth = 0;

  [[noreturn]] void fail(const std::string& what) const {
    throw tensor_error(file + ": byte " + std::to_string(base + pos) + ": bad safetensors header JSON: " + what);
  }
  void ws() {
    while (pos < s.size() && (s[pos] == ' ' || s[pos] == '\t' || s[pos] == '\n' || s[pos] == '\r')) ++pos;
  }
  void expect(char c) {
    ws();
    if (pos >= s.size() || s[pos] != c) fail(std::string("expected '") + c + "'");
    ++pos;
  }
  static void utf8(std::string& out, std::uint32_t cp) {
    if (cp < 0x80) out += static_cast<char>(cp);
    else if (cp < 0x800) {
      out += static_cast<char>(0xC0 | cp >> 6);
      out += static_cast<char>(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
      out += static_cast<char>(0xE0 | cp >> 12);
      out += static_cast<char>(0x80 | (cp >> 6 & 0x3F));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    } else {
      out += static_cast<char>(0xF0 | cp >> 18);
      out += static_cast<char>(0x80 | (cp >> 12 & 0x3F));
      out += static_cast<char>(0x80 | (cp >> 6 & 0x3F));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    }
  }
  std::uint32_t hex4() {
    if (s.size() - pos < 4) fail("a \\u escape needs 4 hex digits");
    std::uint32_t v = 0;
    for (int i = 0; i < 4; ++i) {
      const char c = s[pos++];
      v = v * 16 + static_cast<std::uint32_t>(c >= '0' && c <= '9'   ? c - '0'
                                              : c >= 'a' && c <= 'f' ? c - 'a' + 10
                                              : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                                                     : (fail("a \\u escape needs 4 hex digits"), 0));
    }
    return v;
  }
  std::string str() {
    expect('"');
    std::string out;
    for (;;) {
      if (pos >= s.size()) fail("unterminated string");
      const char c = s[pos++];
      if (c == '"') return out;
      if (static_cast<unsigned char>(c) < 0x20) fail("a control character in a string");
      if (c != '\\') {
        out += c;
        continue;
      }
      if (pos >= s.size()) fail("unterminated string");
      const char e = s[pos++];
      switch (e) {
        case '"': out += '"'; break;
        case '\\': out += '\\'; break;
        case '/': out += '/'; break;
        case 'b': out += '\b'; break;
        case 'f': out += '\f'; break;
        case 'n': out += '\n'; break;
        case 'r': out += '\r'; break;
        case 't': out += '\t'; break;
        case 'u': {
          std::uint32_t cp = hex4();
          if (cp >= 0xD800 && cp < 0xDC00 && s.substr(pos, 2) == "\\u") {
            pos += 2;
            const std::uint32_t lo = hex4();
            if (lo < 0xDC00 || lo > 0xDFFF) fail("a lone UTF-16 surrogate in a \\u escape");
            cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
          }
          utf8(out, cp);
          break;
        }
        default: --pos; fail(std::string("unknown escape '\\") + e + "'");
      }
    }
  }
  value parse() {
    ws();
    if (pos >= s.size()) fail("expected a value, found the end of the header");
    if (++depth > 64) fail("nested more than 64 levels deep");
    value v;
    const char c = s[pos];
    if (c == '{') {
      v.kind = value::object;
      ++pos;
      ws();
      if (pos < s.size() && s[pos] == '}') ++pos;
      else
        for (;;) {
          std::string k = str();
          expect(':');
          value m = parse();
          v.keys.push_back(std::move(k));
          v.members.push_back(std::move(m));
          ws();
          if (pos < s.size() && s[pos] == ',') {
            ++pos;
            continue;
          }
          expect('}');
          break;
        }
    } else if (c == '[') {
      v.kind = value::array;
      ++pos;
      ws();
      if (pos < s.size() && s[pos] == ']') ++pos;
      else
        for (;;) {
          v.items.push_back(parse());
          ws();
          if (pos < s.size() && s[pos] == ',') {
            ++pos;
            continue;
          }
          expect(']');
          break;
        }
    } else if (c == '"') {
      v.kind = value::string;
      v.text = str();
    } else if (s.substr(pos, 4) == "true" || s.substr(pos, 5) == "false") {
      v.kind = value::boolean;
      v.b = c == 't';
      pos += v.b ? 4 : 5;
    } else if (s.substr(pos, 4) == "null") {
      pos += 4;
    } else if (c == '-' || (c >= '0' && c <= '9')) {
      v.kind = value::number;
      const std::size_t start = pos;
      while (pos < s.size() && (std::string_view("+-.eE").find(s[pos]) != std::string_view::npos ||
                                (s[pos] >= '0' && s[pos] <= '9')))
        ++pos;
      v.text = std::string(s.substr(start, pos - start));
    } else {
      fail("expected a value");
    }
    --depth;
    return v;
  }
};

}  // namespace json

/// Parses the safetensors header from the file's first bytes `head` (at least 8 + N when the file
/// has them) of a file of file_size bytes.
inline st_file parse_safetensors(std::span<const unsigned char> head, std::uint64_t file_size, std::string_view name) {
  const std::string f(name);
  if (head.size() < 8 || file_size < 8)
    throw tensor_error(f + ": truncated safetensors file: fewer than the 8 bytes of the header length");
  st_file out;
  out.header_len = npy_detail::le(head.data(), 8);
  if (out.header_len > file_size - 8 || out.header_len > head.size() - 8)
    throw tensor_error(f + ": byte 0: the safetensors header length " + std::to_string(out.header_len) +
                       " runs past the end of the file (" + std::to_string(file_size) + " bytes)");
  out.data_start = 8 + out.header_len;
  const std::uint64_t data_size = file_size - out.data_start;
  json::parser p{std::string_view(reinterpret_cast<const char*>(head.data() + 8), static_cast<std::size_t>(out.header_len)),
                 0, f, 8, 0};
  const json::value root = p.parse();
  p.ws();
  // The format pads the header with spaces; anything else after the object is an error.
  if (p.pos != p.s.size()) p.fail("unexpected text after the JSON object");
  if (root.kind != json::value::object) throw tensor_error(f + ": the safetensors header is not a JSON object");
  for (std::size_t mi = 0; mi < root.members.size(); ++mi) {
    const std::string& key = root.keys[mi];
    const json::value& v = root.members[mi];
    if (key == "__metadata__") continue;
    const std::string t = f + ": tensor '" + key + "'";
    if (v.kind != json::value::object)
      throw tensor_error(t + ": expected an object {\"dtype\", \"shape\", \"data_offsets\"}");
    const json::value *dt = nullptr, *shape = nullptr, *offs = nullptr;
    for (std::size_t ki = 0; ki < v.members.size(); ++ki) {
      const std::string& k = v.keys[ki];
      const json::value& m = v.members[ki];
      if (k == "dtype") dt = &m;
      else if (k == "shape") shape = &m;
      else if (k == "data_offsets") offs = &m;
    }
    if (!dt || !shape || !offs) throw tensor_error(t + ": missing \"dtype\", \"shape\" or \"data_offsets\"");
    auto whole = [&](const json::value& n, const char* what) {
      if (n.kind != json::value::number || n.text.empty() || n.text.size() > 20 ||
          n.text.find_first_not_of("0123456789") != std::string::npos)
        throw tensor_error(t + ": " + what + " must be non-negative integers, found '" + n.text + "'");
      std::uint64_t r = 0;
      for (char c : n.text)
        if (__builtin_mul_overflow(r, 10, &r) || __builtin_add_overflow(r, static_cast<std::uint64_t>(c - '0'), &r))
          throw tensor_error(t + ": " + what + " '" + n.text + "' is too large");
      return r;
    };
    st_tensor s;
    s.name = key;
    if (dt->kind != json::value::string) throw tensor_error(t + ": \"dtype\" must be a string");
    s.dtype_text = dt->text;
    const auto d = st_dtype(s.dtype_text);
    if (!d) throw tensor_error(t + ": unknown dtype '" + s.dtype_text + "' (accepted: " + std::string(st_dtypes_help) + ")");
    s.item = d->first;
    s.type = d->second;
    if (shape->kind != json::value::array) throw tensor_error(t + ": \"shape\" must be an array");
    bool too_big = false;
    for (const auto& n : shape->items) {
      s.shape.push_back(whole(n, "\"shape\" entries"));
      too_big = too_big || __builtin_mul_overflow(s.count, s.shape.back(), &s.count);
    }
    if (offs->kind != json::value::array || offs->items.size() != 2)
      throw tensor_error(t + ": \"data_offsets\" must be [begin, end]");
    s.begin = whole(offs->items[0], "\"data_offsets\"");
    s.end = whole(offs->items[1], "\"data_offsets\"");
    if (s.begin > s.end)
      throw tensor_error(t + ": data_offsets [" + std::to_string(s.begin) + ", " + std::to_string(s.end) + "] end before they begin");
    if (s.end > data_size)
      throw tensor_error(t + ": data_offsets [" + std::to_string(s.begin) + ", " + std::to_string(s.end) +
                         "] run past the end of the data (" + std::to_string(data_size) + " bytes after the header)");
    std::uint64_t bytes = 0;
    too_big = too_big || __builtin_mul_overflow(s.count, static_cast<std::uint64_t>(s.item), &bytes);
    if (too_big || bytes != s.end - s.begin)
      throw tensor_error(t + ": shape " + shape_text(s.shape) + " of " + s.dtype_text + " needs " +
                         (too_big ? std::string("more than 2^64") : std::to_string(bytes)) + " bytes, data_offsets [" +
                         std::to_string(s.begin) + ", " + std::to_string(s.end) + "] hold " +
                         std::to_string(s.end - s.begin));
    out.tensors.push_back(std::move(s));
  }
  // No two tensors share bytes.
  std::vector<const st_tensor*> by_offset;
  for (const auto& s : out.tensors)
    if (s.end > s.begin) by_offset.push_back(&s);
  std::sort(by_offset.begin(), by_offset.end(), [](auto* a, auto* b) { return a->begin < b->begin; });
  for (std::size_t i = 1; i < by_offset.size(); ++i)
    if (by_offset[i]->begin < by_offset[i - 1]->end)
      throw tensor_error(f + ": tensor '" + by_offset[i]->name + "': data_offsets [" + std::to_string(by_offset[i]->begin) +
                         ", " + std::to_string(by_offset[i]->end) + "] overlap tensor '" + by_offset[i - 1]->name +
                         "' [" + std::to_string(by_offset[i - 1]->begin) + ", " + std::to_string(by_offset[i - 1]->end) + "]");
  std::sort(out.tensors.begin(), out.tensors.end(), [](const st_tensor& a, const st_tensor& b) { return a.name < b.name; });
  return out;
}

/// True when the bytes look like a safetensors file: a plausible header length followed by '{'.
inline bool has_safetensors_magic(std::span<const unsigned char> b) {
  if (b.size() < 10) return false;
  const std::uint64_t n = npy_detail::le(b.data(), 8);
  const unsigned char c = b[9];
  return n >= 2 && n < (std::uint64_t{1} << 40) && b[8] == '{' && (c == '"' || c == '}' || c == ' ' || c == '\n');
}

}  // namespace floatlab
