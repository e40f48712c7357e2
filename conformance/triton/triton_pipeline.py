#!/usr/bin/env python3
"""Triton 3.6's own pipeline, one pass at a time, on the CPU (`tilesim passes`, `tilesim fuzz --engine
triton-passes`; docs/ttgir.md "Pass by pass"). The installed Triton's CUDABackend.make_ttir and make_ttgir are
called with a recording pass manager: every `passes.X.add_Y(pm, ...)` they make (for this capability, num_warps
and num_stages, through their own control flow) is recorded instead of added; each recorded pass is then run
alone in a pass manager of its own, and the module is printed after each. So the list is exactly what
`triton.compile` runs, read from Triton itself, never copied here.

Fault injection (tests of the localisation, not of Triton): after pass K the printed module gets one deliberate
wrong rewrite (INJECTIONS below), is parsed back, and the pipeline goes on from it.

    python3 triton_pipeline.py --ttir FILE --out DIR [--capability 80|90] [--num-warps N] [--num-stages N]
                               [--inject-after K --inject KIND]

writes DIR/000-input.mlir, DIR/001-common.inliner.mlir, ... and DIR/manifest.tsv, one line per module:
`INDEX<TAB>PASS<TAB>FILE<TAB>STATUS` (STATUS ok; injected, or not-injected when the rewrite found nothing to
change; failed: the pass failed, its diagnostic in FILE, and no module follows; running, FILE `-`, last: the pass
that was running when the process died). Exit 0 when it ran (a failed pass included), 2 for bad arguments or an input Triton's
parser rejects (the message on stderr), 4 when the triton package cannot be imported here.
"""
import argparse
import os
import re
import sys
import tempfile
import types

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

UNAVAILABLE = 4
BAD_INPUT = 2


def _flip_addf(text):
    return re.sub(r"\barith\.addf\b", "arith.subf", text, count=1)


_PREDICATE_NEXT = {"slt": "sle", "sle": "slt", "sgt": "sge", "sge": "sgt", "ult": "ule", "ule": "ult", "ugt": "uge",
                   "uge": "ugt", "eq": "ne", "ne": "eq"}


def _flip_cmpi(text):
    return re.sub(r"\barith\.cmpi (\w+),", lambda m: f"arith.cmpi {_PREDICATE_NEXT[m.group(1)]},", text, count=1)


def _shift_make_range(text):
    # start and end both +1: the shape still verifies, every index is one too far.
    return re.sub(r"\btt\.make_range \{end = (\d+) : i32, start = (\d+) : i32\}",
                  lambda m: f"tt.make_range {{end = {int(m.group(1)) + 1} : i32, start = {int(m.group(2)) + 1} : i32}}",
                  text, count=1)


def _drop_async_wait(text):
    # `%t = ttg.async_wait %a {num = 0 : i32}`: the token it returns becomes the one it waited on.
    return re.sub(r"(%[\w#]+) = ttg\.async_wait (%[\w#]+)[^\n]*\{num = \d+ : i32\}[^\n]*",
                  lambda m: f"{m.group(1)} = ttg.async_commit_group tokens {m.group(2)}", text, count=1)


# KIND -> (what it does, rewrite: text -> text, unchanged when it does not apply).
INJECTIONS = {
    "addf-to-subf": ("the first arith.addf becomes arith.subf", _flip_addf),
    "cmpi-predicate": ("the first arith.cmpi's predicate is off by one (slt <-> sle, ...; eq <-> ne)", _flip_cmpi),
    "make-range-shift": ("the first tt.make_range starts and ends one later", _shift_make_range),
    "drop-async-wait": ("the first ttg.async_wait waits for nothing (an async_commit_group of its tokens)",
                        _drop_async_wait),
}


