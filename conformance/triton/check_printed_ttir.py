#!/usr/bin/env python3
"""Checks on a GPU machine that real Triton accepts the TTIR tilesim prints (docs/conformance.md, "Printed TTIR
against real Triton"). Reads the corpus written by `tilesim_export_kernels CORPUS` (tools/export/):
  golden/*.ttir, anonymous/*.ttir   compiled with triton.compile(path, target=GPUTarget("cuda", 90, 32));
                                    the original conformance/golden*/CASE/kernel.ttir is compiled too, as a control
  builder/NAME/                     kernel.ttir compiled, then launched on the .npy inputs; every output buffer
                                    is compared with the interpreter's (ARG.expected.npy): bit for bit where
                                    ARG.bound.npy is 0, else |gpu - tilesim| <= bound; `unordered` outputs
                                    (tl.cat with can_reorder) are compared as sorted multisets.
Prints one table line per file and a summary; writes the details as JSON to --json.

    python3 conformance/triton/check_printed_ttir.py CORPUS [--repo .] [--json results.json] [--jobs 12]
Exit status 0 when every file compiled and every builder kernel matched, 1 otherwise.
"""
import argparse
import concurrent.futures
import glob
import json
import os
import sys
import tempfile
import traceback

import numpy as np

TARGET = ("cuda", 90, 32)


def compile_file(path):
    """Compiles one .ttir in this process; returns (ok, message). MLIR's diagnostics go to fd 2: capture them."""
    import triton
    from triton.backends.compiler import GPUTarget
    saved = os.dup(2)
    with tempfile.TemporaryFile(mode="w+b") as err:
        os.dup2(err.fileno(), 2)
        try:
            triton.compile(path, target=GPUTarget(*TARGET))
            ok, message = True, ""
        except BaseException as exc:  # noqa: BLE001 - anything Triton raises is the answer
            ok, message = False, f"{type(exc).__name__}: {exc}"
        finally:
            sys.stderr.flush()
            os.dup2(saved, 2)
            os.close(saved)
        err.seek(0)
        captured = err.read().decode("utf-8", "replace").strip()
    if not ok and captured:
        message = captured[-1500:] + "\n" + message
    return ok, message


def torch_dtype(name):
    import torch
    return {"f32": torch.float32, "f16": torch.float16, "bf16": torch.bfloat16, "f64": torch.float64,
            "f8e4m3fn": torch.float8_e4m3fn, "f8e5m2": torch.float8_e5m2, "i1": torch.bool, "i8": torch.int8,
            "i16": torch.int16, "i32": torch.int32, "i64": torch.int64}[name]


def raw_dtype(name):
    import torch
    return {1: torch.uint8, 2: torch.int16, 4: torch.int32, 8: torch.int64}[torch_dtype(name).itemsize]


def load_buffer(path, dtype):
    """A .npy as a CPU torch tensor of `dtype` (bf16/fp8 files hold raw bit patterns)."""
    import torch
    array = np.load(path)
    tensor = torch.from_numpy(np.ascontiguousarray(array))
    want = torch_dtype(dtype)
    if tensor.dtype == want:
        return tensor
    return tensor.view(raw_dtype(dtype)).view(want) if tensor.element_size() == want.itemsize else tensor.to(want)


def compare(got, expected, bound, dtype, unordered):
    """Returns (mismatches, first mismatch description)."""
    import torch
    raw_got = got.contiguous().view(raw_dtype(dtype)).flatten()
    raw_exp = expected.contiguous().view(raw_dtype(dtype)).flatten()
    bound = bound.flatten()
    if unordered:  # the element order is unspecified: compare the multisets of bit patterns
        raw_got, _ = torch.sort(raw_got)
        raw_exp, _ = torch.sort(raw_exp)
        good = raw_got == raw_exp
    elif dtype.startswith("f"):
        value_got, value_exp = got.flatten().to(torch.float64), expected.flatten().to(torch.float64)
        within = (((value_got - value_exp).abs() <= bound) | (value_got == value_exp)) & \
            (value_got.isnan() == value_exp.isnan())
        good = torch.where(bound > 0, (raw_got == raw_exp) | within, raw_got == raw_exp)
    else:
        good = raw_got == raw_exp
    bad = (~good).nonzero().flatten()
    if len(bad) == 0:
        return 0, ""
    i = int(bad[0])
    if dtype.startswith("f") and not unordered:
        return len(bad), (f"[{i}] gpu {float(got.flatten()[i])!r} (0x{int(raw_got[i]) & 0xFFFFFFFF:x}) tilesim "
                          f"{float(expected.flatten()[i])!r} (0x{int(raw_exp[i]) & 0xFFFFFFFF:x}) bound {float(bound[i])}")
    return len(bad), f"[{i}] gpu {int(raw_got[i])} tilesim {int(raw_exp[i])}"


