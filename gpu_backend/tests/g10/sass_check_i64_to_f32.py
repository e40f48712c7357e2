# The exact i64 -> f32 sequence (avoidPtxasS64ToF32) as ptxas -c compiles it, simulated by sass_sim.py against numpy:
# LISTING = nvdisasm -c of `ptxas -arch=sm_90a -c` of `tilesim compile sitofp32.ttir --emit=ptx --num-warps 1`.
#   python3 sass_check_i64_to_f32.py LISTING [BATCHES]   (32 values a batch: edge cases, then random, small, ties)
import sys, numpy as np
import os
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import sass_sim as S
insts = S.parse(sys.argv[1])
rng = np.random.default_rng(3)
bad = total = 0
edge = np.array([0, 1, -1, 2**63 - 1, -2**63, 2**24 + 1, 2**24 + 3, -(2**24 + 1), (2**24 + 1) << 38, 1 << 40, (1 << 40) | (1 << 15),
                 2**32, 2**32 - 1, -2**32, 2**31, -2**31, 2**31 - 1, -(1 << 62), 5, -7, 2**53 + 1, 2**40 + 2**16, 2**39, 2**39 + 1, 2**39 - 1,
                 0x7fffff8000000000, 0x7fffff7fffffffff, 0xffffff8000000000 - 2**64, 12345678901, -98765432109, 2**62, 2**62 + 2**38], np.int64)
batches = [edge]
for k in range(int(sys.argv[2]) if len(sys.argv) > 2 else 60):
    kind = k % 3
    if kind == 0: x = rng.integers(-2**63, 2**63 - 1, size=32, dtype=np.int64, endpoint=True)
    elif kind == 1: x = rng.integers(-2**33, 2**33, size=32).astype(np.int64)
    else: x = ((rng.integers(0, 2**25, size=32).astype(np.uint64) << rng.integers(0, 39, size=32).astype(np.uint64)).view(np.int64) * rng.choice([1, -1], size=32)).astype(np.int64)
    batches.append(x)
for x in batches:
    out = np.zeros(32, np.float32)
    mem = S.Mem(); xin = x.copy(); mem.add(0x10000000, xin); mem.add(0x20000000, out)
    params = {0x210: 0x10000000, 0x218: 0x20000000, 0x208: 0}
    for t in range(32): S.run(insts, S.Lane(t, 0, mem, params))
    want = x.astype(np.float32)
    d = int((out.view(np.uint32) != want.view(np.uint32)).sum()); bad += d; total += 32
    if d: print('mismatch', x[out.view(np.uint32) != want.view(np.uint32)][:4], out[out.view(np.uint32) != want.view(np.uint32)][:4])
print(f'{total} values: {bad} differ from numpy')
