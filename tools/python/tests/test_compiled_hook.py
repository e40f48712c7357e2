"""Recording CompiledKernel launches that do not go through JITFunction.run (torch.compile / Inductor), on the CPU.

There is no GPU and no torch here, so the "compiled kernel" is Triton's own CompiledKernel class with its GPU
handles stubbed out, carrying the TTIR Triton's front end makes for the call (tilesim._frontend) and a real
ASTSource; the "launcher" is the code Inductor's TritonCompileResult.make_launcher generates (same argument
order, same `bin.launch_metadata(...)` call, the HookChains of triton.knobs), and its "driver" runs the TTIR on
tilesim and calls the enter and exit hooks as Triton's C launcher does. The recorded cases are then replayed by
`tilesim conformance` and must match what the "device" computed."""
import json
import os
from collections import namedtuple

import numpy as np
import pytest
import triton
import triton.language as tl
from triton import knobs
from triton.compiler import ASTSource
from triton.compiler.compiler import CompiledKernel
from triton.language.extra import libdevice

import tilesim
from replay import replay_cases
from tilesim import _compiled_hook, _frontend, capture


@triton.jit
def triton_poi_fused_add_gelu_0(in_out_ptr0, in_ptr0, xnumel, XBLOCK: tl.constexpr):
    # the shape of an Inductor pointwise kernel: bias add + exact GELU, in place
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[:]
    xmask = xindex < xnumel
    x0 = xindex
    tmp0 = tl.load(in_out_ptr0 + (x0), xmask)
    tmp1 = tl.load(in_ptr0 + (x0 % 64), xmask, eviction_policy="evict_last")
    tmp2 = tmp0 + tmp1
    tmp3 = 0.5 * tmp2 * (1.0 + libdevice.erf(tmp2 * 0.7071067811865476))
    tl.store(in_out_ptr0 + (x0), tmp3, xmask)


@triton.jit
def triton_per_fused_sum_1(in_ptr0, out_ptr0, xnumel, r0_numel, XBLOCK: tl.constexpr, R0_BLOCK: tl.constexpr):
    # the shape of an Inductor persistent reduction: row sums
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[:, None]
    xmask = xindex < xnumel
    r0_index = tl.arange(0, R0_BLOCK)[None, :]
    r0_mask = r0_index < r0_numel
    tmp0 = tl.load(in_ptr0 + (r0_index + r0_numel * xindex), xmask & r0_mask, other=0.0)
    tmp1 = tl.sum(tmp0, 1)[:, None]
    tl.store(out_ptr0 + (xindex), tmp1, xmask)


class StubCompiledKernel(CompiledKernel):
    """Triton's CompiledKernel with no GPU behind it: launch_metadata (the method the recorder wraps) is Triton's."""

    def __init__(self, src, ttir, num_warps, name, digest, ttgir=None):
        Metadata = namedtuple("KernelMetadata", ["name", "num_warps", "shared"])
        self.src = src
        self.asm = {"ttir": ttir} if ttgir is None else {"ttir": ttir, "ttgir": ttgir}
        self.metadata = Metadata(name=name, num_warps=num_warps, shared=0)
        self.name = name
        self.hash = digest
        self.module = object()  # "loaded"
        self.function = 0
        self.packed_metadata = None

    def _init_handles(self):
        pass


def compile_stub(fn, args, constexprs, num_warps=4, ttgir=None):
    """What Inductor's compile step leaves behind for this call, minus the binary: a CompiledKernel whose src is
    the ASTSource Triton compiled and whose asm["ttir"] is the TTIR of that compile."""
    wrapped, wrapped_kwargs = _frontend.wrap_arguments(args, {**constexprs, "num_warps": num_warps})
    bound, specialization, _ = _frontend._binder(fn)(*wrapped, **wrapped_kwargs)
    compiled = _frontend.compile_ttir(fn, bound, specialization, wrapped_kwargs)
    options, signature, consts, attrs = fn._pack_args(_frontend.backend(), wrapped_kwargs, bound, specialization,
                                                       None)
    src = ASTSource(fn, signature, consts, attrs)
    return StubCompiledKernel(src, compiled.ttir, num_warps, fn.__name__, src.hash(), ttgir), compiled


def make_runner(compiled):
    """The C launcher's order of events with tilesim as the device: enter hook, the kernel, exit hook."""
    names = [name for name, _ in compiled.parameters]

    def runner(grid_0, grid_1, grid_2, stream, function, metadata, launch_metadata, enter_hook, exit_hook, *args):
        if enter_hook is not None:
            enter_hook(launch_metadata)
        params = dict(zip(compiled.signature, args))
        tilesim.run_ttir(compiled.ttir, {n: params[n] for n in names}, (grid_0, grid_1, grid_2))
        if exit_hook is not None:
            exit_hook(launch_metadata)
    return runner


