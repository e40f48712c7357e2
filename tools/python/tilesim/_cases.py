"""Writes one launch as a conformance case (docs/conformance.md; shared real-kernels format): a directory with
`kernel.ttir`, `case.json` and one `.npy` per tensor before (`NAME.npy`) and after (`NAME.expected.npy`).

Tensors are described by what the kernel's pointer sees, as the GPU does:
- Arguments that share storage are one buffer. The first of them whose pointer is the lowest owns it and is
  saved as the union of the spans they cover; each other one is `alias_of` the owner at `alias_offset` bytes
  (omitted when 0), with the span from its own pointer.
- A tensor whose saved span is not exactly its own contiguous view is saved flat (`shape` = [elements]) with
  its logical `view_shape` / `view_strides` (elements) beside it.
- bf16 is saved as `<i2` bit patterns, fp8 as `|u1`; `dtype` keeps the real name (torch's spelling).
This module only needs numpy: the recorder hands it host copies (TensorSnapshot) taken before and after a launch,
so the code is unit-tested on the CPU with synthetic arrays (tests/test_capture.py).
"""
from __future__ import annotations

import dataclasses
import json
import os
from dataclasses import dataclass, field

import numpy as np

# tilesim element type -> numpy dtype of the saved file (bit patterns where numpy has no such type)
_FILE_DTYPE = {"i1": np.bool_, "i8": np.int8, "i16": np.int16, "i32": np.int32, "i64": np.int64,
               "f16": np.float16, "bf16": np.int16, "f32": np.float32, "f64": np.float64,
               "f8E4M3FN": np.uint8, "f8E5M2": np.uint8}
_UNSIGNED_FILE = {"uint8": np.uint8, "uint16": np.uint16, "uint32": np.uint32, "uint64": np.uint64}
# Triton dtype names -> the case's dtype spelling (torch's)
_CASE_DTYPE = {"int1": "bool", "float8e4nv": "float8_e4m3fn", "float8e5": "float8_e5m2"}


@dataclass
class TensorSnapshot:
    """One tensor argument at one moment: its view (element type, pointer, span, shape/strides in elements) and
    the bytes of `span` bytes starting at `low` (a host copy)."""
    name: str
    dtype: str                 # the case's dtype name: "float32", "bfloat16", "float8_e5m2", ...
    element: str               # tilesim element type: "f32", "bf16", ...
    itemsize: int
    pointer: int
    low: int
    high: int
    shape: tuple
    strides: tuple             # in elements
    storage_key: object
    data: bytes = b""

    @property
    def contiguous(self) -> bool:
        expected, stride = [], 1
        for extent in reversed(self.shape):
            expected.append(stride)
            stride *= extent
        return tuple(reversed(expected)) == tuple(self.strides) or int(np.prod(self.shape)) <= 1


def case_dtype_name(triton_name: str) -> str:
    return _CASE_DTYPE.get(triton_name, triton_name.replace("fp", "float"))


@dataclass
class CaseRecord:
    name: str
    entry: str
    ttir: str
    grid: tuple
    num_warps: int
    constexprs: dict
    arguments: list            # in call order: ("tensor", before, after) or ("scalar", name, value)
    notes: list = field(default_factory=list)
    source: str = ""
    capture: dict = field(default_factory=dict)
    ttgir: str = ""            # compiled.asm["ttgir"] when the launch was compiled for a GPU: Triton's reduce order


def _plan_storage(tensors):
    """name -> (owner name, offset of this tensor's pointer into the owner's saved span, span low, span high)."""
    groups: dict = {}
    for tensor in tensors:
        groups.setdefault(tensor.storage_key, []).append(tensor)
    plan = {}
    for members in groups.values():
        low = min(t.pointer for t in members)  # the kernel gets the span's base address: start at a pointer
        high = max(t.high for t in members)
        owner = next(t for t in members if t.pointer == low)
        if any(t.low < low for t in members):
            raise ValueError(f"{owner.name}: a view with negative strides reaches below every pointer into its "
                             "storage; the case format cannot hold it")
        for tensor in members:
            plan[tensor.name] = (owner.name, tensor.pointer - low, low, high)
    return plan


def _merge_storage(snapshots, low: int, high: int):
    """The bytes of [low, high) from the snapshots of the views of one storage; bytes no view covers (a gap between
    views, which the kernel cannot reach in bounds) are zero. Returns (bytes, whether there was a gap)."""
    merged = bytearray(high - low)
    covered = bytearray(high - low)
    for snap in snapshots:
        merged[snap.low - low:snap.high - low] = snap.data
        covered[snap.low - low:snap.high - low] = b"\x01" * (snap.high - snap.low)
    return bytes(merged), 0 in covered


def _span_array(storage: bytes, storage_low: int, snapshot: TensorSnapshot, start: int, end: int, dtype_name: str):
    data = storage[start - storage_low:end - storage_low]
    file_dtype = _UNSIGNED_FILE.get(dtype_name, _FILE_DTYPE[snapshot.element])
    return np.frombuffer(data, dtype=file_dtype).copy()


