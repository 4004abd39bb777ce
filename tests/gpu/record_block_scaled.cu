// tests/gpu/record_block_scaled.cu: record warp-level block-scaled mma.sync results (MXFP8 E4M3,
// MXFP4 and NVFP4 inputs, binary32 accumulation) for tests/gpu/compare.cpp, which evaluates them
// with lf::block_scaled_dot and the presets lf::block_scaled_units::blackwell_mxf8f6f4 and
// blackwell_mxf4 (tests/gpu/README.md, "Block-scaled sets").
//
// STATUS: prepared and compiled (sm_80, sm_89, sm_90a, sm_100a, sm_120a), never run on hardware.
//
// Where the instructions exist: ptxas 13.0 accepts `mma.sync ... .block_scale` for sm_120a and
// sm_120f (the RTX Blackwell family, compute capability 12.x) and rejects it for sm_100a ("Instruction
// 'mma with block scale' not supported on .target 'sm_100a'"): on B200/GB200 (10.x) block-scaled MMA
// is tcgen05.mma with tensor memory, which this file does not drive. So the sets are compiled only
// into family-specific 12.x device code (__CUDA_ARCH_FAMILY_SPECIFIC__ 1200..1299) and run only when
// the device reports compute capability 12.x and the probe kernel says the code is present; anywhere
// else the program says the sets are skipped and exits 0.
//
// Instructions (PTX ISA 8.7+, "Warp-level matrix multiply-accumulate: mma", .block_scale):
//   mma.sync.aligned.kind::mxf8f6f4.block_scale.scale_vec::1X.m16n8k32.row.col.f32.e4m3.e4m3.f32.ue8m0
//   mma.sync.aligned.kind::mxf4.block_scale.scale_vec::2X.m16n8k64.row.col.f32.e2m1.e2m1.f32.ue8m0
//   mma.sync.aligned.kind::mxf4nvf4.block_scale.scale_vec::4X.m16n8k64.row.col.f32.e2m1.e2m1.f32.ue4m3
// each with operands d, a, b, c, scale-a-data, {byte-id-a, thread-id-a}, scale-b-data,
// {byte-id-b, thread-id-b}.
//
// Scale factors: which lane and byte of scale-a-data / scale-b-data feed which row of A / column of
// B and which K block is given by the PTX ISA's scale-factor layout figures, which this file does NOT
// rely on: every lane passes the same 32-bit word, the case's scale code in all four bytes, with
// byte-id 0 and thread-id 0. So whatever lane and byte the unit reads, every block of the case's row
// of A has scale sa and every block of its column of B has scale sb. The cases therefore test the
// arithmetic with one scale per operand (several blocks per instruction for mxf4 and mxf4nvf4, all
// with the same scale), not different scales per block.
//
// Element fragments: E4M3 m16n8k32 is the layout of "Matrix Fragments for mma.m16n8k32" (the FP8
// table record_mma.cu uses). E2M1 m16n8k64 (kind::mxf4, mxf4nvf4) is taken as the 4-bit layout of
// "Matrix Fragments for mma.m16n8k64" (.u4/.s4, and .e2m1 for these kinds): A a0..a3 eight nibbles
// each, row g (a0, a2) or g+8 (a1, a3), column 8t + i (+32 for a2, a3); B b0, b1 eight nibbles each,
// k = 8t + i (+32 for b1), column g; element i in the lowest bits first. The self-test checks both
// on the GPU (whole 16xK and Kx8 integer matrices, scale 2 for A and 4 for B, all 128 elements of
// D) before anything is recorded; a wrong layout exits with status 3.
//
// Build: nvcc -O2 -std=c++17 -gencode arch=compute_120a,code=sm_120a tests/gpu/record_block_scaled.cu
//        (any other -arch builds too; the program then reports the sets skipped)
// Run:   record_block_scaled --out DIR [--cases N] [--seed S] [--gpu NAME]
//        record_block_scaled --dry-run --cc CC --gpu NAME --out DIR   (inputs only, no GPU)
// Writes DIR/GPU/block_scaled/{mxf8f6f4_e4m3,mxf4_e2m1,mxf4nvf4_e2m1}.txt: '#' header lines
// ("# set", "# kind", "# K", "# instruction", "# dry_run", "# crafted", "# families"), then one case a
// line: sa sb c d a_0 .. a_{K-1} b_0 .. b_{K-1}, in lower-case hex (scale codes and element codes two
// digits, c and d binary32 words eight digits; d is "-" in a dry run).
// Exit status: 0 recorded or skipped; 2 a CUDA error or bad arguments; 3 the self-test failed.
#include <cuda_runtime.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#if defined(__CUDA_ARCH__) && defined(__CUDA_ARCH_FAMILY_SPECIFIC__) && __CUDA_ARCH_FAMILY_SPECIFIC__ >= 1200 && \
    __CUDA_ARCH_FAMILY_SPECIFIC__ < 1300
