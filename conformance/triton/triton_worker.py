#!/usr/bin/env python3
"""The Python side of `tilesim fuzz --engine triton` (fuzz/campaign/TritonWorker.h, docs/fuzzing.md "Real Triton
as a target"): a long-lived process, one per campaign job, that puts each program tilesim sends it through real
Triton 3.6's compiler on the CPU and answers with what came out.

Protocol (stdin/stdout, binary-safe, one request at a time):
  start-up   the worker writes `ready triton VERSION\\n`, or `unavailable REASON\\n` and exits 4 when the triton
             package (its MLIR bindings, triton._C.libtriton) cannot be imported here;
  request    `compile NUM_WARPS NBYTES\\n` followed by NBYTES of TTIR text;
  answer     `STATUS LEN1 LEN2\\n` followed by LEN1 bytes, then LEN2 bytes:
               ok           the TTIR after make_ttir's passes and the extended target-independent ones
                            (triton_passes.py), then the TTGIR after make_ttgir for sm_90 (ConvertTritonToTritonGPU
                            and the layout passes: all of them run without a GPU);
               parse        Triton's MLIR parser rejects the TTIR: LEN1 bytes of diagnostic, LEN2 = 0;
               ttir-pass    a TTIR pass failed (a verifier error, a failed pattern): the diagnostic;
               ttgir-pass   the TTIR passes ran (LEN1: their output), make_ttgir failed (LEN2: the diagnostic).
TILESIM_TRITON_PLANT (tests of the campaign's machinery, not of Triton) plants a bug: `mismatch:OLD:NEW` replaces
the first OLD in the optimised TTIR by NEW (e.g. `mismatch:arith.maxsi:arith.minsi`), `abort:OP` aborts the
process and `hang:OP` sleeps forever when the input contains OP.
A crash of Triton (an LLVM assertion: SIGABRT) ends the process: tilesim sees the pipe close, reads what Triton
printed from the worker's stderr (a file it owns) and starts a new worker. MLIR's diagnostics go to that same
file (descriptor 2), which tilesim empties before each request and adds to a failure's diagnostic; anything
Triton prints on stdout goes there too, never into the protocol.

  launch     (started with `--launcher cuda|tilesim`: triton_worker_gpu.py) `launch NBYTES\\n` followed by NBYTES
             of JSON {"case": DIR, "out": DIR, "tilesim": PATH}, answered `launched 0 0`, `compile-error LEN 0` or
             `launch-error LEN 0` + the diagnostic; the buffers are in OUT/NAME.npy.

    python3 conformance/triton/triton_worker.py [--launcher cuda|tilesim]   # then the protocol on stdin/stdout
"""
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

UNAVAILABLE = 4
CAPABILITY = 90


def load_triton():
    """(triton module, ir, passes, CUDABackend, options for num_warps) or raises ImportError."""
    import triton
    from triton._C.libtriton import ir, passes
    from triton.backends.compiler import GPUTarget
    from triton.backends.nvidia.compiler import CUDABackend
    backend = CUDABackend(GPUTarget("cuda", CAPABILITY, 32))

    def options_for(num_warps):
        return backend.parse_options({"num_warps": num_warps})

    return triton, ir, passes, CUDABackend, options_for


class Compiler:
    """One MLIR context per request (a module's types and attributes live in its context: a fresh one keeps a
    long campaign's memory flat)."""

    def __init__(self):
        self.triton, self.ir, self.passes, self.backend, self.options_for = load_triton()
        import triton_passes
        self.triton_passes = triton_passes

    def context(self):
        context = self.ir.context()
        self.ir.load_dialects(context)
        self.backend.load_dialects(None, context) if hasattr(self.backend, "load_dialects") else None
        return context

    def stage(self, action):
        """(result, None) or (None, the exception). MLIR's diagnostics go to file descriptor 2, a file tilesim
        owns and reads back after a failure (or a crash: an LLVM assertion's message is there too)."""
        try:
            return action(), None
        except BaseException as exc:  # noqa: BLE001 - whatever the bindings raise is the answer
            return None, f"{type(exc).__name__}: {exc}"

    def compile(self, text, num_warps):
        """(status, first, second): see the protocol in the module's docstring."""
        context = self.context()
        # Triton's parser takes a path: a file that lives only while it parses (a crash in a pass leaves nothing).
        with tempfile.NamedTemporaryFile("w", prefix="tilesim-triton-", suffix=".ttir", delete=False) as handle:
            handle.write(text)
        try:
            module, error = self.stage(lambda: self.ir.parse_mlir_module(handle.name, context))
        finally:
            os.unlink(handle.name)
        if error is not None:
            return "parse", error, ""
        module.context = context

        def optimise():
            self.backend.make_ttir(module, {}, None, CAPABILITY)
            manager = self.ir.pass_manager(module.context)
            for add in (self.passes.common.add_sccp, self.passes.common.add_licm, self.passes.ttir.add_triton_licm,
                        self.passes.ttir.add_loop_aware_cse, self.passes.common.add_canonicalizer,
                        self.passes.common.add_cse):
                add(manager)
            manager.run(module, "extended")
            return str(module)

        ttir, error = self.stage(optimise)
        if error is not None:
            return "ttir-pass", error, ""

        def lower():
            self.backend.make_ttgir(module, {}, self.options_for(num_warps), CAPABILITY)
            return str(module)

        ttgir, error = self.stage(lower)
        if error is not None:
            return "ttgir-pass", ttir, error
        return "ok", ttir, ttgir



