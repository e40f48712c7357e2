"""Conformance cases as the two real-Triton fuzz campaigns use them (fuzz_triton_opt.py on the CPU,
fuzz_triton_gpu.py on the H200): finding case directories, copying a case with another kernel or other expected
outputs, running `tilesim run CASE --out DIR`, comparing buffers bit for bit, and a text-level reducer of TTIR.

Only the standard library and NumPy: the GPU machine runs this without a tilesim build (it is handed a static
`tilesim` binary) and the CPU machine without torch.
"""
import collections
import json
import os
import re
import shutil
import subprocess

import numpy as np

# dtype name (case.json) -> (bytes per element, float format or None). Float formats: (exponent mask, mantissa
# mask) over the raw bits, so NaN detection needs no NumPy float type (bf16 and fp8 have none).
DTYPES = {
    "bool": (1, None), "int8": (1, None), "uint8": (1, None), "int16": (2, None), "uint16": (2, None),
    "int32": (4, None), "uint32": (4, None), "int64": (8, None), "uint64": (8, None),
    "float16": (2, (0x7C00, 0x03FF)), "bfloat16": (2, (0x7F80, 0x007F)),
    "float32": (4, (0x7F800000, 0x007FFFFF)), "float64": (8, (0x7FF0000000000000, 0x000FFFFFFFFFFFFF)),
    "float8_e5m2": (1, (0x7C, 0x03)), "float8_e4m3fn": (1, None),  # e4m3fn: only 0x7F/0xFF are NaN (below)
}
RAW = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}

REPORT_KINDS = ("out-of-bounds", "misaligned", "undefined-value", "race", "assert", "undefined-behavior",
                "unsupported", "runaway")
# a report group line (`FILE:L:C: KIND: ..., lanes 36..63 (28), ...`); the per-report detail lines are indented
REPORT_LINE = re.compile(r"^\S+:\d+:\d+: (" + "|".join(REPORT_KINDS) + r"): (?:.*?lanes [\d.]+ \((\d+)\))?")
REPORT_TOTAL = re.compile(r"; (\d+) reports?\b")


def find_cases(paths):
    """Every directory at or below `paths` that holds a case.json and a kernel.ttir, sorted."""
    found = []
    for root in paths:
        for directory, _, files in os.walk(root):
            if "case.json" in files and "kernel.ttir" in files:
                found.append(directory)
    return sorted(set(found))


def load_case(directory):
    with open(os.path.join(directory, "case.json")) as handle:
        return json.load(handle)


def raw_bits(path, dtype):
    """The buffer in `path` as unsigned integers of its element size, flattened (bf16 files are <i2, fp8 |u1)."""
    size = DTYPES[dtype][0]
    array = np.ascontiguousarray(np.load(path))
    return array.reshape(-1).view(np.uint8).view(RAW[size])


def nan_mask(bits, dtype):
    size, fmt = DTYPES[dtype]
    if dtype == "float8_e4m3fn":
        return (bits & 0x7F) == 0x7F
    if fmt is None:
        return np.zeros(bits.shape, dtype=bool)
    exponent, mantissa = (RAW[size](m) for m in fmt)
    return ((bits & exponent) == exponent) & ((bits & mantissa) != 0)


def compare_bits(got, expected, dtype):
    """Bit-for-bit comparison where two NaNs of a float dtype are equal whatever their payloads (tilesim
    canonicalises every NaN it makes; Triton and MLIR's folders need not). Returns (differing count, first index)."""
    if got.shape != expected.shape:
        return max(got.size, expected.size), -1
    same = got == expected
    if DTYPES[dtype][1] is not None or dtype == "float8_e4m3fn":
        same |= nan_mask(got, dtype) & nan_mask(expected, dtype)
    bad = np.flatnonzero(~same)
    return int(bad.size), (int(bad[0]) if bad.size else -1)


def describe_element(bits, dtype, index):
    value = int(bits[index])
    size = DTYPES[dtype][0]
    if dtype in ("float16", "float32", "float64"):
        as_float = np.array([value], dtype=RAW[size]).view({2: np.float16, 4: np.float32, 8: np.float64}[size])[0]
        return f"{float(as_float)!r} (0x{value:0{2 * size}x})"
    if dtype == "bfloat16":
        as_float = np.array([value << 16], dtype=np.uint32).view(np.float32)[0]
        return f"{float(as_float)!r} (0x{value:04x})"
    if dtype.startswith("int"):
        signed = value - (1 << (8 * size)) if value >> (8 * size - 1) else value
        return str(signed)
    return f"{value} (0x{value:0{2 * size}x})"


