"""Inputs for nan_probe.ttir (python3 nan_probe.py DIR), and, with --show DIR, its outputs as hex."""
import sys
import numpy as np

def write(d):
    inf = np.inf
    np.save(f"{d}/x.npy", np.array([0.0, -0.0, inf, -inf, 0.0, inf, -1.0, -4.0], np.float64))
    np.save(f"{d}/y.npy", np.array([inf, -inf, 0.0, 0.0, 0.0, inf, 0.0, -inf], np.float64))
    np.save(f"{d}/h.npy", np.array([0x7C01, 0x7E00, 0xFC01, 0xFFFF, 0x7D55, 0xFE00, 0x3C00, 0x7C00], np.uint16).view(np.float16))
    np.save(f"{d}/b.npy", np.array([0x7F81, 0x7FC0, 0xFF81, 0xFFFF, 0x7FFF, 0xFF8B, 0x3F80, 0x7F80], np.uint16).view(np.int16))
    np.save(f"{d}/f.npy", np.array([0x7F800001, 0x7FC00000, 0xFF800001, 0xFFFFFFFF, 0x7FA00000, 0xFFC00000, 0x3F800000, 0x7F800000],
                                   np.uint32).view(np.float32))
    for name, dtype in [("o_mul", np.int64), ("o_div", np.int64), ("o_sub", np.int64), ("o_sqrt", np.int64),
                        ("o_h32", np.int32), ("o_h64", np.int64), ("o_b64", np.int64), ("o_f64", np.int64)]:
        np.save(f"{d}/{name}.npy", np.zeros(8, dtype))

def show(d):
    for name in ["o_mul", "o_div", "o_sub", "o_sqrt", "o_h32", "o_h64", "o_b64", "o_f64"]:
        a = np.load(f"{d}/{name}.npy")
        bits = a.view(np.uint64 if a.dtype.itemsize == 8 else np.uint32)
        print(name, " ".join(f"{int(v):0{2 * a.dtype.itemsize}x}" for v in bits))

if __name__ == "__main__":
    show(sys.argv[2]) if sys.argv[1] == "--show" else write(sys.argv[1])
