// tests/gpu/record_block_scaled_cublaslt.cu: record block-scaled matrix products (MXFP8 E4M3, MXFP4 and
// NVFP4 E2M1 inputs, binary32 accumulation and output) through cuBLASLt, for devices where the
// warp-level mma.sync .block_scale of record_block_scaled.cu does not exist (B200/GB200, compute
// capability 10.x, whose block-scaled MMA is tcgen05.mma) and for any device where cuBLASLt offers
// these matmuls. tests/gpu/compare.cpp evaluates the files with lf::block_scaled_dot and the presets
// lf::block_scaled_units::blackwell_mxf8f6f4 / blackwell_mxf4 (tests/gpu/README.md, "Block-scaled sets
// through cuBLASLt").
//
// STATUS: compiled (nvcc 13.0, cuBLASLt 13.1, sm_100a), never run on hardware.
//
// What is measured: one cublasLtMatmul D = op(A) op(B) per 128 cases, M = N = 128, with
//   A, B   CUDA_R_8F_E4M3 (MXFP8) or CUDA_R_4F_E2M1 (MXFP4, NVFP4);
//   scales CUBLASLT_MATMUL_DESC_{A,B}_SCALE_MODE = CUBLASLT_MATMUL_MATRIX_SCALE_VEC32_UE8M0 (MXFP8, MXFP4)
//          or CUBLASLT_MATMUL_MATRIX_SCALE_VEC16_UE4M3 (NVFP4), CUBLASLT_MATMUL_DESC_{A,B}_SCALE_POINTER;
//   compute CUBLAS_COMPUTE_32F, scale type CUDA_R_32F, alpha = 1, beta = 0, C and D CUDA_R_32F;
//   the "TN" form: TRANSA = T (A stored K x M column-major, lda = K: every row of op(A) contiguous
//   along K), TRANSB = N (B stored K x N column-major, ldb = K), D M x N column-major (ldd = M).
// Case i of a GEMM is row i of op(A) times column i of op(B): D[i][i] (the diagonal), so the cases are
// independent and keep their crafted meaning; the off-diagonal elements are computed but not recorded.
// c is 0 in every case: cuBLASLt adds beta * C in its epilogue, not as the MMA's initial accumulator,
// so a nonzero C would not test the unit's C path. The file records c = 00000000.
//
// Scales: every block of row i of A has the same scale sa_i, and every block of column j of B the
// same sb_j (one scale per operand per case, as record_block_scaled.cu), so the files keep its format
// "sa sb c d a.. b..". Where they sit: cuBLAS documentation, section "1D Block Scaling Factors Layout"
// (https://docs.nvidia.com/cuda/cublas/index.html#d-block-scaling-factors-layout; the layout of
// CUBLASLT_MATMUL_MATRIX_SCALE_VEC16_UE4M3 and VEC32_UE8M0): the scales of an operand form a matrix of
// (outer dimension: M for A, N for B) rows x (K / block) columns, padded to multiples of 128 rows and 4
// columns and stored as 128 x 4 tiles of 512 bytes, the tiles ordered with the column index fastest;
// inside a tile, row r and column c are at byte (r % 32) * 16 + (r / 32) * 4 + c. sf_offset() below is
// that formula. Its size part (round_up(outer, 128) * round_up(K / block, 4) bytes) agrees with
// getScaleTensorSize in NVIDIA's CUDALibrarySamples cuBLASLt helpers (which point to that section); the
// in-tile offset was not read from NVIDIA's page in the session that wrote this file. With M = N = 128
// there is one tile row, and every scale column of a row (padding included) holds the same code, so
// every tile holds the same bytes: only the row part, (r % 32) * 16 + (r / 32) * 4, matters here. The
// self-test (per-row and per-column scales that differ) checks it on the GPU; a miss exits with status 3.
//
// K: cuBLASLt's block-scaled kernels may need K larger than one instruction (32 for MXFP8, 64 for
// FP4 on tcgen05 kind::mxf8f6f4 / mxf4 / mxf4nvf4). Each set tries K in its list (the instruction's K
// first) and takes the first for which cublasLtMatmulAlgoGetHeuristic returns an algorithm and the
// self-test passes to run; the file's "# K" line says which. With K larger than one instruction the
// hardware accumulates several instructions in a kernel of cuBLASLt's choice (the order and the
// chaining between instructions are cuBLASLt's, not checked here); compare.cpp evaluates the case
// with lf::block_scaled_dot of that K, which chains the unit's instruction K.
// Of the algorithms the heuristic offers (up to 8), the first whose CUBLASLT_ALGO_CONFIG_SPLITK_NUM is 1
// is used (a split K would add partial sums outside the unit); the file's "# instruction" line names
// its CUBLASLT_ALGO_CONFIG_ID and split-K count.
//
// FP4 packing: two E2M1 codes per byte, the element of the lower linear index (along K) in the low
// nibble. Checked by the self-test only (a different packing fails it).
//
// Self-test (before recording, per set): small integer elements (0, +-1, +-2, +-3), power-of-two
// scales sa_i = 2^(i % 7 - 3) and sb_j = 2^(j % 5 - 2), all M x N elements of D compared with the
// exact host result; a miss exits with status 3.
//
// Build: nvcc -O2 -std=c++17 -gencode arch=compute_100a,code=sm_100a tests/gpu/record_block_scaled_cublaslt.cu -lcublasLt
//        (the file has no device code of its own; any -arch builds it)
// Run:   record_block_scaled_cublaslt --out DIR [--cases N] [--seed S] [--gpu NAME] [--device I]
//        record_block_scaled_cublaslt --dry-run --cc CC --gpu NAME --out DIR   (inputs only, no GPU)
// Writes DIR/GPU/block_scaled/{cublaslt_mxfp8_e4m3,cublaslt_mxfp4_e2m1,cublaslt_nvfp4_e2m1}.txt in the
// format of record_block_scaled.cu ('#' header lines, then "sa sb c d a_0 .. a_{K-1} b_0 .. b_{K-1}" in
// lower-case hex; d is "-" in a dry run).
// Prints "cublaslt block-scaled sets skipped: <reason>" and exits 0 when the device is not 10.x/12.x or
// cuBLASLt offers none of the three; a set that cuBLASLt does not offer is reported skipped alone.
// Exit status: 0 recorded or skipped; 2 a CUDA or cuBLASLt error or bad arguments; 3 a self-test failed.
#include <cublasLt.h>
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
#include <vector>

