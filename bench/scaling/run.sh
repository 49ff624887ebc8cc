#!/bin/bash
# On the many-core host, from the folder holding bundle.tar.xz: emu_bench on
# 1..N threads, and the machine's own all-core capacity (N one-thread
# emu_bench processes at once), two rounds. Results: $OUT (or ./out).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd); out=${OUT:-$here/out}; mkdir -p "$out"
b=/tmp/loom-bundle; mkdir -p $b && tar xJf "$here/bundle.tar.xz" -C $b || exit 1
for d in $(cat $b/bin/bench_dir); do
  mkdir -p "$d" && cp $b/bin/throughput.elf "$d/"
done
cd $b
n=$(nproc)
F='^(fma_loop|stream|lds_barrier|lds_barrier_wide|branchy|mfma_loop)/threads'
L="lib/ld-linux-x86-64.so.2 --library-path lib"
for round in 1 2; do
  for i in $(seq 1 $n); do
    LOOM_BENCH_THREADS=1 $L bin/emu_bench --benchmark_filter="$F" \
      --benchmark_out=/tmp/one.$round.$i.json --benchmark_out_format=json \
      > /dev/null 2>&1 &
  done
  wait
  cat /tmp/one.$round.*.json > "$out/capacity.$round.json"
  LOOM_BENCH_THREADS=1,2,4,8,$n $L bin/emu_bench --benchmark_filter="$F" \
    --benchmark_repetitions=2 --benchmark_out="$out/threads.$round.json" \
    --benchmark_out_format=json > "$out/threads.$round.txt" 2>&1
  [ -x bin/emu_bench.base ] && $L bin/emu_bench.base \
    --benchmark_filter="${F}:$n/" --benchmark_repetitions=2 \
    --benchmark_out="$out/base.$round.json" --benchmark_out_format=json \
    > /dev/null 2>&1
done
grep -A8 '^scaling' "$out/threads.2.txt"
