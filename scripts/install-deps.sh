#!/usr/bin/env bash
# Install the Debian packages libfloat builds and tests with; does nothing when they are all present.
set -euo pipefail

# python3 runs the CLI tests' independent checks. With --fuzz: only clang and its libFuzzer runtime (tests/fuzz).
packages=(cmake g++ make libboost-dev doctest-dev libcli11-dev libbenchmark-dev libfmt-dev gzip python3)
if [ "${1:-}" = "--fuzz" ]; then
  packages=(clang libclang-rt-14-dev)
elif [ $# -gt 0 ]; then
  echo "usage: $0 [--fuzz]   (no argument: the build and test packages; --fuzz: clang and libFuzzer)" >&2
  exit 2
fi

missing=()
for p in "${packages[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi

sudo=()
if [ "$(id -u)" -ne 0 ]; then
  sudo=(sudo)
fi
echo "install-deps: installing ${missing[*]}"
"${sudo[@]}" apt-get update
DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y --no-install-recommends "${missing[@]}"
