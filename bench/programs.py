#!/usr/bin/env python3
"""The realistic benchmark set (bench/programs/*.hip) under `loom exec`.

Per program: wall time (median of --runs), emulated wave-instructions per
second of its kernel section (wave-instructions from one extra run with
`--counters`, the ground truth; time from the program's own clock around its
kernels), the same per core, the ratio to fma_loop's peak per core
(build/bin/emu_bench, measured in the same run), and the split of the wall
time into HIP start-up (hipInit and the first memset, when ROCclr builds its
blit kernels), emulation (the kernel section) and host (the rest: loom exec,
data set-up, copies, the program's own check, exit).

With --baseline DIR (a copy of an earlier build's bin/ and lib/), the
programs run alternately under both Loom builds, and the table gives both
rates and the geometric means.

usage: bench/programs.py [BUILD_DIR] [--runs N] [--baseline DIR]
                         [--only NAME,...]
"""
import argparse
import json
import math
import os
import statistics
import subprocess
import sys
import tempfile
import time

PROGRAMS = ["Stencil", "Reduce", "Sgemm", "Histogram", "NBody", "Half",
            "Double", "Divergence", "SpMV", "Sort"]


def run(cmd, env=None):
    start = time.perf_counter()
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       text=True, env=env)
    wall = (time.perf_counter() - start) * 1000
    if p.returncode != 0:
        sys.exit(f"failed ({p.returncode}): {' '.join(cmd)}\n{p.stderr}")
    return wall, p.stdout


def phases(out):
    for line in out.splitlines():
        f = line.split()
        if f and f[0] == "loom-bench":
            return {f[i]: float(f[i + 1]) for i in range(1, len(f), 2)}
    sys.exit("no loom-bench line in the program's output")


def wave_instructions(loom, prog):
    """The program's own kernels' wave-instructions (ROCclr's blit kernels
    left out: they run outside the timed kernel section)."""
    with tempfile.NamedTemporaryFile(suffix=".jsonl") as f:
        run([loom, "exec", "--counters", f.name, "--", prog])
        total = 0
        for line in open(f.name):
            d = json.loads(line)
            if not d["kernel"].startswith("__amd_rocclr_"):
                total += d["wave_instructions"]
        return total


def fma_peak(build, threads):
    """fma_loop's rate on `threads` threads (emu_bench), per core."""
    bench = os.path.join(build, "bin", "emu_bench")
    with tempfile.NamedTemporaryFile(suffix=".json") as f:
        run([bench, f"--benchmark_filter=^fma_loop/threads:{threads}/",
             f"--benchmark_out={f.name}", "--benchmark_out_format=json"])
        rate = json.load(open(f.name))["benchmarks"][0]["wave_insts_per_s"]
    return rate / threads


def measure(loom, prog, runs, env):
    walls, ph = [], []
    for _ in range(runs):
        wall, out = run([loom, "exec", "--", prog], env)
        walls.append(wall)
        ph.append(phases(out))
    return {"wall": statistics.median(walls),
            "startup": statistics.median(p["startup_ms"] for p in ph),
            "kernels": statistics.median(p["kernels_ms"] for p in ph)}


def geomean(xs):
    return math.exp(sum(math.log(x) for x in xs) / len(xs))


def main():
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    ap = argparse.ArgumentParser()
    ap.add_argument("build", nargs="?", default=os.path.join(root, "build"))
    ap.add_argument("--runs", type=int, default=1)
    ap.add_argument("--baseline", help="bin/ and lib/ of an earlier build")
    ap.add_argument("--only", help="comma-separated program names")
    args = ap.parse_args()
    threads = int(os.environ.get("LOOM_GPU_THREADS", os.cpu_count()))
    env = dict(os.environ, LOOM_GPU_THREADS=str(threads))
    loom = os.path.join(args.build, "bin", "loom")
    base = os.path.join(args.baseline, "bin", "loom") if args.baseline else None
    progdir = os.path.join(args.build, "bench", "programs")
    names = args.only.split(",") if args.only else PROGRAMS
    names = [n for n in names if os.path.exists(os.path.join(progdir, n))]

    peak = fma_peak(args.build, threads)
    def startup_wall(l):
        return statistics.median(
            run([l, "exec", "--", os.path.join(progdir, "Startup")], env)[0]
            for _ in range(args.runs))
    base_startup = f" (baseline {startup_wall(base):.0f} ms)" if base else ""
    print(f"{threads} emulator threads; fma_loop peak {peak / 1e6:.0f} M "
          f"wave-instructions/s per core (emu_bench); HIP start-up program "
          f"{startup_wall(loom):.0f} ms wall{base_startup}")
    print()
    cols = ["program", "wall (ms)", "wave-insts", "M/s per core",
            "of fma peak", "start-up", "emulation", "host"]
    if base:
        cols[1:1] = ["baseline wall (ms)"]
        cols[4:4] = ["baseline M/s per core", "speed-up"]
    print("| " + " | ".join(cols) + " |")
    print("|" + " --- |" * len(cols))
    rates, base_rates, walls, base_walls = [], [], [], []
    for name in names:
        prog = os.path.join(progdir, name)
        insts = wave_instructions(loom, prog)
        # Alternate the two builds so both see the same machine load.
        b = measure(base, prog, args.runs, env) if base else None
        m = measure(loom, prog, args.runs, env)
        rate = insts / (m["kernels"] / 1e3) / threads
        rates.append(rate)
        walls.append(m["wall"])
        row = [name, f"{m['wall']:.0f}", f"{insts / 1e6:.1f} M",
               f"{rate / 1e6:.1f}", f"{rate / peak:.3f}",
               f"{100 * m['startup'] / m['wall']:.0f} %",
               f"{100 * m['kernels'] / m['wall']:.0f} %",
               f"{100 * (1 - (m['startup'] + m['kernels']) / m['wall']):.0f} %"]
        if b:
            brate = insts / (b["kernels"] / 1e3) / threads
            base_rates.append(brate)
            base_walls.append(b["wall"])
            row[1:1] = [f"{b['wall']:.0f}"]
            row[4:4] = [f"{brate / 1e6:.1f}", f"{rate / brate:.2f}x"]
        print("| " + " | ".join(row) + " |", flush=True)
    print()
    print(f"geometric mean: {geomean(rates) / 1e6:.1f} M wave-instructions/s "
          f"per core ({geomean(rates) / peak:.3f} of fma_loop's peak)")
    if base_rates:
        print(f"baseline geometric mean: {geomean(base_rates) / 1e6:.1f} M/s "
              f"per core; speed-up {geomean(rates) / geomean(base_rates):.2f}x")
        print(f"wall time: geometric mean {geomean(walls):.0f} ms, baseline "
              f"{geomean(base_walls):.0f} ms; "
              f"{geomean(base_walls) / geomean(walls):.2f}x faster")


if __name__ == "__main__":
    main()