#include "block_scaled_host.hpp"

namespace {

using block_scaled_host::f32_bits;
using block_scaled_host::f32_of;
using block_scaled_host::Rng;
using block_scaled_host::short_name;

enum class Kind { mxfp8_e4m3, mxfp4_e2m1, nvfp4_e2m1 };

struct SetInfo {
  Kind kind;
  const char* name;
  int block;          // elements per scale
  int ks[3];          // K tried in turn: one instruction's K first
  cudaDataType_t type;
  cublasLtMatmulMatrixScale_t mode;
  const char* mode_name;
};

const SetInfo kSets[] = {
    {Kind::mxfp8_e4m3, "cublaslt_mxfp8_e4m3", 32, {32, 64, 128}, CUDA_R_8F_E4M3, CUBLASLT_MATMUL_MATRIX_SCALE_VEC32_UE8M0,
     "CUDA_R_8F_E4M3, CUBLASLT_MATMUL_MATRIX_SCALE_VEC32_UE8M0"},
    {Kind::mxfp4_e2m1, "cublaslt_mxfp4_e2m1", 32, {64, 128, 256}, CUDA_R_4F_E2M1, CUBLASLT_MATMUL_MATRIX_SCALE_VEC32_UE8M0,
     "CUDA_R_4F_E2M1, CUBLASLT_MATMUL_MATRIX_SCALE_VEC32_UE8M0"},
    {Kind::nvfp4_e2m1, "cublaslt_nvfp4_e2m1", 16, {64, 128, 256}, CUDA_R_4F_E2M1, CUBLASLT_MATMUL_MATRIX_SCALE_VEC16_UE4M3,
     "CUDA_R_4F_E2M1, CUBLASLT_MATMUL_MATRIX_SCALE_VEC16_UE4M3"},
};

constexpr int kM = 128, kN = 128;  // one GEMM: 128 diagonal cases

// ---- codes ---------------------------------------------------------------------------------------------
bool is8(Kind k) { return k == Kind::mxfp8_e4m3; }
uint32_t scale_one(Kind k) { return k == Kind::nvfp4_e2m1 ? 0x38 : 127; }
uint32_t scale_pow2(Kind k, int e) { return k == Kind::nvfp4_e2m1 ? uint32_t((e + 7) << 3) : uint32_t(127 + e); }  // 2^e
uint32_t sign_bit(Kind k) { return is8(k) ? 0x80 : 0x8; }


// ---- random numbers: xorshift64* -------------------------------------------------------------------

// ---- cuBLASLt operand layouts (file comment) ----------------------------------------------------------
// Byte offset of scale (row, col) in the tiled 1D block-scaling layout; cols = K / block (unpadded).
size_t sf_offset(int row, int col, int cols) {
  const int col_tiles = (cols + 3) / 4;
  const size_t tile = size_t(row / 128) * size_t(col_tiles) + size_t(col / 4);
  const int r = row % 128, c = col % 4;
  return tile * 512 + size_t(r % 32) * 16 + size_t(r / 32) * 4 + size_t(c);
}
size_t sf_bytes(int rows, int cols) { return size_t((rows + 127) / 128) * 128 * size_t((cols + 3) / 4) * 4; }

// Scale tensor of `rows` rows (M or N), every column of row r (padding included) holding code[r].
std::vector<uint8_t> sf_tensor(const std::vector<uint32_t>& code, int K, int block) {
  const int rows = int(code.size()), cols = K / block, padded_cols = (cols + 3) / 4 * 4;
  std::vector<uint8_t> t(sf_bytes(rows, cols), 0);
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < padded_cols; ++c) t[sf_offset(r, c, cols)] = uint8_t(code[r]);
  return t;
}

