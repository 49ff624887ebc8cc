#!/bin/bash
# Profiles the realistic set (bench/programs/*) under `loom exec` with perf
# and prints the top symbols and shared objects over the whole set (samples
# summed). usage: bench/programs_profile.sh LOOM_BINARY BUILD_DIR OUT_DIR
set -uo pipefail
loom=$1; build=$2; out=$3; mkdir -p "$out"
progs="Stencil Reduce Sgemm Histogram NBody Half Double Divergence SpMV Sort"
for p in $progs; do
  perf record -F 1000 -o "$out/$p.data" -- "$loom" exec -- \
    "$build/bench/programs/$p" > /dev/null 2>&1
done
for key in dso sym; do
  echo "== by $key"
  for p in $progs; do
    perf report -i "$out/$p.data" --no-children --sort $key -n --stdio \
      2>/dev/null | grep -E "^ +[0-9.]+%"
  done | python3 -c '
import collections, sys
c = collections.Counter()
for line in sys.stdin:
    f = line.split(None, 2)
    if len(f) == 3:
        c[f[2].strip()[:110]] += int(f[1])
total = sum(c.values())
print("samples", total)
for name, n in c.most_common(25):
    print(f"{100 * n / total:5.1f}%  {name}")'
done
