#!/usr/bin/env python3
"""The recorded Triton launches (conformance/golden, conformance/golden-extra) as TTIR *before* Triton's optimiser:
each kernel's Python source (golden/kernels.py, triton/kernels.py) goes through Triton 3.6's own front end
(`ASTSource.make_ir`, specialised like the recorded launch: the parameters' divisibility attributes, constexprs and
1-valued integers as in the recorded TTIR) and stops there, so make_ttir gets the module it gets in production —
loops to unroll, block pointers to rewrite, dot + add to fuse — instead of one it has already optimised. Writes
one case directory per launch (the recorded inputs; no expected outputs) for fuzz_triton_opt.py.

    python3 conformance/triton/frontend_corpus.py OUT_DIR [CASE_DIRS...]   (default: golden and golden-extra)
Prints one line per case that could not be rebuilt (and why); exit 0 if at least one was written.
"""
import importlib.util
import json
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
import fuzzcases  # noqa: E402

TRITON_TYPE = {"bool": "i1", "int8": "i8", "uint8": "u8", "int16": "i16", "uint16": "u16", "int32": "i32",
               "uint32": "u32", "int64": "i64", "uint64": "u64", "float16": "fp16", "bfloat16": "bf16",
               "float32": "fp32", "float64": "fp64", "float8_e4m3fn": "fp8e4nv", "float8_e5m2": "fp8e5"}
SOURCES = {"golden": os.path.join(REPO, "conformance", "golden", "kernels.py"),
           "golden-extra": os.path.join(HERE, "kernels.py")}


def load_module(path, name):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def recorded_parameters(text, entry):
    """{name: (type, divisibility or None)} of the recorded TTIR's kernel parameters."""
    found = {}
    match = re.search(r"tt\.func\s+public\s+@" + re.escape(entry) + r"\((.*?)\)\s+attributes", text, re.S)
    for piece in re.finditer(r"%([\w$.]+):\s*([^{,]+?)(?:\s*\{([^}]*)\})?\s+loc\(", match.group(1) if match else ""):
        divisibility = re.search(r"tt\.divisibility = (\d+)", piece.group(3) or "")
        found[piece.group(1)] = (piece.group(2).strip(), int(divisibility.group(1)) if divisibility else None)
    return found


def pre_optimiser_ttir(fn, case, recorded):
    """The module make_ir gives for the launch `case` of JITFunction `fn` (a string), before make_ttir."""
    from triton._C.libtriton import ir
    from triton.backends.compiler import GPUTarget
    from triton.compiler import ASTSource, make_backend
    target = GPUTarget("cuda", 90, 32)
    backend = make_backend(target)
    arguments = {a["name"]: a for a in case["args"]}
    signature, constexprs, attrs = {}, {}, {}
    for index, name in enumerate(fn.arg_names):
        if name in case.get("constexprs", {}):
            signature[name] = "constexpr"
            constexprs[name] = case["constexprs"][name]
            continue
        argument = arguments.get(name)
        if argument is None:
            param = fn.params[index]
            if param.default is not param.default.__class__ and getattr(param, "is_constexpr", False):
                signature[name] = "constexpr"
                constexprs[name] = param.default
                continue
            raise LookupError(f"argument {name} is not in case.json")
        if name not in recorded:  # Triton specialised it away (an integer equal to 1, or unused None)
            signature[name] = "constexpr"
            constexprs[name] = argument.get("value", 1)
            continue
        if argument["kind"] == "tensor":
            signature[name] = "*" + TRITON_TYPE[argument["dtype"]]
        else:
            signature[name] = recorded[name][0].replace("f32", "fp32").replace("f64", "fp64").replace("f16", "fp16")
        if recorded[name][1]:
            attrs[(index,)] = [["tt.divisibility", recorded[name][1]]]
    source = ASTSource(fn, signature, constexprs, attrs)
    options = backend.parse_options({"num_warps": case.get("num_warps", 4)})
    context = ir.context()
    ir.load_dialects(context)
    backend.load_dialects(context)
    module = source.make_ir(target, options, backend.get_codegen_implementation(options), backend.get_module_map(),
                            context)
    return str(module)


def main():
    if len(sys.argv) < 2:
        print(__doc__)
        return 2
    out = sys.argv[1]
    roots = sys.argv[2:] or [os.path.join(REPO, "conformance", "golden"),
                             os.path.join(REPO, "conformance", "golden-extra")]
    modules = {key: load_module(path, f"tilesim_kernels_{key.replace('-', '_')}") for key, path in SOURCES.items()}
    written = 0
    for case_dir in fuzzcases.find_cases(roots):
        case = fuzzcases.load_case(case_dir)
        group = "golden-extra" if "golden-extra" in case_dir else "golden"
        fn = getattr(modules[group], case["entry"], None)
        if fn is None:
            print(f"skip {os.path.relpath(case_dir, REPO)}: no kernel {case['entry']} in {SOURCES[group]}")
            continue
        with open(os.path.join(case_dir, "kernel.ttir")) as handle:
            recorded = recorded_parameters(handle.read(), case["entry"])
        try:
            text = pre_optimiser_ttir(fn, case, recorded)
        except Exception as exc:  # noqa: BLE001 - a launch we cannot rebuild is skipped, with the reason
            print(f"skip {os.path.relpath(case_dir, REPO)}: {type(exc).__name__}: {str(exc)[:200]}")
            continue
        text = text.replace(os.path.dirname(SOURCES[group]) + "/", "")
        fuzzcases.write_case(case_dir, os.path.join(out, f"frontend-{os.path.basename(case_dir)}"), case,
                             kernel_text=text, strip_reports=True, name=f"frontend-{os.path.basename(case_dir)}")
        written += 1
    print(f"wrote {written} pre-optimiser TTIR cases to {out}")
    return 0 if written else 1


if __name__ == "__main__":
    sys.exit(main())