// Element codes of `vecs` vectors of length K (row i of op(A), or column j of op(B)), each contiguous
// along K (A: lda = K with TRANSA = T; B: ldb = K with TRANSB = N). FP4: two codes a byte, low nibble first.
std::vector<uint8_t> pack(Kind k, const std::vector<uint8_t>& codes, int K) {
  if (is8(k)) return codes;
  std::vector<uint8_t> out(codes.size() / 2, 0);
  for (size_t i = 0; i < codes.size(); ++i) out[i / 2] |= uint8_t((codes[i] & 0xf) << ((i & 1) ? 4 : 0));
  (void)K;
  return out;
}

bool cuda_ok(cudaError_t e, const char* what) {
  if (e == cudaSuccess) return true;
  std::fprintf(stderr, "record_block_scaled_cublaslt: %s: %s\n", what, cudaGetErrorString(e));
  return false;
}
const char* lt_status(cublasStatus_t s) {
  switch (s) {
    case CUBLAS_STATUS_SUCCESS: return "CUBLAS_STATUS_SUCCESS";
    case CUBLAS_STATUS_NOT_INITIALIZED: return "CUBLAS_STATUS_NOT_INITIALIZED";
    case CUBLAS_STATUS_ALLOC_FAILED: return "CUBLAS_STATUS_ALLOC_FAILED";
    case CUBLAS_STATUS_INVALID_VALUE: return "CUBLAS_STATUS_INVALID_VALUE";
    case CUBLAS_STATUS_ARCH_MISMATCH: return "CUBLAS_STATUS_ARCH_MISMATCH";
    case CUBLAS_STATUS_EXECUTION_FAILED: return "CUBLAS_STATUS_EXECUTION_FAILED";
    case CUBLAS_STATUS_INTERNAL_ERROR: return "CUBLAS_STATUS_INTERNAL_ERROR";
    case CUBLAS_STATUS_NOT_SUPPORTED: return "CUBLAS_STATUS_NOT_SUPPORTED";
    default: return "cuBLAS status (other)";
  }
}

// One block-scaled GEMM setting for (set, K): descriptors, heuristic algorithm, device buffers.
struct Gemm {
  cublasLtHandle_t lt = nullptr;
  const SetInfo* s = nullptr;
  int K = 0;
  cublasLtMatmulDesc_t op = nullptr;
  cublasLtMatrixLayout_t la = nullptr, lb = nullptr, lc = nullptr;
  cublasLtMatmulPreference_t pref = nullptr;
  cublasLtMatmulHeuristicResult_t heur{};
  void *dA = nullptr, *dB = nullptr, *dSA = nullptr, *dSB = nullptr, *dD = nullptr, *work = nullptr;
  size_t work_bytes = size_t(32) << 20;
  std::string why;  // why not available
  std::string algo_note;  // the algorithm chosen

