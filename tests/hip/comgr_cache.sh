#!/bin/bash
# A HIP program run twice under `loom exec` with an empty comgr cache
# (hsa/ComgrCache.cpp): the first run compiles ROCclr's blit kernels and
# records every step, the second is served from the cache; both pass.
# usage: comgr_cache.sh LOOM PROGRAM [ARGS...]
set -euo pipefail
loom=$1; shift
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
export LOOM_COMGR_CACHE=$dir LOOM_COMGR_CACHE_LOG=1
first=$("$loom" exec -- "$@" 2>&1 >/dev/null)
second=$("$loom" exec -- "$@" 2>&1 >/dev/null)
printf 'first run:\n%s\nsecond run:\n%s\n' "$first" "$second"
grep -q 'loom comgr cache: miss' <<<"$first"
! grep -q 'loom comgr cache: \(hit\|.*not cached\)' <<<"$first"
grep -q 'loom comgr cache: hit' <<<"$second"
! grep -q 'loom comgr cache: \(miss\|.*not cached\)' <<<"$second"
[ "$(grep -c 'loom comgr cache:' <<<"$first")" = \
  "$(grep -c 'loom comgr cache: hit' <<<"$second")" ]
