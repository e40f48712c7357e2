# A numpy stand-in for the parts of torch that bench/gpu/bench.py uses, for smoke_test.py (no GPU, no torch).
import numpy as np
__version__ = "fake"
float16 = np.float16

class T(np.ndarray):
    def half(self): return self.astype(np.float16).view(T)
    def float(self): return self.astype(np.float32).view(T)
    def cpu(self): return self
    def cuda(self): return self
    def numpy(self): return np.asarray(self)
    def stride(self, i): return self.strides[i] // self.itemsize
    def copy_(self, a): self[...] = a; return self
    def numel(self): return self.size
    def abs(self): return np.abs(self).view(T)
    def t(self): return np.ndarray.view(self.T, T)
    def contiguous(self): return np.ascontiguousarray(self).view(T)
    def element_size(self): return self.itemsize
    def view(self, *shape):
        if len(shape) == 1 and isinstance(shape[0], type): return np.ndarray.view(self, shape[0])
        if len(shape) == 1: shape = shape[0]
        return np.asarray(self).reshape(shape).view(T)

def _t(a): return np.asarray(a).view(T)
class Generator:
    def __init__(self, device=None): self.rng = np.random.default_rng(0)
    def manual_seed(self, s): self.rng = np.random.default_rng(s)
def _shape(a): return a[0] if len(a) == 1 and isinstance(a[0], (tuple, list)) else a
def rand(*shape, device=None, generator=None): return _t((generator.rng if generator else np.random.default_rng()).random(_shape(shape), dtype=np.float32))
def randn(*shape, device=None, generator=None): return _t((generator.rng if generator else np.random.default_rng()).standard_normal(_shape(shape), dtype=np.float32))
def empty(*shape, device=None): return _t(np.zeros(_shape(shape), np.float32))
def zeros(*shape, device=None): return _t(np.zeros(_shape(shape), np.float32))
def empty_like(a): return _t(np.zeros_like(a))
def zeros_like(a): return _t(np.zeros_like(a))
def from_numpy(a): return _t(a)
def add(x, y, out=None): out[...] = x + y; return out
def softmax(x, dim=-1):
    e = np.exp(x - x.max(axis=dim, keepdims=True)); return _t((e / e.sum(axis=dim, keepdims=True)).astype(x.dtype))

class _Event:
    def __init__(self, enable_timing=False): pass
    def record(self): pass
    def elapsed_time(self, other): return 1.0
class cuda:
    Event = _Event
    @staticmethod
    def synchronize(): pass
    @staticmethod
    def get_device_name(): return "fake GPU"
    @staticmethod
    def empty_cache(): pass

class nn:
    class functional:
        @staticmethod
        def layer_norm(x, shape, w, b, eps):
            xf = np.asarray(x, np.float32)
            m = xf.mean(-1, keepdims=True); v = ((xf - m) ** 2).mean(-1, keepdims=True)
            return _t(((xf - m) / np.sqrt(v + eps) * np.asarray(w, np.float32) + np.asarray(b, np.float32)).astype(x.dtype))

class testing:
    @staticmethod
    def assert_close(a, b, rtol=0, atol=0):
        a = np.asarray(a, np.float64); b = np.asarray(b, np.float64)
        bad = np.abs(a - b) > atol + rtol * np.abs(b)
        if bad.any(): raise AssertionError(f"{bad.sum()} elements differ, max {np.abs(a-b).max()}")
