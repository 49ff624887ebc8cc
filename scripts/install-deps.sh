#!/usr/bin/env bash
# Installs every Debian 12 package Loom's build, tests and benchmarks need.
# Idempotent: packages already present are left alone.
set -euo pipefail

packages=(
  cmake ninja-build
  llvm-22-dev llvm-22-tools clang-22 clang-tools-22 lld-22 liblld-22-dev libclang-rt-22-dev llvm-22-doc
  libhsa-runtime-dev rocminfo hipcc libamdhip64-dev libamd-comgr-dev
  libhipsparse-dev librocprim-dev
  googletest libgtest-dev libbenchmark-dev
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
echo "install-deps: installing ${missing[*]}" >&2
$sudo apt-get update
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y --no-install-recommends "${missing[@]}"
