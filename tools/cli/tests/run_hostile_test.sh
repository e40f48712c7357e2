#!/usr/bin/env bash
# Hostile inputs through the `tilesim` command line (issue 6, part 6). Each check writes one input an attacker
# would try into a scratch directory and asserts what a user sees: the exit code (0/1/2, never 3 or a signal),
# a message naming the culprit, no hang (every command runs under `timeout`), and no file outside --out changed.
# Needs only bash, coreutils and python3 (to write .npy bytes). Usage: run_hostile_test.sh path/to/tilesim
set -u
tilesim=$(realpath "${1:?usage: run_hostile_test.sh path/to/tilesim}")
source "$(dirname "$(realpath "$0")")/hostile_lib.sh"
expect_same() {  # expect_same NAME FILE CONTENT
  count=$((count + 1))
  if [ "$(cat "$2")" != "$3" ]; then echo "FAIL $1: $2 was changed"; failures=$((failures + 1)); fi
}

# npy FILE DESCR SHAPE_TUPLE [PAYLOAD_INT32...]: a .npy file (version 2 header when the dict is long).
npy() {
  python3 - "$@" <<'EOF'
import struct, sys
path, descr, shape, *values = sys.argv[1:]
if shape == 'DEEP': shape = '(' + '1, ' * 100000 + ')'
header = "{'descr': '%s', 'fortran_order': False, 'shape': %s, }" % (descr, shape)
v2 = len(header) + 12 > 65535
prefix = 12 if v2 else 10
header += ' ' * ((64 - (prefix + len(header) + 1) % 64) % 64) + '\n'
length = struct.pack('<I' if v2 else '<H', len(header))
with open(path, 'wb') as f:
    f.write(b'\x93NUMPY' + bytes([2 if v2 else 1, 0]) + length + header.encode() + b''.join(struct.pack('<i', int(v)) for v in values))
EOF
}

cat > store.ttir <<'EOF'
module {
  tt.func public @store(%x_ptr: !tt.ptr<i32>) attributes {noinline = false} {
    %c1_i32 = arith.constant 1 : i32
    %pid = tt.get_program_id x : i32
    tt.store %x_ptr, %c1_i32 : !tt.ptr<i32>
    tt.return
  }
}
EOF
cat > atomic.ttir <<'EOF'
module {
  tt.func public @bump(%x_ptr: !tt.ptr<i32>) attributes {noinline = false} {
    %c1_i32 = arith.constant 1 : i32
    %old = tt.atomic_rmw add, acq_rel, gpu, %x_ptr, %c1_i32 : (!tt.ptr<i32>, i32) -> i32
    tt.return
  }
}
EOF
cat > spin.ttir <<'EOF'
module {
  tt.func public @spin(%x_ptr: !tt.ptr<i32>) attributes {noinline = false} {
    %true = arith.constant true
    %c1_i32 = arith.constant 1 : i32
    %c0_i32 = arith.constant 0 : i32
    %r = scf.while (%a = %c0_i32) : (i32) -> (i32) {
      scf.condition(%true) %a : i32
    } do {
    ^bb0(%a: i32):
      %b = arith.addi %a, %c1_i32 : i32
      scf.yield %b : i32
    }
    tt.store %x_ptr, %r : !tt.ptr<i32>
    tt.return
  }
}
EOF
npy x.npy '<i4' '(1,)' 0

# Sizes and counts.
check grid_product_overflow 2 "more than 2^30 programs" -- \
  "$tilesim" run store.ttir --grid 2147483647,2147483647,2147483647 --arg x_ptr=x.npy
check grid_number_overflow 2 "--grid" -- "$tilesim" run store.ttir --grid 99999999999999999999 --arg x_ptr=x.npy
npy wrapped.npy '<i4' '(1125899906842624, 16384)'
check npy_shape_product_wraps 2 "more elements than any file can hold" -- "$tilesim" run store.ttir --grid 1 --arg x_ptr=wrapped.npy
npy wrapped1.npy '<i4' '(4294967297, 4294967295, 3)' 0   # (2^32+1)(2^32-1)*3 wraps to... a huge product
check npy_shape_product_overflows 2 "more elements than any file can hold" -- "$tilesim" run store.ttir --grid 1 --arg x_ptr=wrapped1.npy
npy deep.npy '<i4' DEEP 0  # shape (1, 1, ..., 1) with 100,000 dimensions
check npy_100000_dimensions 2 "at most 32" -- "$tilesim" run store.ttir --grid 1 --arg x_ptr=deep.npy
check threads_huge 2 "--threads" -- "$tilesim" run store.ttir --grid 1 --arg x_ptr=x.npy --threads 100000

# Inputs that are not files.
check arg_dev_zero 2 "--arg x_ptr: /dev/zero: not a regular file" -- "$tilesim" run store.ttir --grid 1 --arg x_ptr=/dev/zero
mkdir adir
check arg_directory 2 "--arg x_ptr: adir/: is a directory" -- "$tilesim" run store.ttir --grid 1 --arg x_ptr=adir/

