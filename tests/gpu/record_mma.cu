// tests/gpu/record_mma.cu: records D = A*B + C computed by the tensor cores of an NVIDIA GPU, one
// block FMA per case, with the warp-level mma.sync instruction (PTX ISA "Warp Level Matrix
// Multiply-Accumulate Instructions"), and writes the cases in the layout of tests/data/tensor-core-hw
// (MATLAB-tensor-core model_validation, Khattak and Mikaitis, BSD-2; see tests/gpu/README.md).
//
// Each case is one dot product of K terms: its a-vector is row 0 of A, its b-vector column 0 of B,
// its c is C[0][0]; every other element is zero, and D[0][0] is the result (the other elements of D
// are checked to be zero). Before recording, every instruction used is checked against an exact
// product of whole 16xK and Kx8 matrices of small integers, which catches a wrong fragment layout.
//
// Build (sm_80 or newer; FP8 needs sm_89 or newer and CUDA 12.4 or newer, FP8 with a binary16
// accumulator CUDA 12.8 or newer):
//   nvcc -O2 -std=c++17 -arch=sm_90 tests/gpu/record_mma.cu -o record_mma
// Run: record_mma --out DIR [--cases N] [--seed S] [--shapes recorded|extra] [--gpu NAME]
//      record_mma --dry-run --gpu NAME --cc 90 --out DIR   (inputs only, no GPU; d files are zero)
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

// What this nvcc can assemble: e4m3/e5m2 mma needs PTX ISA 8.4 (CUDA 12.4); their binary16
// accumulator PTX ISA 8.7 (CUDA 12.8). -DRECORD_FP8=0 or -DRECORD_FP8_F16=0 turns them off.
#define RECORD_NVCC_VERSION (__CUDACC_VER_MAJOR__ * 100 + __CUDACC_VER_MINOR__)
#ifndef RECORD_FP8
#if RECORD_NVCC_VERSION >= 1204
#define RECORD_FP8 1
#else
#define RECORD_FP8 0
#endif
#endif
#ifndef RECORD_FP8_F16
#if RECORD_FP8 && RECORD_NVCC_VERSION >= 1208
#define RECORD_FP8_F16 1
#else
#define RECORD_FP8_F16 0
#endif
#endif

