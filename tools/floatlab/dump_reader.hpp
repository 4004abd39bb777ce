// tools/floatlab/dump_reader.hpp: the tensors of a dump, whatever holds them, for `floatlab grads`
// (the per-tensor table) and `floatlab compare`.
//
// FILE may be:
//   - a .npz (a zip of .npy members, stored or deflated; zip_reader.hpp): one tensor per member,
//     named as the member without ".npy";
//   - a safetensors file (safetensors.hpp): one tensor per entry; F64, F32, F16, BF16, F8_E4M3
//     (OCP e4m3fn), F8_E5M2 are read, integer and other dtypes are listed as skipped;
//   - a directory: every regular file in it (not hidden, not recursing), sorted by name: .npy,
//     .npz and safetensors files by their magic, text files named *.txt or *.csv, and with --dtype
//     files named *.bin or *.raw; each tensor is named FILE (one-tensor files) or FILE/TENSOR;
//   - a single .npy, raw (--dtype) or text file: one tensor with an empty name (tensor_file.hpp);
//   - "-": standard input, read into memory and recognized by its first bytes like a file.
// torch.save archives (a zip with <name>/data.pkl) and pickles are refused, never unpickled, with
// the one-line conversion to safetensors.
//
// Everything streams: a tensor's `read` feeds its values in chunks (tensor_chunk, binary16 as
// bits, bf16/e4m3/e5m2 widened exactly to binary32) and may be called more than once. Files are
// mapped (mmap), not read into memory; deflated members are inflated in 256 KiB pieces.
#pragma once

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "safetensors.hpp"
#include "tensor_file.hpp"
#include "zip_reader.hpp"

namespace floatlab {

using chunk_sink = std::function<void(const tensor_chunk&)>;

struct dump_tensor {
  std::string name;  ///< "" for the one tensor of a .npy, raw or text file
  std::string file;  ///< the file it is in
  std::string kind;  ///< "npy", "npz", "safetensors", "raw" or "text"
  std::string dtype_text;  ///< as stored: "<f4", "F32", "bf16", ...
  std::optional<dtype> type;  ///< nullopt: not floating-point (see skipped)
  std::string skipped;        ///< why it is not read (empty: it is)
  std::optional<std::vector<std::uint64_t>> shape;
  std::function<void(const chunk_sink&)> read;
};

/// A file's bytes: mapped, or standard input's.
struct byte_source {
  const unsigned char* data = nullptr;
  std::size_t size = 0;
  void* map = nullptr;
  ~byte_source() {
    if (map) ::munmap(map, size);
  }
  std::span<const unsigned char> bytes() const { return {data, size}; }
};

inline std::shared_ptr<const byte_source> open_bytes(const std::string& path) {
  auto s = std::make_shared<byte_source>();
  if (path == "-") {
    const std::vector<unsigned char>& b = stdin_bytes();
    s->data = b.data();
    s->size = b.size();
    return s;
  }
  const int fd = ::open(path.c_str(), O_RDONLY);
  if (fd < 0) throw tensor_error("cannot open '" + path + "': " + std::strerror(errno));
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    throw tensor_error(path + ": not a regular file");
  }
  s->size = static_cast<std::size_t>(st.st_size);
  if (s->size > 0) {
    void* m = ::mmap(nullptr, s->size, PROT_READ, MAP_PRIVATE, fd, 0);
    if (m == MAP_FAILED) {
      ::close(fd);
      throw tensor_error(path + ": cannot map the file: " + std::strerror(errno));
    }
    s->map = m;
    s->data = static_cast<const unsigned char*>(m);
  }
  ::close(fd);
  return s;
}