class _Recorder:
    """Stands in for `passes` / `nvidia.passes` inside make_ttir and make_ttgir: `X.add_Y(pm, *args)` appends
    (`X.Y`, the real add_Y, args) to the list instead of adding the pass."""

    def __init__(self, real, recorded, prefix=""):
        self._real, self._recorded, self._prefix = real, recorded, prefix

    def __getattr__(self, name):
        attribute = getattr(self._real, name)
        if name.startswith("add_") and callable(attribute):
            def record(_pm, *args):
                self._recorded.append((self._prefix + name[len("add_"):], attribute, args))
            return record
        if isinstance(attribute, types.ModuleType) or not callable(attribute):
            return _Recorder(attribute, self._recorded, self._prefix + name + ".")
        return attribute


class _FakeManager:
    def enable_debug(self):
        return False

    def run(self, *_):
        pass


class _FakeModule:
    def __init__(self, module):
        self.context = module.context
        self.attributes = []

    def set_attr(self, name, value):
        self.attributes.append((name, value))

    def get_tensordesc_metadata(self):
        return {}


def recorded_pipeline(backend_class, module, options, capability):
    """[(name, add function, args)] of make_ttir then make_ttgir, and the module attributes they set."""
    import triton.backends.nvidia.compiler as compiler
    recorded = []
    fake_ir = types.SimpleNamespace(**{k: getattr(compiler.ir, k) for k in dir(compiler.ir) if not k.startswith("__")})
    fake_ir.pass_manager = lambda _context: _FakeManager()
    fake_globals = dict(compiler.__dict__)
    fake_globals.update(ir=fake_ir, passes=_Recorder(compiler.passes, recorded),
                        nvidia=_Recorder(compiler.nvidia, recorded, ""))
    fake_module = _FakeModule(module)
    for stage in ("make_ttir", "make_ttgir"):
        function = getattr(backend_class, stage)
        function = getattr(function, "__func__", function)
        replay = types.FunctionType(function.__code__, fake_globals, function.__name__, function.__defaults__,
                                    function.__closure__)
        replay(fake_module, {}, options, capability)
    names = [(name.replace("passes.", "").replace("ttnvgpuir.", "ttng.").replace("ttgpuir.", "ttg."), add, args)
             for name, add, args in recorded]
    return names, fake_module.attributes


def _parse(ir, text, context):
    with tempfile.NamedTemporaryFile("w", prefix="tilesim-passes-", suffix=".mlir", delete=False) as handle:
        handle.write(text)
    try:
        module = ir.parse_mlir_module(handle.name, context)
    finally:
        os.unlink(handle.name)
    module.context = context
    return module


def run_pipeline(text, capability, num_warps, num_stages, inject_after=None, inject=None, emit=None):
    """[(name, status, text)]: the input (name 'input'), then each pass's module (status ok / injected), or the
    failing pass's diagnostic (status failed, last). `emit(index, name, status, text)` is called as each comes
    (a pass that aborts the process leaves the ones before it). Raises ValueError when Triton's parser rejects
    `text` and ImportError without triton."""
    from triton._C.libtriton import ir
    from triton.backends.compiler import GPUTarget
    from triton.backends.nvidia.compiler import CUDABackend
    from triton_passes import CapturedStderr
    backend = CUDABackend(GPUTarget("cuda", capability, 32))
    options = backend.parse_options({"num_warps": num_warps, "num_stages": num_stages})
    context = ir.context()
    ir.load_dialects(context)
    backend.load_dialects(context)
    with CapturedStderr() as err:
        try:
            module = _parse(ir, text, context)
        except BaseException as exc:  # noqa: BLE001 - whatever the bindings raise is the answer
            module, failure = None, f"{type(exc).__name__}: {exc}"
    if module is None:
        raise ValueError((err.text + "\n" + failure).strip())
    pipeline, attributes = recorded_pipeline(CUDABackend, module, options, capability)
    if inject_after is not None and not 1 <= inject_after <= len(pipeline):
        raise IndexError(f"--inject-after {inject_after}: the pipeline has passes 1 to {len(pipeline)}")
    for name, value in attributes:
        module.set_attr(name, value)
    results = []

    def add(name, status, after):
        results.append((name, status, after))
        if emit is not None:
            emit(len(results) - 1, name, status, after)

    add("input", "ok", str(module))
    for index, (name, add_pass, args) in enumerate(pipeline, start=1):
        if emit is not None:
            emit(index, name, "running", "")
        with CapturedStderr() as err:
            try:
                manager = ir.pass_manager(module.context)
                add_pass(manager, *args)
                manager.run(module, name)
                after, failure = str(module), None
            except BaseException as exc:  # noqa: BLE001
                failure = f"{type(exc).__name__}: {exc}"
        if failure is not None:
            add(name, "failed", (err.text + "\n" + failure).strip())
            return results
        status = "ok"
        if inject_after == index:
            rewritten = INJECTIONS[inject][1](after)
            status = "injected" if rewritten != after else "not-injected"
            if rewritten != after:
                module = _parse(ir, rewritten, context)
                after = str(module)
        add(name, status, after)
    return results


