"""Compiles and launches one case of make_golden.py with Triton on the GPU and writes its folder
(docs/conformance.md): kernel.ttir, kernel.ttgir and kernel.ptx with paths shortened, case.json, the inputs and
NAME.expected.npy for every buffer the kernel writes."""
import json
import os
import re
import shutil

import numpy as np

from golden_case import Buf, Desc, RAW, SAVE_AS, View


# ---------------------------------------------------------------------------------------------------- running
def shorten_paths(text, kernel_dir, site_dir):
    text = text.replace(kernel_dir + "/", "").replace(site_dir + "/", "")

    def short(match):
        path = match.group(1)
        k = path.rfind("/triton/")
        path = path[k + 1:] if k >= 0 else os.path.basename(path)
        return 'loc("' + path + '":'
    return re.sub(r'loc\("(/[^"]*)":', short, text)


def run_case(case, out_root, made_by):
    import torch
    import triton
    import kernels

    tdt = {"float32": torch.float32, "float64": torch.float64, "float16": torch.float16,
           "bfloat16": torch.bfloat16, "int8": torch.int8, "uint8": torch.uint8, "int16": torch.int16,
           "int32": torch.int32, "int64": torch.int64, "float8_e4m3fn": torch.float8_e4m3fn,
           "float8_e5m2": torch.float8_e5m2}

    def to_dev(buf):
        if buf.dtype in RAW:
            t = torch.from_numpy(buf.data.view(SAVE_AS[buf.dtype]).copy()).view(tdt[buf.dtype])
        else:
            t = torch.from_numpy(buf.data.copy())
        return t.cuda()

    def to_host(buf, t):
        t = t.detach().cpu()
        if buf.dtype in RAW:
            t = t.view(torch.int16 if buf.dtype == "bfloat16" else torch.uint8)
        return t.numpy().copy()

    from triton.tools.tensor_descriptor import TensorDescriptor

    # device-side tl.make_tensor_descriptor needs global scratch for the TMA descriptors it builds
    triton.set_allocator(lambda size, align, stream: torch.empty(size, dtype=torch.int8, device="cuda"))
    kern = getattr(kernels, case.kernel)
    dev, call = {}, []
    for name, v in case.args:
        if isinstance(v, Desc):
            dev[name] = to_dev(v.buf)
            call.append(TensorDescriptor(dev[name], v.shape, v.strides, v.block_shape, padding=v.padding))
        elif isinstance(v, View):
            dev[name] = dev[v.of].view(-1)[v.offset:v.offset + v.span]
            call.append(dev[name])
        elif isinstance(v, Buf):
            dev[name] = to_dev(v)
            if not getattr(v, "hidden", False):
                call.append(dev[name])
        else:
            call.append(v)
    owners = {name: v for name, v in case.args if isinstance(v, (Buf, Desc))}
    views = {name: v for name, v in case.args if isinstance(v, View)}
    before = {name: to_host(v, dev[name]) for name, v in owners.items()}
    compiled = kern[case.grid](*call, **case.constexprs, num_warps=case.num_warps)
    torch.cuda.synchronize()
    after = {name: to_host(v, dev[name]) for name, v in owners.items()}
    after.update({name: to_host(owners[v.of], dev[name]) for name, v in views.items()})

    tmp = os.path.join(out_root, case.name + ".tmp")
    shutil.rmtree(tmp, ignore_errors=True)
    os.makedirs(tmp)
    kernel_dir = os.path.dirname(os.path.abspath(kernels.__file__))
    site_dir = os.path.dirname(os.path.dirname(os.path.abspath(triton.__file__)))
    notes = case.notes
    for key, fname in (("ttir", "kernel.ttir"), ("ttgir", "kernel.ttgir"), ("ptx", "kernel.ptx")):
        text = shorten_paths(compiled.asm[key], kernel_dir, site_dir)
        if key == "ptx" and len(text) > 400_000:
            notes += f" (kernel.ptx not kept: {len(text)} bytes)"
            continue
        with open(os.path.join(tmp, fname), "w") as f:
            f.write(text)
    args_json, changed = [], []
    for name, v in case.args:
        if isinstance(v, View):
            owner = owners[v.of]
            entry = {"name": name, "kind": "tensor", "dtype": owner.dtype, "shape": [v.span], "alias_of": v.of,
                     "alias_offset": v.offset * owner.data.itemsize}
            if v.out:
                entry["expected"] = name + ".expected.npy"
                np.save(os.path.join(tmp, name + ".expected.npy"), after[name])
            args_json.append(entry)
            continue
        if isinstance(v, (Buf, Desc)):
            entry = {"name": name, "kind": "tensor", "dtype": v.dtype, "shape": list(v.data.shape),
                     "input": name + ".npy"}
            if isinstance(v, Desc):
                entry.update({"kind": "tensordesc", "desc_shape": v.shape, "desc_strides": v.strides,
                              "block_shape": v.block_shape, "padding": v.padding})
            np.save(os.path.join(tmp, name + ".npy"), before[name])
            if v.out:
                entry["expected"] = name + ".expected.npy"
                np.save(os.path.join(tmp, name + ".expected.npy"), after[name])
            elif before[name].tobytes() != after[name].tobytes():
                changed.append(name)
            args_json.append(entry)
        else:
            pytype = "bool" if isinstance(v, bool) else "int" if isinstance(v, int) else "float"
            args_json.append({"name": name, "kind": "scalar", "pytype": pytype, "value": v})
    if changed:
        raise RuntimeError(f"buffers written but not recorded as outputs: {changed}")
    meta = {"name": case.name, "entry": kern.fn.__name__, "grid": list(case.grid), "num_warps": case.num_warps,
            "args": args_json, "constexprs": case.constexprs, "notes": notes, "made_by": made_by}
    with open(os.path.join(tmp, "case.json"), "w") as f:
        json.dump(meta, f, indent=1)
    final = os.path.join(out_root, case.name)
    shutil.rmtree(final, ignore_errors=True)
    os.rename(tmp, final)
