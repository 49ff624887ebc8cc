#!/usr/bin/env bash
# Installs dependencies, builds Loom and shows its main job on the sample HIP
# program (tests/fixtures/hip/two_kernels.hip, built by Debian's hipcc): the
# unmodified program runs on the virtual GPU through Loom's HSA runtime, and
# its code object is inspected and disassembled; then a kernel written as
# LLVM IR is JIT-compiled in-process and launched by name
# (examples/jit_saxpy.cpp); then a C program's main is built with loom cc
# and run on the GPU with loom run; then the same HIP program runs under an
# instrumentation tool (tools/instr_count: a hook before every
# instruction) and the virtual GPU's own counters, which it must match.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/build.sh"
build=${LOOM_BUILD_DIR:-$root/build}
app="$build/tests/fixtures/hip_two_kernels"
loom="$build/bin/loom"
set -x
"$loom" info
"$loom" exec -- "$app"
"$loom" inspect "$app"
"$loom" disasm "$app" --kernel _Z5saxpyfPKfPfi
"$build/bin/jit_saxpy"
"$loom" cc "$root/tests/run/programs/hello.c" -o "$build/demo_hello"
"$loom" run "$build/demo_hello"
"$loom" instrument --tool instr_count -- "$app"
"$loom" exec --counters "$build/demo_counters.json" -- "$app" > /dev/null
grep -o '"kernel":"[^"]*"\|"wave_instructions":[0-9]*\|"lane_instructions":[0-9]*' \
  "$build/demo_counters.json"
