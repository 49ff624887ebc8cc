#!/usr/bin/env python3
"""Wall time of each HIP test program (tests/hip) under `loom exec`, and the
split between start-up and the program's own work.

Each program runs --runs times without logging (median wall time), then once
with HIP's log (AMD_LOG_LEVEL=3), whose timestamps give its start-up phases:
HIP initialisation ("Initializing HSA stack" to "Direct Dispatch": HSA init,
agents, comgr loaded) and the blit kernels' compilation (from the first
the silent gap before the "Using Code Object" line followed by ROCclr's own
kernels: ROCclr compiles its blit kernels from OpenCL C with comgr). The rest of the wall time, less the cost of
`loom exec` itself, is the program's own work: its kernels on the virtual GPU,
copies, loading its code object, exit. bench/hip/Startup.hip (built here with
hipcc) also times the first and a warm kernel dispatch.

usage: bench/hip_bench.py [BUILD_DIR] [--runs N]
"""
import argparse
import os
import re
import statistics
import subprocess
import sys
import time

PROGRAMS = [
    "device_props", "memory", "streams_events", "launch", "symbols",
    "shared_atomics", "wave_intrinsics", "cooperative_groups",
    "device_printf", "device_malloc", "module", "fault", "clang22_launch",
    "clang22_symbols", "clang22_wave",
]


def run(cmd):
    start = time.perf_counter()
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                       text=True)
    wall = (time.perf_counter() - start) * 1000
    if p.returncode != 0:
        sys.exit(f"failed ({p.returncode}): {' '.join(cmd)}")
    return wall, p.stdout


LOG = re.compile(r"^:\d:\S+\s*:\s*\d+\s*:\s*(\d+) us: .*?\] (.*)$")


def phases_from_log(cmd):
    env = dict(os.environ, AMD_LOG_LEVEL="3")
    p = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                       text=True, env=env)
    lines = []
    for line in p.stderr.splitlines():
        m = LOG.match(line)
        if m:
            lines.append((int(m.group(1)), m.group(2)))
    marks = {}
    blit = 0.0
    for i, (ts, msg) in enumerate(lines):
        for key, text in (("init0", "Initializing HSA stack"),
                          ("init1", "Direct Dispatch")):
            if msg.startswith(text) and key not in marks:
                marks[key] = ts
        # The blit program is built in the silent gap before the "Using Code
        # Object" line that is followed by ROCclr's own kernels.
        if (msg.startswith("Using Code Object") and i > 0 and
                i + 1 < len(lines) and
                "Kernel Name: __amd_rocclr_" in lines[i + 1][1]):
            blit = (ts - lines[i - 1][0]) / 1000
    init = (marks["init1"] - marks["init0"]) / 1000 \
        if "init1" in marks and "init0" in marks else 0.0
    return init, blit


def main():
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    ap = argparse.ArgumentParser()
    ap.add_argument("build", nargs="?", default=os.path.join(root, "build"))
    ap.add_argument("--runs", type=int, default=3)
    args = ap.parse_args()
    loom = os.path.join(args.build, "bin", "loom")
    tests = os.path.join(args.build, "tests", "hip")
    startup = os.path.join(args.build, "bench", "hip_startup")
    if not os.path.exists(startup):
        os.makedirs(os.path.dirname(startup), exist_ok=True)
        subprocess.run(["hipcc", "--offload-arch=gfx90a", "-O2",
                        os.path.join(root, "bench", "hip", "Startup.hip"),
                        "-o", startup], check=True)
    exec_ = [loom, "exec", "--"]

    overhead = statistics.median(
        run(exec_ + ["/bin/true"])[0] for _ in range(args.runs))
    phases, walls = [], []
    for _ in range(args.runs):
        wall, out = run(exec_ + [startup])
        f = out.split()
        phases.append({f[i]: float(f[i + 1]) for i in range(0, len(f), 2)})
        walls.append(wall)
    base = statistics.median(walls)
    med = {k: statistics.median(p[k] for p in phases) for k in phases[0]}
    print(f"loom exec of /bin/true: {overhead:.0f} ms")
    print(f"start-up program: {base:.0f} ms wall; in main: HIP init "
          f"{med['init']:.0f} ms, first memset (blit kernels compiled and "
          f"run) {med['blit']:.0f} ms, first kernel {med['first_kernel']:.1f}"
          f" ms, warm kernel {med['warm_kernel']:.1f} ms")
    print()
    print("| program | wall (ms) | HIP init (ms) | blit compile (ms) |"
          " own work (ms) |")
    print("| --- | ---: | ---: | ---: | ---: |")
    for name in PROGRAMS:
        prog = os.path.join(tests, "hip_" + name)
        extra = []
        if name == "module":
            extra = [os.path.join(tests, "hip_module_v4.co"),
                     "unsupported:" + os.path.join(tests, "hip_module_v5.co"),
                     "unsupported:" + os.path.join(tests, "hip_module_v6.co")]
        cmd = exec_ + [prog] + extra
        wall = statistics.median(run(cmd)[0] for _ in range(args.runs))
        init, blit = phases_from_log(cmd)
        own = max(wall - overhead - init - blit, 0)
        print(f"| {name} | {wall:.0f} | {init:.0f} | {blit:.0f} | {own:.0f} |")

if __name__ == "__main__":
    main()