def tensor_args(case):
    return [a for a in case["args"] if a.get("kind") == "tensor"]


def write_case(source, destination, case, kernel_text=None, expected=None, strip_reports=False, name=None):
    """Copies case directory `source` to `destination`: the case's files (inputs, .npy), `kernel_text` as
    kernel.ttir if given, and case.json rewritten so that the outputs to compare are exactly `expected`
    ({arg name: .npy path}, copied in as NAME.expected.npy; None keeps none). `strip_reports` drops
    expect_reports / expect_report_counts, so the launch's reports are printed rather than judged."""
    os.makedirs(destination, exist_ok=True)
    for entry in os.listdir(source):
        path = os.path.join(source, entry)
        if os.path.isfile(path) and entry.endswith(".npy") and not entry.endswith(".expected.npy"):
            shutil.copyfile(path, os.path.join(destination, entry))
    if kernel_text is None:
        shutil.copyfile(os.path.join(source, "kernel.ttir"), os.path.join(destination, "kernel.ttir"))
    else:
        with open(os.path.join(destination, "kernel.ttir"), "w") as handle:
            handle.write(kernel_text)
    case = json.loads(json.dumps(case))
    if name:
        case["name"] = name
    if strip_reports:
        case.pop("expect_reports", None)
        case.pop("expect_report_counts", None)
    for argument in tensor_args(case):
        argument.pop("expected", None)
        if expected and argument["name"] in expected:
            file = argument["name"] + ".expected.npy"
            shutil.copyfile(expected[argument["name"]], os.path.join(destination, file))
            argument["expected"] = file
    with open(os.path.join(destination, "case.json"), "w") as handle:
        json.dump(case, handle, indent=1)
    return destination


class Run:
    """One `tilesim run CASE` with --out: exit code, report kinds (Counter of lanes), total reports, output."""

    def __init__(self, returncode, text, out_dir):
        self.returncode = returncode
        self.text = text
        self.out_dir = out_dir
        self.reports = collections.Counter()
        self.total_reports = 0
        for line in text.splitlines():
            match = REPORT_LINE.match(line)
            if match:
                self.reports[match.group(1)] += int(match.group(2) or 1)
        for match in REPORT_TOTAL.finditer(text):
            self.total_reports = max(self.total_reports, int(match.group(1)))
        self.diagnostic = returncode in (2, 3) or "error:" in text and returncode != 0 and not self.total_reports

    def output(self, name):
        return os.path.join(self.out_dir, name + ".npy")

    def first_error(self):
        for line in self.text.splitlines():
            if "error" in line or "FAIL" in line:
                return line.strip()[:300]
        return self.text.strip().splitlines()[-1][:300] if self.text.strip() else f"exit {self.returncode}"


def run_tilesim(tilesim, case_dir, out_dir, profile="exact", check=None, threads=1, timeout=60, engine=None,
                max_steps=None):
    """`tilesim run CASE_DIR --profile P --out OUT` (a fresh OUT): a Run. A timeout is exit code 124."""
    if os.path.isdir(out_dir):
        shutil.rmtree(out_dir)
    os.makedirs(out_dir)
    command = [tilesim, "run", case_dir, "--profile", profile, "--out", out_dir, "--threads", str(threads)]
    if check:
        command += ["--check", check]
    if engine:
        command += ["--engine", engine]
    if max_steps is not None:
        command += ["--max-steps", str(max_steps)]
    try:
        done = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=timeout)
        return Run(done.returncode, done.stdout.decode("utf-8", "replace"), out_dir)
    except subprocess.TimeoutExpired as exc:
        return Run(124, (exc.stdout or b"").decode("utf-8", "replace") + "\ntimed out", out_dir)