def _new_case_directory(directory: str, name: str) -> str:
    """A directory for a new case that no earlier recording holds: `name`, else `name.2`, `name.3`, ... (a second
    recording into the same directory adds its cases; it never replaces the first one's)."""
    os.makedirs(directory, exist_ok=True)
    for attempt in range(1, 100000):
        candidate = os.path.join(directory, name if attempt == 1 else f"{name}.{attempt}")
        try:
            os.mkdir(candidate)  # atomic: two recorders never take the same directory
            return candidate
        except FileExistsError:
            continue
    raise FileExistsError(f"tilesim.capture: no free case directory for {name} in {directory}")


def write_case(directory: str, record: CaseRecord) -> str:
    """Writes `record` into a new directory under `directory` named after record.name; returns it."""
    case_dir = _new_case_directory(directory, record.name)
    record = dataclasses.replace(record, name=os.path.basename(case_dir))
    with open(os.path.join(case_dir, "kernel.ttir"), "w") as file:
        file.write(record.ttir)
    if record.ttgir:  # the runner reads each tt.reduce's layout from it (docs/conformance.md)
        with open(os.path.join(case_dir, "kernel.ttgir"), "w") as file:
            file.write(record.ttgir)
    tensors = [before for kind, before, *_ in record.arguments if kind == "tensor"]
    afters = {entry[1].name: entry[2] for entry in record.arguments if entry[0] == "tensor"}
    plan = _plan_storage(tensors)
    notes = list(record.notes)
    storage_bytes = {}  # owner -> (bytes before, bytes after)
    for owner in {owner for owner, *_ in plan.values()}:
        members = [t for t in tensors if plan[t.name][0] == owner]
        low, high = plan[owner][2], plan[owner][3]
        before_bytes, gap = _merge_storage(members, low, high)
        after_bytes, _ = _merge_storage([afters[t.name] for t in members], low, high)
        storage_bytes[owner] = (before_bytes, after_bytes)
        if gap:
            notes.append(f"{owner}: bytes of its storage that no argument covers are saved as zeros")
    args = []
    for entry in record.arguments:
        if entry[0] == "scalar":
            _, name, value = entry
            pytype = "bool" if isinstance(value, bool) else "int" if isinstance(value, int) else "float"
            args.append({"name": name, "kind": "scalar", "pytype": pytype,
                         "value": int(value) if pytype == "bool" else value})
            continue
        _, before, after = entry
        owner, offset, low, high = plan[before.name]
        is_owner = owner == before.name
        start, end = (low, high) if is_owner else (before.pointer, before.high)
        elements = (end - start) // before.itemsize
        arg = {"name": before.name, "kind": "tensor", "dtype": before.dtype}
        own_span = start == before.pointer and end == before.high and before.contiguous
        if own_span:
            arg["shape"] = list(before.shape)
        else:
            arg["shape"] = [elements]
            arg["view_shape"] = list(before.shape)
            arg["view_strides"] = list(before.strides)
            notes.append(f"{before.name}: view (shape {list(before.shape)}, strides {list(before.strides)}) saved as "
                         f"the flat storage span of {elements} elements that starts at its pointer")
        if not is_owner:
            arg["alias_of"] = owner
            if offset:
                arg["alias_offset"] = offset
        file_input, file_expected = f"{before.name}.npy", f"{before.name}.expected.npy"
        before_bytes, after_bytes = storage_bytes[owner]
        before_array = _span_array(before_bytes, low, before, start, end, before.dtype)
        after_array = _span_array(after_bytes, low, before, start, end, before.dtype)
        if arg["shape"] != [elements]:
            before_array = before_array.reshape(arg["shape"])
            after_array = after_array.reshape(arg["shape"])
        np.save(os.path.join(case_dir, file_input), before_array)
        np.save(os.path.join(case_dir, file_expected), after_array)
        arg["input"] = file_input
        arg["expected"] = file_expected
        args.append(arg)
    bit_patterns = [t.name for t in tensors if t.element in ("bf16", "f8E4M3FN", "f8E5M2")]
    if bit_patterns:
        notes.append("saved as bit patterns (bf16 as <i2, fp8 as |u1): " + ", ".join(bit_patterns))
    grid = list(record.grid) + [1] * (3 - len(record.grid))
    case = {"name": record.name, "entry": record.entry, "grid": grid, "num_warps": record.num_warps,
            "constexprs": {k: _json_value(v) for k, v in record.constexprs.items()}, "args": args}
    if notes:
        case["notes"] = "; ".join(notes)
    if record.source:
        case["source"] = record.source
    if record.capture:
        case["capture"] = record.capture
    with open(os.path.join(case_dir, "case.json"), "w") as file:
        json.dump(case, file, indent=1)
        file.write("\n")
    return case_dir


def _json_value(value):
    if isinstance(value, (bool, int, float, str)) or value is None:
        return value
    if hasattr(value, "value"):  # tl.constexpr
        return _json_value(value.value)
    return str(value)  # dtypes and anything else: their Triton spelling
