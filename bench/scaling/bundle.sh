#!/bin/bash
# Packs emu_bench with every library it loads (ldd), the dynamic loader and
# the benchmark kernels into DIR/bundle.tar.xz, for a host without Loom's
# build (docs/performance.md, "16 cores"). usage: bundle.sh BUILD_DIR DIR
# [BASELINE_EMU_BENCH]: the optional second binary travels as
# bin/emu_bench.base (same libraries).
set -euo pipefail
build=$(realpath "$1"); out=$(realpath -m "$2"); base=${3:-}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/bin" "$tmp/lib" "$out"
cp -L $(ldd "$build/bin/emu_bench" | awk '/=>/ {print $3}') "$tmp/lib/"
cp -L /lib64/ld-linux-x86-64.so.2 "$tmp/lib/"
strip -o "$tmp/bin/emu_bench" "$build/bin/emu_bench"
[ -n "$base" ] && strip -o "$tmp/bin/emu_bench.base" "$base"
cp "$build/bench/throughput.elf" "$tmp/bin/"
# emu_bench finds the kernels at the build path compiled into it.
echo "$build/bench" > "$tmp/bin/bench_dir"
tar cf - -C "$tmp" bin lib | xz -9 -T0 > "$out/bundle.tar.xz"
cp "$(dirname "$0")/run.sh" "$out/"
ls -la "$out"
