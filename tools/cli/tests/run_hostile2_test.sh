#!/usr/bin/env bash
# Hostile inputs, round 2 (issue 19), through the `tilesim` command line: inline asm, case-directory files,
# aliases and --out, compile's options and environment, fuzz's options, a loop counter that overflows. Each
# check asserts the exit code (never 3 or a signal), a message naming the culprit, no hang (every command runs
# under `timeout`), and that no file the user passed in changed. Needs bash, coreutils, python3 (and NumPy from
# the project's .venv when present). Usage: run_hostile2_test.sh path/to/tilesim [path/to/python-with-numpy]
set -u
tilesim=$(realpath "${1:?usage: run_hostile2_test.sh path/to/tilesim [python]}")
python=$(command -v "${2:-python3}")
source_dir=$(cd "$(dirname "$0")/../../.." && pwd)
source "$(dirname "$(realpath "$0")")/hostile_lib.sh"
expect() {  # expect NAME CONDITION...: a shell test that must hold
  local name=$1
  shift
  count=$((count + 1))
  if ! "$@"; then echo "FAIL $name: '$*' does not hold"; failures=$((failures + 1)); fi
}
npy_i32() {  # npy_i32 FILE VALUE...: a 1-d <i4 .npy file
  python3 - "$@" <<'EOF'
import struct, sys
path, *values = sys.argv[1:]
header = "{'descr': '<i4', 'fortran_order': False, 'shape': (%d,), }" % len(values)
header += ' ' * ((64 - (10 + len(header) + 1) % 64) % 64) + '\n'
with open(path, 'wb') as f:
    f.write(b'\x93NUMPY\x01\x00' + struct.pack('<H', len(header)) + header.encode() + b''.join(struct.pack('<i', int(v)) for v in values))
EOF
}
asm_kernel() {  # asm_kernel FILE ASM_STRING: a kernel x[i] = asm(x[i]) over 4 i32 lanes
  cat > "$1" <<EOF
module {
  tt.func public @k(%x_ptr: !tt.ptr<i32>) attributes {noinline = false} {
    %offs = tt.make_range {end = 4 : i32, start = 0 : i32} : tensor<4xi32>
    %p = tt.splat %x_ptr : !tt.ptr<i32> -> tensor<4x!tt.ptr<i32>>
    %q = tt.addptr %p, %offs : tensor<4x!tt.ptr<i32>>, tensor<4xi32>
    %x = tt.load %q : tensor<4x!tt.ptr<i32>>
    %y = tt.elementwise_inline_asm "$2" {constraints = "=r,r", packed_element = 1 : i32, pure = true} %x : tensor<4xi32> -> tensor<4xi32>
    tt.store %q, %y : tensor<4x!tt.ptr<i32>>
    tt.return
  }
}
EOF
}
npy_i32 x.npy 1 2 3 4

# --- Inline asm: an empty operand vector, resource bounds, check rejects what run cannot handle.
asm_kernel empty_vector.ttir 'mov.b32 $0, {};'
check asm_empty_vector_check 1 "empty_vector.ttir:7:" -- "$tilesim" check empty_vector.ttir
check asm_empty_vector_run 1 "inline asm" -- "$tilesim" run empty_vector.ttir --grid 1 --arg x_ptr=x.npy
asm_kernel vector_width.ttir '{ .reg .b32 a, b, c; mov.b32 {a, b, c}, $1; mov.b32 $0, a; }'
check asm_vector_not_dividing_check 1 "do not split" -- "$tilesim" check vector_width.ttir
asm_kernel unknown.ttir 'bfind.u32 $0, $1;'
check asm_unsupported_check 1 "outside tilesim's PTX subset" -- "$tilesim" check unknown.ttir
regs=$(python3 -c "print(''.join('.reg .b32 r%d_<4096>;' % i for i in range(40)))")
asm_kernel many_regs.ttir "$regs mov.b32 \$0, \$1;"
check asm_register_bound 1 "registers (tilesim's bound)" -- "$tilesim" check many_regs.ttir
check asm_register_bound_run 1 "registers (tilesim's bound)" -- "$tilesim" run many_regs.ttir --grid 1 --arg x_ptr=x.npy
loop=$(python3 -c "print('add.s32 \$0, \$1, 1;' * 20000)")
asm_kernel long_asm.ttir "$loop"
check asm_steps_bounded 1 "runaway" -- "$tilesim" run long_asm.ttir --grid 4 --arg x_ptr=x.npy --max-steps 50000

