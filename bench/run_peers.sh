#!/usr/bin/env bash
# Builds bench_peers (bench preset, Release) and runs it: libfloat beside Berkeley SoftFloat 3e,
# CPFloat and the hardware in one process (bench/bench_peers.cpp). Needs the peers' tarballs in
# ../shared/peers next to the repository (bench/peers.cmake; without them CMake prints a notice and
# there is no target). Writes Google Benchmark's JSON to <build>/results_peers.json and prints the
# medians and libfloat's ratios (bench/ratios.py).
#
#   bench/run_peers.sh                                    # medians of 5, about 3 minutes on 2 cores
#   bench/run_peers.sh --benchmark_filter='peers/cvt/'    # extra arguments go to the benchmark binary
#   LIBFLOAT_BENCH_BUILD=build/mine bench/run_peers.sh    # another build directory (default build/bench)
#   LIBFLOAT_BENCH_REPETITIONS=9 bench/run_peers.sh
#   LIBFLOAT_PEERS_SETS=4096 bench/run_peers.sh   # scalar operand sets per iteration (default 65536; see bench_peers.cpp)
#
# Timings on a shared or virtual machine are noisy: quote medians, never put them in tests.
set -euo pipefail
cd "$(dirname "$0")/.."

build=${LIBFLOAT_BENCH_BUILD:-build/bench}
out=$build/results_peers.json
cmake --preset bench -B "$build" >/dev/null
if ! cmake --build "$build" -j2 --target bench_peers; then
  echo "$0: no bench_peers target (see the bench_peers notice of: cmake --preset bench -B $build)" >&2
  exit 1
fi
"$build/bench/bench_peers" --benchmark_repetitions="${LIBFLOAT_BENCH_REPETITIONS:-5}" \
  --benchmark_report_aggregates_only=true --benchmark_min_time=0.1 \
  --benchmark_out_format=json --benchmark_out="$out" "$@"
python3 bench/ratios.py "$out"
