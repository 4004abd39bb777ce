#!/usr/bin/env bash
# tests/gpu/run.sh: record NVIDIA tensor-core results on this machine's GPU and compare them with
# libfloat's matrix-unit presets (tests/gpu/README.md). Needs a GPU, its driver (nvidia-smi) and
# nvcc; CI never runs it.
#
#   bash tests/gpu/run.sh [OUTDIR]     OUTDIR: default $OUT if set, else ./gpu-results
#
# Environment: CASES (cases per set, default 2000), SEED, GPU_NAME (folder name; default from the
# device), ARCH (e.g. sm_90; default: the GPU's compute capability), NVCC, CXX, PACK (1: write only
# a tarball and the logs into OUTDIR; the default when OUTDIR is $OUT, whose files must be few).
# DRY_RUN=1 (with DRY_CC, default 90): no GPU needed; builds the programs and writes inputs only,
# to check this script itself; nothing is measured (DRY_CC=120 also writes the block-scaled inputs).
# The block-scaled sets (record_block_scaled.cu: MXFP8, MXFP4, NVFP4 with mma.sync .block_scale) are
# recorded on compute capability 12.x only and reported skipped elsewhere (H200, B200 included).
# record_block_scaled_cublaslt.cu records the same formats through cublasLtMatmul (c = 0) on 10.x
# (B200, GB200) and 12.x, and is reported skipped elsewhere (DRY_CC=100 writes its inputs).
# Exit status: 0 every gated set matched; 1 a gated set missed; 2 no GPU, no nvcc or a build or
# run failed; 3 the fragment-layout self-test failed.
set -u -o pipefail

die() {
  echo "run.sh: $*" >&2
  exit 2
}

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
outdir=${1:-${OUT:-./gpu-results}}
cases=${CASES:-2000}
seed=${SEED:-0x6C69626661}
pack=${PACK:-}
if [ -z "$pack" ]; then
  if [ -n "${OUT:-}" ] && [ "$(realpath -m "$outdir")" = "$(realpath -m "$OUT")" ]; then pack=1; else pack=0; fi
fi

# ---- what this machine has ----
nvcc=${NVCC:-$(command -v nvcc || true)}
[ -z "$nvcc" ] && [ -x /usr/local/cuda/bin/nvcc ] && nvcc=/usr/local/cuda/bin/nvcc
if [ -z "$nvcc" ] || [ ! -x "$nvcc" ]; then
  die "nvcc not found (put CUDA's bin on PATH or set NVCC): cannot build record_mma.cu"
fi
dry=${DRY_RUN:-0}
if [ "$dry" != 1 ]; then
  command -v nvidia-smi >/dev/null 2>&1 || die "nvidia-smi not found: no NVIDIA driver, so no GPU to record on"
  nvidia-smi -L 2>/dev/null | grep -q '^GPU' || die "nvidia-smi lists no GPU: nothing to record on"
fi
cxx=${CXX:-}
if [ -z "$cxx" ]; then
  for c in g++ clang++ clang++-18 clang++-17 clang++-16; do command -v "$c" >/dev/null 2>&1 && { cxx=$c; break; }; done
fi
[ -n "$cxx" ] || die "no C++20 compiler (g++ or clang++) for compare.cpp"

if [ "$dry" = 1 ]; then
  cc=${DRY_CC:-90}
else
  cc=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -n 1 | tr -d ' .\r')
fi
if ! [[ $cc =~ ^[0-9]+$ ]]; then
  q=$(dirname "$nvcc")/__nvcc_device_query
  [ -x "$q" ] && cc=$("$q" 2>/dev/null | tr ',' '\n' | head -n 1 | tr -d ' ')
fi
arch=${ARCH:-}
if [ -z "$arch" ]; then
  if [[ $cc =~ ^[0-9]+$ ]]; then arch=sm_$cc; else arch=native; fi
fi
if [[ $cc =~ ^[0-9]+$ ]] && [ "$cc" -lt 80 ]; then
  die "compute capability $cc: record_mma needs 8.0 or newer (bf16 and tf32 mma.sync)"
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/libfloat-gpu.XXXXXX") || die "mktemp failed"
trap 'rm -rf "$work"' EXIT
if [ "$pack" = 1 ]; then results=$work/gpu-results; logs=$outdir; else results=$outdir; logs=$outdir; fi
mkdir -p "$results" "$logs" || die "cannot create $results"

{
  echo "run.sh: $(date -u +%Y-%m-%dT%H:%M:%SZ) on $(hostname)"
  if [ "$dry" = 1 ]; then
    echo "DRY_RUN=1: no GPU used, nothing measured"
  else
    nvidia-smi --query-gpu=name,compute_cap,driver_version,memory.total --format=csv 2>/dev/null || nvidia-smi -L
  fi
  "$nvcc" --version | tail -n 2
  "$cxx" --version | head -n 1
  echo "arch $arch, cases per set $cases, seed $seed"
} | tee "$logs/build.log"

