"""Records real Triton launches as conformance cases, to replay on a CPU with `tilesim conformance DIR`.

    python -m tilesim.capture -o cases/ -- python my_training.py --steps 2
    with tilesim.capture.record("cases/"): ...

While recording, every `JITFunction.run` launch (including the final launch of an `@triton.autotune` kernel —
its benchmarking runs are not recorded) is wrapped: the tensor arguments' storage spans are copied to the host
before the launch, the launch runs as usual, the device is synchronised, the spans are copied again, and the case
is written (_cases.py: TTIR, inputs, outputs, grid, num_warps, constexprs, views, aliases, bf16/fp8 as bits).
Cases are deduplicated per kernel and specialisation (`per_kernel` launches each, default 1) and skipped above
`max_bytes` of tensor data; a summary is printed at the end.

Not covered yet: kernels `torch.compile` (Inductor) launches through its own launcher (CachingAutotuner calls the
compiled binary directly, not JITFunction.run), and host TensorDescriptor arguments (skipped, with a reason).
Under `tilesim.interpret()` the "device" is tilesim itself, which is how the recorder is tested on a CPU.
"""
from __future__ import annotations

import argparse
import contextlib
import ctypes
import hashlib
import os
import runpy
import sys
from dataclasses import dataclass, field

from . import _cases, _memory


@dataclass
class Summary:
    recorded: dict = field(default_factory=dict)   # kernel -> cases written
    skipped: dict = field(default_factory=dict)    # reason -> count
    failed: list = field(default_factory=list)     # (kernel, error)

    def skip(self, reason):
        self.skipped[reason] = self.skipped.get(reason, 0) + 1

    def table(self) -> str:
        lines = [f"tilesim.capture: {sum(self.recorded.values())} case(s) from {len(self.recorded)} kernel(s)"]
        for kernel, count in sorted(self.recorded.items()):
            lines.append(f"  {kernel:40s} {count}")
        for reason, count in sorted(self.skipped.items()):
            lines.append(f"  skipped ({reason}): {count}")
        for kernel, error in self.failed:
            lines.append(f"  failed {kernel}: {error}")
        return "\n".join(lines)


def _is_torch_tensor(obj) -> bool:
    return type(obj).__module__.startswith("torch") and hasattr(obj, "untyped_storage")