namespace {

// ---- input formats ------------------------------------------------------------------------------

enum class Kind { f16, bf16, tf32, e4m3, e5m2 };

struct Fmt {
  Kind kind;
  const char* folder;  // the folder name of the recorded layout
  int ebits, mbits, bias;
  bool fn;  // E4M3 (OCP "fn"): no infinities, S.1111.111 is NaN, so the top exponent is finite
  int emin() const { return 1 - bias; }
  int max_field() const { return fn ? (1 << ebits) - 1 : (1 << ebits) - 2; }
  int emax() const { return max_field() - bias; }
};

const Fmt kFmts[] = {
    {Kind::f16, "fp16", 5, 10, 15, false}, {Kind::bf16, "bf16", 8, 7, 127, false},
    {Kind::tf32, "tf32", 8, 10, 127, false}, {Kind::e4m3, "E4M3", 4, 3, 7, true},
    {Kind::e5m2, "E5M2", 5, 2, 15, false},
};

const Fmt& fmt_of(Kind k) {
  for (const Fmt& f : kFmts)
    if (f.kind == k) return f;
  std::abort();
}

// An encoding of f: sign, exponent field, fraction, packed as usual (tf32 as its 19 bits).
uint32_t pack(const Fmt& f, uint32_t sign, uint32_t field, uint32_t mant) {
  return (sign << (f.ebits + f.mbits)) | (field << f.mbits) | mant;
}

// The exact value of an encoding (finite ones only are ever made here).
double decode(const Fmt& f, uint32_t enc) {
  const uint32_t mant = enc & ((1u << f.mbits) - 1);
  const uint32_t field = (enc >> f.mbits) & ((1u << f.ebits) - 1);
  const bool neg = (enc >> (f.ebits + f.mbits)) & 1;
  const double m = field == 0 ? std::ldexp(double(mant), f.emin() - f.mbits)
                              : std::ldexp(double(mant + (1u << f.mbits)), int(field) - f.bias - f.mbits);
  return neg ? -m : m;
}

// The encoding of v if v is a finite value of f.
bool encode_exact(const Fmt& f, double v, uint32_t& enc) {
  const uint32_t sign = std::signbit(v) ? 1 : 0;
  const double a = std::fabs(v);
  if (a == 0) {
    enc = pack(f, sign, 0, 0);
    return true;
  }
  int e2 = 0;
  std::frexp(a, &e2);  // a = m * 2^e2, m in [0.5, 1)
  const int e = e2 - 1;
  double mant;
  uint32_t field;
  if (e < f.emin()) {
    field = 0;
    mant = std::ldexp(a, f.mbits - f.emin());
  } else {
    if (e > f.emax()) return false;
    field = uint32_t(e + f.bias);
    mant = std::ldexp(a, f.mbits - e) - std::ldexp(1.0, f.mbits);
  }
  if (mant != std::floor(mant) || mant >= std::ldexp(1.0, f.mbits)) return false;
  if (f.fn && field == uint32_t(f.max_field()) && uint32_t(mant) == (1u << f.mbits) - 1) return false;  // NaN
  enc = pack(f, sign, field, uint32_t(mant));
  return decode(f, enc) == v;
}

// The word mma.sync reads for an element: binary16/bf16/FP8 encodings as they are, tf32 as the
// binary32 pattern with the low 13 fraction bits zero (PTX ISA "Alternate Floating-Point Data
// Formats": .tf32 has the layout of .f32 and uses its upper 19 bits).
uint32_t device_word(const Fmt& f, uint32_t enc) { return f.kind == Kind::tf32 ? enc << 13 : enc; }

uint32_t f32_bits(float x) {
  uint32_t u;
  std::memcpy(&u, &x, 4);
  return u;
}
float f32_of(uint32_t u) {
  float x;
  std::memcpy(&x, &u, 4);
  return x;
}
// Every finite value of the input formats is a binary32 value: the cast is exact.
uint32_t binary32_of(const Fmt& f, uint32_t enc) { return f32_bits(float(decode(f, enc))); }
// binary32 to binary16, nearest even (C for a binary16 accumulator), and a binary16 result back to
// binary32 (exact; infinities and NaN too), with cuda_fp16.h's host conversions.
uint32_t f16_bits_rne(uint32_t f32) { return static_cast<__half_raw>(__float2half_rn(f32_of(f32))).x; }
uint32_t binary32_of_f16(uint32_t h) {
  __half_raw r;
  r.x = static_cast<unsigned short>(h & 0xFFFF);
  return f32_bits(__half2float(__half(r)));
}

// ---- fragment layouts ---------------------------------------------------------------------------
// Which element of A (row, col), B (k, n) and C/D (row, col) element i of a lane's fragment holds,
// with g = laneid >> 2 (groupID) and t = laneid % 4 (threadID_in_group), transcribed from the PTX
// ISA sections "Matrix Fragments for mma.m16n8k4" (.tf32), "... mma.m16n8k8" (.f16/.bf16, .tf32),
// "... mma.m16n8k16 with floating point type" (.f16/.bf16) and "... mma.m16n8k32" (.e4m3/.e5m2):
// 9.7.14.5.6, .7, .8 and .10 in PTX ISA 8.x (9.7.15.5.x in later versions; anchors
// warp-level-matrix-fragment-mma-1684, -1688, -16816-float, -16832).
// Several elements share a 32-bit register, element i in the lowest bits first ("Elements (low to
// high)" in those tables).

template <Kind KIND>
__host__ __device__ constexpr int elem_bits() {
  return KIND == Kind::tf32 ? 32 : (KIND == Kind::f16 || KIND == Kind::bf16) ? 16 : 8;
}

template <Kind KIND, int K>
__host__ __device__ void a_pos(int i, int g, int t, int& row, int& col) {
  if constexpr (KIND == Kind::tf32 && K == 4) {  // a0 (g, t), a1 (g+8, t)
    row = i == 0 ? g : g + 8;
    col = t;
  } else if constexpr (KIND == Kind::tf32 && K == 8) {  // a0 (g,t) a1 (g+8,t) a2 (g,t+4) a3 (g+8,t+4)
    row = (i & 1) ? g + 8 : g;
    col = t + (i >= 2 ? 4 : 0);
  } else if constexpr (elem_bits<KIND>() == 16 && K == 8) {  // a0,a1 row g; a2,a3 row g+8
    row = i < 2 ? g : g + 8;
    col = 2 * t + (i & 1);
  } else if constexpr (elem_bits<KIND>() == 16 && K == 16) {  // rows g for a0,a1,a4,a5; +8 cols for a4..a7
    row = (i & 2) ? g + 8 : g;
    col = 2 * t + (i & 1) + (i >= 4 ? 8 : 0);
  } else {  // FP8 m16n8k32: rows g for a0..a3, a8..a11; +16 cols for a8..a15
    static_assert(elem_bits<KIND>() == 8 && K == 32, "no such mma shape here");
    row = (i & 4) ? g + 8 : g;
    col = 4 * t + (i & 3) + (i >= 8 ? 16 : 0);
  }
}

template <Kind KIND, int K>
__host__ __device__ void b_pos(int i, int g, int t, int& k, int& n) {
  n = g;
  if constexpr (KIND == Kind::tf32 && K == 4) {
    k = t;
  } else if constexpr (KIND == Kind::tf32 && K == 8) {
    k = t + (i ? 4 : 0);
  } else if constexpr (elem_bits<KIND>() == 16 && K == 8) {
    k = 2 * t + i;
  } else if constexpr (elem_bits<KIND>() == 16 && K == 16) {
    k = 2 * t + (i & 1) + (i >= 2 ? 8 : 0);
  } else {
    static_assert(elem_bits<KIND>() == 8 && K == 32, "no such mma shape here");
    k = 4 * t + (i & 3) + (i >= 4 ? 16 : 0);
  }
}

// C and D, every shape here: c0, c1 in row g, c2, c3 in row g+8, column 2t + (i & 1).
__host__ __device__ inline void c_pos(int i, int g, int t, int& row, int& col) {
  row = i < 2 ? g : g + 8;
  col = 2 * t + (i & 1);
}

// Host check of the tables above: across the 32 lanes they cover every element of A, B and C
// exactly once (it does not prove them right; the self-test on the GPU does).
template <Kind KIND, int K>
bool layout_covers() {
  constexpr int per_lane_a = 16 * K / 32, per_lane_b = 8 * K / 32;
  std::vector<int> na(16 * K, 0), nb(8 * K, 0), nc(128, 0);
  for (int lane = 0; lane < 32; ++lane) {
    const int g = lane >> 2, t = lane & 3;
    for (int i = 0; i < per_lane_a; ++i) {
      int r, c;
      a_pos<KIND, K>(i, g, t, r, c);
      if (r < 0 || r >= 16 || c < 0 || c >= K) return false;
      ++na[r * K + c];
    }
    for (int i = 0; i < per_lane_b; ++i) {
      int k, n;
      b_pos<KIND, K>(i, g, t, k, n);
      if (k < 0 || k >= K || n < 0 || n >= 8) return false;
      ++nb[n * K + k];
    }
    for (int i = 0; i < 4; ++i) {
      int r, c;
      c_pos(i, g, t, r, c);
      ++nc[r * 8 + c];
    }
  }
  for (int x : na)
    if (x != 1) return false;
  for (int x : nb)
    if (x != 1) return false;
  for (int x : nc)
    if (x != 1) return false;
  return true;
}

bool layouts_cover() {
  return layout_covers<Kind::tf32, 4>() && layout_covers<Kind::tf32, 8>() && layout_covers<Kind::f16, 8>() &&
         layout_covers<Kind::f16, 16>() && layout_covers<Kind::bf16, 8>() && layout_covers<Kind::bf16, 16>() &&
         layout_covers<Kind::e4m3, 32>() && layout_covers<Kind::e5m2, 32>();
}

// ---- the mma.sync instructions --------------------------------------------------------------------

// The instruction's name, for the manifest and the messages.
std::string ptx_name(Kind kind, int k, bool out16) {
  const char* ty = kind == Kind::f16 ? "f16" : kind == Kind::bf16 ? "bf16" : kind == Kind::tf32 ? "tf32"
                                             : kind == Kind::e4m3 ? "e4m3"
                                                                  : "e5m2";
  const std::string acc = out16 ? "f16" : "f32";
  return "mma.sync.aligned.m16n8k" + std::to_string(k) + ".row.col." + acc + "." + ty + "." + ty + "." + acc;
}

// D = A*B + C with binary32 accumulators: d, c four .f32 registers each.
template <Kind KIND, int K>
__device__ void mma_f32(float (&d)[4], const uint32_t (&a)[K / 2 / (32 / elem_bits<KIND>())],
                        const uint32_t (&b)[K / 4 / (32 / elem_bits<KIND>())], const float (&c)[4]) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  if constexpr (KIND == Kind::tf32 && K == 4) {
    asm volatile("mma.sync.aligned.m16n8k4.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, {%4,%5}, {%6}, {%7,%8,%9,%10};"
                 : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3])
                 : "r"(a[0]), "r"(a[1]), "r"(b[0]), "f"(c[0]), "f"(c[1]), "f"(c[2]), "f"(c[3]));
  } else if constexpr (KIND == Kind::tf32 && K == 8) {
    asm volatile(
        "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%10,%11,%12,%13};"
        : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), "f"(c[0]), "f"(c[1]), "f"(c[2]),
          "f"(c[3]));
  } else if constexpr (KIND == Kind::f16 && K == 8) {
    asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5}, {%6}, {%7,%8,%9,%10};"
                 : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3])
                 : "r"(a[0]), "r"(a[1]), "r"(b[0]), "f"(c[0]), "f"(c[1]), "f"(c[2]), "f"(c[3]));
  } else if constexpr (KIND == Kind::bf16 && K == 8) {
    asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5}, {%6}, {%7,%8,%9,%10};"
                 : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3])
                 : "r"(a[0]), "r"(a[1]), "r"(b[0]), "f"(c[0]), "f"(c[1]), "f"(c[2]), "f"(c[3]));
  } else if constexpr (KIND == Kind::f16 && K == 16) {
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%10,%11,%12,%13};"
        : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), "f"(c[0]), "f"(c[1]), "f"(c[2]),
          "f"(c[3]));
  } else if constexpr (KIND == Kind::bf16 && K == 16) {
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%10,%11,%12,%13};"
        : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), "f"(c[0]), "f"(c[1]), "f"(c[2]),
          "f"(c[3]));
  } else if constexpr (KIND == Kind::e4m3 && K == 32) {
#if RECORD_FP8 && __CUDA_ARCH__ >= 890
    asm volatile(
        "mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%10,%11,%12,%13};"
        : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), "f"(c[0]), "f"(c[1]), "f"(c[2]),
          "f"(c[3]));
