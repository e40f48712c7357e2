"""CPU tensors through torch's tensor protocol, without torch: tilesim.interpret reads a tensor's memory in place
from `data_ptr()`, `stride()`, `shape`, `element_size()`, `dtype` and `untyped_storage()` (tilesim/_memory.py), so
an object speaking that protocol over numpy memory stands in for a CPU torch tensor here (torch is not installed
on this machine; scripts/device_torch_check.py runs the same checks with real torch tensors on the device).
Also DLPack producers that are not tensors (numpy's from_dlpack, no copy)."""
import os

import numpy as np
import pytest
import triton
import triton.language as tl

import kernels
import tilesim
from tilesim import _memory

THREADS = int(os.environ.get("TILESIM_TEST_THREADS", "0"))


class FakeDtype:
    def __init__(self, name):
        self.name = name

    def __str__(self):
        return f"torch.{self.name}"


class FakeStorage:
    def __init__(self, root):
        self.root = root

    def data_ptr(self):
        return self.root.__array_interface__["data"][0]


class FakeDevice:
    def __init__(self, kind):
        self.type = kind

    def __str__(self):
        return self.type


class FakeTensor:
    """torch.Tensor's protocol over a numpy array: strides in elements, a storage shared by its views."""

    def __init__(self, array, dtype_name=None, root=None, device="cpu"):
        self.array = array
        self.root = array if root is None else root
        self.dtype = FakeDtype(dtype_name or str(array.dtype))
        self.device = FakeDevice(device)

    @property
    def shape(self):
        return self.array.shape

    def data_ptr(self):
        return self.array.__array_interface__["data"][0]

    def stride(self):
        return tuple(s // self.array.itemsize for s in self.array.strides)

    def element_size(self):
        return self.array.itemsize

    def numel(self):
        return self.array.size

    def untyped_storage(self):
        return FakeStorage(self.root)

    def __getitem__(self, index):
        return FakeTensor(self.array[index], self.dtype.name, self.root, self.device.type)


def test_results_land_in_the_tensor_memory():
    n = 1000
    rng = np.random.default_rng(0)
    x, y = rng.standard_normal(n, dtype=np.float32), rng.standard_normal(n, dtype=np.float32)
    out = np.zeros(n, np.float32)
    tx, ty, tout = FakeTensor(x), FakeTensor(y), FakeTensor(out)
    with tilesim.interpret(threads=THREADS):
        compiled = kernels.add_kernel[(triton.cdiv(n, 256),)](tx, ty, tout, n, BLOCK_SIZE=256)
    np.testing.assert_array_equal(out, x + y)  # written into the memory behind the tensor, in place
    assert "tt.divisibility = 16" in compiled.asm["ttir"]  # its pointer specialised like a torch tensor's


def test_strided_tensor_views_and_shared_storage():
    big = np.random.default_rng(1).standard_normal((6, 300), dtype=np.float32)
    tensor = FakeTensor(big)
    view = tensor[:, 20:220]  # rows of 200, row stride 300
    assert view.stride() == (300, 1)
    out = FakeTensor(np.zeros((6, 200), np.float32))
    with tilesim.interpret(threads=THREADS):
        kernels.softmax_kernel[(3,)](out, view, 300, 200, 6, 200, BLOCK_SIZE=256, num_stages=1)
    e = np.exp(big[:, 20:220].astype(np.float64) - big[:, 20:220].max(1, keepdims=True))
    np.testing.assert_allclose(out.array, e / e.sum(1, keepdims=True), rtol=1e-5, atol=1e-7)
    # Two views of one storage are one buffer: an overlapping in-place copy races, as on the GPU.
    shared = FakeTensor(np.arange(256, dtype=np.float32))
    with tilesim.interpret(threads=THREADS), pytest.raises(tilesim.KernelError) as error:
        kernels.copy_shifted[(2,)](shared[0:128], shared[1:129], 128, BLOCK=64)
    assert error.value.kind == "race"
    halves = FakeTensor(np.arange(256, dtype=np.float32))
    with tilesim.interpret(threads=THREADS):
        kernels.copy_shifted[(2,)](halves[:128], halves[128:], 128, BLOCK=64)
    np.testing.assert_array_equal(halves.array, np.concatenate([np.arange(128), np.arange(128)]))


def test_bf16_tensor_by_dtype_name():
    bits = np.array([0x3F80, 0x4000, 0xBF80, 0x4040] * 50, dtype=np.uint16)  # 1, 2, -1, 3 in bf16
    src = FakeTensor(bits, "bfloat16")
    dst = FakeTensor(np.zeros_like(bits), "bfloat16")
    with tilesim.interpret(threads=THREADS):
        compiled = kernels.copy_shifted[(4,)](src, dst, 200, BLOCK=64)
    assert "!tt.ptr<bf16>" in compiled.asm["ttir"]
    np.testing.assert_array_equal(dst.array, bits)


def test_view_span_of_a_strided_tensor():
    view = _memory.view_of(FakeTensor(np.zeros((4, 8), np.float16))[1:3, ::2])
    assert view.element == "f16" and view.high - view.low == (8 + 6) * 2 + 2


def test_gpu_tensor_is_refused_with_its_device():
    cuda = FakeTensor(np.zeros(10, np.float32), device="cuda")
    with tilesim.interpret(threads=THREADS), pytest.raises(TypeError, match="tensor on cuda"):
        kernels.scale_kernel[(1,)](cuda, 10, 2.0)


def test_unknown_tensor_dtype_is_named():
    odd = FakeTensor(np.zeros(4, np.complex64))
    with tilesim.interpret(threads=THREADS), pytest.raises(TypeError, match="complex64"):
        kernels.scale_kernel[(1,)](odd, 4, 2.0)


class DLPackOnly:
    """A CPU array known only through DLPack (as JAX or CuPy host arrays are)."""

    def __init__(self, array):
        self.array = array

    def __dlpack__(self, **kwargs):
        return self.array.__dlpack__(**kwargs)

    def __dlpack_device__(self):
        return self.array.__dlpack_device__()


def test_dlpack_producer_in_place():
    data = np.arange(300, dtype=np.float32)
    with tilesim.interpret(threads=THREADS):
        kernels.scale_kernel[(3,)](DLPackOnly(data), 300, 2.0)
    np.testing.assert_array_equal(data, np.arange(300, dtype=np.float32) * 2)
