#!/usr/bin/env bash
# Installs dependencies, builds Loom and runs every test (unit, CLI, fuzz smoke).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/build.sh"
build=${LOOM_BUILD_DIR:-$root/build}
# Tests listed in tests/known-failures.txt (emulator work in progress) are
# reported but not run; everything else must pass.
known=$(grep -v '^#' "$root/tests/known-failures.txt" | grep -v '^$' | sed 's/[.[\*^$()+?{|]/\\&/g;' | paste -sd'|')
if [ -n "$known" ]; then
  echo "test.sh: skipping $(grep -vc '^#' "$root/tests/known-failures.txt") known failures (tests/known-failures.txt)" >&2
  ctest --test-dir "$build" --output-on-failure -j"$(nproc)" -E "$known" "$@"
else
  ctest --test-dir "$build" --output-on-failure -j"$(nproc)" "$@"
fi