/// Feeds n values of type t at p (little endian, or big when swap) to sink, in aligned chunks.
inline void decode_values(dtype t, bool swap, const unsigned char* p, std::uint64_t n, const chunk_sink& sink) {
  constexpr std::size_t block = 1 << 16;
  const std::size_t item = dtype_size(t);
  std::vector<float> fbuf;
  std::vector<double> dbuf;
  std::vector<std::uint16_t> hbuf;
  while (n > 0) {
    const std::size_t k = static_cast<std::size_t>(std::min<std::uint64_t>(n, block));
    tensor_chunk c;
    if (t == dtype::f32) {
      fbuf.resize(k);
      std::memcpy(fbuf.data(), p, k * 4);
      if (swap)
        for (float& v : fbuf) v = std::bit_cast<float>(__builtin_bswap32(std::bit_cast<std::uint32_t>(v)));
      c.f32 = fbuf;
    } else if (t == dtype::f64) {
      dbuf.resize(k);
      std::memcpy(dbuf.data(), p, k * 8);
      if (swap)
        for (double& v : dbuf) v = std::bit_cast<double>(__builtin_bswap64(std::bit_cast<std::uint64_t>(v)));
      c.f64 = dbuf;
    } else if (t == dtype::f16) {
      hbuf.resize(k);
      std::memcpy(hbuf.data(), p, k * 2);
      if (swap)
        for (auto& v : hbuf) v = __builtin_bswap16(v);
      c.f16 = hbuf;
    } else {
      fbuf.resize(k);
      widen_to_f32(t, p, k, fbuf.data());
      c.f32 = fbuf;
    }
    sink(c);
    p += k * item;
    n -= k;
  }
}

/// Turns a stream of bytes of .npy file (npz member) into values: collects the header, then
/// decodes whole values, keeping a partial one across pieces.
struct npy_stream {
  std::string name;
  std::uint64_t total = 0;  ///< the member's size
  const chunk_sink* sink = nullptr;
  std::vector<unsigned char> head;
  std::optional<npy_header> header;
  unsigned char partial[8] = {};
  std::size_t partial_n = 0;
  bool stop_after_header = false;
  struct stop {};

  npy_stream(std::string n, std::uint64_t size, const chunk_sink* s) : name(std::move(n)), total(size), sink(s) {}

  void feed(const unsigned char* p, std::size_t n) {
    if (!header) {
      const std::size_t before = head.size();
      head.insert(head.end(), p, p + std::min<std::size_t>(n, (std::size_t{1} << 24) - std::min(head.size(), std::size_t{1} << 24)));
      std::uint64_t want = 12;
      if (head.size() >= 10 && has_npy_magic(head)) {
        const int len_bytes = head[6] == 1 ? 2 : 4;
        if (head.size() >= static_cast<std::size_t>(8 + len_bytes))
          want = 8 + static_cast<std::uint64_t>(len_bytes) + npy_detail::le(head.data() + 8, len_bytes);
      }
      want = std::min<std::uint64_t>(want, total);
      if (head.size() < want && head.size() < (std::size_t{1} << 24) && head.size() < total) return;
      header = parse_npy_header(head, total, name);
      if (stop_after_header) throw stop{};
      const std::size_t used = static_cast<std::size_t>(header->data_offset) - before;  // of this piece
      p += used;
      n -= used;
    }
    const std::size_t item = dtype_size(header->type);
    if (partial_n) {
      const std::size_t take = std::min(n, item - partial_n);
      std::memcpy(partial + partial_n, p, take);
      partial_n += take;
      p += take;
      n -= take;
      if (partial_n < item) return;
      decode_values(header->type, header->big_endian, partial, 1, *sink);
      partial_n = 0;
    }
    const std::size_t whole = n / item;
    decode_values(header->type, header->big_endian, p, whole, *sink);
    partial_n = n - whole * item;
    std::memcpy(partial, p + whole * item, partial_n);
  }
};

inline constexpr std::string_view torch_refusal =
    "a PyTorch torch.save file: floatlab never unpickles (a pickle can run code). Convert it once to "
    "safetensors, e.g. python3 -c \"import torch, safetensors.torch as st; st.save_file(torch.load('model.pt'), "
    "'model.safetensors')\" (a state dict of tensors), then read model.safetensors";

inline bool ends_with(const std::string& s, std::string_view e) {
  return s.size() >= e.size() && s.compare(s.size() - e.size(), e.size(), e) == 0;
}

enum class container { none, npz, safetensors };

