"""Records launches that do not go through `JITFunction.run`: the kernels `torch.compile` (Inductor) generates,
user kernels Inductor calls from compiled graphs, and anything else that launches a Triton `CompiledKernel`
through its own launcher.

Where the hook sits (Triton 3.6, torch 2.11). Every launcher of a compiled Triton kernel evaluates
`CompiledKernel.launch_metadata(grid, stream, *args)` just before the driver call and hands the result to
`knobs.runtime.launch_enter_hook` / `launch_exit_hook` around it:
- Triton's own `JITFunction.run`: `kernel.launch_metadata(grid, stream, *bound_args.values())`.
- Inductor's `TritonCompileResult.make_launcher` generates
  `runner(grid_0, grid_1, grid_2, stream, function, metadata, bin.launch_metadata((grid_0, grid_1, grid_2), stream,
  <call args>), launch_enter_hook, launch_exit_hook, <call args>)`; with Triton >= 3.3 the call args are all of
  `fn.arg_names`, declared constexprs included (as literals). Inductor only emits the `launch_metadata` call when
  `knobs.runtime.launch_enter_hook` is truthy (a `HookChain` always is).
So the recorder wraps `CompiledKernel.launch_metadata` — it sees the compiled kernel (`asm["ttir"]`, `metadata
.num_warps`, `src.fn` / `src.signature` / `src.constants`, `hash`), the grid and the arguments before the launch —
and adds an exit hook to `knobs.runtime.launch_exit_hook`, which runs after the driver call: there it synchronises
and takes the arguments again (plus a no-op enter hook, so the enter chain is non-empty whatever a launcher
tests). Inductor's *static* CUDA launcher (`StaticallyLaunchedCudaKernel`) calls neither; recording turns it off
(`TORCHINDUCTOR_USE_STATIC_CUDA_LAUNCHER=0`, `use_static_triton_launcher = False`).

Launches that are benchmarks (Triton's `do_bench`, the autotuners' `bench` / `benchmark_all_configs`, Inductor's
coordinate-descent tuning) are not recorded: the Python stack is looked at for those frames. Launches that
`JITFunction.run` already records (the recorder's own path, with named bound arguments) are not recorded twice.

Nothing here imports torch or needs a GPU: the tests drive it with a CompiledKernel-shaped object whose TTIR comes
from Triton's front end and whose "device" is tilesim (tests/test_compiled_hook.py).
"""
from __future__ import annotations

import os
import sys
import threading

# Function names on the stack that mean "this launch is a benchmark": Triton's testing.do_bench*, its
# Autotuner._bench, Inductor's CachingAutotuner.bench / benchmark_all_configs / autotune_to_one_config /
# coordinate_descent_tuning, and the benchmarker Inductor times launches with.
BENCHMARK_FRAMES = frozenset({
    "do_bench", "do_bench_cudagraph", "_bench", "bench", "benchmark_all_configs", "autotune_to_one_config",
    "coordinate_descent_tuning", "benchmark_gpu", "benchmark", "_benchmark", "benchmark_code",
})

_state = threading.local()
_installed: dict = {}


def in_benchmark(frame=None, depth: int = 64) -> bool:
    """Whether a frame of BENCHMARK_FRAMES is on the stack above `frame` (the caller by default)."""
    frame = frame or sys._getframe(1)
    while frame is not None and depth > 0:
        if frame.f_code.co_name in BENCHMARK_FRAMES:
            return True
        frame = frame.f_back
        depth -= 1
    return False


class jit_launch:
    """While the recorder's JITFunction.run path is inside Triton's launch, the hook leaves that launch alone."""

    def __enter__(self):
        _state.jit_depth = getattr(_state, "jit_depth", 0) + 1

    def __exit__(self, *exc):
        _state.jit_depth -= 1


def disable_static_launcher():
    """Inductor's static CUDA launcher bypasses launch_metadata and the launch hooks: turn it off (the environment
    variable for a torch not imported yet, the config attributes of one that is)."""
    os.environ["TORCHINDUCTOR_USE_STATIC_CUDA_LAUNCHER"] = "0"
    config = sys.modules.get("torch._inductor.config")
    if config is not None:
        for name in ("use_static_cuda_launcher", "use_static_triton_launcher"):
            if hasattr(config, name):
                try:
                    setattr(config, name, False)
                except Exception:  # pragma: no cover - a config that refuses: the env var still applies later
                    pass


