# Writes the i64 -> f32 case of the G10 probe into DIR: 1024 programs x 1024 values (random bit patterns, small
# integers, values near powers of two and round-to-nearest-even ties), expected from numpy's int64/uint64 ->
# float32 conversion (an oracle independent of tilesim).  python3 make_case.py DIR
import json, os, shutil, sys
import numpy as np
out = sys.argv[1]
os.makedirs(out, exist_ok=True)
rng = np.random.default_rng(10)
n = 1024 * 1024
x = rng.integers(-2**63, 2**63 - 1, size=n, dtype=np.int64, endpoint=True)
x[:65536] = rng.integers(-2**31, 2**31, size=65536)
shifts = rng.integers(0, 40, size=65536).astype(np.uint64)
m = rng.integers(0, 2**25, size=65536).astype(np.uint64)
x[65536:131072] = (m << shifts).view(np.int64)                        # 24/25-bit significands: ties and near-ties
x[131072:131072 + 128] = [0, 1, -1, 2**63 - 1, -2**63, 2**24 + 1, 2**24 + 3, -(2**24 + 1)] * 16
np.save(os.path.join(out, 'x.npy'), x)
np.save(os.path.join(out, 's.npy'), np.zeros(n, np.float32))
np.save(os.path.join(out, 'u.npy'), np.zeros(n, np.float32))
np.save(os.path.join(out, 's.expected.npy'), x.astype(np.float32))
np.save(os.path.join(out, 'u.expected.npy'), x.view(np.uint64).astype(np.float32))
shutil.copy(os.path.join(os.path.dirname(os.path.abspath(__file__)), 'kernel.ttir'), out)
case = {'name': 'g10_i64_to_f32', 'entry': 'i64_to_f32', 'grid': [1024, 1, 1], 'num_warps': 4, 'args': [
    {'name': 'x_ptr', 'kind': 'tensor', 'dtype': 'int64', 'shape': [n], 'input': 'x.npy'},
    {'name': 's_ptr', 'kind': 'tensor', 'dtype': 'float32', 'shape': [n], 'input': 's.npy', 'expected': 's.expected.npy'},
    {'name': 'u_ptr', 'kind': 'tensor', 'dtype': 'float32', 'shape': [n], 'input': 'u.npy', 'expected': 'u.expected.npy'}]}
json.dump(case, open(os.path.join(out, 'case.json'), 'w'), indent=1)