#define BS_HAVE_MMA 1
#else
#define BS_HAVE_MMA 0
#endif

#include "block_scaled_host.hpp"

namespace {

using block_scaled_host::f32_bits;
using block_scaled_host::f32_of;
using block_scaled_host::Rng;
using block_scaled_host::short_name;

enum class Kind { mxf8f6f4_e4m3, mxf4_e2m1, mxf4nvf4_e2m1 };

struct SetInfo {
  Kind kind;
  const char* name;
  int k;
  int block;  // elements per scale
  const char* ptx;
};

const SetInfo kSets[] = {
    {Kind::mxf8f6f4_e4m3, "mxf8f6f4_e4m3", 32, 32,
     "mma.sync.aligned.kind::mxf8f6f4.block_scale.scale_vec::1X.m16n8k32.row.col.f32.e4m3.e4m3.f32.ue8m0"},
    {Kind::mxf4_e2m1, "mxf4_e2m1", 64, 32,
     "mma.sync.aligned.kind::mxf4.block_scale.scale_vec::2X.m16n8k64.row.col.f32.e2m1.e2m1.f32.ue8m0"},
    {Kind::mxf4nvf4_e2m1, "mxf4nvf4_e2m1", 64, 16,
     "mma.sync.aligned.kind::mxf4nvf4.block_scale.scale_vec::4X.m16n8k64.row.col.f32.e2m1.e2m1.f32.ue4m3"},
};

// ---- element and scale values (host) ----------------------------------------------------------------
double e4m3_value(uint32_t c) {  // OCP E4M3 (fn): bias 7, no infinities, S.1111.111 NaN
  const int s = (c >> 7) & 1, e = (c >> 3) & 15, m = c & 7;
  const double v = e == 0 ? std::ldexp(m, -9) : std::ldexp(8 + m, e - 10);
  return s ? -v : v;
}
double e2m1_value(uint32_t c) {  // OCP E2M1: 0, 0.5, 1, 1.5, 2, 3, 4, 6
  static const double v[8] = {0, 0.5, 1, 1.5, 2, 3, 4, 6};
  return (c & 8) ? -v[c & 7] : v[c & 7];
}
double elem_value(Kind k, uint32_t c) { return k == Kind::mxf8f6f4_e4m3 ? e4m3_value(c) : e2m1_value(c); }
double scale_value(Kind k, uint32_t c) { return k == Kind::mxf4nvf4_e2m1 ? e4m3_value(c & 0x7f) : std::ldexp(1.0, int(c) - 127); }
uint32_t scale_one(Kind k) { return k == Kind::mxf4nvf4_e2m1 ? 0x38 : 127; }


// ---- fragment layouts (file comment), g = lane >> 2, t = lane % 4 -------------------------------------
__host__ __device__ inline int elem_bits(Kind k) { return k == Kind::mxf8f6f4_e4m3 ? 8 : 4; }

// Element i (0 .. 32/bits*4 - 1) of a lane's A fragment: (row, col).
__host__ __device__ inline void a_pos(Kind k, int i, int g, int t, int& row, int& col) {
  const int per = 32 / elem_bits(k), reg = i / per, j = i % per;  // j: element within the register
  row = (reg & 1) ? g + 8 : g;
  col = per * t + j + (reg >= 2 ? 4 * per : 0);
}
// Element i of a lane's B fragment: (k, n).
__host__ __device__ inline void b_pos(Kind k, int i, int g, int t, int& kk, int& n) {
  const int per = 32 / elem_bits(k), reg = i / per, j = i % per;
  kk = per * t + j + (reg ? 4 * per : 0);
  n = g;
}
__host__ __device__ inline void c_pos(int i, int g, int t, int& row, int& col) {
  row = i < 2 ? g : g + 8;
  col = 2 * t + (i & 1);
}

// ---- the kernel: one warp per triple (A 16xK codes, B Kx8 codes, C 16x8 binary32) ------------------
// A: 16*K codes row-major, B: K*8 codes row-major (k, n), scales: one code for A and one for B.
template <Kind KIND>
__global__ void bs_kernel(const uint8_t* A, const uint8_t* B, const uint32_t* C, const uint32_t* SA, const uint32_t* SB,
                          uint32_t* D, int count) {
#if BS_HAVE_MMA
  constexpr int K = KIND == Kind::mxf8f6f4_e4m3 ? 32 : 64;
  constexpr int bits = KIND == Kind::mxf8f6f4_e4m3 ? 8 : 4;
  constexpr int per = 32 / bits;
  const int w = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;
  if (w >= count) return;
  const int lane = threadIdx.x % 32, g = lane >> 2, t = lane & 3;
  const uint8_t* a = A + size_t(w) * 16 * K;
  const uint8_t* b = B + size_t(w) * K * 8;
  uint32_t ra[4] = {0, 0, 0, 0}, rb[2] = {0, 0};
  for (int i = 0; i < 4 * per; ++i) {
    int r, c;
    a_pos(KIND, i, g, t, r, c);
    ra[i / per] |= uint32_t(a[r * K + c] & ((1u << bits) - 1)) << (bits * (i % per));
  }
  for (int i = 0; i < 2 * per; ++i) {
    int kk, n;
    b_pos(KIND, i, g, t, kk, n);
    rb[i / per] |= uint32_t(b[kk * 8 + n] & ((1u << bits) - 1)) << (bits * (i % per));
  }
  float c[4], d[4];
  for (int i = 0; i < 4; ++i) {
    int r, col;
    c_pos(i, g, t, r, col);
    c[i] = __uint_as_float(C[size_t(w) * 128 + r * 8 + col]);
  }
  const uint32_t sa = SA[w] * 0x01010101u, sb = SB[w] * 0x01010101u;  // the same code in every byte
  const uint16_t id0 = 0;
  if constexpr (KIND == Kind::mxf8f6f4_e4m3) {
    asm volatile(
        "mma.sync.aligned.kind::mxf8f6f4.block_scale.scale_vec::1X.m16n8k32.row.col.f32.e4m3.e4m3.f32.ue8m0 "
        "{%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%10,%11,%12,%13}, {%14}, {%15,%16}, {%17}, {%18,%19};"
        : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3])
        : "r"(ra[0]), "r"(ra[1]), "r"(ra[2]), "r"(ra[3]), "r"(rb[0]), "r"(rb[1]), "f"(c[0]), "f"(c[1]), "f"(c[2]),
          "f"(c[3]), "r"(sa), "h"(id0), "h"(id0), "r"(sb), "h"(id0), "h"(id0));
  } else if constexpr (KIND == Kind::mxf4_e2m1) {
    asm volatile(
        "mma.sync.aligned.kind::mxf4.block_scale.scale_vec::2X.m16n8k64.row.col.f32.e2m1.e2m1.f32.ue8m0 "
        "{%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%10,%11,%12,%13}, {%14}, {%15,%16}, {%17}, {%18,%19};"
        : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3])
        : "r"(ra[0]), "r"(ra[1]), "r"(ra[2]), "r"(ra[3]), "r"(rb[0]), "r"(rb[1]), "f"(c[0]), "f"(c[1]), "f"(c[2]),
          "f"(c[3]), "r"(sa), "h"(id0), "h"(id0), "r"(sb), "h"(id0), "h"(id0));
  } else {
    asm volatile(
        "mma.sync.aligned.kind::mxf4nvf4.block_scale.scale_vec::4X.m16n8k64.row.col.f32.e2m1.e2m1.f32.ue4m3 "
        "{%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%10,%11,%12,%13}, {%14}, {%15,%16}, {%17}, {%18,%19};"
        : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3])
        : "r"(ra[0]), "r"(ra[1]), "r"(ra[2]), "r"(ra[3]), "r"(rb[0]), "r"(rb[1]), "f"(c[0]), "f"(c[1]), "f"(c[2]),
          "f"(c[3]), "r"(sa), "h"(id0), "h"(id0), "r"(sb), "h"(id0), "h"(id0));
  }
  for (int i = 0; i < 4; ++i) {
    int r, col;
    c_pos(i, g, t, r, col);
    D[size_t(w) * 128 + r * 8 + col] = __float_as_uint(d[i]);
  }