#else
    __trap();  // not built for FP8; the host does not launch it
#endif
  } else if constexpr (KIND == Kind::e5m2 && K == 32) {
#if RECORD_FP8 && __CUDA_ARCH__ >= 890
    asm volatile(
        "mma.sync.aligned.m16n8k32.row.col.f32.e5m2.e5m2.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%10,%11,%12,%13};"
        : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), "f"(c[0]), "f"(c[1]), "f"(c[2]),
          "f"(c[3]));
#else
    __trap();
#endif
  } else {
    static_assert(KIND == Kind::f16 && K == 0, "no such mma shape here");
  }
#else
  (void)d, (void)a, (void)b, (void)c;
  __trap();
#endif
}

// D = A*B + C with binary16 accumulators: d, c two .f16x2 registers each (c0, c1 in the first,
// c0 in its low half). PTX has them for .f16 and FP8 inputs only.
template <Kind KIND, int K>
__device__ void mma_f16(uint32_t (&d)[2], const uint32_t (&a)[K / 2 / (32 / elem_bits<KIND>())],
                        const uint32_t (&b)[K / 4 / (32 / elem_bits<KIND>())], const uint32_t (&c)[2]) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  if constexpr (KIND == Kind::f16 && K == 8) {
    asm volatile("mma.sync.aligned.m16n8k8.row.col.f16.f16.f16.f16 {%0,%1}, {%2,%3}, {%4}, {%5,%6};"
                 : "=r"(d[0]), "=r"(d[1])
                 : "r"(a[0]), "r"(a[1]), "r"(b[0]), "r"(c[0]), "r"(c[1]));
  } else if constexpr (KIND == Kind::f16 && K == 16) {
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16 {%0,%1}, {%2,%3,%4,%5}, {%6,%7}, {%8,%9};"
                 : "=r"(d[0]), "=r"(d[1])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), "r"(c[0]), "r"(c[1]));
  } else if constexpr (KIND == Kind::e4m3 && K == 32) {
#if RECORD_FP8_F16 && __CUDA_ARCH__ >= 890
    asm volatile("mma.sync.aligned.m16n8k32.row.col.f16.e4m3.e4m3.f16 {%0,%1}, {%2,%3,%4,%5}, {%6,%7}, {%8,%9};"
                 : "=r"(d[0]), "=r"(d[1])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), "r"(c[0]), "r"(c[1]));
#else
    __trap();
#endif
  } else if constexpr (KIND == Kind::e5m2 && K == 32) {
#if RECORD_FP8_F16 && __CUDA_ARCH__ >= 890
    asm volatile("mma.sync.aligned.m16n8k32.row.col.f16.e5m2.e5m2.f16 {%0,%1}, {%2,%3,%4,%5}, {%6,%7}, {%8,%9};"
                 : "=r"(d[0]), "=r"(d[1])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), "r"(c[0]), "r"(c[1]));
#else
    __trap();
#endif
  } else {
    __trap();  // bf16 and tf32 have no binary16 accumulator; never launched
  }
#else
  (void)d, (void)a, (void)b, (void)c;
  __trap();
#endif
}

// ---- the kernel ------------------------------------------------------------------------------------
// One warp per matrix triple w: A is 16 x K row-major, B is K x 8 stored column by column (element
// (k, n) at n*K + k), C and D are 16 x 8 row-major; every element is one 32-bit word (the operand's
// device_word; binary32 bits for C and D, or binary16 bits in the low half with a binary16 accumulator).

