# A functional simulator (program order, no timing) of the sm_90 SASS subset the G10 kernel uses, lane by lane
# (docs/findings.md G10). Usage: sass_sim.py LISTING CASE_DIR, LISTING = `nvdisasm -c CUBIN` of the kernel; runs
# the 32 lanes of one warp of a grid-1 program on the case's in0/out0 and compares with out0.expected.npy / out0.gpu.npy.
import math, os, re, struct, sys
import numpy as np

def f32(bits): return struct.unpack('<f', struct.pack('<I', bits & 0xffffffff))[0]
def bits(f): return struct.unpack('<I', struct.pack('<f', f))[0]
def s32(x): x &= 0xffffffff; return x - (1 << 32) if x >> 31 else x



def i64_to_f32_rn(v):
    # correctly rounded s64 -> f32 (round half even) without double rounding
    if v == 0: return 0
    sign = v < 0; a = -v if sign else v
    e = a.bit_length() - 1
    if e <= 23: m = a << (23 - e); f = (e + 127) << 23 | (m & 0x7fffff)
    else:
        sh = e - 23; m = a >> sh; rem = a & ((1 << sh) - 1); half = 1 << (sh - 1)
        if rem > half or (rem == half and m & 1): m += 1
        if m >> 24: m >>= 1; e += 1
        f = (e + 127) << 23 | (m & 0x7fffff)
    return f | (0x80000000 if sign else 0)

def e4m3_satfinite(fb):
    x = f32(fb)
    if math.isnan(x): return 0x7f
    s = 0x80 if fb >> 31 else 0
    a = abs(x)
    if a >= 448: return s | 0x7e
    # enumerate e4m3 magnitudes 0..0x7e, pick nearest (ties to even code)
    best = None
    for c in range(0x7f):
        e, m = c >> 3, c & 7
        v = (m / 8) * 2 ** -6 if e == 0 else (1 + m / 8) * 2 ** (e - 7)
        d = abs(v - a)
        if best is None or d < best[0] or (d == best[0] and c % 2 == 0): best = (d, c)
    return s | best[1]

class Lane:
    def __init__(s, tid, ctaid, mem, params):
        s.R = [0] * 256; s.P = [False] * 8; s.UR = [0] * 64; s.tid = tid; s.ctaid = ctaid; s.mem = mem; s.params = params
    def rd(s, o):
        o = o.strip(); neg = False; inv = False
        if o.startswith('-') and not re.match(r'-0x', o): neg = True; o = o[1:]
        if o.startswith('~'): inv = True; o = o[1:]
        if o.startswith('|'): o = o.strip('|')
        o = o.replace('.reuse', '')
        if o == 'RZ': v = 0
        elif o == 'URZ': v = 0
        elif re.match(r'^R\d+$', o): v = s.R[int(o[1:])]
        elif re.match(r'^UR\d+$', o): v = s.UR[int(o[2:])]
        elif re.match(r'^-?0x[0-9a-f]+$', o): v = int(o, 16) & 0xffffffff
        elif o == '+QNAN': v = 0x7fffffff
        elif re.match(r'^-?[0-9.e+-]+$', o): v = bits(np.float32(float(o)))
        else: raise ValueError('operand ' + o)
        if inv: v = ~v & 0xffffffff
        return (-v) & 0xffffffff if neg else v
    def pr(s, o):
        o = o.strip(); inv = o.startswith('!'); o = o.lstrip('!')
        v = True if o == 'PT' else s.P[int(o[1:])]
        return (not v) if inv else v
    def wr(s, o, v):
        o = o.strip()
        if o == 'RZ': return
        s.R[int(o[1:])] = v & 0xffffffff
    def wp(s, o, v):
        o = o.strip()
        if o != 'PT': s.P[int(o[1:])] = bool(v)

def lop3(a, b, c, lut):
    r = 0
    for i in range(32):
        idx = ((a >> i & 1) << 2) | ((b >> i & 1) << 1) | (c >> i & 1)
        r |= (lut >> idx & 1) << i
    return r

