#!/usr/bin/env bash
# Installs dependencies, builds Loom and runs every test (unit, CLI, fuzz smoke).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/build.sh"
build=${LOOM_BUILD_DIR:-$root/build}
ctest --test-dir "$build" --output-on-failure -j"$(nproc)" "$@"