  bool lt_ok(cublasStatus_t st, const char* what) {
    if (st == CUBLAS_STATUS_SUCCESS) return true;
    why = std::string(what) + ": " + lt_status(st);
    return false;
  }
  // Returns false with why set when cuBLASLt offers no algorithm (or a call fails).
  bool setup(cublasLtHandle_t h, const SetInfo& set, int k) {
    lt = h, s = &set, K = k;
    const cublasOperation_t ta = CUBLAS_OP_T, tb = CUBLAS_OP_N;
    const int32_t mode = int32_t(set.mode);
    if (!lt_ok(cublasLtMatmulDescCreate(&op, CUBLAS_COMPUTE_32F, CUDA_R_32F), "cublasLtMatmulDescCreate") ||
        !lt_ok(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_TRANSA, &ta, sizeof ta), "TRANSA") ||
        !lt_ok(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_TRANSB, &tb, sizeof tb), "TRANSB") ||
        !lt_ok(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_A_SCALE_MODE, &mode, sizeof mode), "A_SCALE_MODE") ||
        !lt_ok(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_B_SCALE_MODE, &mode, sizeof mode), "B_SCALE_MODE"))
      return false;
    const size_t elem_bytes_a = is8(set.kind) ? size_t(kM) * K : size_t(kM) * K / 2;
    const size_t elem_bytes_b = is8(set.kind) ? size_t(kN) * K : size_t(kN) * K / 2;
    const int cols = K / set.block;
    if (!cuda_ok(cudaMalloc(&dA, elem_bytes_a), "cudaMalloc") || !cuda_ok(cudaMalloc(&dB, elem_bytes_b), "cudaMalloc") ||
        !cuda_ok(cudaMalloc(&dSA, sf_bytes(kM, cols)), "cudaMalloc") ||
        !cuda_ok(cudaMalloc(&dSB, sf_bytes(kN, cols)), "cudaMalloc") ||
        !cuda_ok(cudaMalloc(&dD, size_t(kM) * kN * 4), "cudaMalloc") || !cuda_ok(cudaMalloc(&work, work_bytes), "cudaMalloc")) {
      why = "cudaMalloc failed";
      return false;
    }
    if (!lt_ok(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, &dSA, sizeof dSA), "A_SCALE_POINTER") ||
        !lt_ok(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_B_SCALE_POINTER, &dSB, sizeof dSB), "B_SCALE_POINTER") ||
        !lt_ok(cublasLtMatrixLayoutCreate(&la, set.type, uint64_t(K), uint64_t(kM), int64_t(K)), "layout A") ||
        !lt_ok(cublasLtMatrixLayoutCreate(&lb, set.type, uint64_t(K), uint64_t(kN), int64_t(K)), "layout B") ||
        !lt_ok(cublasLtMatrixLayoutCreate(&lc, CUDA_R_32F, uint64_t(kM), uint64_t(kN), int64_t(kM)), "layout C/D") ||
        !lt_ok(cublasLtMatmulPreferenceCreate(&pref), "cublasLtMatmulPreferenceCreate") ||
        !lt_ok(cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &work_bytes,
                                                     sizeof work_bytes),
               "MAX_WORKSPACE_BYTES"))
      return false;
    int returned = 0;
    cublasLtMatmulHeuristicResult_t found[8] = {};
    const cublasStatus_t st = cublasLtMatmulAlgoGetHeuristic(lt, op, la, lb, lc, lc, pref, 8, found, &returned);
    if (st != CUBLAS_STATUS_SUCCESS || returned == 0) {
      why = std::string("cublasLtMatmulAlgoGetHeuristic returned ") + std::to_string(returned) + " algorithms (" +
            lt_status(st) + ") for " + set.mode_name + ", TN, M = N = 128, K = " + std::to_string(K);
      return false;
    }
    // The first algorithm that does not split K (a split K would add partial sums outside the unit).
    int pick = -1;
    for (int i = 0; i < returned && pick < 0; ++i)
      if (split_k(found[i].algo) <= 1) pick = i;
    heur = found[pick < 0 ? 0 : pick];
    algo_note = "algorithm id " + std::to_string(config(heur.algo, CUBLASLT_ALGO_CONFIG_ID)) + ", split-K " +
                std::to_string(split_k(heur.algo)) + (pick < 0 ? " (every algorithm offered splits K)" : "") + ", " +
                std::to_string(returned) + " offered";
    return true;
  }
  static int32_t config(const cublasLtMatmulAlgo_t& a, cublasLtMatmulAlgoConfigAttributes_t attr) {
    int32_t v = -1;
    size_t written = 0;
    if (cublasLtMatmulAlgoConfigGetAttribute(&a, attr, &v, sizeof v, &written) != CUBLAS_STATUS_SUCCESS) return -1;
    return v;
  }
  static int32_t split_k(const cublasLtMatmulAlgo_t& a) { return config(a, CUBLASLT_ALGO_CONFIG_SPLITK_NUM); }
  // D (M x N, column-major binary32 bits) of rows of op(A) (M x K codes, row-major) and columns of
  // op(B) (N x K codes, column j contiguous), with per-row and per-column scale codes.
  bool run(const std::vector<uint8_t>& a, const std::vector<uint8_t>& b, const std::vector<uint32_t>& sa,
           const std::vector<uint32_t>& sb, std::vector<uint32_t>& d) {
    const std::vector<uint8_t> pa = pack(s->kind, a, K), pb = pack(s->kind, b, K);
    const std::vector<uint8_t> ta = sf_tensor(sa, K, s->block), tb = sf_tensor(sb, K, s->block);
    bool ok = cuda_ok(cudaMemcpy(dA, pa.data(), pa.size(), cudaMemcpyHostToDevice), "cudaMemcpy") &&
              cuda_ok(cudaMemcpy(dB, pb.data(), pb.size(), cudaMemcpyHostToDevice), "cudaMemcpy") &&
              cuda_ok(cudaMemcpy(dSA, ta.data(), ta.size(), cudaMemcpyHostToDevice), "cudaMemcpy") &&
              cuda_ok(cudaMemcpy(dSB, tb.data(), tb.size(), cudaMemcpyHostToDevice), "cudaMemcpy") &&
              cuda_ok(cudaMemset(dD, 0xff, size_t(kM) * kN * 4), "cudaMemset");
    if (!ok) return false;
    const float alpha = 1.0f, beta = 0.0f;
    const cublasStatus_t st = cublasLtMatmul(lt, op, &alpha, dA, la, dB, lb, &beta, dD, lc, dD, lc, &heur.algo, work,
                                             work_bytes, 0);
    if (st != CUBLAS_STATUS_SUCCESS) {
      std::fprintf(stderr, "record_block_scaled_cublaslt: %s: cublasLtMatmul: %s\n", s->name, lt_status(st));
      return false;
    }
    if (!cuda_ok(cudaDeviceSynchronize(), "cublasLtMatmul")) return false;
    d.assign(size_t(kM) * kN, 0);
    return cuda_ok(cudaMemcpy(d.data(), dD, d.size() * 4, cudaMemcpyDeviceToHost), "cudaMemcpy");
  }
  void release() {
    if (pref) cublasLtMatmulPreferenceDestroy(pref);
    if (la) cublasLtMatrixLayoutDestroy(la);
    if (lb) cublasLtMatrixLayoutDestroy(lb);
    if (lc) cublasLtMatrixLayoutDestroy(lc);
    if (op) cublasLtMatmulDescDestroy(op);
    cudaFree(dA), cudaFree(dB), cudaFree(dSA), cudaFree(dSB), cudaFree(dD), cudaFree(work);
    pref = nullptr, la = lb = lc = nullptr, op = nullptr;
    dA = dB = dSA = dSB = dD = work = nullptr;
  }
};

