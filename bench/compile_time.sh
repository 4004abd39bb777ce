#!/usr/bin/env bash
# Compile times of programs that use libfloat (docs/performance.md, "Compile time"). Each figure is
# the wall time of one compiler run that compiles and links the program (-std=c++20 -O2, the
# compiler's other defaults), the median of LIBFLOAT_CT_RUNS runs (default 3), with user+sys CPU time
# beside it:
#   iostream           bench/compile_time/iostream_program.cpp: the baseline
#   umbrella           the same plus #include <libfloat/libfloat.hpp> (unused): the cost of the include
#   typed              bench/compile_time/typed_program.cpp: the baseline plus <libfloat/core/fp.hpp>
#                      (lf::fp16 / lf::bf16 arithmetic), without the span and run-time-format API
#   readme             the README's "Library example"
#   models header-only bench/compile_time/models_program.cpp (run-time-format lf::add, a dot under an
#                      accumulation model, a matrix-unit dot), header-only (libfloat::libfloat)
#   models + runtime   the same program as a consumer of libfloat::runtime compiles it: with
#                      -DLIBFLOAT_SEPARATE_RUNTIME, linked with the installed liblibfloat_runtime.a
#
# The library is configured (library only), built and installed into a scratch prefix first, and
# every program compiles against that prefix (-I<prefix>/include), as an installed package's
# consumer does. The flags are the ones the installed libfloat::runtime target gives its consumers
# (tests/package/find_package_runtime builds such a find_package consumer); the compiler is called
# directly here so that only the compilation is timed, not CMake or make.
#
#   bench/compile_time.sh                 # CXX=c++ by default; CXX=clang++ bench/compile_time.sh
#   LIBFLOAT_CT_RUNS=5 bench/compile_time.sh
#   LIBFLOAT_CT_PREFIX=/tmp/lf bench/compile_time.sh   # reuse an install of this tree (lib/ under it)
#
# Timings on a shared machine are noisy: the load average is printed before and after; quote
# medians measured when it is low, never put them in tests.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD

cxx=${CXX:-c++}
runs=${LIBFLOAT_CT_RUNS:-3}
flags=(-std=c++20 -O2)
scratch=$(mktemp -d "${TMPDIR:-/tmp}/libfloat-compile-time.XXXXXX")
trap 'rm -rf "$scratch"' EXIT
prefix=$scratch/prefix

if [[ -n ${LIBFLOAT_CT_PREFIX:-} ]]; then
  prefix=$LIBFLOAT_CT_PREFIX  # an install of this tree made before (CMAKE_INSTALL_LIBDIR=lib)
  echo "== using the libfloat installed in $prefix"
else
  echo "== building and installing libfloat (library and libfloat::runtime) into $prefix"
  cmake -S "$root" -B "$scratch/build" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_COMPILER="$cxx" \
    -DLIBFLOAT_BUILD_TESTS=OFF -DLIBFLOAT_BUILD_TOOLS=OFF -DLIBFLOAT_BUILD_QUIZ=OFF -DLIBFLOAT_BUILD_BENCH=OFF \
    -DLIBFLOAT_BUILD_PYTHON=OFF \
    -DLIBFLOAT_INSTALL=ON -DCMAKE_INSTALL_LIBDIR=lib >"$scratch/configure.log"
  cmake --build "$scratch/build" -j "$(nproc)" >"$scratch/build.log"
  cmake --install "$scratch/build" --prefix "$prefix" >"$scratch/install.log"
fi
runtime_lib=$prefix/lib/liblibfloat_runtime.a
[[ -f $runtime_lib ]] || { echo "compile_time.sh: $runtime_lib was not installed" >&2; exit 1; }

# The README example: the ```cpp block of its "## Library example" section.
awk '/^## Library example/ {s = 1; next} s && /^## / {exit} s && /^```cpp/ {c = 1; next} c && /^```/ {exit} c' \
  README.md >"$scratch/readme_program.cpp"
[[ -s $scratch/readme_program.cpp ]] || { echo "compile_time.sh: no example found in README.md" >&2; exit 1; }

# measure NAME SOURCE [extra arguments]: compiles and links RUNS times; prints the median wall time
# and user+sys time, and checks that the program runs (exit status 0).
declare -A wall
measure() {
  local name=$1 src=$2
  shift 2
  local times=() cpus=() i t
  for ((i = 0; i < runs; i++)); do
    t=$( { /usr/bin/time -f "%e %U %S" "$cxx" "${flags[@]}" -I"$prefix/include" "$src" "$@" \
             -o "$scratch/program" >/dev/null; } 2>&1 | tail -n 1)
    read -r w u s <<<"$t"
    times+=("$w")
    cpus+=("$(awk -v u="$u" -v s="$s" 'BEGIN { printf "%.2f", u + s }')")
  done
  "$scratch/program" >/dev/null || { echo "compile_time.sh: $name: the program failed" >&2; exit 1; }
  local med cpu
  med=$(printf '%s\n' "${times[@]}" | sort -n | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}')
  cpu=$(printf '%s\n' "${cpus[@]}" | sort -n | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}')
  wall[$name]=$med
  printf '%-22s %6.2f s   (user+sys %5.2f s; runs: %s)\n' "$name" "$med" "$cpu" "${times[*]}"
}

echo "== $("$cxx" --version | head -n 1); ${flags[*]}; median of $runs; $(nproc) CPUs;" \
  "$(lscpu 2>/dev/null | sed -n 's/^Model name: *//p' | head -n 1)"
echo "== load before: $(cut -d' ' -f1-3 /proc/loadavg)"
ct=bench/compile_time
measure iostream "$ct/iostream_program.cpp"
measure umbrella "$ct/umbrella_program.cpp"
measure typed "$ct/typed_program.cpp"
measure readme "$scratch/readme_program.cpp"
measure "models header-only" "$ct/models_program.cpp"
measure "models + runtime" "$ct/models_program.cpp" -DLIBFLOAT_SEPARATE_RUNTIME "$runtime_lib"
echo "== load after: $(cut -d' ' -f1-3 /proc/loadavg)"

awk -v io="${wall[iostream]}" -v u="${wall[umbrella]}" -v t="${wall[typed]}" -v r="${wall[readme]}" \
    -v h="${wall[models header-only]}" -v m="${wall[models + runtime]}" 'BEGIN {
  printf "umbrella - iostream    %+6.2f s   (target <= +1.0 s)\n", u - io
  printf "typed - iostream       %+6.2f s   (for information)\n", t - io
  printf "readme                 %6.2f s   (target <= 2.5 s)\n", r
  printf "models + runtime       %6.2f s   (target <= 4 s; header-only %.2f s, %.1fx)\n", m, h, h / m
}'