def snapshot(name, obj) -> _cases.TensorSnapshot | None:
    """A host copy of the storage span an array argument covers; None for non-arrays."""
    view = _memory.view_of(obj, any_device=True)
    if view is None:
        return None
    base = obj.array if isinstance(obj, _memory.Reinterpreted) else obj
    triton_name = next(n for n in _memory._TRITON_ELEMENT if _memory._triton_dtype(n) == view.dtype)
    itemsize = {"i1": 1, "i8": 1, "i16": 2, "i32": 4, "i64": 8, "f16": 2, "bf16": 2, "f32": 4, "f64": 8,
                "f8E4M3FN": 1, "f8E5M2": 1}[view.element]
    if _is_torch_tensor(base):
        shape, strides = tuple(base.shape), tuple(base.stride())
        data = _torch_span_bytes(base, view)
    else:
        shape = tuple(base.shape)
        strides = tuple(s // itemsize for s in base.strides)
        data = ctypes.string_at(view.low, view.high - view.low)
    return _cases.TensorSnapshot(name=name, dtype=_cases.case_dtype_name(triton_name), element=view.element,
                                 itemsize=itemsize, pointer=view.pointer, low=view.low, high=view.high,
                                 shape=shape, strides=strides, storage_key=view.storage_key, data=data)


def _torch_span_bytes(tensor, view) -> bytes:
    import torch
    itemsize = tensor.element_size()
    count = (view.high - view.low) // itemsize
    offset = (view.low - tensor.untyped_storage().data_ptr()) // itemsize
    flat = torch.as_strided(tensor, (count,), (1,), offset)
    return flat.detach().contiguous().view(torch.uint8).cpu().numpy().tobytes()


class Recorder:
    def __init__(self, directory, per_kernel=1, max_bytes=256 << 20, quiet=False):
        self.directory = directory
        self.per_kernel = per_kernel
        self.max_bytes = max_bytes
        self.quiet = quiet
        self.summary = Summary()
        self.seen: dict = {}
        self.benchmarking = 0
        self.launch_path = "JITFunction.run"
        self.index = 0

    def launch(self, original, fn, args, kwargs, grid, warmup):
        if warmup or self.benchmarking:
            return original(fn, *args, grid=grid, warmup=warmup, **kwargs)
        from . import _frontend
        wrapped_args, wrapped_kwargs = _frontend.wrap_arguments(args, kwargs, any_device=True)
        bound, specialization, _ = _frontend._binder(fn)(*wrapped_args, **wrapped_kwargs)
        names = list(bound.keys())
        raw = dict(zip(names, args))
        raw.update({k: v for k, v in kwargs.items() if k in bound})
        key = (fn.cache_key, repr(specialization))
        count = self.seen.get(key, 0)
        if count >= self.per_kernel:
            self.summary.skip("duplicate specialisation")
            return original(fn, *args, grid=grid, warmup=warmup, **kwargs)
        before, reason = self._take(raw, fn, bound)
        result = original(fn, *args, grid=grid, warmup=warmup, **kwargs)
        if before is None:
            self.summary.skip(reason)
            return result
        _synchronize(raw.values())
        after, _ = self._take(raw, fn, bound)
        try:
            grid_value = grid({**bound, **raw}) if callable(grid) else grid
            self._write(fn, result, bound, raw, before, after, tuple(int(g) for g in grid_value), specialization)
            self.seen[key] = count + 1
        except Exception as error:  # a case we cannot write must not stop the user's program
            self.summary.failed.append((fn.__name__, f"{type(error).__name__}: {error}"))
        return result

    def _take(self, raw, fn, bound):
        snaps, total = {}, 0
        for name, value in raw.items():
            if type(value).__name__ == "TensorDescriptor":
                return None, "host TensorDescriptor argument"
            snap = snapshot(name, value)
            if snap is not None:
                snaps[name] = snap
                total += len(snap.data)
        if total > self.max_bytes:
            return None, f"over {self.max_bytes} bytes of tensors"
        return snaps, ""

    def _write(self, fn, compiled, bound, raw, before, after, grid, specialization):
        ttir = compiled.asm["ttir"]
        num_warps = getattr(compiled, "num_warps", None) or compiled.metadata.num_warps
        entry = next(line.split("@", 1)[1].split("(", 1)[0] for line in ttir.splitlines() if "tt.func public @" in line)
        signature = {p.name: p.is_constexpr for p in fn.params}
        arguments, constexprs = [], {}
        for name, value in bound.items():
            if signature.get(name):
                constexprs[name] = value
            elif name in before:
                arguments.append(("tensor", before[name], after[name]))
            elif isinstance(value, (bool, int, float)):
                arguments.append(("scalar", name, value))
            elif value is not None and hasattr(value, "item"):
                arguments.append(("scalar", name, value.item()))
        digest = hashlib.sha256(ttir.encode()).hexdigest()[:8]
        name = f"{fn.__name__}_{digest}_{self.seen.get((fn.cache_key, repr(specialization)), 0)}"
        record = _cases.CaseRecord(
            name=name, entry=entry, ttir=ttir, grid=grid, num_warps=num_warps, constexprs=constexprs,
            arguments=arguments, source=f"{fn.fn.__code__.co_filename}:{fn.__name__}",
            capture={"launch_path": self.launch_path, "launch_index": self.index,
                     "made_by": _made_by()})
        _cases.write_case(self.directory, record)
        self.index += 1
        self.summary.recorded[fn.__name__] = self.summary.recorded.get(fn.__name__, 0) + 1


def _made_by() -> str:
    import triton
    from . import _interpret
    if _interpret.current() is not None:
        return f"tilesim.interpret (triton {triton.__version__} front end)"
    try:
        import torch
        if torch.cuda.is_available():
            return f"triton {triton.__version__} on {torch.cuda.get_device_name()}"
    except ImportError:
        pass
    return f"triton {triton.__version__}"


def _synchronize(values):
    if any(_is_torch_tensor(v) and v.device.type == "cuda" for v in values):
        import torch
        torch.cuda.synchronize()


_active: list = []


@contextlib.contextmanager
def record(directory, per_kernel=1, max_bytes=256 << 20, quiet=False):
    """Records every Triton launch in the block as a case under `directory`; yields the Recorder."""
    from . import _interpret

    _interpret.install()  # the launch hooks live there; they hand launches to _active[-1]
    recorder = Recorder(directory, per_kernel=per_kernel, max_bytes=max_bytes, quiet=quiet)
    os.makedirs(directory, exist_ok=True)
    _active.append(recorder)
    try:
        yield recorder
    finally:
        _active.pop()
        if not quiet:
            print(recorder.summary.table(), file=sys.stderr)


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m tilesim.capture",
                                     description="Record every Triton launch of a Python program as a case.")
    parser.add_argument("-o", "--output", required=True, help="directory for the cases")
    parser.add_argument("--per-kernel", type=int, default=1, help="launches kept per kernel and specialisation")
    parser.add_argument("--max-bytes", type=int, default=256 << 20, help="skip launches with more tensor bytes")
    parser.add_argument("command", nargs=argparse.REMAINDER, help="-- [python] SCRIPT [ARGS...] | -m MODULE ...")
    options = parser.parse_args(argv)
    command = options.command[1:] if options.command[:1] == ["--"] else options.command
    if command and os.path.basename(command[0]).startswith("python"):
        command = command[1:]
    if not command:
        parser.error("no program to run (python -m tilesim.capture -o DIR -- python SCRIPT ...)")
    with record(options.output, per_kernel=options.per_kernel, max_bytes=options.max_bytes):
        if command[0] == "-m":
            sys.argv = command[1:]
            runpy.run_module(command[1], run_name="__main__", alter_sys=True)
        else:
            sys.argv = command
            runpy.run_path(command[0], run_name="__main__")
    return 0


if __name__ == "__main__":
    # Run as `python -m tilesim.capture`, this file is __main__; the hooks look for the imported module.
    from tilesim import capture as _imported
    sys.exit(_imported.main())