// Small-integer element codes (values 0, +-1, +-2, +-3).
uint32_t small_code(Kind k, int v) {
  const int m = v < 0 ? -v : v;
  uint32_t c;
  if (is8(k)) c = m == 0 ? 0 : m == 1 ? 0x38 : m == 2 ? 0x40 : 0x44;
  else c = m == 0 ? 0 : m == 1 ? 2 : m == 2 ? 4 : 5;
  return v < 0 ? c | sign_bit(k) : c;
}

// The self-test: integer elements, sa_i = 2^(i % 7 - 3), sb_j = 2^(j % 5 - 2); every element of D
// exact (|sum| <= 9 K 2^5 < 2^24). Returns 1 pass, 0 fail, -1 error.
int selftest(Gemm& g, Rng& rng) {
  const Kind k = g.s->kind;
  const int K = g.K;
  std::vector<int> av(size_t(kM) * K), bv(size_t(kN) * K);
  std::vector<uint8_t> a(av.size()), b(bv.size());
  for (size_t i = 0; i < av.size(); ++i) av[i] = rng.below(7) - 3, a[i] = uint8_t(small_code(k, av[i]));
  for (size_t i = 0; i < bv.size(); ++i) bv[i] = rng.below(7) - 3, b[i] = uint8_t(small_code(k, bv[i]));
  std::vector<uint32_t> sa(kM), sb(kN), d;
  for (int i = 0; i < kM; ++i) sa[i] = scale_pow2(k, i % 7 - 3);
  for (int j = 0; j < kN; ++j) sb[j] = scale_pow2(k, j % 5 - 2);
  if (!g.run(a, b, sa, sb, d)) return -1;
  int bad = 0;
  for (int i = 0; i < kM; ++i)
    for (int j = 0; j < kN; ++j) {
      long long sum = 0;
      for (int t = 0; t < K; ++t) sum += (long long)av[size_t(i) * K + t] * bv[size_t(j) * K + t];
      const float want = float(std::ldexp(double(sum), (i % 7 - 3) + (j % 5 - 2)));
      const uint32_t got = d[size_t(j) * kM + i];
      if (got != f32_bits(want) && bad++ < 6)
        std::fprintf(stderr, "  self-test %s (K = %d): D[%d][%d] = %g, expected %g\n", g.s->name, K, i, j,
                     double(f32_of(got)), double(want));
    }
  if (bad) {
    std::fprintf(stderr,
                 "record_block_scaled_cublaslt: self-test %s (K = %d) FAILED in %d of %d elements of D: the scale-factor "
                 "layout (sf_offset), the FP4 nibble order or the operand layout assumed here is wrong\n",
                 g.s->name, K, bad, kM * kN);
    return 0;
  }
  std::printf("self-test %s (K = %d): all %d elements of D match\n", g.s->name, K, kM * kN);
  return 1;
}

