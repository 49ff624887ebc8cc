#!/usr/bin/env bash
# Regenerates the checked-in seed corpus of the fuzzers (fuzz/corpus/*/).
# Seeds are kept tiny (a few KB per target); the fixtures built in the build
# tree are added as a second, larger corpus at build time (fuzz/CMakeLists.txt).
# Needs clang-22, clang-offload-bundler, llvm-strip-22, llvm-objcopy-22,
# python3.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
llvm=/usr/lib/llvm-22/bin
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

cat > "$tmp/k.c" <<'SRC'
__attribute__((amdgpu_kernel)) void k(int *p, int n) { if (n > 0) *p = n; }
SRC
in=$here/fuzz_input
md=$here/fuzz_metadata
mkdir -p "$in" "$md"

# Smallest real code objects: one kernel, stripped, no page padding (-N).
for cpu in gfx90a gfx900; do
  clang-22 --target=amdgcn-amd-amdhsa -mcpu=$cpu -nogpulib -O2 -Wl,-N \
    "$tmp/k.c" -o "$tmp/k_$cpu.elf"
  llvm-strip-22 --strip-all -R .comment "$tmp/k_$cpu.elf" \
    -o "$in/kernel_$cpu.elf"
done

# Bundles of the gfx900 object, plain and compressed (zlib and zstd).
targets=host-x86_64-unknown-linux-gnu,hipv4-amdgcn-amd-amdhsa--gfx900
$llvm/clang-offload-bundler -type=o -targets=$targets -input=/dev/null \
  -input="$in/kernel_gfx900.elf" -output="$in/bundle.hipfb"
$llvm/clang-offload-bundler -type=o -targets=$targets -input=/dev/null \
  -input="$in/kernel_gfx900.elf" -output="$in/bundle_zstd.ccob" -compress \
  -compression-level=19
# clang-offload-bundler writes version 3 with zstd; versions 1 and 2 with
# zlib are written by hand (same layout as llvm/Object/OffloadBundle.cpp).
python3 - "$in/bundle.hipfb" "$in" <<'PY'
import hashlib, struct, sys, zlib
raw = open(sys.argv[1], 'rb').read()
digest_low, = struct.unpack('<Q', hashlib.md5(raw).digest()[:8])
data = zlib.compress(raw, 9)
v1 = b'CCOB' + struct.pack('<HHIQ', 1, 0, len(raw), digest_low) + data
v2_size = 4 + 2 + 2 + 4 + 4 + 8 + len(data)
v2 = b'CCOB' + struct.pack('<HHIIQ', 2, 0, v2_size, len(raw), digest_low) + data
open(sys.argv[2] + '/bundle_zlib_v1.ccob', 'wb').write(v1)
open(sys.argv[2] + '/bundle_zlib_v2.ccob', 'wb').write(v2)
PY

# A host object whose .hip_fatbin holds the compressed bundle.
echo 'int main(void) { return 0; }' > "$tmp/host.c"
clang-22 -c -O2 "$tmp/host.c" -o "$tmp/host.o"
llvm-objcopy-22 --add-section .hip_fatbin="$in/bundle_zstd.ccob" \
  --set-section-flags .hip_fatbin=alloc,readonly \
  --strip-all -R .comment -R .note.GNU-stack -R .llvm_addrsig \
  "$tmp/host.o" "$in/host_fatbin.o"

# Metadata seeds: the note of the gfx90a object plus small hand-made maps.
python3 - "$tmp/k_gfx90a.elf" "$md" <<'PY'
import struct, sys
elf, out = sys.argv[1], sys.argv[2]
d = open(elf, 'rb').read()
phoff, = struct.unpack_from('<Q', d, 0x20)
phentsize, phnum = struct.unpack_from('<HH', d, 0x36)
for i in range(phnum):
    p_type, _, p_off, _, _, p_filesz = struct.unpack_from('<IIQQQQ', d, phoff + i * phentsize)
    if p_type != 4:  # PT_NOTE
        continue
    pos, end = p_off, p_off + p_filesz
    while pos + 12 <= end:
        namesz, descsz, ntype = struct.unpack_from('<III', d, pos)
        name = d[pos + 12:pos + 12 + namesz]
        desc_off = pos + 12 + ((namesz + 3) & ~3)
        if name.rstrip(b'\0') == b'AMDGPU' and ntype == 32:  # NT_AMDGPU_METADATA
            open(out + '/kernel_gfx90a.msgpack', 'wb').write(d[desc_off:desc_off + descsz])
        pos = desc_off + ((descsz + 3) & ~3)

def mp(v):
    """Minimal msgpack writer (ints, bools, str, list, dict)."""
    if isinstance(v, bool):
        return b'\xc3' if v else b'\xc2'
    if isinstance(v, int):
        return bytes([v]) if 0 <= v < 128 else b'\xcf' + struct.pack('>Q', v)
    if isinstance(v, str):
        b = v.encode()
        return bytes([0xa0 | len(b)]) + b if len(b) < 32 else b'\xd9' + bytes([len(b)]) + b
    if isinstance(v, list):
        return bytes([0x90 | len(v)]) + b''.join(mp(x) for x in v)
    if isinstance(v, dict):
        return bytes([0x80 | len(v)]) + b''.join(mp(k) + mp(x) for k, x in v.items())
    raise TypeError(v)

seeds = {
    'version_only': {'amdhsa.version': [1, 2]},
    'printf': {'amdhsa.version': [1, 2], 'amdhsa.printf': ['1:1:4:%d\\n']},
    'kernel_full': {
        'amdhsa.version': [1, 2], 'amdhsa.target': 'amdgcn-amd-amdhsa--gfx90a',
        'amdhsa.kernels': [{
            '.name': 'k', '.symbol': 'k.kd', '.language': 'OpenCL C',
            '.language_version': [2, 0], '.kernarg_segment_size': 16,
            '.kernarg_segment_align': 8, '.group_segment_fixed_size': 0,
            '.private_segment_fixed_size': 0, '.wavefront_size': 64,
            '.sgpr_count': 8, '.vgpr_count': 2, '.agpr_count': 0,
            '.max_flat_workgroup_size': 256, '.uniform_work_group_size': 1,
            '.uses_dynamic_stack': False, '.kind': 'normal',
            '.reqd_workgroup_size': [64, 1, 1],
            '.workgroup_size_hint': [64, 1, 1],
            '.args': [
                {'.name': 'p', '.type_name': 'int*', '.offset': 0, '.size': 8,
                 '.value_kind': 'global_buffer', '.address_space': 'global',
                 '.access': 'read_write', '.actual_access': 'write_only',
                 '.pointee_align': 4, '.is_const': False,
                 '.is_restrict': True, '.is_volatile': False,
                 '.is_pipe': False},
                {'.offset': 8, '.size': 8,
                 '.value_kind': 'hidden_global_offset_x'},
            ]}],
    },
}
for name, v in seeds.items():
    open(f'{out}/{name}.msgpack', 'wb').write(mp(v))
PY
chmod 644 "$in"/* "$md"/*
ls -l "$in" "$md"