template <Kind KIND, int K, bool OUT16>
__global__ void mma_kernel(const uint32_t* A, const uint32_t* B, const uint32_t* C, uint32_t* D, int count) {
  const int w = int((blockIdx.x * blockDim.x + threadIdx.x) / 32);
  if (w >= count) return;  // a whole warp at once (blockDim.x is a multiple of 32), as .aligned requires
  const int lane = int(threadIdx.x % 32), g = lane >> 2, t = lane & 3;
  constexpr int EB = elem_bits<KIND>(), PER = 32 / EB;  // bits per element, elements per register
  constexpr int NA = K / 2 / PER, NB = K / 4 / PER;     // registers for A (16K/32 elements), B (8K/32)
  constexpr uint32_t MASK = EB == 32 ? 0xFFFFFFFFu : (1u << EB) - 1;
  const uint32_t* a = A + size_t(w) * 16 * K;
  const uint32_t* b = B + size_t(w) * 8 * K;
  const uint32_t* c = C + size_t(w) * 128;
  uint32_t* d = D + size_t(w) * 128;
  uint32_t ra[NA], rb[NB];
  for (int j = 0; j < NA; ++j) {
    uint32_t word = 0;
    for (int p = 0; p < PER; ++p) {
      int row, col;
      a_pos<KIND, K>(j * PER + p, g, t, row, col);
      word |= (a[row * K + col] & MASK) << (p * EB);
    }
    ra[j] = word;
  }
  for (int j = 0; j < NB; ++j) {
    uint32_t word = 0;
    for (int p = 0; p < PER; ++p) {
      int k, n;
      b_pos<KIND, K>(j * PER + p, g, t, k, n);
      word |= (b[n * K + k] & MASK) << (p * EB);
    }
    rb[j] = word;
  }
  if constexpr (OUT16) {
    uint32_t rc[2] = {0, 0}, rd[2];
    for (int i = 0; i < 4; ++i) {
      int row, col;
      c_pos(i, g, t, row, col);
      rc[i / 2] |= (c[row * 8 + col] & 0xFFFFu) << (16 * (i & 1));
    }
    mma_f16<KIND, K>(rd, ra, rb, rc);
    for (int i = 0; i < 4; ++i) {
      int row, col;
      c_pos(i, g, t, row, col);
      d[row * 8 + col] = (rd[i / 2] >> (16 * (i & 1))) & 0xFFFFu;
    }
  } else {
    float fc[4], fd[4];
    for (int i = 0; i < 4; ++i) {
      int row, col;
      c_pos(i, g, t, row, col);
      fc[i] = __uint_as_float(c[row * 8 + col]);
    }
    mma_f32<KIND, K>(fd, ra, rb, fc);
    for (int i = 0; i < 4; ++i) {
      int row, col;
      c_pos(i, g, t, row, col);
      d[row * 8 + col] = __float_as_uint(fd[i]);
    }
  }
}

// The device code's __CUDA_ARCH__, to tell whether FP8 was compiled in for this GPU.
__global__ void probe_arch(int* out) {
#ifdef __CUDA_ARCH__
  *out = __CUDA_ARCH__;
#endif
}

// ---- host: running one instruction on many triples ----------------------------------------------

struct Instr {
  Kind kind;
  int k;
  bool out16;
};

using Launch = void (*)(const uint32_t*, const uint32_t*, const uint32_t*, uint32_t*, int);

template <Kind KIND, int K, bool OUT16>
void launch(const uint32_t* A, const uint32_t* B, const uint32_t* C, uint32_t* D, int count) {
  const int threads = 128;  // 4 warps, one triple each
  const int blocks = (count + 3) / 4;
  mma_kernel<KIND, K, OUT16><<<blocks, threads>>>(A, B, C, D, count);
}

Launch launcher(const Instr& in) {
  switch (in.kind) {
    case Kind::tf32:
      if (in.out16) return nullptr;
      return in.k == 4 ? launch<Kind::tf32, 4, false> : in.k == 8 ? launch<Kind::tf32, 8, false> : nullptr;
    case Kind::f16:
      if (in.k == 8) return in.out16 ? launch<Kind::f16, 8, true> : launch<Kind::f16, 8, false>;
      if (in.k == 16) return in.out16 ? launch<Kind::f16, 16, true> : launch<Kind::f16, 16, false>;
      return nullptr;
    case Kind::bf16:
      if (in.out16) return nullptr;
      return in.k == 8 ? launch<Kind::bf16, 8, false> : in.k == 16 ? launch<Kind::bf16, 16, false> : nullptr;
    case Kind::e4m3:
      if (in.k != 32) return nullptr;
      return in.out16 ? launch<Kind::e4m3, 32, true> : launch<Kind::e4m3, 32, false>;
    case Kind::e5m2:
      if (in.k != 32) return nullptr;
      return in.out16 ? launch<Kind::e5m2, 32, true> : launch<Kind::e5m2, 32, false>;
  }
  return nullptr;
}

bool cuda_ok(cudaError_t e, const char* what) {
  if (e == cudaSuccess) return true;
  std::fprintf(stderr, "record_mma: %s: %s\n", what, cudaGetErrorString(e));
  return false;
}

// D for `count` triples (sizes as mma_kernel reads them).
bool run_instr(const Instr& in, const std::vector<uint32_t>& A, const std::vector<uint32_t>& B,
               const std::vector<uint32_t>& C, int count, std::vector<uint32_t>& D) {
  const Launch go = launcher(in);
  if (!go) {
    std::fprintf(stderr, "record_mma: no kernel for %s\n", ptx_name(in.kind, in.k, in.out16).c_str());
    return false;
  }
  uint32_t *dA = nullptr, *dB = nullptr, *dC = nullptr, *dD = nullptr;
  D.assign(size_t(count) * 128, 0xFFFFFFFFu);
  bool ok = cuda_ok(cudaMalloc(&dA, A.size() * 4), "cudaMalloc") && cuda_ok(cudaMalloc(&dB, B.size() * 4), "cudaMalloc") &&
            cuda_ok(cudaMalloc(&dC, C.size() * 4), "cudaMalloc") && cuda_ok(cudaMalloc(&dD, D.size() * 4), "cudaMalloc") &&
            cuda_ok(cudaMemcpy(dA, A.data(), A.size() * 4, cudaMemcpyHostToDevice), "copy A") &&
            cuda_ok(cudaMemcpy(dB, B.data(), B.size() * 4, cudaMemcpyHostToDevice), "copy B") &&
            cuda_ok(cudaMemcpy(dC, C.data(), C.size() * 4, cudaMemcpyHostToDevice), "copy C") &&
            cuda_ok(cudaMemset(dD, 0xFF, D.size() * 4), "cudaMemset");
  if (ok) {
    go(dA, dB, dC, dD, count);
    ok = cuda_ok(cudaGetLastError(), ptx_name(in.kind, in.k, in.out16).c_str()) &&
         cuda_ok(cudaDeviceSynchronize(), ptx_name(in.kind, in.k, in.out16).c_str()) &&
         cuda_ok(cudaMemcpy(D.data(), dD, D.size() * 4, cudaMemcpyDeviceToHost), "copy D");
  }
  cudaFree(dA);
  cudaFree(dB);
  cudaFree(dC);
  cudaFree(dD);
  return ok;
}

// ---- random numbers: xorshift64* (Vigna), a fixed seed per set ----------------------------------

struct Rng {
  uint64_t s;
  explicit Rng(uint64_t seed) : s(seed ? seed : 0x9E3779B97F4A7C15ull) {}
  uint64_t next() {
    s ^= s >> 12;
    s ^= s << 25;
    s ^= s >> 27;
    return s * 0x2545F4914F6CDD1Dull;
  }
  uint32_t bits(int n) { return n == 0 ? 0 : uint32_t(next() >> (64 - n)); }
  int range(int lo, int hi) { return lo + int(next() % uint64_t(hi - lo + 1)); }  // [lo, hi]
  bool coin() { return next() >> 63; }
};

// ---- the layout self-test: whole matrices of small integers, every element of D checked --------