// ---- the cases (c = 0 throughout) ----------------------------------------------------------------------
struct Case {
  uint32_t sa, sb;
  std::vector<uint8_t> a, b;
};

const char* const kFamilies[] = {"unit", "wide", "cancel", "bits"};
constexpr int kNumFamilies = 4;

bool finite_elem(Kind k, uint32_t c) { return !is8(k) || (c & 0x7f) != 0x7f; }
uint32_t rand_elem(Kind k, Rng& r) {
  for (;;) {
    const uint32_t c = uint32_t(r.next() >> 40) & (is8(k) ? 0xff : 0xf);
    if (finite_elem(k, c)) return c;
  }
}
// A scale code of value 2^e (E8M0), or a UE4M3 scale near 2^e (2^-6 .. 448; subnormal codes left out).
uint32_t scale_code(Kind k, int e, Rng& r) {
  if (k != Kind::nvfp4_e2m1) return uint32_t(127 + e);
  int be = e + 7;
  if (be < 1) be = 1;
  if (be > 15) be = 15;
  uint32_t c = uint32_t(be << 3) | uint32_t(r.below(8));
  if (c == 0x7f) c = 0x7e;
  return c;
}

std::vector<Case> make_cases(const SetInfo& s, int K, int n, uint64_t seed, int& crafted) {
  Rng rng(seed ^ (uint64_t(s.kind) + 11) * 0x9E3779B97F4A7C15ull);
  const Kind k = s.kind;
  const uint32_t one = scale_one(k);
  std::vector<Case> out;
  auto blank = [&]() { return Case{one, one, std::vector<uint8_t>(K, 0), std::vector<uint8_t>(K, 0)}; };
  {
    Case x = blank();
    out.push_back(x);  // +0 products
    x.a[0] = uint8_t(small_code(k, -1));
    out.push_back(x);  // -1 * 0: a negative zero product
    Case y = blank();
    for (int i = 0; i < K; ++i) y.a[i] = uint8_t(small_code(k, 1 + i % 3)), y.b[i] = uint8_t(small_code(k, 1));
    out.push_back(y);  // an exact sum
    // Alignment: one large product and one small one, their exponents apart by sh.
    const uint32_t big = is8(k) ? 0x70 /* 128 */ : 7 /* 6 */, tiny = is8(k) ? 0x01 /* 2^-9 */ : 1 /* 0.5 */;
    Case z = blank();
    z.a[0] = uint8_t(big), z.b[0] = uint8_t(big), z.a[K - 1] = uint8_t(tiny), z.b[K - 1] = uint8_t(tiny);
    out.push_back(z);
    z.a[1] = uint8_t(big | sign_bit(k)), z.b[1] = uint8_t(big);
    out.push_back(z);  // the large products cancel: the small one alone
    for (int sh = 2; sh <= 30; sh += 4) {  // E8M0 scales move a sum against nothing: scale extremes
      Case w = y;
      w.sa = scale_code(k, sh, rng), w.sb = scale_code(k, -sh - 3, rng);
      out.push_back(w);
    }
    Case w = blank();  // cancellation
    for (int i = 0; i < K / 2; ++i) {
      w.a[i] = uint8_t(rand_elem(k, rng)), w.b[i] = uint8_t(rand_elem(k, rng));
      w.a[i + K / 2] = uint8_t(w.a[i] ^ sign_bit(k)), w.b[i + K / 2] = w.b[i];
    }
    w.a[0] = uint8_t(small_code(k, 1)), w.b[0] = uint8_t(small_code(k, 1));
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
      if (fam == 0 && is8(k)) {  // unit: element exponents near 1
        x.a[j] = uint8_t((x.a[j] & 0x87) | ((6 + rng.below(3)) << 3));
        x.b[j] = uint8_t((x.b[j] & 0x87) | ((6 + rng.below(3)) << 3));
      }
    }
    if (fam == 2)  // cancel: the second half repeats the first with the other sign, some one ulp off
      for (int j = 0; j < K / 2; ++j) {
        x.a[j + K / 2] = uint8_t(x.a[j] ^ sign_bit(k));
        x.b[j + K / 2] = uint8_t(x.b[j] ^ (rng.below(4) == 0 && (x.b[j] & 1) == 0 ? 1 : 0));
        if (!finite_elem(k, x.b[j + K / 2])) x.b[j + K / 2] = x.b[j];
      }
    out.push_back(x);
  }
  return out;
}

