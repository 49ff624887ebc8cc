#!/usr/bin/env python3
"""Summarises bench/scaling/run.sh's results: per kernel and round, the
machine's all-core capacity (the sum of N one-thread emu_bench processes run
at once), emu_bench on 1 and N threads (each repetition), and N threads as a
share of that capacity and of N times the one-thread rate.

With ab.sh's results, the variants instead: per kernel, each variant's
rates on N threads over the rounds (best first), the best as a share of
the capacity measured before and after, and each variant's dispatch
profile of its last round where it printed one; with ab.sh's EACH=1, also
each repetition against the capacity right around its run.

usage: bench/scaling/summary.py OUT_DIR
"""
import collections
import glob
import json
import os
import sys

KERNELS = ["fma_loop", "stream", "lds_barrier", "lds_barrier_wide", "branchy",
           "mfma_loop"]


# Work-groups per dispatch of emu_bench's shapes, for results of binaries
# that do not report them (the "groups" counter).
GROUPS = {"fma_loop": 64, "stream": 1024, "lds_barrier": 32,
          "lds_barrier_wide": 256, "branchy": 64, "mfma_loop": 16}


def docs(path):
    """The JSON documents of a file (several are concatenated)."""
    text, dec, i, out = open(path).read(), json.JSONDecoder(), 0, []
    while True:
        while i < len(text) and text[i].isspace():
            i += 1
        if i >= len(text):
            return out
        doc, i = dec.raw_decode(text, i)
        out.append(doc)


def rates(path):
    """{(kernel, threads): [M wave-instructions/s, ...]}"""
    r = collections.defaultdict(list)
    for d in docs(path):
        for b in d["benchmarks"]:
            if b.get("run_type") != "iteration" or "/interpreter/" in b["name"]:
                continue
            kernel, rest = b["name"].split("/threads:")
            r[kernel, int(rest.split("/")[0])].append(
                b["wave_insts_per_s"] / 1e6)
    return r


def groups(path):
    """{kernel: work-groups per dispatch} of a results file."""
    g = dict(GROUPS)
    for d in docs(path):
        for b in d["benchmarks"]:
            if "groups" in b:
                g[b["name"].split("/")[0]] = int(b["groups"])
    return g


def best_schedule(speeds, n):
    """The best share of the capacity sum(speeds) that n equal, indivisible
    work-groups can reach on cores of those speeds: the shortest time T in
    which the cores finish n groups between them (core i runs
    floor(T * speed_i) groups of work 1), against the time n / sum(speeds)
    of work that divides freely."""
    best = min(k / r for r in speeds for k in range(1, n + 1)
               if sum(int(k / r * q + 1e-9) for q in speeds) >= n)
    return n / sum(speeds) / best


