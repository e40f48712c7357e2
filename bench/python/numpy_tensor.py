"""Just enough of torch's tensor interface over a numpy array for Triton's own interpreter (TRITON_INTERPRET=1),
which reads arguments through `data_ptr()`, `dtype`, `untyped_storage()` and `new_empty(...).set_(...)` to copy
device tensors to the host. On the host there is nothing to copy: every method here is the identity on the same
memory, so the interpreter reads and writes the numpy array in place. Used by interpret_bench.py to time Triton's
interpreter on this machine, where torch (PyPI has only its CUDA build) is not installed."""
import numpy as np
import triton.language as tl

_DTYPES = {np.dtype(np.float32): tl.float32, np.dtype(np.float16): tl.float16, np.dtype(np.float64): tl.float64,
           np.dtype(np.int32): tl.int32, np.dtype(np.int64): tl.int64, np.dtype(np.int8): tl.int8,
           np.dtype(np.uint8): tl.uint8, np.dtype(np.int16): tl.int16, np.dtype(np.bool_): tl.int1}


class _Storage:
    def __init__(self, tensor):
        self.tensor = tensor

    def data_ptr(self):
        return _root_pointer(self.tensor.array)

    def cpu(self):
        return self

    def copy_(self, other):
        return self


def _root_pointer(array):
    while isinstance(array.base, np.ndarray):
        array = array.base
    return array.__array_interface__["data"][0]


class NumpyTensor:
    def __init__(self, array):
        self.array = array
        self.dtype = _DTYPES[array.dtype]

    def data_ptr(self):
        return self.array.__array_interface__["data"][0]

    def untyped_storage(self):
        return _Storage(self)

    def new_empty(self, *args, **kwargs):
        return self

    def set_(self, *args):
        return self

    def storage_offset(self):
        return 0

    def size(self):
        return self.array.shape

    def stride(self, *args):
        return tuple(s // self.array.itemsize for s in self.array.strides)

    def element_size(self):
        return self.array.itemsize

    def copy_(self, other):
        return self