bool selftest(const Instr& in, Rng& rng) {
  const Fmt& f = fmt_of(in.kind);
  const int K = in.k, T = 4;  // four triples
  std::vector<uint32_t> A(size_t(T) * 16 * K), B(size_t(T) * 8 * K), C(size_t(T) * 128), D;
  std::vector<double> av(A.size()), bv(B.size()), cv(C.size());
  auto small = [&](int lim, double& v) {
    v = rng.range(-lim, lim);
    uint32_t e = 0;
    if (!encode_exact(f, v, e)) std::abort();  // every format holds the integers -4..4
    return device_word(f, e);
  };
  for (size_t i = 0; i < A.size(); ++i) A[i] = small(4, av[i]);
  for (size_t i = 0; i < B.size(); ++i) B[i] = small(4, bv[i]);
  for (size_t i = 0; i < C.size(); ++i) {
    cv[i] = rng.range(-16, 16);
    const uint32_t c32 = f32_bits(float(cv[i]));
    C[i] = in.out16 ? f16_bits_rne(c32) : c32;
  }
  if (!run_instr(in, A, B, C, T, D)) return false;
  // Every sum is an integer of magnitude at most 32*16 + 16: exact in every accumulator here.
  for (int w = 0; w < T; ++w)
    for (int r = 0; r < 16; ++r)
      for (int n = 0; n < 8; ++n) {
        double want = cv[size_t(w) * 128 + r * 8 + n];
        for (int k = 0; k < K; ++k) want += av[size_t(w) * 16 * K + r * K + k] * bv[size_t(w) * 8 * K + n * K + k];
        const uint32_t got = D[size_t(w) * 128 + r * 8 + n];
        const double g = in.out16 ? double(f32_of(binary32_of_f16(got))) : double(f32_of(got));
        if (g != want) {
          std::fprintf(stderr, "record_mma: self-test of %s failed: triple %d, D[%d][%d] = %g, exact %g (fragment layout?)\n",
                       ptx_name(in.kind, K, in.out16).c_str(), w, r, n, g, want);
          return false;
        }
      }
  return true;
}

// ---- the cases ---------------------------------------------------------------------------------

struct Case {
  std::vector<uint32_t> a, b;  // encodings of the input format
  uint32_t c = 0;              // binary32
};

// The families of the random cases, in the order they take turns after the crafted ones; the
// manifest names them so that compare can say which family a difference is in.
const char* const kFamilies[] = {"unit", "wide", "cancel", "c_extreme", "subnormal", "bits"};
constexpr int kNumFamilies = 6;

struct Generator {
  const Fmt& f;
  int K;
  bool out16;  // the set also records binary16 output: keep |a_i b_i| < 2^10 and |c| < 2^10
  Rng& rng;

  // A random encoding with exponent e in [lo, hi] (below emin: a nonzero subnormal), random sign.
  uint32_t value(int lo, int hi) {
    const int e = rng.range(lo, hi);
    const uint32_t sign = rng.coin();
    if (e < f.emin()) {
      const uint32_t m = 1 + uint32_t(rng.next() % ((1u << f.mbits) - 1));
      return pack(f, sign, 0, m);
    }
    const uint32_t field = uint32_t(std::min(e, f.emax()) + f.bias);
    uint32_t m = rng.bits(f.mbits);
    if (f.fn && field == uint32_t(f.max_field()) && m == (1u << f.mbits) - 1) m -= 1;  // not NaN
    return pack(f, sign, field, m);
  }
  // Any finite encoding.
  uint32_t any_value() {
    for (;;) {
      const uint32_t e = rng.bits(1 + f.ebits + f.mbits);
      const uint32_t field = (e >> f.mbits) & ((1u << f.ebits) - 1);
      const uint32_t m = e & ((1u << f.mbits) - 1);
      if (field > uint32_t(f.max_field())) continue;
      if (f.fn && field == uint32_t(f.max_field()) && m == (1u << f.mbits) - 1) continue;
      return e;
    }
  }
  uint32_t subnormal() { return pack(f, rng.coin(), 0, 1 + uint32_t(rng.next() % ((1u << f.mbits) - 1))); }
  // A random binary32 with exponent in [lo, hi] (below -126: subnormal), random sign.
  uint32_t c_value(int lo, int hi) {
    if (out16) hi = std::min(hi, 9);
    if (lo > hi) lo = hi;
    const int e = rng.range(lo, hi);
    const uint32_t sign = uint32_t(rng.coin()) << 31;
    if (e < -126) return sign | (1 + rng.bits(23) % 0x7FFFFF);
    return sign | (uint32_t(e + 127) << 23) | rng.bits(23);
  }
  // Keeps binary16 output finite: |a*b| < 2^10 (so |d| < 32 * 2^10 + 2^10 < 65504).
  void limit(uint32_t a, uint32_t& b) {
    if (!out16) return;
    const double pa = std::fabs(decode(f, a));
    while (std::fabs(pa * decode(f, b)) >= 1024.0) {
      int ea = 0;
      std::frexp(pa, &ea);
      b = value(f.emin() - f.mbits, std::max(f.emin() - f.mbits, 8 - ea));
    }
  }
  // The exponent range of the "wide" family and of the full-range one, kept inside binary32.
  int wide_lo() const { return std::max(f.emin() - f.mbits, -60); }
  int wide_hi() const { return std::min(f.emax(), 40); }

