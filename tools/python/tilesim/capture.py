"""Records real Triton launches as conformance cases, to replay on a CPU with `tilesim conformance DIR`.

    python -m tilesim.capture -o cases/ -- python my_training.py --steps 2
    with tilesim.capture.record("cases/"): ...

While recording, every `JITFunction.run` launch (including the final launch of an `@triton.autotune` kernel —
its benchmarking runs are not recorded) and every launch of a compiled kernel through another launcher (the
kernels `torch.compile` generates, launched by Inductor's CachingAutotuner: _compiled_hook.py) is wrapped: the
tensor arguments' storage spans are copied to the host before the launch, the launch runs as usual, the device
is synchronised, the spans are copied again, and the case is written (_cases.py: TTIR, inputs, outputs, grid,
num_warps, constexprs, views, aliases, bf16/fp8 as bits).
Cases are deduplicated per kernel and specialisation (`per_kernel` launches each, default 1) and skipped above
`max_bytes` of tensor data; a summary is printed at the end.

Not covered yet: host TensorDescriptor arguments (skipped, with a reason), and Inductor's static CUDA launcher
(turned off while recording, since it calls no Triton hook).
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

from . import _cases, _compiled_hook, _memory


@dataclass
class Summary:
    recorded: dict = field(default_factory=dict)   # kernel -> cases written
    skipped: dict = field(default_factory=dict)    # reason -> count
    failed: list = field(default_factory=list)     # (kernel, error)
    paths: dict = field(default_factory=dict)      # launch path -> cases written
    compiled_launches: int = 0                     # CompiledKernel launches seen by the launch_metadata hook
    inductor_runs: int = 0                         # launches by Inductor's CachingAutotuner.run (torch installed)

    def skip(self, reason):
        self.skipped[reason] = self.skipped.get(reason, 0) + 1

    def table(self) -> str:
        lines = [f"tilesim.capture: {sum(self.recorded.values())} case(s) from {len(self.recorded)} kernel(s)"]
        for kernel, count in sorted(self.recorded.items()):
            lines.append(f"  {kernel:40s} {count}")
        for path, count in sorted(self.paths.items()):
            lines.append(f"  through {path}: {count}")
        if self.compiled_launches or self.inductor_runs:
            lines.append(f"  compiled-kernel launches seen by the launch_metadata hook: {self.compiled_launches}; "
                         f"Inductor CachingAutotuner.run launches: {self.inductor_runs}"
                         + (" (some Inductor launches bypassed the hook: not recorded)"
                            if self.inductor_runs > self.compiled_launches else ""))
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
    elif _memory.is_tensor_like(base):  # CPU memory behind a tensor protocol
        shape, strides = tuple(base.shape), tuple(base.stride())
        data = ctypes.string_at(view.low, view.high - view.low)
    else:
        array = view.keep if view.keep is not None else base
        shape = tuple(array.shape)
        strides = tuple(s // itemsize for s in array.strides)
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
    def __init__(self, directory, per_kernel=1, max_bytes=256 << 20, quiet=False, max_total_bytes=None):
        self.directory = directory
        self.per_kernel = per_kernel
        self.max_bytes = max_bytes
        self.max_total_bytes = max_total_bytes
        self.quiet = quiet
        self.summary = Summary()
        self.seen: dict = {}
        self.benchmarking = 0
        self.launch_path = "JITFunction.run"
        self.index = 0
        self.written_bytes = 0

    # --- JITFunction.run launches (and the final launch of an autotuned kernel) ---------------------------------
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
            with _compiled_hook.jit_launch():
                return original(fn, *args, grid=grid, warmup=warmup, **kwargs)
        before, reason = self._take(raw)
        with _compiled_hook.jit_launch():
            result = original(fn, *args, grid=grid, warmup=warmup, **kwargs)
        if before is None:
            self.summary.skip(reason)
            return result
        _synchronize(raw.values())
        after, _ = self._take(raw)
        try:
            grid_value = grid({**bound, **raw}) if callable(grid) else grid
            signature = {p.name: p.is_constexpr for p in fn.params}
            constexprs = {name: value for name, value in bound.items() if signature.get(name)}
            arguments = [(name, value) for name, value in bound.items() if not signature.get(name)]
            ttir = result.asm["ttir"]
            num_warps = getattr(result, "num_warps", None) or result.metadata.num_warps
            self._write(fn.__name__, ttir, num_warps, constexprs, arguments, before, after,
                        tuple(int(g) for g in grid_value), f"{fn.fn.__code__.co_filename}:{fn.__name__}",
                        key, self.launch_path, ttgir_of(result))
        except Exception as error:  # a case we cannot write must not stop the user's program
            self.summary.failed.append((fn.__name__, f"{type(error).__name__}: {error}"))
        return result

    # --- CompiledKernel launches through other launchers (torch.compile / Inductor): _compiled_hook.py -----------
    def compiled_launch_begin(self, kernel, grid, args):
        """Before the driver call: describe the launch and take the arguments; None when it is not recorded."""
        try:
            info = _compiled_hook.LaunchInfo(kernel, grid, args)
        except Exception as error:
            self.summary.failed.append((getattr(kernel, "name", "?"), f"{type(error).__name__}: {error}"))
            return None
        if self.seen.get(info.dedup_key, 0) >= self.per_kernel:
            self.summary.skip("duplicate specialisation")
            return None
        try:
            before, reason = self._take(info.arguments)
        except Exception as error:
            self.summary.failed.append((info.name, f"{type(error).__name__}: {error}"))
            return None
        if before is None:
            self.summary.skip(reason)
            return None
        return info, before

    def compiled_launch_end(self, pending):
        """After the driver call: synchronise, take the arguments again, write the case."""
        info, before = pending
        try:
            _synchronize(info.arguments.values())
            after, _ = self._take(info.arguments)
            self._write(info.name, info.ttir, info.num_warps, info.constexprs, list(info.arguments.items()),
                        before, after, info.grid, info.source, info.dedup_key, "CompiledKernel.launch_metadata",
                        info.ttgir)
        except Exception as error:
            self.summary.failed.append((info.name, f"{type(error).__name__}: {error}"))

    def _take(self, raw):
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
        if self.max_total_bytes is not None and self.written_bytes + 2 * total > self.max_total_bytes:
            return None, f"over the total of {self.max_total_bytes} bytes"
        return snaps, ""

    def _write(self, kernel_name, ttir, num_warps, constexprs, arguments, before, after, grid, source, key,
               launch_path, ttgir=""):
        """Writes one case: `arguments` are (name, value) in call order, constexprs excluded."""
        entry = next(line.split("@", 1)[1].split("(", 1)[0] for line in ttir.splitlines() if "tt.func public @" in line)
        case_arguments = []
        for name, value in arguments:
            if name in before:
                case_arguments.append(("tensor", before[name], after[name]))
            elif isinstance(value, (bool, int, float)):
                case_arguments.append(("scalar", name, value))
            elif value is not None and hasattr(value, "item"):
                case_arguments.append(("scalar", name, value.item()))
        count = self.seen.get(key, 0)
        digest = hashlib.sha256(ttir.encode()).hexdigest()[:8]
        record = _cases.CaseRecord(
            name=f"{kernel_name}_{digest}_{count}", entry=entry, ttir=ttir, grid=grid, num_warps=int(num_warps),
            constexprs=constexprs, arguments=case_arguments, source=source,
            capture={"launch_path": launch_path, "launch_index": self.index, "made_by": _made_by()}, ttgir=ttgir)
        _cases.write_case(self.directory, record)
        self.seen[key] = count + 1
        self.index += 1
        self.written_bytes += sum(len(before[n].data) + len(after[n].data) for n in before)
        self.summary.recorded[kernel_name] = self.summary.recorded.get(kernel_name, 0) + 1
        self.summary.paths[launch_path] = self.summary.paths.get(launch_path, 0) + 1


def ttgir_of(compiled) -> str:
    """compiled.asm["ttgir"] of a CompiledKernel (Triton's layouts, so replay combines reductions in Triton's order);
    "" when there is none (tilesim.interpret's compiles stop at TTIR)."""
    asm = getattr(compiled, "asm", None)
    try:
        text = asm.get("ttgir", "") if asm is not None else ""
    except Exception:  # an asm mapping that cannot be read must not lose the case
        return ""
    return text if isinstance(text, str) else ""


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
def record(directory, per_kernel=1, max_bytes=256 << 20, quiet=False, max_total_bytes=None):
    """Records every Triton launch in the block as a case under `directory`; yields the Recorder.
    `max_bytes`: skip a launch with more tensor bytes; `max_total_bytes`: stop recording once the cases written
    hold that many (inputs and outputs together)."""
    from . import _interpret

    _interpret.install()  # the JITFunction.run / Autotuner.run hooks; they hand launches to _active[-1]
    _compiled_hook.install()  # CompiledKernel launches through other launchers (torch.compile)
    _compiled_hook.disable_static_launcher()
    _compiled_hook.count_inductor_launches()  # torch installed: to check that every Inductor launch was seen
    recorder = Recorder(directory, per_kernel=per_kernel, max_bytes=max_bytes, quiet=quiet,
                        max_total_bytes=max_total_bytes)
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
    parser.add_argument("--max-total-bytes", type=int, default=None,
                        help="stop recording once the cases written hold this many tensor bytes")
    parser.add_argument("command", nargs=argparse.REMAINDER, help="-- [python] SCRIPT [ARGS...] | -m MODULE ...")
    options = parser.parse_args(argv)
    command = options.command[1:] if options.command[:1] == ["--"] else options.command
    if command and os.path.basename(command[0]).startswith("python"):
        command = command[1:]
    if not command:
        parser.error("no program to run (python -m tilesim.capture -o DIR -- python SCRIPT ...)")
    with record(options.output, per_kernel=options.per_kernel, max_bytes=options.max_bytes,
                max_total_bytes=options.max_total_bytes):
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
