# Device probe for docs/findings.md G10 (run on the H200; python3 + numpy, libcuda through ctypes, no torch).
# The case conformance/regressions/gpu_i64_sitofp_cmpf_bool_store: on the H200 element 18 of every thread stored
# that thread's element-15 boolean. Offline, `ptxas -arch=sm_90a -c` (the relocatable mode the driver JIT uses;
# ptxas 12.8 to 13.3) drops element 18's I2F.S64 and compares it with element 15's converted value, and the
# simulated SASS gives the H200's bits exactly; whole-program ptxas and ptxas 13.5 -c are right. This checks that
# on the device and checks the fix, REPEAT runs of each, one line per variant:
#   jit-direct     the case's PTX before the fix (--ptx) through cuModuleLoadData, as the GPU engine loads it
#   jit-link       the same through cuLink; its cubin is saved (jit.cubin) and its .text compared with ptxas -c's
#   jit-O0..O3     cuLink at CU_JIT_OPTIMIZATION_LEVEL 0..3 (the default is 4); jit-maxreg64: at most 64 registers
#   ptxas          the device's ptxas -arch=sm_90a (whole program; or Triton's bundled one)
#   ptxas-c        the device's ptxas -arch=sm_90a -c (relocatable, as the JIT)
#   fixed          --fixed-ptx: the PTX of a tilesim with avoidPtxasS64ToF32 (no cvt.rn.f32.s64 left)
#   ptx-i2f-int    the probe's own rewrite of every cvt.rn.f32.s64 into the exact integer sequence, then the JIT
#   ptx-i2f-f64    every cvt.rn.f32.s64 as cvt.rn.f64.s64 + cvt.rn.f32.f64 (may double-round; informative only)
#   ptx-volatile-st the byte stores as st.volatile.global.u8 (the I2F.S64 is still dropped offline)
#   crafted-input  jit-direct on an input where only each thread's element 15 is false
# Each line: how many of REPEAT runs were bit-exact with the interpreter, the distinct wrong-element sets, and
# whether element 18 equalled element 15 in every thread. Outputs and cubins go to OUT.
#   python3 g10_probe.py --case DIR --ptx KERNEL.ptx [--fixed-ptx FIXED.ptx] --out OUT [--repeat 20]
import argparse
import ctypes
import os
import re
import shutil
import subprocess
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import sass_tools  # noqa: E402

KERNEL = 'fuzz_kernel'
# The .text sha256 of `ptxas -arch=sm_90a -c` 13.0.48 / 13.0.88 / 13.1.115 (identical) for the case's PTX: the
# relocatable mode the driver JIT uses, and the SASS that drops element 18's I2F.S64.
EXPECTED_TEXT_SHA = '341114c331a44c77f98d747246418018c7cf4892435b90389c2c8c7b9f087b84'


