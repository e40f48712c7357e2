#!/usr/bin/env python3
"""Runs Triton 3.6's own language tests (../shared/peer/triton-3.6-tests, Triton's code: run, never copied) under
Triton's interpreter and under tilesim, and prints the table: outcomes per test function, wall time, and every
test that passes under Triton's interpreter but not under tilesim, with the first line of its failure.

    python tools/python/scripts/peer_suite.py                        # both modes, whole suite, 2 workers
    python tools/python/scripts/peer_suite.py --mode tilesim --subset conformance/peer/ci_subset.txt --require-pass
    python tools/python/scripts/peer_suite.py --mode tilesim --run-interpreter-skips

Modes: `triton` sets TRITON_INTERPRET=1; `tilesim` sets TILESIM_INTERPRET=1 (tilesim keeps TRITON_INTERPRET=1
for the suite's is_interpreter()) and TILESIM_WAIVE_FILE=conformance/peer/waivers.txt (the tests whose kernels
do what tilesim reports and the suite accepts, each with its reason). `--cache cold` gives each mode a new
TRITON_CACHE_DIR; `--cache warm` reuses one (run twice: the first run fills it). The Python used needs triton,
torch, pytest and pytest-xdist (tools/python/scripts/peer_venv.sh makes `.venv-peer`).
"""
from __future__ import annotations

import argparse
import collections
import os
import re
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ElementTree
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
DEFAULT_SUITE = ROOT.parent / "shared" / "peer" / "triton-3.6-tests"
WAIVERS = ROOT / "conformance" / "peer" / "waivers.txt"


def parse_arguments():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--suite", type=Path, default=DEFAULT_SUITE, help="the peer suite's root (pyproject.toml)")
    parser.add_argument("--python", default=str(ROOT / ".venv-peer" / "bin" / "python"),
                        help="a Python with triton, torch, pytest, pytest-xdist (default: .venv-peer)")
    parser.add_argument("--mode", choices=("both", "tilesim", "triton"), default="both")
    parser.add_argument("-n", "--workers", type=int, default=2, help="pytest-xdist workers (0: none)")
    parser.add_argument("--subset", type=Path, help="a file of test ids (one per line, # comments), else all")
    parser.add_argument("--cache", choices=("cold", "warm"), default="cold")
    parser.add_argument("--warm-dir", type=Path, default=Path(tempfile.gettempdir()) / "tilesim-peer-warm-cache")
    parser.add_argument("--run-interpreter-skips", action="store_true",
                        help="tilesim mode: run the tests the suite skips for Triton's interpreter's limits")
    parser.add_argument("--require-pass", action="store_true",
                        help="exit 1 unless every selected test passes (or skips) under tilesim")
    parser.add_argument("--out", type=Path, help="keep the junit XML files here")
    parser.add_argument("--timeout", type=int, default=3000, help="seconds per mode")
    parser.add_argument("--skip-if-missing", action="store_true",
                        help="exit 77 (ctest's skip) when the suite or the Python is not on this machine")
    args = parser.parse_args()
    if args.workers < 0:
        parser.error("--workers must be >= 0")
    missing = [what for what, ok in ((f"the suite {args.suite}", (args.suite / "pyproject.toml").is_file()),
                                     (f"the Python {args.python}", Path(args.python).exists())) if not ok]
    if missing and args.skip_if_missing:
        print(f"SKIPPED: {' and '.join(missing)} not here (tools/python/scripts/peer_venv.sh makes .venv-peer; "
              "the suite is ../shared/peer/triton-3.6-tests)")
        raise SystemExit(77)
    if missing:
        parser.error(f"{' and '.join(missing)} not here (see ../shared/peer/README.md, tools/python/scripts/peer_venv.sh)")
    if args.subset is not None and not args.subset.is_file():
        parser.error(f"--subset {args.subset}: not a file")
    return args


def read_subset(path: Path) -> list:
    ids = []
    for line in path.read_text().splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            ids.append(line)
    return ids


def environment(mode: str, args, cache_dir: str) -> dict:
    keep = ("TILESIM_EXTENSION", "TILESIM_BUILD_DIR")  # where the extension is; every other TILESIM_* is the mode's
    env = {k: v for k, v in os.environ.items()
           if k in keep or not k.startswith(("TILESIM_", "TRITON_INTERPRET", "PYTEST_PLUGINS"))}
    env["TRITON_CACHE_DIR"] = cache_dir
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT / "tools" / "python")] + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else []))
    if mode == "triton":
        env["TRITON_INTERPRET"] = "1"
    else:
        env["TILESIM_INTERPRET"] = "1"
        env["TILESIM_WAIVE_FILE"] = str(WAIVERS)
        env["TILESIM_QUIET"] = "1"
        if args.run_interpreter_skips:
            env["TILESIM_RUN_INTERPRETER_SKIPS"] = "1"
    return env


