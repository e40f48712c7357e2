"""The launch side of fuzz_triton_gpu.py: a worker process that owns the CUDA context (`fuzz_triton_gpu.py
--worker`) launches one compiled kernel a request, on the GPU or with the interpreter standing in
(`--launcher tilesim`); `Launcher` is the parent's side, restarting the worker after a CUDA error or a timeout."""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import traceback

import fuzzcases
from triton_gpu_compile import compile_kernel


# The script whose `--worker` mode runs worker_main in a process of its own.
WORKER_SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fuzz_triton_gpu.py")
CUDA_ERROR = re.compile(r"cuda|CUDA|illegal|launch failed|unspecified launch")


# --- launching (a worker process that owns the CUDA context) ---------------------------------------------------
class Pointer:
    """A pointer into another tensor's storage (an alias argument): Triton's launcher only asks for data_ptr()."""

    def __init__(self, tensor, offset):
        self.tensor, self.offset = tensor, offset

    def data_ptr(self):
        return self.tensor.data_ptr() + self.offset


def launch_cuda(request):
    """Compiles (a cache hit) and launches one kernel; writes every tensor argument to request['out']."""
    import numpy as np
    import torch
    import triton
    # Kernels that make tensor descriptors on the device (tt.make_tensor_descriptor) ask Triton's runtime for
    # global scratch; without an allocator the launch raises "Kernel requires a runtime memory allocation" (the
    # H100 campaign of 2026-12-06: every launch error of `tilesim fuzz --engine triton --triton-run gpu`).
    triton.set_allocator(lambda size, align, stream: torch.empty(size, dtype=torch.int8, device="cuda"))
    case = fuzzcases.load_case(request["case"])
    with open(request["ttir"]) as handle:
        text = handle.read()
    kernel = compile_kernel(request["ttir"], case.get("num_warps", 4))
    by_name = {a["name"]: a for a in case["args"]}
    tensors, arrays = {}, {}
    for argument in fuzzcases.tensor_args(case):
        if argument.get("alias_of"):
            continue
        array = np.ascontiguousarray(np.load(os.path.join(request["case"], argument["input"])))
        arrays[argument["name"]] = array
        raw = array.reshape(-1).view(np.uint8)
        tensors[argument["name"]] = torch.from_numpy(raw.copy()).cuda()
    args = []
    for name, type_text in fuzzcases.param_names(text, case.get("entry")):
        argument = by_name.get(name)
        if argument is None:
            raise LookupError(f"parameter %{name} ({type_text}) has no argument in case.json")
        if argument.get("kind") == "tensor":
            if argument.get("alias_of"):
                args.append(Pointer(tensors[argument["alias_of"]], int(argument.get("alias_offset", 0))))
            else:
                args.append(tensors[name])
        else:
            kind = argument.get("pytype", "int")
            value = argument["value"]
            args.append(float(value) if kind == "float" else bool(value) if kind == "bool" else int(value))
    grid = tuple(list(case.get("grid", [1, 1, 1])) + [1, 1])[:3]
    kernel[grid](*args)
    torch.cuda.synchronize()
    os.makedirs(request["out"], exist_ok=True)
    for argument in fuzzcases.tensor_args(case):
        name = argument["name"]
        if argument.get("alias_of"):
            base = tensors[argument["alias_of"]].cpu().numpy()
            size = fuzzcases.DTYPES[argument["dtype"]][0]
            count = int(np.prod(argument.get("shape", [0])))
            offset = int(argument.get("alias_offset", 0))
            template = arrays[argument["alias_of"]]
            data = base[offset:offset + count * size].view(template.dtype if template.dtype.itemsize == size
                                                           else fuzzcases.RAW[size])
            np.save(os.path.join(request["out"], name + ".npy"), data.reshape(argument.get("shape", [count])))
        else:
            template = arrays[name]
            data = tensors[name].cpu().numpy().view(template.dtype).reshape(template.shape)
            np.save(os.path.join(request["out"], name + ".npy"), data)
    return {"ok": True}


