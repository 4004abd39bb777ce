#!/usr/bin/env bash
# Builds the bench preset (Release) and runs the suites with repetitions; writes Google Benchmark's
# JSON to build/bench/results.json (scalar; and results_f16c.json from the -mf16c build of the same
# source, on x86) and build/bench/results_decimal.json (decimal parsing and printing), and prints
# the medians and ratios (bench/ratios.py); results_array.json (array kernels, 16M floats) and
# results_accumulate.json (4096-term dot products) likewise.
#
#   bench/run.sh                                  # every suite, a few minutes on 2 cores
#   bench/run.sh --benchmark_filter='fp16'        # extra arguments go to every benchmark binary
#   LIBFLOAT_BENCH_SUITES=decimal bench/run.sh    # only some suites: scalar, decimal, array, accumulate
#                                                 # (default: all four)
#
# Timings on a shared or virtual machine are noisy: quote medians, never put them in tests.
set -euo pipefail
cd "$(dirname "$0")/.."

build=build/bench
out=$build/results.json
out_f16c=$build/results_f16c.json
out_decimal=$build/results_decimal.json
out_array=$build/results_array.json
out_accumulate=$build/results_accumulate.json
args=(--benchmark_repetitions=9 --benchmark_report_aggregates_only=true --benchmark_min_time=0.1
      --benchmark_out_format=json)
read -r -a suites <<<"${LIBFLOAT_BENCH_SUITES:-scalar decimal array accumulate}"
has() {
  local s
  for s in "${suites[@]}"; do [[ $s == "$1" ]] && return 0; done
  return 1
}
for s in "${suites[@]}"; do
  case $s in
    scalar | decimal | array | accumulate) ;;
    *) echo "$0: unknown suite '$s' in LIBFLOAT_BENCH_SUITES (accepted: scalar, decimal, array, accumulate)" >&2; exit 2 ;;
  esac
done

cmake --preset bench >/dev/null
targets=()
if has scalar; then
  targets+=(bench_scalar)
  case "$(uname -m)" in x86_64 | amd64 | i?86) targets+=(bench_scalar_f16c) ;; esac  # see bench/CMakeLists.txt
fi
if has decimal; then targets+=(bench_decimal); fi
if has array; then targets+=(bench_array); fi
if has accumulate; then targets+=(bench_accumulate); fi
cmake --build --preset bench -j2 --target "${targets[@]}"

results=()
if has scalar; then
  "$build/bench/bench_scalar" "${args[@]}" --benchmark_out="$out" "$@"
  results+=("$out")
  if [[ -x $build/bench/bench_scalar_f16c ]]; then
    # the -mf16c build of the same source (x86 only; exits at once on a CPU without F16C)
    rm -f "$out_f16c"
    "$build/bench/bench_scalar_f16c" "${args[@]}" --benchmark_out="$out_f16c" "$@"
    if [[ -s $out_f16c ]]; then results+=("$out_f16c"); fi
  fi
fi
if has decimal; then
  "$build/bench/bench_decimal" "${args[@]}" --benchmark_out="$out_decimal" "$@"
  results+=("$out_decimal")
fi
if has array; then
  "$build/bench/bench_array" "${args[@]}" --benchmark_out="$out_array" "$@"
  results+=("$out_array")
fi
if has accumulate; then
  "$build/bench/bench_accumulate" "${args[@]}" --benchmark_out="$out_accumulate" "$@"
  results+=("$out_accumulate")
fi

python3 bench/ratios.py "${results[@]}"
