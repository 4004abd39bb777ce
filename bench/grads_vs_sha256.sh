#!/usr/bin/env bash
# floatlab grads against sha256sum on the same float32 .npy, in one run (target: >= 0.5x).
#
#   bench/grads_vs_sha256.sh FLOATLAB [ELEMENTS]      (default 268435456 = 256M, a 1 GiB file)
#
# Writes a gradient-like float32 .npy to /tmp (python3, no numpy: a 4 MiB block of
# log-uniform magnitudes over 2^-40..2^0 with random signs, repeated), reads it once to warm
# the page cache, then times `sha256sum FILE` and `floatlab grads FILE` (default formats
# fp16,bf16,e4m3,e5m2, scale 1) and prints both times and speed(grads) / speed(sha256sum).
# The file is removed at the end.
set -euo pipefail
floatlab=${1:?usage: $0 FLOATLAB [ELEMENTS]}
n=${2:-268435456}
file=$(mktemp /tmp/grads_bench.XXXXXX.npy)
trap 'rm -f "$file"' EXIT

python3 - "$file" "$n" <<'PY'
import random, struct, sys
path, n = sys.argv[1], int(sys.argv[2])
block = 1 << 20  # values per block (4 MiB)
rng = random.Random(20261130)
vals = [rng.choice((-1.0, 1.0)) * 2.0 ** rng.uniform(-40, 0) for _ in range(min(block, n))]
data = struct.pack('<%df' % len(vals), *vals)
hdr = "{'descr': '<f4', 'fortran_order': False, 'shape': (%d,), }" % n
hdr += ' ' * ((64 - (10 + len(hdr) + 1) % 64) % 64) + '\n'
with open(path, 'wb') as f:
    f.write(b'\x93NUMPY\x01\x00' + struct.pack('<H', len(hdr)) + hdr.encode())
    left = n
    while left > 0:
        k = min(left, len(vals))
        f.write(data[:4 * k])
        left -= k
PY

cat "$file" > /dev/null  # page cache
# Both commands timed from python3: wall clock and the child's CPU time (user + system), so the
# ratio can be read on a busy machine too.
python3 - "$file" "$floatlab" <<'PY'
import os, resource, subprocess, sys, time
path, floatlab = sys.argv[1], sys.argv[2]
b = os.path.getsize(path)
def timed(cmd):
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    subprocess.run(cmd, stdout=subprocess.DEVNULL, check=True)
    t1 = time.perf_counter()
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    return t1 - t0, (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)
sha_wall, sha_cpu = timed(["sha256sum", path])
gr_wall, gr_cpu = timed([floatlab, "grads", path])
mib = b / 2**20
print(f"file: {b} bytes ({b / 2**30:.2f} GiB), float32 .npy, {os.cpu_count()} CPUs, load {os.getloadavg()[0]:.1f}")
print(f"sha256sum:      wall {sha_wall:7.3f} s ({mib / sha_wall:7.1f} MiB/s)  cpu {sha_cpu:7.3f} s ({mib / sha_cpu:7.1f} MiB/s)")
print(f"floatlab grads: wall {gr_wall:7.3f} s ({mib / gr_wall:7.1f} MiB/s)  cpu {gr_cpu:7.3f} s ({mib / gr_cpu:7.1f} MiB/s)")
print(f"speed ratio grads/sha256sum: wall {sha_wall / gr_wall:.2f}, cpu {sha_cpu / gr_cpu:.2f} (target >= 0.5)")
PY