def run_mode(mode: str, args, ids: list, xml_path: Path) -> float:
    cache = str(args.warm_dir / mode) if args.cache == "warm" else tempfile.mkdtemp(prefix=f"peer-{mode}-cache-")
    command = [args.python, "-m", "pytest", "-m", "interpreter", "--device=cpu", "-q", "-p", "no:cacheprovider",
               "--tb=line", f"--junitxml={xml_path}", "-o", "junit_family=xunit2"]
    if args.workers:
        command += ["-n", str(args.workers)]
    command += ids or ["python/test/unit/language"]
    print(f"== {mode}: {len(ids) or 'all'} test ids, {args.workers} workers, {args.cache} cache", flush=True)
    start = time.monotonic()
    process = subprocess.run(command, cwd=args.suite, env=environment(mode, args, cache), timeout=args.timeout,
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    wall = time.monotonic() - start
    tail = process.stdout.strip().splitlines()[-1:] or ["(no output)"]
    print(f"   {tail[0]}  [{wall:.1f} s]", flush=True)
    if not xml_path.is_file():
        print(process.stdout[-4000:])
        raise SystemExit(f"peer_suite: pytest wrote no results in {mode} mode (exit {process.returncode})")
    return wall


def outcomes(xml_path: Path) -> dict:
    """test id -> (outcome, first line of the message)."""
    result = {}
    for case in ElementTree.parse(xml_path).iter("testcase"):
        module = case.get("classname", "").replace(".", "/")
        test_id = f"{module}.py::{case.get('name')}"
        outcome, message = "passed", ""
        for child in case:
            if child.tag in ("failure", "error"):
                outcome, message = "failed", (child.get("message") or child.text or "").strip()
            elif child.tag == "skipped":
                outcome, message = "skipped", (child.get("message") or "").strip()
        result[test_id] = (outcome, message.splitlines()[0][:200] if message else "")
    return result


def function_of(test_id: str) -> str:
    return re.sub(r"\[.*\]$", "", test_id).split("/")[-1]


def print_table(modes: dict, walls: dict):
    functions = collections.defaultdict(lambda: {m: collections.Counter() for m in modes})
    for mode, results in modes.items():
        for test_id, (outcome, _) in results.items():
            functions[function_of(test_id)][mode][outcome] += 1
    names = list(modes)
    header = "| test function | " + " | ".join(f"{m} pass/fail/skip" for m in names) + " |"
    print("\n" + header + "\n|" + "---|" * (len(names) + 1))
    for function in sorted(functions):
        cells = [f"{c['passed']}/{c['failed']}/{c['skipped']}" for c in (functions[function][m] for m in names)]
        if len(set(cells)) > 1 or any(functions[function][m]["failed"] for m in names):
            print(f"| {function} | " + " | ".join(cells) + " |")
    totals = {m: collections.Counter(o for o, _ in modes[m].values()) for m in names}
    print("| **all** (" + str(len(functions)) + " functions) | " + " | ".join(
        f"{t['passed']}/{t['failed']}/{t['skipped']}" for t in totals.values()) + " |")
    print("| wall time | " + " | ".join(f"{walls[m]:.1f} s" for m in names) + " |")
    print("(functions whose outcomes are equal in every mode and never fail are not listed)")


def print_differences(modes: dict):
    if not {"triton", "tilesim"} <= set(modes):
        return
    triton, tilesim = modes["triton"], modes["tilesim"]
    lost = sorted(t for t, (o, _) in triton.items() if o == "passed" and tilesim.get(t, ("missing", ""))[0] != "passed")
    gained = sorted(t for t, (o, _) in triton.items() if o != "passed" and tilesim.get(t, ("", ""))[0] == "passed")
    print(f"\npassed under TRITON_INTERPRET=1, not under tilesim: {len(lost)}")
    causes = collections.Counter()
    for test_id in lost:
        outcome, message = tilesim.get(test_id, ("missing", ""))
        causes[re.sub(r"\d+", "N", message)[:120]] += 1
        print(f"  {test_id}: {outcome}: {message}")
    if causes:
        print("by cause (numbers folded):")
        for cause, count in causes.most_common():
            print(f"  {count:5d}  {cause}")
    print(f"passed under tilesim, not under TRITON_INTERPRET=1 (skipped or failed there): {len(gained)}")


def main():
    args = parse_arguments()
    ids = read_subset(args.subset) if args.subset else []
    out = args.out or Path(tempfile.mkdtemp(prefix="peer-suite-"))
    out.mkdir(parents=True, exist_ok=True)
    chosen = ["triton", "tilesim"] if args.mode == "both" else [args.mode]
    print(f"peer suite: {args.suite} with {args.python}; load average {os.getloadavg()[0]:.2f} at the start, "
          f"{os.cpu_count()} cores")
    modes, walls = {}, {}
    for mode in chosen:
        xml_path = out / f"{mode}.xml"
        walls[mode] = run_mode(mode, args, ids, xml_path)
        modes[mode] = outcomes(xml_path)
    print(f"load average {os.getloadavg()[0]:.2f} at the end")
    print_table(modes, walls)
    print_differences(modes)
    if args.require_pass and "tilesim" in modes:
        failed = sorted(t for t, (o, _) in modes["tilesim"].items() if o == "failed")
        for test_id in failed:
            print(f"FAILED under tilesim: {test_id}: {modes['tilesim'][test_id][1]}")
        if failed or not modes["tilesim"]:
            raise SystemExit(1)
        print(f"all {len(modes['tilesim'])} selected tests passed or skipped under tilesim")


if __name__ == "__main__":
    main()
