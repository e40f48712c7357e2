"""The GPU half of triton_worker.py (`tilesim fuzz --engine triton --triton-run gpu`): a `launch` request names a
conformance case the campaign wrote for one program; Triton compiles its kernel.ttir for sm_90 after its own TTIR
passes (triton_gpu_compile._prepare, variant make_ttir, as a Python kernel is compiled) and launches it
(triton_gpu_launch.launch_cuda: torch tensors on the GPU, arguments in the TTIR's parameter order), writing every
buffer argument to OUT/NAME.npy. With the `tilesim` launcher the interpreter stands in for the GPU
(triton_gpu_launch.launch_tilesim: the compile is real, the outputs are tilesim's), so the path is tested without
a GPU. After a CUDA error the worker exits once it has answered: the context may be unusable."""
import os
import shutil
import tempfile

import fuzzcases
import triton_gpu_compile
import triton_gpu_launch

LAUNCHERS = ("cuda", "tilesim")


class GpuRunner:
    def __init__(self, launcher):
        if launcher not in LAUNCHERS:
            raise ValueError(f"--launcher {launcher!r}: expected cuda or tilesim")
        if launcher == "cuda":
            import torch
            if not torch.cuda.is_available():
                raise ImportError("torch sees no CUDA device (torch.cuda.is_available() is False)")
        self.launch = triton_gpu_launch.launch_cuda if launcher == "cuda" else triton_gpu_launch.launch_tilesim

    def run(self, request):
        """(status, text): launched, compile-error (the diagnostic) or launch-error (the exception)."""
        case_dir, out = request["case"], request["out"]
        case = fuzzcases.load_case(case_dir)
        work = tempfile.mkdtemp(prefix="tilesim-triton-gpu-")
        try:
            # Triton's diagnostics (and an abort's assertion message) go to fd 2: tilesim reads them back.
            result = triton_gpu_compile._prepare((case_dir, work, "make_ttir", case.get("num_warps", 4)))
            if not result["ok"]:
                return "compile-error", result["error"]
            try:
                self.launch({"case": case_dir, "ttir": result["ttir"], "out": out, "variant": "make_ttir",
                             "tilesim": request.get("tilesim"), "plant": None})
            except BaseException as exc:  # noqa: BLE001 - whatever the launch raises is the answer
                return "launch-error", f"{type(exc).__name__}: {exc}"[:2000]
            return "launched", ""
        finally:
            shutil.rmtree(work, ignore_errors=True)


def cuda_error(text):
    return bool(triton_gpu_launch.CUDA_ERROR.search(text))