def install(compiled_kernel_class=None, knobs=None):
    """Wraps CompiledKernel.launch_metadata and adds the exit hook, once per process. The wrapper hands each launch
    to the active recorder (tilesim.capture._active[-1]) and falls through when none is active."""
    if _installed:
        return
    if compiled_kernel_class is None:
        from triton.compiler.compiler import CompiledKernel as compiled_kernel_class
    if knobs is None:
        from triton import knobs
    original = compiled_kernel_class.launch_metadata

    def launch_metadata(self, grid, stream, *args):
        result = original(self, grid, stream, *args)
        recorder = _recorder()
        if recorder is None or getattr(_state, "jit_depth", 0) or recorder.benchmarking:
            return result
        if in_benchmark(sys._getframe(1)):
            recorder.summary.skip("benchmarking launch")
            return result
        recorder.summary.compiled_launches += 1
        if result is None:  # nothing the exit hook could be matched by (a Triton without HookChains)
            recorder.summary.skip("launch without launch metadata")
            return result
        pending = recorder.compiled_launch_begin(self, grid, args)
        if pending is not None:
            # The exit hook gets this very object; holding it keeps its id from being reused.
            _pending()[id(result)] = (result, pending)
        return result

    def exit_hook(metadata):
        table = getattr(_state, "pending", None)
        if not table:
            return
        held, pending = table.pop(id(metadata), (None, None))
        recorder = _recorder()
        if held is metadata and recorder is not None:
            recorder.compiled_launch_end(pending)

    def enter_hook(metadata):  # nothing to do; its presence makes the enter chain non-empty (below)
        pass

    compiled_kernel_class.launch_metadata = launch_metadata
    # A launcher may skip launch_metadata when no enter hook is registered (Inductor emits the call when
    # `launch_enter_hook` is truthy; a version that tests for registered hooks instead would not) and take the
    # static launcher when no hook is registered at all: register one.
    knobs.runtime.launch_enter_hook.add(enter_hook)
    knobs.runtime.launch_exit_hook.add(exit_hook)
    _installed.update(cls=compiled_kernel_class, original=original, knobs=knobs, exit_hook=exit_hook,
                      enter_hook=enter_hook)


def count_inductor_launches():
    """When torch is installed: counts the launches Inductor's CachingAutotuner.run makes while recording (not
    its benchmarks), so the summary can say whether every one reached launch_metadata (a launcher that bypasses
    it, like the static CUDA launcher, would show as a difference). Returns why not, or None."""
    if "inductor" in _installed:
        return None
    import importlib.util
    if importlib.util.find_spec("torch") is None:
        return "torch is not installed"
    try:
        from torch._inductor.runtime.triton_heuristics import CachingAutotuner
    except Exception as error:  # an Inductor without it: nothing to count
        return f"{type(error).__name__}: {error}"
    original = CachingAutotuner.run

    def run(self, *args, **kwargs):
        recorder = _recorder()
        if recorder is not None and not recorder.benchmarking and not in_benchmark(sys._getframe(1)):
            recorder.summary.inductor_runs += 1
        return original(self, *args, **kwargs)

    CachingAutotuner.run = run
    _installed["inductor"] = (CachingAutotuner, original)
    return None


def uninstall():
    if not _installed:
        return
    _installed["cls"].launch_metadata = _installed["original"]
    if "inductor" in _installed:
        _installed["inductor"][0].run = _installed["inductor"][1]
    _installed["knobs"].runtime.launch_exit_hook.remove(_installed["exit_hook"])
    _installed["knobs"].runtime.launch_enter_hook.remove(_installed["enter_hook"])
    _installed.clear()


def _pending() -> dict:
    """This thread's launches between launch_metadata and the exit hook, by id of their metadata object."""
    table = getattr(_state, "pending", None)
    if table is None:
        table = _state.pending = {}
    return table


def _recorder():
    capture = sys.modules.get("tilesim.capture")
    return capture._active[-1] if capture is not None and capture._active else None


# --- what a CompiledKernel launch means, without torch -------------------------------------------------------

class LaunchInfo:
    """One launch of a compiled kernel, described from the CompiledKernel and the launcher's arguments."""

    def __init__(self, kernel, grid, args):
        src = kernel.src
        fn = getattr(src, "fn", None)
        if fn is None:
            raise ValueError("the compiled kernel has no Python source (src.fn): not a Triton JIT kernel")
        self.kernel = kernel
        self.fn = fn
        self.name = getattr(fn, "__name__", None) or kernel.name
        self.ttir = kernel.asm["ttir"]
        from .capture import ttgir_of
        self.ttgir = ttgir_of(kernel)
        self.num_warps = int(kernel.metadata.num_warps)
        self.hash = getattr(kernel, "hash", None) or self.ttir
        grid = tuple(int(g) for g in grid)
        self.grid = grid + (1,) * (3 - len(grid))
        signature = dict(getattr(src, "signature", {}) or {})
        arg_names = list(fn.arg_names)
        declared = {p.name for p in getattr(fn, "params", []) if getattr(p, "is_constexpr", False)}
        constants = {}
        for path, value in (getattr(src, "constants", {}) or {}).items():
            index = path[0] if isinstance(path, tuple) else arg_names.index(path)
            if isinstance(path, tuple) and len(path) != 1:
                continue  # a constant inside a tuple argument
            constants[arg_names[index]] = value
        # The launcher passes every parameter (Triton >= 3.3) or only the non-constexpr ones (older Inductor).
        if len(args) == len(arg_names):
            names = arg_names
        else:
            names = [n for n in arg_names if n not in declared and signature.get(n) != "constexpr"]
            if len(names) != len(args):
                raise ValueError(f"{self.name}: the launcher passed {len(args)} argument(s); the kernel has "
                                 f"{len(arg_names)} parameter(s), {len(names)} of them not constexpr")
        self.arguments = dict(zip(names, args))
        self.constexprs = {}
        for name in arg_names:
            if name in declared:
                self.constexprs[name] = constants.get(name, self.arguments.get(name))
        for name in list(self.arguments):
            if name in declared:
                del self.arguments[name]
        # Parameters Triton specialised to constants that are not declared constexprs (an int equal to 1, None):
        # the TTIR dropped them; they stay as scalars (ints) or are left out (None), as the JITFunction path does.
        code = getattr(getattr(fn, "fn", None), "__code__", None)
        self.source = f"{code.co_filename if code else '?'}:{self.name}"

    @property
    def dedup_key(self):
        return ("compiled", self.hash)