# --- Case directories: a bad kernel.ttgir or a kernel file that is not a regular file fails its case only.
make_case() {  # make_case DIR: the vadd golden case
  mkdir -p "$1"
  cp "$source_dir"/conformance/golden/vadd_f32/* "$1"/
}
make_case cases/good
make_case cases/zero_size
sed -i 's/sizePerThread = \[[0-9]*\]/sizePerThread = [0]/' cases/zero_size/kernel.ttgir
make_case cases/long_line
python3 -c "print('#blocked = #ttg.blocked<{sizePerThread = [' + '1, ' * 50000 + '1]}>')" > cases/long_line/kernel.ttgir
make_case cases/huge_number
sed -i 's/threadsPerWarp = \[[0-9]*\]/threadsPerWarp = [99999999999999999999999]/' cases/huge_number/kernel.ttgir
make_case cases/fifo_ttir
rm cases/fifo_ttir/kernel.ttir && mkfifo cases/fifo_ttir/kernel.ttir
make_case cases/zero_ttgir
rm cases/zero_ttgir/kernel.ttgir && ln -s /dev/zero cases/zero_ttgir/kernel.ttgir
make_case cases/fifo_json
rm cases/fifo_json/case.json && mkfifo cases/fifo_json/case.json
make_case cases/zero_npy
rm cases/zero_npy/x_ptr.npy && ln -s /dev/zero cases/zero_npy/x_ptr.npy
check conformance_goes_on 1 "8 cases: 1 passed" -- "$tilesim" conformance cases
check ttgir_zero_size_per_thread 1 "kernel.ttgir:1:" -- "$tilesim" conformance cases/zero_size
check ttgir_zero_message 1 "out of range (1..1048576)" -- "$tilesim" conformance cases/zero_size
check ttgir_long_line 1 "has more than 16 entries" -- "$tilesim" conformance cases/long_line
check ttgir_number_out_of_range 1 "out of range" -- "$tilesim" conformance cases/huge_number
check ttir_fifo 1 "not a regular file (a FIFO)" -- "$tilesim" conformance cases/fifo_ttir
check ttgir_dev_zero 1 "not a regular file (a character device)" -- "$tilesim" conformance cases/zero_ttgir
check case_json_fifo 1 "not a regular file" -- "$tilesim" conformance cases/fifo_json
check npy_dev_zero 1 "not a regular file" -- "$tilesim" conformance cases/zero_npy
check run_case_fifo_ttir 2 "not a regular file (a FIFO)" -- "$tilesim" run cases/fifo_ttir

# --- Aliases and --out: an alias without an input file is written with its own dtype; --out never replaces a
# case's files.
mkdir -p alias
cp "$source_dir"/conformance/captured/copy_shifted_9dd33ad5_0/* alias/
python3 - <<'EOF'
import json
case = json.load(open('alias/case.json'))
for arg in case['args']:
    if arg['name'] == 'dst_ptr': del arg['input']
json.dump(case, open('alias/case.json', 'w'))
EOF
check alias_out_written 0 "wrote" -- "$tilesim" run alias --out alias_out
check alias_out_reads_back 0 "" -- "$python" -c "
import struct, sys
data = open('alias_out/dst_ptr.npy', 'rb').read()
assert b\"'descr': '<f4'\" in data[:128], data[:128]
try:
    import numpy as np
    a = np.load('alias_out/dst_ptr.npy'); e = np.load('alias/dst_ptr.expected.npy')
    assert a.dtype == np.float32 and (a.view(np.int32) == e.view(np.int32)).all(), (a[:4], e[:4])
except ImportError:
    pass
"
check alias_out_tilesim_reads_own_file 0 "" -- "$tilesim" run alias/kernel.ttir --grid 2 --arg src_ptr=alias_out/src_ptr.npy \
  --arg dst_ptr=alias_out/dst_ptr.npy --arg n=128 --quiet
make_case protected
(cd protected && sha256sum * > ../protected.sums)
check out_into_case 2 "would overwrite" -- "$tilesim" run protected --out protected
check out_into_case_unchanged 0 "" -- sh -c "cd protected && sha256sum -c --quiet ../protected.sums"
make_case protected2
cp protected2/out_ptr.expected.npy expected_copy.npy
python3 -c "
import json; c = json.load(open('protected2/case.json'))
for a in c['args']:
    if a.get('expected'): a['expected'] = '../elsewhere/' + a['name'] + '.npy'
json.dump(c, open('protected2/case.json', 'w'))"
mkdir -p elsewhere && cp expected_copy.npy elsewhere/out_ptr.npy
check out_over_expected_elsewhere 2 "would overwrite" -- "$tilesim" run protected2 --out elsewhere
expect out_over_expected_unchanged cmp -s expected_copy.npy elsewhere/out_ptr.npy

# --- compile: --sm, --num-warps, the op's target requirement, TILESIM_LIBDEVICE; every option and variable named.
if "$tilesim" compile "$source_dir"/conformance/golden/vadd_f32/kernel.ttir > /dev/null 2>&1; then
  check compile_sm_garbage 2 "--sm" -- "$tilesim" compile "$source_dir"/conformance/golden/vadd_f32/kernel.ttir --sm garbage
  check compile_num_warps_3 2 "--num-warps" -- "$tilesim" compile "$source_dir"/conformance/golden/vadd_f32/kernel.ttir --num-warps 3
  check compile_tensor_cores_garbage 2 "--tensor-cores" -- "$tilesim" compile "$source_dir"/conformance/golden/matmul_f16/kernel.ttir --tensor-cores mma2
  check compile_tensor_cores_wgmma 0 "" -- "$tilesim" compile "$source_dir"/conformance/golden/matmul_f16/kernel.ttir --profile triton --tensor-cores wgmma
  check compile_num_stages_0 2 "--num-stages" -- "$tilesim" compile "$source_dir"/conformance/golden/matmul_f16/kernel.ttir --num-stages 0
  check compile_num_stages_9 2 "--num-stages" -- "$tilesim" compile "$source_dir"/conformance/golden/matmul_f16/kernel.ttir --num-stages 9
  check compile_num_stages_text 2 "--num-stages" -- "$tilesim" compile "$source_dir"/conformance/golden/matmul_f16/kernel.ttir --num-stages three
  check compile_num_stages_8 0 "" -- "$tilesim" compile "$source_dir"/conformance/golden/matmul_f16/kernel.ttir --profile triton --num-stages 8
  check run_num_stages_9 2 "--num-stages" -- "$tilesim" run "$source_dir"/conformance/golden/vadd_f32 --num-stages 9
  echo keep > precious.txt && ln -s precious.txt compiled.ptx
  check compile_output_symlink 0 "" -- "$tilesim" compile "$source_dir"/conformance/golden/vadd_f32/kernel.ttir -o compiled.ptx
  expect compile_output_not_through_symlink test "$(cat precious.txt)" = keep
  check compile_sm60_reduce 1 "tt.reduce" -- "$tilesim" compile "$source_dir"/conformance/golden/softmax_f32/kernel.ttir --sm sm_60
  printf 'BC\xc0\xde' > not_libdevice.bc
  erf="$source_dir"/conformance/golden-extra/libdevice_transcendental_f32/kernel.ttir
  if [ -f "$erf" ]; then
    check libdevice_not_bitcode 1 "TILESIM_LIBDEVICE" -- env TILESIM_LIBDEVICE="$scratch/not_libdevice.bc" \
      "$tilesim" compile "$erf" --profile triton
  fi
fi
check env_gpu_timeout 2 "TILESIM_GPU_TIMEOUT" -- env TILESIM_GPU_TIMEOUT=soon "$tilesim" check "$source_dir"/conformance/golden/vadd_f32/kernel.ttir
check env_ptxas_level 2 "TILESIM_PTXAS_LEVEL" -- env TILESIM_PTXAS_LEVEL=5 "$tilesim" check "$source_dir"/conformance/golden/vadd_f32/kernel.ttir
check env_ptxas_level_word 2 "TILESIM_PTXAS_LEVEL" -- env TILESIM_PTXAS_LEVEL=fast "$tilesim" check "$source_dir"/conformance/golden/vadd_f32/kernel.ttir
check env_ptxas_level_auto 0 "" -- env TILESIM_PTXAS_LEVEL=auto "$tilesim" check "$source_dir"/conformance/golden/vadd_f32/kernel.ttir
check env_tensor_cores 2 "TILESIM_TENSOR_CORES" -- env TILESIM_TENSOR_CORES=v3 "$tilesim" check "$source_dir"/conformance/golden/vadd_f32/kernel.ttir
check env_tensor_cores_wgmma 0 "" -- env TILESIM_TENSOR_CORES=wgmma "$tilesim" check "$source_dir"/conformance/golden/vadd_f32/kernel.ttir
check env_libdevice_missing 2 "TILESIM_LIBDEVICE" -- env TILESIM_LIBDEVICE=/nonexistent.bc "$tilesim" check "$source_dir"/conformance/golden/vadd_f32/kernel.ttir
check gpu_timeout_nan 2 "--gpu-timeout" -- "$tilesim" run "$source_dir"/conformance/golden/vadd_f32 --gpu-timeout nan

# --- fuzz: options, emit directory, merge, no shell.
check fuzz_hang_nan 2 "--hang-seconds" -- "$tilesim" fuzz --count 1 --hang-seconds nan
check fuzz_hang_inf 2 "--hang-seconds" -- "$tilesim" fuzz --count 1 --hang-seconds inf
check fuzz_hang_negative 2 "--hang-seconds" -- "$tilesim" fuzz --count 1 --hang-seconds -1
check fuzz_seconds_nan 2 "--seconds" -- "$tilesim" fuzz --seconds nan
touch a_file
check fuzz_emit_dir_is_file 2 "--emit-dir a_file: exists and is not a directory" -- "$tilesim" fuzz --count 2 --emit-dir a_file --quiet
mkdir -p target_dir
"$tilesim" fuzz --count 3 --json shard.json --quiet > /dev/null 2>&1
check fuzz_merge_same_file 2 "given twice" -- "$tilesim" fuzz --merge shard.json shard.json
cp shard.json shard_copy.json
check fuzz_merge_same_shard 2 "already holds" -- "$tilesim" fuzz --merge shard.json shard_copy.json
mkdir -p "emit2" && ln -s "$scratch/target_dir" emit2/s1_p0000000
"$tilesim" fuzz --count 2 --engine interp --emit-dir emit2 --quiet > /dev/null 2>&1
expect emit_writes_cases test -f emit2/s1_p0000001/case.json
expect emit_not_through_symlink test -z "$(ls -A target_dir)"
if ptxas=$(command -v ptxas || ls /usr/local/cuda/bin/ptxas 2>/dev/null) && [ -n "$ptxas" ]; then
  mkdir -p "tmp'quote \$(touch pwned)"
  check fuzz_ptxas_no_shell 0 "failed 0" -- env TMPDIR="$scratch/tmp'quote \$(touch pwned)" PATH="$(dirname "$ptxas"):$PATH" \
    "$tilesim" fuzz --count 2 --check-ptxas --quiet
  expect fuzz_ptxas_no_shell_code test ! -e pwned
fi

# --- A loop counter that overflows: reported under --check=ub, the documented rule otherwise.
cat > for_overflow.ttir <<'EOF'
module {
  tt.func public @count(%x_ptr: !tt.ptr<i64>) attributes {noinline = false} {
    %lo = arith.constant 9223372036854775797 : i64
    %hi = arith.constant 9223372036854775807 : i64
    %step = arith.constant 7 : i64
    %c0 = arith.constant 0 : i64
    %n = scf.for %i = %lo to %hi step %step iter_args(%acc = %c0) -> (i64) : i64 {
      %c1 = arith.constant 1 : i64
      %next = arith.addi %acc, %c1 : i64
      scf.yield %next : i64
    }
    tt.store %x_ptr, %n : !tt.ptr<i64>
    tt.return
  }
}
EOF
python3 -c "
import struct
h = \"{'descr': '<i8', 'fortran_order': False, 'shape': (1,), }\"; h += ' ' * ((64 - (10 + len(h) + 1) % 64) % 64) + '\n'
open('n.npy', 'wb').write(b'\x93NUMPY\x01\x00' + struct.pack('<H', len(h)) + h.encode() + struct.pack('<q', 0))"
check for_overflow_ub 1 "for_overflow.ttir:7:" -- "$tilesim" run for_overflow.ttir --grid 1 --arg x_ptr=n.npy --check=ub
check for_overflow_ub_message 1 "induction variable overflow" -- "$tilesim" run for_overflow.ttir --grid 1 --arg x_ptr=n.npy --check=ub
check for_overflow_rule 0 "x_ptr = [2]" -- "$tilesim" run for_overflow.ttir --grid 1 --arg x_ptr=n.npy

echo "$count checks, $failures failed"
[ "$failures" -eq 0 ]
