#!/usr/bin/env bash
# Builds every libFuzzer target tests/fuzz/fuzz_*.cpp with clang (libFuzzer + ASan + UBSan) and runs
# each for a bounded time. CI runs it; so can anyone with clang.
#
#   tests/fuzz/run_all.sh [BUILD_DIR [SECONDS [TARGET...]]]   (defaults: build/fuzz, 20, every target)
#
# FUZZ_JOBS (default: the number of CPUs) targets are handled at the same time, each fuzzed as soon as
# it is built; a build and a libFuzzer process each use one CPU, so every target still gets SECONDS of
# fuzzing of its own.
#
# TARGET is a name like fuzz_npy. Each target starts from a scratch copy (BUILD_DIR/corpus/<target>)
# of its committed inputs, which are only read:
#   tests/fuzz/<target>_seeds/, tests/fuzz/explore_seeds/<name>/      seeds (<name>: fuzz_ removed)
#   tests/fuzz/regressions/<target>/, tests/fuzz/explore_regressions/<name>/
#                                          inputs that crashed once: every run replays them first
# libFuzzer runs the whole copied corpus before it mutates anything, so a regression input that
# crashes again fails the run at once.
#
# Exit status: 0 every target built and ran its time without a finding; 1 a target failed to build
# or found a crash, sanitizer report, leak, timeout or out-of-memory (its input is printed in hex
# and kept in BUILD_DIR/artifacts/<target>/: add it to tests/fuzz/regressions/<target>/ and add a
# CLI test for it); 2 bad usage, or clang++ (with libFuzzer) is missing.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build=${1:-$root/build/fuzz}
seconds=${2:-20}
shift $(($# > 2 ? 2 : $#))

if ! [[ $seconds =~ ^[1-9][0-9]*$ ]]; then
  echo "run_all.sh: SECONDS '$seconds' is not a positive whole number of seconds" >&2
  echo "usage: tests/fuzz/run_all.sh [BUILD_DIR [SECONDS [TARGET...]]]" >&2
  exit 2
fi
cxx=${CXX_FUZZ:-$(command -v clang++-16 || command -v clang++ || true)}
if [[ -z $cxx ]]; then
  echo "run_all.sh: clang++ not found: libFuzzer needs clang (scripts/install-deps.sh --clang installs clang-16 and libclang-rt-16-dev)" >&2
  exit 2
fi

targets=("$@")
if [[ ${#targets[@]} -eq 0 ]]; then
  for src in "$here"/fuzz_*.cpp; do targets+=("$(basename "$src" .cpp)"); done
fi
for t in "${targets[@]}"; do
  if [[ ! -f $here/$t.cpp ]]; then
    echo "run_all.sh: no fuzz target '$t' (accepted: the names of tests/fuzz/fuzz_*.cpp without .cpp)" >&2
    exit 2
  fi
done

mkdir -p "$build" || exit 2
build=$(cd "$build" && pwd)

# Does clang link libFuzzer at all? (clang without libclang-rt-*-dev compiles but cannot link.)
probe=$build/probe_fuzzer
printf 'extern "C" int LLVMFuzzerTestOneInput(const unsigned char*, unsigned long) { return 0; }\n' > "$probe.cpp"
if ! "$cxx" -fsanitize=fuzzer,address,undefined "$probe.cpp" -o "$probe" 2> "$probe.log"; then
  cat "$probe.log" >&2
  echo "run_all.sh: $cxx cannot link libFuzzer with ASan/UBSan (Debian: apt-get install the libclang-rt-N-dev of clang N)" >&2
  exit 2
fi

cxxflags=(-std=c++20 -O1 -gline-tables-only -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined
          -fno-omit-frame-pointer -I"$root/libfloat/include" -I"$root/tools" -I"$root/tools/floatlab")

jobs=${FUZZ_JOBS:-$(nproc 2>/dev/null || echo 1)}
if ! [[ $jobs =~ ^[1-9][0-9]*$ ]]; then
  echo "run_all.sh: FUZZ_JOBS '$jobs' is not a positive whole number" >&2
  exit 2
fi

# run_parallel FUNCTION: FUNCTION t for every target, at most $jobs at a time; each writes its
# report to $build/<target>.<FUNCTION>.out and its status to $build/<target>.<FUNCTION>.rc.
run_parallel() {
  local fn=$1 t running=0
  for t in "${targets[@]}"; do
    if [[ $running -ge $jobs ]]; then
      wait -n || true
      running=$((running - 1))
    fi
    ( "$fn" "$t" > "$build/$t.$fn.out" 2>&1; echo $? > "$build/$t.$fn.rc" ) &
    running=$((running + 1))
  done
  wait
}

build_one() {
  local t=$1
  echo "== $t: build"
  # -lz: zlib inflates .npz members (tools/floatlab/zip_reader.hpp); unused targets do not mind.
  if ! "$cxx" "${cxxflags[@]}" "$here/$t.cpp" -o "$build/$t" -lz 2> "$build/$t.build.log"; then
    cat "$build/$t.build.log"
    echo "FAIL $t: does not build"
    return 1
  fi
}

fuzz_one() {
  local t=$1 name=${1#fuzz_} exe=$build/$1
  local corpus=$build/corpus/$t artifacts=$build/artifacts/$t
  rm -rf "$corpus" "$artifacts"
  mkdir -p "$corpus" "$artifacts"
  local inputs=0 dir f
  for dir in "$here/${t}_seeds" "$here/explore_seeds/$name" "$here/regressions/$t" "$here/explore_regressions/$name"; do
    [[ -d $dir ]] || continue
    for f in "$dir"/*; do
      [[ -f $f ]] || continue
      # Prefix with the folder's name: two folders may hold files of the same name.
      cp "$f" "$corpus/$(basename "$dir")-$(basename "$f")"
      inputs=$((inputs + 1))
    done
  done

  echo "== $t: ${seconds}s from $inputs committed inputs"
  local log=$build/$t.log rc
  (cd "$build" && "$exe" -max_total_time="$seconds" -max_len=4096 -timeout=10 -rss_limit_mb=2048 \
     -artifact_prefix="$artifacts/" -print_final_stats=1 "$corpus") > "$log" 2>&1
  rc=$?
  local findings=("$artifacts"/*)
  if [[ $rc -eq 0 && ! -e ${findings[0]} ]]; then
    grep -E '^(Done|stat::number_of_executed_units|stat::new_units_added)' "$log" | tr '\n' ' '
    echo
    echo "ok   $t"
    return 0
  fi
  echo "---- $t: last lines of $log"
  tail -n 60 "$log"
  for f in "${findings[@]}"; do
    [[ -e $f ]] || continue
    echo "---- $t: input $f ($(wc -c < "$f") bytes), in hex:"
    od -An -v -tx1 "$f"
  done
  echo "FAIL $t (exit $rc): add the input to tests/fuzz/regressions/$t/ and a test for it"
  return 1
}

# Each target is fuzzed as soon as it is built, in the same slot (a build and a fuzzer each use one
# CPU), so no CPU waits for the slowest build before the fuzzing starts.
build_then_fuzz() {
  local t=$1 rc
  build_one "$t" > "$build/$t.build_one.out" 2>&1
  rc=$?
  echo $rc > "$build/$t.build_one.rc"
  rm -f "$build/$t.fuzz_one.rc"
  [[ $rc -eq 0 ]] || return 1
  fuzz_one "$t" > "$build/$t.fuzz_one.out" 2>&1
  rc=$?
  echo $rc > "$build/$t.fuzz_one.rc"
  return $rc
}

failed=()
run_parallel build_then_fuzz
for t in "${targets[@]}"; do
  cat "$build/$t.build_one.out"
  if [[ $(cat "$build/$t.build_one.rc") -ne 0 ]]; then
    failed+=("$t")
    continue
  fi
  cat "$build/$t.fuzz_one.out"
  [[ $(cat "$build/$t.fuzz_one.rc") -eq 0 ]] || failed+=("$t")
done

if [[ ${#failed[@]} -gt 0 ]]; then
  echo "run_all.sh: ${#failed[@]} of ${#targets[@]} fuzz targets failed: ${failed[*]}"
  exit 1
fi
echo "run_all.sh: ${#targets[@]} fuzz targets ran ${seconds}s each without a finding"
