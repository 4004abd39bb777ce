#!/usr/bin/env bash
# Builds bench_accumulate (bench preset, Release) and measures every matrix-unit preset
# (lf::matrix_unit_presets, benchmarks lf/mu/<name>) beside the plain float dot loop hw/float/dot
# in the same process: 4096-term dot products of random normal-range values of each preset's
# input format. Writes Google Benchmark's JSON to <build>/results_matrix_units.json and prints the
# medians and each preset's ratio to the float dot with the target (>= 0.5x; bench/ratios.py).
#
# The repetitions of all the benchmarks run in a shuffled order (random interleaving), so that a
# slow period of a shared or virtual machine falls on all of them alike rather than on a few
# presets: the float dot is one dependent chain of additions and keeps its speed when the core's
# other hardware thread is busy, while the presets, bound by their throughput, do not.
#
#   bench/run_matrix_units.sh                                # medians of 7, about 1 minute on 2 cores
#   bench/run_matrix_units.sh --benchmark_filter='hw/float/dot$|lf/mu/cdna'   # a subset (keep hw/float/dot)
#   LIBFLOAT_BENCH_BUILD=build/mine bench/run_matrix_units.sh                  # default build/bench
#   LIBFLOAT_BENCH_REPETITIONS=9 bench/run_matrix_units.sh
#
# Timings on a shared or virtual machine are noisy: quote medians (docs/performance.md, "Current
# figures, every preset", gives the ranges of 3 runs), never put them in tests.
set -euo pipefail
cd "$(dirname "$0")/.."

build=${LIBFLOAT_BENCH_BUILD:-build/bench}
out=$build/results_matrix_units.json
cmake --preset bench -B "$build" >/dev/null
cmake --build "$build" -j2 --target bench_accumulate
"$build/bench/bench_accumulate" --benchmark_filter='hw/float/dot$|lf/mu/' \
  --benchmark_repetitions="${LIBFLOAT_BENCH_REPETITIONS:-7}" --benchmark_enable_random_interleaving=true \
  --benchmark_report_aggregates_only=true --benchmark_min_time=0.1 \
  --benchmark_out_format=json --benchmark_out="$out" "$@"
python3 bench/ratios.py "$out"
