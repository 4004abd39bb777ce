#!/usr/bin/env bash
# Install the Debian packages libfloat builds and tests with; does nothing when they are all present.
set -euo pipefail

packages=(cmake g++ make libboost-dev doctest-dev libcli11-dev libbenchmark-dev libfmt-dev gzip)

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
