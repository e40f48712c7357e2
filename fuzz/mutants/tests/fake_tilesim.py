#!/usr/bin/env python3
"""A stand-in for a mutation build of tilesim, for mutation_score_test.py: just enough of `tilesim --help`,
`tilesim fuzz` and `tilesim conformance` for mutation_score.py. Which programs fail is a table in the
environment, FAKE_TILESIM = {"failures": {mutant or "": [index, ...]}, "programs": {mutant or "": N},
"digests": {mutant: digest}}: a campaign runs programs --first .. N-1 in order (N: --count, else the table's
count for a --seconds campaign, default 100) and stops after --max-failures failing ones."""
import json
import os
import sys

table = json.loads(os.environ.get("FAKE_TILESIM", "{}"))
mutant = os.environ.get("TILESIM_MUTANT", "")
arguments = sys.argv[1:]


def option(name, default=None):
    return arguments[arguments.index(name) + 1] if name in arguments else default


if arguments[:1] == ["--help"]:
    sys.exit(0)
if arguments[:1] == ["conformance"]:
    sys.exit(0)
if arguments[:1] != ["fuzz"]:
    sys.exit(f"fake tilesim: unexpected arguments {arguments}")
first = int(option("--first", 0))
end = int(option("--count", table.get("programs", {}).get(mutant, 100)))
limit = int(option("--max-failures", 10**9))
failing = set(table.get("failures", {}).get(mutant, []))
failures, programs = [], 0
for index in range(first, end):
    programs += 1
    if index in failing:
        failures.append({"index": index, "check": "mismatch"})
        if len(failures) >= limit:
            break
summary = {"programs": programs, "failed": len(failures), "failures": failures, "seconds": 0.001 * programs,
           "digest": table.get("digests", {}).get(mutant, "same")}
with open(option("--json"), "w") as file:
    json.dump(summary, file)
sys.exit(1 if failures else 0)
