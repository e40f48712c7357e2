#!/usr/bin/env python3
"""tilesim.interpret against TRITON_INTERPRET=1, one table: runs interpret_bench.py in subprocesses —
tilesim with checks on (all threads), checks on (1 thread), checks off (all threads), then Triton's interpreter —
on the same kernels, machine and arrays, and prints each time and the factor Triton's time / tilesim's.

    python bench/python/speedup.py [--torch] [--repeat 3] [--triton-repeat 1] [--kernel vadd ...]

`--torch` passes CPU torch tensors to both (as Triton's interpreter is used), else numpy arrays (Triton's
interpreter then reads them through numpy_tensor.py). The machine's load average before and after is printed:
on a shared machine the times are upper bounds.
"""
import argparse
import os
import subprocess
import sys

here = os.path.dirname(os.path.abspath(__file__))
parser = argparse.ArgumentParser()
parser.add_argument("--torch", action="store_true")
parser.add_argument("--repeat", type=int, default=3)
parser.add_argument("--triton-repeat", type=int, default=1)
parser.add_argument("--kernel", action="append")
parser.add_argument("--timeout", type=int, default=600)
options = parser.parse_args()

common = (["--torch"] if options.torch else []) + sum((["--kernel", k] for k in options.kernel or []), [])
modes = [("on", ["--repeat", str(options.repeat)]), ("on, 1 thr.", ["--repeat", str(options.repeat), "--threads", "1"]),
         ("off", ["--repeat", str(options.repeat), "--no-checks"]),
         ("triton", ["--triton", "--repeat", str(options.triton_repeat)])]


def load():
    with open("/proc/loadavg") as file:
        return file.read().split()[0]


print(f"# load average before: {load()}", flush=True)
times, header, failed = {}, "", False
for mode, args in modes:
    done = subprocess.run([sys.executable, os.path.join(here, "interpret_bench.py")] + args + common,
                          capture_output=True, text=True, timeout=options.timeout)
    if done.returncode != 0:  # a kernel that failed or was wrong: shown, its times left out, the rest go on
        print(f"# interpret_bench.py {' '.join(args + common)} exited {done.returncode}:")
        print("\n".join("#   " + line for line in (done.stdout + done.stderr).strip().splitlines()[-12:]))
        failed = True
    for line in done.stdout.splitlines():
        if line.startswith("#"):
            header = header or line
            print(line, flush=True)
        elif line and not line.startswith("kernel"):
            name, best = line.split()[:2]
            times.setdefault(name, {})
            if best != "-" and "WRONG" not in line:
                times[name][mode] = float(best)
print(f"# load average after: {load()}")
print(f"{'kernel':10s} {'triton s':>9s} {'on s':>8s} {'on 1t s':>8s} {'off s':>8s}   speed-up on / on 1 thr. / off")


def cell(t, m, width):
    return f"{t[m]:{width}.4f}" if m in t else f"{'-':>{width}s}"


for name, t in times.items():
    factors = " / ".join(f"{t['triton'] / t[m]:.0f}x" if "triton" in t and m in t else "-"
                         for m in ("on", "on, 1 thr.", "off"))
    print(f"{name:10s} {cell(t, 'triton', 9)} {cell(t, 'on', 8)} {cell(t, 'on, 1 thr.', 8)} {cell(t, 'off', 8)}   {factors}")
sys.exit(1 if failed else 0)