# ---- build (both at once) ----
echo "run.sh: building record_mma ($arch) and compare ..."
timeout 300 "$nvcc" -O2 -std=c++17 -arch="$arch" "$here/record_mma.cu" -o "$work/record_mma" >"$work/nvcc.log" 2>&1 &
p1=$!
timeout 300 "$cxx" -std=c++20 -O2 -I "$root/libfloat/include" "$here/compare.cpp" -o "$work/compare" >"$work/cxx.log" 2>&1 &
p2=$!
wait $p1
r1=$?
wait $p2
r2=$?
if [ "$r2" -ne 0 ] && [ -z "${CXX:-}" ] && command -v clang++ >/dev/null 2>&1 && [ "$cxx" != clang++ ]; then
  echo "run.sh: $cxx failed on compare.cpp; trying clang++" | tee -a "$work/cxx.log"
  timeout 300 clang++ -std=c++20 -O2 -I "$root/libfloat/include" "$here/compare.cpp" -o "$work/compare" >>"$work/cxx.log" 2>&1
  r2=$?
fi
cat "$work/nvcc.log" "$work/cxx.log" >>"$logs/build.log"
[ "$r1" -eq 0 ] || { tail -n 30 "$work/nvcc.log" >&2; die "nvcc failed on record_mma.cu (see build.log)"; }
[ "$r2" -eq 0 ] || { tail -n 30 "$work/cxx.log" >&2; die "$cxx failed on compare.cpp (see build.log)"; }

# ---- record: the sets of the recorded sample, then the extra shapes ----
name_args=()
[ -n "${GPU_NAME:-}" ] && name_args=(--gpu "$GPU_NAME")
[ "$dry" = 1 ] && name_args=(--dry-run --cc "$cc" --gpu "${GPU_NAME:-H200}")
echo "run.sh: recording $cases cases per set ..."
timeout 180 "$work/record_mma" --out "$results" --cases "$cases" --seed "$seed" --shapes recorded ${name_args[@]+"${name_args[@]}"} \
  2>&1 | tee "$logs/record.log"
rr=${PIPESTATUS[0]}
[ "$rr" -eq 3 ] && { echo "run.sh: the fragment-layout self-test failed: nothing recorded is trustworthy" >&2; exit 3; }
[ "$rr" -eq 0 ] || die "record_mma failed (status $rr; see record.log)"
timeout 180 "$work/record_mma" --out "$results/extra" --cases "$cases" --seed "$seed" --shapes extra ${name_args[@]+"${name_args[@]}"} \
  2>&1 | tee -a "$logs/record.log"
re=${PIPESTATUS[0]}
[ "$re" -eq 0 ] || echo "run.sh: record_mma --shapes extra failed (status $re); the main sets stand" >&2

# ---- the block-scaled sets (record_block_scaled.cu): compute capability 12.x only ----
# Warp-level mma.sync .block_scale (MXFP8, MXFP4, NVFP4) exists for sm_120a/sm_120f only (ptxas rejects
# it for sm_100a); elsewhere the program says the sets are skipped. Its failures leave the sets above
# standing; a failed self-test (status 3) is reported in the summary and makes the exit status 3.
bs_status="skipped"
if [[ $cc =~ ^12[0-9]$ ]]; then bs_arch=(-gencode "arch=compute_${cc}a,code=sm_${cc}a"); else bs_arch=(-arch="$arch"); fi
gpu_dirs=()
for d in "$results"/*/; do [ "$(basename "$d")" = extra ] || gpu_dirs+=("$(basename "$d")"); done
bs_args=(--out "$results" --cases "$cases" --seed "$seed")
[ "${#gpu_dirs[@]}" -eq 1 ] && bs_args+=(--gpu "${gpu_dirs[0]}")
[ "$dry" = 1 ] && bs_args+=(--dry-run --cc "$cc")
[ "$dry" = 1 ] && [ "${#gpu_dirs[@]}" -ne 1 ] && bs_args+=(--gpu "${GPU_NAME:-H200}")
echo "run.sh: building record_block_scaled (${bs_arch[*]}) ..."
if timeout 300 "$nvcc" -O2 -std=c++17 "${bs_arch[@]}" "$here/record_block_scaled.cu" -o "$work/record_block_scaled" >"$work/nvcc-bs.log" 2>&1; then
  cat "$work/nvcc-bs.log" >>"$logs/build.log"
  timeout 180 "$work/record_block_scaled" "${bs_args[@]}" 2>&1 | tee -a "$logs/record.log"
  rb=${PIPESTATUS[0]}
  if [ "$rb" -eq 0 ]; then
    if grep -q '^block-scaled sets skipped' "$logs/record.log"; then bs_status="skipped $(sed -n 's/^block-scaled sets skipped *//p' "$logs/record.log" | head -n 1)"
    elif [ "$dry" = 1 ]; then bs_status="inputs written (dry run, nothing measured)"
    else bs_status="recorded"; fi
  elif [ "$rb" -eq 3 ]; then bs_status="self-test FAILED: nothing recorded"
  else bs_status="record_block_scaled failed (status $rb)"; fi