def compare_runs(case, before, after):
    """Every tensor argument of `case` in two Runs' --out directories. Returns a list of
    {name, dtype, elements, differ, first, before, after} for the buffers that differ."""
    differences = []
    for argument in tensor_args(case):
        name, dtype = argument["name"], argument["dtype"]
        a, b = before.output(name), after.output(name)
        if not (os.path.exists(a) and os.path.exists(b)):
            differences.append({"name": name, "dtype": dtype, "elements": 0, "differ": -1, "first": -1,
                                "before": "written" if os.path.exists(a) else "missing",
                                "after": "written" if os.path.exists(b) else "missing"})
            continue
        bits_a, bits_b = raw_bits(a, dtype), raw_bits(b, dtype)
        count, first = compare_bits(bits_b, bits_a, dtype)
        if count:
            differences.append({"name": name, "dtype": dtype, "elements": int(bits_a.size), "differ": count,
                                "first": first,
                                "before": describe_element(bits_a, dtype, first) if first >= 0 else "",
                                "after": describe_element(bits_b, dtype, first) if first >= 0 else ""})
    return differences


# --- TTIR text -------------------------------------------------------------------------------------------------
# The reducer works on the printed text of one tt.func: its body is split into top-level *units* (one op, or one
# op with its regions: the lines from the op to the closing brace that brings the depth back), each with the SSA
# names it defines and the names it uses.
NAME = re.compile(r"%([A-Za-z0-9_$.\-]+)")
SIDE_EFFECTS = ("tt.store", "tt.atomic_rmw", "tt.atomic_cas", "tt.assert", "tt.print", "tt.call", "scf.for",
                "scf.while", "scf.if", "tt.return", "cf.br", "cf.cond_br")


def _strip_locs(text):
    return re.sub(r"loc\((?:[^()]|\([^()]*\))*\)", "", text)


def function_units(text, entry=None):
    """(lines, units) for the body of tt.func `entry` (or the first public one): each unit is
    {start, end, defines, uses, op}, `end` exclusive. Returns (lines, []) if no function is found."""
    lines = text.split("\n")
    begin = None
    for i, line in enumerate(lines):
        if "tt.func" in line and (entry is None and "public" in line or entry and f"@{entry}(" in line):
            begin = i
            break
    if begin is None:
        return lines, []
    units, i = [], begin + 1
    while i < len(lines):
        line = lines[i]
        stripped = _strip_locs(line).strip()
        if stripped.startswith("}"):
            break
        start = i
        body = stripped
        # attribute dictionaries open and close on one line; only a trailing '{' opens a region
        region_depth = 1 if stripped.endswith("{") else 0
        while region_depth > 0 and i + 1 < len(lines):
            i += 1
            inner = _strip_locs(lines[i]).strip()
            body += "\n" + inner
            if inner.endswith("{"):
                region_depth += 1
            if inner.startswith("}"):  # `} else {` / `} do {` close one region and open the next
                region_depth -= 1
        head = body.split("\n")[0]
        defines = []
        match = re.match(r"^((?:%[^\s=,]+(?:\s*,\s*)?)+)\s*=", head)
        if match:
            for token in re.findall(r"%([^\s=,:]+)", match.group(1)):
                defines.append(token)
            rest = head[match.end():]
        else:
            rest = head
        op = rest.strip().split(" ")[0].split("(")[0]
        uses = set(NAME.findall(rest + "\n" + "\n".join(body.split("\n")[1:])))
        units.append({"start": start, "end": i + 1, "defines": defines, "uses": uses - set(defines),
                      "op": op})
        i += 1
    return lines, units


def unit_used(lines, units, index):
    """Whether any name unit `index` defines is used by another unit."""
    names = set(units[index]["defines"])
    if not names:
        return False
    for j, other in enumerate(units):
        if j != index and names & other["uses"]:
            return True
    return False


def remove_units(lines, units, indices):
    drop = set()
    for index in indices:
        drop.update(range(units[index]["start"], units[index]["end"]))
    return "\n".join(line for k, line in enumerate(lines) if k not in drop)


