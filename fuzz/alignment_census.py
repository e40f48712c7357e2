#!/usr/bin/env python3
"""How often generated programs reach the GPU backend's alignment decisions (docs/fuzzing.md, "What the
generator covers"). Reads cases written by `tilesim fuzz --emit-dir DIR` and, for a sample of them, compiles the
kernel to PTX with `tilesim compile` (no GPU needed):

  view-8 pointers   parameters that are views at a byte offset that is 8 but not 16 mod 16 (alias_offset) and
                    claim `tt.divisibility = 8`;
  vectorised        of those, the ones whose accesses the backend vectorises because of the claim: the PTX has
                    fewer vector global accesses (ld/st.global ... .v2/.v4/.v8) once that one claim is removed.

  --compare PLANTED  also compile each sampled kernel with another tilesim (a build with a planted alignment bug)
                    and count the kernels whose PTX there has more 16-byte vector accesses (.v4.b32, .v2.b64).

Usage: fuzz/alignment_census.py TILESIM DIR [--sample N] [--compare PLANTED]
Prints one line per measure with the numbers it counted.
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

VECTOR_ACCESS = re.compile(r"^\s*(?:@%p\d+\s+)?(?:ld|st)\.global\S*\.v[248]\.", re.M)
WIDE_ACCESS = re.compile(r"^\s*(?:@%p\d+\s+)?(?:ld|st)\.global\S*\.(?:v4\.[bfu]32|v2\.[bfu]64)", re.M)


def vector_accesses(tilesim, ttir_text, num_warps, pattern=VECTOR_ACCESS):
    with tempfile.NamedTemporaryFile("w", suffix=".ttir", delete=False) as f:
        f.write(ttir_text)
        path = f.name
    try:
        out = subprocess.run([tilesim, "compile", path, "--emit", "ptx", "--num-warps", str(num_warps)],
                             capture_output=True, text=True, timeout=120)
    finally:
        os.unlink(path)
    if out.returncode != 0:
        return None
    return len(pattern.findall(out.stdout))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("tilesim")
    parser.add_argument("dir")
    parser.add_argument("--sample", type=int, default=150, help="programs with a view-8 pointer to compile")
    parser.add_argument("--compare", help="a tilesim with a planted alignment bug")
    args = parser.parse_args()
    cases = sorted(d for d in os.listdir(args.dir) if os.path.exists(os.path.join(args.dir, d, "case.json")))
    if not cases:
        sys.exit(f"no cases in {args.dir}")
    with_view8, compiled, vectorised, unsupported, wider = [], 0, 0, 0, 0
    for name in cases:
        case = json.load(open(os.path.join(args.dir, name, "case.json")))
        text = open(os.path.join(args.dir, name, "kernel.ttir")).read()
        views = {a["name"] for a in case["args"] if a.get("alias_of") and a.get("alias_offset", 0) % 16 == 8}
        params = [p for p in views if re.search(r"%" + p + r": !tt\.ptr<[^>]*> \{tt\.divisibility = 8 : i32\}", text)]
        if params:
            with_view8.append((name, case.get("num_warps", 4), text, params))
    for name, num_warps, text, params in with_view8[: args.sample]:
        base = vector_accesses(args.tilesim, text, num_warps)
        if base is None:
            unsupported += 1
            continue
        compiled += 1
        if args.compare:
            fixed = vector_accesses(args.tilesim, text, num_warps, WIDE_ACCESS)
            planted = vector_accesses(args.compare, text, num_warps, WIDE_ACCESS)
            wider += 1 if planted is not None and fixed is not None and planted > fixed else 0
        for p in params:
            without = re.sub(r"(%" + p + r": !tt\.ptr<[^>]*>) \{tt\.divisibility = 8 : i32\}", r"\1", text)
            fewer = vector_accesses(args.tilesim, without, num_warps)
            if fewer is not None and fewer < base:
                vectorised += 1
                break
    n = len(cases)
    print(f"programs: {n}")
    print(f"with a view-8 pointer claiming tt.divisibility = 8: {len(with_view8)} ({100.0 * len(with_view8) / n:.1f}%)")
    print(f"compiled: {compiled} of the first {min(args.sample, len(with_view8))} (unsupported by the GPU backend: {unsupported})")
    if compiled:
        share = vectorised / compiled
        print(f"whose accesses through that pointer the backend vectorises: {vectorised} of {compiled} ({100.0 * share:.1f}%)"
              f" -> about {100.0 * share * len(with_view8) / n:.1f}% of all programs")
        if args.compare:
            print(f"with more 16-byte vector accesses under {args.compare}: {wider} of {compiled}"
                  f" -> about {100.0 * wider / compiled * len(with_view8) / n:.1f}% of all programs")


if __name__ == "__main__":
    main()