#else
  (void)A, (void)B, (void)C, (void)SA, (void)SB, (void)D, (void)count;
#endif
}

__global__ void probe(int* out) { *out = BS_HAVE_MMA; }

bool cuda_ok(cudaError_t e, const char* what) {
  if (e == cudaSuccess) return true;
  std::fprintf(stderr, "record_block_scaled: %s: %s\n", what, cudaGetErrorString(e));
  return false;
}

// Runs count triples; returns D (count*128 words).
bool run(Kind k, int K, const std::vector<uint8_t>& A, const std::vector<uint8_t>& B, const std::vector<uint32_t>& C,
         const std::vector<uint32_t>& SA, const std::vector<uint32_t>& SB, std::vector<uint32_t>& D) {
  const int count = int(SA.size());
  uint8_t *dA = nullptr, *dB = nullptr;
  uint32_t *dC = nullptr, *dSA = nullptr, *dSB = nullptr, *dD = nullptr;
  bool ok = cuda_ok(cudaMalloc(&dA, A.size()), "cudaMalloc") && cuda_ok(cudaMalloc(&dB, B.size()), "cudaMalloc") &&
            cuda_ok(cudaMalloc(&dC, C.size() * 4), "cudaMalloc") && cuda_ok(cudaMalloc(&dSA, SA.size() * 4), "cudaMalloc") &&
            cuda_ok(cudaMalloc(&dSB, SB.size() * 4), "cudaMalloc") && cuda_ok(cudaMalloc(&dD, C.size() * 4), "cudaMalloc");
  ok = ok && cuda_ok(cudaMemcpy(dA, A.data(), A.size(), cudaMemcpyHostToDevice), "cudaMemcpy") &&
       cuda_ok(cudaMemcpy(dB, B.data(), B.size(), cudaMemcpyHostToDevice), "cudaMemcpy") &&
       cuda_ok(cudaMemcpy(dC, C.data(), C.size() * 4, cudaMemcpyHostToDevice), "cudaMemcpy") &&
       cuda_ok(cudaMemcpy(dSA, SA.data(), SA.size() * 4, cudaMemcpyHostToDevice), "cudaMemcpy") &&
       cuda_ok(cudaMemcpy(dSB, SB.data(), SB.size() * 4, cudaMemcpyHostToDevice), "cudaMemcpy") &&
       cuda_ok(cudaMemset(dD, 0xff, C.size() * 4), "cudaMemset");
  if (ok) {
    const int warps = 4, blocks = (count + warps - 1) / warps;
    if (k == Kind::mxf8f6f4_e4m3) bs_kernel<Kind::mxf8f6f4_e4m3><<<blocks, 32 * warps>>>(dA, dB, dC, dSA, dSB, dD, count);
    else if (k == Kind::mxf4_e2m1) bs_kernel<Kind::mxf4_e2m1><<<blocks, 32 * warps>>>(dA, dB, dC, dSA, dSB, dD, count);
    else bs_kernel<Kind::mxf4nvf4_e2m1><<<blocks, 32 * warps>>>(dA, dB, dC, dSA, dSB, dD, count);
    ok = cuda_ok(cudaGetLastError(), "kernel launch") && cuda_ok(cudaDeviceSynchronize(), "kernel");
  }
  D.assign(C.size(), 0);
  ok = ok && cuda_ok(cudaMemcpy(D.data(), dD, D.size() * 4, cudaMemcpyDeviceToHost), "cudaMemcpy");
  cudaFree(dA), cudaFree(dB), cudaFree(dC), cudaFree(dSA), cudaFree(dSB), cudaFree(dD);
  (void)K;
  return ok;
}