def file_name(index, name, status):
    return f"{index:03d}-{re.sub(r'[^A-Za-z0-9_.]', '_', name)}.{'error' if status == 'failed' else 'mlir'}"


class ResultWriter:
    """Writes each module as it comes, and its manifest line; `running` lines say which pass runs now (the one
    to blame when the process dies: the line is replaced when the pass ends)."""

    def __init__(self, out):
        os.makedirs(out, exist_ok=True)
        self.out, self.lines = out, []

    def __call__(self, index, name, status, text):
        if status != "running":
            path = file_name(index, name, status)
            with open(os.path.join(self.out, path), "w") as handle:
                handle.write(text if text.endswith("\n") else text + "\n")
            self.lines.append(f"{index}\t{name}\t{path}\t{status}\n")
            running = []
        else:
            running = [f"{index}\t{name}\t-\trunning\n"]
        with open(os.path.join(self.out, "manifest.tsv"), "w") as handle:
            handle.writelines(self.lines + running)


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--ttir", required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("--capability", type=int, choices=(80, 90), default=90)
    parser.add_argument("--num-warps", type=int, default=4, choices=(1, 2, 4, 8, 16, 32))
    parser.add_argument("--num-stages", type=int, default=3, choices=range(1, 9))
    parser.add_argument("--inject-after", type=int)
    parser.add_argument("--inject", choices=sorted(INJECTIONS))
    args = parser.parse_args(argv)
    if (args.inject_after is None) != (args.inject is None):
        parser.error("--inject-after and --inject go together")
    planted = os.environ.get("TILESIM_TRITON_PLANT_PASS", "")
    if planted and args.inject is None:  # tests of `tilesim fuzz --engine triton-passes`: K:KIND for every program
        after, _, kind = planted.partition(":")
        if not after.isdigit() or kind not in INJECTIONS:
            parser.error(f"TILESIM_TRITON_PLANT_PASS={planted!r}: expected K:KIND, KIND one of {sorted(INJECTIONS)}")
        args.inject_after, args.inject = int(after), kind
    try:
        with open(args.ttir) as handle:
            text = handle.read()
    except OSError as exc:
        print(f"error: {args.ttir}: {exc.strerror}", file=sys.stderr)
        return BAD_INPUT
    try:
        import triton  # noqa: F401
        from triton._C.libtriton import ir  # noqa: F401
    except ImportError as exc:
        print(f"unavailable {sys.executable}: {exc}", file=sys.stderr)
        return UNAVAILABLE
    try:
        run_pipeline(text, args.capability, args.num_warps, args.num_stages, args.inject_after, args.inject,
                     ResultWriter(args.out))
    except ValueError as exc:
        print(f"error: Triton's parser rejects {args.ttir}:\n{exc}", file=sys.stderr)
        return BAD_INPUT
    except IndexError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return BAD_INPUT
    except OSError as exc:
        print(f"error: {args.out}: {exc.strerror}", file=sys.stderr)
        return BAD_INPUT
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
