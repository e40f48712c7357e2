"""The judging side of fuzz_triton_gpu.py: `tilesim conformance --profile triton` over the copies of the cases
with Triton's outputs, a bit-for-bit comparison with the interpreter's, and the ops of a kernel."""
import os
import re
import subprocess

import fuzzcases


RESULT_LINE = re.compile(r"^\[\s*\d+/\d+\]\s+(PASS|FAIL|ERROR)\s+(\S+)")


# --- judging ---------------------------------------------------------------------------------------------------
def outputs_of(case):
    """The arguments whose buffers are compared: those case.json gives expected outputs for (all tensors if none)."""
    named = [a for a in fuzzcases.tensor_args(case) if a.get("expected")]
    return named or fuzzcases.tensor_args(case)


def judge_all(tilesim, directories, threads=0):
    """`tilesim conformance --profile triton` over judged case dirs: {case name: (status, text block)}."""
    if not directories:
        return {}
    command = [tilesim, "conformance", "--profile", "triton", "--threads", str(threads)] + directories
    done = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    verdicts, current = {}, None
    for line in done.stdout.decode("utf-8", "replace").splitlines():
        match = RESULT_LINE.match(line)
        if match:
            current = match.group(2)
            verdicts[current] = [match.group(1), line]
        elif current and line.startswith("  "):
            verdicts[current][1] += "\n" + line
        else:
            current = None
    return {name: tuple(value) for name, value in verdicts.items()}


def bit_exact(case_dir, case, got_dir):
    """Whether every compared output is bit for bit the interpreter's (case.json's expected files)."""
    for argument in outputs_of(case):
        if not argument.get("expected"):
            return None
        got = os.path.join(got_dir, argument["name"] + ".npy")
        if not os.path.exists(got):
            return False
        count, _ = fuzzcases.compare_bits(fuzzcases.raw_bits(got, argument["dtype"]),
                                          fuzzcases.raw_bits(os.path.join(case_dir, argument["expected"]),
                                                             argument["dtype"]), argument["dtype"])
        if count:
            return False
    return True


def judged_case(case_dir, case, got_dir, destination, name):
    expected = {a["name"]: os.path.join(got_dir, a["name"] + ".npy") for a in outputs_of(case)}
    return fuzzcases.write_case(case_dir, destination, case, expected=expected, name=name)


OP = re.compile(r"=\s*(?:\"?)([a-z_]+\.[a-z_0-9.]+)")


def op_set(text):
    return sorted(set(OP.findall(text)) | ({"tt.store"} if "tt.store" in text else set()))