def inductor_launcher(binary, compiled, def_args, call_args, grid_x):
    """The launcher TritonCompileResult.make_launcher generates (torch 2.11, Triton >= 3.3: call args are all of
    fn.arg_names, declared constexprs as literals)."""
    scope = {"bin": binary, "runner": make_runner(compiled), "function": 0, "metadata": None,
             "launch_enter_hook": knobs.runtime.launch_enter_hook, "launch_exit_hook": knobs.runtime.launch_exit_hook}
    code = "\n".join([
        f"def launcher({', '.join(def_args)}, stream):",
        f"    grid_0 = {grid_x}",
        "    grid_1 = 1",
        "    grid_2 = 1",
        f"    runner(grid_0, grid_1, grid_2, stream, function, metadata, "
        f"bin.launch_metadata((grid_0, grid_1, grid_2), stream, {', '.join(call_args)}), "
        f"launch_enter_hook, launch_exit_hook, {', '.join(call_args)})",
    ])
    exec(code, scope)
    return scope["launcher"]


def load(case_dir):
    with open(os.path.join(case_dir, "case.json")) as file:
        return json.load(file)


def bench(launcher, *args):  # a benchmarking frame, by name, like CachingAutotuner.bench
    launcher(*args, stream=0)


def test_inductor_style_launches_are_recorded_and_replay(tmp_path):
    rng = np.random.default_rng(0)
    x = rng.standard_normal(1000, dtype=np.float32)
    bias = rng.standard_normal(64, dtype=np.float32)
    rows = rng.standard_normal((37, 50), dtype=np.float32)
    sums = np.zeros(37, np.float32)
    # a GPU compile has asm["ttgir"] (Triton's layouts, for Triton's reduce order on replay); the stub's text is
    # a marker the recorder must copy byte for byte; the reduce's compile has none, as tilesim.interpret's
    gelu_ttgir = '#blocked = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], ' \
                 'order = [0]}>\nmodule attributes {"ttg.num-warps" = 4 : i32} {\n}\n'
    gelu, gelu_ttir = compile_stub(triton_poi_fused_add_gelu_0, [x, bias, 1000], {"XBLOCK": 128}, ttgir=gelu_ttgir)
    reduce, reduce_ttir = compile_stub(triton_per_fused_sum_1, [rows, sums, 37, 50], {"XBLOCK": 8, "R0_BLOCK": 64},
                                       num_warps=2)
    gelu_launch = inductor_launcher(gelu, gelu_ttir, ["in_out_ptr0", "in_ptr0", "xnumel"],
                                    ["in_out_ptr0", "in_ptr0", "xnumel", "128"], "-(xnumel // -128)")
    reduce_launch = inductor_launcher(reduce, reduce_ttir, ["in_ptr0", "out_ptr0", "xnumel", "r0_numel"],
                                      ["in_ptr0", "out_ptr0", "xnumel", "r0_numel", "8", "64"], "-(xnumel // -8)")
    expected = x + np.tile(bias, 16)[:1000]
    expected = 0.5 * expected * (1 + np.vectorize(__import__("math").erf)(expected / np.sqrt(2)))
    before = x.copy()
    with capture.record(str(tmp_path), quiet=True) as recorder:
        bench(gelu_launch, x.copy(), bias, 1000)      # a benchmark: not recorded
        gelu_launch(x, bias, 1000, stream=0)
        gelu_launch(x.copy(), bias, 1000, stream=0)   # same compiled kernel: deduplicated
        reduce_launch(rows, sums, 37, 50, stream=0)
    np.testing.assert_allclose(x, expected, rtol=1e-5, atol=1e-6)  # the "device" ran, results in place
    np.testing.assert_allclose(sums, rows.sum(1), rtol=1e-5, atol=1e-5)
    summary = recorder.summary
    assert summary.failed == []
    assert summary.recorded == {"triton_poi_fused_add_gelu_0": 1, "triton_per_fused_sum_1": 1}
    assert summary.skipped == {"benchmarking launch": 1, "duplicate specialisation": 1}
    assert summary.paths == {"CompiledKernel.launch_metadata": 2}
    assert summary.compiled_launches == 3 and "seen by the launch_metadata hook: 3" in summary.table()
    cases = {load(tmp_path / name)["entry"]: (tmp_path / name) for name in os.listdir(tmp_path)}
    gelu_case = load(cases["triton_poi_fused_add_gelu_0"])
    assert gelu_case["grid"] == [8, 1, 1] and gelu_case["num_warps"] == 4
    assert gelu_case["constexprs"] == {"XBLOCK": 128}
    assert [a["name"] for a in gelu_case["args"]] == ["in_out_ptr0", "in_ptr0", "xnumel"]
    assert gelu_case["capture"]["launch_path"] == "CompiledKernel.launch_metadata"
    np.testing.assert_array_equal(np.load(cases["triton_poi_fused_add_gelu_0"] / "in_out_ptr0.npy"), before)
    np.testing.assert_array_equal(np.load(cases["triton_poi_fused_add_gelu_0"] / "in_out_ptr0.expected.npy"), x)
    reduce_case = load(cases["triton_per_fused_sum_1"])
    assert reduce_case["grid"] == [5, 1, 1] and reduce_case["num_warps"] == 2
    assert reduce_case["constexprs"] == {"XBLOCK": 8, "R0_BLOCK": 64}
    assert {a["name"]: a.get("value") for a in reduce_case["args"]}["r0_numel"] == 50
    with open(cases["triton_poi_fused_add_gelu_0"] / "kernel.ttir") as file:
        assert file.read() == gelu_ttir.ttir
    with open(cases["triton_poi_fused_add_gelu_0"] / "kernel.ttgir") as file:
        assert file.read() == gelu_ttgir
    assert not (cases["triton_per_fused_sum_1"] / "kernel.ttgir").exists()

    replay_cases(tmp_path)