class Cuda:
    def __init__(self):
        self.lib = ctypes.CDLL('libcuda.so.1')
        self.check(self.lib.cuInit(0), 'cuInit')
        dev = ctypes.c_int()
        self.check(self.lib.cuDeviceGet(ctypes.byref(dev), 0), 'cuDeviceGet')
        self.ctx = ctypes.c_void_p()
        self.check(self.lib.cuDevicePrimaryCtxRetain(ctypes.byref(self.ctx), dev), 'cuDevicePrimaryCtxRetain')
        self.check(self.lib.cuCtxSetCurrent(self.ctx), 'cuCtxSetCurrent')
        version = ctypes.c_int()
        self.lib.cuDriverGetVersion(ctypes.byref(version))
        self.driver_version = version.value
        L, vp, sz, u64 = self.lib, ctypes.c_void_p, ctypes.c_size_t, ctypes.c_uint64
        L.cuLinkCreate_v2.argtypes = [ctypes.c_uint, vp, vp, vp]
        L.cuLinkAddData_v2.argtypes = [vp, ctypes.c_int, vp, sz, ctypes.c_char_p, ctypes.c_uint, vp, vp]
        L.cuLinkComplete.argtypes = [vp, vp, vp]
        L.cuLinkDestroy.argtypes = [vp]
        L.cuModuleLoadData.argtypes = [vp, vp]
        L.cuModuleGetFunction.argtypes = [vp, vp, ctypes.c_char_p]
        L.cuMemAlloc_v2.argtypes = [vp, sz]
        L.cuMemcpyHtoD_v2.argtypes = [u64, vp, sz]
        L.cuMemcpyDtoH_v2.argtypes = [vp, u64, sz]
        L.cuMemFree_v2.argtypes = [u64]
        L.cuLaunchKernel.argtypes = [vp] + [ctypes.c_uint] * 7 + [vp, vp, vp]

    @staticmethod
    def check(status, what):
        if status != 0:
            raise RuntimeError(f'{what} failed: CUresult {status}')

    def link(self, ptx: bytes, opt_level=None, max_registers=None) -> bytes:
        log = ctypes.create_string_buffer(16384)
        opts = [5, 6]  # CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES
        vals = [ctypes.cast(log, ctypes.c_void_p), ctypes.c_void_p(len(log) - 1)]
        if opt_level is not None:
            opts.append(7)  # CU_JIT_OPTIMIZATION_LEVEL
            vals.append(ctypes.c_void_p(opt_level))
        if max_registers is not None:
            opts.append(0)  # CU_JIT_MAX_REGISTERS
            vals.append(ctypes.c_void_p(max_registers))
        n = len(opts)
        opt_array = (ctypes.c_int * n)(*opts)
        val_array = (ctypes.c_void_p * n)(*[v.value for v in vals])
        state = ctypes.c_void_p()
        self.check(self.lib.cuLinkCreate_v2(n, ctypes.cast(opt_array, ctypes.c_void_p), ctypes.cast(val_array, ctypes.c_void_p),
                                            ctypes.byref(state)), 'cuLinkCreate')
        data = ctypes.create_string_buffer(ptx + b'\0')
        status = self.lib.cuLinkAddData_v2(state, 1, ctypes.cast(data, ctypes.c_void_p), len(ptx) + 1, b'g10.ptx', 0, None, None)
        if status != 0:
            raise RuntimeError(f'cuLinkAddData: CUresult {status}: {log.value.decode(errors="replace")}')
        image = ctypes.c_void_p()
        size = ctypes.c_size_t()
        self.check(self.lib.cuLinkComplete(state, ctypes.byref(image), ctypes.byref(size)), 'cuLinkComplete')
        cubin = ctypes.string_at(image, size.value)
        self.lib.cuLinkDestroy(state)
        return cubin

    def load(self, image: bytes):
        module = ctypes.c_void_p()
        buf = ctypes.create_string_buffer(image + b'\0')
        self.check(self.lib.cuModuleLoadData(ctypes.byref(module), ctypes.cast(buf, ctypes.c_void_p)), 'cuModuleLoadData')
        function = ctypes.c_void_p()
        self.check(self.lib.cuModuleGetFunction(ctypes.byref(function), module, KERNEL.encode()), 'cuModuleGetFunction')
        return module, function

    def run(self, function, in0: np.ndarray, out_init: np.ndarray) -> np.ndarray:
        ptrs = []
        for arr in (in0, out_init):
            p = ctypes.c_uint64()
            self.check(self.lib.cuMemAlloc_v2(ctypes.byref(p), max(arr.nbytes, 1)), 'cuMemAlloc')
            self.check(self.lib.cuMemcpyHtoD_v2(p.value, arr.ctypes.data_as(ctypes.c_void_p), arr.nbytes), 'cuMemcpyHtoD')
            ptrs.append(p)
        params = (ctypes.c_void_p * 2)(*[ctypes.cast(ctypes.byref(p), ctypes.c_void_p).value for p in ptrs])
        self.check(self.lib.cuLaunchKernel(function, 1, 1, 1, 32, 1, 1, 0, None, ctypes.cast(params, ctypes.c_void_p), None), 'cuLaunchKernel')
        self.check(self.lib.cuCtxSynchronize(), 'cuCtxSynchronize')
        out = np.empty_like(out_init)
        self.check(self.lib.cuMemcpyDtoH_v2(out.ctypes.data_as(ctypes.c_void_p), ptrs[1].value, out.nbytes), 'cuMemcpyDtoH')
        for p in ptrs:
            self.lib.cuMemFree_v2(p.value)
        return out


def element(lane, reg):  # the layout of the case (tilesim compile --emit=layout): #L4, 1 warp
    return ((lane >> 1) + 16 * (reg >> 4)) * 32 + (lane & 1) * 16 + (reg & 15)


def judge(out, expected):
    wrong = tuple(int(i) for i in np.nonzero(out != expected)[0])
    lanes = [l for l in range(32) if element(l, 18) < 1003]
    el15 = all(out[element(l, 18)] == expected[element(l, 15)] for l in lanes)
    return wrong, el15