  Case random_case(int family) {
    Case c;
    c.a.resize(K);
    c.b.resize(K);
    const int ulo = -2, uhi = 1;  // "unit": magnitudes in [1/4, 4)
    switch (family) {
      case 0:  // unit: like the recorded sample
        for (int i = 0; i < K; ++i) c.a[i] = value(ulo, uhi), c.b[i] = value(ulo, uhi);
        c.c = c_value(-8, -1);
        break;
      case 1:  // wide: exponents over the format's range, subnormals included
        for (int i = 0; i < K; ++i) c.a[i] = value(wide_lo(), wide_hi()), c.b[i] = value(wide_lo(), wide_hi());
        c.c = rng.range(0, 7) == 0 ? 0 : c_value(-40, 40);
        break;
      case 2: {  // cancel: half the products repeated with the other sign, some off by one ulp
        for (int i = 0; i < K / 2; ++i) {
          c.a[i] = value(-3, 3);
          c.b[i] = value(-3, 3);
          const uint32_t neg = 1u << (f.ebits + f.mbits);
          uint32_t a2 = c.a[i] ^ neg;
          if (rng.coin() && (a2 & ((1u << f.mbits) - 1)) != 0) a2 ^= 1;  // one ulp off (stays finite)
          c.a[K / 2 + i] = a2;
          c.b[K / 2 + i] = c.b[i];
        }
        for (int i = K - 1; i > 0; --i) {  // shuffle the pairs apart
          const int j = rng.range(0, i);
          std::swap(c.a[i], c.a[j]);
          std::swap(c.b[i], c.b[j]);
        }
        c.c = rng.coin() ? 0 : c_value(-12, -4);
        break;
      }
      case 3:  // c_extreme: c far above or far below the products
        for (int i = 0; i < K; ++i) c.a[i] = value(ulo, uhi), c.b[i] = value(ulo, uhi);
        c.c = rng.coin() ? c_value(-34, -13) : c_value(out16 ? 5 : 13, out16 ? 9 : 34);
        break;
      case 4:  // subnormal inputs (and binary32 subnormal c for the 8-bit exponent formats)
        for (int i = 0; i < K; ++i) {
          c.a[i] = rng.range(0, 3) ? subnormal() : value(ulo, uhi);
          c.b[i] = rng.range(0, 3) == 0 ? subnormal() : value(ulo, uhi);
        }
        c.c = rng.coin() ? 0 : c_value(f.ebits == 8 ? -140 : -30, -10);
        break;
      default:  // bits: any finite encodings (8-bit exponents kept within +-wide range)
        for (int i = 0; i < K; ++i) {
          c.a[i] = f.ebits == 8 ? value(-100, 58) : any_value();
          c.b[i] = f.ebits == 8 ? value(-100, 58) : any_value();
        }
        c.c = c_value(-149, 100);
        break;
    }
    for (int i = 0; i < K; ++i) limit(c.a[i], c.b[i]);
    return c;
  }

  // Crafted cases (values given exactly; a case some format cannot hold is left out).
  std::vector<Case> crafted() {
    std::vector<Case> out;
    auto add = [&](std::vector<double> a, std::vector<double> b, double c) {
      a.resize(K, 0.0);
      b.resize(K, 0.0);
      Case x;
      x.a.resize(K);
      x.b.resize(K);
      double bound = std::fabs(c);
      for (int i = 0; i < K; ++i) {
        if (!encode_exact(f, a[i], x.a[i]) || !encode_exact(f, b[i], x.b[i])) return;
        bound += std::fabs(a[i] * b[i]);
      }
      if (double(float(c)) != c || !(bound < (out16 ? 32768.0 : 1e37))) return;
      x.c = f32_bits(float(c));
      out.push_back(x);
    };
    const std::vector<double> none;
    const std::vector<double> ones(K, 1.0), halves(K, 1.5);
    auto p2 = [](int e) { return std::ldexp(1.0, e); };
    // a*b = 2^-s with a and b as close as possible: a = 2^-ceil(s/2), b = 2^-floor(s/2).
    auto split_a = [&](int s) { return p2(-(s + 1) / 2); };
    auto split_b = [&](int s) { return p2(-s / 2); };
    // zeros and signs of zero
    add(none, none, 0.0);
    add(none, none, -0.0);
    add(none, std::vector<double>(K, -1.0), 0.0);
    add(none, std::vector<double>(K, -1.0), -0.0);
    add(std::vector<double>(K, -0.0), ones, -0.0);
    // exact sums
    add(ones, ones, 0.0);
    add(halves, halves, 0.0);
    add(halves, halves, -1.0);
    {
      std::vector<double> a(K), b(K, 1.0);
      for (int i = 0; i < K; ++i) a[i] = (i % 2 ? -1.0 : 1.0) * double(1 + i / 2 % 4);
      add(a, b, 0.0);   // sums to exactly zero
      add(a, b, -0.0);
    }
    // alignment: c = +-1 (or one product 1) and K-1 or K tiny terms 2^-s each
    const int shifts[] = {8, 10, 11, 12, 13, 14, 15, 16, 20, 22, 23, 24, 25, 26, 27, 28, 30, 34, 40};
    for (int s : shifts) {
      add(std::vector<double>(K, split_a(s)), std::vector<double>(K, split_b(s)), 1.0);
      add(std::vector<double>(K, split_a(s)), std::vector<double>(K, split_b(s)), -1.0);
      std::vector<double> a(K, split_a(s)), b(K, split_b(s));
      a[0] = 1.0;
      b[0] = 1.0;
      add(a, b, 0.0);
      a[0] = -1.0;
      add(a, b, 0.0);
    }
    // cancellation: 2^4 - 2^4 + 2^(4-s)
    for (int s : {8, 12, 16, 20, 23, 24, 25, 26, 30}) {
      add({16.0, -16.0, split_a(s - 4)}, {1.0, 1.0, split_b(s - 4)}, 0.0);
      add({16.0, -16.0, split_a(s - 4)}, {1.0, 1.0, split_b(s - 4)}, std::ldexp(1.0, -s - 1));
    }
    // binary16 output rounding near 1: exactly half an ulp (2^-11), 3/2 ulp, and just above half
    add({split_a(11)}, {split_b(11)}, 1.0);
    add({3 * split_a(11)}, {split_b(11)}, 1.0);
    add({split_a(11), split_a(20)}, {split_b(11), split_b(20)}, 1.0);
    add({split_a(11)}, {-split_b(11)}, -1.0);
    // subnormal inputs
    const double min_sub = p2(f.emin() - f.mbits), max_sub = p2(f.emin()) - min_sub;
    add(std::vector<double>(K, min_sub), ones, 0.0);
    add(std::vector<double>(K, max_sub), ones, 0.0);
    add(std::vector<double>(K, min_sub), std::vector<double>(K, min_sub), 0.0);
    add(std::vector<double>(K, min_sub), std::vector<double>(K, -min_sub), p2(-149));
    add({min_sub}, {1.0}, 1.0);
    // binary32 subnormal results (8-bit exponent formats only)
    add({p2(-70)}, {p2(-70)}, 0.0);
    add({p2(-70), -p2(-70)}, {p2(-70), p2(-71)}, 0.0);
    add({p2(-70)}, {p2(-70)}, -p2(-141));
    // c alone
    add(none, none, p2(-149));
    add(none, none, -3.5);
    add(none, none, 1e30);
    // the largest finite inputs
    const double maxf = std::ldexp(2.0 - std::ldexp(f.fn ? 2.0 : 1.0, -f.mbits), f.emax());
    add({maxf}, {1.0}, 0.0);
    add({maxf, maxf}, {1.0, -1.0}, 1.0);
    return out;
  }
};

// ---- output files --------------------------------------------------------------------------------

std::string bitstring(uint32_t v) {
  std::string s(32, '0');
  for (int i = 0; i < 32; ++i)
    if (v >> (31 - i) & 1) s[i] = '1';
  return s;
}