def run(insts, L):
    pc = 0
    while pc < len(insts):
        addr, guard, op, ops = insts[pc]; pc += 1
        if guard and not L.pr(guard): continue
        o = ops
        if op in ('EXIT',): return
        if op == 'BRA': return
        if op == 'LDC': L.wr(o[0], 0); continue
        if op == 'LDC.64' or op == 'ULDC.64':
            off = int(re.search(r'\[(0x[0-9a-f]+)\]$', o[1]).group(1), 16)
            v = L.params.get(off, 0)
            if op == 'LDC.64': L.R[int(o[0][1:])] = v & 0xffffffff; L.R[int(o[0][1:]) + 1] = v >> 32
            else: L.UR[int(o[0][2:])] = v & 0xffffffff; L.UR[int(o[0][2:]) + 1] = v >> 32
            continue
        if op == 'S2R': L.wr(o[0], L.tid if 'TID' in o[1] else L.ctaid); continue
        if op == 'IMAD.SHL.U32': L.wr(o[0], L.rd(o[1]) * L.rd(o[2]) + L.rd(o[3])); continue
        if op in ('IMAD', 'IMAD.MOV.U32', 'IMAD.U32', 'IMAD.MOV'): L.wr(o[0], L.rd(o[1]) * L.rd(o[2]) + L.rd(o[3])); continue
        if op in ('IMAD.WIDE', 'IMAD.WIDE.U32'):
            a = L.rd(o[1]) if op.endswith('U32') else s32(L.rd(o[1])); b = L.rd(o[2]) if op.endswith('U32') else s32(L.rd(o[2])); r = int(o[3].strip()[1:])
            c = L.R[r] | L.R[r + 1] << 32; v = (a * b + c) & (2**64 - 1); d = int(o[0][1:])
            L.R[d] = v & 0xffffffff; L.R[d + 1] = v >> 32; continue
        if op == 'VIADD': L.wr(o[0], L.rd(o[1]) + L.rd(o[2])); continue
        if op == 'LOP3.LUT':
            if len(o) == 6: L.wr(o[0], lop3(L.rd(o[1]), L.rd(o[2]), L.rd(o[3]), int(o[4], 16))); continue
            raise ValueError(str(o))
        if op == 'UMOV': L.UR[int(o[0][2:])] = 0 if o[1].strip() == 'URZ' else L.rd(o[1]); continue
        if op == 'IMAD.X': L.wr(o[0], L.rd(o[1]) * L.rd(o[2]) + L.rd(o[3]) + (1 if L.pr(o[4]) else 0)); continue
        if op == 'FLO.U32':
            v = L.rd(o[1]); L.wr(o[0], v.bit_length() - 1 if v else 0xffffffff); continue
        if op == 'SHF.L.U64.HI':
            a, sh, c = L.rd(o[1]), L.rd(o[2]), L.rd(o[3]); sh = min(sh, 64)
            L.wr(o[0], (((c << 32 | a) << sh) >> 32) & 0xffffffff); continue
        if op == 'SHF.L.U32':
            a, sh = L.rd(o[1]), L.rd(o[2]); assert o[3].strip() == 'RZ'
            L.wr(o[0], (a << sh) & 0xffffffff if sh < 32 else 0); continue
        m = re.match(r'^ISETP\.(NE|EQ|GT|GE|LT|LE)(\.U32)?\.(AND|OR)(\.EX)?$', op)
        if m and (m.group(2) or m.group(4) or m.group(1) in ('GT', 'LT', 'LE', 'EQ')):
            cmp, uns, comb, ex = m.group(1), bool(m.group(2)), m.group(3), bool(m.group(4))
            a, b = L.rd(o[2]), L.rd(o[3])
            if not uns: a, b = s32(a), s32(b)
            f = {'NE': a != b, 'EQ': a == b, 'GT': a > b, 'GE': a >= b, 'LT': a < b, 'LE': a <= b}[cmp]
            if ex:  # the high words, chained with the low words' result (the last operand)
                low = L.pr(o[5])
                f = {'NE': a != b or low, 'EQ': a == b and low, 'GT': a > b or (a == b and low),
                     'GE': a > b or (a == b and low), 'LT': a < b or (a == b and low),
                     'LE': a < b or (a == b and low)}[cmp]
            c = L.pr(o[4])
            L.wp(o[0], (f and c) if comb == 'AND' else (f or c)); continue
        if op == 'IADD3' and re.match(r'^!?P', o[1].strip()):
            terms = []
            for t in o[2:5]:
                t = t.strip()
                if t.startswith('-') and not re.match(r'-0x', t): terms.append((~L.rd(t[1:]) & 0xffffffff) + 1)
                else: terms.append(L.rd(t))
            v = sum(terms); L.wr(o[0], v); L.wp(o[1], v >> 32); continue
        if op == 'IADD3':
            if re.match(r'^!?P', o[1].strip()):
                v = L.rd(o[2]) + L.rd(o[3]) + L.rd(o[4]); L.wr(o[0], v); L.wp(o[1], v >> 32); continue
            L.wr(o[0], L.rd(o[1]) + L.rd(o[2]) + L.rd(o[3])); continue
        if op == 'IADD3.X':
            v = L.rd(o[1]) + L.rd(o[2]) + L.rd(o[3]) + (1 if L.pr(o[4]) else 0); L.wr(o[0], v); continue
        if op == 'LEA':
            if re.match(r'^P', o[1].strip()):
                v = (L.rd(o[2]) << int(o[4], 16)) + L.rd(o[3]); L.wr(o[0], v); L.wp(o[1], (v >> 32) & 1 if True else 0)
                # carry = carry out of the 32-bit add of (a<<s)&mask + b
                lo = ((L.rd(o[2]) << int(o[4], 16)) & 0xffffffff) + L.rd(o[3]); L.wp(o[1], lo >> 32); L.wr(o[0], lo); continue
            L.wr(o[0], (L.rd(o[1]) << int(o[3], 16)) + L.rd(o[2])); continue
        if op == 'LEA.HI.X':
            a, b, c, sh = L.rd(o[1]), L.rd(o[2]), L.rd(o[3]), int(o[4], 16)
            hi = ((c << 32 | a) << sh) >> 32; L.wr(o[0], hi + b + (1 if L.pr(o[5]) else 0)); continue
        if op == 'LEA.HI.X.SX32':
            a, b, sh = L.rd(o[1]), L.rd(o[2]), int(o[3], 16)
            x = s32(a); hi = (x >> (32 - sh)); L.wr(o[0], hi + b + (1 if L.pr(o[4]) else 0)); continue
        if op == 'SHF.R.S32.HI': L.wr(o[0], s32(L.rd(o[3])) >> int(o[2], 16)); continue
        if op == 'SHF.R.U32.HI': L.wr(o[0], L.rd(o[3]) >> int(o[2], 16)); continue
        if op == 'SGXT.U32': L.wr(o[0], L.rd(o[1]) & ((1 << int(o[2], 16)) - 1)); continue
        if op == 'ISETP.GE.AND': L.wp(o[0], (s32(L.rd(o[2])) >= s32(L.rd(o[3]))) and L.pr(o[4])); continue
        if op == 'ISETP.NE.AND': L.wp(o[0], (L.rd(o[2]) != L.rd(o[3])) and L.pr(o[4])); continue
        if op == 'FSETP.GEU.AND':
            a, b = f32(L.rd(o[2])), f32(L.rd(o[3]))
            L.wp(o[0], (math.isnan(a) or math.isnan(b) or a >= b) and L.pr(o[4])); continue
        if op == 'SEL': L.wr(o[0], L.rd(o[1]) if L.pr(o[3]) else L.rd(o[2])); continue
        if op == 'FSEL': L.wr(o[0], L.rd(o[1]) if L.pr(o[3]) else L.rd(o[2])); continue
        if op == 'I2FP.F32.U32': L.wr(o[0], i64_to_f32_rn(L.rd(o[1]))); continue
        if op == 'FMUL': L.wr(o[0], bits(np.float32(f32(L.rd(o[1]))) * np.float32(f32(L.rd(o[2]))))); continue
        if op == 'I2F.S64':
            r = int(o[1].strip().replace('.reuse', '')[1:]); v = L.R[r] | L.R[r + 1] << 32
            if v >> 63: v -= 1 << 64
            L.wr(o[0], i64_to_f32_rn(v)); continue
        if op == 'F2FP.SATFINITE.E4M3.F32.PACK_AB_MERGE_C':
            a, b, c = L.rd(o[1]), L.rd(o[2]), L.rd(o[3])
            v = (c & 0xffff0000) | e4m3_satfinite(a) << 8 | e4m3_satfinite(b); L.wr(o[0], v); continue
        if op == 'LDG.E.64':
            m = re.match(r'desc\[UR\d+\]\[(R\d+)(?:\.64)?(?:\+(0x[0-9a-f]+))?\]', o[1].strip())
            r = int(m.group(1)[1:]); off = int(m.group(2) or '0', 16)
            a = (L.R[r] | L.R[r + 1] << 32) + off
            v = L.mem.load(a, 8); d = int(o[0][1:]); L.R[d] = v & 0xffffffff; L.R[d + 1] = v >> 32; continue
        if op == 'STG.E':
            m = re.match(r'desc\[UR\d+\]\[(R\d+)(?:\.64)?(?:\+(0x[0-9a-f]+))?\]', o[0].strip())
            r = int(m.group(1)[1:]); off = int(m.group(2) or '0', 16)
            L.mem.store((L.R[r] | L.R[r + 1] << 32) + off, L.rd(o[1]), 4); continue
        if op == 'STG.E.U8':
            m = re.match(r'desc\[UR\d+\]\[(R\d+)(?:\.64)?(?:\+(0x[0-9a-f]+))?\]', o[0].strip())
            r = int(m.group(1)[1:]); off = int(m.group(2) or '0', 16)
            a = (L.R[r] | L.R[r + 1] << 32) + off
            L.mem.store(a, L.rd(o[1]) & 0xff, 1); continue
        raise ValueError('unknown op %s %s at %s' % (op, o, addr))