def planted(spec):
    """The planted bug of TILESIM_TRITON_PLANT as (kind, args), or raises ValueError."""
    if not spec:
        return None
    kind, _, rest = spec.partition(":")
    args = rest.split(":")
    if (kind == "mismatch" and len(args) == 2 and all(args)) or (kind in ("abort", "hang") and len(args) == 1 and args[0]):
        return kind, args
    raise ValueError(f"TILESIM_TRITON_PLANT={spec!r}: expected mismatch:OLD:NEW, abort:OP or hang:OP")


def apply_plant(plant, text, status, first, second):
    if plant is None:
        return status, first, second
    kind, args = plant
    if kind == "abort" and args[0] in text:
        os.abort()
    if kind == "hang" and args[0] in text:
        import time
        time.sleep(1e6)
    if kind == "mismatch" and status in ("ok", "ttgir-pass"):
        first = first.replace(args[0], args[1], 1)
    return status, first, second


def read_request(stream):
    """("compile", num_warps, ttir) or ("launch", request dict), None at the end of the input."""
    header = stream.readline()
    if not header:
        return None
    words = header.decode("ascii", "replace").split()
    if not ((len(words) == 3 and words[0] == "compile") or (len(words) == 2 and words[0] == "launch")):
        raise ValueError(f"bad request header {header[:80]!r}")
    size = int(words[-1])
    body = stream.read(size)
    if len(body) != size:
        raise ValueError("the request ended early")
    if words[0] == "launch":
        import json
        return "launch", json.loads(body)
    return "compile", int(words[1]), body.decode("utf-8", "replace")


def answer(stream, status, first, second):
    first, second = first.encode("utf-8", "replace"), second.encode("utf-8", "replace")
    stream.write(f"{status} {len(first)} {len(second)}\n".encode() + first + second)
    stream.flush()


def main():
    requests = os.fdopen(os.dup(0), "rb")
    replies = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)  # anything Triton prints goes to stderr, not into the protocol
    try:
        plant = planted(os.environ.get("TILESIM_TRITON_PLANT", ""))
    except ValueError as exc:
        replies.write(f"unavailable {exc}\n".encode())
        replies.flush()
        return 2
    launcher = sys.argv[sys.argv.index("--launcher") + 1] if "--launcher" in sys.argv[:-1] else None
    try:
        compiler = Compiler()
        gpu = None
        if launcher is not None:
            import triton_worker_gpu
            gpu = triton_worker_gpu.GpuRunner(launcher)
    except (ImportError, ValueError) as exc:
        replies.write(f"unavailable {sys.executable}: {exc}\n".encode())
        replies.flush()
        return UNAVAILABLE
    replies.write(f"ready triton {compiler.triton.__version__}"
                  f"{'' if launcher is None else ' launcher ' + launcher}\n".encode())
    replies.flush()
    while True:
        request = read_request(requests)
        if request is None:
            return 0
        if request[0] == "launch":
            if gpu is None:
                raise ValueError("a launch request to a worker started without --launcher")
            status, text = gpu.run(request[1])
            answer(replies, status, text, "")
            if status == "launch-error" and triton_worker_gpu.cuda_error(text):
                return 3  # the CUDA context may be unusable: tilesim starts a new worker
            continue
        _, num_warps, text = request
        status, first, second = apply_plant(plant, text, *compiler.compile(text, num_warps))
        answer(replies, status, first, second)


if __name__ == "__main__":
    sys.exit(main())