// ---- random numbers: xorshift64* -------------------------------------------------------------------

// ---- host check of the layout tables: every element of A, B, C once -----------------------------------
bool layouts_cover(Kind k, int K) {
  const int per = 32 / elem_bits(k);
  std::vector<int> a(16 * K, 0), b(K * 8, 0), c(128, 0);
  for (int lane = 0; lane < 32; ++lane) {
    const int g = lane >> 2, t = lane & 3;
    for (int i = 0; i < 4 * per; ++i) {
      int r, col;
      a_pos(k, i, g, t, r, col);
      if (r < 0 || r >= 16 || col < 0 || col >= K) return false;
      ++a[r * K + col];
    }
    for (int i = 0; i < 2 * per; ++i) {
      int kk, n;
      b_pos(k, i, g, t, kk, n);
      if (kk < 0 || kk >= K || n < 0 || n >= 8) return false;
      ++b[kk * 8 + n];
    }
    for (int i = 0; i < 4; ++i) {
      int r, col;
      c_pos(i, g, t, r, col);
      ++c[r * 8 + col];
    }
  }
  for (int v : a) if (v != 1) return false;
  for (int v : b) if (v != 1) return false;
  for (int v : c) if (v != 1) return false;
  return true;
}

// Small-integer element codes (values 0, +-1, +-2, +-3): every sum below is exact in binary32.
uint32_t small_code(Kind k, int v) {
  const int m = v < 0 ? -v : v;
  uint32_t c;
  if (k == Kind::mxf8f6f4_e4m3) c = m == 0 ? 0 : m == 1 ? 0x38 : m == 2 ? 0x40 : 0x44;
  else c = m == 0 ? 0 : m == 1 ? 2 : m == 2 ? 4 : 5;
  return v < 0 ? c | (k == Kind::mxf8f6f4_e4m3 ? 0x80 : 0x8) : c;
}

