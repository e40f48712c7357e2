"""Turns the caller's arrays into the launch's buffers, as the GPU would see them.

An array argument is a *view*: a data pointer into some storage, an element type, and the span of bytes it
covers. numpy arrays (through `__array_interface__`, no copy), CPU torch tensors — or any object with their
protocol: `data_ptr()`, `stride()`, `shape`, `element_size()`, `dtype`, `untyped_storage()` (torch is never
imported for this) — and other CPU DLPack producers (through `numpy.from_dlpack`, no copy) are understood; so
is `tilesim.as_dtype(array, tl.bfloat16)` for element types numpy lacks (bf16, fp8: the array holds their bit
patterns).

Views of one storage become ONE buffer: its bytes are the union of the spans they cover, and each view is an
alias at its byte offset into it (ir/launch/Launch.h). So an in-place kernel given `x` twice, or two slices of one
array, is judged against the real memory: a write through one pointer is seen through the other, and races and
out-of-bounds are measured against the storage, exactly like on the GPU.
"""
from __future__ import annotations

import functools
from dataclasses import dataclass, field

import numpy as np

# numpy dtype -> (Triton's type name, tilesim element type); numpy's unsigned integers are tilesim's signless ones
_NUMPY_TYPES = {np.dtype(np.bool_): ("int1", "i1")}
for _bits in (8, 16, 32, 64):
    _NUMPY_TYPES[np.dtype(f"int{_bits}")] = (f"int{_bits}", f"i{_bits}")
    _NUMPY_TYPES[np.dtype(f"uint{_bits}")] = (f"uint{_bits}", f"i{_bits}")
for _bits in (16, 32, 64):
    _NUMPY_TYPES[np.dtype(f"float{_bits}")] = (f"float{_bits}", f"f{_bits}")
# Triton dtype name -> tilesim element type, for as_dtype and torch tensors.
_TRITON_ELEMENT = {
    "int1": "i1", "int8": "i8", "int16": "i16", "int32": "i32", "int64": "i64",
    "uint8": "i8", "uint16": "i16", "uint32": "i32", "uint64": "i64",
    "float16": "f16", "bfloat16": "bf16", "float32": "f32", "float64": "f64",
    "float8e4nv": "f8E4M3FN", "float8e5": "f8E5M2",
    # Triton 3.6 spells fp8e4b15 `i8` in TTIR (get_fp8e4b15_ty) and converts it with inline PTX (docs/semantics.md)
    "float8e4b15": "i8",
}
_TRITON_SHORT = {"fp16": "float16", "bf16": "bfloat16", "fp32": "float32", "fp64": "float64", "fp8e4nv": "float8e4nv",
                 "fp8e5": "float8e5", "fp8e4b15": "float8e4b15"}
_TORCH_TO_TRITON = {
    "bool": "int1", "int8": "int8", "int16": "int16", "int32": "int32", "int64": "int64", "uint8": "uint8",
    "uint16": "uint16", "uint32": "uint32", "uint64": "uint64", "float16": "float16", "bfloat16": "bfloat16",
    "float32": "float32", "float64": "float64", "float8_e4m3fn": "float8e4nv", "float8_e5m2": "float8e5",
}


@functools.lru_cache(maxsize=None)
def _triton_dtype(name: str):  # cached: triton.language's attribute lookup is slow enough to show per launch
    import triton.language as tl
    return getattr(tl, name)


class ArrayView:
    """An array argument as a Triton launch sees it: `data_ptr()` and a Triton `dtype`, plus its span."""

    def __init__(self, obj, triton_name: str, element: str, pointer: int, low: int, high: int, storage_key,
                 writable: bool):
        self.obj = obj  # keeps the memory alive for the launch
        self.dtype = _triton_dtype(triton_name)
        self.element = element
        self.pointer = pointer
        self.low, self.high = low, high
        self.storage_key = storage_key
        self.writable = writable
        self.keep = None  # another object the memory belongs to (numpy's view of a DLPack producer)

    def data_ptr(self) -> int:
        return self.pointer


class Reinterpreted:
    """What `as_dtype` returns: the same memory read as another element type of the same size."""

    def __init__(self, array, dtype):
        self.array = array
        self.dtype = dtype