def bracketed(out, variants):
    """ab.sh with EACH=1: every repetition's rate as a share of the mean of
    the capacities measured right before and after its run; per kernel and
    variant the median, the worst and the best share, and how many reach
    0.8."""
    caps = {int(f.split(".")[-2]): rates(f)
            for f in glob.glob(os.path.join(out, "capacity.*.json"))}
    shares = collections.defaultdict(lambda: collections.defaultdict(list))
    for f in glob.glob(os.path.join(out, "ab.*.*.caps")):
        v = int(f.split(".")[-2])
        around = [int(i) for i in open(f).read().split()]
        if not all(i in caps for i in around):  # cut short
            continue
        before, after = (caps[i] for i in around)
        for (k, t), xs in rates(f[:-len("caps")] + "json").items():
            cap = (sum(before[k, 1]) + sum(after[k, 1])) / 2
            if cap:
                shares[k][v] += [x / cap for x in xs]
    print("\nEach repetition against the mean of the capacities right before "
          "and after its run: median share (worst, best; repetitions at or "
          "above 0.8)")
    print("| kernel | capacity (min-max) | " +
          " | ".join(f"{v}: {variants[v]}" for v in sorted(variants)) + " |")
    print("| --- | ---: |" + " ---: |" * len(variants))
    for k in KERNELS:
        if k not in shares:
            continue
        cs = [sum(c[k, 1]) for c in caps.values() if (k, 1) in c]
        row = f"| {k} | {min(cs):.0f}-{max(cs):.0f} |"
        for v in sorted(variants):
            xs = sorted(shares[k][v])
            if not xs:
                row += " |"
                continue
            med = xs[len(xs) // 2] if len(xs) % 2 else (
                xs[len(xs) // 2 - 1] + xs[len(xs) // 2]) / 2
            ok = sum(x >= 0.8 for x in xs)
            row += f" {med:.2f} ({xs[0]:.2f}, {xs[-1]:.2f}; {ok}/{len(xs)}) |"
        print(row)


def ab(out):
    """The variants of ab.sh."""
    variants = {}
    for f in sorted(glob.glob(os.path.join(out, "ab.variant.*"))):
        variants[int(f.split(".")[-1])] = open(f).read().strip()
    capfiles = sorted(glob.glob(os.path.join(out, "capacity.*.json")),
                      key=lambda f: int(f.split(".")[-2]))
    if glob.glob(os.path.join(out, "ab.*.*.caps")):
        # The first and the last capacity for the table below.
        capfiles = [capfiles[0], capfiles[-1]]
    caps = [rates(c) for c in capfiles]
    g = groups(capfiles[0])
    runs = collections.defaultdict(lambda: collections.defaultdict(list))
    n = 0
    for f in glob.glob(os.path.join(out, "ab.*.*.json")):
        v = int(f.split(".")[-2])
        for (k, t), xs in rates(f).items():
            runs[v][k] += xs
            n = max(n, t)
    kernels = [k for k in KERNELS if any(k in runs[v] for v in runs)]
    print(f"{n} threads; capacity = the sum of {n} one-thread processes, "
          "before / after (M wave-instructions/s); best schedule = the "
          "share of it the kernel's work-groups can reach on cores of those "
          "processes' speeds; per variant: the best rate (its share of each "
          "capacity; the other repetitions)")
    print("| kernel | capacity | best schedule | " + " | ".join(
        f"{v}: {variants[v]}" for v in sorted(variants)) + " |")
    print("| --- | ---: | ---: |" + " ---: |" * len(variants))
    for k in kernels:
        cap = [sum(c[k, 1]) for c in caps if (k, 1) in c]
        bound = [best_schedule(c[k, 1], g[k]) for c in caps if (k, 1) in c]
        row = (f"| {k} | {' / '.join(f'{c:.0f}' for c in cap)} | "
               f"{' / '.join(f'{b:.2f}' for b in bound)} |")
        for v in sorted(variants):
            xs = sorted(runs[v][k], reverse=True)
            if not xs or not all(cap):  # a binary without the kernel
                row += " |"
                continue
            share = " / ".join(f"{xs[0] / c:.2f}" for c in cap)
            row += f" {xs[0]:.0f} ({share}; {' '.join(f'{x:.0f}' for x in xs[1:])}) |"
        print(row)
    last = max(int(f.split(".")[-3]) for f in glob.glob(os.path.join(out, "ab.*.*.err")))
    for v in sorted(variants):
        text = open(os.path.join(out, f"ab.{last}.{v}.err")).read()
        rows = [l for l in text.splitlines()
                if l.startswith(("kernel/workers",) + tuple(kernels))]
        if rows:
            print(f"\nprofile of {v} ({variants[v]}), round {last}:")
            print("\n".join(rows))
    if glob.glob(os.path.join(out, "ab.*.*.caps")):
        bracketed(out, variants)


def main():
    out = sys.argv[1]
    if glob.glob(os.path.join(out, "ab.variant.*")):
        return ab(out)
    for cap in sorted(glob.glob(os.path.join(out, "capacity.*.json"))):
        rnd = cap.split(".")[-2]
        c = rates(cap)
        t = rates(os.path.join(out, f"threads.{rnd}.json"))
        b = os.path.join(out, f"base.{rnd}.json")
        base = rates(b) if os.path.exists(b) else {}
        n = max(k[1] for k in t)
        print(f"round {rnd} ({n} threads)")
        print("| kernel | capacity (M/s) | 1 thread | "
              f"{n} threads | of capacity | of {n} x 1 thread |"
              + (f" main, {n} threads | of capacity |" if base else ""))
        print("| --- | ---: | ---: | ---: | ---: | ---: |"
              + (" ---: | ---: |" if base else ""))
        for k in KERNELS:
            capacity = sum(c[k, 1])
            one, many = t[k, 1], t[k, n]
            if not capacity or not one or not many:
                continue
            row = (f"| {k} | {capacity:.0f} | "
                   f"{' / '.join(f'{x:.0f}' for x in one)} | "
                   f"{' / '.join(f'{x:.0f}' for x in many)} | "
                   f"{max(many) / capacity:.2f} | "
                   f"{max(many) / (n * max(one)):.2f} |")
            if base and base[k, n]:
                bm = base[k, n]
                row += (f" {' / '.join(f'{x:.0f}' for x in bm)} | "
                        f"{max(bm) / capacity:.2f} |")
            print(row)
        print()


if __name__ == "__main__":
    main()
