"""Gluon on the CPU: `tilesim.interpret()` runs @gluon.jit kernels from the TTGIR Triton's Gluon front end writes
for sm_90, with ttg.warp_specialize's partitions under the deterministic scheduler. The project's kernels
(conformance/gluon/gluon_kernels.py) must match a NumPy reference computed here (the oracle: float32 products of
the same fp16 inputs), under the round-robin schedule and under random ones, and every planted synchronisation
bug must be reported with its kind and its line (the line carrying the `# plant N` comment)."""
import math
import os
import sys

import numpy as np
import pytest

import tilesim
from tilesim import _memory

gluon = pytest.importorskip("triton.experimental.gluon", reason="this Triton has no Gluon")
from triton.experimental.gluon import language as gl  # noqa: E402
from triton.experimental.gluon.nvidia.hopper import TensorDescriptor  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
sys.path.insert(0, os.path.join(ROOT, "conformance", "gluon"))
import gluon_kernels  # noqa: E402

THREADS = int(os.environ.get("TILESIM_TEST_THREADS", "0"))
KERNELS_FILE = os.path.join(ROOT, "conformance", "gluon", "gluon_kernels.py")


def plant_line(kernel: str, plant: int) -> int:
    """The line of gluon_kernels.py that carries `# plant N` inside `kernel` (or a helper it calls)."""
    with open(KERNELS_FILE) as file:
        lines = file.read().splitlines()
    helpers = {"ws_matmul": ("def _ws_loader", "def _ws_consumer"), "pipelined_matmul": ("def pipelined_matmul",),
               "attention_fwd": ("def attention_fwd",)}[kernel]
    inside = False
    for number, line in enumerate(lines, 1):
        if line.startswith("def "):
            inside = line.startswith(helpers)
        if inside and line.rstrip().endswith(f"# plant {plant}"):
            return number
    raise AssertionError(f"no '# plant {plant}' line in {kernel}")


def descriptor(array, block):
    layout = gl.NVMMASharedLayout.get_default_for(block, gl.float16)
    return TensorDescriptor(_memory.view_of(array), list(array.shape), [array.shape[1], 1], block, layout)


def matmul_problem(seed=1, M=128, N=128, K=256):
    rng = np.random.default_rng(seed)
    a = rng.uniform(-1, 1, (M, K)).astype(np.float16)
    b = rng.uniform(-1, 1, (K, N)).astype(np.float16)
    c = np.zeros((M, N), np.float32)
    return a, b, c, a.astype(np.float32) @ b.astype(np.float32)


def run_matmul(kernel, plant=0, seed=0, **options):
    a, b, c, expected = matmul_problem()
    grid = (a.shape[0] // 64, b.shape[1] // 64)
    with tilesim.interpret(threads=THREADS, schedule_seed=seed, **options):
        compiled = kernel[grid](descriptor(a, [64, 32]), descriptor(b, [32, 64]), c, a.shape[0], b.shape[1],
                                a.shape[1], STAGES=3, PLANT=plant, num_warps=4)
    return c, expected, compiled


def run_attention(plant=0, S=192, D=64):
    rng = np.random.default_rng(2)
    q, k, v = (rng.uniform(-1, 1, (S, D)).astype(np.float16) for _ in range(3))
    o = np.zeros((S, D), np.float32)
    with tilesim.interpret(threads=THREADS):
        gluon_kernels.attention_fwd[(math.ceil(S / 64),)](descriptor(q, [64, 64]), descriptor(k, [64, 64]),
                                                          descriptor(v, [64, 64]), o, S, 1 / math.sqrt(D),
                                                          PLANT=plant, num_warps=4)
    s = (q.astype(np.float32) @ k.astype(np.float32).T) / math.sqrt(D)
    p = np.exp(s - s.max(axis=1, keepdims=True))
    expected = (p.astype(np.float16).astype(np.float32) @ v.astype(np.float32)) / p.sum(axis=1, keepdims=True)
    return o, expected


def test_pipelined_matmul_matches_numpy():
    c, expected, compiled = run_matmul(gluon_kernels.pipelined_matmul)
    assert "ttng.warp_group_dot" in compiled.asm["ttgir"]  # it ran from Gluon's TTGIR
    np.testing.assert_allclose(c, expected, rtol=1e-3, atol=1e-3)


@pytest.mark.parametrize("seed", [0, 1, 7, 12345])
def test_warp_specialized_matmul_matches_numpy_under_every_schedule(seed):
    c, expected, compiled = run_matmul(gluon_kernels.ws_matmul, seed=seed)
    assert "ttg.warp_specialize" in compiled.asm["ttgir"]
    np.testing.assert_allclose(c, expected, rtol=1e-3, atol=1e-3)


def test_attention_forward_matches_numpy():
    o, expected = run_attention()
    np.testing.assert_allclose(o, expected, rtol=2e-3, atol=2e-3)


def _names_line(report, line):
    """Whether a report is at `line` of gluon_kernels.py or names that line in its message."""
    at = f"gluon_kernels.py:{line}:"
    return report["source"].startswith(KERNELS_FILE + f":{line}:") or at in report["message"]


PLANTED = [(kernel, plant, kind) for kernel, plants in gluon_kernels.PLANTS.items()
           for plant, (_, kind) in plants.items()]


@pytest.mark.parametrize("kernel,plant,kind", PLANTED, ids=[f"{k}-plant{p}" for k, p, _ in PLANTED])
def test_planted_bug_is_reported_at_its_line(kernel, plant, kind):
    line = plant_line(kernel, plant)
    with pytest.raises(tilesim.KernelError) as caught:
        if kernel == "attention_fwd":
            run_attention(plant=plant)
        else:
            run_matmul(getattr(gluon_kernels, kernel), plant=plant)
    reports = caught.value.reports
    matching = [r for r in reports if r["kind"] == kind and _names_line(r, line)]
    assert matching, (f"no {kind} report naming gluon_kernels.py:{line} ({gluon_kernels.PLANTS[kernel][plant][0]}); "
                      f"got:\n" + "\n".join(f"{r['kind']} at {r['source']}: {r['message']}" for r in reports))
