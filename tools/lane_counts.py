#!/usr/bin/env python3
"""Sums the per-output lane classes that `tilesim conformance` prints, per suite.

Usage: tools/lane_counts.py TILESIM [--] DIR... [-- extra tilesim conformance options]
Prints one line per DIR: cases passed/failed, and lanes bit-exact / within bound / failing / unconstrained
(floats only carry bounds, so within-bound lanes are float lanes). docs/conformance.md quotes its output.
"""
import re
import subprocess
import sys

OUTPUT = re.compile(r"(?P<name>[\w.]+): (?P<status>pass|FAIL), (?P<rest>[^;]*?)(?=; [\w.]+: (?:pass|FAIL|error)|  \(|$)")


def count(tilesim, directory, extra):
    text = subprocess.run([tilesim, "conformance", directory, *extra], capture_output=True, text=True).stdout
    totals = dict(exact=0, within=0, failing=0, unconstrained=0)
    for line in text.splitlines():
        if not re.match(r"\[\s*\d+/\d+\]", line):
            continue
        for match in OUTPUT.finditer(line):
            rest = match.group("rest")
            if m := re.match(r"bit-exact \((\d+) elements\)", rest):
                totals["exact"] += int(m.group(1))
                continue
            if m := re.search(r"(\d+) of (\d+) failing", rest):
                totals["failing"] += int(m.group(1))
            if m := re.search(r"(\d+) bit-exact, (\d+) within bound", rest):
                totals["exact"] += int(m.group(1))
                totals["within"] += int(m.group(2))
            if m := re.search(r"\((\d+) unconstrained\)", rest):
                totals["unconstrained"] += int(m.group(1))
    summary = next((l for l in text.splitlines() if re.match(r"\d+ cases:", l)), "no summary")
    return totals, summary.split(";")[0]


def main():
    args = sys.argv[1:]
    tilesim, rest = args[0], args[1:]
    extra = []
    if "--" in rest:
        index = rest.index("--")
        rest, extra = rest[:index], rest[index + 1:]
    for directory in rest:
        totals, summary = count(tilesim, directory, extra)
        print(f"{directory}: {summary}; lanes: {totals['exact']} bit-exact, {totals['within']} within bound "
              f"({totals['unconstrained']} unconstrained), {totals['failing']} failing")


if __name__ == "__main__":
    main()