def test_launches_the_jit_path_records_are_not_recorded_twice(tmp_path):
    x = np.ones(100, np.float32)
    bias = np.zeros(64, np.float32)
    gelu, gelu_ttir = compile_stub(triton_poi_fused_add_gelu_0, [x, bias, 100], {"XBLOCK": 128})
    launch = inductor_launcher(gelu, gelu_ttir, ["in_out_ptr0", "in_ptr0", "xnumel"],
                               ["in_out_ptr0", "in_ptr0", "xnumel", "128"], "-(xnumel // -128)")
    with capture.record(str(tmp_path), quiet=True) as recorder:
        with _compiled_hook.jit_launch():  # what Recorder.launch wraps Triton's own launch in
            launch(x, bias, 100, stream=0)
    assert recorder.summary.recorded == {} and os.listdir(tmp_path) == []


def test_outside_a_recording_the_hook_changes_nothing():
    x = np.ones(100, np.float32)
    bias = np.zeros(64, np.float32)
    gelu, gelu_ttir = compile_stub(triton_poi_fused_add_gelu_0, [x, bias, 100], {"XBLOCK": 128})
    _compiled_hook.install()
    metadata = gelu.launch_metadata((1, 1, 1), 0, x, bias, 100, 128)
    assert metadata.get()["name"] == "triton_poi_fused_add_gelu_0"  # Triton's LazyDict, as without the hook
    knobs.runtime.launch_exit_hook(metadata)  # no recording active: nothing happens


def test_launch_info_maps_arguments_both_ways():
    x = np.ones(100, np.float32)
    bias = np.zeros(64, np.float32)
    gelu, _ = compile_stub(triton_poi_fused_add_gelu_0, [x, bias, 100], {"XBLOCK": 128})
    full = _compiled_hook.LaunchInfo(gelu, (1,), (x, bias, 100, 128))        # Triton >= 3.3: every parameter
    short = _compiled_hook.LaunchInfo(gelu, (1, 2), (x, bias, 100))          # older launchers: constexprs left out
    for info in (full, short):
        assert list(info.arguments) == ["in_out_ptr0", "in_ptr0", "xnumel"]
        assert info.constexprs == {"XBLOCK": 128}
    assert short.grid == (1, 2, 1)
    with pytest.raises(ValueError, match="passed 2 argument"):
        _compiled_hook.LaunchInfo(gelu, (1,), (x, bias))


def test_benchmark_frames_are_found_on_the_stack():
    def do_bench():
        return _compiled_hook.in_benchmark()

    def user_code():
        return _compiled_hook.in_benchmark()
    assert do_bench() and not user_code()


def test_static_launcher_is_turned_off(monkeypatch):
    monkeypatch.delenv("TORCHINDUCTOR_USE_STATIC_CUDA_LAUNCHER", raising=False)
    _compiled_hook.disable_static_launcher()
    assert os.environ["TORCHINDUCTOR_USE_STATIC_CUDA_LAUNCHER"] == "0"