bool write_lines(const std::filesystem::path& p, const std::vector<std::string>& lines) {
  std::ofstream o(p, std::ios::binary);
  for (const auto& l : lines) o << l << '\n';
  o.close();
  if (!o) std::fprintf(stderr, "record_mma: cannot write %s\n", p.string().c_str());
  return bool(o);
}

std::string hex_words(const Fmt& f, const std::vector<uint32_t>& v) {
  std::string s;
  char buf[16];
  for (size_t i = 0; i < v.size(); ++i) {
    std::snprintf(buf, sizeof buf, "%08x", binary32_of(f, v[i]));
    if (i) s += ' ';
    s += buf;
  }
  return s;
}

// "NVIDIA H100 80GB HBM3" -> "H100", "NVIDIA A100-SXM4-80GB" -> "A100", "NVIDIA GeForce RTX 4090" -> "RTX4090".
std::string short_gpu_name(const std::string& full) {
  std::vector<std::string> words;
  size_t i = 0;
  while (i < full.size()) {
    while (i < full.size() && full[i] == ' ') ++i;
    size_t j = i;
    while (j < full.size() && full[j] != ' ') ++j;
    if (j > i) words.push_back(full.substr(i, j - i));
    i = j;
  }
  std::string name;
  for (size_t w = 0; w < words.size(); ++w) {
    const std::string& x = words[w];
    if (x == "NVIDIA" || x == "Tesla" || x == "GeForce" || x == "Quadro") continue;
    name = x;
    if ((x == "RTX" || x == "GTX") && w + 1 < words.size()) name += words[w + 1];
    break;
  }
  name = name.substr(0, name.find('-'));
  std::string clean;
  for (char ch : name)
    if (std::isalnum(static_cast<unsigned char>(ch)) || ch == '_') clean += ch;
  return clean.empty() ? "GPU" : clean;
}

struct SetPlan {
  Kind kind;
  int k;
  bool fp16_out;  // also record the binary16-accumulator instruction
  bool c_zero;    // C = 0 (the c file then holds zeros)
};

void usage() {
  std::fprintf(stderr,
               "usage: record_mma --out DIR [--cases N] [--seed S] [--shapes recorded|extra] [--gpu NAME]\n"
               "                  [--device I] [--only fp16,bf16,tf32,E4M3,E5M2]\n"
               "       record_mma --dry-run --gpu NAME --cc CC --out DIR ...   (inputs only, no GPU)\n"
               "Writes DIR/GPU/INPUT/{a,b}_GPU_INPUT.txt, c_GPU_fp32.txt, d_GPU_fp32.txt, d_GPU_fp16.txt\n"
               "and DIR/manifest.txt (tests/gpu/README.md).\n");
}

}  // namespace