def run_builder(directory):
    """Compiles and launches one builder kernel; returns a result dict."""
    import torch
    import triton
    from triton.backends.compiler import GPUTarget
    spec = json.load(open(os.path.join(directory, "launch.json")))
    result = {"name": os.path.basename(directory), "compiled": False, "launched": False, "outputs": {}}
    ok, message = compile_file(os.path.join(directory, "kernel.ttir"))
    if not ok:
        result["error"] = message
        return result
    result["compiled"] = True
    try:
        kernel = triton.compile(os.path.join(directory, "kernel.ttir"), target=GPUTarget(*TARGET))
        args, buffers = [], {}
        for argument in spec["arguments"]:
            if argument["kind"] == "buffer":
                tensor = load_buffer(os.path.join(directory, argument["input"]), argument["dtype"]).cuda()
                buffers[argument["name"]] = tensor
                args.append(tensor)
            else:
                args.append(int(argument["value"]))
        grid = tuple(spec["grid"])
        kernel[grid](*args)
        torch.cuda.synchronize()
        result["launched"] = True
    except BaseException as exc:  # noqa: BLE001
        result["error"] = f"{type(exc).__name__}: {exc}\n{traceback.format_exc()[-1500:]}"
        return result
    for argument in spec["arguments"]:
        if argument["kind"] != "buffer" or not argument.get("output"):
            continue
        got = buffers[argument["name"]].cpu()
        expected = load_buffer(os.path.join(directory, argument["expected"]), argument["dtype"])
        bound = torch.from_numpy(np.load(os.path.join(directory, argument["bound"])))
        mismatches, detail = compare(got, expected, bound, argument["dtype"], argument.get("unordered", False))
        result["outputs"][argument["name"]] = {
            "mismatches": mismatches, "elements": got.numel(), "detail": detail,
            "bounded": int((bound > 0).sum()), "max_bound": float(bound.max()) if bound.numel() else 0.0,
            "unordered": argument.get("unordered", False)}
    return result


def first_line(message):
    for line in message.splitlines():
        if "error" in line.lower():
            return line.strip()[:160]
    return message.strip().splitlines()[0][:160] if message.strip() else ""


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("corpus")
    parser.add_argument("--repo", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
    parser.add_argument("--json", default=None)
    parser.add_argument("--jobs", type=int, default=12)
    options = parser.parse_args()
    import triton
    print(f"triton {triton.__version__}, target {TARGET}", flush=True)

    files = []  # (group, name, path)
    for group in ("golden", "anonymous"):
        for path in sorted(glob.glob(os.path.join(options.corpus, group, "*.ttir"))):
            files.append((group, os.path.basename(path)[:-5], path))
    for path in sorted(glob.glob(os.path.join(options.corpus, "golden", "*.ttir"))):
        name = os.path.basename(path)[:-5]
        if name.startswith("golden-extra-"):
            case_set, case = "golden-extra", name[len("golden-extra-"):]
        else:
            case_set, case = "golden", name[len("golden-"):]
        files.append(("original", name, os.path.join(options.repo, "conformance", case_set, case, "kernel.ttir")))

    results = {}
    with concurrent.futures.ProcessPoolExecutor(max_workers=options.jobs) as pool:
        futures = {pool.submit(compile_file, path): (group, name) for group, name, path in files}
        for future in concurrent.futures.as_completed(futures):
            group, name = futures[future]
            try:
                results[(group, name)] = future.result(timeout=120)
            except BaseException as exc:  # noqa: BLE001
                results[(group, name)] = (False, f"{type(exc).__name__}: {exc}")

    print(f"\n{'file':<52} {'original':>8} {'printed':>8} {'no-names':>8}  error")
    summary = {"golden": [0, 0], "anonymous": [0, 0], "original": [0, 0]}
    names = sorted({name for group, name, _ in files})
    for name in names:
        cells, errors = [], []
        for group in ("original", "golden", "anonymous"):
            ok, message = results.get((group, name), (None, "missing"))
            if ok is None:
                cells.append("-")
                continue
            summary[group][0 if ok else 1] += 1
            cells.append("ok" if ok else "FAIL")
            if not ok:
                errors.append(f"{group}: {first_line(message)}")
        print(f"{name:<52} {cells[0]:>8} {cells[1]:>8} {cells[2]:>8}  {' | '.join(errors)}")

    builder = [run_builder(d) for d in sorted(glob.glob(os.path.join(options.corpus, "builder", "*"))) if os.path.isdir(d)]
    print(f"\n{'builder kernel':<20} {'output':<14} {'compile':>7} {'launch':>6} {'result':>22}  detail")
    builder_ok = 0
    for result in builder:
        good = result["launched"] and all(o["mismatches"] == 0 for o in result["outputs"].values())
        builder_ok += good
        if not result["launched"]:
            print(f"{result['name']:<20} {'-':<14} {'ok' if result['compiled'] else 'FAIL':>7} {'FAIL':>6} "
                  f"{'':>22}  {first_line(result.get('error', ''))}")
            continue
        for output, o in result["outputs"].items():
            how = "sorted" if o["unordered"] else (f"{o['bounded']} bounded" if o["bounded"] else "bit-exact")
            verdict = f"{o['elements'] - o['mismatches']}/{o['elements']} {'ok' if o['mismatches'] == 0 else 'DIFF'}"
            print(f"{result['name']:<20} {output:<14} {'ok':>7} {'ok':>6} {verdict:>22}  {how}"
                  f"{', max bound %.3g' % o['max_bound'] if o['bounded'] else ''} {o['detail']}")

    print("\nsummary:")
    for group in ("original", "golden", "anonymous"):
        print(f"  {group:<10} compiled {summary[group][0]}, rejected {summary[group][1]}")
    print(f"  builder    {builder_ok}/{len(builder)} kernels compiled, ran and matched tilesim")
    if options.json:
        with open(options.json, "w") as out:
            json.dump({"files": {f"{g}/{n}": {"ok": ok, "error": msg} for (g, n), (ok, msg) in results.items()},
                       "builder": builder}, out, indent=1)
    failed = summary["golden"][1] + summary["anonymous"][1] + (len(builder) - builder_ok)
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