def launch_tilesim(request):
    """--launcher tilesim: the interpreter stands in for the GPU (testing this script without one)."""
    case = fuzzcases.load_case(request["case"])
    with open(request["ttir"]) as handle:
        text = handle.read()
    if request.get("variant") == "make_ttir":
        with open(os.path.join(request["case"], "kernel.ttir")) as handle:
            text = fuzzcases.restore_parameter_names(handle.read(), text, case.get("entry"))[0]
    scratch = tempfile.mkdtemp(prefix="tilesim-launch-")
    try:
        copy = fuzzcases.write_case(request["case"], scratch, case, kernel_text=text, strip_reports=True)
        run = fuzzcases.run_tilesim(request["tilesim"], copy, request["out"])
        if run.returncode not in (0, 1):
            raise RuntimeError(run.first_error())
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    plant = request.get("plant")
    if plant and plant in text:  # flip a high bit of element 0 of the first expected output (beyond any bound)
        import numpy as np
        for argument in fuzzcases.tensor_args(case):
            if argument.get("expected"):
                path = os.path.join(request["out"], argument["name"] + ".npy")
                array = np.load(path)
                flat = array.reshape(-1).view(np.uint8)
                if flat.size:
                    flat[fuzzcases.DTYPES[argument["dtype"]][0] - 1] ^= 0x40
                    np.save(path, array)
                break
    return {"ok": True}


def worker_main(launcher):
    """Reads one JSON request per line on stdin, answers one JSON line on stdout. Exits after a failed launch:
    a CUDA error can leave the context unusable, so the parent starts a fresh worker."""
    out = os.fdopen(os.dup(1), "w")
    os.dup2(2, 1)  # anything Triton prints goes to stderr, not into the protocol
    for line in sys.stdin:
        request = json.loads(line)
        started = time.monotonic()
        try:
            answer = (launch_cuda if launcher == "cuda" else launch_tilesim)(request)
        except BaseException as exc:  # noqa: BLE001
            answer = {"ok": False, "error": f"{type(exc).__name__}: {exc}"[:1500],
                      "trace": traceback.format_exc()[-1500:]}
        answer["seconds"] = time.monotonic() - started
        out.write(json.dumps(answer) + "\n")
        out.flush()
        if not answer["ok"] and CUDA_ERROR.search(answer["error"]):
            return 3  # the context may be unusable: the parent starts a fresh worker
    return 0


class Launcher:
    """The parent's side of the worker: restarts it after a failure or a timeout."""

    def __init__(self, options, log):
        self.options, self.log, self.process = options, log, None
        self.restarts = 0  # workers lost to CUDA errors or timeouts

    def start(self):
        command = [sys.executable, WORKER_SCRIPT, "--worker", self.options.launcher]
        self.process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.log,
                                        text=True, bufsize=1)

    def launch(self, request, timeout=20):
        if self.process is None or self.process.poll() is not None:
            self.start()
        request = dict(request, tilesim=self.options.tilesim, plant=self.options.plant)
        try:
            self.process.stdin.write(json.dumps(request) + "\n")
            self.process.stdin.flush()
        except BrokenPipeError:
            self.start()
            return {"ok": False, "error": "the launch worker died"}
        import select
        ready, _, _ = select.select([self.process.stdout], [], [], timeout)
        if not ready:
            self.stop()
            return {"ok": False, "error": f"timed out after {timeout} s (the kernel may not terminate)"}
        line = self.process.stdout.readline()
        if not line:
            self.stop()
            return {"ok": False, "error": f"the launch worker died (exit {self.process.poll()})"}
        answer = json.loads(line)
        if not answer["ok"] and CUDA_ERROR.search(answer["error"]) and self.process.poll() is None:
            try:
                self.process.wait(timeout=1)  # the worker exits after a CUDA error
            except subprocess.TimeoutExpired:
                pass
        if self.process.poll() is not None:
            self.restarts += 1
            self.process = None
        return answer

    def stop(self):
        if self.process:
            self.restarts += 1
        if self.process and self.process.poll() is None:
            self.process.kill()
            self.process.wait()
        self.process = None