class Mem:
    def __init__(s): s.regions = []
    def add(s, base, arr): s.regions.append((base, arr))
    def find(s, a, n):
        for base, arr in s.regions:
            if base <= a and a + n <= base + arr.nbytes: return arr, a - base
        raise ValueError('bad address %x' % a)
    def load(s, a, n):
        arr, off = s.find(a, n); return int.from_bytes(arr.view(np.uint8)[off:off + n].tobytes(), 'little')
    def store(s, a, v, n):
        arr, off = s.find(a, n); arr.view(np.uint8)[off:off + n] = np.frombuffer(v.to_bytes(n, 'little'), np.uint8)

def parse(path):
    insts = []
    for l in open(path):
        m = re.match(r'\s*/\*([0-9a-f]{4})\*/\s*(.*?)\s*;', l)
        if not m: continue
        body = m.group(2); guard = None
        g = re.match(r'^@(!?P\d)\s+(.*)$', body)
        if g: guard, body = g.group(1), g.group(2)
        op, _, rest = body.partition(' ')
        ops = [x.strip() for x in re.split(r',(?![^\[]*\])', rest)] if rest else []
        insts.append((m.group(1), guard, op, ops))
    return insts

if __name__ == '__main__':
    sass, case = sys.argv[1], sys.argv[2]
    insts = parse(sass)
    x = np.load(case + '/in0.npy'); out = np.load(case + '/out0.npy').copy()
    xin = np.zeros(2048, np.int64); xin[:len(x)] = x  # room for masked-off addresses (never read)
    mem = Mem(); mem.add(0x10000000, xin); mem.add(0x20000000, out)
    params = {0x210: 0x10000000, 0x218: 0x20000000, 0x208: 0}
    for t in range(32):
        run(insts, Lane(t, 0, mem, params))
    np.save(os.environ.get('SIM_OUT', '/tmp/sim_out0.npy'), out)
    e = np.load(case + '/out0.expected.npy'); g = np.load(case + '/out0.gpu.npy')
    print('sim vs expected: %d differ' % int((out != e).sum()), np.nonzero(out != e)[0][:20])
    print('sim vs gpu     : %d differ' % int((out != g).sum()), np.nonzero(out != g)[0][:20])
