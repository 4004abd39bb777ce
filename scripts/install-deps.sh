#!/usr/bin/env bash
# Install the Debian packages libfloat builds and tests with; does nothing when they are all present.
set -euo pipefail

# python3 runs the CLI tests' independent checks; tmux runs the quiz in terminals of 40 and 80
# columns; zlib1g-dev lets floatlab read deflated .npz; pybind11-dev, python3-dev, python3-numpy and
# python3-pytest build and test the Python module (tools/python). With --clang: only Clang 16 and its sanitizer and libFuzzer runtimes, for the dev preset (ASan + UBSan) and tests/fuzz. (--fuzz: the same, its older name.)
packages=(cmake g++ make libboost-dev doctest-dev libcli11-dev libbenchmark-dev libfmt-dev gzip python3 tmux zlib1g-dev
          pybind11-dev python3-dev python3-numpy python3-pytest)
if [ "${1:-}" = "--clang" ] || [ "${1:-}" = "--fuzz" ]; then
  packages=(clang-16 libclang-rt-16-dev)
elif [ "${1:-}" = "--web" ]; then
  # The quiz as a web page (cmake --preset wasm, tests/web/run.sh): Emscripten and Chromium, and Node.js
  # with npm where the machine has no npm (tests/web installs puppeteer-core from the npm registry).
  packages=(emscripten chromium)
  command -v npm >/dev/null 2>&1 || packages+=(nodejs npm)
elif [ $# -gt 0 ]; then
  echo "install-deps.sh: unknown option '$1'" >&2
  echo "usage: $0 [--clang|--web]   (no argument: the build and test packages; --clang: Clang 16 with its sanitizer and libFuzzer runtimes; --web: Emscripten, Chromium, Node.js for the web page)" >&2
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
