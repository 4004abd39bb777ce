// tests/gpu/block_scaled_host.hpp: host-side pieces shared by the block-scaled recorders
// (record_block_scaled.cu, warp-level mma.sync; record_block_scaled_cublaslt.cu, cuBLASLt): binary32
// bit casts, the xorshift64* stream of the random cases, and the folder name of a GPU.
#pragma once

#include <cctype>
#include <cstdint>
#include <cstring>
#include <string>

namespace block_scaled_host {

inline uint32_t f32_bits(float x) {
  uint32_t u;
  std::memcpy(&u, &x, 4);
  return u;
}

inline float f32_of(uint32_t u) {
  float x;
  std::memcpy(&x, &u, 4);
  return x;
}

/// xorshift64* (one stream per set, from the SEED argument).
struct Rng {
  uint64_t s;
  explicit Rng(uint64_t seed) : s(seed ? seed : 1) {}
  uint64_t next() {
    s ^= s >> 12, s ^= s << 25, s ^= s >> 27;
    return s * 0x2545F4914F6CDD1Dull;
  }
  int below(int n) { return int(next() % uint64_t(n)); }
};

/// The folder name of a GPU: "NVIDIA GeForce RTX 5090" -> RTX5090, "NVIDIA B200" -> B200.
inline std::string short_name(const std::string& full) {
  std::string out, prev;
  size_t i = 0;
  while (i < full.size()) {
    while (i < full.size() && full[i] == ' ') ++i;
    size_t j = i;
    while (j < full.size() && full[j] != ' ') ++j;
    const std::string w = full.substr(i, j - i);
    i = j;
    if (w.empty() || w == "NVIDIA" || w == "GeForce" || w == "Tesla" || w == "Quadro") continue;
    if (w == "RTX" || w == "GTX") {
      prev = w;
      continue;
    }
    out = prev + w;
    break;
  }
  std::string clean;
  for (char ch : out.substr(0, out.find('-')))
    if (std::isalnum(static_cast<unsigned char>(ch)) || ch == '_') clean += ch;
  return clean.empty() ? "GPU" : clean;
}

}  // namespace block_scaled_host
