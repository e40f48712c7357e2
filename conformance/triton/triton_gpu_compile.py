"""The compile side of fuzz_triton_gpu.py: triton.compile of a case's kernel.ttir for sm_90 in a variant
(`make_ttir`: Triton's TTIR optimiser first; `raw`: from make_ttgir on), run in a process pool, and the stage and
reason of a failed compile."""
import json
import os
import re
import tempfile
import time
import traceback

import fuzzcases


TARGET = ("cuda", 90, 32)
VARIANTS = ("make_ttir", "raw")


# --- compiling (process pool) ----------------------------------------------------------------------------------
def prepare(task):
    """(case_dir, work_dir, variant, num_warps) -> dict(variant, ttir, ok, error, stage, seconds). Writes the
    variant's TTIR to work_dir/VARIANT.ttir and compiles it (the Triton cache keeps the binary for the launch
    worker), in a forked child: Triton's compiler can abort (an LLVM assertion) and must not take the pool down."""
    started = time.monotonic()
    log = tempfile.NamedTemporaryFile(prefix="triton-compile-", suffix=".log", delete=False)
    log.close()
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: stderr to the log, the result as JSON on the pipe
        os.close(read_end)
        code = 0
        try:
            descriptor = os.open(log.name, os.O_WRONLY)
            os.dup2(descriptor, 2)
            payload = json.dumps(_prepare(task)).encode()
            os.write(write_end, payload)
        except BaseException:  # noqa: BLE001
            code = 1
        finally:
            os._exit(code)
    os.close(write_end)
    data = b""
    while True:
        chunk = os.read(read_end, 1 << 16)
        if not chunk:
            break
        data += chunk
    os.close(read_end)
    _, status = os.waitpid(pid, 0)
    with open(log.name, errors="replace") as handle:
        stderr = handle.read()
    os.unlink(log.name)
    if data:
        result = json.loads(data)
        if not result["ok"]:
            result["error"] = (stderr[-1500:] + "\n" + result["error"]).strip()
            result["stage"] = result.get("stage") or compile_stage(result["error"])
        return result
    case_dir, work_dir, variant, _ = task
    how = f"signal {os.WTERMSIG(status)}" if os.WIFSIGNALED(status) else f"exit {os.WEXITSTATUS(status)}"
    tail = [line for line in stderr.splitlines() if line.strip()][-3:]
    return {"variant": variant, "ttir": os.path.join(work_dir, f"{variant}.ttir"), "ok": False, "stage": "crash",
            "error": f"the compiler crashed ({how}): " + " | ".join(tail), "seconds": time.monotonic() - started}


def _prepare(task):
    case_dir, work_dir, variant, num_warps = task
    started = time.monotonic()
    result = {"variant": variant, "ttir": os.path.join(work_dir, f"{variant}.ttir"), "ok": False, "error": ""}
    source = os.path.join(case_dir, "kernel.ttir")
    try:
        if variant == "make_ttir":
            import triton_passes
            stage, text = triton_passes.optimise_file(source, "make_ttir")
            if stage != "ok":
                result["error"] = f"make_ttir {stage}: {text[-800:]}"
                result["stage"] = "ttir"
                return result
            with open(source) as handle:  # keep the parameters' names (the case binds arguments by name)
                text = fuzzcases.restore_parameter_names(handle.read(), text)[0]
        else:
            with open(source) as handle:
                text = handle.read()
        with open(result["ttir"], "w") as handle:
            handle.write(text)
        try:  # MLIR's diagnostics go to fd 2: prepare() puts the child's into a log and adds it to the error
            compile_kernel(result["ttir"], num_warps)
            result["ok"] = True
        except BaseException as exc:  # noqa: BLE001 - whatever Triton raises is the answer
            result["error"] = f"{type(exc).__name__}: {exc}"
    except BaseException as exc:  # noqa: BLE001
        result["error"] = f"{type(exc).__name__}: {exc}\n{traceback.format_exc()[-800:]}"
    result["seconds"] = time.monotonic() - started
    return result


def compile_kernel(path, num_warps):
    import triton
    from triton.backends.compiler import GPUTarget
    return triton.compile(path, target=GPUTarget(*TARGET), options={"num_warps": int(num_warps)})


def compile_stage(error):
    for stage, words in (("ptxas", ("ptxas",)), ("llir", ("LLVM", "llvm", "translate")),
                         ("ttgir", ("PassManager::run failed", "ttg", "TritonGPU")), ("parse", ("parse",))):
        if any(word in error for word in words):
            return stage
    return "other"


def reason(error):
    if error.startswith("the compiler crashed"):
        return re.sub(r"/\S*/(llvm-project|triton)/", "", error)[:240]
    return _reason(error)


def _reason(error):
    """A one-line reason for a failed compile: the failing pass, or the first line that says error (without file
    positions) that is not MLIR's generic "Failures have been detected"."""
    failed_pass = re.search(r"Pipeline failed while executing \[`(\w+)`", error)
    specific = [line for line in error.splitlines() if "error" in line.lower() and "Failures have been" not in line
                and "PassManager::run failed" not in line]
    if failed_pass:
        return f"pass {failed_pass.group(1)} failed" + (": " + re.sub(r"^\S+:\d+:\d+:\s*", "", specific[0].strip())[:160]
                                                      if specific else "")
    for line in specific:
        return re.sub(r"^\S+:\d+:\d+:\s*", "", line.strip())[:200]
    for line in error.splitlines():
        if "error" in line.lower():
            return re.sub(r"^\S+:\d+:\d+:\s*", "", line.strip())[:200]
    return (error.strip().splitlines() or ["?"])[-1][:200]
