// tools/floatlab/zip_reader.hpp: a small zip reader for .npz files (and for recognizing
// torch.save archives), over bytes in memory (a mapped file or standard input).
//
// zip_list() reads the end of central directory record (ZIP64 too), the central directory and
// every entry's local header, and checks that each entry's data lies inside the file. zip_read()
// streams one entry's data in chunks: stored (method 0) or deflated (method 8, zlib's raw
// inflate), checking the CRC-32 and the declared size. Zip bombs: an entry whose declared
// uncompressed size is more than zip_max_ratio times its compressed size (above 1 MiB) is
// refused before anything is inflated, and inflating past the declared size stops at once.
// Encrypted entries, other methods and multi-disk archives are refused. Both are pure functions of
// the bytes (the fuzz target tests/fuzz/fuzz_zip.cpp drives them); errors throw tensor_error
// naming the file, the entry and the byte offset.
#pragma once

#include <cstdint>
#include <cstring>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <zlib.h>

#include "tensor_file.hpp"

namespace floatlab {

/// Deflate cannot compress by more than about 1032:1 (a 258-byte match costs at least two bits: zlib's
/// technical notes), so a declared ratio of 1100:1 or more is a size no honest entry has. An all-zero
/// tensor (deflated at about 1030:1) stays under it.
inline constexpr std::uint64_t zip_max_ratio = 1100;
inline constexpr std::uint64_t zip_ratio_floor = std::uint64_t{1} << 20;  ///< smaller entries are never bombs

struct zip_entry {
  std::string name;
  std::uint16_t method = 0;
  std::uint32_t crc = 0;
  std::uint64_t compressed = 0, size = 0;
  std::uint64_t header_offset = 0;  ///< the local header
  std::uint64_t data_offset = 0;    ///< the entry's data
};

/// True when the bytes look like a zip archive (a local header or an empty archive's end record).
inline bool has_zip_magic(std::span<const unsigned char> b) {
  return b.size() >= 4 && b[0] == 'P' && b[1] == 'K' && ((b[2] == 3 && b[3] == 4) || (b[2] == 5 && b[3] == 6));
}

namespace zip_detail {
inline std::uint64_t rd(std::span<const unsigned char> b, std::uint64_t at, int n) {
  std::uint64_t v = 0;
  for (int i = n - 1; i >= 0; --i) v = v << 8 | b[static_cast<std::size_t>(at) + static_cast<std::size_t>(i)];
  return v;
}
}  // namespace zip_detail

/// The entries of the zip archive `b`, in central-directory order.
inline std::vector<zip_entry> zip_list(std::span<const unsigned char> b, std::string_view file) {
  using zip_detail::rd;
  const std::string f(file);
  auto fail = [&](std::uint64_t at, const std::string& what) -> void {
    throw tensor_error(f + ": byte " + std::to_string(at) + ": bad zip archive: " + what);
  };
  const std::uint64_t n = b.size();
  if (n < 22) fail(n, "truncated: the file ends before an end of central directory record (22 bytes)");
  // The end record: the last "PK\5\6" with room for its comment.
  std::uint64_t eocd = n;
  const std::uint64_t lowest = n >= 22 + 65535 ? n - 22 - 65535 : 0;
  for (std::uint64_t p = n - 22 + 1; p-- > lowest;)
    if (rd(b, p, 4) == 0x06054b50 && p + 22 + rd(b, p + 20, 2) == n) {
      eocd = p;
      break;
    }
  if (eocd == n) fail(n, "no end of central directory record (truncated, or not a zip file)");
  if (rd(b, eocd + 4, 2) != 0 || rd(b, eocd + 6, 2) != 0) fail(eocd + 4, "multi-disk archives are not supported");
  std::uint64_t count = rd(b, eocd + 10, 2), cd_size = rd(b, eocd + 12, 4), cd_offset = rd(b, eocd + 16, 4);
  if (count == 0xFFFF || cd_size == 0xFFFFFFFF || cd_offset == 0xFFFFFFFF) {
    // ZIP64: the locator (20 bytes) sits just before the end record.
    if (eocd < 20 || rd(b, eocd - 20, 4) != 0x07064b50) fail(eocd, "ZIP64 sizes without a ZIP64 locator");
    const std::uint64_t rec = rd(b, eocd - 20 + 8, 8);
    if (rec > eocd - 20 || eocd - 20 - rec < 56 || rd(b, rec, 4) != 0x06064b50)
      fail(eocd - 20, "the ZIP64 locator points at no ZIP64 end record");
    count = rd(b, rec + 32, 8);
    cd_size = rd(b, rec + 40, 8);
    cd_offset = rd(b, rec + 48, 8);
  }
  if (cd_offset > eocd || cd_size > eocd - cd_offset)
    fail(eocd + 12, "the central directory (" + std::to_string(cd_size) + " bytes at byte " + std::to_string(cd_offset) +
                        ") runs past the end record at byte " + std::to_string(eocd) + " (truncated file?)");
  if (count > cd_size / 46) fail(eocd + 10, std::to_string(count) + " entries cannot fit a central directory of " +
                                               std::to_string(cd_size) + " bytes");
  std::vector<zip_entry> out;
  std::uint64_t p = cd_offset;
  const std::uint64_t cd_end = cd_offset + cd_size;
  for (std::uint64_t i = 0; i < count; ++i) {
    if (cd_end - p < 46 || rd(b, p, 4) != 0x02014b50)
      fail(p, "central directory entry " + std::to_string(i + 1) + " of " + std::to_string(count) + " has no PK\\1\\2 signature");
    zip_entry e;
    const std::uint64_t flags = rd(b, p + 8, 2);
    e.method = static_cast<std::uint16_t>(rd(b, p + 10, 2));
    e.crc = static_cast<std::uint32_t>(rd(b, p + 16, 4));
    e.compressed = rd(b, p + 20, 4);
    e.size = rd(b, p + 24, 4);
    const std::uint64_t name_len = rd(b, p + 28, 2), extra_len = rd(b, p + 30, 2), comment_len = rd(b, p + 32, 2);
    e.header_offset = rd(b, p + 42, 4);
    if (cd_end - p - 46 < name_len + extra_len + comment_len)
      fail(p, "central directory entry " + std::to_string(i + 1) + " runs past the central directory");
    e.name.assign(reinterpret_cast<const char*>(b.data() + p + 46), static_cast<std::size_t>(name_len));
    const std::string ent = "entry '" + e.name + "'";
    // ZIP64 extra field: the 8-byte values present are those whose 32-bit field is all ones.
    for (std::uint64_t x = p + 46 + name_len, xe = x + extra_len; xe - x >= 4;) {
      const std::uint64_t id = rd(b, x, 2), len = rd(b, x + 2, 2);
      if (len > xe - x - 4) fail(x, ent + ": an extra field runs past its entry");
      if (id == 1) {
        std::uint64_t q = x + 4, qe = q + len;
        for (std::uint64_t* v : {&e.size, &e.compressed, &e.header_offset}) {
          if (*v != 0xFFFFFFFF) continue;
          if (qe - q < 8) fail(q, ent + ": the ZIP64 extra field is too short");
          *v = rd(b, q, 8);
          q += 8;
        }
      }
      x += 4 + len;
    }
    if (flags & 1) fail(p + 8, ent + " is encrypted (not supported)");
    if (e.method != 0 && e.method != 8)
      fail(p + 10, ent + " uses compression method " + std::to_string(e.method) + " (accepted: 0 stored, 8 deflated)");
    if (e.method == 0 && e.compressed != e.size)
      fail(p + 20, ent + " is stored but its compressed size " + std::to_string(e.compressed) + " is not its size " +
                       std::to_string(e.size));
    if (e.size > zip_ratio_floor && (e.compressed == 0 || e.size / e.compressed >= zip_max_ratio))
      fail(p + 20, ent + ": declared compression ratio " +
                       (e.compressed ? std::to_string(e.size / e.compressed) : std::string("infinite")) + ":1 (" +
                       std::to_string(e.size) + " bytes from " + std::to_string(e.compressed) +
                       ") is over the limit of " + std::to_string(zip_max_ratio) + ":1 (a zip bomb?)");
    // The local header: its own name and extra lengths say where the data starts.
    const std::uint64_t h = e.header_offset;
    if (h > cd_offset || cd_offset - h < 30 || rd(b, h, 4) != 0x04034b50)
      fail(h, ent + ": no local header (PK\\3\\4) at byte " + std::to_string(h));
    e.data_offset = h + 30 + rd(b, h + 26, 2) + rd(b, h + 28, 2);
    if (e.data_offset > cd_offset || e.compressed > cd_offset - e.data_offset)
      fail(e.data_offset, ent + ": its " + std::to_string(e.compressed) + " data bytes from byte " +
                              std::to_string(e.data_offset) + " run into the central directory at byte " +
                              std::to_string(cd_offset) + " (truncated or damaged archive)");
    out.push_back(std::move(e));
    p += 46 + name_len + extra_len + comment_len;
  }
  return out;
}

/// Streams entry `e` of archive `b` to sink in pieces of at most chunk bytes, checking its size and
/// CRC-32. Memory: one chunk (and zlib's 32 KiB window).
inline void zip_read(std::span<const unsigned char> b, const zip_entry& e, std::string_view file,
                     const std::function<void(const unsigned char*, std::size_t)>& sink,
                     std::size_t chunk = std::size_t{1} << 18) {
  const std::string where = std::string(file) + ": entry '" + e.name + "'";
  if (e.data_offset > b.size() || e.compressed > b.size() - e.data_offset)
    throw tensor_error(where + ": data past the end of the file");
  const unsigned char* src = b.data() + e.data_offset;
  uLong crc = crc32(0L, Z_NULL, 0);
  if (e.method == 0) {
    for (std::uint64_t done = 0; done < e.size;) {
      const std::size_t n = static_cast<std::size_t>(std::min<std::uint64_t>(chunk, e.size - done));
      crc = crc32(crc, src + done, static_cast<uInt>(n));
      sink(src + done, n);
      done += n;
    }
  } else {
    z_stream z{};
    if (inflateInit2(&z, -MAX_WBITS) != Z_OK) throw tensor_error(where + ": cannot start zlib's inflate");
    struct ender {
      z_stream* z;
      ~ender() { inflateEnd(z); }
    } end_guard{&z};
    std::vector<unsigned char> out(chunk);
    std::uint64_t in_done = 0, out_done = 0;
    for (;;) {
      if (z.avail_in == 0 && in_done < e.compressed) {
        const std::uint64_t n = std::min<std::uint64_t>(e.compressed - in_done, 1u << 30);
        z.next_in = const_cast<unsigned char*>(src + in_done);
        z.avail_in = static_cast<uInt>(n);
        in_done += n;
      }
      z.next_out = out.data();
      z.avail_out = static_cast<uInt>(out.size());
      const int rc = inflate(&z, Z_NO_FLUSH);
      const std::size_t got = out.size() - z.avail_out;
      if (got > e.size - out_done)
        throw tensor_error(where + ": inflates to more than its declared " + std::to_string(e.size) +
                           " bytes (damaged archive or zip bomb)");
      if (got) {
        crc = crc32(crc, out.data(), static_cast<uInt>(got));
        sink(out.data(), got);
        out_done += got;
      }
      if (rc == Z_STREAM_END) break;
      if (rc == Z_BUF_ERROR && z.avail_in == 0 && in_done == e.compressed)
        throw tensor_error(where + ": the deflated data ends early (truncated or damaged archive)");
      if (rc != Z_OK && rc != Z_BUF_ERROR)
        throw tensor_error(where + ": bad deflated data" + (z.msg ? std::string(" (") + z.msg + ")" : std::string()));
    }
    if (out_done != e.size)
      throw tensor_error(where + ": inflates to " + std::to_string(out_done) + " bytes, its header says " +
                         std::to_string(e.size));
  }
  if (static_cast<std::uint32_t>(crc) != e.crc) {
    char buf[128];
    std::snprintf(buf, sizeof buf, "CRC-32 mismatch: the data has %08X, the directory says %08X",
                  static_cast<unsigned>(crc), static_cast<unsigned>(e.crc));
    throw tensor_error(where + ": " + buf + " (damaged archive)");
  }
}

}  // namespace floatlab
