#!/bin/sh
# tests/web/run.sh: everything the web test needs, from the source tree's root:
#   builds the page (cmake --preset wasm), installs puppeteer-core (npm ci, tests/web/node_modules), and
#   runs ctest --preset wasm (label web, tests/web/test.mjs), which compares the page's demos with the
#   native terminal quiz's. That quiz is NATIVE_QUIZ when set (CI passes the release build's
#   build/release/quiz/mixed-precision-quiz), else build/release's when it exists, else it is built into
#   build/web-native (the quiz target only). JOBS (default 2) is the builds' parallelism.
# Needs: Debian's emscripten and chromium (apt-get install emscripten chromium), libfmt-dev,
# libcli11-dev, nodejs + npm (the npm registry for puppeteer-core).
set -eu
cd "$(dirname "$0")/../.."
JOBS=${JOBS:-2}
native=${NATIVE_QUIZ:-}
if [ -z "$native" ] && [ -x build/release/quiz/mixed-precision-quiz ]; then
  native=$PWD/build/release/quiz/mixed-precision-quiz
fi
if [ -z "$native" ]; then
  cmake --preset release -B build/web-native -DLIBFLOAT_BUILD_TESTS=OFF -DLIBFLOAT_BUILD_TOOLS=OFF \
        -DLIBFLOAT_BUILD_BENCH=OFF -DLIBFLOAT_BUILD_PYTHON=OFF
  cmake --build build/web-native -j "$JOBS" --target mixed-precision-quiz
  native=$PWD/build/web-native/quiz/mixed-precision-quiz
fi
echo "web: comparing with the terminal quiz $native"
cmake --preset wasm -DLIBFLOAT_WEB_NATIVE_QUIZ="$native"
cmake --build --preset wasm -j "$JOBS"
[ -d tests/web/node_modules/puppeteer-core ] || (cd tests/web && npm ci --no-audit --no-fund)
ctest --preset wasm