void usage() {
  std::fprintf(stderr,
               "usage: record_block_scaled_cublaslt --out DIR [--cases N] [--seed S] [--gpu NAME] [--device I]\n"
               "       record_block_scaled_cublaslt --dry-run --cc CC --gpu NAME --out DIR ...   (inputs only, no GPU)\n");
}


bool write_set(const std::string& out, const std::string& gpu, const SetInfo& s, int K, int cc, bool dry, int crafted,
               const std::vector<Case>& cs, const std::vector<uint32_t>& d, const std::string& note) {
  const std::filesystem::path dir = std::filesystem::path(out) / gpu / "block_scaled";
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  const std::filesystem::path file = dir / (std::string(s.name) + ".txt");
  std::ofstream f(file);
  if (!f) {
    std::fprintf(stderr, "record_block_scaled_cublaslt: cannot write %s\n", file.string().c_str());
    return false;
  }
  f << "# set " << s.name << "\n# K " << K << "\n# block " << s.block
    << "\n# instruction cublasLtMatmul " << s.mode_name
    << ", CUBLAS_COMPUTE_32F, D CUDA_R_32F, TN, M = N = 128, alpha 1, beta 0; case = D[i][i]"
    << (note.empty() ? "" : "; ") << note
    << "\n# compute_capability " << cc << "\n# dry_run " << (dry ? 1 : 0) << "\n# crafted " << crafted << "\n# families";
  for (const char* fam : kFamilies) f << ' ' << fam;
  f << "\n# c is 0 in every case (cuBLASLt adds C in its epilogue, not as the MMA's accumulator)"
    << "\n# columns: sa sb c d a_0..a_{K-1} b_0..b_{K-1} (one scale code per operand for every block)\n";
  char buf[16];
  for (size_t i = 0; i < cs.size(); ++i) {
    std::snprintf(buf, sizeof buf, "%02x %02x ", cs[i].sa, cs[i].sb);
    f << buf << "00000000 ";
    if (dry) f << "- ";
    else {
      std::snprintf(buf, sizeof buf, "%08x ", d[i]);
      f << buf;
    }
    for (int j = 0; j < K; ++j) std::snprintf(buf, sizeof buf, "%02x ", cs[i].a[j]), f << buf;
    for (int j = 0; j < K; ++j) std::snprintf(buf, sizeof buf, j + 1 < K ? "%02x " : "%02x", cs[i].b[j]), f << buf;
    f << '\n';
  }
  std::printf("%s: %zu cases (%d crafted), K = %d%s -> %s\n", s.name, cs.size(), crafted, K, dry ? " (inputs only)" : "",
              file.string().c_str());
  return bool(f);
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
    else if (a == "--device") device = std::atoi(val().c_str());
    else if (a == "--cc") cc = std::atoi(val().c_str());
    else if (a == "--dry-run") dry = true;
    else {
      usage();
      return 2;
    }
  }
  if (out.empty() || cases < 1 || (dry && (gpu.empty() || cc == 0))) {
    usage();
    return 2;
  }

  // The scale layout must put every (row, column) of a padded tile at a distinct byte.
  for (const auto& s : kSets)
    for (int K : s.ks) {
      const int cols = K / s.block, pc = (cols + 3) / 4 * 4;
      std::vector<int> hit(sf_bytes(kM, cols), 0);
      for (int r = 0; r < kM; ++r)
        for (int c = 0; c < pc; ++c) ++hit[sf_offset(r, c, cols)];
      for (int h : hit)
        if (h != 1) {
          std::fprintf(stderr, "record_block_scaled_cublaslt: sf_offset is not a bijection (%s, K = %d)\n", s.name, K);
          return 3;
        }
    }

  if (dry) {
    if (cc / 10 != 10 && cc / 10 != 12) {
      std::printf("cublaslt block-scaled sets skipped: dry run for sm_%d; cuBLASLt block-scaled FP8/FP4 matmul is "
                  "recorded on compute capability 10.x and 12.x only (use --cc 100 to write the inputs)\n",
                  cc);
      return 0;
    }
    std::printf("record_block_scaled_cublaslt --dry-run: inputs only, nothing measured (K = one instruction's K)\n");
    for (const auto& s : kSets) {
      int crafted = 0;
      const int K = s.ks[0];
      const std::vector<Case> cs = make_cases(s, K, cases, seed, crafted);
      if (!write_set(out, gpu, s, K, cc, true, crafted, cs, {}, "")) return 2;
    }
    return 0;
  }

  int n = 0;
  if (!cuda_ok(cudaGetDeviceCount(&n), "cudaGetDeviceCount") || n == 0) return 2;
  if (!cuda_ok(cudaSetDevice(device), "cudaSetDevice")) return 2;
  cudaDeviceProp prop{};
  if (!cuda_ok(cudaGetDeviceProperties(&prop, device), "cudaGetDeviceProperties")) return 2;
  cc = prop.major * 10 + prop.minor;
  if (gpu.empty()) gpu = short_name(prop.name);
  if (prop.major != 10 && prop.major != 12) {
    std::printf("cublaslt block-scaled sets skipped: %s is sm_%d; block-scaled FP8/FP4 matmul (VEC32_UE8M0, "
                "VEC16_UE4M3 scales) needs a Blackwell device, compute capability 10.x or 12.x\n",
                prop.name, cc);
    return 0;
  }
  cublasLtHandle_t lt = nullptr;
  {
    const cublasStatus_t st = cublasLtCreate(&lt);
    if (st != CUBLAS_STATUS_SUCCESS) {
      std::fprintf(stderr, "record_block_scaled_cublaslt: cublasLtCreate: %s\n", lt_status(st));
      return 2;
    }
  }
  std::printf("cuBLASLt version %zu (headers %d), device %s sm_%d\n", cublasLtGetVersion(), CUBLAS_VERSION, prop.name, cc);
  Rng rng(seed ^ 0x5e1f7e57ull);
  int recorded = 0;
  std::string reasons;
  for (const auto& s : kSets) {
    Gemm g;
    int K = 0;
    std::string why;
    for (int k : s.ks) {
      if (g.setup(lt, s, k)) {
        K = k;
        break;
      }
      why += (why.empty() ? "" : "; ") + g.why;
      g.release();
    }
    if (K == 0) {
      std::printf("cublaslt block-scaled set %s skipped: %s\n", s.name, why.c_str());
      reasons += std::string(reasons.empty() ? "" : "; ") + s.name + ": " + why;
      continue;
    }
    if (K != s.ks[0])
      std::printf("%s: cuBLASLt offers no algorithm for K = %d (one instruction); recording K = %d (several "
                  "instructions per case)\n",
                  s.name, s.ks[0], K);
    std::printf("%s: K = %d, cuBLASLt %s\n", s.name, K, g.algo_note.c_str());
    const int t = selftest(g, rng);
    if (t < 0) {
      g.release();
      cublasLtDestroy(lt);
      return 2;
    }
    if (t == 0) {
      g.release();
      cublasLtDestroy(lt);
      return 3;
    }
    int crafted = 0;
    const std::vector<Case> cs = make_cases(s, K, cases, seed, crafted);
    std::vector<uint32_t> d(cs.size(), 0);
    for (size_t base = 0; base < cs.size(); base += kM) {  // 128 cases per GEMM, on the diagonal
      std::vector<uint8_t> a(size_t(kM) * K, 0), b(size_t(kN) * K, 0);
      std::vector<uint32_t> sa(kM, scale_one(s.kind)), sb(kN, scale_one(s.kind)), dd;
      const size_t m = std::min(size_t(kM), cs.size() - base);
      for (size_t i = 0; i < m; ++i) {
        const Case& x = cs[base + i];
        std::memcpy(&a[i * K], x.a.data(), size_t(K));
        std::memcpy(&b[i * K], x.b.data(), size_t(K));
        sa[i] = x.sa, sb[i] = x.sb;
      }
      if (!g.run(a, b, sa, sb, dd)) {
        g.release();
        cublasLtDestroy(lt);
        return 2;
      }
      for (size_t i = 0; i < m; ++i) d[base + i] = dd[i * kM + i];
    }
    g.release();
    if (!write_set(out, gpu, s, K, cc, false, crafted, cs, d, g.algo_note)) {
      cublasLtDestroy(lt);
      return 2;
    }
    ++recorded;
  }
  cublasLtDestroy(lt);
  if (recorded == 0) {
    std::printf("cublaslt block-scaled sets skipped: cuBLASLt %zu on %s (sm_%d) offers none of them: %s\n",
                cublasLtGetVersion(), prop.name, cc, reasons.c_str());
    return 0;
  }
  return 0;
}