# Runaway loops end with a report naming the loop, on run, trace and conformance.
check while_runaway_run 1 "spin.ttir:6:5: runaway" -- "$tilesim" run spin.ttir --grid 2 --arg x_ptr=x.npy --max-steps 100000
check while_runaway_trace 1 "runaway" -- "$tilesim" trace spin.ttir --grid 1 --arg x_ptr=x.npy --max-steps 1000 --at 1
mkdir -p cases/spin
cp spin.ttir cases/spin/kernel.ttir
cp x.npy cases/spin/x.npy
cat > cases/spin/case.json <<'EOF'
{"name": "spin", "entry": "spin", "grid": [1], "args": [{"name": "x_ptr", "kind": "tensor", "dtype": "int32", "shape": [1], "input": "x.npy"}]}
EOF
check while_runaway_conformance 1 "runaway" -- "$tilesim" conformance cases --max-steps 100000

# Shapes the verifier trusts: gather with an index larger than the source on a non-gather axis.
mkdir -p cases2/gather
cat > cases2/gather/kernel.ttir <<'EOF'
module {
  tt.func public @g(%x_ptr: !tt.ptr<f32>) attributes {noinline = false} {
    %src = arith.constant dense<1.000000e+00> : tensor<4x4xf32>
    %idx = arith.constant dense<0> : tensor<8x4xi32>
    %0 = tt.gather %src[%idx] {axis = 1 : i32} : (tensor<4x4xf32>, tensor<8x4xi32>) -> tensor<8x4xf32>
    tt.return
  }
}
EOF
cp x.npy cases2/gather/x.npy
sed 's/"spin"/"g"/g; s/int32/float32/' cases/spin/case.json > cases2/gather/case.json
npy cases2/gather/x.npy '<f4' '(1,)' 0
check gather_check 1 "must match the source dimension" -- "$tilesim" check cases2/gather/kernel.ttir
check gather_conformance 1 "must match the source dimension" -- "$tilesim" conformance cases2

# Writing outside what the user named.
mkdir -p evil outdir
echo precious > precious.npy
cp x.npy evil/x.npy
cp store.ttir evil/kernel.ttir
cat > evil/case.json <<'EOF'
{"name": "evil", "entry": "store", "grid": [1], "args": [{"name": "x_ptr", "kind": "tensor", "dtype": "int32", "shape": [1], "input": "x.npy"}, {"name": "../precious", "kind": "tensor", "dtype": "int32", "shape": [1], "input": "x.npy"}]}
EOF
check out_name_escapes 2 "is not a plain identifier" -- "$tilesim" run evil --out outdir
expect_same out_name_escapes precious.npy precious
ln x.npy outdir/x_ptr.npy
check out_hard_link_to_input 2 "the same file" -- "$tilesim" run store.ttir --grid 1 --arg x_ptr=x.npy --out outdir
rm outdir/x_ptr.npy
ln -s ../precious.npy outdir/x_ptr.npy
check out_symlink 2 "symbolic link" -- "$tilesim" run store.ttir --grid 1 --arg x_ptr=x.npy --out outdir
expect_same out_symlink precious.npy precious
rm outdir/x_ptr.npy
check out_plain 0 "wrote outdir/x_ptr.npy" -- "$tilesim" run store.ttir --grid 1 --arg x_ptr=x.npy --out outdir
count=$((count + 1))
if [ -n "$(find outdir -name '*.tilesim-*')" ]; then echo "FAIL out_plain: a temporary file was left"; failures=$((failures + 1)); fi

# TTIR: a 2 MB attribute dictionary is checked quickly (the duplicate-key test is n log n).
python3 -c "
attrs = ', '.join('a%d = %d : i32' % (i, i) for i in range(100000))
print('module {\n  tt.func public @f(%x_ptr: !tt.ptr<i32>) attributes {noinline = false, ' + attrs + '} {\n    tt.return\n  }\n}')" > bigdict.ttir
count=$((count + 1))
start=$(date +%s)
"$tilesim" check bigdict.ttir > /dev/null 2>&1 || { echo "FAIL big_attribute_dict: not accepted"; failures=$((failures + 1)); }
if [ $(( $(date +%s) - start )) -gt 10 ]; then echo "FAIL big_attribute_dict: took over 10 s"; failures=$((failures + 1)); fi

# Out of memory for the race shadow (an address-space limit below what the checks need) is a clean error. A
# kernel with atomics keeps the per-element shadow (a plain store kernel logs ranges instead and needs no shadow).
# Skipped under AddressSanitizer, which cannot run inside such a limit.
python3 -c "
import struct
n = 64 << 20
h = \"{'descr': '<i4', 'fortran_order': False, 'shape': (%d,), }\" % n
h += ' ' * ((64 - (10 + len(h) + 1) % 64) % 64) + '\n'
with open('big.npy', 'wb') as f:
    f.write(b'\x93NUMPY\x01\x00' + struct.pack('<H', len(h)) + h.encode()); f.truncate(f.tell() + 4 * n)"
if { (ulimit -v 1000000; exec "$tilesim" ops) > /dev/null 2>&1; } 2> /dev/null; then
  check out_of_memory_shadow 2 "out of memory" -- bash -c "ulimit -v 1000000; exec '$tilesim' run atomic.ttir --grid 1 --arg x_ptr=big.npy --threads 1"
else
  echo "skipped out_of_memory_shadow (tilesim cannot start under an address-space limit: a sanitizer build)"
fi

echo "$((count - failures))/$count hostile command-line checks passed"
[ "$failures" -eq 0 ]