// The self-test: 4 triples of whole random integer matrices, A scale 2, B scale 4; all 128 D checked.
bool selftest(const SetInfo& s, Rng& rng) {
  const int n = 4, K = s.k;
  std::vector<uint8_t> A(n * 16 * K), B(n * K * 8);
  std::vector<int> av(A.size()), bv(B.size());
  std::vector<uint32_t> C(n * 128), SA(n), SB(n), D;
  for (size_t i = 0; i < A.size(); ++i) av[i] = rng.below(7) - 3, A[i] = uint8_t(small_code(s.kind, av[i]));
  for (size_t i = 0; i < B.size(); ++i) bv[i] = rng.below(7) - 3, B[i] = uint8_t(small_code(s.kind, bv[i]));
  for (size_t i = 0; i < C.size(); ++i) C[i] = f32_bits(float(rng.below(201) - 100));
  const uint32_t two = s.kind == Kind::mxf4nvf4_e2m1 ? 0x40 : 128, four = s.kind == Kind::mxf4nvf4_e2m1 ? 0x48 : 129;
  for (int w = 0; w < n; ++w) SA[w] = two, SB[w] = four;
  if (!run(s.kind, K, A, B, C, SA, SB, D)) return false;
  int bad = 0;
  for (int w = 0; w < n; ++w)
    for (int r = 0; r < 16; ++r)
      for (int col = 0; col < 8; ++col) {
        double sum = 0;
        for (int k = 0; k < K; ++k) sum += double(av[w * 16 * K + r * K + k]) * bv[w * K * 8 + k * 8 + col];
        const float want = float(8.0 * sum + f32_of(C[w * 128 + r * 8 + col]));
        const uint32_t got = D[w * 128 + r * 8 + col];
        if (got != f32_bits(want) && bad++ < 4)
          std::fprintf(stderr, "  self-test %s: triple %d D[%d][%d] = %g, expected %g\n", s.name, w, r, col,
                       double(f32_of(got)), double(want));
      }
  if (bad) std::fprintf(stderr, "record_block_scaled: self-test %s failed in %d of %d elements\n", s.name, bad, n * 128);
  else std::printf("self-test %s: all %d elements of D match\n", s.name, n * 128);
  return bad == 0;
}

// ---- the cases ---------------------------------------------------------------------------------------
struct Case {
  uint32_t sa, sb, c;
  std::vector<uint8_t> a, b;
};

const char* const kFamilies[] = {"unit", "wide", "cancel", "c_extreme", "bits"};
constexpr int kNumFamilies = 5;