def reduce_ttir(text, still_fails, entry=None, budget=200):
    """Greedy reduction of `text`, keeping each step only if `still_fails(candidate)`:
    1. drop one root (a store or other side-effecting unit nothing uses) with the code only it needed;
    2. bypass one op: its result's uses take one of its operands instead (a candidate whose types do not match
       fails to parse, and so is rejected), then drop what is dead.
    Repeats until no step is kept or `budget` predicate calls are spent. Returns (text, calls)."""
    calls = 0
    progress = True
    while progress and calls < budget:
        progress = False
        lines, units = function_units(text, entry)
        candidates = []
        roots = sorted(range(len(units)), key=lambda k: -k)
        for index in roots:
            if units[index]["op"] in SIDE_EFFECTS and units[index]["op"] != "tt.return" and \
                    not unit_used(lines, units, index):
                candidates.append(lambda index=index: sweep_dead(remove_units(lines, units, [index]), entry))
        for index in roots:
            unit = units[index]
            if len(unit["defines"]) != 1 or unit["op"] in SIDE_EFFECTS:
                continue
            head = _strip_locs(lines[unit["start"]])
            operands = [n for n in NAME.findall(head.split("=", 1)[1]) if n not in unit["defines"]]
            for operand in dict.fromkeys(operands):
                candidates.append(lambda unit=unit, index=index, operand=operand:
                                  bypass(lines, units, index, operand, entry))
        for make in candidates:
            if calls >= budget:
                break
            candidate = make()
            if candidate is None or candidate == text:
                continue
            calls += 1
            if still_fails(candidate):
                text = candidate
                progress = True
                break
    return text, calls


def bypass(lines, units, index, operand, entry=None):
    """`text` with unit `index` removed and every use of its result replaced by `%operand`."""
    name = units[index]["defines"][0]
    pattern = re.compile(r"%" + re.escape(name) + r"(?![\w$.\-])")
    kept = []
    for k, line in enumerate(lines):
        if units[index]["start"] <= k < units[index]["end"]:
            continue
        kept.append(pattern.sub("%" + operand, line) if k >= units[index]["end"] else line)
    return sweep_dead("\n".join(kept), entry)


def sweep_dead(text, entry=None):
    """Removes units without side effects whose results nothing uses, to a fixed point."""
    while True:
        lines, units = function_units(text, entry)
        dead = [k for k, u in enumerate(units) if u["op"] not in SIDE_EFFECTS and u["defines"]
                and not unit_used(lines, units, k)]
        if not dead:
            return text
        text = remove_units(lines, units, dead)


def count_ops(text, entry=None):
    return len(function_units(text, entry)[1])


def param_names(text, entry=None):
    """The %names of the parameters of tt.func `entry` (or the first public one), in order."""
    match = re.search(r"tt\.func\s+(?:public\s+|private\s+)?@" + (re.escape(entry) if entry else r"[\w$.]+") +
                      r"\(", text)
    if not match:
        return []
    i, depth, start, params = match.end(), 1, match.end(), []
    while i < len(text) and depth:
        c = text[i]
        if c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
        i += 1
    signature = text[start:i - 1]
    depth, current = 0, ""
    pieces = []
    for c in signature:
        if c in "(<[{":
            depth += 1
        elif c in ")>]}":
            depth -= 1
        if c == "," and depth == 0:
            pieces.append(current)
            current = ""
        else:
            current += c
    if current.strip():
        pieces.append(current)
    for piece in pieces:
        m = re.match(r"\s*%([^:\s]+)\s*:\s*([^{]+?)(?:\s*\{|\s*loc\(|$)", piece)
        if m:
            params.append((m.group(1), m.group(2).strip()))
    return params


def restore_parameter_names(original, optimised, entry=None):
    """MLIR prints a parameter without a name location as `%argN`; tilesim keeps such a parameter unnamed and a
    case binds arguments by name (docs/findings.md, F1). Renames the entry function's `%argN` parameters of
    `optimised` to the names they have in `original`, position for position (Triton's TTIR passes keep a public
    kernel's signature). Returns (text, renamed count)."""
    want = [name for name, _ in param_names(original, entry)]
    have = [name for name, _ in param_names(optimised, entry)]
    if len(want) != len(have):
        return optimised, 0
    head = re.search(r"tt\.func\s+(?:public\s+)?@" + (re.escape(entry) if entry else r"[\w$.]+") + r"\(", optimised)
    if not head:
        return optimised, 0
    following = optimised.find("tt.func", head.end())
    end = following if following >= 0 else len(optimised)
    body = optimised[head.start():end]
    mapping = {}
    for position, (old, new) in enumerate(zip(have, want)):
        if old == f"arg{position}" and new != old and not re.search(r"%" + re.escape(new) + r"(?![\w$.\-])", body):
            mapping[old] = new
    if not mapping:
        return optimised, 0
    body = re.sub(r"%(arg\d+)(?![\w$.\-])", lambda m: "%" + mapping.get(m.group(1), m.group(1)), body)
    return optimised[:head.start()] + body + optimised[end:], len(mapping)