def as_dtype(array, dtype):
    """Reads `array`'s memory as Triton dtype `dtype` (e.g. a uint16 numpy array as tl.bfloat16)."""
    return Reinterpreted(array, dtype)


def _numpy_span(array: np.ndarray):
    interface = array.__array_interface__
    pointer = interface["data"][0]
    itemsize = array.itemsize
    if array.size == 0:
        return pointer, pointer, pointer
    low = high = pointer
    for extent, stride in zip(array.shape, array.strides):
        if stride < 0:
            low += (extent - 1) * stride
        else:
            high += (extent - 1) * stride
    return pointer, low, high + itemsize


def _numpy_root(array: np.ndarray):
    root = array
    while isinstance(root.base, np.ndarray):
        root = root.base
    return root.base if root.base is not None else root


def _is_torch_tensor(obj) -> bool:
    return type(obj).__module__.startswith("torch") and hasattr(obj, "untyped_storage")


def is_tensor_like(obj) -> bool:
    """The protocol torch tensors speak and tilesim reads (no torch import): `data_ptr()`, `stride()` (elements),
    `shape`, `element_size()`, `dtype` (torch's or Triton's name), optionally `device` and `untyped_storage()`."""
    return (not isinstance(obj, (np.ndarray, ArrayView)) and callable(getattr(obj, "data_ptr", None))
            and callable(getattr(obj, "stride", None)) and callable(getattr(obj, "element_size", None))
            and hasattr(obj, "dtype") and hasattr(obj, "shape"))


def _device_type(obj) -> str:
    device = getattr(obj, "device", None)
    if device is None:
        return "cpu"
    return getattr(device, "type", None) or str(device).split(":", 1)[0]


def _tensor_view(obj, dtype_override, any_device):
    """A tensor (torch's, or anything speaking its protocol): the memory in place, from its pointer and strides."""
    device = _device_type(obj)
    if device != "cpu" and not any_device:
        raise TypeError(f"tilesim: tensor on {getattr(obj, 'device', device)}; tilesim runs kernels on CPU tensors "
                        "(move it with .cpu(), or record GPU launches with tilesim.capture)")
    dtype_name = str(obj.dtype).removeprefix("torch.")
    triton_name = _TORCH_TO_TRITON.get(dtype_name) or (dtype_name if dtype_name in _TRITON_ELEMENT else None) \
        or _TRITON_SHORT.get(dtype_name)
    if triton_name is None:
        raise TypeError(f"tilesim: tensor dtype {obj.dtype} has no Triton pointer type")
    element = _TRITON_ELEMENT[triton_name]
    itemsize = int(obj.element_size())
    if dtype_override is not None:
        triton_name, element = _override(dtype_override, itemsize)
    pointer = int(obj.data_ptr())
    shape, strides = tuple(obj.shape), tuple(obj.stride())
    low = high = pointer
    if all(extent > 0 for extent in shape):
        for extent, stride in zip(shape, strides):
            if stride < 0:
                low += (extent - 1) * stride * itemsize
            else:
                high += (extent - 1) * stride * itemsize
        high += itemsize
    storage = getattr(obj, "untyped_storage", None)
    key = ("storage", int(storage().data_ptr())) if callable(storage) else ("tensor", id(obj))
    return ArrayView(obj, triton_name, element, pointer, low, high, key, True)


_PLAIN_SCALARS = frozenset({int, float, bool, str})