bool finite_elem(Kind k, uint32_t c) { return k != Kind::mxf8f6f4_e4m3 || (c & 0x7f) != 0x7f; }
uint32_t rand_elem(Kind k, Rng& r) {
  for (;;) {
    const uint32_t c = uint32_t(r.next() >> 40) & (k == Kind::mxf8f6f4_e4m3 ? 0xff : 0xf);
    if (finite_elem(k, c)) return c;
  }
}
// A scale code whose value is 2^e, e in [lo, hi] (E8M0), or an E4M3 scale near 2^e (UE4M3: 2^-9 .. 448).
uint32_t scale_code(Kind k, int e, Rng& r) {
  if (k != Kind::mxf4nvf4_e2m1) return uint32_t(127 + e);
  int be = e + 7;  // biased exponent of E4M3
  if (be < 1) be = 1;
  if (be > 15) be = 15;
  uint32_t c = uint32_t(be << 3) | uint32_t(r.below(8));
  if (c == 0x7f) c = 0x7e;
  return c;
}
// The exact value of a case's products plus nothing: sum of a_i b_i times both scales.
double products(Kind k, const Case& x) {
  double s = 0;
  for (size_t i = 0; i < x.a.size(); ++i) s += elem_value(k, x.a[i]) * elem_value(k, x.b[i]);
  return s * scale_value(k, x.sa) * scale_value(k, x.sb);
}

std::vector<Case> make_cases(const SetInfo& s, int n, uint64_t seed, int& crafted) {
  Rng rng(seed ^ (uint64_t(s.kind) + 1) * 0x9E3779B97F4A7C15ull);
  const Kind k = s.kind;
  const int K = s.k;
  const uint32_t one = scale_one(k);
  std::vector<Case> out;
  auto blank = [&]() {
    Case x{one, one, 0, std::vector<uint8_t>(K, 0), std::vector<uint8_t>(K, 0)};
    return x;
  };
  // crafted: signs of zero, c alone, exact sums, alignment probes, cancellation, scale extremes
  {
    Case x = blank();
    x.c = 0x80000000u;
    out.push_back(x);  // -0 + (+0 products)
    x.a[0] = uint8_t(small_code(k, -1)), x.b[0] = 0;
    out.push_back(x);  // -0 + (-1 * 0)
    Case y = blank();
    y.c = f32_bits(1.0f);
    out.push_back(y);  // c alone
    for (int i = 0; i < K; ++i) y.a[i] = uint8_t(small_code(k, 1 + i % 3)), y.b[i] = uint8_t(small_code(k, 1));
    out.push_back(y);  // exact sum
    for (int sh = 4; sh <= 40; sh += 4) {  // alignment: c and one product 1, 2^sh apart
      Case z = blank();
      z.a[K - 1] = uint8_t(small_code(k, 1)), z.b[K - 1] = uint8_t(small_code(k, 1));
      z.c = f32_bits(std::ldexp(1.0f, sh));  // c = 2^sh, product 1 (unit scales)
      out.push_back(z);
      if (k != Kind::mxf4nvf4_e2m1) {  // c = 1, product 2^-sh through the E8M0 scales
        z.c = f32_bits(1.0f);
        z.sa = scale_code(k, -sh / 2, rng), z.sb = scale_code(k, -(sh - sh / 2), rng);
        out.push_back(z);
      }
    }
    Case w = blank();  // cancellation: x - x + small
    for (int i = 0; i < K / 2; ++i) {
      w.a[i] = uint8_t(rand_elem(k, rng)), w.b[i] = uint8_t(rand_elem(k, rng));
      w.a[i + K / 2] = uint8_t(w.a[i] ^ (k == Kind::mxf8f6f4_e4m3 ? 0x80 : 0x8)), w.b[i + K / 2] = w.b[i];
    }
    w.c = f32_bits(std::ldexp(1.0f, -20));
    out.push_back(w);
  }
  crafted = int(out.size());
  for (int i = 0; int(out.size()) < n; ++i) {
    const int fam = i % kNumFamilies;
    Case x = blank();
    int ea = 0, eb = 0;
    if (fam == 1) ea = rng.below(61) - 30, eb = rng.below(61) - 30;  // wide
    else ea = rng.below(5) - 2, eb = rng.below(5) - 2;
    x.sa = scale_code(k, ea, rng), x.sb = scale_code(k, eb, rng);
    for (int j = 0; j < K; ++j) {
      x.a[j] = uint8_t(rand_elem(k, rng)), x.b[j] = uint8_t(rand_elem(k, rng));
      if (fam == 0 && k == Kind::mxf8f6f4_e4m3) {  // unit: element exponents near 1
        x.a[j] = uint8_t((x.a[j] & 0x87) | ((6 + rng.below(3)) << 3));
        x.b[j] = uint8_t((x.b[j] & 0x87) | ((6 + rng.below(3)) << 3));
      }
    }
    if (fam == 2)  // cancel: the second half repeats the first with the other sign, some one ulp off
      for (int j = 0; j < K / 2; ++j) {
        x.a[j + K / 2] = uint8_t(x.a[j] ^ (k == Kind::mxf8f6f4_e4m3 ? 0x80 : 0x8));
        x.b[j + K / 2] = uint8_t(x.b[j] ^ (rng.below(4) == 0 && (x.b[j] & 1) == 0 ? 1 : 0));
        if (!finite_elem(k, x.b[j + K / 2])) x.b[j + K / 2] = x.b[j];
      }
    const double p = products(k, x);
    double cv = (rng.below(2) ? -1 : 1) * std::ldexp(1.0 + rng.below(1 << 20) / double(1 << 20), int(std::ilogb(p == 0 ? 1.0 : p)) - rng.below(4));
    if (fam == 3) cv = std::ldexp(cv, (rng.below(2) ? 1 : -1) * (13 + rng.below(22)));
    if (fam == 4) cv = f32_of(uint32_t(rng.next() >> 32) & 0x7f7fffffu) * (rng.below(2) ? -1.0f : 1.0f);
    x.c = f32_bits(float(cv));
    if (!std::isfinite(f32_of(x.c))) x.c = 0;
    out.push_back(x);
  }
  return out;
}