int main(int argc, char** argv) {
  std::string out, gpu, shapes = "recorded", only;
  int cases = 2000, device = 0, cc = 0;
  uint64_t seed = 0x6C69626661ull;  // "libfa"
  bool dry = false;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto val = [&]() -> std::string {
      if (i + 1 >= argc) {
        usage();
        std::exit(2);
      }
      return argv[++i];
    };
    if (a == "--out") out = val();
    else if (a == "--gpu") gpu = val();
    else if (a == "--cases") cases = std::atoi(val().c_str());
    else if (a == "--seed") seed = std::strtoull(val().c_str(), nullptr, 0);
    else if (a == "--shapes") shapes = val();
    else if (a == "--device") device = std::atoi(val().c_str());
    else if (a == "--only") only = "," + val() + ",";
    else if (a == "--cc") cc = std::atoi(val().c_str());
    else if (a == "--dry-run") dry = true;
    else {
      usage();
      return 2;
    }
  }
  if (out.empty() || cases < 1 || (shapes != "recorded" && shapes != "extra") || (dry && (gpu.empty() || cc == 0))) {
    usage();
    return 2;
  }

  std::string device_name = "none (dry run)";
  int arch = 0;  // the __CUDA_ARCH__ the device code was compiled for
  int driver = 0, runtime = 0;
  if (!dry) {
    int n = 0;
    if (!cuda_ok(cudaGetDeviceCount(&n), "cudaGetDeviceCount") || n == 0) {
      std::fprintf(stderr, "record_mma: no CUDA device\n");
      return 2;
    }
    if (!cuda_ok(cudaSetDevice(device), "cudaSetDevice")) return 2;
    cudaDeviceProp prop{};
    if (!cuda_ok(cudaGetDeviceProperties(&prop, device), "cudaGetDeviceProperties")) return 2;
    device_name = prop.name;
    cc = prop.major * 10 + prop.minor;
    if (gpu.empty()) gpu = short_gpu_name(device_name);
    cudaDriverGetVersion(&driver);
    cudaRuntimeGetVersion(&runtime);
    int* dArch = nullptr;
    if (!cuda_ok(cudaMalloc(&dArch, sizeof(int)), "cudaMalloc")) return 2;
    probe_arch<<<1, 1>>>(dArch);
    cudaError_t e = cudaGetLastError();  // no kernel image for this GPU shows here
    if (e == cudaSuccess) e = cudaDeviceSynchronize();
    if (e == cudaSuccess) e = cudaMemcpy(&arch, dArch, sizeof(int), cudaMemcpyDeviceToHost);
    if (e != cudaSuccess) {
      std::fprintf(stderr, "record_mma: cannot run on %s (sm_%d): %s; rebuild with -arch=sm_%d\n", device_name.c_str(),
                   cc, cudaGetErrorString(e), cc);
      return 2;
    }
    cudaFree(dArch);
  } else {
    arch = cc * 10;
  }
  if (cc < 80) {
    std::fprintf(stderr, "record_mma: %s has compute capability %d.%d; bf16 and tf32 mma.sync need 8.0 or newer\n",
                 device_name.c_str(), cc / 10, cc % 10);
    return 2;
  }
  const bool fp8 = RECORD_FP8 && cc >= 89 && arch >= 890;
  const bool fp8_f16 = fp8 && RECORD_FP8_F16;

  // The sets: "recorded" follows tests/data/tensor-core-hw (fp16/bf16 K = 16 from Hopper on, 8
  // before: m16n8k8 is the whole unit on Ampere and Ada; tf32 K = 4; FP8 K = 32). "extra": shapes
  // of several blocks or other sizes (fp16/bf16 m16n8k16, tf32 m16n8k8) and FP8 with C = 0.
  std::vector<SetPlan> plans;
  if (shapes == "recorded") {
    const int k16 = cc >= 90 ? 16 : 8;
    plans = {{Kind::f16, k16, true, false}, {Kind::bf16, k16, false, false}, {Kind::tf32, 4, false, false}};
    if (fp8) plans.push_back({Kind::e4m3, 32, fp8_f16, false}), plans.push_back({Kind::e5m2, 32, fp8_f16, false});
  } else {
    plans = {{Kind::f16, 16, true, false}, {Kind::bf16, 16, false, false}, {Kind::tf32, 8, false, false}};
    if (fp8) plans.push_back({Kind::e4m3, 32, fp8_f16, true}), plans.push_back({Kind::e5m2, 32, fp8_f16, true});
  }
  if (!only.empty()) {
    std::vector<SetPlan> kept;
    for (const auto& p : plans)
      if (only.find("," + std::string(fmt_of(p.kind).folder) + ",") != std::string::npos) kept.push_back(p);
    plans = kept;
  }
  if (!fp8)
    std::printf("record_mma: no FP8 sets (%s)\n", cc < 89               ? "compute capability below 8.9"
                                                  : !RECORD_FP8          ? "this nvcc cannot assemble FP8 mma (CUDA 12.4+)"
                                                                         : "device code not built for sm_89 or newer");

  if (!layouts_cover()) {
    std::fprintf(stderr, "record_mma: the fragment tables do not cover A, B and C once each\n");
    return 3;
  }
  // The self-test of every instruction used.
  if (!dry) {
    Rng rng(seed ^ 0x5E1F7E57ull);
    for (const auto& p : plans)
      for (bool o16 : {false, true}) {
        if (o16 && !p.fp16_out) continue;
        if (!selftest({p.kind, p.k, o16}, rng)) return 3;
      }
    std::printf("record_mma: fragment-layout self-test passed for every instruction used\n");
  }

  namespace fs = std::filesystem;
  std::error_code ec;
  fs::create_directories(out, ec);
  std::ofstream man(fs::path(out) / "manifest.txt", std::ios::binary);
  man << "recorded_by tests/gpu/record_mma.cu (mma.sync, one block per case: a in row 0 of A, b in column 0 of B, c in C[0][0])\n"
      << "device " << device_name << "\n"
      << "gpu " << gpu << "\n"
      << "compute_capability " << cc << "\n"
      << "device_code_arch " << arch << "\n"
      << "cuda_driver " << driver << "\n"
      << "cuda_runtime " << runtime << "\n"
      << "nvcc " << __CUDACC_VER_MAJOR__ << "." << __CUDACC_VER_MINOR__ << "\n"
      << "shapes " << shapes << "\n"
      << "seed " << seed << "\n"
      << "cases " << cases << "\n"
      << "dry_run " << (dry ? 1 : 0) << "\n"
      << "families";
  for (const char* fam : kFamilies) man << ' ' << fam;
  man << "\n";

  int status = 0;
  for (const auto& p : plans) {
    const Fmt& f = fmt_of(p.kind);
    // One stream of random numbers per set, from the seed and the set.
    uint64_t set_seed = seed;
    for (const char* ch = f.folder; *ch; ++ch) set_seed = set_seed * 131 + uint64_t(*ch);
    set_seed = set_seed * 131 + uint64_t(p.k);
    Rng rng(set_seed);
    Generator gen{f, p.k, p.fp16_out, rng};
    std::vector<Case> all = gen.crafted();
    if (int(all.size()) > cases) all.resize(cases);
    const int crafted = int(all.size());
    for (int i = 0; int(all.size()) < cases; ++i) all.push_back(gen.random_case(i % kNumFamilies));
    if (p.c_zero)
      for (auto& c : all) c.c = 0;

    const int n = int(all.size()), K = p.k;
    std::vector<std::string> la, lb, lc;
    for (const auto& c : all) {
      la.push_back(hex_words(f, c.a));
      lb.push_back(hex_words(f, c.b));
      lc.push_back(bitstring(c.c));
    }
    const fs::path dir = fs::path(out) / gpu / f.folder;
    fs::create_directories(dir, ec);
    const std::string base = "_" + gpu + "_";
    bool ok = write_lines(dir / ("a" + base + f.folder + ".txt"), la) &&
              write_lines(dir / ("b" + base + f.folder + ".txt"), lb) && write_lines(dir / ("c" + base + "fp32.txt"), lc);

    std::string instrs;
    for (bool o16 : {false, true}) {
      if (o16 && !p.fp16_out) continue;
      const Instr in{p.kind, K, o16};
      std::vector<uint32_t> res(n, 0);
      if (!dry) {
        std::vector<uint32_t> A(size_t(n) * 16 * K, 0), B(size_t(n) * 8 * K, 0), C(size_t(n) * 128, 0), D;
        for (int w = 0; w < n; ++w) {
          for (int k = 0; k < K; ++k) {
            A[size_t(w) * 16 * K + k] = device_word(f, all[w].a[k]);  // row 0 of A
            B[size_t(w) * 8 * K + k] = device_word(f, all[w].b[k]);   // column 0 of B
          }
          C[size_t(w) * 128] = o16 ? f16_bits_rne(all[w].c) : all[w].c;
        }
        if (!run_instr(in, A, B, C, n, D)) return 2;
        int stray = 0;
        for (int w = 0; w < n; ++w) {
          for (int e = 1; e < 128; ++e)
            if ((D[size_t(w) * 128 + e] & (o16 ? 0x7FFFu : 0x7FFFFFFFu)) != 0) ++stray;
          const uint32_t d = D[size_t(w) * 128];
          res[w] = o16 ? binary32_of_f16(d) : d;
        }
        if (stray) {
          std::fprintf(stderr, "record_mma: %s: %d elements of D besides D[0][0] are nonzero (layout?)\n",
                       ptx_name(p.kind, K, o16).c_str(), stray);
          return 3;
        }
      }
      std::vector<std::string> ld;
      for (uint32_t r : res) ld.push_back(bitstring(r));
      ok = ok && write_lines(dir / ("d" + base + (o16 ? "fp16" : "fp32") + ".txt"), ld);
      instrs += (instrs.empty() ? "" : ",") + ptx_name(p.kind, K, o16);
    }
    if (!ok) status = 2;
    man << "set " << gpu << "/" << f.folder << " k " << K << " cases " << n << " crafted " << crafted << " c_zero "
        << (p.c_zero ? 1 : 0) << " instructions " << instrs << "\n";
    std::printf("record_mma: %s/%s K = %d: %d cases (%d crafted)%s: %s\n", gpu.c_str(), f.folder, K, n, crafted,
                p.c_zero ? ", C = 0" : "", instrs.c_str());
  }
  man.close();
  if (!man) status = 2;
  std::printf("record_mma: %s %s -> %s%s\n", device_name.c_str(), gpu.c_str(), out.c_str(),
              dry ? " (dry run: d files are zeros, not measurements)" : "");
  return status;
}
