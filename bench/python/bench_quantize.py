#!/usr/bin/env python3
"""libfloat.quantize on 16M float32 against NumPy's x.astype(np.float16), in the same process.

Issue 18's target: quantize(x, "bf16") at >= 0.5x the speed of x.astype(np.float16). Prints the
median of --repeat runs of each (seconds, Mvalues/s) and the ratio of the medians; a benchmark, never
a test. Run from the build tree:
    PYTHONPATH=build/release/tools/python /usr/bin/python3 bench/python/bench_quantize.py
"""
import argparse
import statistics
import time

import numpy as np

import libfloat as lf


def median_seconds(fn, repeat):
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=16 * 1024 * 1024, help="values (default 16M)")
    ap.add_argument("--repeat", type=int, default=5, help="runs of each; the median is reported (default 5)")
    args = ap.parse_args()
    rng = np.random.default_rng(1)
    x = rng.standard_normal(args.n).astype(np.float32)
    out16 = np.empty_like(x, dtype=np.float16)
    cases = [
        ("numpy x.astype(np.float16)", lambda: x.astype(np.float16)),
        ("numpy np.copyto(float16 out, x)", lambda: np.copyto(out16, x, casting="unsafe")),
        ('libfloat.quantize(x, "bf16")', lambda: lf.quantize(x, "bf16")),
        ('libfloat.quantize(x, "fp16")', lambda: lf.quantize(x, "fp16")),
        ('libfloat.quantize(x, "bf16", "stochastic", seed=1)', lambda: lf.quantize(x, "bf16", "stochastic", seed=1)),
        ('libfloat.quantize(x, "e4m3")', lambda: lf.quantize(x, "e4m3")),
        ('libfloat.encode(x, "bf16")', lambda: lf.encode(x, "bf16")),
    ]
    base = None
    print(f"{args.n} float32 values, median of {args.repeat} runs")
    for name, fn in cases:
        fn()  # warm up (page faults of the outputs)
        s = median_seconds(fn, args.repeat)
        base = base or s
        print(f"  {name:55s} {s * 1e3:9.2f} ms  {args.n / s / 1e6:8.1f} Mvalues/s  {base / s:6.2f}x numpy astype")


if __name__ == "__main__":
    main()