void usage() {
  std::fprintf(stderr,
               "usage: record_block_scaled --out DIR [--cases N] [--seed S] [--gpu NAME] [--device I]\n"
               "       record_block_scaled --dry-run --cc CC --gpu NAME --out DIR ...   (inputs only, no GPU)\n");
}


}  // namespace

int main(int argc, char** argv) {
  std::string out, gpu;
  int cases = 2000, device = 0, cc = 0;
  uint64_t seed = 0x6C69626661ull;
  bool dry = false;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto val = [&]() -> std::string {
      if (i + 1 >= argc) { usage(); std::exit(2); }
      return argv[++i];
    };
    if (a == "--out") out = val();
    else if (a == "--gpu") gpu = val();
    else if (a == "--cases") cases = std::atoi(val().c_str());
    else if (a == "--seed") seed = std::strtoull(val().c_str(), nullptr, 0);
    else if (a == "--device") device = std::atoi(val().c_str());
    else if (a == "--cc") cc = std::atoi(val().c_str());
    else if (a == "--dry-run") dry = true;
    else { usage(); return 2; }
  }
  if (out.empty() || cases < 1 || (dry && (gpu.empty() || cc == 0))) { usage(); return 2; }

  for (const auto& s : kSets)
    if (!layouts_cover(s.kind, s.k)) {
      std::fprintf(stderr, "record_block_scaled: the fragment tables of %s do not cover A, B and C once each\n", s.name);
      return 3;
    }

  int have = 0;
  if (!dry) {
    int n = 0;
    if (!cuda_ok(cudaGetDeviceCount(&n), "cudaGetDeviceCount") || n == 0) return 2;
    if (!cuda_ok(cudaSetDevice(device), "cudaSetDevice")) return 2;
    cudaDeviceProp prop{};
    if (!cuda_ok(cudaGetDeviceProperties(&prop, device), "cudaGetDeviceProperties")) return 2;
    cc = prop.major * 10 + prop.minor;
    if (gpu.empty()) gpu = short_name(prop.name);
    if (prop.major != 12) {
      std::printf("block-scaled sets skipped: %s is sm_%d; warp-level mma.sync .block_scale (kind::mxf8f6f4, mxf4, "
                  "mxf4nvf4) exists on compute capability 12.x only (sm_120a/sm_120f; ptxas rejects it for sm_100a, "
                  "where block-scaled MMA is tcgen05.mma, not prepared here)\n",
                  prop.name, cc);
      return 0;
    }
    int* dp = nullptr;
    if (!cuda_ok(cudaMalloc(&dp, sizeof(int)), "cudaMalloc")) return 2;
    probe<<<1, 1>>>(dp);
    cudaError_t e = cudaGetLastError();
    if (e == cudaSuccess) e = cudaDeviceSynchronize();
    if (e == cudaSuccess) e = cudaMemcpy(&have, dp, sizeof(int), cudaMemcpyDeviceToHost);
    cudaFree(dp);
    if (e != cudaSuccess || !have) {
      std::printf("block-scaled sets skipped: the device code was not built for this GPU's family-specific target "
                  "(build with -gencode arch=compute_%da,code=sm_%da)%s%s\n",
                  cc, cc, e != cudaSuccess ? ": " : "", e != cudaSuccess ? cudaGetErrorString(e) : "");
      return 0;
    }
    Rng rng(seed ^ 0x5e1f7e57ull);
    for (const auto& s : kSets)
      if (!selftest(s, rng)) return 3;
  } else {
    if (cc / 10 != 12) {
      std::printf("block-scaled sets skipped (dry run for sm_%d): warp-level mma.sync .block_scale exists on compute "
                  "capability 12.x only (use --cc 120 to write their inputs)\n",
                  cc);
      return 0;
    }
    std::printf("record_block_scaled --dry-run: inputs only, nothing measured\n");
  }

  for (const auto& s : kSets) {
    int crafted = 0;
    const std::vector<Case> cs = make_cases(s, cases, seed, crafted);
    std::vector<uint32_t> d(cs.size(), 0);
    if (!dry) {  // one case per triple: row 0 of A, column 0 of B, C[0][0]; the rest zero
      const int K = s.k, n = int(cs.size());
      std::vector<uint8_t> A(size_t(n) * 16 * K, 0), B(size_t(n) * K * 8, 0);
      std::vector<uint32_t> C(size_t(n) * 128, 0), SA(n), SB(n), D;
      for (int w = 0; w < n; ++w) {
        for (int j = 0; j < K; ++j) A[size_t(w) * 16 * K + j] = cs[w].a[j], B[size_t(w) * K * 8 + j * 8] = cs[w].b[j];
        C[size_t(w) * 128] = cs[w].c, SA[w] = cs[w].sa, SB[w] = cs[w].sb;
      }
      if (!run(s.kind, K, A, B, C, SA, SB, D)) return 2;
      int nonzero = 0;
      for (int w = 0; w < n; ++w) {
        d[w] = D[size_t(w) * 128];
        for (int e = 1; e < 128; ++e) nonzero += (D[size_t(w) * 128 + e] & 0x7fffffffu) != 0;
      }
      if (nonzero) {
        std::fprintf(stderr, "record_block_scaled: %s: %d elements of D other than D[0][0] are not zero\n", s.name, nonzero);
        return 3;
      }
    }
    const std::filesystem::path dir = std::filesystem::path(out) / gpu / "block_scaled";
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    std::ofstream f(dir / (std::string(s.name) + ".txt"));
    if (!f) {
      std::fprintf(stderr, "record_block_scaled: cannot write %s\n", (dir / s.name).string().c_str());
      return 2;
    }
    f << "# set " << s.name << "\n# K " << s.k << "\n# block " << s.block << "\n# instruction " << s.ptx
      << "\n# compute_capability " << cc << "\n# dry_run " << (dry ? 1 : 0) << "\n# crafted " << crafted
      << "\n# families";
    for (const char* fam : kFamilies) f << ' ' << fam;
    f << "\n# columns: sa sb c d a_0..a_{K-1} b_0..b_{K-1} (one scale code per operand for every block)\n";
    char buf[16];
    for (size_t i = 0; i < cs.size(); ++i) {
      std::snprintf(buf, sizeof buf, "%02x %02x ", cs[i].sa, cs[i].sb);
      f << buf;
      std::snprintf(buf, sizeof buf, "%08x ", cs[i].c);
      f << buf;
      if (dry) f << "- ";
      else {
        std::snprintf(buf, sizeof buf, "%08x ", d[i]);
        f << buf;
      }
      for (int j = 0; j < s.k; ++j) std::snprintf(buf, sizeof buf, "%02x ", cs[i].a[j]), f << buf;
      for (int j = 0; j < s.k; ++j) std::snprintf(buf, sizeof buf, j + 1 < s.k ? "%02x " : "%02x", cs[i].b[j]), f << buf;
      f << '\n';
    }
    std::printf("%s: %zu cases (%d crafted)%s -> %s\n", s.name, cs.size(), crafted, dry ? " (inputs only)" : "",
                (dir / (std::string(s.name) + ".txt")).string().c_str());
  }
  return 0;
}