/// What the file's first bytes (and name) say it holds; throws for torch.save files and pickles.
inline container detect_container(std::span<const unsigned char> b, const std::string& path,
                                  const std::vector<zip_entry>* entries = nullptr) {
  if (has_zip_magic(b) || ends_with(path, ".npz")) {
    if (entries)
      for (const zip_entry& e : *entries)
        if (ends_with(e.name, "/data.pkl") || e.name == "data.pkl")
          throw tensor_error(path + ": " + std::string(torch_refusal));
    return container::npz;
  }
  if (has_safetensors_magic(b) || ends_with(path, ".safetensors")) return container::safetensors;
  if (!b.empty() && b[0] == 0x80 && b.size() >= 2 && b[1] >= 2 && b[1] <= 5 && !has_npy_magic(b))
    throw tensor_error(path + ": starts like a Python pickle (legacy torch.save?): " + std::string(torch_refusal));
  return container::none;
}

/// The tensors of a .npz or safetensors file (already mapped).
inline std::vector<dump_tensor> list_container(const std::shared_ptr<const byte_source>& src, const std::string& path,
                                               const std::string& prefix) {
  std::vector<dump_tensor> out;
  const auto b = src->bytes();
  if (has_zip_magic(b) || ends_with(path, ".npz")) {
    auto entries = std::make_shared<const std::vector<zip_entry>>(zip_list(b, path));
    detect_container(b, path, entries.get());
    for (std::size_t i = 0; i < entries->size(); ++i) {
      const zip_entry& e = (*entries)[i];
      if (!e.name.empty() && e.name.back() == '/') continue;  // a directory
      dump_tensor t;
      t.name = prefix + (ends_with(e.name, ".npy") ? e.name.substr(0, e.name.size() - 4) : e.name);
      t.file = path;
      t.kind = "npz";
      const std::string member = path + ": entry '" + e.name + "'";
      // The member's .npy header: inflate just enough of it.
      npy_stream peek{member, e.size, nullptr};
      peek.stop_after_header = true;
      try {
        zip_read(b, e, path, [&](const unsigned char* p, std::size_t n) { peek.feed(p, n); }, 1 << 12);
        if (!peek.header) peek.header = parse_npy_header(peek.head, e.size, member);  // an empty member
      } catch (const npy_stream::stop&) {
      }
      t.dtype_text = peek.header->descr;
      t.type = peek.header->type;
      t.shape = peek.header->shape;
      t.read = [src, entries, i, path, member](const chunk_sink& sink) {
        const zip_entry& en = (*entries)[i];
        npy_stream s{member, en.size, &sink};
        zip_read(src->bytes(), en, path, [&](const unsigned char* p, std::size_t n) { s.feed(p, n); });
        if (!s.header) parse_npy_header(s.head, en.size, member);
      };
      out.push_back(std::move(t));
    }
    return out;
  }
  const st_file h = parse_safetensors(b, b.size(), path);
  for (const st_tensor& s : h.tensors) {
    dump_tensor t;
    t.name = prefix + s.name;
    t.file = path;
    t.kind = "safetensors";
    t.dtype_text = s.dtype_text;
    t.type = s.type;
    t.shape = s.shape;
    if (!s.type) t.skipped = "dtype " + s.dtype_text + ": not a floating-point tensor, skipped";
    else {
      const std::uint64_t at = h.data_start + s.begin;
      t.read = [src, at, type = *s.type, n = s.count](const chunk_sink& sink) {
        decode_values(type, false, src->data + at, n, sink);
      };
    }
    out.push_back(std::move(t));
  }
  return out;
}

/// One .npy, raw or text file as a tensor named `name`, read by tensor_file.hpp's reader.
inline dump_tensor single_file_tensor(const std::string& path, const std::string& name, std::optional<dtype> raw,
                                      std::span<const unsigned char> head) {
  dump_tensor t;
  t.name = name;
  t.file = path;
  const bool npy = has_npy_magic(head) || ends_with(path, ".npy");
  t.kind = npy ? "npy" : raw ? "raw" : "text";
  if (npy) {
    const npy_header h = parse_npy_header(head, head.size(), path);
    t.dtype_text = h.descr;
    t.type = h.type;
    t.shape = h.shape;
  } else {
    t.type = raw ? *raw : dtype::f64;
    t.dtype_text = raw ? std::string(dtype_name(*raw)) : "text";
  }
  t.read = [path, raw](const chunk_sink& sink) { read_tensor(path, raw, sink); };
  return t;
}

