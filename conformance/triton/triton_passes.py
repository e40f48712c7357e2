"""Real Triton's TTIR optimiser, run from the `triton` package's MLIR bindings (no GPU): parse a .ttir file,
run a pipeline, print the module. Used by fuzz_triton_opt.py (CPU campaign) and fuzz_triton_gpu.py.

Pipelines:
  make_ttir  exactly what `triton.compile` runs on TTIR for an sm_90 target: CUDABackend.make_ttir of the installed
             Triton is called itself (3.6.0: inliner, rewrite_tensor_pointer, canonicalizer, combine,
             reorder_broadcast, cse, symbol_dce, loop_unroll; rewrite_tensor_descriptor_to_pointer only below sm_90).
  extended   make_ttir, then the target-independent passes make_ttgir runs later on the same ops (sccp, licm,
             triton_licm, loop_aware_cse, canonicalizer, cse): they do not look at layouts, so what they do to a
             TTIR module is what they do to its TTGIR.
"""
import os
import sys
import tempfile

PIPELINES = ("make_ttir", "extended")


def _libtriton():
    from triton._C.libtriton import ir, passes  # noqa: F401 - import errors are the caller's "skipped"
    return ir, passes


def pass_list(pipeline):
    """The pass names of `pipeline`, for the record (read from the installed Triton's make_ttir source)."""
    import inspect
    from triton.backends.nvidia.compiler import CUDABackend
    import re
    source = inspect.getsource(CUDABackend.make_ttir)
    names = [f"{group}.{name}" for group, name in re.findall(r"passes\.(\w+)\.add_(\w+)\(pm", source)
             if not (name == "rewrite_tensor_descriptor_to_pointer")]  # capability 90: skipped
    if pipeline == "extended":
        names += ["common.sccp", "common.licm", "ttir.triton_licm", "ttir.loop_aware_cse", "common.canonicalizer",
                  "common.cse"]
    return names


class CapturedStderr:
    """MLIR writes its diagnostics to file descriptor 2; capture them around one call."""

    def __enter__(self):
        sys.stderr.flush()
        self.saved = os.dup(2)
        self.file = tempfile.TemporaryFile(mode="w+b")
        os.dup2(self.file.fileno(), 2)
        return self

    def __exit__(self, *exc):
        sys.stderr.flush()
        os.dup2(self.saved, 2)
        os.close(self.saved)
        self.file.seek(0)
        self.text = self.file.read().decode("utf-8", "replace").strip()
        self.file.close()
        return False


def optimise_file(path, pipeline="make_ttir", capability=90):
    """Returns (stage, text): stage 'ok' with the optimised module's text, 'parse' (Triton's MLIR parser rejected
    the file) or 'pass' (a pass failed) with the error text."""
    ir, passes = _libtriton()
    from triton.backends.nvidia.compiler import CUDABackend
    context = ir.context()
    ir.load_dialects(context)
    CUDABackend.load_dialects(None, context) if hasattr(CUDABackend, "load_dialects") else None
    with CapturedStderr() as err:
        try:
            module = ir.parse_mlir_module(path, context)
            module.context = context
        except BaseException as exc:  # noqa: BLE001 - whatever the bindings raise is the answer
            failure = f"{type(exc).__name__}: {exc}"
        else:
            failure = None
    if failure is not None:
        return "parse", (err.text + "\n" + failure).strip()
    with CapturedStderr() as err:
        try:
            CUDABackend.make_ttir(module, {}, None, capability)
            if pipeline == "extended":
                manager = ir.pass_manager(module.context)
                passes.common.add_sccp(manager)
                passes.common.add_licm(manager)
                passes.ttir.add_triton_licm(manager)
                passes.ttir.add_loop_aware_cse(manager)
                passes.common.add_canonicalizer(manager)
                passes.common.add_cse(manager)
                manager.run(module, "extended")
            text = str(module)
            failure = None
        except BaseException as exc:  # noqa: BLE001
            failure = f"{type(exc).__name__}: {exc}"
    if failure is not None:
        return "pass", (err.text + "\n" + failure).strip()
    return "ok", text


def strip_debug(path):
    """The module in `path` printed by MLIR without locations (to tell whether the optimiser changed anything)."""
    ir, _ = _libtriton()
    context = ir.context()
    ir.load_dialects(context)
    with CapturedStderr():
        module = ir.parse_mlir_module(path, context)
    return module.str_nodebug()


def worker(task):
    """ProcessPool entry: (path, pipeline) -> (stage, text, unchanged)."""
    path, pipeline = task
    stage, text = optimise_file(path, pipeline)
    unchanged = None
    if stage == "ok":
        with tempfile.NamedTemporaryFile("w", suffix=".ttir", delete=False) as handle:
            handle.write(text)
        try:
            unchanged = strip_debug(handle.name) == strip_debug(path)
        except BaseException:  # noqa: BLE001
            unchanged = None
        finally:
            os.unlink(handle.name)
    return stage, text, unchanged
