# Which single timing fault of the SASS reproduces the H200's output exactly (docs/findings.md G10)? Runs
# sass_sim.py's program-order simulation with one fault at a time:
#   late OPS    the result of one instruction whose opcode starts with one of OPS (comma-separated) lands K
#               instructions late (K = 2, 4, ... 64; a write to the same register in between is overwritten)
#   stale LO HI one source operand (register or predicate) of one instruction at address LO..HI (hex) reads the
#               value before its latest write
#   python3 sass_search.py LISTING CASE_DIR late I2F.S64,SEL,FSETP
#   python3 sass_search.py LISTING CASE_DIR stale 3600 3960
# (LISTING = `nvdisasm -c CUBIN`.) Prints every fault whose outputs equal out0.gpu.npy; minutes of CPU.
import os
import re
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import sass_sim as S  # noqa: E402

listing, case, mode = sys.argv[1], sys.argv[2], sys.argv[3]
insts = S.parse(listing)
x = np.load(case + '/in0.npy')
expected = np.load(case + '/out0.expected.npy')
gpu = np.load(case + '/out0.gpu.npy')
out_init = np.load(case + '/out0.npy')
fault = {}


class FaultyLane(S.Lane):
    def __init__(s, *a):
        super().__init__(*a)
        s.idx = 0
        s.pending = []
        s.prev_r = {}
        s.prev_p = {}

    def operand(s, o):
        return o.strip().lstrip('-!').replace('.reuse', '').strip('|')

    def rd(s, o):
        name = s.operand(o)
        if fault.get('stale') == (s.idx, name) and re.match(r'^R\d+$', name):
            v = s.prev_r.get(int(name[1:]), 0)
            return (-v) & 0xffffffff if o.strip().startswith('-') else v
        return super().rd(o)

    def pr(s, o):
        name = s.operand(o)
        if fault.get('stale') == (s.idx, name) and name != 'PT':
            v = s.prev_p.get(int(name[1:]), False)
            return (not v) if o.strip().startswith('!') else v
        return super().pr(o)

    def wr(s, o, v):
        o = o.strip()
        if o == 'RZ':
            return
        if fault.get('late') and s.idx == fault['late'][0]:
            s.pending.append((s.idx + fault['late'][1], int(o[1:]), v & 0xffffffff))
            return
        s.prev_r[int(o[1:])] = s.R[int(o[1:])]
        super().wr(o, v)

    def wp(s, o, v):
        o = o.strip()
        if o != 'PT':
            s.prev_p[int(o[1:])] = s.P[int(o[1:])]
        super().wp(o, v)


def simulate():
    out = out_init.copy()
    xin = np.zeros(2048, np.int64)
    xin[:len(x)] = x
    mem = S.Mem()
    mem.add(0x10000000, xin)
    mem.add(0x20000000, out)
    params = {0x210: 0x10000000, 0x218: 0x20000000, 0x208: 0}
    for t in range(32):
        lane = FaultyLane(t, 0, mem, params)
        for idx, ins in enumerate(insts):
            for p in [p for p in lane.pending if p[0] <= idx]:
                lane.R[p[1]] = p[2]
                lane.pending.remove(p)
            lane.idx = idx
            if ins[2] in ('EXIT', 'BRA') and (not ins[1] or lane.pr(ins[1])):
                break
            S.run([ins], lane)
    return out


def report(what):
    try:
        out = simulate()
    except Exception:  # a fault that sends an address astray
        return
    if int((out != gpu).sum()) == 0:
        print('reproduces the H200:', what, flush=True)


assert int((simulate() != expected).sum()) == 0, 'the fault-free simulation must give the expected output'
if mode == 'late':
    ops = sys.argv[4].split(',')
    for i, ins in enumerate(insts):
        if any(ins[2].startswith(o) for o in ops):
            for k in (2, 4, 8, 16, 32, 64):
                fault = {'late': (i, k)}
                report(f'{ins[0]} {ins[2]} {", ".join(ins[3])} lands {k} instructions late')
else:
    lo, hi = int(sys.argv[4], 16), int(sys.argv[5], 16)
    for i, ins in enumerate(insts):
        if not lo <= int(ins[0], 16) <= hi:
            continue
        names = {ins[1].lstrip('!')} if ins[1] else set()
        sources = ins[3] if ins[2].startswith('STG') else ins[3][1:]
        for o in sources:
            names.update(re.findall(r'\b(R\d+|P\d)\b', o))
        for name in sorted(names):
            fault = {'stale': (i, name)}
            report(f'{ins[0]} {ins[2]} {", ".join(ins[3])} reads {name} stale')
print('searched')