/// True when FILE holds (or may hold) more than one tensor: a directory, a .npz or a safetensors file.
inline bool is_multi_tensor(const std::string& path) {
  std::error_code ec;
  if (path != "-" && std::filesystem::is_directory(path, ec)) return true;
  if (path != "-" && !std::filesystem::is_regular_file(path, ec)) return false;  // the reader names the error
  if (ends_with(path, ".npz") || ends_with(path, ".safetensors") || ends_with(path, ".pt") || ends_with(path, ".pth"))
    return true;
  std::span<const unsigned char> head;
  unsigned char buf[16];
  if (path == "-") head = stdin_bytes();
  else {
    std::FILE* f = std::fopen(path.c_str(), "rb");
    if (!f) return false;
    const std::size_t n = std::fread(buf, 1, sizeof buf, f);
    std::fclose(f);
    head = {buf, n};
  }
  if (has_npy_magic(head)) return false;
  if (has_zip_magic(head) || has_safetensors_magic(head)) return true;
  return !head.empty() && head[0] == 0x80 && head.size() >= 2 && head[1] >= 2 && head[1] <= 5;  // a pickle: refused there
}

/// Every tensor of FILE (see the top of this file), in order: a container's by name, a
/// directory's by file name.
inline std::vector<dump_tensor> list_tensors(const std::string& path, std::optional<dtype> raw) {
  std::error_code ec;
  if (path != "-" && std::filesystem::is_directory(path, ec)) {
    std::vector<std::string> names;
    for (const auto& de : std::filesystem::directory_iterator(path, ec)) {
      const std::string n = de.path().filename().string();
      if (!n.empty() && n[0] != '.' && de.is_regular_file(ec)) names.push_back(n);
    }
    if (ec) throw tensor_error(path + ": cannot list the directory: " + ec.message());
    std::sort(names.begin(), names.end());
    std::vector<dump_tensor> out;
    for (const std::string& n : names) {
      const std::string file = (std::filesystem::path(path) / n).string();
      const auto src = open_bytes(file);
      const auto b = src->bytes();
      if (has_zip_magic(b) || has_safetensors_magic(b) || ends_with(n, ".npz") || ends_with(n, ".safetensors")) {
        for (auto& t : list_container(src, file, n + "/")) out.push_back(std::move(t));
      } else if (has_npy_magic(b) || ends_with(n, ".npy") || ends_with(n, ".txt") || ends_with(n, ".csv") ||
                 (raw && (ends_with(n, ".bin") || ends_with(n, ".raw")))) {
        if (b.empty()) throw tensor_error(file + ": the file is empty");
        out.push_back(single_file_tensor(file, n, ends_with(n, ".txt") || ends_with(n, ".csv") ? std::nullopt : raw,
                                         b.subspan(0, std::min<std::size_t>(b.size(), std::size_t{1} << 24))));
        if (!has_npy_magic(b) && !ends_with(n, ".npy")) {
          // text and raw: the header check above did not run; the size check runs when it is read
        }
      } else {
        dump_tensor t;
        t.name = n;
        t.file = file;
        t.kind = "?";
        t.skipped = "not a dump floatlab recognizes (.npy, .npz, safetensors; *.txt or *.csv text; *.bin or *.raw with --dtype)";
        out.push_back(std::move(t));
      }
    }
    if (out.empty()) throw tensor_error(path + ": the directory holds no files");
    return out;
  }
  const auto src = open_bytes(path);
  const auto b = src->bytes();
  if (b.empty())
    throw tensor_error((path == "-" ? std::string("-: standard input") : path + ": the file") +
                       " is empty (expected a .npy, .npz or safetensors file, raw binary with --dtype, or text)");
  if (detect_container(b, path) != container::none) return list_container(src, path, "");
  return {single_file_tensor(path, "", raw, b.subspan(0, std::min<std::size_t>(b.size(), std::size_t{1} << 24)))};
}

}  // namespace floatlab