else
  cat "$work/nvcc-bs.log" >>"$logs/build.log"
  rb=2
  bs_status="nvcc failed on record_block_scaled.cu (see build.log)"
fi

# ---- the block-scaled sets through cuBLASLt (record_block_scaled_cublaslt.cu): 10.x and 12.x ----
# cublasLtMatmul with MXFP8 (E4M3, UE8M0 per 32), MXFP4 (E2M1, UE8M0 per 32) and NVFP4 (E2M1, UE4M3 per
# 16) inputs, c = 0: the way to these formats on B200/GB200 (10.x), where mma.sync .block_scale does not
# exist. The program has no device code of its own; it says the sets are skipped when the device is not
# 10.x/12.x or cuBLASLt offers no algorithm. Same handling as the step above.
bl_status="skipped"
if [[ $cc =~ ^1[02][0-9]$ ]]; then bl_arch=(-gencode "arch=compute_${cc}a,code=sm_${cc}a"); else bl_arch=(-arch="$arch"); fi
echo "run.sh: building record_block_scaled_cublaslt (${bl_arch[*]}, -lcublasLt) ..."
if timeout 300 "$nvcc" -O2 -std=c++17 "${bl_arch[@]}" "$here/record_block_scaled_cublaslt.cu" -lcublasLt \
  -o "$work/record_block_scaled_cublaslt" >"$work/nvcc-bl.log" 2>&1; then
  cat "$work/nvcc-bl.log" >>"$logs/build.log"
  timeout 300 "$work/record_block_scaled_cublaslt" "${bs_args[@]}" 2>&1 | tee "$work/record-bl.log" | tee -a "$logs/record.log"
  rl=${PIPESTATUS[0]}
  if [ "$rl" -eq 0 ]; then
    if grep -q '^cublaslt block-scaled sets skipped' "$work/record-bl.log"; then
      bl_status="skipped $(sed -n 's/^cublaslt block-scaled sets skipped *//p' "$work/record-bl.log" | head -n 1)"
    elif [ "$dry" = 1 ]; then bl_status="inputs written (dry run, nothing measured)"
    else bl_status="recorded"; fi
    if grep -q '^cublaslt block-scaled set .* skipped' "$work/record-bl.log"; then
      bl_status="$bl_status; $(grep '^cublaslt block-scaled set .* skipped' "$work/record-bl.log" | sed 's/^cublaslt block-scaled set //' | tr '\n' ';')"
    fi
  elif [ "$rl" -eq 3 ]; then bl_status="self-test FAILED (scale layout or operand layout): nothing recorded"
  else bl_status="record_block_scaled_cublaslt failed (status $rl)"; fi
else
  cat "$work/nvcc-bl.log" >>"$logs/build.log"
  rl=2
  bl_status="nvcc failed on record_block_scaled_cublaslt.cu (see build.log)"
fi

# ---- compare ----
echo "run.sh: comparing with the presets ..."
timeout 300 "$work/compare" "$results" 2>&1 | tee "$logs/compare.log"
rc=${PIPESTATUS[0]}
if [ "$re" -eq 0 ]; then
  timeout 300 "$work/compare" --report-only "$results/extra" 2>&1 | tee "$logs/compare-extra.log"
fi

if [ "$pack" = 1 ]; then
  tar -C "$work" -czf "$outdir/gpu-results.tar.gz" gpu-results || die "tar failed"
  cp "$results/manifest.txt" "$outdir/manifest.txt"
fi

{
  echo
  echo "==== summary ===="
  grep -m 1 '^device ' "$results/manifest.txt"
  echo "sets of the recorded sample's shapes (gated as tests/models/test_tensor_core_hw.cpp gates):"
  grep ' K = ' "$logs/compare.log" | sed 's/^/  /'
  tail -n 1 "$logs/compare.log"
  echo "block-scaled sets (mma.sync .block_scale, compute capability 12.x only): $bs_status"
  echo "block-scaled sets through cuBLASLt (c = 0, compute capability 10.x and 12.x): $bl_status"
  if [ -f "$logs/compare-extra.log" ]; then
    echo "extra shapes (several blocks in one instruction, tf32 K = 8, FP8 with C = 0; reported only):"
    grep ' K = ' "$logs/compare-extra.log" | sed 's/^/  /'
  fi
  if [ "$pack" = 1 ]; then echo "results: $outdir/gpu-results.tar.gz (the layout of tests/data/tensor-core-hw)"; else echo "results: $results"; fi
  case $rc in
    0) [ "$dry" = 1 ] && echo "RESULT: DRY_RUN=1: the script ran; nothing was measured" || echo "RESULT: every gated set matched its preset" ;;
    1) echo "RESULT: a gated set missed its preset (compare.log has the first differences)" ;;
    *) echo "RESULT: compare failed (status $rc)" ;;
  esac
} | tee "$logs/summary.txt"
[ "$rc" -eq 0 ] && { [ "$rb" -eq 3 ] || [ "$rl" -eq 3 ]; } && exit 3
exit "$rc"
