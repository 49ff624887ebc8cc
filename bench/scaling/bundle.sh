#!/bin/bash
# Packs emu_bench with every library it loads (ldd), the dynamic loader and
# the benchmark kernels into DIR/bundle.tar.xz, for a host without Loom's
# build (docs/performance.md, "16 cores"). usage: bundle.sh BUILD_DIR DIR
# [BASELINE_EMU_BENCH [MORE...]]: the optional second binary travels as
# bin/emu_bench.base, any further ones under their own names (same
# libraries; for ab.sh).
set -euo pipefail
build=$(realpath "$1"); out=$(realpath -m "$2"); base=${3:-}
more=("${@:4}")
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/bin" "$tmp/lib" "$out"
cp -L $(ldd "$build/bin/emu_bench" | awk '/=>/ {print $3}') "$tmp/lib/"
cp -L /lib64/ld-linux-x86-64.so.2 "$tmp/lib/"
strip -o "$tmp/bin/emu_bench" "$build/bin/emu_bench"
[ -n "$base" ] && strip -o "$tmp/bin/emu_bench.base" "$base"
for m in "${more[@]}"; do strip -o "$tmp/bin/$(basename "$m")" "$m"; done
cp "$build/bench/throughput.elf" "$tmp/bin/"
# emu_bench finds the kernels at the build path compiled into it (the
# baseline at its own build's, where it comes from another tree).
echo "$build/bench" > "$tmp/bin/bench_dir"
[ -n "$base" ] && echo "$(dirname "$(dirname "$(realpath "$base")")")/bench" \
  >> "$tmp/bin/bench_dir"
tar cf - -C "$tmp" bin lib | xz -9 -T0 > "$out/bundle.tar.xz"
cp "$(dirname "$0")"/{run.sh,ab.sh,summary.py} "$out/"
ls -la "$out"