def i2f_int(ptx: str) -> str:
    """cvt.rn.f32.s64 as integer ops: sign, |x|, clz, normalise, round to nearest even on the 40 dropped bits."""
    n = [0]
    def block(m):
        n[0] += 1
        f, x = m.group(1), m.group(2)
        return ('{\n\t.reg .pred %gq<4>;\n\t.reg .b64 %ga, %gn, %gr;\n\t.reg .b32 %gz, %gm, %ge, %gb;\n'
                f'\tsetp.lt.s64 %gq0, {x}, 0;\n\tsub.s64 %gn, 0, {x};\n\tselp.b64 %ga, %gn, {x}, %gq0;\n'
                '\tsetp.eq.s64 %gq1, %ga, 0;\n\tclz.b64 %gz, %ga;\n\tshl.b64 %ga, %ga, %gz;\n'
                '\tshr.u64 %gn, %ga, 40;\n\tcvt.u32.u64 %gm, %gn;\n\tand.b64 %gr, %ga, 1099511627775;\n'
                '\tsetp.gt.u64 %gq2, %gr, 549755813888;\n\tsetp.eq.u64 %gq3, %gr, 549755813888;\n'
                '\tand.b32 %gb, %gm, 1;\n\tsetp.ne.and.b32 %gq3, %gb, 0, %gq3;\n\tor.pred %gq2, %gq2, %gq3;\n'
                '\tselp.u32 %gb, 1, 0, %gq2;\n\tadd.u32 %gm, %gm, %gb;\n\tsub.u32 %ge, 189, %gz;\n'
                '\tshl.b32 %ge, %ge, 23;\n\tadd.u32 %ge, %ge, %gm;\n\tselp.b32 %gb, 0x80000000, 0, %gq0;\n'
                f'\tor.b32 %ge, %ge, %gb;\n\tselp.b32 %ge, 0, %ge, %gq1;\n\tmov.b32 {f}, %ge;\n}}')
    return re.sub(r'cvt\.rn\.f32\.s64\s+(%f\d+),\s*(%rd\d+);', block, ptx), n[0]


def i2f_f64(ptx: str):
    n = [0]
    def block(m):
        n[0] += 1
        return (f'{{\n\t.reg .f64 %gd;\n\tcvt.rn.f64.s64 %gd, {m.group(2)};\n\tcvt.rn.f32.f64 {m.group(1)}, %gd;\n}}')
    return re.sub(r'cvt\.rn\.f32\.s64\s+(%f\d+),\s*(%rd\d+);', block, ptx), n[0]


def volatile_stores(ptx: str):
    return re.subn(r'st\.global\.u8', 'st.volatile.global.u8', ptx)


