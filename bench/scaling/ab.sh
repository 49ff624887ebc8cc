#!/bin/bash
# On the many-core host, from the folder holding bundle.tar.xz: emu_bench
# binaries of the bundle on N threads (all cores), alternated, so that the
# host's drift hits each alike; and the all-core capacity (N one-thread
# processes of bin/emu_bench at once) before and after.
# usage: ab.sh ROUNDS FILTER VARIANT...; a VARIANT is a binary of the
# bundle's bin/ with environment settings, "emu_bench.base" or
# "emu_bench,LOOM_DISPATCH_PROFILE=1,LOOM_POOL_SPIN_US=500". Results in
# $OUT (or ./out): ab.ROUND.VARIANT-INDEX.json, the profiles in .err;
# bench/scaling/summary.py OUT prints them. EACH=1: the capacity also
# between every two variant runs, so that each run's share is against the
# capacity right before and after it (ab.ROUND.VARIANT.caps names them).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd); out=${OUT:-$here/out}; mkdir -p "$out"
rounds=$1 filter=$2; shift 2
b=/tmp/loom-bundle; mkdir -p $b && tar xJf "$here/bundle.tar.xz" -C $b || exit 1
for d in $(cat $b/bin/bench_dir); do
  mkdir -p "$d" && cp $b/bin/throughput.elf "$d/"
done
cd $b
n=$(nproc)
L="lib/ld-linux-x86-64.so.2 --library-path lib"
capacity() {
  for i in $(seq 1 $n); do
    LOOM_BENCH_THREADS=1 $L bin/emu_bench --benchmark_filter="$filter" \
      --benchmark_out=/tmp/one.$1.$i.json --benchmark_out_format=json \
      > /dev/null 2>&1 &
  done
  wait
  cat /tmp/one.$1.*.json > "$out/capacity.$1.json"
}
cap=1 runs=0
capacity $cap
for round in $(seq 1 $rounds); do
  v=0
  for variant in "$@"; do
    v=$((v + 1))
    runs=$((runs + 1))
    if [ "${EACH:-0}" = 1 ] && [ $runs -gt 1 ]; then
      cap=$((cap + 1)); capacity $cap
    fi
    IFS=, read -r bin settings <<< "$variant"
    env ${settings//,/ } LOOM_BENCH_THREADS=$n $L bin/$bin \
      --benchmark_filter="$filter" --benchmark_repetitions=2 \
      --benchmark_out="$out/ab.$round.$v.json" --benchmark_out_format=json \
      > /dev/null 2> "$out/ab.$round.$v.err"
    echo "$variant" > "$out/ab.variant.$v"
    [ "${EACH:-0}" = 1 ] && echo "$cap $((cap + 1))" > "$out/ab.$round.$v.caps"
  done
done
capacity $((cap + 1))