def view_of(obj, dtype_override=None, any_device=False):
    """An ArrayView for a numpy array, a tensor (torch's, CPU; or any object with its protocol), a CPU DLPack
    producer, or a Reinterpreted one of those; None for anything else. No copy: the view is the object's memory.
    `any_device`: also tensors on a GPU (the recorder reads them; tilesim cannot run on them)."""
    if obj is None or type(obj) in _PLAIN_SCALARS:  # the common non-array arguments, answered first
        return None
    if isinstance(obj, Reinterpreted):
        return view_of(obj.array, obj.dtype, any_device)
    if isinstance(obj, ArrayView):
        return obj
    if isinstance(obj, np.ndarray):
        if obj.dtype not in _NUMPY_TYPES:
            raise TypeError(f"tilesim: numpy dtype {obj.dtype} has no Triton pointer type")
        triton_name, element = _NUMPY_TYPES[obj.dtype]
        pointer, low, high = _numpy_span(obj)
        root = _numpy_root(obj)
        writable = bool(obj.flags.writeable)
        if dtype_override is not None:
            triton_name, element = _override(dtype_override, obj.itemsize)
        return ArrayView(obj, triton_name, element, pointer, low, high, ("numpy", id(root)), writable)
    if is_tensor_like(obj):
        return _tensor_view(obj, dtype_override, any_device)
    if hasattr(obj, "__dlpack__") and hasattr(obj, "__dlpack_device__"):
        # Other array libraries (JAX, CuPy, ...): numpy's view of the same CPU memory, no copy.
        if obj.__dlpack_device__()[0] != 1:  # kDLCPU
            if any_device:
                return None
            raise TypeError(f"tilesim: {type(obj).__name__} is not in CPU memory (DLPack device "
                            f"{obj.__dlpack_device__()}); tilesim runs kernels on CPU memory")
        array = np.from_dlpack(obj)
        view = view_of(array, dtype_override, any_device)
        view.obj, view.keep = obj, array
        return view
    return None


def _override(dtype, itemsize: int):
    import triton.language as tl
    name = next((n for n in _TRITON_ELEMENT if getattr(tl, n) == dtype), None)
    if name is None:
        raise TypeError(f"tilesim: as_dtype to {dtype} is not supported")
    element = _TRITON_ELEMENT[name]
    size = {"i1": 1, "i8": 1, "i16": 2, "i32": 4, "i64": 8, "f16": 2, "bf16": 2, "f32": 4, "f64": 8,
            "f8E4M3FN": 1, "f8E5M2": 1}[element]
    if size != itemsize:
        raise TypeError(f"tilesim: as_dtype({name}) needs {size}-byte elements, the array has {itemsize}")
    return name, element


@dataclass
class BufferPlan:
    """The launch arguments for a set of named views, and the host spans behind them."""
    arguments: list = field(default_factory=list)  # tuples for _tilesim.launch
    owners: dict = field(default_factory=dict)     # storage owner name -> (low, high)


def _group_by_memory(views: dict) -> list:
    """Named views grouped into buffers: views of one known storage, and views whose byte spans overlap however
    they were made (`as_strided`, two `frombuffer`s of one bytearray, any exporter of the buffer protocol) —
    the memory they really cover decides, not which Python object owns it."""
    by_key: dict = {}
    for name, view in views.items():
        by_key.setdefault(view.storage_key, []).append((name, view))
    groups = list(by_key.values())
    if len(groups) < 2:
        return groups
    # Groups whose spans overlap are one memory: sweep them in order of their lowest byte.
    spans = sorted(((min(v.low for _, v in g), max(v.high for _, v in g), g) for g in groups), key=lambda t: t[0])
    merged = [list(spans[0])]
    for low, high, members in spans[1:]:
        last = merged[-1]
        if low < last[1] and high > low and last[1] > last[0]:  # overlapping, neither empty
            last[1] = max(last[1], high)
            last[2] = last[2] + members
        else:
            merged.append([low, high, members])
    return [members for _, _, members in merged]


def plan_buffers(views: dict) -> BufferPlan:
    """Groups named ArrayViews into buffers by the memory they cover (_group_by_memory); each group is one
    buffer, each view a pointer (an alias) into it."""
    plan = BufferPlan()
    for members in _group_by_memory(views):
        low = min(view.low for _, view in members)
        high = max(view.high for _, view in members)
        writable = any(view.writable for _, view in members)
        owner = next((name for name, view in members if view.pointer == low), None)
        if owner is None:  # no view starts at the span's start (negative strides): a buffer of its own
            owner = members[0][0] + ".storage"
        element = dict(members)[owner].element if owner in dict(members) else members[0][1].element
        plan.arguments.append(("buffer", owner, element, low, high - low, writable))
        plan.owners[owner] = (low, high)
        for name, view in members:
            if name == owner:
                continue
            plan.arguments.append(("alias", name, view.element, owner, view.pointer - low, view.high - view.pointer))
    return plan