def find_ptxas():
    for p in (shutil.which('ptxas'), '/usr/local/cuda/bin/ptxas'):
        if p and os.path.exists(p):
            return p
    try:
        import triton  # noqa: F401
        p = os.path.join(os.path.dirname(triton.__file__), 'backends/nvidia/bin/ptxas')
        return p if os.path.exists(p) else None
    except Exception:
        return None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--case', required=True)
    ap.add_argument('--ptx', required=True)
    ap.add_argument('--out', required=True)
    ap.add_argument('--repeat', type=int, default=20)
    ap.add_argument('--fixed-ptx', help='the same kernel compiled by a tilesim with the workaround')
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    in0 = np.load(os.path.join(a.case, 'in0.npy'))
    out_init = np.load(os.path.join(a.case, 'out0.npy')).astype(np.uint8)
    expected = np.load(os.path.join(a.case, 'out0.expected.npy')).astype(np.uint8)
    ptx = open(a.ptx).read()
    report = open(os.path.join(a.out, 'g10_probe.txt'), 'w')
    def say(line):
        print(line)
        report.write(line + '\n')
        report.flush()
    try:
        cuda = Cuda()
    except (OSError, RuntimeError) as e:
        say(f'no usable GPU here ({e}): nothing run')
        sys.exit(4)
    say(f'driver version {cuda.driver_version}; case {a.case}; repeat {a.repeat}')

    variants = []  # (name, image bytes or None, note)
    def add(name, make):
        try:
            image, note = make()
            variants.append((name, image, note))
        except Exception as e:  # keep going: one failing variant must not hide the others
            variants.append((name, None, f'could not build: {e}'))

    add('jit-direct', lambda: (ptx.encode(), 'PTX to cuModuleLoadData'))
    def jit(level):
        def make():
            cubin = cuda.link(ptx.encode(), level)
            suffix = '' if level is None else f'-O{level}'
            open(os.path.join(a.out, f'jit{suffix}.cubin'), 'wb').write(cubin)
            sha = sass_tools.text_sha(cubin, KERNEL)
            return cubin, f'text {sha[:16]} ({"same as" if sha == EXPECTED_TEXT_SHA else "differs from"} ptxas 13.0.88 here)'
        return make
    add('jit-link', jit(None))
    for level in (0, 1, 2, 3):
        add(f'jit-O{level}', jit(level))
    def jit_maxreg():
        cubin = cuda.link(ptx.encode(), None, 64)
        open(os.path.join(a.out, 'jit-maxreg64.cubin'), 'wb').write(cubin)
        return cubin, 'CU_JIT_MAX_REGISTERS 64 (another register allocation)'
    add('jit-maxreg64', jit_maxreg)

    ptxas_cubin = None
    ptxas = find_ptxas()
    if ptxas:
        def make_ptxas():
            path = os.path.join(a.out, 'ptxas.cubin')
            version = subprocess.run([ptxas, '--version'], capture_output=True, text=True).stdout.strip().splitlines()[-1]
            subprocess.run([ptxas, '-arch=sm_90a', a.ptx, '-o', path], check=True, capture_output=True)
            cubin = open(path, 'rb').read()
            sha = sass_tools.text_sha(cubin, KERNEL)
            return cubin, f'{ptxas} ({version}): text {sha[:16]} ({"same as" if sha == EXPECTED_TEXT_SHA else "differs from"} here)'
        add('ptxas', make_ptxas)
        ptxas_cubin = variants[-1][1]
    else:
        variants.append(('ptxas', None, 'no ptxas found'))
    if ptxas:
        def make_ptxas_c():
            path = os.path.join(a.out, 'ptxas-c.cubin')
            subprocess.run([ptxas, '-arch=sm_90a', '-c', a.ptx, '-o', path], check=True, capture_output=True)
            cubin = open(path, 'rb').read()
            sha = sass_tools.text_sha(cubin, KERNEL)
            return cubin, f'relocatable, as the JIT: text {sha[:16]} ({"same as" if sha == EXPECTED_TEXT_SHA else "differs from"} ptxas -c here)'
        add('ptxas-c', make_ptxas_c)
    if a.fixed_ptx:
        add('fixed', lambda: (open(a.fixed_ptx).read().encode(), 'the PTX of this tilesim (avoidPtxasS64ToF32) to cuModuleLoadData'))
    for name, rewrite in (('ptx-i2f-int', i2f_int), ('ptx-i2f-f64', i2f_f64), ('ptx-volatile-st', volatile_stores)):
        def make(rewrite=rewrite, name=name):
            text, count = rewrite(ptx)
            open(os.path.join(a.out, name + '.ptx'), 'w').write(text)
            cubin = cuda.link(text.encode())
            open(os.path.join(a.out, name + '.cubin'), 'wb').write(cubin)
            return cubin, f'{count} rewritten'
        add(name, make)

    # A crafted input: every element true (x = 5: 5 << 44 > fp8(4)) but each thread's element 15 false (x = -5).
    # If element 18 again takes element 15's value, all 31 element-18 bytes read false here.
    crafted = np.full_like(in0, 5)
    for lane in range(32):
        if element(lane, 15) < len(crafted):
            crafted[element(lane, 15)] = -5
    try:
        _, function = cuda.load(ptx.encode())
        out = cuda.run(function, crafted, out_init)
        lanes = [l for l in range(32) if element(l, 18) < 1003]
        false18 = sum(1 for l in lanes if out[element(l, 18)] == 0)
        wrong = int(sum(1 for i in range(len(crafted)) if out[i] != (0 if crafted[i] == -5 else 1)))
        np.save(os.path.join(a.out, 'crafted.out0.npy'), out.astype(bool))
        say(f'{"crafted-input":24s} {wrong} of {len(crafted)} stored elements wrong; element 18 false in {false18} of '
            f'{len(lanes)} threads (true expected in all)')
    except Exception as e:
        say(f'{"crafted-input":24s} error: {e}')

    for name, image, note in variants:
        if image is None:
            say(f'{name:24s} not run: {note}')
            continue
        try:
            _, function = cuda.load(image)
            results = {}
            exact = 0
            el15_all = True
            for r in range(a.repeat):
                out = cuda.run(function, in0, out_init)
                if r == 0:
                    np.save(os.path.join(a.out, name + '.out0.npy'), out.astype(bool))
                wrong, el15 = judge(out, expected)
                exact += not wrong
                results[wrong] = results.get(wrong, 0) + 1
                el15_all &= el15 if wrong else False
            sets = '; '.join(f'{cnt}x {len(w)} wrong' + (f' {list(w[:6])}' if w else '') for w, cnt in results.items())
            say(f'{name:24s} {exact}/{a.repeat} bit-exact  [{sets}]  element18==element15 in every run: '
                f'{"yes" if el15_all else "no"}  ({note})')
        except Exception as e:
            say(f'{name:24s} error: {e} ({note})')
    report.close()


if __name__ == '__main__':
    main()
